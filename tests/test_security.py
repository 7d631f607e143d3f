"""Security of the HTTP API (issue 8): bearer tokens and rotation, the /metrics token, request
rate, size limits, start-up checks, and PII redaction end to end through the real app."""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi import Depends, FastAPI
from fastapi.testclient import TestClient

from groundwatch.api.app import create_app
from groundwatch.api.ratelimit import TokenBucketLimiter
from groundwatch.api.security import (
    InsecureBindError,
    SecurityGuard,
    check_bind,
    is_loopback,
    startup_warnings,
)
from groundwatch.cli.commands import app_config
from groundwatch.runtime import Runtime
from groundwatch.sections.api import ApiSettings
from groundwatch.sections.pipeline import RedactionSettings
from groundwatch.settings import Settings
from tests.builders import build_settings
from tests.fakes import FakeJudge, VerdictFn, make_trace
from tests.needles import assert_absent

TOKEN_A = "tok-alpha-6f1d0c2b9e8a47d3"
TOKEN_B = "tok-beta-0a9b8c7d6e5f4a3b"
METRICS_TOKEN = "metrics-5e4d3c2b1a09f8e7"
WRONG = "tok-wrong-1111111111111111"
SECRETS = (TOKEN_A, TOKEN_B, METRICS_TOKEN, WRONG)

EMAIL = "jane.doe@example.com"
PHONE = "+44 20 7946 0958"
CARD = "4111 1111 1111 1111"


SECURITY_BASE: dict[str, Any] = {
    "state": "memory",
    "api": {"tokens": [TOKEN_A, TOKEN_B], "rate_limit_per_s": 0},
    "redaction": {"mode": "mask"},
}


@contextmanager
def _client(
    settings: Settings, verdict_fn: VerdictFn | None = None, judge: FakeJudge | None = None
) -> Iterator[tuple[TestClient, Runtime]]:
    judge = judge if judge is not None else FakeJudge(verdict_fn)
    runtime = Runtime.build(settings, judge=judge, with_kafka=False)
    with TestClient(create_app(runtime, app_config(settings))) as client:
        yield client, runtime


@pytest.fixture
def client() -> Iterator[TestClient]:
    with _client(build_settings(SECURITY_BASE)) as (c, _):
        yield c


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


Call = Callable[[TestClient, dict[str, str]], Any]

PROTECTED: dict[str, Call] = {
    "POST /v1/rag-traces": lambda c, h: c.post("/v1/rag-traces", json=[make_trace()], headers=h),
    "POST /v1/evaluate": lambda c, h: c.post("/v1/evaluate", json=make_trace(), headers=h),
    "POST /v1/traces": lambda c, h: c.post(
        "/v1/traces",
        content=b'{"resourceSpans": []}',
        headers={**h, "Content-Type": "application/json"},
    ),
    "GET /v1/findings": lambda c, h: c.get("/v1/findings", headers=h),
    "GET /v1/windows": lambda c, h: c.get("/v1/windows", headers=h),
}


@pytest.mark.parametrize("endpoint", sorted(PROTECTED))
def test_protected_endpoint_needs_a_token(client: TestClient, endpoint: str) -> None:
    call = PROTECTED[endpoint]
    missing = call(client, {})
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert call(client, {"Authorization": f"Basic {TOKEN_A}"}).status_code == 401
    assert call(client, {"Authorization": "Bearer "}).status_code == 401
    wrong = call(client, _auth(WRONG))
    assert wrong.status_code == 403
    assert call(client, _auth(TOKEN_A + "x")).status_code == 403
    assert call(client, _auth(TOKEN_A[:-1])).status_code == 403
    for response in (missing, wrong):
        _assert_no_secret(response.text + json.dumps(dict(response.headers)))


@pytest.mark.parametrize("endpoint", sorted(PROTECTED))
def test_rotation_both_tokens_work(client: TestClient, endpoint: str) -> None:
    call = PROTECTED[endpoint]
    for token in (TOKEN_A, TOKEN_B):
        response = call(client, _auth(token))
        assert 200 <= response.status_code < 300, (token[:8], response.text)
        _assert_no_secret(response.text)


def test_open_without_tokens() -> None:
    with _client(build_settings(SECURITY_BASE, api={"tokens": []})) as (client, _):
        for endpoint in sorted(PROTECTED):
            response = PROTECTED[endpoint](client, {})
            assert 200 <= response.status_code < 300, endpoint


def test_probes_and_metrics_stay_open(client: TestClient) -> None:
    assert client.get("/healthz").status_code == 200
    assert client.get("/readyz").status_code == 200
    assert client.get("/metrics").status_code == 200


def test_metrics_token() -> None:
    with _client(build_settings(SECURITY_BASE, api={"metrics_token": METRICS_TOKEN})) as (
        client,
        _,
    ):
        assert client.get("/metrics").status_code == 401
        assert client.get("/metrics", headers=_auth(TOKEN_A)).status_code == 403
        assert client.get("/metrics", headers=_auth(METRICS_TOKEN)).status_code == 200
        # the metrics token opens nothing else
        assert client.get("/v1/findings", headers=_auth(METRICS_TOKEN)).status_code == 403
        assert client.get("/healthz").status_code == 200


VAULT_MARKER = "qzvkrwmxtjplfbnh"


def test_page_leaks_no_trace_content_without_token() -> None:
    # Letters only, long and made up: /metrics is full of digits (``_created`` timestamps such
    # as 1.7963229381474242e+09), so a short number would turn up there by chance.
    secret_claim = f"The vault code is {VAULT_MARKER} and Zanzibar wins."
    with _client(build_settings(SECURITY_BASE), verdict_fn=lambda c, t: "contradicted") as (
        client,
        _,
    ):
        trace = make_trace("page-1", answer=secret_claim)
        assert (
            client.post("/v1/evaluate?record=true", json=trace, headers=_auth(TOKEN_A)).status_code
            == 200
        )
        # The secret is stored (so its absence below means something) ...
        stored = json.dumps(_wait_for_findings(client, 1))
        assert "Zanzibar" in stored
        assert VAULT_MARKER in stored
        # ... yet no route a caller without a token can reach returns it. The page is public
        # (it fetches /v1/findings with the token the user pastes) and static: the same bytes
        # before and after findings exist.
        open_paths = ["/", *re.findall(r'(?:src|href)="(/static/[^"]+)"', client.get("/").text)]
        api_paths = client.get("/openapi.json").json()["paths"]
        open_paths += [p for p, ops in api_paths.items() if "get" in ops and "{" not in p]
        assert "/v1/findings" in open_paths
        for path in open_paths:
            response = client.get(path)
            assert_absent("Zanzibar", response.text, where=path)
            assert_absent(VAULT_MARKER, response.text, where=path)
        with _client(build_settings(SECURITY_BASE)) as (fresh, _):
            assert fresh.get("/").text == client.get("/").text


def _assert_no_secret(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text


def test_tokens_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    settings = build_settings(SECURITY_BASE, api={"metrics_token": METRICS_TOKEN})
    with _client(settings) as (client, _):
        for endpoint in sorted(PROTECTED):
            for headers in ({}, _auth(WRONG), _auth(TOKEN_A), _auth(TOKEN_B)):
                PROTECTED[endpoint](client, headers)
        client.get("/metrics", headers=_auth(WRONG))
        client.post("/v1/evaluate", content=b"{not json", headers=_auth(TOKEN_A))
    logged = caplog.text + " ".join(str(r.args) for r in caplog.records)
    _assert_no_secret(logged)
    # nor in the settings' own renderings (e.g. `groundwatch config`, error reports)
    _assert_no_secret(repr(settings) + str(settings) + settings.model_dump_json())


def test_tokens_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROUNDWATCH_API__TOKENS", f"{TOKEN_A}, {TOKEN_B}")
    assert [t.get_secret_value() for t in Settings().api.tokens] == [TOKEN_A, TOKEN_B]
    monkeypatch.setenv("GROUNDWATCH_API__TOKENS", json.dumps([TOKEN_B]))
    assert [t.get_secret_value() for t in Settings().api.tokens] == [TOKEN_B]
    monkeypatch.setenv("GROUNDWATCH_API__TOKENS", "")
    assert Settings().api.tokens == []


# --- rate limit ----------------------------------------------------------------------------


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_token_bucket_refills() -> None:
    clock = _Clock()
    limiter = TokenBucketLimiter(rate_per_s=2, burst=3, clock=clock)
    assert [limiter.acquire("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = limiter.acquire("a")
    assert wait == pytest.approx(0.5)
    assert limiter.acquire("b") == 0.0  # another client has its own bucket
    clock.now += 0.5
    assert limiter.acquire("a") == 0.0
    assert limiter.acquire("a") > 0
    clock.now += 100  # never more than the burst
    assert [limiter.acquire("a") for _ in range(4)][-1] > 0
    assert limiter.limited == 3


def test_token_bucket_is_bounded() -> None:
    limiter = TokenBucketLimiter(rate_per_s=1, burst=1, max_keys=100)
    for i in range(1000):
        limiter.acquire(f"k{i}")
    assert len(limiter) == 100


def test_token_bucket_off() -> None:
    limiter = TokenBucketLimiter(rate_per_s=0, burst=1)
    assert all(limiter.acquire("a") == 0.0 for _ in range(100))
    assert len(limiter) == 0


def test_rate_limit_per_token_through_the_app() -> None:
    with _client(
        build_settings(SECURITY_BASE, api={"rate_limit_per_s": 0.01, "rate_limit_burst": 3})
    ) as (client, _):
        codes = [client.get("/v1/findings", headers=_auth(TOKEN_A)).status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        limited = client.post("/v1/evaluate", json=make_trace(), headers=_auth(TOKEN_A))
        assert limited.status_code == 429
        assert int(limited.headers["retry-after"]) >= 1
        _assert_no_secret(limited.text)
        # the rotated token is another client; probes and metrics are never limited
        assert client.get("/v1/findings", headers=_auth(TOKEN_B)).status_code == 200
        assert client.get("/healthz").status_code == 200
        assert client.get("/metrics").status_code == 200


def test_failed_attempts_are_rate_limited_by_ip() -> None:
    with _client(
        build_settings(SECURITY_BASE, api={"rate_limit_per_s": 0.01, "rate_limit_burst": 3})
    ) as (client, _):
        codes = [client.get("/v1/findings", headers=_auth(WRONG)).status_code for _ in range(5)]
        assert codes == [403, 403, 403, 429, 429]
        # a client holding a valid token is keyed by that token, not by the guessing IP
        assert client.get("/v1/findings", headers=_auth(TOKEN_A)).status_code == 200


def test_rate_limit_keyed_by_ip_without_tokens() -> None:
    with _client(
        build_settings(
            SECURITY_BASE, api={"tokens": [], "rate_limit_per_s": 0.01, "rate_limit_burst": 2}
        )
    ) as (client, _):
        codes = [
            client.get("/v1/findings", headers=_auth(f"made-up-{i}")).status_code for i in range(3)
        ]
        assert codes == [200, 200, 429]  # made-up tokens do not buy fresh buckets


def test_limiter_as_standalone_dependency() -> None:
    limiter = TokenBucketLimiter(rate_per_s=0.01, burst=1)
    app = FastAPI()

    @app.get("/x", dependencies=[Depends(limiter)])
    def x() -> dict[str, bool]:
        return {"ok": True}

    with TestClient(app) as client:
        assert client.get("/x").status_code == 200
        assert client.get("/x").status_code == 429


def test_guard_shares_its_limiter() -> None:
    limiter = TokenBucketLimiter(rate_per_s=1, burst=1)
    assert SecurityGuard(ApiSettings(), limiter).limiter is limiter
    assert not SecurityGuard(ApiSettings()).enabled


# --- limits through the real app ----------------------------------------------------------


def test_body_size_limit_is_413() -> None:
    with _client(build_settings(SECURITY_BASE, api={"max_body_bytes": 2_000})) as (client, _):
        big = make_trace(answer="x" * 5_000)
        for path in ("/v1/evaluate", "/v1/rag-traces"):
            body = big if path == "/v1/evaluate" else [big]
            response = client.post(path, json=body, headers=_auth(TOKEN_A))
            assert response.status_code == 413, path
        response = client.post(
            "/v1/traces",
            content=b"{" + b" " * 5_000 + b"}",
            headers={**_auth(TOKEN_A), "Content-Type": "application/json"},
        )
        assert response.status_code == 413


def test_passages_per_trace_and_chars_per_passage_are_413() -> None:
    settings = Settings.model_validate(
        {
            "state": "memory",
            "api": {"tokens": [TOKEN_A], "rate_limit_per_s": 0},
            "limits": {"max_passages": 3, "max_passage_chars": 50},
        }
    )
    with _client(settings) as (client, _):
        many = make_trace(contexts=["a passage"] * 4)
        long = make_trace(contexts=["y" * 51])
        ok = make_trace(contexts=["a passage"] * 3)
        for trace in (many, long):
            response = client.post("/v1/evaluate", json=trace, headers=_auth(TOKEN_A))
            assert response.status_code == 413
            assert response.json()["error"] == "oversize"
        assert client.post("/v1/evaluate", json=ok, headers=_auth(TOKEN_A)).status_code == 200
        # in a batch each oversize trace is rejected on its own, with its reason
        batch = client.post(
            "/v1/rag-traces",
            json=[make_trace("b1", contexts=["a"] * 4), make_trace("b2")],
            headers=_auth(TOKEN_A),
        )
        assert batch.status_code == 202
        assert batch.json()["accepted"] == 1
        assert batch.json()["errors"][0]["reason"] == "oversize"


def test_batch_size_is_413() -> None:
    with _client(build_settings(SECURITY_BASE, api={"max_batch": 5})) as (client, _):
        traces = [make_trace(f"t{i}") for i in range(6)]
        response = client.post("/v1/rag-traces", json=traces, headers=_auth(TOKEN_A))
        assert response.status_code == 413
        assert response.json()["error"] == "batch_too_large"
        accepted = client.post("/v1/rag-traces", json=traces[:5], headers=_auth(TOKEN_A))
        assert accepted.status_code == 202


def test_malformed_is_rejected_with_the_error_shape(client: TestClient) -> None:
    """Not JSON is 400, valid JSON of the wrong shape is 422; both in the one error shape."""
    for body, status in ((b"{not json", 400), (b'{"trace_id": 1}', 422), (b"[]", 422)):
        response = client.post(
            "/v1/evaluate",
            content=body,
            headers={**_auth(TOKEN_A), "Content-Type": "application/json"},
        )
        assert response.status_code == status, body
        payload = response.json()
        assert set(payload) >= {"error", "message", "errors"}, payload


# --- redaction end to end -----------------------------------------------------------------

PII_ANSWER = f"Write to {EMAIL} today. Call {PHONE} now. Pay with card {CARD} please."
PII_PASSAGE = f"Support: {EMAIL}, phone {PHONE}, card on file {CARD}."
PII_STRINGS = (EMAIL, PHONE, CARD, "7946 0958", "1111 1111 1111")


def _pii_trace(trace_id: str) -> dict[str, Any]:
    return make_trace(
        trace_id,
        question=f"Can I reach you at {EMAIL}?",
        answer=PII_ANSWER,
        contexts=[{"id": "p1", "text": PII_PASSAGE}, "Another passage."],
        attributes={"tenant": "acme"},
    )


def _wait_for_findings(client: TestClient, count: int, timeout: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        body: dict[str, Any] = client.get("/v1/findings", headers=_auth(TOKEN_A)).json()
        if len(body["items"]) >= count or time.monotonic() > deadline:
            return body
        time.sleep(0.05)


def _contradicted(claim: str, trace: Any) -> Any:
    return "contradicted"


def test_findings_hold_no_pii_via_evaluate() -> None:
    with _client(build_settings(SECURITY_BASE), verdict_fn=_contradicted) as (client, runtime):
        response = client.post(
            "/v1/evaluate?record=true", json=_pii_trace("pii-1"), headers=_auth(TOKEN_A)
        )
        assert response.status_code == 200
        assert response.json()["contradicted_claims"] == 3
        body = _wait_for_findings(client, 3)
        assert len(body["items"]) == 3
        text = json.dumps(body)
        for pii in PII_STRINGS:
            assert pii not in text
        for label in ("[EMAIL]", "[PHONE]", "[CARD]"):
            assert label in text
        # scoring saw the original: verdicts and evidence positions are kept
        assert {item["context_id"] for item in body["items"]} == {"p1"}
        _assert_redaction_metric(client, runtime)


def test_findings_hold_no_pii_via_ingest() -> None:
    with _client(build_settings(SECURITY_BASE), verdict_fn=_contradicted) as (client, _):
        response = client.post("/v1/rag-traces", json=[_pii_trace("pii-2")], headers=_auth(TOKEN_A))
        assert response.status_code == 202
        body = _wait_for_findings(client, 3)
        assert len(body["items"]) == 3
        text = json.dumps(body)
        for pii in PII_STRINGS:
            assert pii not in text


def test_finding_reason_is_redacted() -> None:
    # LLM judges explain themselves in free text that may quote the claim.
    judge = FakeJudge(_contradicted, reason_fn=lambda claim, verdict: f"{verdict}: {claim!r}")
    with _client(build_settings(SECURITY_BASE), judge=judge) as (client, _):
        client.post("/v1/evaluate?record=true", json=_pii_trace("pii-4"), headers=_auth(TOKEN_A))
        body = _wait_for_findings(client, 3)
        assert len(body["items"]) == 3
        text = json.dumps(body)
        for pii in PII_STRINGS:
            assert pii not in text


def test_findings_drop_text_mode() -> None:
    settings = build_settings(SECURITY_BASE)
    settings = settings.model_copy(
        update={"redaction": settings.redaction.model_copy(update={"mode": "drop_text"})}
    )
    with _client(settings, verdict_fn=_contradicted) as (client, _):
        client.post("/v1/evaluate?record=true", json=_pii_trace("pii-3"), headers=_auth(TOKEN_A))
        body = _wait_for_findings(client, 3)
        # The findings came back (an empty list would pass every "not in" below) ...
        assert len(body["items"]) == 3
        for item in body["items"]:
            # ... with verdict, score and position kept and no text at all.
            assert item["trace_id"] == "pii-3"
            assert item["context_id"] == "p1"
            assert item["claim"] == ""
            assert not item["evidence"]
        text = json.dumps(body)
        for pii in PII_STRINGS:
            assert pii not in text
        assert "Write to" not in text
        assert "Support:" not in text


def _assert_redaction_metric(client: TestClient, runtime: Runtime) -> None:
    metrics = client.get("/metrics").text
    # A missing metric is a regression, not a reason to skip.
    assert "groundwatch_redactions_total" in metrics
    value = runtime.registry.get_sample_value("groundwatch_redactions_total", {"kind": "email"})
    assert value is not None
    assert value >= 1


# --- start-up checks ----------------------------------------------------------------------


def test_startup_warnings_without_token_on_loopback() -> None:
    lines = startup_warnings(ApiSettings(), RedactionSettings())
    assert any("no API token configured" in line and "127.0.0.1" in line for line in lines)
    check_bind(ApiSettings())  # loopback without token is allowed


def test_refuses_open_network_bind() -> None:
    api = ApiSettings(host="0.0.0.0")
    with pytest.raises(InsecureBindError, match="GROUNDWATCH_API__TOKENS"):
        check_bind(api)
    assert any("not loopback" in line for line in startup_warnings(api, RedactionSettings()))
    check_bind(ApiSettings(host="0.0.0.0", allow_open_network=True))
    check_bind(ApiSettings.model_validate({"host": "0.0.0.0", "tokens": [TOKEN_A]}))


def test_startup_warnings_never_print_tokens() -> None:
    # A short token beyond loopback is refused at start-up (issue 36); on loopback it warns.
    loopback = ApiSettings.model_validate({"host": "127.0.0.1", "tokens": ["short", TOKEN_A]})
    lines = startup_warnings(loopback, RedactionSettings(mode="off"))
    network = ApiSettings.model_validate({"host": "0.0.0.0", "tokens": [TOKEN_A]})
    lines += startup_warnings(network, RedactionSettings())
    assert any("shorter than" in line for line in lines)
    assert any("redaction is off" in line for line in lines)
    assert any("/metrics is open" in line for line in lines)
    assert "short" not in " ".join(lines).replace("shorter", "")
    _assert_no_secret(" ".join(lines))


def test_short_hash_key_warns() -> None:
    redaction = RedactionSettings.model_validate({"mode": "hash", "hash_key": "k"})
    assert any("hash key shorter" in line for line in startup_warnings(ApiSettings(), redaction))


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("10.0.0.5", False),
        ("example.com", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
