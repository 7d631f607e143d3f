"""The offset sets' 16-byte records (issue 46): a 64-bit digest and a 64-bit big-endian offset
after one format byte, read back exactly for offsets past 32 bits, and a set written in the
earlier format (32 hex characters a record) still recognises what it holds.

Real Redis (standalone and a 3-master cluster).
"""

from __future__ import annotations

import hashlib
import time

import pytest
import redis

from groundwatch.sections.windows import WindowSettings
from groundwatch.state.buckets import ALL
from groundwatch.state.redis_store import RedisWindowStore, redis_client
from groundwatch.state.stores import Delivery, IngestObservation
from tests.builders import build_redis
from tests.infra import RedisServer


def _obs(trace_id: str) -> IngestObservation:
    return IngestObservation(
        trace_id=trace_id,
        ts=time.time(),
        slices={},
        sampled=False,
        retrieval_top_score=None,
        context_count=0,
        context_chars=0,
    )


def _deliver(store: RedisWindowStore, offsets: list[int], floor: int | None) -> list[bool]:
    return store.observe_ingest(
        [_obs(f"trace-{o}") for o in offsets], [Delivery("t", 0, o, floor) for o in offsets]
    )


def _received(store: RedisWindowStore) -> float:
    now = store.now()
    summary = store.summaries(now - 3600, now + 60).get(ALL)
    return 0.0 if summary is None else summary.count("received")


def _sets(store: RedisWindowStore) -> list[bytes]:
    nodes = store.client.get_primaries() if store.cluster else [None]  # type: ignore[union-attr]
    out = []
    for node in nodes:
        client = store.client.get_redis_connection(node) if node else store.client  # type: ignore[union-attr]
        for pattern in (f"{store.prefix}:o:i:*", f"{store.prefix}:{{*}}:o:i:*"):
            out += [bytes(client.get(k) or b"") for k in client.scan_iter(match=pattern)]
    return out


@pytest.fixture(params=["redis", "cluster"])
def store(request: pytest.FixtureRequest, unique_name: str) -> RedisWindowStore:
    server = request.getfixturevalue(
        "redis_server" if request.param == "redis" else "redis_cluster"
    )
    keys = build_redis(server.url, unique_name, resend_window_offsets=10)
    return RedisWindowStore(redis_client(keys), WindowSettings(), keys)


def test_a_record_is_16_bytes_after_one_format_byte(store: RedisWindowStore) -> None:
    _deliver(store, list(range(40)), None)
    sets = _sets(store)
    assert sum((len(s) - 1) // 16 for s in sets) == 40
    assert all(len(s) % 16 == 1 and s[:1] == b"\x01" for s in sets)


@pytest.mark.parametrize("base", [2**32 - 5, 5_000_000_000_123, 2**53 - 100])
def test_offsets_past_32_bits_are_read_back_exactly(store: RedisWindowStore, base: int) -> None:
    offsets = [base + i for i in range(30)]
    assert _deliver(store, offsets, None) == [True] * 30
    # a re-delivery from the committed offset base + 20: nothing twice
    assert _deliver(store, offsets[20:], base + 20) == [False] * 10
    # committed base + 30: below base + 20 forgotten (window 10), base + 20.. kept
    assert _deliver(store, [base + 30], base + 30) == [True]
    assert _deliver(store, offsets[20:], base + 30) == [False] * 10
    if not store.cluster:  # a cluster prunes a shard's set when a batch writes to that shard
        assert sum((len(s) - 1) // 16 for s in _sets(store)) == 11
        assert _deliver(store, offsets[19:20], base + 30) == [True]  # forgotten: counted again
        assert _received(store) == 32


def test_a_set_in_the_earlier_32_character_format_is_read_and_rewritten(
    redis_server: RedisServer, unique_name: str
) -> None:
    keys = build_redis(redis_server.url, unique_name, resend_window_offsets=10)
    store = RedisWindowStore(redis_client(keys), WindowSettings(), keys)
    client = redis.Redis.from_url(redis_server.url)
    legacy = b"".join(
        hashlib.blake2b(f"trace-{o}".encode(), digest_size=8).hexdigest().encode()
        + f"{o:016x}".encode()
        for o in range(100, 140)
    )
    key = f"{unique_name}:o:i:t:0"
    client.set(key, legacy)
    # the consumer restarts from its committed offset 120: 120..139 were counted by the
    # earlier format, 140..149 are new
    fresh = _deliver(store, list(range(120, 150)), 120)
    assert fresh == [False] * 20 + [True] * 10
    raw = bytes(client.get(key) or b"")
    assert raw[:1] == b"\x01"
    assert (len(raw) - 1) // 16 == 40  # 110..149: below 120 - 10 forgotten
