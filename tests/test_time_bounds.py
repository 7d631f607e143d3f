"""Trace times (issue 45, item 1): every ingest path refuses a time outside 2000-01-01 .. now +
300 s (reason ``timestamp``, counted), the finding stores keep the windows' skew bound and drop
by receive order (a forged time cannot evict real findings), and a finding already stored with
a time that cannot be formatted (year 10000 in UTC) is still served by the API and the page.

Real components: a uvicorn server on loopback over real Redis (HTTP, OTLP, the findings API
and page), a real Kafka-compatible broker for the Kafka path.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import uvicorn

from groundwatch.api.app import create_app
from groundwatch.cli.commands import app_config
from groundwatch.contract.record import Verdict
from groundwatch.contract.trace import RagTrace, TraceDecodeError, TraceLimits, decode_trace
from groundwatch.runtime import Runtime
from groundwatch.sections.connections import OtelSettings
from groundwatch.sections.windows import FindingsSettings
from groundwatch.settings import Settings
from groundwatch.state.findings import MemoryFindingStore, finding_to_dict
from groundwatch.state.redis_store import RedisClient, RedisFindingStore, redis_client
from groundwatch.state.stores import Finding, FindingStore
from tests.builders import build_pipeline_settings, build_redis, build_settings, build_trace
from tests.fakes import FakeJudge
from tests.infra import KafkaBroker, RedisClusterServers, RedisServer, free_port, wait_port
from tests.otlp_support import json_body, record_rag_spans

#: Year 10000 in UTC: what broke the findings API for good before (issue 45).
YEAR_10000 = "9999-12-31T23:59:59-12:00"
YEAR_10000_TS = datetime.fromisoformat(YEAR_10000).timestamp()


def _decode(timestamp: Any) -> RagTrace:
    return decode_trace(json.dumps(build_trace("t", timestamp=timestamp)).encode(), TraceLimits())


@pytest.mark.parametrize(
    "timestamp",
    [
        YEAR_10000,
        "0001-01-01T00:00:00+14:00",  # before year 1 in UTC
        "1999-12-31T23:59:59Z",
        5,  # unix seconds: 1970
        "2099-01-01T00:00:00Z",
        "+400s",  # now + 400 s: past the 300 s skew
    ],
)
def test_the_contract_refuses_a_time_outside_the_sane_range(timestamp: Any) -> None:
    if timestamp == "+400s":
        timestamp = datetime.fromtimestamp(time.time() + 400, UTC).isoformat()
    with pytest.raises(TraceDecodeError) as exc:
        _decode(timestamp)
    assert exc.value.reason == "timestamp"
    assert exc.value.detail.startswith("timestamp: ")
    assert exc.value.errors[0]["field"] == "timestamp"


@pytest.mark.parametrize("offset_s", [-30 * 86_400, -1.0, 0.0, 250.0])
def test_the_contract_keeps_a_time_in_range(offset_s: float) -> None:
    # a backlog replayed a month late and a clock 250 s ahead are both fine
    at = datetime.fromtimestamp(time.time() + offset_s, UTC)
    assert _decode(at.isoformat()).timestamp == at
    assert _decode("2000-01-01T00:00:00Z").timestamp is not None
    assert _decode(None).timestamp is None  # absent: receive time


# --- HTTP and OTLP through a real server on Redis ---------------------------------------


@dataclass
class Service:
    url: str
    runtime: Runtime
    settings: Settings

    def rejected(self, source: str) -> float:
        labels = {"source": source, "reason": "timestamp"}
        return (
            self.runtime.registry.get_sample_value("groundwatch_traces_rejected_total", labels) or 0
        )


def _contradicted(claim: str, _: RagTrace) -> Verdict:
    return "contradicted"


@contextlib.contextmanager
def serving(settings: Settings, findings: FindingStore | None = None) -> Iterator[Service]:
    """The app (every claim contradicted) under uvicorn on a free loopback port."""
    judge = FakeJudge(verdict_fn=_contradicted)
    runtime = Runtime.build(settings, judge=judge, findings=findings, with_kafka=False)
    port = free_port()
    config = uvicorn.Config(
        create_app(runtime, app_config(settings)), host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_port(port)
        yield Service(f"http://127.0.0.1:{port}", runtime, settings)
    finally:
        server.should_exit = True
        thread.join(timeout=20)
    assert not thread.is_alive()


def _redis_settings(url: str, prefix: str, **extra: Any) -> Settings:
    return build_settings(
        state="redis",
        redis={"url": url, "key_prefix": prefix},
        windows={"slice_keys": ["tenant"]},
        otel=OtelSettings(assembly_window_s=0.3).model_dump(),
        **extra,
    )


@pytest.mark.redis
def test_http_paths_refuse_and_count_a_trace_time_out_of_range(
    redis_server: RedisServer, unique_name: str
) -> None:
    with serving(_redis_settings(redis_server.url, unique_name)) as service:
        batch = [
            build_trace(f"{unique_name}-ok"),
            build_trace(f"{unique_name}-10000", timestamp=YEAR_10000),
            build_trace(f"{unique_name}-2099", timestamp="2099-01-01T00:00:00Z"),
            build_trace(f"{unique_name}-1970", timestamp=0),
        ]
        reply = httpx.post(f"{service.url}/v1/rag-traces", json=batch, timeout=30)
        assert reply.status_code == 202, reply.text
        body = reply.json()
        assert body["accepted"] == 1
        assert {e["index"]: e["reason"] for e in body["errors"]} == {
            1: "timestamp",
            2: "timestamp",
            3: "timestamp",
        }
        assert all(e["status"] == 422 for e in body["errors"])
        assert service.rejected("http") == 3
        one = build_trace(f"{unique_name}-eval", timestamp=YEAR_10000)
        refused = httpx.post(f"{service.url}/v1/evaluate?record=true", json=one, timeout=30)
        assert refused.status_code == 422, refused.text
        assert refused.json()["error"] == "timestamp"
        assert service.rejected("http") == 4
        assert service.runtime.queue.join(10)
        found = httpx.get(f"{service.url}/v1/findings", timeout=30)
        assert found.status_code == 200, found.text
        assert [f["trace_id"] for f in found.json()["items"]] == [f"{unique_name}-ok"]


def _shift_span_times(body: bytes, unix_nano: int) -> bytes:
    obj = json.loads(body)
    for resource in obj["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                span["startTimeUnixNano"] = str(unix_nano)
                span["endTimeUnixNano"] = str(unix_nano + 1_000_000)
    return json.dumps(obj).encode()


@pytest.mark.redis
def test_otlp_refuses_and_counts_spans_dated_in_the_far_future(
    redis_server: RedisServer, unique_name: str
) -> None:
    year_2200 = int(datetime(2200, 1, 1, tzinfo=UTC).timestamp()) * 1_000_000_000
    body = _shift_span_times(json_body(record_rag_spans("openinference")), year_2200)
    with serving(_redis_settings(redis_server.url, unique_name)) as service:
        reply = httpx.post(
            f"{service.url}/v1/traces",
            content=body,
            headers={"Content-Type": "application/json"},
            timeout=30,
        )
        assert reply.status_code == 200, reply.text
        deadline = time.monotonic() + 10
        while service.rejected("otlp") < 1 and time.monotonic() < deadline:
            time.sleep(0.05)  # the assembly window closes, then the trace is validated
        assert service.rejected("otlp") == 1
        assert service.runtime.queue.join(10)
        assert httpx.get(f"{service.url}/v1/findings", timeout=30).json()["total"] == 0


# --- a finding already stored with a time that cannot be formatted -----------------------


def _finding(i: int, ts: float, tenant: str = "acme") -> Finding:
    return Finding(
        trace_id=f"t{i}",
        ts=ts,
        claim_index=0,
        claim=f"The plan costs ${10 + i} a month.",
        evidence="The plan costs $9 a month.",
        context_index=0,
        context_id="doc-1",
        score=0.9,
        reason="value",
        metric_version="fake/1",
        slices={"tenant": tenant},
    )


def _store_as_before(client: RedisClient, prefix: str, found: Finding) -> None:
    """Write a finding the way the store did before issue 45 (no receive rank): what a
    deployment that took a year-10000 trace holds in Redis across the upgrade."""
    client.hset(f"{prefix}:f:data", found.key, json.dumps(finding_to_dict(found)))
    client.zadd(f"{prefix}:f:idx", {found.key: found.ts})
    for key, value in found.slices.items():
        client.zadd(f"{prefix}:f:idx:{key}={value}", {found.key: found.ts})


def _served(service: Service, claim: str) -> None:
    listed = httpx.get(f"{service.url}/v1/findings", timeout=30)
    assert listed.status_code == 200, listed.text
    item = listed.json()["items"][0]
    assert item["claim"] == claim
    assert item["time"] == "9999-12-31T23:59:59.000+00:00"
    sample = httpx.get(f"{service.url}/v1/findings?sample=random&n=5", timeout=30)
    assert sample.status_code == 200, sample.text
    assert claim in {f["claim"] for f in sample.json()["items"]}
    page = httpx.get(f"{service.url}/", timeout=30)
    assert page.status_code == 200
    assert claim.replace("$", "") in page.text.replace("$", "")
    assert httpx.get(f"{service.url}/?sample=random", timeout=30).status_code == 200


@pytest.mark.redis
def test_a_finding_stored_in_redis_with_year_10000_is_still_served(
    redis_server: RedisServer, unique_name: str
) -> None:
    settings = _redis_settings(redis_server.url, unique_name)
    forged = _finding(1, YEAR_10000_TS)
    client = redis_client(settings.redis)
    try:
        _store_as_before(client, unique_name, forged)
        with serving(settings) as service:
            _served(service, forged.claim)
    finally:
        client.close()


def test_a_finding_kept_in_memory_with_year_10000_is_still_served(unique_name: str) -> None:
    # Only a clock past year 9999 lets the memory store keep it now; what is kept is served.
    settings = build_settings(windows={"slice_keys": ["tenant"]})
    store = MemoryFindingStore(settings.findings, clock=lambda: YEAR_10000_TS + 1)
    forged = _finding(1, YEAR_10000_TS)
    assert store.add([forged]) == 1
    with serving(settings, findings=store) as service:
        _served(service, forged.claim)


# --- eviction follows receive order -------------------------------------------------------


FStore = MemoryFindingStore | RedisFindingStore


@pytest.fixture(params=["memory", "redis", "cluster"])
def make_store(
    request: pytest.FixtureRequest, unique_name: str
) -> Iterator[Callable[[int], tuple[FStore, RedisClient | None]]]:
    clients: list[RedisClient] = []

    def make(max_items: int) -> tuple[FStore, RedisClient | None]:
        findings = FindingsSettings(max_items=max_items)
        if request.param == "memory":
            return MemoryFindingStore(findings), None
        server: RedisServer | RedisClusterServers = request.getfixturevalue(
            "redis_server" if request.param == "redis" else "redis_cluster"
        )
        clients.append(redis_client(build_redis(server.url)))
        return RedisFindingStore(clients[-1], findings, build_redis(prefix=unique_name)), clients[
            -1
        ]

    yield make
    for client in clients:
        client.close()


def test_findings_dated_far_ahead_cannot_push_real_ones_out(
    make_store: Callable[[int], tuple[FStore, RedisClient | None]],
) -> None:
    store, _ = make_store(50)
    now = time.time()
    year_2099 = datetime(2099, 1, 1, tzinfo=UTC).timestamp()
    store.add([_finding(i, year_2099 + i) for i in range(50)])  # refused: past the skew bound
    assert store.add([_finding(100 + i, now - 60 + i) for i in range(50)]) == 50
    page = store.page(limit=100)
    assert page.total == 50
    assert {f.trace_id for f in page.items} == {f"t{100 + i}" for i in range(50)}
    # within the skew a finding is kept, at now (as the windows count it)
    assert store.add([_finding(999, time.time() + 200)]) == 1
    assert store.page(limit=1).items[0].ts <= time.time()


def test_a_full_store_keeps_a_late_finding_and_drops_the_one_received_first(
    make_store: Callable[[int], tuple[FStore, RedisClient | None]],
) -> None:
    store, _ = make_store(3)
    now = time.time()
    store.add([_finding(i, now - i) for i in range(3)])  # t0 newest ... t2 oldest
    week_ago = now - 7 * 86_400
    assert store.add([_finding(9, week_ago)]) == 1  # a replayed backlog: not "too old"
    kept = [f.trace_id for f in store.page(limit=10).items]
    assert kept == ["t1", "t2", "t9"]  # t0 was received first, so it went first


@pytest.mark.redis
def test_findings_forged_before_the_upgrade_are_dropped_first(
    redis_server: RedisServer, unique_name: str
) -> None:
    redis = build_redis(redis_server.url, unique_name)
    client = redis_client(redis)
    try:
        year_2099 = datetime(2099, 1, 1, tzinfo=UTC).timestamp()
        for i in range(50):
            _store_as_before(client, unique_name, _finding(i, year_2099 + i))
        store = RedisFindingStore(client, FindingsSettings(max_items=50), redis)
        now = time.time()
        assert store.add([_finding(100 + i, now - 100 + i) for i in range(50)]) == 50
        page = store.page(limit=100, slice_filter={"tenant": "acme"})
        assert page.total == 50
        assert {f.trace_id for f in page.items} == {f"t{100 + i}" for i in range(50)}
        assert client.zcard(f"{unique_name}:f:idx") == 50
    finally:
        client.close()


# --- the Kafka path ----------------------------------------------------------------------


@pytest.mark.kafka
@pytest.mark.redis
def test_kafka_dead_letters_and_counts_a_trace_time_out_of_range(
    kafka_broker: KafkaBroker, redis_server: RedisServer, unique_name: str
) -> None:
    from tests.consumer_support import FakeJudge as PlainJudge
    from tests.consumer_support import read_topic
    from tests.test_consumer_kafka import counts, wait_for
    from tests.test_poison_messages import _produce_around, _topics, consumer

    _topics(kafka_broker, unique_name)
    settings = build_pipeline_settings(kafka_broker.bootstrap, redis_server.url, unique_name)
    ids = [f"{unique_name}-{i}" for i in range(20)]
    bad = [
        json.dumps(build_trace(f"{unique_name}-10000", timestamp=YEAR_10000)).encode(),
        json.dumps(build_trace(f"{unique_name}-1999", timestamp="1999-01-01T00:00:00Z")).encode(),
    ]
    with consumer(settings, PlainJudge()) as (_, registry, windows, thread):
        _produce_around(kafka_broker, unique_name, bad, ids)
        wait_for(lambda: counts(windows) == (20, 20), 60, "all 20 valid traces scored")
        labels = {"source": "kafka", "reason": "timestamp"}
        wait_for(
            lambda: registry.get_sample_value("groundwatch_traces_rejected_total", labels) == 2,
            30,
            "both refused and counted",
        )
        assert thread.is_alive()
    dead = read_topic(kafka_broker.bootstrap, f"{unique_name}.dlq", expect=2)
    assert sorted(m.headers["x-groundwatch-reason"] for m in dead) == [b"timestamp"] * 2
