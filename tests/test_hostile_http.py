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

    from groundwatch.cli.commands import serve_app
    from tests.infra import free_port, wait_port

    runtime = Runtime.build(settings, judge=judge or FakeJudge(), with_kafka=False)
    port = free_port()
    server = serve_app(create_app(settings, runtime=runtime), "127.0.0.1", port, settings)
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

    settings = build_settings(BASE, api={"max_inflight": 2}, judge={"timeout_s": 30})
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
