"""MemoryFindingStore and RedisFindingStore: one suite, plus the HTTP routes over it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import replace

import pytest
import redis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from redis.backoff import NoBackoff
from redis.retry import Retry

from groundwatch.api.findings import findings_router
from groundwatch.sections.windows import FindingsSettings, WindowSettings
from groundwatch.state.findings import (
    InvalidCursorError,
    MemoryFindingStore,
    decode_cursor,
    encode_cursor,
    finding_from_dict,
    finding_to_dict,
)
from groundwatch.state.redis_store import RedisClient, RedisFindingStore, redis_client
from groundwatch.state.stores import Finding, FindingPassage, FindingTrace, StoreUnavailableError
from groundwatch.state.windows import MemoryWindowStore
from tests.builders import build_redis
from tests.helpers_windows import FakeClock, obs, record
from tests.infra import free_port

FStore = MemoryFindingStore | RedisFindingStore


#: The routes' windows: two slice keys, two samples minimum.
ROUTE_WINDOWS = WindowSettings(slice_keys=["tenant", "intent"], min_samples=2)


def finding(i: int, ts: float, tenant: str = "acme", claim_index: int = 0) -> Finding:
    return Finding(
        trace_id=f"t{i}",
        ts=ts,
        claim_index=claim_index,
        claim=f"claim {i}",
        evidence=f"evidence {i}",
        context_index=0,
        context_id="p0",
        score=0.9,
        reason="number",
        metric_version="fake/v1",
        slices={"tenant": tenant, "intent": "billing"},
    )


MEMORY_IS_PROCESS_LOCAL = (
    "MemoryFindingStore is process-local: replicas cannot share it by design (state=memory "
    "keeps findings per replica); the replica case runs on Redis and Redis Cluster"
)


@pytest.fixture(params=["memory", "redis", "cluster"])
def make_findings(
    request: pytest.FixtureRequest, unique_name: str
) -> Iterator[Callable[[int], FStore]]:
    """A factory of finding stores on one state: a new RedisFindingStore (a replica, with its
    own connection) per call on the same prefix. The memory store cannot be shared between
    replicas: tests marked ``replicas`` skip it, and any other test gets one store only."""
    if request.param == "memory":
        if request.node.get_closest_marker("replicas"):
            pytest.skip(MEMORY_IS_PROCESS_LOCAL)
        made: list[FStore] = []

        def make_memory(max_items: int) -> FStore:
            assert not made, "a second store is a replica: mark the test @pytest.mark.replicas"
            made.append(MemoryFindingStore(FindingsSettings(max_items=max_items)))
            return made[0]

        yield make_memory
        return
    server = request.getfixturevalue(
        "redis_server" if request.param == "redis" else "redis_cluster"
    )
    clients: list[RedisClient] = []

    def make(max_items: int) -> FStore:
        clients.append(redis_client(build_redis(server.url)))
        findings = FindingsSettings(max_items=max_items)
        return RedisFindingStore(clients[-1], findings, build_redis(prefix=unique_name))

    yield make
    for client in clients:
        client.close()


def test_add_is_idempotent(make_findings: Callable[[int], FStore]) -> None:
    store = make_findings(100)
    items = [finding(1, 10.0), finding(1, 10.0, claim_index=1), finding(2, 11.0)]
    assert store.add(items) == 3
    assert store.add(items) == 0
    page = store.page(limit=10)
    assert page.total == 3
    assert [(f.trace_id, f.claim_index) for f in page.items] == [("t2", 0), ("t1", 1), ("t1", 0)]
    assert page.items[0].slices == {"tenant": "acme", "intent": "billing"}
    assert page.items[0].evidence == "evidence 2"
    assert (page.items[0].context_index, page.items[0].context_id) == (0, "p0")


def test_cursor_pages_newest_first_without_gaps(make_findings: Callable[[int], FStore]) -> None:
    store = make_findings(1000)
    # many findings share a timestamp: the cursor must break ties by key
    store.add([finding(i, 100.0 + i // 5) for i in range(53)])
    assert len(store.page().items) == 50  # the default page size
    seen: list[str] = []
    cursor = None
    for _ in range(20):
        page = store.page(limit=7, cursor=cursor)
        seen.extend(f.key for f in page.items)
        # a new finding arriving mid-pagination does not shift later pages
        store.add([finding(1000 + len(seen), 500.0)])
        cursor = page.next_cursor
        if cursor is None:
            break
    assert len(seen) == 53 == len(set(seen))
    assert seen == sorted(seen, key=lambda k: (100.0 + int(k[1:].split("#")[0]) // 5, k))[::-1]


def test_bounded_oldest_dropped(make_findings: Callable[[int], FStore]) -> None:
    store = make_findings(10)
    store.add([finding(i, float(i)) for i in range(25)])
    page = store.page(limit=100)
    assert page.total == 10
    assert [f.trace_id for f in page.items] == [f"t{i}" for i in range(24, 14, -1)]
    assert store.page(limit=100, slice_filter={"tenant": "acme"}).total == 10


def test_filter_by_slice(make_findings: Callable[[int], FStore]) -> None:
    store = make_findings(100)
    store.add([finding(i, float(i), tenant="acme" if i % 3 else "beta") for i in range(30)])
    beta = store.page(limit=4, slice_filter={"tenant": "beta"})
    assert beta.total == 10
    assert all(f.slices["tenant"] == "beta" for f in beta.items)
    assert beta.next_cursor is not None
    rest = store.page(limit=50, cursor=beta.next_cursor, slice_filter={"tenant": "beta"})
    assert len(beta.items) + len(rest.items) == 10
    both = store.page(limit=50, slice_filter={"tenant": "beta", "intent": "billing"})
    assert both.total == 10
    assert store.page(limit=5, slice_filter={"tenant": "nobody"}).total == 0


def test_bad_cursor(make_findings: Callable[[int], FStore]) -> None:
    with pytest.raises(InvalidCursorError) as exc:
        make_findings(10).page(cursor="!!not-a-cursor")
    assert exc.value.retriable is False  # a client error: retrying cannot help


def test_cursor_round_trips_at_every_padding_length() -> None:
    # mutation pass (docs/mutation.md): the "=" padding of unpadded base64, `% 4` -> `% 5`
    for n in range(1, 9):
        assert decode_cursor(encode_cursor(12.5, "k" * n)) == (12.5, "k" * n)


def test_finding_dict_round_trip_keeps_present_and_absent_fields() -> None:
    # mutation pass: `context_index is None` -> `is not None` dropped the passage index
    full = replace(
        finding(7, 3.0),
        trace=FindingTrace(
            question="q?",
            answer="a.",
            passages=(FindingPassage(0, "p0 text", id="p0", doc_id=None),),
            truncated=True,
        ),
    )
    assert finding_from_dict(finding_to_dict(full)) == full
    bare = Finding(
        trace_id="t8",
        ts=4.0,
        claim_index=1,
        claim="claim",
        evidence=None,
        context_index=None,
        context_id=None,
        score=0.5,
        reason=None,
        metric_version="fake/v1",
        slices={},
    )
    assert finding_from_dict(finding_to_dict(bare)) == bare


def test_a_page_of_exactly_limit_items_has_no_next_cursor(
    make_findings: Callable[[int], FStore],
) -> None:
    # mutation pass (docs/mutation.md): `more = len(items) > limit` -> `>=` sent an empty page
    store = make_findings(100)
    store.add([finding(i, float(i)) for i in range(3)])
    assert store.page(limit=3).next_cursor is None
    assert store.page(limit=2).next_cursor is not None
    assert [len(store.page(limit=n).items) for n in (1, 0, -5)] == [1, 1, 1]  # at least one


def test_page_size_is_capped_at_1000(make_findings: Callable[[int], FStore]) -> None:
    # mutation pass: the store's own bound (the API refuses limit > 500 first), 1000 -> 1001
    store = make_findings(2000)
    store.add([finding(i, float(i)) for i in range(1001)])
    page = store.page(limit=5000)
    assert len(page.items) == 1000
    assert page.total == 1001
    assert page.next_cursor is not None


def test_a_full_store_keeps_a_finding_newer_than_its_oldest(
    make_findings: Callable[[int], FStore],
) -> None:
    # mutation pass: `entry < order[0]` -> `order[-1]` skipped anything not newer than the newest
    store = make_findings(3)
    store.add([finding(i, float(i)) for i in (1, 2, 4)])
    assert store.add([finding(3, 3.0)]) == 1
    assert [f.trace_id for f in store.page(limit=10).items] == ["t4", "t3", "t2"]


def test_max_items_one_keeps_the_newest(make_findings: Callable[[int], FStore]) -> None:
    # below 1 is refused at start-up (tests/test_settings_ranges.py)
    store = make_findings(1)
    store.add([finding(i, float(i)) for i in range(3)])
    page = store.page(limit=10)
    assert [f.trace_id for f in page.items] == ["t2"]
    assert page.total == 1


def test_unreachable_redis_findings_store(unique_name: str) -> None:
    # mutation pass: `ping()` returned True on a RedisError
    client = redis.Redis(
        host="127.0.0.1", port=free_port(), socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0)
    )
    store = RedisFindingStore(client, FindingsSettings(), build_redis(prefix=unique_name))
    assert store.ping() is False
    with pytest.raises(StoreUnavailableError) as exc:
        store.add([finding(1, 1.0)])
    assert exc.value.retriable is True
    with pytest.raises(StoreUnavailableError):
        store.page(limit=5)


def _add_concurrently(stores: list[FStore]) -> list[int]:
    """Each store adds the same 200 findings from its own thread; returns what each added."""
    counts: list[int] = [0] * len(stores)

    def run(n: int) -> None:
        counts[n] = sum(stores[n].add([finding(i, float(i))]) for i in range(200))

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(stores))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return counts


def test_concurrent_adds_from_two_threads(make_findings: Callable[[int], FStore]) -> None:
    store = make_findings(10_000)
    assert sum(_add_concurrently([store, store])) == 200
    assert store.page(limit=1).total == 200


@pytest.mark.replicas
def test_two_replicas_add_each_finding_once(make_findings: Callable[[int], FStore]) -> None:
    one, two = make_findings(10_000), make_findings(10_000)
    assert sum(_add_concurrently([one, two])) == 200
    assert one.page(limit=1).total == two.page(limit=1).total == 200
    # what one replica wrote, the other pages through
    one.add([finding(9999, 9999.0)])
    assert two.page(limit=1).items[0].trace_id == "t9999"


def test_http_routes() -> None:
    clock = FakeClock.aligned()  # up to an hour ahead: the store reads the same clock
    store = MemoryFindingStore(FindingsSettings(max_items=100), clock=clock)
    windows = MemoryWindowStore(ROUTE_WINDOWS, clock=clock)
    store.add([finding(i, clock() - i, tenant="acme" if i % 2 else "beta") for i in range(6)])
    windows.observe_ingest([obs(f"t{i}", clock() - 1, {"tenant": "acme"}) for i in range(3)])
    windows.observe_evaluations(
        [(record(f"t{i}", contradicted=1), {"tenant": "acme"}, clock() - 1) for i in range(3)]
    )
    app = FastAPI()
    app.include_router(findings_router(store, windows, ROUTE_WINDOWS))
    with TestClient(app) as client:
        body = client.get("/v1/findings", params={"limit": 2}).json()
        assert body["total"] == 6
        assert len(body["items"]) == 2
        item = body["items"][0]
        assert set(item) >= {"trace_id", "slices", "claim", "evidence", "judge_version", "time"}
        nxt = client.get("/v1/findings", params={"limit": 10, "cursor": body["next_cursor"]})
        assert len(nxt.json()["items"]) == 4
        assert client.get("/v1/findings?tenant=acme").json()["total"] == 3
        assert client.get("/v1/findings?slice=tenant:beta").json()["total"] == 3
        assert client.get("/v1/findings?slice=nocolon").status_code == 422
        assert client.get("/v1/findings?cursor=zzz").status_code == 400
        windows_json = client.get("/v1/windows").json()
        rows = {(r["slice_key"], r["slice_value"]): r for r in windows_json["windows"]["5m"]}
        assert rows["all", "all"]["traces"]["received"] == 3
        assert rows["all", "all"]["means"]["faithfulness"] == pytest.approx(0.5)
        page = client.get("/")
        assert page.status_code == 200
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert client.get("/static/page.js").status_code == 200
        assert client.get("/static/../settings.py").status_code == 404
