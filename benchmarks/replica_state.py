"""What state and series cost as traffic and replicas grow (issue 46): a script, not a test.

    .venv/bin/python -m benchmarks.replica_state                 # both phases
    .venv/bin/python -m benchmarks.replica_state --only seen --traces 20000 --rate 0.02
    .venv/bin/python -m benchmarks.replica_state --only scrape --slices 1000

- ``seen``: a real Tansu broker and a real redis-server (tests/infra.py, free loopback ports,
  stopped after), ``--replicas`` Kafka consumers of one group (the service's
  ``KafkaTraceConsumer``, Redis windows, a results topic; the judge is the tests' fast fake: the
  figure is about state, not scores) read ``--traces`` traces at ``--rate`` sampling over 4
  partitions. Redis ``used_memory`` after minus before, per seen trace, and what holds it:
  dedup markers (``d:*``), partition offset sets (``o:*``, their records counted), bucket hashes
  (``w:*``), each by ``MEMORY USAGE``; and what is in no key: Redis 7's per-command latency
  histograms (``latency-tracking``, on by default: one of ~24 kB for each command name the
  server has run since its start or the last ``CONFIG RESETSTAT``, whatever the traffic) and
  the clients' buffers (a connection's query buffer holds its largest recent script call until
  it idles). "Per seen trace, in state" is the growth with both taken out: the other clients
  disconnected, then ``CONFIG RESETSTAT`` before each reading.
- ``scrape``: the app's ``GET /metrics`` (FastAPI, in process) in memory mode with one slice key
  at ``--slices`` values (every value above ``min_samples``): the median of 20 scrapes one at a
  time, then of 2 scrapers at once (an HA Prometheus pair), and how many window reports were
  computed meanwhile (store reads).

Runs against whatever ``groundwatch`` is importable: for a before/after pair, run it once with
``PYTHONPATH`` pointing at an export of the older commit. The machine is shared: quote medians.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402

from tests.infra import KafkaBroker, RedisServer  # noqa: E402


def _memory(client: redis.Redis, pattern: str) -> tuple[int, int]:
    keys = list(client.scan_iter(match=pattern, count=1000))
    return len(keys), sum(int(client.memory_usage(k) or 0) for k in keys)


def _records(client: redis.Redis, pattern: str) -> tuple[int, int]:
    """(records in the offset sets matching ``pattern``, bytes a record): 16 after a format
    byte (odd length), 32 in the earlier hex format."""
    records, size = 0, 0
    for key in client.scan_iter(match=pattern, count=1000):
        n = int(client.strlen(key))
        size = 16 if n % 2 else 32
        records += (n - (n % 2)) // size
    return records, size


def _used_memory_without_histograms(client: redis.Redis) -> int:
    """``used_memory`` with the per-command latency histograms freed (``CONFIG RESETSTAT``:
    what is left is its own, the same in every reading)."""
    client.config_resetstat()
    return int(client.info("memory")["used_memory"])


def phase_seen(args: argparse.Namespace) -> None:
    from tests.builders import build_pipeline_settings
    from tests.test_consumer_kafka import counts, produce, running, sampled, wait_for

    name = f"bench-{uuid.uuid4().hex[:8]}"
    with KafkaBroker.start() as broker, RedisServer.start() as server:
        broker.create_topic(name, 4)
        broker.create_topic(f"{name}.dlq", 1)
        broker.create_topic(f"{name}.results", 1)
        settings = build_pipeline_settings(broker.bootstrap, server.url, name, args.rate)
        client = redis.Redis.from_url(server.url)
        ids = [f"{name}-{i}" for i in range(args.traces)]
        want = sampled(set(ids), args.rate)
        client.set("warm", "1")
        before = _used_memory_without_histograms(client)
        info0 = client.info("memory")
        with running(settings) as first:
            extra = [running(settings) for _ in range(args.replicas - 1)]
            others = [ctx.__enter__() for ctx in extra]
            try:
                produce(broker.bootstrap, name, ids)
                wait_for(lambda: counts(first.windows) == (len(ids), len(want)), 600, "all counted")
                time.sleep(2.0)  # commits after the last batch
                judged = first.judge.judged + sum(o.judge.judged for o in others)
            finally:
                for ctx in reversed(extra):
                    ctx.__exit__(None, None, None)
        info1 = client.info("memory")
        after = int(info1["used_memory"])
        dataset = int(info1["used_memory_dataset"]) - int(info0["used_memory_dataset"])
        names = sorted(k[8:] for k in client.info("commandstats") if k.startswith("cmdstat_"))
        commands = len(names)
        clients_mem = int(client.memory_stats().get("clients.normal", 0))
        for other in client.client_list():
            if other["cmd"] != "client|list":
                client.client_kill_filter(_id=other["id"], skipme=True)
        time.sleep(1.0)
        state = _used_memory_without_histograms(client)
        if args.verbose:
            client.script_flush()
            flushed = int(client.info("memory")["used_memory"])
            print(f"  used_memory after SCRIPT FLUSH: +{flushed - before} B")
            for key in client.scan_iter(count=1000):
                print(f"  key {key[:60]!r} {client.memory_usage(key)} B")
            for field, v in info1.items():
                if isinstance(v, int) and abs(v - int(info0.get(field, 0))) > 10000:
                    print(f"  {field}: {info0.get(field)} -> {v}")
        markers = _memory(client, f"{name}:d:*")
        offsets = _memory(client, f"{name}:o:*")
        ingest, size = _records(client, f"{name}:o:i:*")
        evaluated, _ = _records(client, f"{name}:o:e:*")
        buckets = _memory(client, f"{name}:w:*")
        every = _memory(client, f"{name}:*")
        n = len(ids)
        print(
            f"seen: {n} traces, {len(want)} sampled ({judged} judged), {args.replicas} replicas, "
            f"4 partitions\n"
            f"  redis used_memory +{after - before} B = {(after - before) / n:.1f} B per seen "
            f"trace (used_memory_dataset +{dataset} B = {dataset / n:.1f} B per seen trace)\n"
            f"  of which in no key: {commands} command latency histograms (~24.7 kB each: "
            f"{', '.join(names)}) and client buffers ({clients_mem} B counted for the "
            f"connections still open)\n"
            f"  in state (other clients gone, histograms freed): +{state - before} B = "
            f"{(state - before) / n:.1f} B per seen trace\n"
            f"  dedup markers {markers[0]} keys {markers[1]} B ({markers[1] / n:.1f} B/trace); "
            f"offset sets {offsets[0]} keys {offsets[1]} B ({offsets[1] / n:.1f} B/trace; "
            f"{ingest} ingest + {evaluated} evaluation records of {size} B, "
            f"{ingest / 4:.0f} per ingest partition); "
            f"bucket hashes {buckets[0]} keys {buckets[1]} B; all keys {every[0]}, {every[1]} B "
            f"({every[1] / n:.1f} B/trace)"
        )


def phase_scrape(args: argparse.Namespace) -> None:
    from fastapi.testclient import TestClient

    from groundwatch.api.app import create_app
    from groundwatch.cli.commands import app_config
    from groundwatch.runtime import Runtime
    from groundwatch.settings import Settings
    from groundwatch.state.windows import MemoryWindowStore
    from tests.builders import build_rag_trace
    from tests.fakes import FakeJudge

    reads = [0]
    fetch = MemoryWindowStore._fetch

    def counted(self: Any, keys: Any) -> Any:
        reads[0] += 1
        return fetch(self, keys)

    MemoryWindowStore._fetch = counted  # type: ignore[method-assign]
    settings = Settings(
        state="memory",
        windows={"slice_keys": ["tenant"], "top_n": args.slices, "min_samples": 1},
    )
    runtime = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    traces = [
        build_rag_trace(f"s-{v}-{j}", attributes={"tenant": f"tenant-{v:05d}"})
        for v in range(args.slices)
        for j in range(2)
    ]
    for start in range(0, len(traces), 200):
        batch = traces[start : start + 200]
        runtime.processor.evaluate_and_record(runtime.processor.observe(batch, source="bench"))
    with TestClient(create_app(runtime, app_config(settings))) as http:
        body = http.get("/metrics").text
        deadline = time.monotonic() + 60
        while "tenant-" not in body and time.monotonic() < deadline:  # first report
            time.sleep(0.2)
            body = http.get("/metrics").text
        series = sum(1 for line in body.splitlines() if line and line[0] != "#")
        values = len({p.split('"')[0] for p in body.split('slice_value="tenant-')[1:]})

        def scrape() -> float:
            t0 = time.perf_counter()
            r = http.get("/metrics")
            took = time.perf_counter() - t0
            assert r.status_code == 200
            return took

        reads0 = reads[0]
        single = [scrape() for _ in range(20)]
        reads_single = reads[0] - reads0
        pair: list[float] = []
        lock = threading.Lock()

        def scraper() -> None:
            for _ in range(10):
                took = scrape()
                with lock:
                    pair.append(took)

        reads0 = reads[0]
        threads = [threading.Thread(target=scraper) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        reads_pair = reads[0] - reads0
        spaced: list[float] = []
        if args.spaced:
            # each scrape meets a report refreshed since the last one (report_refresh_s=1)
            runtime.settings.windows.report_refresh_s = 1.0
            reads0 = reads[0]
            for _ in range(10):
                time.sleep(2.0)
                spaced.append(scrape())
            reads_spaced = reads[0] - reads0
    print(
        f"scrape: {values} slice values, {series} series, {len(body)} B\n"
        f"  one scraper: median {statistics.median(single) * 1e3:.1f} ms "
        f"(min {min(single) * 1e3:.1f}, max {max(single) * 1e3:.1f}) over 20, "
        f"store reads {reads_single}\n"
        f"  two scrapers at once: median {statistics.median(pair) * 1e3:.1f} ms over 20, "
        f"store reads {reads_pair}"
    )
    if spaced:
        print(
            f"  one scraper, a new report each time (refresh 1 s, scrapes 2 s apart): median "
            f"{statistics.median(spaced) * 1e3:.1f} ms over 10, store reads {reads_spaced}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="seen,scrape")
    parser.add_argument("--traces", type=int, default=20000)
    parser.add_argument("--rate", type=float, default=0.02)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--slices", type=int, default=1000)
    parser.add_argument("--verbose", action="store_true", help="INFO memory fields that moved")
    parser.add_argument("--spaced", action="store_true", help="also scrapes 2 s apart")
    args = parser.parse_args()
    phases = args.only.split(",")
    if "seen" in phases:
        phase_seen(args)
    if "scrape" in phases:
        phase_scrape(args)


if __name__ == "__main__":
    main()
