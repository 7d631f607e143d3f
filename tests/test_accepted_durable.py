"""A 202 means "recorded, or re-sendable" (issue 45): traces accepted over HTTP and lost with the
process (kill -9, SIGTERM past the drain timeout) are scored when the client sends them again,
and a re-send never double counts. Through a real server process (tests/server_proc.py) and a
real Redis; the windows are read back from Redis."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from groundwatch.state.buckets import ALL
from groundwatch.state.redis_store import RedisWindowStore, redis_client
from tests.builders import build_settings, build_trace
from tests.infra import RedisServer, free_port, wait_port

ROOT = Path(__file__).resolve().parents[1]
N = 200  # traces answered 202 before the process goes
BATCH = 50


@contextmanager
def _server(env: dict[str, str], judge_delay: float) -> Iterator[subprocess.Popen[bytes]]:
    """``tests.server_proc`` on a free port; always stopped (SIGKILL if it will not go)."""
    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.upper().startswith("GROUNDWATCH_")}
    clean.update(env)
    command = [sys.executable, "-m", "tests.server_proc", "--port", str(port)]
    proc = subprocess.Popen([*command, "--judge-delay", str(judge_delay)], cwd=ROOT, env=clean)
    proc.port = port  # type: ignore[attr-defined]
    try:
        wait_port(port, timeout=120)
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)


def _url(proc: subprocess.Popen[bytes]) -> str:
    return f"http://127.0.0.1:{proc.port}/v1/rag-traces"  # type: ignore[attr-defined]


def _send_all(url: str, traces: list[dict[str, Any]]) -> tuple[int, list[str]]:
    """POST ``traces`` in batches until each batch is answered 202 (a 503 is retried, as a
    client does); returns (traces queued for scoring, duplicates reported)."""
    sampled, duplicates = 0, []
    for start in range(0, len(traces), BATCH):
        deadline = time.monotonic() + 60
        while True:
            r = httpx.post(url, json=traces[start : start + BATCH], timeout=30)
            if r.status_code == 202 or time.monotonic() > deadline:
                break
            time.sleep(float(r.headers.get("retry-after", "1")))
        assert r.status_code == 202, r.text
        body = r.json()
        assert body["rejected"] == 0, body
        sampled += body["sampled"]
        duplicates += body["duplicates"]
    return sampled, duplicates


def _counts(windows: RedisWindowStore) -> tuple[float, float, float]:
    """(received, evaluated, scored) in the last hour, all slices, as stored in Redis."""
    now = windows.now()
    summary = windows.summaries(now - 3600, now + 60).get(ALL)
    if summary is None:
        return 0.0, 0.0, 0.0
    return summary.count("received"), summary.count("evaluated"), summary.count("scored")


def _wait_evaluated(windows: RedisWindowStore, want: int, timeout: float = 90) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        evaluated = _counts(windows)[1]
        if evaluated >= want:
            return evaluated
        time.sleep(0.2)
    return _counts(windows)[1]


def _run(redis_server: RedisServer, prefix: str, stop: signal.Signals, judge_delay: float) -> None:
    env = {
        "GROUNDWATCH_STATE": "redis",
        "GROUNDWATCH_REDIS__URL": redis_server.url,
        "GROUNDWATCH_REDIS__KEY_PREFIX": prefix,
        "GROUNDWATCH_API__RATE_LIMIT_PER_S": "0",
        "GROUNDWATCH_API__DRAIN_TIMEOUT_S": "0.5",
        "GROUNDWATCH_REDACTION__MODE": "off",
    }
    settings = build_settings(state="redis", redis={"url": redis_server.url, "key_prefix": prefix})
    windows = RedisWindowStore(redis_client(settings.redis), settings.windows, settings.redis)
    traces = [build_trace(f"{prefix}-{i}") for i in range(N)]

    # A slow judge (seconds per call of 4 traces): most of the N are still queued when it goes.
    with _server(env, judge_delay=judge_delay) as proc:
        sampled, duplicates = _send_all(_url(proc), traces)
        assert (sampled, duplicates) == (N, [])
        _wait_evaluated(windows, 8)  # some are recorded, most still queued
        proc.send_signal(stop)
        proc.wait(timeout=60)  # SIGTERM: drains for 0.5 s, then gives the rest up
    received, before, _ = _counts(windows)
    assert received == N
    assert 0 < before < N, f"{before} recorded before the process went: nothing was tested"

    with _server(env, judge_delay=0.0) as proc:
        sampled, duplicates = _send_all(_url(proc), traces)
        # What was recorded is a duplicate; everything else is scored now.
        assert sampled == N - before, (sampled, before)
        assert len(duplicates) == before
        assert _wait_evaluated(windows, N) == N
        # A second re-send changes nothing: every trace is recorded once.
        assert _send_all(_url(proc), traces) == (0, [t["trace_id"] for t in traces])
        time.sleep(0.5)
        assert _counts(windows) == (N, N, N)  # received, evaluated, scored: each once
    print(f"{stop.name}: {int(before)} of {N} scored before, {N} of {N} after the re-send")


def test_kill_9_after_202_then_resend_scores_every_trace_once(
    redis_server: RedisServer, unique_name: str
) -> None:
    _run(redis_server, unique_name, signal.SIGKILL, judge_delay=0.5)


def test_sigterm_past_the_drain_timeout_then_resend_scores_every_trace_once(
    redis_server: RedisServer, unique_name: str
) -> None:
    # A judge call (2 s) longer than the drain (0.5 s): the batch being judged at SIGTERM is
    # given up, and must not be recorded unscored (a re-send would then be refused).
    _run(redis_server, unique_name, signal.SIGTERM, judge_delay=2.0)
