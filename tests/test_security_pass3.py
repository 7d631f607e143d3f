"""Security, third pass (issue 45): token scopes and tenant binding (item 6), browser-borne
requests on a server without a token (item 7), and HTTP framing (item 10).

Every claim is checked against the ``serve`` command's uvicorn in its own process
(``tests/server_proc.py``, settings from ``GROUNDWATCH_*`` variables as in production); the
framing claims over a raw socket, since they are about the bytes on the wire.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from pydantic import ValidationError

from groundwatch.access import parse_grant, tenant_scope
from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.processing import finding_scope
from groundwatch.sections.api import ApiSettings
from groundwatch.sections.pipeline import RedactionSettings
from groundwatch.settings import Settings
from tests.fakes import make_trace
from tests.infra import free_port, wait_port

ROOT = Path(__file__).resolve().parent.parent

ADMIN = "plain-admin-token-7c1e9b2f5a"  # GROUNDWATCH_API__TOKENS: every right, as before
INGEST = "ingest-only-token-3f8a6d0c1b"
READ_ACME = "read-acme-token-9e2b4c7d1f"
GLOBEX_RL = "globex-read-label-token-5d3a"
INITECH_INGEST = "initech-ingest-token-2b7c9e"
INITECH_READ = "initech-read-token-8f0d3a61"
SCOPED = [
    f"ingest:{INGEST}",
    f"read@acme:{READ_ACME}",
    f"read+label@globex:{GLOBEX_RL}",
    f"ingest@initech:{INITECH_INGEST}",
    f"read@initech:{INITECH_READ}",
]
JSON_CT = {"content-type": "application/json"}


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@contextmanager
def _served(env: dict[str, str]) -> Iterator[str]:
    """``tests.server_proc`` on a free loopback port with ``env``; claims with the word
    "renewal" are contradicted (findings). Yields the base URL; stopped on exit."""
    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.upper().startswith("GROUNDWATCH_")}
    clean.update({"GROUNDWATCH_STATE": "memory", "GROUNDWATCH_REDACTION__MODE": "off"})
    clean.update({"GROUNDWATCH_API__RATE_LIMIT_PER_S": "0", **env})
    command = [sys.executable, "-m", "tests.server_proc", "--port", str(port)]
    proc = subprocess.Popen([*command, "--contradict", "renewal"], cwd=ROOT, env=clean)
    try:
        wait_port(port, timeout=120)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="module")
def scoped_url() -> Iterator[str]:
    env = {
        "GROUNDWATCH_API__TOKENS": ADMIN,
        "GROUNDWATCH_API__SCOPED_TOKENS": json.dumps(SCOPED),
        "GROUNDWATCH_API__ALLOWED_HOSTS": '["gw.example"]',
        "GROUNDWATCH_API__ALLOWED_ORIGINS": '["https://app.example"]',
    }
    with _served(env) as url:
        yield url


@pytest.fixture(scope="module")
def open_url() -> Iterator[str]:
    with _served({}) as url:  # no token: the loopback default
        yield url


def _findings(url: str, token: str, query: str = "") -> dict[str, Any]:
    r = httpx.get(f"{url}/v1/findings{query}", headers=_auth(token), timeout=10)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _wait_findings(
    url: str, n: int, prefixes: tuple[str, ...] = ("acme-", "globex-"), timeout: float = 30.0
) -> list[dict[str, Any]]:
    """The findings of traces whose id starts with one of ``prefixes``, once ``n`` are kept."""
    deadline = time.monotonic() + timeout
    while True:
        found = _findings(url, ADMIN, "?limit=500")["items"]
        items = [f for f in found if f["trace_id"].startswith(prefixes)]
        if len(items) >= n or time.monotonic() > deadline:
            return items
        time.sleep(0.1)


# --- item 6: token scopes and tenants ---------------------------------------------------------


def test_scoped_tokens_hold_their_scopes_and_tenant_bound_readers_see_their_tenant(
    scoped_url: str,
) -> None:
    url, host = scoped_url, {"Host": "gw.example"}
    acme = [make_trace(f"acme-{i}", attributes={"tenant": "acme"}) for i in range(3)]
    globex = [make_trace(f"globex-{i}", attributes={"tenant": "globex"}) for i in range(2)]
    # An ingest token ingests; a plain token still does everything (backward compatible).
    r = httpx.post(f"{url}/v1/rag-traces", json=acme, headers=_auth(INGEST) | host)
    assert r.status_code == 202, r.text
    r = httpx.post(f"{url}/v1/rag-traces", json=globex, headers=_auth(ADMIN) | host)
    assert r.status_code == 202, r.text
    items = _wait_findings(url, 5)
    ids = {f["trace_id"]: quote(f["id"], safe="") for f in items}  # ids hold '#' and '@'
    assert set(ids) == {f"acme-{i}" for i in range(3)} | {f"globex-{i}" for i in range(2)}

    # The ingest token can neither read nor label.
    r = httpx.get(f"{url}/v1/findings", headers=_auth(INGEST))
    assert r.status_code == 403, r.text
    label = {"label": "right"}
    r = httpx.post(f"{url}/v1/findings/{ids['acme-0']}/label", json=label, headers=_auth(INGEST))
    assert r.status_code == 403, r.text
    # Readers cannot ingest.
    r = httpx.post(f"{url}/v1/rag-traces", json=acme, headers=_auth(READ_ACME))
    assert r.status_code == 403, r.text

    # The acme-bound reader sees acme's findings only, whatever the filter asks for.
    mine = _findings(url, READ_ACME, "?limit=2")
    assert {f["trace_id"] for f in mine["items"]} <= {f"acme-{i}" for i in range(3)}
    assert mine["total"] == 3
    rest = _findings(url, READ_ACME, f"?limit=2&cursor={mine['next_cursor']}")
    assert len(mine["items"]) + len(rest["items"]) == 3
    assert rest["next_cursor"] is None
    assert _findings(url, READ_ACME, "?tenant=globex")["items"] == []
    sampled = _findings(url, READ_ACME, "?sample=random&n=50")["items"]
    assert {f["trace_id"] for f in sampled} == {f"acme-{i}" for i in range(3)}
    cases = httpx.get(f"{url}/v1/findings/cases", headers=_auth(READ_ACME))
    assert cases.status_code == 200, cases.text
    assert "globex" not in cases.text
    assert "acme-0" in cases.text
    # Nothing that spans tenants: windows and the server-rendered page.
    assert httpx.get(f"{url}/v1/windows", headers=_auth(READ_ACME)).status_code == 403
    assert httpx.get(f"{url}/page/main", headers=_auth(READ_ACME)).status_code == 401
    assert httpx.get(f"{url}/v1/windows", headers=_auth(ADMIN)).status_code == 200
    # A read-only token cannot label.
    r = httpx.post(f"{url}/v1/findings/{ids['acme-0']}/label", json=label, headers=_auth(READ_ACME))
    assert r.status_code == 403, r.text

    # The globex labeller labels globex findings, and acme's are unknown to it.
    r = httpx.post(
        f"{url}/v1/findings/{ids['globex-0']}/label", json=label, headers=_auth(GLOBEX_RL)
    )
    assert r.status_code == 200, r.text
    r = httpx.post(f"{url}/v1/findings/{ids['acme-1']}/label", json=label, headers=_auth(GLOBEX_RL))
    assert r.status_code == 404, r.text
    # The plain token labels anything, as before.
    r = httpx.post(f"{url}/v1/findings/{ids['acme-1']}/label", json=label, headers=_auth(ADMIN))
    assert r.status_code == 200, r.text
    labelled = {f["trace_id"] for f in _wait_findings(url, 5) if f["label"]}
    assert labelled == {"globex-0", "acme-1"}


def test_tenant_scope_matches_the_scope_findings_are_stored_under() -> None:
    for tenant in ("acme", "Globex Corp", "jane.doe@example.com", "ü"):
        trace = RagTrace.model_validate(make_trace("t", attributes={"tenant": tenant}))
        assert tenant_scope(tenant) == finding_scope(trace)


def test_scoped_token_entries_are_parsed_or_refused_without_echoing_the_token() -> None:
    grant = parse_grant("read+label@acme:s3cret-token-0123456789")
    assert grant.scopes == {"read", "label"}
    assert grant.tenant == "acme"
    assert parse_grant("admin:s3cret-token-0123456789").scopes == {"ingest", "read", "label"}
    assert "s3cret" not in repr(grant)
    for bad in ("write:s3cret-token-0123456789", "read@:s3cret-token-0123456789", "read:"):
        with pytest.raises(ValidationError) as info:
            ApiSettings(scoped_tokens=[bad])
        # the CLI prints these (without the input): never the token
        assert "s3cret" not in json.dumps(info.value.errors(include_input=False), default=str)
    with pytest.raises(ValidationError, match="configured twice"):
        ApiSettings(tokens="s3cret-token-0123456789", scoped_tokens="read:s3cret-token-0123456789")
    with pytest.raises(ValidationError, match="shorter than 16"):
        ApiSettings(host="0.0.0.0", scoped_tokens="read:short")


def test_scoped_tokens_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROUNDWATCH_API__SCOPED_TOKENS", ",".join(SCOPED))
    monkeypatch.setenv("GROUNDWATCH_API__ALLOWED_HOSTS", '["gw.example"]')
    api = Settings().api
    tenants = [parse_grant(t.get_secret_value()).tenant for t in api.scoped_tokens]
    assert tenants == [None, "acme", "globex", "initech", "initech"]
    assert api.allowed_hosts == ["gw.example"]


# --- item 7: browser-borne requests -----------------------------------------------------------


def test_cross_site_simple_posts_are_415_on_a_server_without_token(open_url: str) -> None:
    body = json.dumps([make_trace("csrf-1")])
    for content_type in ("text/plain", "application/x-www-form-urlencoded", None):
        headers = {"content-type": content_type} if content_type else {}
        r = httpx.post(f"{open_url}/v1/rag-traces", content=body, headers=headers)
        assert r.status_code == 415, (content_type, r.status_code, r.text)
        assert r.json()["error"] == "unsupported_media_type"
        r = httpx.post(
            f"{open_url}/v1/findings/x%230/label", content='{"label":"right"}', headers=headers
        )
        assert r.status_code == 415, (content_type, r.status_code, r.text)
    ok = httpx.post(f"{open_url}/v1/rag-traces", content=body, headers=JSON_CT)
    assert ok.status_code == 202, ok.text


def test_writes_from_another_origin_are_refused(open_url: str) -> None:
    body = [make_trace("origin-1")]
    for origin in ("http://attacker.example", "null", "http://127.0.0.1:1"):
        r = httpx.post(f"{open_url}/v1/rag-traces", json=body, headers={"Origin": origin})
        assert r.status_code == 403, (origin, r.status_code, r.text)
        assert r.json()["error"] == "origin_refused"
    same = httpx.post(f"{open_url}/v1/rag-traces", json=body, headers={"Origin": open_url})
    assert same.status_code == 202, same.text


def test_a_foreign_host_name_gets_421_not_findings_dns_rebinding(open_url: str) -> None:
    port = open_url.rsplit(":", 1)[1]
    for path in ("/v1/findings", "/", "/v1/windows", "/metrics"):
        r = httpx.get(f"{open_url}{path}", headers={"Host": f"attacker.example:{port}"})
        assert r.status_code == 421, (path, r.status_code, r.text[:200])
    r = httpx.post(
        f"{open_url}/v1/rag-traces", json=[make_trace("rb-1")], headers={"Host": "attacker.example"}
    )
    assert r.status_code == 421, r.text
    for name in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", "localhost"):
        r = httpx.get(f"{open_url}/v1/findings", headers={"Host": name})
        assert r.status_code == 200, (name, r.status_code, r.text[:200])


def test_configured_hosts_and_origins_are_served(scoped_url: str) -> None:
    r = httpx.get(f"{scoped_url}/v1/findings", headers=_auth(ADMIN) | {"Host": "gw.example:443"})
    assert r.status_code == 200, r.text
    r = httpx.get(f"{scoped_url}/v1/findings", headers=_auth(ADMIN) | {"Host": "evil.example"})
    assert r.status_code == 421, r.text
    headers = _auth(ADMIN) | {"Origin": "https://app.example", "Host": "gw.example"}
    r = httpx.post(
        f"{scoped_url}/v1/rag-traces", json=[make_trace("allowed-origin")], headers=headers
    )
    assert r.status_code == 202, r.text


def test_turning_the_host_check_off_without_a_token_is_warned_about() -> None:
    from groundwatch.api.security import startup_warnings

    off = ApiSettings(allowed_hosts=["*"])
    assert any("DNS rebinding" in line for line in startup_warnings(off, RedactionSettings()))
    assert not any(
        "DNS rebinding" in line for line in startup_warnings(ApiSettings(), RedactionSettings())
    )


# --- item 10: framing -------------------------------------------------------------------------


def _read_until_closed(sock: socket.socket, timeout: float) -> tuple[bytes, bool]:
    """Everything the server sends within ``timeout``, and whether it closed the connection."""
    sock.settimeout(0.2)
    data = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            continue
        except ConnectionResetError:
            return data, True
        if not chunk:
            return data, True
        data += chunk
    return data, False


def test_content_length_with_transfer_encoding_is_400_and_closes(open_url: str) -> None:
    port = int(open_url.rsplit(":", 1)[1])
    smuggled = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    request = (
        b"POST /v1/rag-traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled
    )
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(request)
        data, closed = _read_until_closed(sock, timeout=5.0)
    assert data.startswith(b"HTTP/1.1 400 "), data[:200]
    assert data.count(b"HTTP/1.1 ") == 1, data  # the smuggled GET is never answered
    assert b"connection: close" in data.lower()
    assert closed


def test_head_is_served_wherever_get_is(open_url: str) -> None:
    for path in ("/healthz", "/readyz", "/v1/findings", "/", "/static/page.js", "/metrics"):
        get = httpx.get(f"{open_url}{path}")
        head = httpx.head(f"{open_url}{path}")
        assert head.status_code == get.status_code == 200, (path, head.status_code)
        assert head.content == b""
        assert head.headers["content-type"] == get.headers["content-type"]
    assert httpx.head(f"{open_url}/v1/rag-traces").status_code == 405  # no GET there either


def test_the_helm_chart_carries_scoped_tokens_and_browser_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import base64

    from tests.test_helm import by_kind, manifests, render, validate_all

    values = {
        "config": {"api": {"allowed_hosts": ["gw.example"], "allowed_origins": []}},
        "secrets": {"api": {"scoped_tokens": [f"ingest:{INGEST}", f"read@acme:{READ_ACME}"]}},
    }
    docs = manifests(render(values))
    validate_all(render(values))
    env = dict(by_kind(docs, "ConfigMap", "gw-groundwatch")["data"])
    secret = by_kind(docs, "Secret")["data"]
    env.update({k: base64.b64decode(v).decode() for k, v in secret.items()})
    # Scoped tokens only: no all-rights token is generated.
    assert env.get("GROUNDWATCH_API__TOKENS", "[]") == "[]"
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    api = Settings().api
    assert [t.get_secret_value() for t in api.scoped_tokens] == values["secrets"]["api"][
        "scoped_tokens"
    ]
    assert api.tokens == []
    assert api.allowed_hosts == ["gw.example"]
    # Without scoped tokens the chart still generates one plain token, as before.
    plain = by_kind(manifests(render({})), "Secret")["data"]
    assert len(base64.b64decode(plain["GROUNDWATCH_API__TOKENS"])) == 40


def test_a_tenant_bound_ingest_token_writes_only_into_its_tenant(scoped_url: str) -> None:
    url = scoped_url
    foreign = make_trace("stamped-1", attributes={"tenant": "globex"})
    r = httpx.post(f"{url}/v1/rag-traces", json=[foreign], headers=_auth(INITECH_INGEST))
    assert r.status_code == 202, r.text
    single = make_trace("stamped-2", attributes={"tenant": "acme"})
    r = httpx.post(f"{url}/v1/evaluate?record=true", json=single, headers=_auth(INITECH_INGEST))
    assert r.status_code == 200, r.text
    items = _wait_findings(url, 2, prefixes=("stamped-",))
    assert {f["id"].rsplit("@", 1)[1] for f in items} == {tenant_scope("initech")}
    seen = {f["trace_id"] for f in _findings(url, INITECH_READ)["items"]}
    assert seen == {"stamped-1", "stamped-2"}
    assert not {f["trace_id"] for f in _findings(url, GLOBEX_RL)["items"]} & seen
    assert not {f["trace_id"] for f in _findings(url, READ_ACME)["items"]} & seen
    # OTLP spans are assembled out of the request: a bound token cannot send them.
    for path in ("/v1/traces", "/v1/logs"):
        r = httpx.post(f"{url}{path}", content=b"{}", headers=_auth(INITECH_INGEST) | JSON_CT)
        assert r.status_code == 403, (path, r.text)


def test_tenant_bound_scans_are_bounded_and_busy_is_a_retriable_503() -> None:
    import threading

    from groundwatch.api import tenancy
    from groundwatch.sections.windows import FindingsSettings
    from groundwatch.state.findings import MemoryFindingStore
    from groundwatch.state.stores import FindingPage, StoreUnavailableError

    release = threading.Event()

    class _Slow(MemoryFindingStore):  # a unit test of the view: a store whose read waits
        def page(self, **kwargs: Any) -> FindingPage:
            release.wait(10)
            return super().page(**kwargs)

    view = tenancy.TenantFindingView(_Slow(FindingsSettings()), max_scans=1, wait_s=0.2)

    def bound_read() -> None:
        token = tenancy._TENANT.set("acme")
        try:
            view.page(limit=10)
        finally:
            tenancy._TENANT.reset(token)

    first = threading.Thread(target=bound_read)
    first.start()
    time.sleep(0.1)
    with pytest.raises(StoreUnavailableError):
        bound_read()  # the one slot is held: refused after wait_s, not queued without bound
    release.set()
    first.join(10)
    bound_read()  # the slot is free again
    assert view.page(limit=10).items == []  # unbound: the store's own page
