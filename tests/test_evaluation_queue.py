"""The HTTP ingest queue on a judge bug (issue 16): the batch is not turned into unscored
records, and the service reports itself not ready for good so that it is restarted."""

from __future__ import annotations

import time
from typing import Any

from fastapi.testclient import TestClient

from groundwatch.api.app import create_app
from groundwatch.cli.commands import app_config
from groundwatch.runtime import Runtime
from tests.builders import build_settings, build_trace
from tests.fakes import FakeJudge


class _BuggyJudge(FakeJudge):
    def judge_batch(self, traces: Any) -> Any:
        raise AttributeError("bug in the judge")


class _BrokenRuntimeJudge(FakeJudge):
    def judge_batch(self, traces: Any) -> Any:
        raise RuntimeError("model runtime failed")  # not a bug: the traces become unscored


def _ingest_and_wait(judge: FakeJudge) -> tuple[int, bool, int]:
    settings = build_settings()
    runtime = Runtime.build(settings, judge=judge, with_kafka=False)
    with TestClient(create_app(runtime, app_config(settings))) as client:
        assert client.post("/v1/rag-traces", json=[build_trace("q-1")]).status_code == 202
        deadline = time.monotonic() + 20
        while runtime.queue.depth() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.2)  # the batch is dequeued before it is processed
        # a later, working batch does not make a broken service ready again
        judge.judge_batch = FakeJudge().judge_batch  # type: ignore[method-assign]
        client.post("/v1/rag-traces", json=[build_trace("q-2")])
        deadline = time.monotonic() + 20
        while runtime.queue.depth() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.2)
        ready = client.get("/readyz")
        return ready.status_code, bool(ready.json()["checks"]["evaluator"]), runtime.queue.processed


def test_judge_bug_makes_the_service_not_ready_for_good() -> None:
    status, evaluator_ok, processed = _ingest_and_wait(_BuggyJudge())
    assert status == 503
    assert evaluator_ok is False
    assert processed == 1  # only the second, working batch was recorded


def test_judge_runtime_error_is_an_unscored_record_not_a_bug() -> None:
    status, evaluator_ok, processed = _ingest_and_wait(_BrokenRuntimeJudge())
    assert status == 200
    assert evaluator_ok is True
    assert processed == 2
