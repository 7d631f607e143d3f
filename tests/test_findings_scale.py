"""Findings at scale (issue 45, items 2 and 3): the live precision figures come from label
counts kept as labels change (a scrape costs O(series), not O(findings); concurrent scrapes
share one read), and a query with two slice filters reads the page, never every finding.

Redis costs are measured as the bytes Redis sent (``INFO stats`` ``total_net_output_bytes``)
around one call on a real server; the figures are checked against a full recomputation.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client import CollectorRegistry, generate_latest

from groundwatch.api.app import create_app
from groundwatch.cli.commands import app_config
from groundwatch.observability.precision_collector import (
    PrecisionCollector,
    precision_by_slice,
    precision_from_counts,
)
from groundwatch.runtime import Runtime
from groundwatch.sections.windows import FindingsSettings
from groundwatch.state.findings import MemoryFindingStore, finding_to_dict, label_count_keys
from groundwatch.state.redis_store import RedisClient, RedisFindingStore, redis_client
from groundwatch.state.stores import LABELS, SCOPE_FILTER, Finding, FindingLabel, LabelCounts
from tests.builders import build_redis, build_settings
from tests.fakes import FakeJudge
from tests.infra import RedisServer

FStore = MemoryFindingStore | RedisFindingStore
TENANTS = ("acme", "beta", "gamma")
INTENTS = ("billing", "refund")


def _finding(i: int, now: float, version: str = "fake/1") -> Finding:
    return Finding(
        trace_id=f"t{i}",
        ts=now - 10_000 + i * 0.5,
        claim_index=0,
        # about 500 bytes of JSON a finding, as a real one with its evidence
        claim=f"The plan number {i} costs ${10 + i % 90} a month, billed yearly in March.",
        evidence="The plan costs $9 a month. " * 8,
        context_index=0,
        context_id=f"doc-{i % 7}",
        score=0.9,
        reason="value",
        metric_version=version,
        slices={"tenant": TENANTS[i % 3], "intent": INTENTS[i % 2]},
    )


@pytest.fixture(params=["memory", "redis", "cluster"])
def make_store(
    request: pytest.FixtureRequest, unique_name: str
) -> Iterator[Callable[[int], FStore]]:
    clients: list[RedisClient] = []

    def make(max_items: int) -> FStore:
        if request.param == "memory":
            return MemoryFindingStore(FindingsSettings(max_items=max_items))
        server = request.getfixturevalue(
            "redis_server" if request.param == "redis" else "redis_cluster"
        )
        redis = build_redis(server.url, unique_name)
        clients.append(redis_client(redis))
        return RedisFindingStore(clients[-1], FindingsSettings(max_items=max_items), redis)

    yield make
    for client in clients:
        client.close()


def _recount(store: FStore) -> LabelCounts:
    """The label counts from every labelled finding: what a scrape computed before."""
    counts: dict[tuple[str, str, str, str], int] = {}
    for f in store.labelled():
        for key in label_count_keys(f):
            counts[key] = counts.get(key, 0) + 1
    return counts


# --- item 2: label counts ---------------------------------------------------------------


def test_label_counts_follow_labels_relabels_and_evictions(
    make_store: Callable[[int], FStore],
) -> None:
    store = make_store(40)
    rng = random.Random(45)
    now = time.time()
    added = 0
    for step in range(300):
        if step % 3 == 0:  # a few new findings: the store is full, the first received go
            version = "fake/1" if rng.random() < 0.8 else "fake/2"
            store.add([_finding(added + j, now, version) for j in range(rng.randint(1, 4))])
            added += 4
        kept = [f.key for f in store.page(limit=1000).items]
        if kept:
            label = rng.choice(LABELS)
            verdict = "supported" if label == "wrong" and rng.random() < 0.5 else None
            store.set_label(rng.choice(kept), FindingLabel(label, now, verdict))
        if step % 50 == 49:
            assert store.label_counts() == _recount(store), step
    assert store.label_counts() == _recount(store)
    assert store.label_counts()  # the run labelled something that is still kept
    estimates = precision_from_counts(store.label_counts(), "fake/1")
    assert estimates == precision_by_slice(store.labelled(), "fake/1")


def _sent_bytes(client: RedisClient) -> int:
    return int(client.info("stats")["total_net_output_bytes"])


def _labelled_store(server: RedisServer, prefix: str, n: int) -> tuple[RedisFindingStore, Any]:
    redis = build_redis(server.url, prefix)
    client = redis_client(redis)
    store = RedisFindingStore(client, FindingsSettings(max_items=n), redis)
    now = time.time()
    for start in range(0, n, 500):
        store.add([_finding(i, now) for i in range(start, min(n, start + 500))])
    for i in range(n):
        store.set_label(
            _finding(i, now).key, FindingLabel(LABELS[i % 3] if i % 5 else "wrong", now)
        )
    return store, client


@pytest.mark.redis
def test_a_scrape_reads_label_counts_not_every_labelled_finding(
    redis_server: RedisServer, unique_name: str
) -> None:
    n = 3000
    store, client = _labelled_store(redis_server, unique_name, n)
    try:
        registry = CollectorRegistry()
        registry.register(PrecisionCollector(store, judge_version="fake/1"))
        before = _sent_bytes(client)
        text = generate_latest(registry).decode()
        sent = _sent_bytes(client) - before
        # 3,000 labelled findings are ~1.9 MB of JSON; the counts are 24 short fields.
        assert sent < 16_384, f"{sent} bytes read for one scrape"
        assert len(store.labelled()) == n
        want = precision_by_slice(store.labelled(), "fake/1")
        for (key, value), est in want.items():
            labels = f'slice_key="{key}",slice_value="{value}"'
            line = f"groundwatch_judge_contradicted_precision{{{labels}}} {est.precision!r}"
            assert line in text
            right = f'groundwatch_judge_contradicted_labels{{label="right",{labels}}}'
            assert f"{right} {float(est.right)!r}" in text
    finally:
        client.close()


@pytest.mark.redis
def test_label_counts_survive_a_restart_and_are_rebuilt_when_missing(
    redis_server: RedisServer, unique_name: str
) -> None:
    store, client = _labelled_store(redis_server, unique_name, 300)
    try:
        counts = store.label_counts()
        assert counts == _recount(store)
        # a restart: a new process, a new connection, the same Redis
        redis = build_redis(redis_server.url, unique_name)
        again = redis_client(redis)
        try:
            restarted = RedisFindingStore(again, FindingsSettings(max_items=300), redis)
            assert restarted.label_counts() == counts
            # a store written by an older version has no count hash: built once, from labels
            again.delete(f"{unique_name}:f:lc")
            assert restarted.label_counts() == counts
            key = next(f.key for f in restarted.labelled() if f.label and f.label.label == "right")
            restarted.set_label(key, FindingLabel("wrong", time.time()))
            assert restarted.label_counts() == _recount(restarted)
        finally:
            again.close()
    finally:
        client.close()


class CountingStore(RedisFindingStore):
    """A real Redis finding store that counts reads of label data and makes each slow, so
    concurrent scrapes overlap for certain."""

    reads = 0

    def label_counts(self) -> LabelCounts:
        CountingStore.reads += 1
        time.sleep(0.3)
        return super().label_counts()

    def labelled(self) -> list[Finding]:
        CountingStore.reads += 1
        time.sleep(0.3)
        return super().labelled()


@pytest.mark.redis
def test_concurrent_scrapes_share_one_read(redis_server: RedisServer, unique_name: str) -> None:
    redis = build_redis(redis_server.url, unique_name)
    client = redis_client(redis)
    try:
        store = CountingStore(client, FindingsSettings(max_items=100), redis)
        store.add([_finding(i, time.time()) for i in range(10)])
        store.set_label(_finding(3, time.time()).key, FindingLabel("right", time.time()))
        collector = PrecisionCollector(store, judge_version="fake/1")
        start = threading.Barrier(16)
        outputs: list[int] = []

        def scrape() -> None:
            start.wait()
            outputs.append(sum(len(m.samples) for m in collector.collect()))

        threads = [threading.Thread(target=scrape) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert len(outputs) == 16
        assert len(set(outputs)) == 1  # every scrape exported the same figures
        assert outputs[0] > 0
        assert CountingStore.reads <= 2, f"{CountingStore.reads} reads for 16 concurrent scrapes"
        CountingStore.reads = 0
        list(collector.collect())  # a later scrape reads again: nothing stale is served
        assert CountingStore.reads == 1
    finally:
        client.close()


@pytest.mark.redis
def test_metrics_and_the_page_show_the_counted_precision(
    redis_server: RedisServer, unique_name: str
) -> None:
    settings = build_settings(
        state="redis",
        redis={"url": redis_server.url, "key_prefix": unique_name},
        windows={"slice_keys": ["tenant", "intent"]},
    )
    runtime = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    now = time.time()
    version = runtime.judge.version
    runtime.findings.add([_finding(i, now, version) for i in range(12)])
    for i in range(12):
        label = "right" if i % 4 else "wrong"
        runtime.findings.set_label(_finding(i, now, version).key, FindingLabel(label, now))
    with TestClient(create_app(runtime, app_config(settings))) as http:
        metrics = http.get("/metrics").text
        page = http.get("/").text
    line = 'groundwatch_judge_contradicted_precision{slice_key="all",slice_value="all"} 0.75'
    assert line in metrics
    assert "Judge precision on labelled findings: 0.75" in page  # 9 right of 12 decided
    assert "12 right/wrong labels" in page


# --- item 3: two slice filters ------------------------------------------------------------


def _brute(store_items: list[Finding], wanted: dict[str, str]) -> list[str]:
    match = [f for f in store_items if all(f.slices.get(k) == v for k, v in wanted.items())]
    return [f.key for f in sorted(match, key=lambda f: (f.ts, f.key), reverse=True)]


def test_two_filters_page_and_sample_exactly_the_matches(
    make_store: Callable[[int], FStore],
) -> None:
    store = make_store(600)
    now = time.time()
    everything = [_finding(i, now) for i in range(600)]
    for i in range(0, 600, 7):  # ties on ts: the cursor breaks them by key
        everything[i] = replace(everything[i], ts=everything[0].ts)
    store.add(everything)
    wanted = {"tenant": "beta", "intent": "refund"}
    want = _brute(everything, wanted)
    seen: list[str] = []
    cursor = None
    while True:
        page = store.page(limit=17, cursor=cursor, slice_filter=wanted)
        assert page.total == len(want)
        seen += [f.key for f in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == want
    drawn = store.sample(30, slice_filter=wanted)
    assert len(drawn) == 30
    assert {f.key for f in drawn} <= set(want)
    assert store.page(slice_filter={"tenant": "beta", "intent": "nothing"}).total == 0
    assert store.sample(5, slice_filter={"tenant": "beta", "intent": "nothing"}) == []


@pytest.mark.redis
def test_two_filters_read_the_page_not_every_finding(
    redis_server: RedisServer, unique_name: str
) -> None:
    n = 3000
    redis = build_redis(redis_server.url, unique_name)
    client = redis_client(redis)
    try:
        store = RedisFindingStore(client, FindingsSettings(max_items=n), redis)
        now = time.time()
        for start in range(0, n, 500):
            store.add([_finding(i, now) for i in range(start, start + 500)])
        wanted = {"tenant": "acme", "intent": "billing"}  # 1 in 6: 500 findings
        before = _sent_bytes(client)
        page = store.page(limit=10, slice_filter=wanted)
        sent = _sent_bytes(client) - before
        assert page.total == 500
        assert [f.key for f in page.items] == _brute([_finding(i, now) for i in range(n)], wanted)[
            :10
        ]
        # ten findings are ~6 KB; every finding of one filter (1,500) is ~1 MB
        assert sent < 16_384, f"{sent} bytes read for a page of 10"
        before = _sent_bytes(client)
        drawn = store.sample(10, slice_filter=wanted)
        assert len(drawn) == 10
        assert _sent_bytes(client) - before < 16_384
        assert client.keys(f"{unique_name}:f:q:*") == []  # no intersection left behind
    finally:
        client.close()


def test_a_scope_filter_reads_its_own_index(make_store: Callable[[int], FStore]) -> None:
    store = make_store(60)
    now = time.time()
    made = [replace(_finding(i, now), scope=("s-a", "s-b", "")[i % 3]) for i in range(90)]
    store.add(made)  # 90 into 60: the first 30 received are dropped from every index
    kept = made[30:]
    for scope in ("s-a", "s-b"):
        for wanted in ({SCOPE_FILTER: scope}, {SCOPE_FILTER: scope, "intent": "refund"}):
            want = [
                f.key
                for f in sorted(kept, key=lambda f: (f.ts, f.key), reverse=True)
                if f.scope == scope
                and all(f.slices.get(k) == v for k, v in wanted.items() if k != SCOPE_FILTER)
            ]
            page = store.page(limit=100, slice_filter=wanted)
            assert [f.key for f in page.items] == want
            assert page.total == len(want)
            assert {f.key for f in store.sample(100, slice_filter=wanted)} == set(want)


@pytest.mark.redis
def test_findings_stored_before_join_their_scope_index(
    redis_server: RedisServer, unique_name: str
) -> None:
    redis = build_redis(redis_server.url, unique_name)
    client = redis_client(redis)
    try:
        now = time.time()
        for i in range(
            5
        ):  # as the store wrote them before issue 45: no receive rank, no scope index
            f = replace(_finding(i, now), scope="s-a")
            client.hset(f"{unique_name}:f:data", f.key, json.dumps(finding_to_dict(f)))
            client.zadd(f"{unique_name}:f:idx", {f.key: f.ts})
        store = RedisFindingStore(client, FindingsSettings(max_items=100), redis)
        store.add([replace(_finding(10, now), scope="s-a")])
        assert store.page(slice_filter={SCOPE_FILTER: "s-a"}).total == 6
    finally:
        client.close()
