"""Labels on findings (issue 35, step 1): the stores, the write route, the cases export, and the
page's buttons in headless Chromium against the real app on real Redis, across an app restart."""

from __future__ import annotations

import json
import shutil
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from groundwatch.api.app import create_app
from groundwatch.cli.commands import app_config
from groundwatch.contract.case import EvalCase
from groundwatch.runtime import Runtime
from groundwatch.sections.windows import FindingsSettings
from groundwatch.state.findings import MemoryFindingStore
from groundwatch.state.redis_store import RedisFindingStore, redis_client
from groundwatch.state.stores import Finding, FindingLabel, FindingStore
from tests.builders import build_redis, build_settings
from tests.fakes import FakeJudge
from tests.infra import RedisServer
from tests.test_page import CHROMIUM, _launch, _serving

TOKEN = "label-token-0123456789"
API = {"tokens": [TOKEN], "rate_limit_per_s": 0}


def _finding(i: int, now: float, tenant: str = "acme") -> Finding:
    return Finding(
        trace_id=f"trace/{i}",  # a slash: the id travels URL-encoded in the route's path
        ts=now - i,
        claim_index=i % 2,
        claim=f"The plan costs ${10 + i} a month.",
        evidence="The plan costs $9 a month.",
        context_index=0,
        context_id="doc-1",
        score=0.98,
        reason="value",
        metric_version="fake/v1",
        slices={"tenant": tenant},
    )


@pytest.fixture(params=["memory", "redis", "cluster"])
def store(request: pytest.FixtureRequest, unique_name: str) -> Iterator[FindingStore]:
    if request.param == "memory":
        yield MemoryFindingStore(FindingsSettings())
        return
    # Redis Cluster: the label script touches the data and labels hashes, one hash tag.
    server = request.getfixturevalue(
        "redis_server" if request.param == "redis" else "redis_cluster"
    )
    redis = build_redis(server.url, unique_name)
    client = redis_client(redis)
    try:
        yield RedisFindingStore(client, FindingsSettings(max_items=5), redis)
    finally:
        client.close()


def test_a_label_is_stored_with_its_finding_and_relabelling_replaces_it(
    store: FindingStore,
) -> None:
    now = time.time()
    store.add([_finding(i, now) for i in range(3)])
    key = _finding(1, now).key
    assert store.set_label("no-such#0", FindingLabel("right", now)) is None
    first = store.set_label(key, FindingLabel("wrong", now, "supported", "reworded"))
    assert first is not None
    assert first.label == FindingLabel("wrong", now, "supported", "reworded")
    again = store.set_label(key, FindingLabel("right", now + 1))
    assert again is not None
    assert again.label == FindingLabel("right", now + 1)
    assert store.set_label(key, FindingLabel("right", now + 1)) == again  # idempotent
    store.add([_finding(1, now)])  # a re-delivery of the same finding keeps its label
    page = {f.key: f for f in store.page(limit=10).items}
    assert page[key].label == FindingLabel("right", now + 1)
    assert [f.key for f in store.labelled()] == [key]
    assert all(f.label is None for k, f in page.items() if k != key)


def test_a_random_sample_draws_distinct_kept_findings(store: FindingStore) -> None:
    now = time.time()
    store.add([_finding(i, now, "acme" if i % 2 else "beta") for i in range(4)])
    drawn = store.sample(3)
    assert len(drawn) == 3
    assert len({f.key for f in drawn}) == 3
    assert [f.ts for f in drawn] == sorted((f.ts for f in drawn), reverse=True)
    assert {f.slices["tenant"] for f in store.sample(10, slice_filter={"tenant": "beta"})} == {
        "beta"
    }
    seen: set[str] = set()
    for _ in range(40):  # uniform: every finding comes up, not only the newest
        seen.update(f.key for f in store.sample(1))
    assert len(seen) == 4


@pytest.mark.redis
def test_trimming_the_oldest_finding_drops_its_label(
    redis_server: RedisServer, unique_name: str
) -> None:
    redis = build_redis(redis_server.url, unique_name)
    client = redis_client(redis)
    try:
        store = RedisFindingStore(client, FindingsSettings(max_items=2), redis)
        now = time.time()
        store.add([_finding(5, now)])
        assert store.set_label(_finding(5, now).key, FindingLabel("right", now)) is not None
        store.add([_finding(1, now), _finding(0, now)])  # newer: the labelled one is trimmed
        assert store.labelled() == []
        assert client.hlen(f"{unique_name}:f:labels") == 0
    finally:
        client.close()


def _path(key: str) -> str:
    return "/v1/findings/" + urllib.parse.quote(key, safe="") + "/label"


def test_the_label_route_is_a_guarded_write_and_labels_reach_the_cases_export() -> None:
    settings = build_settings(api=API, windows={"slice_keys": ["tenant"]})
    runtime = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    now = time.time()
    runtime.findings.add([_finding(i, now) for i in range(3)])
    auth = {"Authorization": f"Bearer {TOKEN}"}
    key = _finding(2, now).key
    with TestClient(create_app(runtime, app_config(settings))) as client:
        assert client.post(_path(key), json={"label": "right"}).status_code == 401
        bad = {"Authorization": "Bearer nope"}
        assert client.post(_path(key), json={"label": "right"}, headers=bad).status_code == 403
        assert client.post(_path("x#9"), json={"label": "right"}, headers=auth).status_code == 404
        for body in (
            {"label": "maybe"},
            {"label": "right", "corrected_verdict": "supported"},
            {"label": "wrong", "corrected_verdict": "contradicted"},
            {"label": "wrong", "note": "x" * 1001},
        ):
            assert client.post(_path(key), json=body, headers=auth).status_code == 422, body
        body = {"label": "wrong", "corrected_verdict": "not_found", "note": "not in the doc"}
        got = client.post(_path(key), json=body, headers=auth)
        assert got.status_code == 200, got.text
        assert got.json()["id"] == key
        assert got.json()["label"]["corrected_verdict"] == "not_found"
        listed = client.get("/v1/findings", headers=auth).json()["items"]
        assert {f["id"]: f["label"] for f in listed}[key]["label"] == "wrong"
        sample = client.get("/v1/findings?sample=random&n=2", headers=auth).json()
        assert len(sample["items"]) == 2
        assert sample["next_cursor"] is None
        cases = client.get("/v1/findings/cases", headers=auth).text.splitlines()
    labels = {
        (c.origin.trace_id, cl.claim_index): cl.label
        for c in map(EvalCase.model_validate_json, cases)
        if c.origin is not None
        for cl in c.origin.contradicted
    }
    label = labels[(_finding(2, now).trace_id, 0)]
    assert label is not None
    assert (label.label, label.corrected_verdict, label.note) == (
        "wrong",
        "not_found",
        "not in the doc",
    )
    assert labels[(_finding(1, now).trace_id, 1)] is None


def _get_json(url: str) -> Any:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


@pytest.mark.browser
@pytest.mark.redis
def test_a_label_given_on_the_page_survives_an_app_restart_on_redis(
    redis_server: RedisServer, unique_name: str
) -> None:
    if not shutil.which("chromium") and not shutil.which(CHROMIUM):
        pytest.skip("chromium not installed")
    from playwright.sync_api import sync_playwright

    settings = build_settings(
        api=API,
        windows={"slice_keys": ["tenant"]},
        state="redis",
        redis={"url": redis_server.url, "key_prefix": unique_name},
    )
    now = time.time()
    key = _finding(3, now).key
    runtime = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    runtime.findings.add([_finding(i, now) for i in range(6)])
    with _serving(create_app(runtime, app_config(settings))) as url, sync_playwright() as pw:
        browser = _launch(pw)
        try:
            page = browser.new_page()
            page.goto(url)
            page.fill("#token", TOKEN)
            page.click("#apply")
            cell = page.locator(f"td.label[data-finding='{key}']")
            cell.wait_for(timeout=15000)
            cell.locator(".label-corrected").select_option("supported")
            cell.locator(".label-note").fill("the passage says the same")
            cell.locator(".label-btn[data-label='wrong']").click()
            page.wait_for_function(
                "k => document.querySelector(`td.label[data-finding='${k}'] .label-state`)"
                ".textContent === 'wrong (supported)'",
                arg=key,
                timeout=15000,
            )
            assert "labelled" in page.text_content("#status")
        finally:
            browser.close()

    # A fresh app process state on the same Redis: the label is still there, on the page too.
    restarted = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    with _serving(create_app(restarted, app_config(settings))) as url:
        items = {f["id"]: f for f in _get_json(url + "v1/findings")["items"]}
        req = urllib.request.Request(url, headers={"Authorization": f"Bearer {TOKEN}"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            html = resp.read().decode()
    assert items[key]["label"]["label"] == "wrong"
    assert items[key]["label"]["corrected_verdict"] == "supported"
    assert items[key]["label"]["note"] == "the passage says the same"
    assert "wrong (supported)" in html
