"""Window and drift series exported once per deployment (the export lease, issue 46 item 2) and a
scrape that costs what its series cost (the exposition cached per report, item 3).

Real Redis; the failover test runs two real server processes and SIGKILLs the exporter.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
import pytest
from prometheus_client import CollectorRegistry, generate_latest

from groundwatch.observability.window_export import WindowExport, render_registry
from groundwatch.observability.windows_collector import WindowsCollector, build_report
from groundwatch.runtime import Runtime
from groundwatch.sections.windows import WindowSettings
from groundwatch.settings import Settings
from groundwatch.state.bucket_reader import RawBucket
from groundwatch.state.buckets import BucketKey
from groundwatch.state.export_lease import RedisExportLease
from groundwatch.state.redis_store import redis_client
from groundwatch.state.stores import IngestObservation
from groundwatch.state.windows import MemoryWindowStore
from tests.builders import build_rag_trace, build_redis
from tests.fakes import FakeJudge
from tests.infra import RedisServer, free_port, wait_port

ROOT = Path(__file__).resolve().parents[1]
WINDOW_SERIES = re.compile(r"^groundwatch_(window_traces|window_samples|drift_tests)\b", re.M)


def _value(body: str, name: str) -> float | None:
    match = re.search(rf"^{name} (\S+)$", body, re.M)
    return float(match.group(1)) if match else None


def _runtime(url: str, prefix: str, lease_s: float = 3.0) -> Runtime:
    settings = Settings(
        state="redis",
        redis={"url": url, "key_prefix": prefix},
        windows={"export_lease_s": lease_s, "report_refresh_s": 0, "min_samples": 1},
    )
    return Runtime.build(settings, judge=FakeJudge(), with_kafka=False)


@pytest.mark.parametrize("n", [2, 4])
def test_one_replica_exports_the_window_series_every_one_its_own(
    redis_server: RedisServer, unique_name: str, n: int
) -> None:
    with ExitStack() as stack:
        replicas = [_runtime(redis_server.url, unique_name) for _ in range(n)]
        for rt in replicas:
            rt.start()
            stack.callback(rt.stop)
        for i, rt in enumerate(replicas):
            rt.processor.observe([build_rag_trace(f"t-{i}")], source="http")
        time.sleep(0.3)  # every lease thread made its first attempt
        bodies = [rt.exposition().decode() for rt in replicas]
    exporting = [bool(WINDOW_SERIES.search(b)) for b in bodies]
    assert sorted(exporting) == [False] * (n - 1) + [True], "exactly one exports window series"
    assert [_value(b, "groundwatch_window_exporter") for b in bodies] == [
        1.0 if e else 0.0 for e in exporting
    ]
    for body in bodies:  # every replica: its own process metrics, and whether it reaches Redis
        assert _value(body, 'groundwatch_traces_received_total{source="http"}') == 1.0
        assert _value(body, "groundwatch_window_store_up") == 1.0
    leader = bodies[exporting.index(True)]
    assert _value(leader, 'groundwatch_window_traces{kind="received",slice_key="all",slice_value="all",window="1h"}') == n  # fmt: skip


def test_memory_mode_always_exports() -> None:
    runtime = Runtime.build(Settings(state="memory"), judge=FakeJudge(), with_kafka=False)
    runtime.processor.observe([build_rag_trace("t-1")], source="http")
    body = runtime.exposition().decode()
    assert WINDOW_SERIES.search(body)
    assert _value(body, "groundwatch_window_exporter") == 1.0


def test_a_lease_is_never_held_twice_and_passes_on_when_not_renewed(
    redis_server: RedisServer, unique_name: str
) -> None:
    redis = build_redis(redis_server.url)
    key = f"{unique_name}:lease"
    a = RedisExportLease(redis_client(redis), key, ttl_s=1.0)
    b = RedisExportLease(redis_client(redis), key, ttl_s=1.0)
    assert a.renew() is True
    assert b.renew() is False
    assert (a.held(), b.held()) == (True, False)
    time.sleep(1.1)  # a stopped renewing (as if killed): its belief ends before Redis's key
    assert a.held() is False
    assert b.renew() is True
    assert a.renew() is False
    b.stop()  # hands it back: a takes it at once
    assert a.renew() is True


@contextmanager
def _server(env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.upper().startswith("GROUNDWATCH_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.server_proc", "--port", str(port)],
        cwd=ROOT,
        env={**clean, **env},
        stderr=subprocess.DEVNULL,
    )
    proc.port = port  # type: ignore[attr-defined]
    try:
        wait_port(port, timeout=120)
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)


def _exporter(proc: subprocess.Popen[bytes]) -> float | None:
    try:
        body = httpx.get(f"http://127.0.0.1:{proc.port}/metrics", timeout=5).text  # type: ignore[attr-defined]
    except httpx.HTTPError:
        return None
    return _value(body, "groundwatch_window_exporter")


def test_after_the_exporter_is_killed_another_exports_within_the_lease(
    redis_server: RedisServer, unique_name: str
) -> None:
    lease_s = 3.0
    env = {
        "GROUNDWATCH_STATE": "redis",
        "GROUNDWATCH_REDIS__URL": redis_server.url,
        "GROUNDWATCH_REDIS__KEY_PREFIX": unique_name,
        "GROUNDWATCH_WINDOWS__EXPORT_LEASE_S": str(lease_s),
    }
    with _server(env) as one, _server(env) as two:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            flags = [_exporter(one), _exporter(two)]
            if sorted(f or 0.0 for f in flags) == [0.0, 1.0]:
                break
            time.sleep(0.2)
        assert sorted(f or 0.0 for f in flags) == [0.0, 1.0]
        leader, other = (one, two) if flags[0] == 1.0 else (two, one)
        leader.kill()
        leader.wait(10)
        killed = time.monotonic()
        while _exporter(other) != 1.0 and time.monotonic() - killed < 30:
            time.sleep(0.1)
        took = time.monotonic() - killed
    print(f"\nexport failover after SIGKILL: {took:.1f} s (lease {lease_s} s)")
    # the holder's lease runs out (at most lease_s), the other renews every lease_s / 3
    assert took <= lease_s + lease_s / 3 + 1.0


class _CountingStore(MemoryWindowStore):
    """Counts the window reads (one per report computed)."""

    reads = 0

    def _fetch(self, keys: Sequence[BucketKey]) -> dict[BucketKey, RawBucket]:
        type(self).reads += 1
        return super()._fetch(keys)


def test_concurrent_scrapes_cost_one_report_and_one_rendering() -> None:
    windows = WindowSettings(report_refresh_s=60, min_samples=1, top_n=50)
    store = _CountingStore(windows)
    store.observe_ingest(
        [
            IngestObservation(f"t-{i}", time.time(), {"tenant": f"v{i}"}, True, 0.5, 2, 100)
            for i in range(50)
        ]
    )
    export = WindowExport(WindowsCollector(store, windows))
    registry = CollectorRegistry()
    registry.register(export)
    bodies: list[bytes] = []
    start = threading.Barrier(4)

    def scrape() -> None:
        start.wait()
        for _ in range(5):
            bodies.append(render_registry(registry, export))

    threads = [threading.Thread(target=scrape) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(bodies) == 20
    assert export.renders == 1
    scraped_reads = _CountingStore.reads
    # the same text as rendering the collector afresh (report age aside)
    fresh = generate_latest(registry).decode()
    strip = re.compile(r"^groundwatch_window_report_age_seconds .*$", re.M)
    assert strip.sub("", bodies[-1].decode()) == strip.sub("", fresh)
    assert _CountingStore.reads == scraped_reads  # the report is still the same one
    build_report(store, windows)
    assert scraped_reads == _CountingStore.reads - scraped_reads  # 20 scrapes: one report


@pytest.fixture(autouse=True)
def _reset_counts() -> None:
    _CountingStore.reads = 0


def test_a_refreshed_report_is_rendered_before_a_scrape_serves_it() -> None:
    windows = WindowSettings(report_refresh_s=0.2, min_samples=1)
    store = MemoryWindowStore(windows)
    store.observe_ingest([IngestObservation("t-1", time.time(), {}, True, 0.5, 2, 100)])
    export = WindowExport(WindowsCollector(store, windows))
    export.exposition()
    assert export.renders == 1
    time.sleep(0.3)
    export.exposition()  # stale: serves the old report, a refresh starts in the background
    deadline = time.monotonic() + 10
    while export.renders < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert export.renders == 2  # rendered in the refresh thread, not by a scrape
    export.exposition()
    assert export.renders == 2
