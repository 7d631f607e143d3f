"""Fair judging (issue 36, item 5): an abandoned /v1/evaluate gives its judge slot back, the
synchronous endpoint takes at most a configured share of the slots, and a pipeline trace that
timed out is judged again rather than lost as a duplicate."""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx
import pytest

from groundwatch.judges.cancellation import raise_if_cancelled
from tests.builders import build_settings
from tests.fakes import FakeJudge, make_trace
from tests.test_hostile_http import AUTH, BASE, real_server


class _CooperativeSlow(FakeJudge):
    """Takes ``slow_s`` on a batch holding a trace whose id starts "slow", checking for
    cancellation between steps as the real judges do between model calls."""

    def __init__(self, slow_s: float) -> None:
        super().__init__()
        self.slow_s = slow_s
        self.running = 0
        self.peak = 0
        self._lock = threading.Lock()

    def judge_batch(self, traces: Any) -> Any:
        with self._lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
        try:
            if any(t.trace_id.startswith("slow") for t in traces):
                end = time.monotonic() + self.slow_s
                while time.monotonic() < end:
                    raise_if_cancelled()
                    time.sleep(0.02)
            return super().judge_batch(traces)
        finally:
            with self._lock:
                self.running -= 1


def _evaluated(runtime: Any, status: str) -> float:
    value = runtime.registry.get_sample_value(
        "groundwatch_traces_evaluated_total", {"status": status}
    )
    return value or 0.0


def _hang_up(port: int, trace_id: str) -> None:
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(
            f"http://127.0.0.1:{port}/v1/evaluate",
            json=make_trace(trace_id),
            headers=AUTH,
            timeout=httpx.Timeout(10, read=0.5),
        )


def test_abandoned_evaluations_give_their_judge_slots_back() -> None:
    settings = build_settings(BASE, judge={"timeout_s": 3.0}, api={"evaluate_max_share": 1.0})
    judge = _CooperativeSlow(slow_s=30)
    with real_server(settings, judge=judge) as (port, runtime):
        for i in range(3):  # as many as the judge has slots, each one hung up at once
            _hang_up(port, f"slow-gone-{i}")
        time.sleep(1.0)
        assert judge.running == 0, "abandoned judge calls still hold their slots"
        pipeline = [make_trace("normal-after")]
        url = f"http://127.0.0.1:{port}/v1/rag-traces"
        assert httpx.post(url, json=pipeline, headers=AUTH).status_code == 202
        assert runtime.queue.join(20)
        assert _evaluated(runtime, "scored") == 1  # was: unscored, reason timeout


def test_evaluate_takes_at_most_its_share_of_judge_slots() -> None:
    settings = build_settings(BASE, judge={"timeout_s": 30.0}, api={"evaluate_max_share": 0.34})
    judge = _CooperativeSlow(slow_s=3)
    with real_server(settings, judge=judge) as (port, _):
        url = f"http://127.0.0.1:{port}/v1/evaluate"
        codes: list[int] = []

        def call(i: int) -> None:
            r = httpx.post(url, json=make_trace(f"slow-{i}"), headers=AUTH, timeout=30)
            codes.append(r.status_code)

        first = threading.Thread(target=call, args=(0,))
        first.start()
        time.sleep(0.5)
        second = httpx.post(url, json=make_trace("slow-x"), headers=AUTH, timeout=30)
        assert second.status_code == 429, second.text
        assert second.headers.get("retry-after")
        assert second.json()["error"] == "evaluate_busy"
        first.join(30)
        assert codes == [200]
        assert judge.peak == 1


class _SlowOnce(FakeJudge):
    """Slow the first time it sees a trace id starting "flaky", fast afterwards."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[str] = set()

    def judge_batch(self, traces: Any) -> Any:
        fresh = [t.trace_id for t in traces if t.trace_id not in self.seen]
        self.seen.update(fresh)
        if any(t.startswith("flaky") for t in fresh):
            end = time.monotonic() + 20
            while time.monotonic() < end:
                raise_if_cancelled()
                time.sleep(0.02)
        return super().judge_batch(traces)


def test_a_pipeline_trace_that_timed_out_is_judged_again() -> None:
    settings = build_settings(BASE, judge={"timeout_s": 1.0})
    with real_server(settings, judge=_SlowOnce()) as (port, runtime):
        url = f"http://127.0.0.1:{port}/v1/rag-traces"
        response = httpx.post(url, json=[make_trace("flaky-1")], headers=AUTH)
        assert response.status_code == 202
        deadline = time.monotonic() + 20
        while _evaluated(runtime, "scored") < 1 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _evaluated(runtime, "scored") == 1
        assert _evaluated(runtime, "unscored") == 0
        retried = runtime.registry.get_sample_value("groundwatch_judge_retries_total")
        assert retried == 1
