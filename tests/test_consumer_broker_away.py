"""The consumer while its broker is away, with a fake KafkaConsumer (the real broker restarts are
in tests/test_broker_restart.py): readiness follows the group coordinator, offsets are held
(not committed into a dead connection), a SIGTERM with the broker away exits promptly, and the
results sink of a process started with no broker connects on its first write.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from groundwatch.sections.connections import KafkaSettings
from groundwatch.sections.windows import WindowSettings
from groundwatch.state.windows import MemoryWindowStore
from groundwatch_consumers.kafka_source import ConsumerOptions
from groundwatch_consumers.results import KafkaResultSink, ResultSinkUnavailableError
from tests.consumer_support import FakeJudge, make_trace
from tests.infra import free_port
from tests.test_consumer_unit import TP0, TP1, FakeConsumer, _record, _run_consumer, _wait


class FakeCoordinator:
    def __init__(self) -> None:
        self.unknown = False

    def coordinator_unknown(self) -> bool:
        return self.unknown


class BrokerConsumer(FakeConsumer):
    """A fake consumer whose broker can go away: ``kafka.KafkaConsumer`` keeps polling (and
    returns nothing) while its group coordinator is unknown; a commit then fails."""

    def __init__(self) -> None:
        super().__init__()
        self._coordinator = FakeCoordinator()
        self.commit_attempts_while_away = 0
        self.close_kwargs: dict[str, Any] = {}

    @property
    def away(self) -> bool:
        return self._coordinator.unknown

    def poll(self, timeout_ms: int = 0) -> dict[Any, Any]:
        if self.away:
            time.sleep(timeout_ms / 1000)
            return {}
        return super().poll(timeout_ms)

    def commit(self, offsets: dict[Any, Any], timeout_ms: int | None = None) -> None:
        if self.away:
            from kafka.errors import KafkaTimeoutError

            self.commit_attempts_while_away += 1
            time.sleep((timeout_ms or 0) / 1000)
            raise KafkaTimeoutError("coordinator unreachable")
        super().commit(offsets)

    def close(self, autocommit: bool = True, timeout_ms: int | None = None) -> None:
        self.close_kwargs = {"autocommit": autocommit, "timeout_ms": timeout_ms}
        super().close(autocommit)


def _add(fake: FakeConsumer, n: int, prefix: str) -> None:
    for i in range(n):
        fake.add(TP0 if i % 2 else TP1, json.dumps(make_trace(f"{prefix}{i}")).encode())


def test_readiness_follows_the_coordinator_and_commits_wait_for_it() -> None:
    fake = BrokerConsumer()
    _add(fake, 10, "a")
    consumer, thread, _, _ = _run_consumer(fake, MemoryWindowStore(WindowSettings()))
    try:
        _wait(lambda: fake.committed() == {TP0: 5, TP1: 5})
        _wait(consumer.ready)
        fake._coordinator.unknown = True
        _wait(lambda: not consumer.ready(), 2)
        assert "broker" in consumer.failing()
        _add(fake, 6, "b")  # arrives at the broker; fetched once it is back
        time.sleep(0.5)
        assert fake.commit_attempts_while_away == 0, "committed into a dead connection"
        fake._coordinator.unknown = False
        _wait(consumer.ready, 2)
        _wait(lambda: fake.committed() == {TP0: 8, TP1: 8})
    finally:
        consumer.stop()
        thread.join(10)


def test_sigterm_with_the_broker_away_exits_promptly_and_commits_nothing() -> None:
    """In-flight work cannot be committed without the broker: it is left for re-delivery
    instead of being drained for up to shutdown_timeout_s (measured before: the full 30 s with
    a real broker SIGKILLed; here 10 slow judge batches, about 10 s)."""
    fake = BrokerConsumer()
    _add(fake, 40, "a")
    judge = FakeJudge(delay_s=1.0)
    options = ConsumerOptions(
        handle_signals=False, poll_timeout_ms=10, backoff_initial_s=0.02, eval_batch=4
    )
    consumer, thread, _, _ = _run_consumer(
        fake, MemoryWindowStore(WindowSettings()), judge=judge, options=options
    )
    try:
        _wait(lambda: judge.calls >= 1)
        fake._coordinator.unknown = True
        _wait(lambda: not consumer.ready(), 2)
        commits = len(fake.commits)
        start = time.monotonic()
        consumer.stop()
        thread.join(30)
        took = time.monotonic() - start
    finally:
        consumer.stop()
        thread.join(10)
    assert not thread.is_alive()
    assert took < 3.0, f"shutdown with the broker away took {took:.1f} s"
    assert len(fake.commits) == commits
    assert fake.commit_attempts_while_away == 0
    assert fake.closed
    assert fake.close_kwargs["timeout_ms"] is not None  # LeaveGroup not waited for in full


def test_result_sink_starts_without_a_broker_and_connects_on_first_write() -> None:
    """``groundwatch serve`` and the consumer process build the sink at start: with no broker
    the process must still start (and report not ready), not die in the producer's bootstrap."""
    dead = f"127.0.0.1:{free_port()}"
    settings = KafkaSettings(bootstrap_servers=dead, topic="t", results_topic="t.results")
    start = time.monotonic()
    sink = KafkaResultSink.from_settings(settings)
    assert time.monotonic() - start < 1.0
    with pytest.raises(ResultSinkUnavailableError) as info:
        sink.write([_record("a")])
    assert info.value.retriable
    assert sink.producer is None  # no client (and no IO thread) left behind per attempt
    sink.close()


class FetchHighwaterConsumer(FakeConsumer):
    """High watermark as kafka-python reports it: from the last fetch of that partition, so a
    paused partition's goes stale; ``end_offsets`` (ListOffsets) is always current."""

    def __init__(self) -> None:
        super().__init__()
        self.fetched_high: dict[Any, int] = {}
        self.end_offset_calls = 0
        self.resumes = 0

    def resume(self, *tps: Any) -> None:
        self.resumes += 1
        super().resume(*tps)

    def poll(self, timeout_ms: int = 0) -> dict[Any, Any]:
        out = super().poll(timeout_ms)
        with self._lock:
            for tp, recs in self.records.items():
                if tp not in self.paused_tps:
                    self.fetched_high[tp] = len(recs)
        return out

    def highwater(self, tp: Any) -> int | None:  # type: ignore[override]
        return self.fetched_high.get(tp)

    def end_offsets(self, tps: list[Any], timeout_ms: int | None = None) -> dict[Any, int]:
        self.end_offset_calls += 1
        with self._lock:
            return {tp: len(self.records[tp]) for tp in tps}


def test_lag_grows_with_arrivals_while_backpressure_pauses_the_partitions() -> None:
    """Known gap before: paused partitions were not fetched, so their lag stayed where it was
    when they were paused (a broker run: 300 -> 188 with 300 more produced)."""
    from prometheus_client import CollectorRegistry

    fake = FetchHighwaterConsumer()
    _add(fake, 40, "a")
    judge = FakeJudge(delay_s=3.0)  # one batch at a time: the queue cannot drain in the check
    options = ConsumerOptions(
        handle_signals=False,
        poll_timeout_ms=10,
        backoff_initial_s=0.02,
        queue_capacity=4,
        eval_batch=2,
        lag_refresh_s=0.2,
    )
    consumer, thread, _, registry = _run_consumer(
        fake, MemoryWindowStore(WindowSettings()), judge=judge, options=options
    )

    def lag(reg: CollectorRegistry = registry) -> float:
        return sum(
            reg.get_sample_value("groundwatch_consumer_lag", {"topic": "t", "partition": p}) or 0.0
            for p in ("0", "1")
        )

    try:
        _wait(lambda: len(fake.paused_tps) == 2 and lag() > 0, 5)
        resumes, before = fake.resumes, lag()
        _add(fake, 200, "b")  # arrives while paused
        _wait(lambda: lag() >= before + 200, 2)
        assert fake.resumes == resumes, "resumed: the claim is about a partition kept paused"
        assert fake.end_offset_calls > 0
        judge.delay_s = 0.0
        _wait(lambda: lag() == 0 and fake.position[TP0] + fake.position[TP1] == 240, 20)
    finally:
        consumer.stop()
        thread.join(10)
