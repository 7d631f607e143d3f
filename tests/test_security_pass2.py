"""Security, second pass (issue 18): one regression test per row of the probe's table.

Rows: slice values and ids through the redactor (plus the allow-list mode); redaction misses
(API keys, JWTs, NFKC, lower-case IBAN, dotted and mixed card separators, IDN e-mail, number
fragments in ``reason``). Further rows (judge deadline, auth before the body, caps, bind check,
timestamps, logs, /docs) follow below in this file.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from groundwatch.api.app import create_app
from groundwatch.cli.commands import app_config
from groundwatch.contract.record import ClaimResult, EvaluationRecord, Evidence
from groundwatch.evaluation.redaction import PiiRedactor
from groundwatch.runtime import Runtime
from groundwatch.settings import Settings
from tests.builders import build_settings
from tests.fakes import FakeJudge, make_trace
from tests.needles import assert_absent

TOKEN = "tok-pass2-6f1d0c2b9e8a47d3"
AUTH = {"Authorization": f"Bearer {TOKEN}"}

SLICE_PII = {
    "tenant": "jane.doe@example.com",
    "intent": "+15551234567",
    "model": "sk-proj-Abcdefghijklmnopqrstuvwx12",
}


# build_settings merges overrides into this key by key, as the old helper did
PASS2_BASE: dict[str, Any] = {
    "state": "memory",
    "api": {"tokens": [TOKEN], "rate_limit_per_s": 0},
    "redaction": {"mode": "mask"},
    "windows": {"min_samples": 1},
}


@contextmanager
def _client(settings: Settings, judge: Any = None) -> Iterator[tuple[TestClient, Runtime]]:
    judge = judge if judge is not None else FakeJudge(lambda claim, trace: "contradicted")
    runtime = Runtime.build(settings, judge=judge, with_kafka=False)
    with TestClient(create_app(runtime, app_config(settings))) as client:
        yield client, runtime


def _wait_findings(client: TestClient, n: int, timeout: float = 20.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        body: dict[str, Any] = client.get("/v1/findings", headers=AUTH).json()
        if len(body["items"]) >= n or time.monotonic() > deadline:
            return body
        time.sleep(0.05)


# --- row: slice values skip redaction; trace_id / context_id never redacted ----------------


def test_slice_values_are_redacted_in_metrics_findings_and_windows() -> None:
    with _client(build_settings(PASS2_BASE)) as (client, _):
        trace = make_trace("slice-pii-1", attributes=SLICE_PII)
        response = client.post("/v1/evaluate?record=true", json=trace, headers=AUTH)
        assert response.status_code == 200
        findings = _wait_findings(client, 1)
        assert findings["items"]
        metrics = client.get("/metrics").text
        windows = client.get("/v1/windows", headers=AUTH).text
        for surface in (json.dumps(findings), metrics, windows):
            for value in SLICE_PII.values():
                assert value not in surface
        assert "[EMAIL]" in json.dumps(findings["items"][0]["slices"])
        assert 'tenant="[EMAIL]"' in metrics or "[EMAIL]" in metrics


def test_slice_allow_list_turns_unmatched_values_into_other() -> None:
    settings = build_settings(PASS2_BASE, windows={"slice_allow": {"tenant": "[a-z]{2,16}"}})
    with _client(settings) as (client, runtime):
        for i, tenant in enumerate(["acme", "Evil Corp <script>", "globex"]):
            trace = make_trace(f"allow-{i}", attributes={"tenant": tenant})
            assert client.post("/v1/rag-traces", json=[trace], headers=AUTH).status_code == 202
        assert runtime.queue.join(20)
        labels = {f["slices"]["tenant"] for f in _wait_findings(client, 3)["items"]}
        assert labels == {"acme", "other", "globex"}


def test_invalid_allow_list_pattern_fails_at_start() -> None:
    with pytest.raises(ValueError, match="SLICE_ALLOW"):
        Runtime.build(
            build_settings(PASS2_BASE, windows={"slice_allow": {"tenant": "("}}),
            judge=FakeJudge(),
            with_kafka=False,
        )


def test_trace_and_context_ids_with_pii_are_hashed_stably() -> None:
    trace = make_trace(
        "user=jane.doe@example.com;n=1",
        contexts=[{"id": "user:+44 20 7946 0958", "text": "The discount applies from renewal."}],
    )
    with _client(build_settings(PASS2_BASE)) as (client, _):
        assert client.post("/v1/evaluate?record=true", json=trace, headers=AUTH).status_code == 200
        # re-sent: the stored id is the same digest, so dedup still holds
        assert client.post("/v1/evaluate?record=true", json=trace, headers=AUTH).status_code == 200
        items = _wait_findings(client, 1)["items"]
        assert len(items) == 1
        text = json.dumps(items)
        # the ids are hashed (hex) and the items carry ts floats: look for the phone number as
        # written, never a short run of its digits (which a digest or a float may hold)
        assert_absent("jane.doe", text)
        assert_absent("20 7946 0958", text)
        assert items[0]["trace_id"].startswith("redacted:")
        assert items[0]["context_id"].startswith("redacted:")
    # an opaque id is kept as sent (triage looks it up in the assistant's logs)
    assert PiiRedactor(mode="mask").redact_id("3f0c-77aa-t-1") == "3f0c-77aa-t-1"


# --- row: redaction misses in mask mode ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("iban de89 3704 0044 0532 0130 00 ok", "iban [IBAN] ok"),
        ("gb82west12345698765432", "[IBAN]"),
        ("card 4111.1111.1111.1111 ok", "card [CARD] ok"),
        ("4111 1111-1111.1111", "[CARD]"),
        ("3782-822463.10005", "[CARD]"),
        (
            "\uff14\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11",
            "[CARD]",
        ),
        ("mail jane\uff20example.com", "mail [EMAIL]"),
        ("mail jane@b\u00fccher.de now", "mail [EMAIL] now"),
        ("x jane@xn--bcher-kva.de", "x [EMAIL]"),
        ("key sk-proj-Abcdefghijklmnopqrstuvwx12 here", "key [API_KEY] here"),
        ("sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "[API_KEY]"),
        ("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "[API_KEY]"),
        ("aws AKIAIOSFODNN7EXAMPLE.", "aws [API_KEY]."),
        ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[API_KEY]"),
        ("xoxb-1234567890-abcdefghij", "[API_KEY]"),
        ("AIzaSyA-abcdefghijklmnopqrstuvwxyz01234", "[API_KEY]"),
        (
            "auth eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U end",
            "auth [JWT] end",
        ),
    ],
)
def test_second_pass_detectors(text: str, expected: str) -> None:
    assert PiiRedactor(mode="mask").redact_text(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "pi is 3.14159265358979 and e is 2.718281828459045",
        "Version 10.4.1234.5678 released; build 2024.01.15.1234",
        "the sky-blue task-runner sk-8 model and the skeleton key",
        "Amounts 1.234.567.890.123 units",
        "eyJ is how base64 JSON starts",
    ],
)
def test_second_pass_detectors_leave_non_pii_alone(text: str) -> None:
    assert PiiRedactor(mode="mask").redact_text(text) == text


def _record(claim: str, evidence: str, reason: str, trace_id: str = "t-1") -> EvaluationRecord:
    return EvaluationRecord(
        trace_id=trace_id,
        evaluated_at=datetime.now(UTC),
        metric_version="fake/1",
        status="scored",
        claims=[
            ClaimResult(
                text=claim,
                verdict="contradicted",
                score=0.9,
                evidence=Evidence(context_index=0, context_id="p1", text=evidence),
                reason=reason,
            )
        ],
        contradicted_claims=1,
    )


def test_reason_keeps_no_fragment_of_a_redacted_value() -> None:
    record = _record(
        "Charged to card 4111 1111 1111 1111.",
        "The card on file is 4242 4242 4242 4242.",
        "number mismatch: 4111 vs 4242; digits 1111 differ",
    )
    for mode in ("mask", "hash", "drop_text"):
        redactor = PiiRedactor(mode=mode, hash_key=b"k" * 32)
        reason = redactor.redact_record(record).claims[0].reason or ""
        for fragment in ("4111", "4242", "1111"):
            assert fragment not in reason, mode
        assert "mismatch" in reason
    # numbers that are not part of a redacted value stay: the reason remains useful
    plain = _record("The fee is 30 dollars.", "The fee is 40 dollars.", "number mismatch: 30 vs 40")
    assert PiiRedactor(mode="mask").redact_record(plain).claims[0].reason == (
        "number mismatch: 30 vs 40"
    )


# --- row: no time limit on the judge; worker stalled; slow SIGTERM -------------------------


class _SlowFor(FakeJudge):
    """FakeJudge that takes ``slow_s`` on any batch holding a trace whose id starts "slow",
    and records the passage sizes it was given (to observe the size budget)."""

    def __init__(self, slow_s: float) -> None:
        super().__init__()
        self.slow_s = slow_s
        self.seen_chars: list[int] = []

    def judge_batch(self, traces: Any) -> Any:
        self.seen_chars.extend(sum(len(c.text) for c in t.contexts) for t in traces)
        if any(t.trace_id.startswith("slow") for t in traces):
            time.sleep(self.slow_s)
        return super().judge_batch(traces)


def test_evaluate_is_unscored_timeout_at_the_deadline() -> None:
    settings = build_settings(PASS2_BASE, judge={"timeout_s": 0.5})
    with _client(settings, judge=_SlowFor(slow_s=20)) as (client, runtime):
        start = time.monotonic()
        response = client.post("/v1/evaluate", json=make_trace("slow-1"), headers=AUTH)
        elapsed = time.monotonic() - start
        assert response.status_code == 200
        body = response.json()
        assert body["status"] == "unscored"
        assert body["unscored_reason"] == "timeout"
        assert elapsed < 10, elapsed
        value = runtime.registry.get_sample_value(
            "groundwatch_judge_timeouts_total", {"cause": "deadline"}
        )
        assert value == 1


def test_pipeline_worker_is_not_blocked_by_slow_traces() -> None:
    settings = build_settings(PASS2_BASE, judge={"timeout_s": 1.0})
    judge = _SlowFor(slow_s=30)
    with _client(settings, judge=judge) as (client, runtime):
        slow = [make_trace("slow-a"), make_trace("slow-b")]
        assert client.post("/v1/rag-traces", json=slow, headers=AUTH).status_code == 202
        deadline = time.monotonic() + 10
        while runtime.queue.depth() and time.monotonic() < deadline:
            time.sleep(0.05)
        start = time.monotonic()
        normal = [make_trace("normal-1")]
        assert client.post("/v1/rag-traces", json=normal, headers=AUTH).status_code == 202
        assert runtime.queue.join(15), "queue stalled behind slow traces"
        assert time.monotonic() - start < 15
        evaluated = runtime.registry.get_sample_value(
            "groundwatch_traces_evaluated_total", {"status": "scored"}
        )
        assert evaluated == 1  # normal-1 scored; the two slow ones unscored, reason timeout
        unscored = runtime.registry.get_sample_value(
            "groundwatch_traces_unscored_total", {"reason": "timeout"}
        )
        assert unscored == 2


@pytest.mark.parametrize(("mode", "reason"), [("truncate", None), ("reject", "over_budget")])
def test_size_budget_before_judging(mode: str, reason: str | None) -> None:
    settings = build_settings(PASS2_BASE, judge={"max_chars": 2_000, "over_budget": mode})
    judge = _SlowFor(slow_s=0)
    passages = [{"id": f"p{i}", "text": "x" * 900} for i in range(10)]
    with _client(settings, judge=judge) as (client, runtime):
        body = client.post(
            "/v1/evaluate", json=make_trace("big-1", contexts=passages), headers=AUTH
        ).json()
        action = "truncated" if mode == "truncate" else "rejected"
        count = runtime.registry.get_sample_value(
            "groundwatch_judge_budget_total", {"action": action}
        )
        assert count == 1
        if reason is None:
            assert body["status"] == "scored"
            assert judge.seen_chars
            assert max(judge.seen_chars) <= 2_000
        else:
            assert body["unscored_reason"] == reason
            assert judge.seen_chars == []


def test_shutdown_drains_within_its_bound() -> None:
    settings = build_settings(PASS2_BASE, judge={"timeout_s": 120}, api={"drain_timeout_s": 0.5})
    judge = _SlowFor(slow_s=30)
    runtime = Runtime.build(settings, judge=judge, with_kafka=False)
    runtime.start()
    try:
        from groundwatch.contract.trace import validate_trace

        traces = [validate_trace(make_trace(f"slow-{i}"), settings.limits) for i in range(3)]
        assert runtime.queue.offer(traces)
        time.sleep(0.3)
    finally:
        start = time.monotonic()
        runtime.stop()
        elapsed = time.monotonic() - start
    assert elapsed < 6, elapsed  # was: the whole judge call (here 30 s; 45 s in the probe)
    cancelled = runtime.registry.get_sample_value(
        "groundwatch_judge_timeouts_total", {"cause": "cancelled"}
    )
    assert cancelled == 1


def test_client_disconnect_cancels_judging() -> None:
    import socket
    import threading

    import httpx

    from groundwatch.cli.commands import app_config, serve_app

    settings = build_settings(PASS2_BASE, judge={"timeout_s": 120})
    runtime = Runtime.build(settings, judge=_SlowFor(slow_s=60), with_kafka=False)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = serve_app(create_app(runtime, app_config(settings)), "127.0.0.1", port, settings.api)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(
                f"http://127.0.0.1:{port}/v1/evaluate",
                json=make_trace("slow-gone"),
                headers=AUTH,
                timeout=httpx.Timeout(10, read=1.0),
            )
        labels = {"cause": "cancelled"}
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if runtime.registry.get_sample_value("groundwatch_judge_timeouts_total", labels):
                break
            time.sleep(0.05)
        assert runtime.registry.get_sample_value("groundwatch_judge_timeouts_total", labels) == 1
    finally:
        server.should_exit = True
        thread.join(timeout=20)


# --- row: body parsed before auth; failed requests not rate limited --------------------------


def test_auth_is_checked_before_the_body_is_parsed() -> None:
    with _client(build_settings(PASS2_BASE)) as (client, _):
        for path in ("/v1/evaluate", "/v1/rag-traces"):
            response = client.post(
                path, content=b"{not json", headers={"content-type": "application/json"}
            )
            assert response.status_code == 401, path


def test_failed_requests_count_against_the_rate_limit() -> None:
    settings = build_settings(PASS2_BASE, api={"rate_limit_per_s": 0.01, "rate_limit_burst": 2})
    with _client(settings) as (client, _):
        codes = [
            client.post(
                "/v1/evaluate",
                content=b"{not json",
                headers={**AUTH, "content-type": "application/json"},
            ).status_code
            for _ in range(3)
        ]
        assert codes[:2] != [429, 429]
        assert codes[2] == 429
        bad = [
            client.post(
                "/v1/evaluate", content=b"{", headers={"content-type": "application/json"}
            ).status_code
            for _ in range(3)
        ]
        assert bad[2] == 429


# --- row: full batch parsed before the queue is checked; re-sent trace_id evaluated again ----


def test_full_queue_is_503_before_the_body_is_parsed() -> None:
    settings = build_settings(PASS2_BASE, api={"queue_size": 1})
    with _client(settings, judge=_SlowFor(slow_s=5)) as (client, runtime):
        runtime.queue.stop(drain=False)  # no worker: the queue stays full
        assert (
            client.post("/v1/rag-traces", json=[make_trace("q-1")], headers=AUTH).status_code == 202
        )
        response = client.post(
            "/v1/rag-traces",
            content=b"[{not json",
            headers={**AUTH, "content-type": "application/json"},
        )
        assert response.status_code == 503
        assert response.headers["retry-after"]


def test_resent_trace_id_is_reported_as_duplicate_and_not_scored_again() -> None:
    judge = _SlowFor(slow_s=0)
    with _client(build_settings(PASS2_BASE), judge=judge) as (client, runtime):
        first = client.post("/v1/rag-traces", json=[make_trace("dup-1")], headers=AUTH).json()
        assert runtime.queue.join(10)
        again = client.post("/v1/rag-traces", json=[make_trace("dup-1")], headers=AUTH).json()
        assert runtime.queue.join(10)
        assert first["sampled"] == 1
        assert first["duplicates"] == []
        assert again["sampled"] == 0
        assert again["duplicates"] == ["dup-1"]
        assert judge.calls == 1


# --- row: demo --host 0.0.0.0 -------------------------------------------------------------


def test_demo_applies_the_serve_bind_check(capsys: pytest.CaptureFixture[str]) -> None:
    from groundwatch.cli.demo import run_demo

    settings = Settings.model_validate({"api": {"tokens": []}})
    assert run_demo(settings, host="0.0.0.0", port=1, duration=1) == 2
    assert "refusing to bind 0.0.0.0" in capsys.readouterr().err


# --- row: unbounded attributes and citations --------------------------------------------------

CAPS = {
    "max_attributes": 4,
    "max_attribute_key_chars": 16,
    "max_attribute_value_chars": 40,
    "max_citations": 3,
    "max_citation_ids": 2,
}


def _citations(n: int, ids: int) -> list[dict[str, Any]]:
    return [{"sentence": "The answer.", "context_ids": ["0"] * ids} for _ in range(n)]


# (trace overrides, expected message fragment); each case is one past a cap.
OVER_CAPS = [
    ({"attributes": {f"k{i}": "v" for i in range(5)}}, "attributes: more than 4 attributes"),
    ({"attributes": {"k" * 17: "v"}}, "key longer than 16 chars"),
    ({"attributes": {"tenant": "v" * 41}}, "value longer than 40 chars"),
    ({"citations": _citations(4, 1)}, "citations: more than 3 citations"),
    ({"citations": _citations(1, 3)}, "citations.0.context_ids: more than 2 ids"),
]
AT_CAPS = {
    "attributes": {"k" * 16: "v" * 40, "a": "1", "b": "2", "c": "3"},
    "citations": _citations(3, 2),
}


@pytest.mark.parametrize(("overrides", "fragment"), OVER_CAPS)
def test_attribute_and_citation_caps_on_every_contract_path(
    overrides: dict[str, Any], fragment: str
) -> None:
    from groundwatch.contract.trace import (
        TraceDecodeError,
        TraceLimits,
        decode_trace,
        validate_trace,
    )
    from groundwatch_consumers.decode import decode_fast

    limits = TraceLimits(**CAPS)
    over = make_trace("caps-over", **overrides)
    raw = json.dumps(over).encode()
    for path in (
        lambda: decode_trace(raw, limits),  # HTTP /v1/evaluate, suite files
        lambda: validate_trace(over, limits),  # batch items, OTLP, demo
        lambda: decode_fast(raw, limits),  # Kafka
    ):
        with pytest.raises(TraceDecodeError) as exc:
            path()
        assert exc.value.reason == "oversize"
        assert fragment in exc.value.detail
    at = json.dumps(make_trace("caps-at", **AT_CAPS)).encode()
    assert decode_trace(at, limits).attributes == AT_CAPS["attributes"]
    assert len(decode_fast(at, limits).citations or []) == 3


def test_attribute_and_citation_caps_through_the_http_api() -> None:
    with _client(build_settings(PASS2_BASE, limits=CAPS)) as (client, runtime):
        for overrides, fragment in OVER_CAPS:
            response = client.post("/v1/evaluate", json=make_trace(**overrides), headers=AUTH)
            assert response.status_code == 413, fragment
            body = response.json()
            assert body["error"] == "oversize"
            assert fragment in body["message"]
        batch = client.post(
            "/v1/rag-traces",
            json=[make_trace("caps-b1", **OVER_CAPS[0][0]), make_trace("caps-b2", **AT_CAPS)],
            headers=AUTH,
        )
        assert batch.status_code == 202
        assert batch.json()["accepted"] == 1
        assert batch.json()["errors"][0]["reason"] == "oversize"
        # OTLP: a span attribute mapped to a slice (app.intent -> intent) over the value cap.
        from tests.otlp_support import json_body, record_rag_spans

        otlp = json_body(record_rag_spans("genai")).replace(b'"billing"', b'"' + b"i" * 41 + b'"')
        reply = client.post(
            "/v1/traces", content=otlp, headers={**AUTH, "content-type": "application/json"}
        )
        assert reply.status_code == 200
        assert int(reply.json()["partialSuccess"]["rejectedSpans"]) == 3
        labels = {"source": "otlp", "reason": "oversize"}
        assert runtime.registry.get_sample_value("groundwatch_traces_rejected_total", labels) == 1


# --- row: 503 bodies show the store address ------------------------------------------------


def test_store_unavailable_bodies_do_not_reveal_the_store_address() -> None:
    from tests.infra import free_port

    port = free_port()  # nothing listens there: every Redis call fails
    secret = "pw-6c1e0a7f"
    settings = build_settings(PASS2_BASE, redis={"url": f"redis://:{secret}@127.0.0.1:{port}/0"})
    settings = settings.model_copy(update={"state": "redis"})
    with _client(settings) as (client, _):
        responses = {
            "findings": client.get("/v1/findings", headers=AUTH),
            "windows": client.get("/v1/windows", headers=AUTH),
            "evaluate": client.post(
                "/v1/evaluate?record=true", json=make_trace("s-1"), headers=AUTH
            ),
            "readyz": client.get("/readyz"),
            "page": client.get("/", headers=AUTH),
        }
    for name, response in responses.items():
        if name != "page":
            assert response.status_code == 503, (name, response.text)
        text = response.text
        # the port with its colon, as an address shows it: the bare digits could be any number
        for leak in (f":{port}", "127.0.0.1", secret, "redis://", "Connection"):
            assert leak not in text, (name, leak, text)
    assert responses["findings"].json()["error"] == "unavailable"
    assert "store unavailable" in responses["page"].text


# --- row: /docs loads Swagger from a CDN without CSP ----------------------------------------


def test_docs_are_off_by_default_and_served_under_a_csp_when_enabled() -> None:
    import base64
    import hashlib
    import re

    with _client(build_settings(PASS2_BASE)) as (client, _):
        assert client.get("/docs").status_code == 404
        assert client.get("/redoc").status_code == 404
        assert client.get("/openapi.json").status_code == 200
    with _client(build_settings(PASS2_BASE, api={"docs": True})) as (client, _):
        for path in ("/docs", "/redoc"):
            page = client.get(path)
            assert page.status_code == 200, path
            csp = page.headers["content-security-policy"]
            directives = dict(d.strip().split(" ", 1) for d in csp.split(";") if " " in d.strip())
            script_src = directives["script-src"].split()
            assert "'unsafe-inline'" not in script_src
            assert "*" not in script_src
            assert directives["default-src"] == "'none'"
            assert "frame-ancestors" in directives
            # Every external script comes from the one allowed CDN, at a pinned x.y.z version.
            sources = re.findall(r'<script src="([^"]+)"', page.text)
            assert sources
            for src in sources:
                assert src.startswith("https://cdn.jsdelivr.net/"), src
                assert re.search(r"@\d+\.\d+\.\d+/", src), src
            # Each inline script is allowed by its exact hash, nothing else inline runs.
            for script in re.findall(r"<script>(.*?)</script>", page.text, re.S):
                digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
                assert f"'sha256-{digest}'" in script_src
            assert "fonts.googleapis" not in page.text
            assert "fastapi.tiangolo.com" not in page.text


# --- row: no header/body read timeouts ------------------------------------------------------


@contextmanager
def _real_server(settings: Settings) -> Iterator[int]:
    """The app behind ``serve_app`` (the ``serve`` command's uvicorn) on a free loopback port."""
    import threading

    from groundwatch.cli.commands import serve_app
    from tests.infra import free_port, wait_port

    runtime = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    port = free_port()
    server = serve_app(create_app(runtime, app_config(settings)), "127.0.0.1", port, settings.api)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_port(port)
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=30)
    assert not thread.is_alive()


def _trickle_until_closed(
    sock: Any, chunks: Iterator[bytes], limit_s: float, every_s: float = 0.1
) -> tuple[float, bytes]:
    """Send a chunk every ``every_s`` until the server closes; (seconds it took, bytes read)."""
    import socket

    start = time.monotonic()
    received = b""
    sock.settimeout(every_s)
    while time.monotonic() - start < limit_s:
        try:
            data = sock.recv(4096)
        except TimeoutError:
            try:
                sock.sendall(next(chunks))
            except (BrokenPipeError, ConnectionResetError):
                return time.monotonic() - start, received
            continue
        except ConnectionResetError:
            return time.monotonic() - start, received
        if not data:
            return time.monotonic() - start, received
        received += data
    sock.shutdown(socket.SHUT_RDWR)
    raise AssertionError(f"connection still open after {limit_s} s (read {received[:200]!r})")


def _forever(chunk: bytes) -> Iterator[bytes]:
    while True:
        yield chunk


def test_slow_headers_and_bodies_are_cut_off_by_read_timeouts() -> None:
    import socket

    header_s, body_s = 1.0, 1.5
    settings = build_settings(
        PASS2_BASE, api={"header_timeout_s": header_s, "body_timeout_s": body_s, "keep_alive_s": 30}
    )
    limit = 15.0  # generous: the machine may be loaded; without the guard it never closes
    with _real_server(settings) as port:

        def connect() -> socket.socket:
            return socket.create_connection(("127.0.0.1", port), timeout=5)

        # 1. Headers trickled a line at a time: 408, then closed.
        with connect() as sock:
            sock.sendall(b"POST /v1/evaluate HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            took, got = _trickle_until_closed(sock, _forever(b"X-Slow: 1\r\n"), limit)
            assert got.startswith(b"HTTP/1.1 408 "), got[:100]
            assert header_s * 0.8 <= took, took
        # 2. Connected, nothing sent: closed quietly.
        with connect() as sock:
            took, got = _trickle_until_closed(sock, _forever(b""), limit)
            assert got == b""
            assert header_s * 0.8 <= took, took
        # 3. Headers complete, body trickled: closed.
        head = (
            "POST /v1/evaluate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {TOKEN}\r\nContent-Length: 100000\r\n\r\n"
        ).encode()
        with connect() as sock:
            sock.sendall(head + b'{"trace_id": "')
            took, got = _trickle_until_closed(sock, _forever(b"a"), limit)
            assert body_s * 0.8 <= took, took
        # 4. A kept-alive connection: a prompt request is served, then the next one's headers
        #    trickle and are cut off; the header clock restarted after the first response.
        with connect() as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            first = b""
            while not first.endswith(b"}}"):  # {"status":"ok","checks":{...}}
                data = sock.recv(4096)
                assert data, first
                first += data
            assert first.startswith(b"HTTP/1.1 200 "), first[:100]
            time.sleep(header_s * 0.5)
            sock.sendall(b"GET /healthz HTTP/1.1\r\n")
            took, got = _trickle_until_closed(sock, _forever(b"X-Slow: 1\r\n"), limit)
            assert got.startswith(b"HTTP/1.1 408 "), got[:100]
        # 5. A normal request with its body is unaffected.
        with connect() as sock:
            body = json.dumps(make_trace("rt-ok")).encode()
            sock.sendall(
                head.replace(b"Content-Length: 100000", b"Content-Length: %d" % len(body)) + body
            )
            sock.settimeout(10)
            reply = sock.recv(65536)
            assert reply.startswith(b"HTTP/1.1 200 "), reply[:200]


# --- row: DEBUG logs carry passage sentences ------------------------------------------------

MARKER = "zq7marker"


def _chatty_verdict(claim: str, trace: Any) -> Any:
    """A judge that logs what judges log when debugging: sentences, passages, claims, errors."""
    import logging

    judge_log = logging.getLogger("groundwatch.judges.chatty")
    passage = trace.context_texts()[0]
    judge_log.debug("candidate cos=%.2f %s | %s", 0.91, passage[:80], claim)
    judge_log.debug(f"f-string sentence: {passage[10:90]}")
    judge_log.info("question was %r", trace.question)
    judge_log.warning("claim %s", claim, exc_info=ValueError(f"cannot parse {claim!r}"))
    judge_log.debug("trace %s judged with %d passages", trace.trace_id, len(trace.contexts))
    return "contradicted"


def _marker_trace(trace_id: str) -> dict[str, Any]:
    return make_trace(
        trace_id,
        question=f"What does the {MARKER} plan cost per month for a team?",
        answer=f"The {MARKER} plan costs 40 dollars per month.",
        contexts=[f"Pricing: the {MARKER} plan costs 40 dollars per month, billed yearly."],
    )


@pytest.mark.parametrize("mode", ["mask", "hash", "drop_text", "off"])
def test_no_trace_text_in_logs_at_any_level_unless_redaction_is_off(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    redaction: dict[str, Any] = {"mode": mode}
    if mode == "hash":
        redaction["hash_key"] = "k" * 32
    caplog.set_level(logging.DEBUG)
    with _client(
        build_settings(PASS2_BASE, redaction=redaction), judge=FakeJudge(_chatty_verdict)
    ) as (client, rt):
        reply = client.post("/v1/evaluate", json=_marker_trace("log-1"), headers=AUTH)
        assert reply.status_code == 200
        assert (
            client.post("/v1/rag-traces", json=[_marker_trace("log-2")], headers=AUTH).status_code
            == 202
        )
        assert rt.queue.join(10)
    text = "\n".join(caplog.text.splitlines()) + "\n".join(r.getMessage() for r in caplog.records)
    chatty = [r for r in caplog.records if r.name == "groundwatch.judges.chatty"]
    assert len(chatty) >= 10  # both paths logged, at DEBUG, INFO and WARNING
    assert "trace log-1 judged with 1 passages" in text  # ids and counts pass
    assert "trace log-2 judged with 1 passages" in text
    if mode == "off":
        assert MARKER in text  # the operator chose to see text: the same logs carry it
    else:
        assert MARKER not in text
        assert "[trace text]" in text
