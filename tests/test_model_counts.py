"""The claim verifier counts every ONNX run it makes, and the speed benchmark sees them (issue 46,
item 4: ``benchmarks.evaluator --judge verifier`` printed 0 model calls and a 55-million-fold
overhead because neither the verifier's runs nor the judge's embeddings reached it)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from benchmarks.evaluator import (
    RecordingEmbedder,
    RecordingVerifier,
    _build_judge,
    _JudgeCache,
    _make_inner,
    _run_pass,
    _verifier_of,
)
from benchmarks.workload import make_workload
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.judges.verifier import ClaimVerifier, ModelCalls, shipped_verifier
from groundwatch.settings import Settings


class CountingSession:
    """Stands in front of an onnxruntime session and counts what really ran."""

    def __init__(self, session: Any):
        self.session = session
        self.runs = 0
        self.tokens = 0
        self._lock = threading.Lock()

    def run(self, outputs: Any, feeds: dict[str, Any]) -> Any:
        with self._lock:
            self.runs += 1
            self.tokens += int(feeds["input_ids"].size)
        return self.session.run(outputs, feeds)


@pytest.fixture(scope="module")
def own_verifier() -> ClaimVerifier:
    """A verifier of its own (two threads: the pool path and the one-pair path both run)."""
    return ClaimVerifier.shipped(threads=2)


@pytest.fixture
def counted(own_verifier: ClaimVerifier) -> Iterator[tuple[ClaimVerifier, CountingSession]]:
    real = own_verifier._session
    proxy = CountingSession(real)
    own_verifier._session = proxy
    try:
        yield own_verifier, proxy
    finally:
        own_verifier._session = real


PAIRS = [
    ("Refunds are possible within 30 days of purchase, with the receipt.", "Refunds take 30 days."),
    ("The museum opens at 9 am and closes at 5 pm on weekdays.", "It closes at 6 pm."),
    ("Shipping to Canada costs 12 dollars and takes a week.", "Shipping to Canada is free."),
]


def test_every_session_run_is_counted_on_both_paths(
    counted: tuple[ClaimVerifier, CountingSession],
) -> None:
    verifier, session = counted
    before = verifier.model_calls.snapshot()
    verifier.predict(PAIRS)  # spread over the pool
    verifier.predict(PAIRS[:1])  # one pair: run in the caller's thread
    verifier.logits(PAIRS[1:])
    verifier.predict([])  # nothing reaches the model
    got = verifier.model_calls.snapshot() - before
    assert session.runs == len(PAIRS) * 2
    assert got.runs == session.runs
    assert got.tokens == session.tokens > 0
    assert got.calls == 3
    assert got.run_s > 0
    assert got.wall_s > 0


def test_snapshots_subtract_and_do_not_share_the_lock() -> None:
    a = ModelCalls(calls=2, runs=5, tokens=300, run_s=1.5, wall_s=1.0)
    b = a.snapshot()
    assert b == a
    assert b._lock is not a._lock
    b.runs += 3
    assert (b - a).runs == 3
    assert (b - a).tokens == 0


def test_the_speed_benchmark_counts_the_verifier_judges_model_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = Settings().embedding
    inner = _make_inner(settings.runtime, settings, 1)
    recorder = RecordingEmbedder(inner)
    cache = _JudgeCache(recorder, settings.cache_size)
    judge = _build_judge("verifier", cache)
    judge.load()
    verifier = _verifier_of(judge)
    assert verifier is shipped_verifier()  # the one the verifier judge scores with
    proxy = CountingSession(verifier._session)
    monkeypatch.setattr(verifier, "_session", proxy)
    recording = RecordingVerifier(verifier)
    try:
        traces = make_workload(3, 11).traces
        p = _run_pass("t", Evaluator(judge), traces, 3, 1, cache, recorder, recording)
    finally:
        del verifier.logits  # the wrapper was the instance's own attribute
    assert p.unscored == 0
    # the judge embedded through the benchmark's recorder (it built its own before)
    assert p.calls
    assert p.misses > 0
    assert p.verifier_counted.runs == proxy.runs > 0
    assert p.verifier_counted.runs == sum(len(c) for c in p.verifier_calls)
    ran = proxy.runs
    raw = recording.raw(p.verifier_calls)  # the replay: the same pairs, three times
    assert raw["pairs"] == ran
    assert raw["tokens"] == p.verifier_counted.tokens
    assert proxy.runs == 4 * ran
    assert raw["wall_s"] > 0
