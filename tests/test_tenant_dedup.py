"""Dedup is by (tenant, trace_id) (issue 45): tenant A's earlier trace ids do not swallow tenant
B's traces, and the ``duplicates`` of a 202 answer only within the trace's own tenant. Through
the HTTP app and each window store (memory, a real Redis, a real Redis Cluster)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from groundwatch.api.app import create_app
from groundwatch.cli.commands import app_config
from groundwatch.evaluation.processing import scoped_id
from groundwatch.runtime import Runtime
from groundwatch.state.bucket_reader import BucketWindows
from groundwatch.state.buckets import ALL
from groundwatch.state.stores import WindowStore
from tests.builders import build_settings, build_trace
from tests.fakes import FakeJudge

IDS = [f"order-{i}" for i in range(6)]


@pytest.fixture(params=["memory", "redis", "cluster"])
def client(request: pytest.FixtureRequest, unique_name: str) -> Iterator[TestClient]:
    state: dict[str, Any] = {"state": "memory"}
    if request.param != "memory":
        server = request.getfixturevalue(
            "redis_server" if request.param == "redis" else "redis_cluster"
        )
        state = {"state": "redis", "redis": {"url": server.url, "key_prefix": unique_name}}
    settings = build_settings(**state)
    # Every claim contradicted: each scored trace also leaves a finding.
    judge = FakeJudge(verdict_fn=lambda claim, trace: "contradicted")
    runtime = Runtime.build(settings, judge=judge, with_kafka=False)
    with TestClient(create_app(runtime, app_config(settings))) as c:
        yield c


def _runtime(client: TestClient) -> Runtime:
    runtime = client.app.state.runtime  # type: ignore[attr-defined]
    assert isinstance(runtime, Runtime)
    return runtime


def _post(client: TestClient, tenant: str | None, ids: list[str]) -> dict[str, Any]:
    attributes = {"tenant": tenant} if tenant else {}
    body = [build_trace(i, attributes=attributes) for i in ids]
    r = client.post("/v1/rag-traces", json=body)
    assert r.status_code == 202, r.text
    assert _runtime(client).queue.join(20)
    answer: dict[str, Any] = r.json()
    return answer


def _evaluated(windows: WindowStore) -> dict[str, float]:
    """Evaluated traces in the last hour, overall and per tenant slice."""
    assert isinstance(windows, BucketWindows)
    now = windows.now()
    by_slice = windows.summaries(now - 3600, now + 60)
    out = {"all": by_slice[ALL].count("evaluated")}
    for (key, value), summary in by_slice.items():
        if key == "tenant":
            out[value] = summary.count("evaluated")
    return out


def test_tenant_a_ids_do_not_swallow_tenant_b_traces(client: TestClient) -> None:
    first = _post(client, "alpha", IDS)
    assert (first["sampled"], first["duplicates"]) == (len(IDS), [])
    # The same ids from another tenant: new traces, scored, and nothing said about alpha's.
    other = _post(client, "beta", IDS)
    assert (other["sampled"], other["duplicates"]) == (len(IDS), [])
    # Without a tenant: a scope of its own.
    bare = _post(client, None, IDS[:2])
    assert (bare["sampled"], bare["duplicates"]) == (2, [])
    # Each tenant's own re-send is a duplicate, and only its own.
    again = _post(client, "alpha", IDS)
    assert (again["sampled"], again["duplicates"]) == (0, IDS)
    assert _post(client, "beta", IDS[:3])["duplicates"] == IDS[:3]
    runtime = _runtime(client)
    counts = _evaluated(runtime.windows)
    assert counts == {"all": 2 * len(IDS) + 2, "alpha": len(IDS), "beta": len(IDS), "unknown": 2}
    # One finding per trace (one contradicted claim each): beta's did not replace alpha's.
    assert runtime.findings.page(limit=100).total == 2 * len(IDS) + 2


def test_one_batch_may_carry_the_same_id_for_two_tenants(client: TestClient) -> None:
    body = [
        build_trace("shared", attributes={"tenant": "alpha"}),
        build_trace("shared", attributes={"tenant": "beta"}),
        build_trace("shared", attributes={"tenant": "beta"}),
    ]
    r = client.post("/v1/rag-traces", json=body)
    assert r.status_code == 202, r.text
    answer = r.json()
    assert (answer["accepted"], answer["sampled"], answer["duplicates"]) == (2, 2, [])
    assert [(e["index"], e["reason"]) for e in answer["errors"]] == [(2, "duplicate_in_batch")]
    assert _runtime(client).queue.join(20)
    assert _evaluated(_runtime(client).windows)["all"] == 2


def test_scoped_ids_never_collide() -> None:
    scope = "0123456789ab"
    keys = [
        scoped_id("x", ""),
        scoped_id("x", scope),
        scoped_id(f"@{scope}:x", ""),
        scoped_id("@:x", ""),
        scoped_id("@x", ""),
        scoped_id(":x", scope),
    ]
    assert len(set(keys)) == len(keys), keys
    assert scoped_id("plain-id", "") == "plain-id"  # markers written before stay valid
