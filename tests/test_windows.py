"""One suite, two backends: MemoryWindowStore and RedisWindowStore (real redis-server)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from groundwatch.sections.windows import WindowSettings
from groundwatch.state.bucket_reader import BucketWindows
from groundwatch.state.buckets import ALL, Baseline, WindowSummary, plan_buckets
from groundwatch.state.redis_store import RedisClient, RedisWindowStore, redis_client
from groundwatch.state.slice_ranking import RedisSliceRanking
from groundwatch.state.stores import StoreUnavailableError
from groundwatch.state.windows import MemoryWindowStore
from tests.builders import STORE_WINDOWS, build_redis, build_windows
from tests.helpers_windows import FakeClock, obs, record
from tests.infra import RedisClusterServers, RedisServer, free_port

Store = MemoryWindowStore | RedisWindowStore
MEMORY_IS_PROCESS_LOCAL = (
    "MemoryWindowStore is process-local: replicas cannot share it by design (state=memory "
    "keeps one window per replica); the replica case runs on Redis and Redis Cluster"
)
MakeStore = Callable[[], Store]


#: The stores' windows (one-minute buckets, ten-minute rollups) and re-delivery horizon.
WINDOWS = build_windows(STORE_WINDOWS)
DEDUP_TTL_S = 3600


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock.aligned(3600)


@pytest.fixture(params=["memory", "redis", "cluster"])
def make_store(
    request: pytest.FixtureRequest, unique_name: str, clock: FakeClock
) -> Iterator[MakeStore]:
    """A factory of store instances sharing one state: a new RedisWindowStore (a replica,
    with its own connection) per call on the same prefix (standalone Redis, or a 3-master
    Redis Cluster). The MemoryWindowStore is process-local by design (docs/metrics.md: each
    replica keeps its own windows), so it cannot stand for two replicas: tests marked
    ``replicas`` skip it, and any other test gets it once."""
    if request.param == "memory":
        if request.node.get_closest_marker("replicas"):
            pytest.skip(MEMORY_IS_PROCESS_LOCAL)
        memory = MemoryWindowStore(WINDOWS, clock=clock, dedup_ttl_s=DEDUP_TTL_S)
        made: list[Store] = []

        def make_memory() -> Store:
            assert not made, "a second store is a replica: mark the test @pytest.mark.replicas"
            made.append(memory)
            return memory

        yield make_memory
        return
    server = request.getfixturevalue(
        "redis_server" if request.param == "redis" else "redis_cluster"
    )
    clients: list[RedisClient] = []

    def make() -> Store:
        client = redis_client(build_redis(server.url))
        clients.append(client)
        keys = build_redis(prefix=unique_name, dedup_ttl_s=DEDUP_TTL_S)
        return RedisWindowStore(client, WINDOWS, keys, clock=clock)

    yield make
    for client in clients:
        client.close()


def test_buckets_count_sum_and_histogram(make_store: MakeStore, clock: FakeClock) -> None:
    store = make_store()
    now = clock()
    fresh = store.observe_ingest(
        [
            obs("a", now - 30, {"tenant": "acme"}, top=0.95, chars=0),
            obs("b", now - 90, {"tenant": "acme"}, sampled=False, top=None),
            obs("c", now - 200, {"tenant": "beta"}, top=0.15),
        ]
    )
    assert fresh == [True, True, True]
    assert store.observe_evaluations(
        [
            (record("a", supported=1, contradicted=1), {"tenant": "acme"}, now - 30),
            (record("c", supported=2, refusal=True), {"tenant": "beta"}, now - 200),
        ]
    ) == [True, True]
    hour = store.summaries(now - 3600, now)
    total = hour[ALL]
    assert total.count("received") == 3
    assert total.count("sampled") == 2
    assert total.count("scored") == 2
    assert total.count("contradicted") == 1
    assert total.count("contradicted_traces") == 1  # one contradicted claim makes the trace count
    assert total.count("claims") == 4
    assert total.rate("refusal") == (1, 2)
    assert total.mean("faithfulness") == pytest.approx(0.75)
    top = total.hist("retrieval_top_score", 10)
    assert top.count == 2
    assert top.bins[9] == 1
    assert top.bins[1] == 1
    assert total.samples("context_chars") == 3
    assert hour["tenant", "acme"].count("received") == 2
    assert hour["tenant", "beta"].mean("faithfulness") == 1.0
    # whole buckets: (now-150, now] covers the buckets starting now-120, now-60 and now
    # (in progress), so "a" (30 s ago) and "b" (90 s ago) but not "c" (200 s ago)
    recent = store.summaries(now - 150, now)
    assert recent[ALL].count("received") == 2
    assert ("tenant", "beta") not in recent


def test_current_and_reference_ranges_do_not_overlap(
    make_store: MakeStore, clock: FakeClock
) -> None:
    store = make_store()
    now = clock()
    times = [now - i * 37.0 for i in range(40)]
    store.observe_ingest([obs(f"t{i}", ts) for i, ts in enumerate(times)])
    current, reference, everything = store.summaries_many(
        [(now - 600, now), (now - 1800, now - 600), (now - 1800, now)]
    )
    assert current[ALL].count("received") + reference[ALL].count("received") == 40
    assert everything[ALL].count("received") == 40


def test_long_ranges_read_coarse_buckets() -> None:
    ws = WINDOWS
    now = 100_000.0
    plan = plan_buckets(now - 3000, now, now, ws)
    coarse = [k for k in plan if k[0] == "c"]
    assert coarse  # whole 600 s intervals come from coarse buckets
    assert len(plan) < 3000 / 60
    covered = sum(600 if k[0] == "c" else 60 for k in plan)
    assert covered == 3000


def test_expired_fine_buckets_fall_back_to_a_coarse_bucket_more_than_half_inside() -> None:
    # mutation pass (docs/mutation.md): the "more than half" rule, `(last - first + f) * 2 > c`
    ws = WINDOWS  # fine 60 s kept 3600 s, coarse 600 s kept 7200 s
    now = 97_200.0  # fine buckets before 93_660 have expired; coarse [90_000, 90_600) has not
    # 7 of the coarse bucket's 10 minutes: it stands in for the expired fine buckets
    assert plan_buckets(90_120, 90_540, now, ws) == [("c", 90_000)]
    # 4 of 10: no stand-in, and the fine buckets are gone
    assert plan_buckets(89_940, 90_180, now, ws) == []


def test_coarse_and_fine_agree(make_store: MakeStore, clock: FakeClock) -> None:
    store = make_store()
    now = clock()
    store.observe_ingest([obs(f"t{i}", now - i * 11.0) for i in range(300)])
    (summary,) = store.summaries_many([(now - 3500, now)])
    assert summary[ALL].count("received") == sum(1 for i in range(300) if i * 11.0 < 3480)


def test_redelivery_never_double_counts(make_store: MakeStore, clock: FakeClock) -> None:
    store = make_store()
    now = clock()
    items = [obs("x", now - 5, {"tenant": "acme"}), obs("y", now - 5)]
    assert store.observe_ingest(items) == [True, True]
    assert store.observe_ingest(items) == [False, False]
    assert store.observe_ingest([obs("z", now), obs("z", now)]) == [True, False]
    rec = (record("x", contradicted=2), {"tenant": "acme"}, now - 5)
    assert store.observe_evaluations([rec]) == [True]
    assert store.observe_evaluations([rec, rec]) == [False, False]
    total = store.summaries(now - 60, now)[ALL]
    assert total.count("received") == 3
    assert total.count("contradicted") == 2
    assert total.count("evaluated") == 1


def test_memory_dedup_remembers_exactly_memory_dedup_max_trace_ids(clock: FakeClock) -> None:
    # mutation pass (docs/mutation.md): `len(seen) > max` -> `is` kept one id fewer
    windows = build_windows(STORE_WINDOWS, memory_dedup_max=3)
    store = MemoryWindowStore(windows, clock=clock, dedup_ttl_s=DEDUP_TTL_S)
    now = clock()
    assert store.observe_ingest([obs(f"t{i}", now) for i in range(3)]) == [True] * 3
    assert store.observe_ingest([obs("t0", now)]) == [False]  # all three still remembered
    assert store.observe_ingest([obs("t3", now)]) == [True]  # a fourth forgets the oldest
    assert store.observe_ingest([obs("t0", now), obs("t3", now)]) == [True, False]


def test_memory_dedup_prunes_expired_trace_ids_and_keeps_live_ones(clock: FakeClock) -> None:
    # mutation pass: the prune loop's `exp > now` -> `<=` forgot live ids, -> `!=` kept dead ones
    store = MemoryWindowStore(WINDOWS, clock=clock, dedup_ttl_s=DEDUP_TTL_S)  # bucket_s 60
    now = clock()
    store.observe_ingest([obs("old", now)])
    clock.t = now + 120  # a prune runs (once per bucket_s), "old" is within its dedup ttl
    assert store.observe_ingest([obs("new", clock())]) == [True]
    assert store.observe_ingest([obs("old", now)]) == [False]
    clock.t = now + 3600 + 60  # "old" expired, "new" (until now + 3720) not
    store.observe_ingest([obs("newest", clock())])
    assert list(store._seen) == ["i:new", "i:newest"]  # bounded: expired ids are dropped


def test_memory_dedup_forgets_a_trace_id_after_its_ttl_between_prunes(clock: FakeClock) -> None:
    # mutation pass: `expires > now` -> `is not` / `!=` kept expired ids as duplicates
    store = MemoryWindowStore(WINDOWS, clock=clock, dedup_ttl_s=DEDUP_TTL_S)  # bucket_s 60
    now = clock()
    assert store.observe_ingest([obs("x", now)]) == [True]
    clock.t = now + 3590  # a prune runs here; "x" (until now + 3600) is kept
    assert store.observe_ingest([obs("y", clock())]) == [True]
    clock.t = now + 3610  # "x" expired, and no prune before now + 3650: the check decides
    assert store.observe_ingest([obs("x", clock())]) == [True]


def test_retention_drops_old_buckets(make_store: MakeStore, clock: FakeClock) -> None:
    store = make_store()
    now = clock()
    store.observe_ingest([obs("old", now - 7200 - 700), obs("new", now - 10)])
    everything = store.summaries(now - 20_000, now)[ALL]
    assert everything.count("received") == 1  # older than retention: never written
    store.observe_ingest([obs("mid", now - 3000)])
    clock.t = now + 7200 + 700
    later = store.summaries(clock() - 20_000, clock())
    assert ALL not in later or later[ALL].count("received") == 0
    if isinstance(store, MemoryWindowStore):
        assert store.bucket_count() == 0
    else:
        # standalone p:w:f:<t>; cluster p:{p:s<n>}:w:f:<t> (hash tag)
        keys = list(store.client.scan_iter(f"{store.prefix}:*w:[fc]:*"))
        assert keys
        for key in keys:  # absolute expiry, at most retention + one coarse bucket from "now"
            expires = int(store.client.expiretime(key))
            assert now < expires <= now + 7200 + 600


def test_timestamp_bounds_skew_counts_now_far_future_and_expired_past_rejected(
    make_store: MakeStore, clock: FakeClock
) -> None:
    store = make_store()
    now = clock()
    store.observe_ingest([obs("skew", now + 120), obs("future", now + 86_400)])
    assert store.summaries(now - 60, now)[ALL].count("received") == 1  # skew only
    assert ALL not in store.summaries(now, now + 90_000)
    # a replayed backlog keeps its timestamps within the retention (coarse buckets past the
    # fine retention), and is not counted beyond it
    store.observe_ingest([obs("backlog", now - 5400), obs("expired", now - 9000)])
    assert store.summaries(now - 7000, now - 3700)[ALL].count("received") == 1
    assert store.summaries(now - 60, now)[ALL].count("received") == 1
    assert store.summaries(now - 7200, now)[ALL].count("received") == 2


@pytest.mark.replicas
def test_two_replicas_concurrently_count_each_trace_once(
    make_store: MakeStore, clock: FakeClock
) -> None:
    replicas = [make_store(), make_store()]
    now = clock()
    ids = [f"trace-{i}" for i in range(300)]
    results: dict[int, list[bool]] = {}

    def run(n: int) -> None:
        store = replicas[n]
        got: list[bool] = []
        for start in range(0, len(ids), 25):
            batch = ids[start : start + 25]
            got += store.observe_ingest([obs(t, now - 1, {"tenant": "acme"}) for t in batch])
            got += store.observe_evaluations(
                [(record(t, contradicted=1), {"tenant": "acme"}, now - 1) for t in batch]
            )
        results[n] = got

    threads = [threading.Thread(target=run, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sum(results[0]) + sum(results[1]) == 2 * len(ids)
    total = replicas[0].summaries(now - 60, now)[ALL]
    assert total.count("received") == len(ids)
    assert total.count("contradicted") == len(ids)
    assert replicas[1].summaries(now - 60, now)["tenant", "acme"].count("scored") == len(ids)


def test_baseline_roundtrip(make_store: MakeStore) -> None:
    store = make_store()
    assert store.load_baseline() is None
    summary = WindowSummary(counts={"scored": 5.0})
    store.save_baseline(Baseline(1.0, 2.0, 3.0, "v", {ALL: summary}))
    loaded = store.load_baseline()
    assert loaded is not None
    assert loaded.slices[ALL].count("scored") == 5.0
    assert loaded.metric_version == "v"
    assert store.delete_baseline() is True
    assert store.delete_baseline() is False
    assert store.load_baseline() is None


@pytest.mark.replicas
def test_baseline_shared_between_replicas(make_store: MakeStore) -> None:
    one, two = make_store(), make_store()
    one.save_baseline(Baseline(1.0, 2.0, 3.0, "v", {ALL: WindowSummary(counts={"scored": 5.0})}))
    loaded = two.load_baseline()
    assert loaded is not None
    assert loaded.slices[ALL].count("scored") == 5.0
    assert two.delete_baseline() is True
    assert one.load_baseline() is None


def test_unreachable_redis_raises_store_unavailable(unique_name: str) -> None:
    client = redis.Redis(
        host="127.0.0.1", port=free_port(), socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0)
    )
    store = RedisWindowStore(client, WINDOWS, build_redis(prefix=unique_name))
    assert store.ping() is False
    with pytest.raises(StoreUnavailableError) as exc:
        store.observe_ingest([obs("a", store.now())])
    assert exc.value.retriable is True
    with pytest.raises(StoreUnavailableError):
        store.summaries(store.now() - 60, store.now())
    ranking = RedisSliceRanking(client, unique_name, 3, 3600)
    with pytest.raises(StoreUnavailableError):
        ranking.flush({"tenant": {"a": 1}}, store.now())


def test_cluster_spreads_traces_over_hash_tag_shards(
    redis_cluster: RedisClusterServers, unique_name: str
) -> None:
    # mutation pass (docs/mutation.md): `shards > 1` -> `== 1` put every trace on shard 0
    client = redis_client(build_redis(redis_cluster.url))
    try:
        store = RedisWindowStore(client, WINDOWS, build_redis(prefix=unique_name))  # 8 shards
        assert store.shards == 8
        assert {store.shard_of(f"t{i}") for i in range(200)} == set(range(8))
    finally:
        client.close()


def test_layout_is_validated() -> None:
    bad = WindowSettings(bucket_s=60, rollup_s=90)
    with pytest.raises(ValueError, match="multiple"):
        MemoryWindowStore(bad)
    assert isinstance(MemoryWindowStore(WINDOWS), BucketWindows)


def test_redis_restart_is_retriable_and_recovers(unique_name: str) -> None:
    """While Redis is down a write raises the retriable error and changes nothing; after Redis
    returns (empty, without the Lua script cache) the same store instance takes the retried
    batch: counted once, nothing lost, and a second retry is a duplicate."""
    server = RedisServer.spawn()
    client = redis.Redis.from_url(
        server.url, socket_timeout=1, socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0)
    )
    store = RedisWindowStore(client, WINDOWS, build_redis(prefix=unique_name))
    now = store.now()
    batch = [obs("during-1", now), obs("during-2", now, {"tenant": "acme"})]
    try:
        assert store.observe_ingest([obs("before", now)]) == [True]
        with server.down():
            assert store.ping() is False
            with pytest.raises(StoreUnavailableError) as exc:
                store.observe_ingest(batch)
            assert exc.value.retriable is True
            with pytest.raises(StoreUnavailableError) as exc:
                store.observe_evaluations([(record("during-1"), {}, now)])
            assert exc.value.retriable is True
        # the server is back, empty: the consumer retries the batch it could not write
        assert store.ping() is True
        assert store.observe_ingest(batch) == [True, True]
        assert store.observe_evaluations([(record("during-1"), {}, now)]) == [True]
        assert store.observe_ingest(batch) == [False, False]  # a redelivery is not recounted
        total = store.summaries(now - 60, now)[ALL]
        assert total.count("received") == 2
        assert total.count("scored") == 1
        assert store.summaries(now - 60, now)["tenant", "acme"].count("received") == 1
    finally:
        server.stop()
        client.close()


def test_redis_down_raises_retriable_error(unique_name: str) -> None:
    server = RedisServer.spawn()
    client = redis.Redis.from_url(
        server.url, socket_timeout=1, socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0)
    )
    store = RedisWindowStore(client, WINDOWS, build_redis(prefix=unique_name))
    try:
        assert store.observe_ingest([obs("a", store.now())]) == [True]
        server.stop()
        with pytest.raises(StoreUnavailableError):
            store.observe_ingest([obs("b", store.now())])
        with pytest.raises(StoreUnavailableError):
            store.load_baseline()
    finally:
        server.stop()
        client.close()


def test_read_cache_serves_settled_buckets_and_rereads_recent_ones(
    make_store: MakeStore, clock: FakeClock
) -> None:
    store = make_store()
    now = clock()
    store.observe_ingest([obs("old", now - 3000), obs("recent", now - 30)])
    assert store.summaries(now - 3600, now)[ALL].count("received") == 2
    # a late write into a settled bucket is served from the cache until it expires...
    store.observe_ingest([obs("late", now - 3000), obs("recent2", now - 20)])
    assert store.summaries(now - 3600, now)[ALL].count("received") == 3
    fresh = make_store() if isinstance(store, RedisWindowStore) else None
    if fresh is not None:  # ...another reader (no cache yet) sees it at once
        assert fresh.summaries(now - 3600, now)[ALL].count("received") == 4
    clock.t = now + 2 * store.settings.read_cache_s + 1
    later = store.summaries(now - 3600, now)[ALL]
    assert later.count("received") == 4
