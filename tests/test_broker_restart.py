"""The broker goes away and comes back: SIGTERM, then SIGKILL, on the same port and storage,
while a real consumer process scores a stream and the assistant's producer keeps sending
(retrying). The broker keeps its log in an S3-compatible object store (moto's server, which
outlives the broker process: tests/infra.py ``S3Server``), so topics, records and committed
offsets survive the restart, as they would on a real cluster.

Claims: every sampled trace scored exactly once in the windows (Redis) and present in the
results topic (re-deliveries counted), readiness false while the broker is away and true after,
lag back to 0; a consumer restarted while the broker is down picks up from the committed offsets.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from groundwatch.settings import Settings
from groundwatch.state.redis_store import RedisWindowStore, redis_client
from groundwatch_consumers.publisher import TracePublisher
from tests.builders import build_pipeline_settings
from tests.consumer_support import make_trace, read_topic
from tests.infra import KafkaBroker, RedisServer, S3Server, free_port, wait_port
from tests.test_consumer_kafka import (
    _topics,
    committed_all,
    counts,
    sampled,
    wait_for,
)

pytestmark = [pytest.mark.kafka, pytest.mark.redis, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def durable_broker() -> Iterator[KafkaBroker]:
    """A Tansu broker on its own port whose log lives in a local S3 server (moto)."""
    with S3Server.start() as s3, KafkaBroker.start(storage=s3.storage()) as broker:
        yield broker


class ConsumerProcess:
    """``python -m tests.consumer_proc`` with its /readyz and /metrics on a free port."""

    def __init__(self, settings: Settings, name: str, rate: float, log: Path) -> None:
        self.status_port = free_port()
        assert settings.kafka.bootstrap_servers
        assert settings.redis.url
        cmd = [
            sys.executable, "-m", "tests.consumer_proc",
            "--bootstrap", settings.kafka.bootstrap_servers, "--topic", name,
            "--group", settings.kafka.group_id,
            "--redis-url", settings.redis.url.get_secret_value(),
            "--prefix", name, "--rate", str(rate), "--judge-delay", "0.1",
            "--eval-batch", "8", "--commit-interval", "0.3",
            "--status-port", str(self.status_port),
        ]  # fmt: skip
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=log.open("ab"), env={**os.environ}
        )
        self.log = log
        try:
            wait_port(self.status_port, 30)
        except Exception:
            self.kill()
            raise

    def ready(self) -> bool | None:
        """/readyz: True (200), False (503), None (not answering)."""
        try:
            response = httpx.get(f"http://127.0.0.1:{self.status_port}/readyz", timeout=2)
        except httpx.HTTPError:
            return None
        return response.status_code == 200

    def lag(self) -> float | None:
        """Sum of ``groundwatch_consumer_lag`` over partitions; None before it is exported."""
        try:
            text = httpx.get(f"http://127.0.0.1:{self.status_port}/metrics", timeout=2).text
        except httpx.HTTPError:
            return None
        values = [
            float(line.rpartition(" ")[2])
            for line in text.splitlines()
            if line.startswith("groundwatch_consumer_lag{")
        ]
        return sum(values) if values else None

    def terminate(self, timeout: float = 40) -> tuple[int, int, float]:
        """SIGTERM; (exit code, re-deliveries the window store ignored, seconds to exit)."""
        start = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        out, _ = self.proc.communicate(timeout=timeout)
        duplicates = int(out.decode().strip().rpartition("duplicates=")[2] or 0)
        return self.proc.returncode, duplicates, time.monotonic() - start

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


class RetryingProducer:
    """The assistant side: one producer for the whole test, sending from a thread; sends made
    while the broker is away wait in the client and are retried until it is back."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.publisher = TracePublisher(
            bootstrap,
            topic,
            propagate_current_span=False,
            retries=2**31 - 1,
            max_block_ms=60_000,
            request_timeout_ms=5_000,
            delivery_timeout_ms=90_000,
            reconnect_backoff_max_ms=500,
        )
        self.futures: list[Any] = []
        self._threads: list[threading.Thread] = []

    def send(self, ids: list[str], spread_s: float = 0.0) -> None:
        """Send ``ids`` from a background thread, ``spread_s`` apart."""

        def run() -> None:
            for trace_id in ids:
                self.futures.append(self.publisher.publish(make_trace(trace_id)))
                if spread_s:
                    time.sleep(spread_s)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        self._threads.append(thread)

    def finish(self, timeout: float = 60) -> int:
        """Wait for every send to be acknowledged; the number that failed (must be 0)."""
        for thread in self._threads:
            thread.join(timeout)
        self.publisher.flush(timeout)
        failed = 0
        for future in self.futures:
            try:
                future.get(timeout=timeout)
            except Exception:
                failed += 1
        return failed

    def close(self) -> None:
        with contextlib.suppress(Exception):  # best effort; never hides the test's own failure
            self.publisher.close(5)


def sample_ready(consumer: ConsumerProcess, seconds: float) -> list[bool | None]:
    """/readyz every 0.1 s for ``seconds`` (None: the process did not answer)."""
    out: list[bool | None] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        out.append(consumer.ready())
        time.sleep(0.1)
    return out


def test_broker_restarts_lose_nothing_count_nothing_twice_readiness_follows(
    durable_broker: KafkaBroker, redis_server: RedisServer, unique_name: str, tmp_path: Path
) -> None:
    broker, rate = durable_broker, 0.7
    _topics(broker, unique_name)
    settings = build_pipeline_settings(broker.bootstrap, redis_server.url, unique_name, rate)
    windows = RedisWindowStore(redis_client(settings.redis), settings.windows, settings.redis)
    first = [f"{unique_name}-a{i}" for i in range(200)]
    second = [f"{unique_name}-b{i}" for i in range(100)]
    third = [f"{unique_name}-c{i}" for i in range(100)]
    everything = first + second + third
    want = sampled(set(everything), rate)
    log = tmp_path / "consumer.log"
    producer = RetryingProducer(broker.bootstrap, unique_name)
    consumers: list[ConsumerProcess] = []
    readiness: list[tuple[str, bool | None]] = []
    t0 = time.monotonic()
    phases: dict[str, float] = {}

    def mark(name: str) -> None:
        phases[name] = round(time.monotonic() - t0, 1)

    try:
        producer.send(first)
        one = ConsumerProcess(settings, unique_name, rate, log)
        consumers.append(one)
        wait_for(lambda: one.ready() is True, 30, "first consumer ready")
        wait_for(lambda: counts(windows)[1] >= 40, 40, "first consumer progressed")
        mark("progressed")

        # Outage 1: SIGTERM, the producer keeps sending, the consumer keeps running.
        with broker.down(signal.SIGTERM):
            producer.send(second, spread_s=0.01)
            wait_for(lambda: one.ready() is False, 20, "readiness false: broker SIGTERMed")
            mark("down1_notready")
            readiness += [("broker SIGTERMed", r) for r in sample_ready(one, 1.0)]
        wait_for(lambda: one.ready() is True, 40, "readiness true after the SIGTERM restart")
        mark("up1_ready")
        at_second = counts(windows)[1]
        wait_for(lambda: counts(windows)[1] >= at_second + 30, 40, "progress after restart 1")
        mark("progress2")

        # Outage 2: SIGKILL; the consumer is restarted (SIGTERM, a new process) while the
        # broker is away; the producer keeps sending.
        with broker.down(signal.SIGKILL):
            producer.send(third, spread_s=0.01)
            wait_for(lambda: one.ready() is False, 20, "readiness false: broker SIGKILLed")
            code, dup_one, exit_s = one.terminate()
            mark("one_terminated")
            assert code == 0, log.read_text()
            # In-flight work cannot be committed without the broker: exit now, not after the
            # 30 s drain timeout (it took 30 s before the consumer checked for the broker).
            assert exit_s < 10, f"SIGTERM with the broker away took {exit_s:.1f} s"
            two = ConsumerProcess(settings, unique_name, rate, log)
            consumers.append(two)
            mark("two_started")
            readiness += [("new consumer, broker down", r) for r in sample_ready(two, 1.5)]
        assert all(r is False for _, r in readiness), (
            f"ready while the broker was away: {readiness}"
        )
        assert producer.finish() == 0, "the producer lost traces"
        mark("produced")
        wait_for(lambda: counts(windows) == (len(everything), len(want)), 60, "all scored")
        mark("all_scored")
        wait_for(lambda: two.ready() is True, 30, "readiness true after the SIGKILL restart")
        wait_for(
            lambda: committed_all(broker.bootstrap, settings.kafka.group_id, unique_name, 3),
            20,
            "offsets committed",
        )
        wait_for(lambda: two.lag() == 0, 20, "lag back to 0")
        mark("lag0")
        code, dup_two, _ = two.terminate()
        mark("two_terminated")
        assert code == 0, log.read_text()
    finally:
        for consumer in consumers:
            consumer.kill()
        producer.close()
    results = read_topic(broker.bootstrap, f"{unique_name}.results", expect=len(want))
    keys = [(m.key or b"").decode() for m in results]
    assert set(keys) == want
    assert counts(windows) == (len(everything), len(want))
    figures = {
        "restarts": broker.restarts,
        "produced": len(everything),
        "sampled": len(want),
        "lost": len(want - set(keys)),
        "counted_twice": int(counts(windows)[1]) - len(want),
        "results_republished": len(keys) - len(set(keys)),
        "redeliveries_ignored": dup_one + dup_two,
        "sigterm_exit_s_broker_down": round(exit_s, 1),
    }
    print("\nbroker restart:", json.dumps(figures), f"{len(readiness)} readiness samples", phases)
