"""Hostile HTTP clients against a real server (issue 36): idle and slow connections, abandoned
synchronous evaluations, OTLP error bodies, odd query values.

Each test starts the ``serve`` command's uvicorn (``serve_app``) on a free loopback port and
stops it at the end.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import httpx

from groundwatch.api.app import create_app
from groundwatch.runtime import Runtime
from groundwatch.settings import Settings
from tests.builders import build_settings
from tests.fakes import FakeJudge

TOKEN = "tok-hostile-3b9f1e6c2d8a4f70"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
BASE: dict[str, Any] = {
    "state": "memory",
    "api": {"tokens": [TOKEN], "rate_limit_per_s": 0},
    "redaction": {"mode": "off"},
    "windows": {"min_samples": 1},
}


@contextmanager
def real_server(settings: Settings, judge: Any = None) -> Iterator[tuple[int, Runtime]]:
    """The app behind ``serve_app`` on a free loopback port, in a thread; stopped on exit."""
    import threading

    from groundwatch.cli.commands import app_config, serve_app
    from tests.infra import free_port, wait_port

    runtime = Runtime.build(settings, judge=judge or FakeJudge(), with_kafka=False)
    port = free_port()
    server = serve_app(create_app(runtime, app_config(settings)), "127.0.0.1", port, settings.api)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_port(port)
        yield port, runtime
    finally:
        server.should_exit = True
        thread.join(timeout=30)
    assert not thread.is_alive()


def _open_idle(port: int, n: int) -> list[socket.socket]:
    socks = []
    for _ in range(n):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        socks.append(sock)
    return socks


def _close_all(socks: list[socket.socket]) -> None:
    for sock in socks:
        with suppress(OSError):
            sock.close()


# --- item 4: idle connections must not take the probes down ------------------------------------


def test_healthz_answers_with_200_idle_connections_open() -> None:
    settings = build_settings(BASE)  # the shipped connection defaults
    with real_server(settings) as (port, _):
        idle = _open_idle(port, 200)
        try:
            time.sleep(0.5)  # let the server accept them all
            start = time.monotonic()
            response = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5)
            took = time.monotonic() - start
            assert response.status_code == 200, response.text
            assert took < 3, took
            ready = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5)
            assert ready.status_code == 200, ready.text
            # The API answers too, not only the probes.
            api = httpx.get(f"http://127.0.0.1:{port}/v1/findings", headers=AUTH, timeout=5)
            assert api.status_code == 200, api.text
        finally:
            _close_all(idle)


def test_idle_connections_past_the_connection_cap_evict_the_oldest_idle_ones() -> None:
    settings = build_settings(BASE, api={"max_connections": 50, "header_timeout_s": 60})
    with real_server(settings) as (port, _):
        idle = _open_idle(port, 120)
        try:
            time.sleep(0.5)
            response = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5)
            assert response.status_code == 200, response.text
            closed = 0
            for sock in idle:
                sock.settimeout(0.01)
                try:
                    closed += sock.recv(1) == b""
                except TimeoutError:
                    pass
                except OSError:
                    closed += 1
            assert closed >= 120 - 50, closed  # the oldest idle ones made room
        finally:
            _close_all(idle)


def test_requests_beyond_max_inflight_are_503_but_probes_still_answer() -> None:
    import threading

    class _Slow(FakeJudge):
        def judge_batch(self, traces: Any) -> Any:
            time.sleep(3)
            return super().judge_batch(traces)

    from tests.fakes import make_trace

    api = {"max_inflight": 2, "evaluate_max_share": 1.0}
    settings = build_settings(BASE, api=api, judge={"timeout_s": 30})
    with real_server(settings, judge=_Slow()) as (port, _):
        url = f"http://127.0.0.1:{port}"
        codes: list[int] = []

        def call(i: int) -> None:
            r = httpx.post(
                f"{url}/v1/evaluate", json=make_trace(f"busy-{i}"), headers=AUTH, timeout=30
            )
            codes.append(r.status_code)

        threads = [threading.Thread(target=call, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        time.sleep(1.0)
        third = httpx.post(f"{url}/v1/evaluate", json=make_trace("busy-x"), headers=AUTH)
        assert third.status_code == 503, third.text
        assert third.headers.get("retry-after")
        assert httpx.get(f"{url}/healthz", timeout=2).status_code == 200
        for t in threads:
            t.join(timeout=30)
        assert codes == [200, 200]


# --- item 8: the smaller ones ---------------------------------------------------------------


def test_odd_since_min_values_are_4xx_not_503() -> None:
    with real_server(build_settings(BASE)) as (port, _):
        for path in ("/", "/page/main"):
            for value in ("²", "٣", "9" * 5000, "9" * 400, "99999999999", "-5"):
                r = httpx.get(
                    f"http://127.0.0.1:{port}{path}",
                    params={"since_min": value},
                    headers=AUTH,
                    timeout=10,
                )
                assert 400 <= r.status_code < 500, (path, value[:10], r.status_code, r.text[:200])
            for fine in ("60", "0", ""):
                ok = httpx.get(f"http://127.0.0.1:{port}{path}?since_min={fine}", headers=AUTH)
                assert ok.status_code == 200, ok.text[:200]


def test_line_and_paragraph_separators_in_a_trace_id_are_rejected() -> None:
    from tests.fakes import make_trace

    with real_server(build_settings(BASE)) as (port, _):
        for sep in ("\u2028", "\u2029", "\x85"):
            r = httpx.post(
                f"http://127.0.0.1:{port}/v1/evaluate",
                json=make_trace(f"a{sep}b"),
                headers=AUTH,
                timeout=10,
            )
            assert r.status_code == 422, (repr(sep), r.status_code, r.text[:200])


def _otlp_request() -> bytes:
    from tests.otlp_support import protobuf_body, record_rag_spans

    return protobuf_body(record_rag_spans())


def test_trailing_garbage_after_a_gzip_stream_is_rejected() -> None:
    import gzip
    import zlib

    body = _otlp_request()
    headers = {**AUTH, "Content-Type": "application/x-protobuf"}
    with real_server(build_settings(BASE)) as (port, _):
        url = f"http://127.0.0.1:{port}/v1/traces"
        clean = httpx.post(url, content=gzip.compress(body), headers=headers | gz(), timeout=10)
        assert clean.status_code == 200, clean.content[:200]
        for tail in (b"garbage", gzip.compress(b"second member"), b"\x00"):
            bad = httpx.post(
                url, content=gzip.compress(body) + tail, headers=headers | gz(), timeout=10
            )
            assert bad.status_code == 400, (tail, bad.status_code, bad.content[:200])
            _assert_status_proto(bad.content)
        deflated = zlib.compress(body) + b"junk"
        bad = httpx.post(
            url, content=deflated, headers=headers | {"Content-Encoding": "deflate"}, timeout=10
        )
        assert bad.status_code == 400, bad.content[:200]


def gz() -> dict[str, str]:
    return {"Content-Encoding": "gzip"}


def _assert_status_proto(content: bytes) -> Any:
    from google.rpc import status_pb2  # type: ignore[import-untyped]

    status = status_pb2.Status()
    status.ParseFromString(content)
    assert status.code > 0, content[:200]
    assert status.message, content[:200]
    return status


def _assert_status_json(content: bytes) -> dict[str, Any]:
    import json

    body: dict[str, Any] = json.loads(content)
    assert isinstance(body.get("code"), int), body
    assert body["code"] > 0, body
    assert isinstance(body.get("message"), str), body
    assert body["message"], body
    assert set(body) <= {"code", "message", "details"}, body
    return body


def test_otlp_error_bodies_are_google_rpc_status() -> None:
    import json
    import threading

    from tests.fakes import make_trace

    class _Slow(FakeJudge):
        def judge_batch(self, traces: Any) -> Any:
            time.sleep(3)
            return super().judge_batch(traces)

    body = _otlp_request()
    json_body = json.dumps({"resourceSpans": []}).encode()
    settings = build_settings(BASE, api={"max_inflight": 1, "max_body_bytes": 50_000})
    with real_server(settings, judge=_Slow()) as (port, _):
        url = f"http://127.0.0.1:{port}/v1/traces"
        proto = {"Content-Type": "application/x-protobuf"}
        as_json = {"Content-Type": "application/json"}
        # 401, in the request's encoding
        r = httpx.post(url, content=body, headers=proto, timeout=10)
        assert r.status_code == 401
        assert r.headers["content-type"].startswith("application/x-protobuf")
        assert _assert_status_proto(r.content).code == 16  # UNAUTHENTICATED
        r = httpx.post(url, content=json_body, headers=as_json, timeout=10)
        assert r.status_code == 401
        assert r.headers["content-type"].startswith("application/json")
        assert _assert_status_json(r.content)["code"] == 16
        # 413
        r = httpx.post(url, content=b"\x0a" * 60_000, headers=AUTH | proto, timeout=10)
        assert r.status_code == 413
        _assert_status_proto(r.content)
        # 503 (more requests in progress than api.max_inflight), Retry-After kept
        busy = threading.Thread(
            target=httpx.post,
            args=(f"http://127.0.0.1:{port}/v1/evaluate",),
            kwargs={"json": make_trace("busy"), "headers": AUTH, "timeout": 30},
        )
        busy.start()
        time.sleep(1.0)
        r = httpx.post(url, content=json_body, headers=AUTH | as_json, timeout=10)
        assert r.status_code == 503, r.content[:200]
        assert r.headers.get("retry-after")
        assert _assert_status_json(r.content)["code"] == 14  # UNAVAILABLE
        busy.join(30)
        # The rest of the API keeps its own error shape.
        r = httpx.post(f"http://127.0.0.1:{port}/v1/evaluate", json={}, timeout=10)
        assert r.status_code == 401
        assert r.json()["error"] == "unauthorized"


def test_a_trace_id_reused_by_another_tenant_keeps_both_findings() -> None:
    from groundwatch.contract.trace import validate_trace
    from tests.fakes import make_trace

    settings = build_settings(BASE)
    judge = FakeJudge(lambda claim, trace: "contradicted")
    runtime = Runtime.build(settings, judge=judge, with_kafka=False)
    for tenant in ("acme", "globex"):
        trace = validate_trace(
            make_trace("shared-id", attributes={"tenant": tenant}), settings.limits
        )
        runtime.processor.evaluate_and_record([trace])
    page = runtime.findings.page(limit=50)
    tenants = sorted(f.slices.get("tenant", "") for f in page.items)
    assert tenants == ["acme", "globex"], tenants
