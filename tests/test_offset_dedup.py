"""Idempotency on the Kafka path without a marker per trace (issue 46, item 1): a trace read from
Kafka is recognised by its partition's record of offsets (pruned as commits advance), while
HTTP/OTLP traces keep a trace_id marker that lives for the re-delivery horizon only.

Real Redis (standalone and a 3-master cluster) and a real broker where the claim is about them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import redis

from groundwatch.sections.connections import RedisSettings
from groundwatch.sections.windows import WindowSettings
from groundwatch.state.buckets import ALL
from groundwatch.state.redis_store import RedisWindowStore, redis_client
from groundwatch.state.stores import Delivery, IngestObservation
from groundwatch.state.windows import MemoryWindowStore
from tests.builders import build_pipeline_settings, build_redis
from tests.infra import KafkaBroker, RedisServer
from tests.test_consumer_kafka import counts, produce, running, sampled, wait_for

WindowStoreT = MemoryWindowStore | RedisWindowStore


@pytest.fixture(params=["memory", "redis", "cluster"])
def store(request: pytest.FixtureRequest, unique_name: str) -> Iterator[WindowStoreT]:
    if request.param == "memory":
        yield MemoryWindowStore(WindowSettings(), resend_window_offsets=10)
        return
    server = request.getfixturevalue(
        "redis_server" if request.param == "redis" else "redis_cluster"
    )
    keys = build_redis(server.url, unique_name, resend_window_offsets=10)
    yield RedisWindowStore(redis_client(keys), WindowSettings(), keys)


def _obs(trace_id: str) -> IngestObservation:
    return IngestObservation(
        trace_id=trace_id,
        ts=time.time(),
        slices={},
        sampled=True,
        retrieval_top_score=None,
        context_count=0,
        context_chars=0,
    )


def _received(store: WindowStoreT) -> float:
    now = store.now()
    summary = store.summaries(now - 3600, now + 60).get(ALL)
    return 0.0 if summary is None else summary.count("received")


def _deliver(
    store: WindowStoreT, offsets: range | list[int], floor: int | None, topic: str = "t"
) -> list[bool]:
    ids = [f"trace-{o}" for o in offsets]
    marks = [Delivery(topic, 0, o, floor) for o in offsets]
    return store.observe_ingest([_obs(i) for i in ids], marks)


def _offset_members(store: RedisWindowStore) -> int:
    nodes = store.client.get_primaries() if store.cluster else [None]  # type: ignore[union-attr]
    total = 0
    for node in nodes:
        client = store.client.get_redis_connection(node) if node else store.client  # type: ignore[union-attr]
        for pattern in (f"{store.prefix}:o:i:*", f"{store.prefix}:{{*}}:o:i:*"):
            for key in client.scan_iter(match=pattern, count=1000):
                total += (int(client.strlen(key)) - 1) // 16  # format byte, 16-byte records
    return total


def _markers(store: RedisWindowStore) -> int:
    nodes = store.client.get_primaries() if store.cluster else [None]  # type: ignore[union-attr]
    found = 0
    for node in nodes:
        client = store.client.get_redis_connection(node) if node else store.client  # type: ignore[union-attr]
        for pattern in (f"{store.prefix}:d:*", f"{store.prefix}:{{*}}:d:*"):  # cluster: tagged
            found += sum(1 for _ in client.scan_iter(match=pattern, count=1000))
    return found


def test_a_redelivery_from_the_committed_offset_counts_nothing_twice(store: WindowStoreT) -> None:
    assert _deliver(store, range(0, 50), None) == [True] * 50
    # committed 30, crash: offsets 30.. come again (with some new ones)
    assert _deliver(store, range(30, 60), 30) == [False] * 20 + [True] * 10
    assert _received(store) == 60


def test_a_resend_within_the_window_is_counted_once_beyond_it_again(store: WindowStoreT) -> None:
    _deliver(store, range(0, 40), None)
    ids = ["trace-35", "trace-2"]  # the producer re-sent two traces, at offsets 40 and 41
    fresh = store.observe_ingest(
        [_obs(i) for i in ids], [Delivery("t", 0, 40, 40), Delivery("t", 0, 41, 40)]
    )
    # window 10: offsets below 40 - 10 = 30 are forgotten, so trace-2's re-send counts again
    assert fresh == [False, True]


def test_offsets_below_the_floor_less_the_window_are_forgotten(store: WindowStoreT) -> None:
    for start in range(0, 1000, 100):
        _deliver(store, range(start, start + 100), start)  # each batch committed the last
    if isinstance(store, RedisWindowStore):
        # the uncommitted batch (100) and the window (10): never the 1000 traces seen
        assert _offset_members(store) == 110
        assert _markers(store) == 0
    else:
        assert sum(len(seen) for seen in store._offsets.values()) == 110


def test_a_reset_log_forgets_nothing(store: WindowStoreT) -> None:
    """A broker that lost its data starts its offsets at 0 again: a stale floor above the
    batch's offsets must not drop what a re-delivery would need."""
    _deliver(store, range(500, 520), None)
    assert _deliver(store, [0, 1, 2], 520) == [True] * 3
    assert _deliver(store, [0, 1, 2], 0) == [False] * 3
    assert _deliver(store, range(510, 520), 3) == [False] * 10


def test_http_markers_live_for_the_redelivery_horizon(
    redis_server: RedisServer, unique_name: str
) -> None:
    assert RedisSettings().dedup_ttl_s == 86400
    keys = build_redis(redis_server.url, unique_name)
    store = RedisWindowStore(redis_client(keys), WindowSettings(), keys)
    assert store.observe_ingest([_obs("http-1")]) == [True]
    client = redis.Redis.from_url(redis_server.url)
    ttl = int(client.ttl(f"{unique_name}:d:i:http-1"))
    assert 86000 < ttl <= 86400


@pytest.mark.kafka
def test_the_kafka_path_keeps_no_marker_per_trace(
    kafka_broker: KafkaBroker, redis_server: RedisServer, unique_name: str
) -> None:
    """Real broker and Redis: 3,000 traces leave the partitions' offset sets (bounded by the
    window and what is uncommitted), not 3,000 markers; counts are exact."""
    from tests.test_consumer_kafka import _topics

    rate = 0.1
    _topics(kafka_broker, unique_name)
    base = build_pipeline_settings(kafka_broker.bootstrap, redis_server.url, unique_name, rate)
    settings = base.model_copy(
        update={"redis": base.redis.model_copy(update={"resend_window_offsets": 100})}
    )
    ids = [f"{unique_name}-{i}" for i in range(3000)]
    want = sampled(set(ids), rate)
    with running(settings) as run:
        produce(kafka_broker.bootstrap, unique_name, ids)
        wait_for(lambda: counts(run.windows) == (len(ids), len(want)), 60, "all counted")
        for round_ in range(2):  # later writes to each partition carry its committed offset
            time.sleep(1.0)
            tail = [f"{unique_name}-tail{round_}-{i}" for i in range(30)]
            produce(kafka_broker.bootstrap, unique_name, tail)
            total = len(ids) + 30 * (round_ + 1)
            wait_for(lambda n=total: counts(run.windows)[0] == n, 30, "tail counted")  # type: ignore[misc]
        run.stop()
        windows = run.windows
    assert _markers(windows) == 0
    # 3 partitions x (window 100 + the last uncommitted batch): far below 3,000
    assert _offset_members(windows) <= 3 * 100 + 200
