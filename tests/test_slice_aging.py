"""Slice values are admitted by recent volume and age out (issue 45, item 9): junk values sent
early used to take every top-N place for good, so every later real tenant was ``other``. Now
the admitted set is re-ranked each period from the window's volume, a value that stops arriving
leaves it, and label cardinality stays bounded (at most top_n admitted per period, sketches of
bounded size that expire).

The ranking runs on memory, a real Redis and a real Redis Cluster, and the two implementations
(Python and the Lua script) are checked to decide alike. The end-to-end test goes through a
real HTTP server (``serve_app`` in a thread) and a real Redis.
"""

from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from groundwatch.api.app import create_app
from groundwatch.runtime import Runtime
from groundwatch.state.redis_store import RedisClient, redis_client
from groundwatch.state.slice_ranking import (
    MemorySliceRanking,
    RedisSliceRanking,
    SliceRanking,
    rerank,
    sketch_capacity,
)
from groundwatch.state.slices import OTHER, SliceMapper
from groundwatch.state.stores import StoreUnavailableError
from tests.builders import build_redis, build_settings, build_trace
from tests.fakes import FakeJudge
from tests.infra import free_port, wait_port

WINDOW_S = 40.0  # four periods of 10 s
PERIOD_S = WINDOW_S / 4
MakeRanking = Callable[[int], SliceRanking]


class Clock:
    """A settable clock for the mapper (seconds)."""

    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture(params=["memory", "redis", "cluster"])
def make_ranking(request: pytest.FixtureRequest, unique_name: str) -> Iterator[MakeRanking]:
    """Rankings that share one state (a new client per call on Redis: a replica)."""
    if request.param == "memory":
        shared: dict[int, MemorySliceRanking] = {}

        def make_memory(top_n: int) -> SliceRanking:
            return shared.setdefault(top_n, MemorySliceRanking(top_n, WINDOW_S))

        yield make_memory
        return
    server = request.getfixturevalue(
        "redis_server" if request.param == "redis" else "redis_cluster"
    )
    clients: list[RedisClient] = []

    def make(top_n: int) -> SliceRanking:
        client = redis_client(build_redis(server.url))
        clients.append(client)
        return RedisSliceRanking(client, unique_name, top_n, WINDOW_S)

    yield make
    for client in clients:
        client.close()


def _send(mapper: SliceMapper, clock: Clock, at: float, values: list[str]) -> list[str]:
    clock.t = at
    return [mapper.slices({"tenant": v})["tenant"] for v in values]


T0 = 1_000_000 * PERIOD_S  # the start of a period


def test_early_junk_is_outranked_then_ages_out(make_ranking: MakeRanking) -> None:
    clock = Clock(T0)
    mapper = SliceMapper(["tenant"], 3, make_ranking(3), clock=clock)
    junk = ["junk-1", "junk-2", "junk-3"]
    assert _send(mapper, clock, T0, junk) == junk  # first come, while places are free
    assert _send(mapper, clock, T0 + 1, ["acme"] * 20) == [OTHER] * 20
    # the next period ranks by the window's volume: acme (20) before the junk (1 each)
    assert _send(mapper, clock, T0 + PERIOD_S, ["acme"]) == ["acme"]
    # acme keeps arriving, the junk does not: one window later no junk value is admitted
    for period in range(2, 6):
        _send(mapper, clock, T0 + period * PERIOD_S, ["acme", "beta", "beta"])
    admitted = mapper.ranking.flush({"tenant": {}}, T0 + 6 * PERIOD_S)["tenant"]
    assert admitted == {"acme", "beta"}
    assert _send(mapper, clock, T0 + 6 * PERIOD_S + 1, ["junk-1"]) == ["junk-1"]  # a free place


def test_a_value_that_stops_arriving_loses_its_place(make_ranking: MakeRanking) -> None:
    ranking = make_ranking(2)
    ranking.flush({"tenant": {"old": 50}}, T0)
    assert ranking.flush({"tenant": {"new": 1}}, T0 + 1)["tenant"] == {"old", "new"}
    for period in range(1, 5):  # "old" is still in the window
        got = ranking.flush({"tenant": {"new": 1, "third": 1}}, T0 + period * PERIOD_S)
        assert "old" in got["tenant"]
    got = ranking.flush({"tenant": {"third": 1}}, T0 + 5 * PERIOD_S)
    assert got["tenant"] == {"new", "third"}  # "old" aged out


@pytest.mark.parametrize("param", ["redis", "cluster"])
def test_replicas_agree_on_the_admitted_set(
    param: str, request: pytest.FixtureRequest, unique_name: str
) -> None:
    server = request.getfixturevalue("redis_server" if param == "redis" else "redis_cluster")
    clients = [redis_client(build_redis(server.url)) for _ in range(2)]
    try:
        clock = Clock(T0)
        one, two = (
            SliceMapper(["tenant"], 2, RedisSliceRanking(c, unique_name, 2, WINDOW_S), clock=clock)
            for c in clients
        )
        assert _send(one, clock, T0, ["junk-1", "junk-2"]) == ["junk-1", "junk-2"]
        assert _send(two, clock, T0 + 1, ["acme"] * 10) == [OTHER] * 10
        clock.t = T0 + 2  # replica two's counts reach Redis with its next flush
        two.slices({"tenant": "acme"})
        after = T0 + PERIOD_S
        assert _send(one, clock, after, ["acme"]) == _send(two, clock, after, ["acme"]) == ["acme"]
    finally:
        for client in clients:
            client.close()


def test_near_equal_volumes_do_not_swap_labels_every_period() -> None:
    assert rerank({"a": 10, "b": 14}, {"a"}, 1) == {"a"}  # 14 <= 1.5 x 10: a stays
    assert rerank({"a": 10, "b": 16}, {"a"}, 1) == {"b"}
    assert rerank({"a": 0, "b": 1}, {"a"}, 1) == {"b"}  # no volume: aged out
    assert rerank({"a": 3, "b": 2, "c": 1}, set(), 2) == {"a", "b"}


def test_memory_and_redis_rank_alike(redis_server: Any, unique_name: str) -> None:
    """The Python ranking and the Lua script decide the same sets on one random stream, with
    floods of distinct values that overflow the sketches (Space-Saving evictions)."""
    client = redis_client(build_redis(redis_server.url))
    try:
        top_n = 4
        memory = MemorySliceRanking(top_n, WINDOW_S)
        shared = RedisSliceRanking(client, unique_name, top_n, WINDOW_S)
        rng = random.Random(45)
        tenants = [f"t{i}" for i in range(12)]
        now = T0
        for step in range(400):
            now += rng.uniform(0, PERIOD_S / 4)
            counts: dict[str, float] = {}
            for _ in range(rng.randint(0, 6)):
                value = tenants[min(int(rng.expovariate(0.4)), len(tenants) - 1)]
                counts[value] = counts.get(value, 0) + rng.randint(1, 5)
            if step % 37 == 0:  # a flood of distinct junk, more than a sketch holds
                counts.update({f"junk-{step}-{i}": 1 for i in range(100)})
            if step % 50 == 0:
                now += 3 * PERIOD_S  # a quiet stretch: values age out
            assert memory.flush({"tenant": counts}, now) == shared.flush({"tenant": counts}, now)
    finally:
        client.close()


def test_a_flood_of_distinct_values_stays_bounded(redis_server: Any, unique_name: str) -> None:
    client = redis_client(build_redis(redis_server.url))
    try:
        top_n = 3
        ranking = RedisSliceRanking(client, unique_name, top_n, WINDOW_S)
        clock = Clock(T0)
        mapper = SliceMapper(["tenant"], top_n, ranking, clock=clock)
        labels: set[str] = set()
        for i in range(5000):
            clock.t = T0 + i * 0.001
            labels.add(mapper.slices({"tenant": f"junk-{i}"})["tenant"])
            if i % 10 == 0:
                labels.add(mapper.slices({"tenant": "acme"})["tenant"])
        assert len(labels - {OTHER}) <= top_n
        clock.t = T0 + PERIOD_S  # the heavy hitter survives the flood in the sketch
        assert mapper.slices({"tenant": "acme"})["tenant"] == "acme"
        keys = list(client.scan_iter(f"{unique_name}:*"))
        assert keys
        for key in keys:
            ttl_ms = int(client.pttl(key))
            assert 0 < ttl_ms <= (4 + 2) * PERIOD_S * 1000, key
            if b":c:" in key:
                assert int(client.zcard(key)) <= sketch_capacity(top_n)
            else:
                assert int(client.scard(key)) <= top_n + 1  # with the "" ranked mark
    finally:
        client.close()


# --- end to end: real HTTP server, real Redis ----------------------------------------------

TOKEN = "tok-slice-aging-4b8e1d2c9f07"
_ACME = re.compile(r'groundwatch_window_traces\{[^}]*slice_value="acme"[^}]*\} ([0-9.e+]+)')


def test_squatted_slices_recover_through_the_real_server_and_redis(
    redis_server: Any, unique_name: str
) -> None:
    from groundwatch.cli.commands import app_config, serve_app

    settings = build_settings(
        state="redis",
        redis={"url": redis_server.url, "key_prefix": unique_name},
        api={"tokens": [TOKEN], "rate_limit_per_s": 0},
        windows={
            "slice_keys": ["tenant"],
            "top_n": 2,
            "slice_window_s": 4,
            "read_cache_s": 0,
            "report_refresh_s": 0,
        },
    )
    runtime = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    port = free_port()
    server = serve_app(create_app(runtime, app_config(settings)), "127.0.0.1", port, settings.api)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    auth = {"Authorization": f"Bearer {TOKEN}"}
    try:
        wait_port(port)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=auth) as client:

            def post(tenant: str, n: int, tag: str) -> None:
                traces = [
                    build_trace(f"{tag}-{i}", attributes={"tenant": tenant}) for i in range(n)
                ]
                assert client.post("/v1/rag-traces", json=traces).status_code == 202

            post("junk-a", 1, "ja")  # the squatters come first and take both places
            post("junk-b", 1, "jb")
            deadline, sent, found = time.monotonic() + 20, 0, None
            while found is None and time.monotonic() < deadline:
                post("acme", 5, f"acme-{sent}")
                sent += 1
                found = _ACME.search(client.get("/metrics").text)
                time.sleep(0.2)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
    assert not thread.is_alive()
    assert found is not None, f"acme still 'other' after {sent * 5} traces"


class _DownOnce(MemorySliceRanking):
    """The memory ranking, unreachable for its first flush that carries counts (an outage)."""

    down = True

    def flush(
        self, counts: Any, now: float, counted_at: float | None = None
    ) -> dict[str, frozenset[str]]:
        if self.down and any(counts.values()):
            self.down = False
            raise StoreUnavailableError("ranking store down")
        return super().flush(counts, now, counted_at)


def test_counts_of_a_failed_flush_are_sent_with_the_next() -> None:
    ranking = _DownOnce(1, WINDOW_S)
    clock = Clock(T0)
    mapper = SliceMapper(["tenant"], 1, ranking, clock=clock)
    with pytest.raises(StoreUnavailableError):
        mapper.slices({"tenant": "acme"})
    clock.t = T0 + 0.5
    assert mapper.slices({"tenant": "acme"}) == {"tenant": "acme"}
    epoch = int(T0 // PERIOD_S)
    assert ranking._sketches["tenant"][epoch] == {"acme": 2.0}


def test_an_evaluation_maps_without_counting_its_trace_again() -> None:
    clock = Clock(T0)
    mapper = SliceMapper(["tenant"], 1, MemorySliceRanking(1, WINDOW_S), clock=clock)
    assert _send(mapper, clock, T0, ["junk"]) == ["junk"]
    clock.t = T0 + 1
    for _ in range(20):  # mapped for the record, counted once at ingest elsewhere
        assert mapper.slices({"tenant": "acme"}, count=False) == {"tenant": OTHER}
    assert _send(mapper, clock, T0 + PERIOD_S, ["acme"]) == [OTHER]  # no volume yet
    _send(mapper, clock, T0 + PERIOD_S + 1, ["acme"] * 3)
    assert _send(mapper, clock, T0 + 2 * PERIOD_S, ["acme"]) == ["acme"]


def test_an_uncounted_new_value_takes_a_free_place_without_volume(
    make_ranking: MakeRanking,
) -> None:
    # an evaluation whose ingest was counted elsewhere (or never went through ingest) still
    # gets its own label at once while a place is free, and adds no volume to the ranking
    clock = Clock(T0)
    mapper = SliceMapper(["tenant"], 2, make_ranking(2), clock=clock)
    assert mapper.slices({"tenant": "acme"}, count=False) == {"tenant": "acme"}
    assert mapper.slices({"tenant": "globex"}, count=False) == {"tenant": "globex"}
    assert mapper.slices({"tenant": "third"}, count=False) == {"tenant": OTHER}  # no place
    # no volume was counted: the next ranking keeps nothing, and a counted value comes first
    assert _send(mapper, clock, T0 + 1, ["beta"]) == [OTHER]
    _send(mapper, clock, T0 + 3, ["beta"])  # flushes the count taken at T0 + 1
    admitted = mapper.ranking.flush({"tenant": {}}, T0 + PERIOD_S)["tenant"]
    assert admitted == {"beta"}
