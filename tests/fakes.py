"""Deterministic test doubles shared by the test suite.

Usage::

    from tests.fakes import FakeJudge, make_trace
    runtime = Runtime.build(settings, judge=FakeJudge())
    judge = FakeJudge(verdict_fn=lambda claim, trace: "contradicted")
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from groundwatch.contract.record import Evidence, Verdict
from groundwatch.contract.trace import RagTrace
from groundwatch.judges.base import ClaimJudgement, JudgeError, TraceJudgement
from tests.builders import build_trace

__all__ = ["FakeJudge", "ReasonFn", "VerdictFn", "make_trace"]

VerdictFn = Callable[[str, RagTrace], Verdict]
ReasonFn = Callable[[str, Verdict], str | None]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


class FakeJudge:
    """A judge with no model: one claim per answer sentence, ``supported`` unless
    ``verdict_fn(claim, trace)`` says otherwise; relevance 0.9 for every passage; never a
    refusal; version ``fake/1``. A claim's evidence is the first passage (when there is one);
    its reason is ``reason_fn(claim, verdict)`` (default ``"fake: <verdict>"``).

    Usage::

        judge = FakeJudge()                                             # all supported
        judge = FakeJudge(verdict_fn=lambda c, t: "contradicted")       # all contradicted
        judge.calls                                                     # traces judged so far
    """

    relevance = 0.9
    threshold = 0.5

    def __init__(
        self,
        verdict_fn: VerdictFn | None = None,
        *,
        fail: bool = False,
        delay_s: float = 0.0,
        reason_fn: ReasonFn | None = None,
    ):
        self._verdict_fn = verdict_fn
        self._reason_fn = reason_fn
        self._fail = fail
        self._delay_s = delay_s
        self._loaded = False
        self._lock = threading.Lock()
        self.calls = 0

    @property
    def version(self) -> str:
        return "fake/1"

    @property
    def backend(self) -> str:
        return "fake"

    def load(self) -> None:
        self._loaded = True

    def ready(self) -> bool:
        return self._loaded

    def close(self) -> None:
        self._loaded = False

    def judge_batch(self, traces: Sequence[RagTrace]) -> list[TraceJudgement | JudgeError]:
        with self._lock:
            self.calls += len(traces)
        if self._delay_s:
            time.sleep(self._delay_s)
        if self._fail:
            return [JudgeError("judge_error", "fake failure") for _ in traces]
        return [self._judge(trace) for trace in traces]

    def _judge(self, trace: RagTrace) -> TraceJudgement:
        answer = (trace.answer or "").strip()
        sentences = [s for s in _SENTENCE_END.split(answer) if s.strip()] if answer else []
        evidence = (
            Evidence(context_index=0, context_id=trace.contexts[0].id, text=trace.contexts[0].text)
            if trace.contexts
            else None
        )
        claims = []
        for sentence in sentences:
            verdict: Verdict = (
                self._verdict_fn(sentence, trace) if self._verdict_fn else "supported"
            )
            claims.append(
                ClaimJudgement(
                    text=sentence,
                    verdict=verdict,
                    score=0.9,
                    evidence=evidence if verdict != "not_found" else None,
                    reason=(
                        self._reason_fn(sentence, verdict)
                        if self._reason_fn
                        else f"fake: {verdict}"
                    ),
                )
            )
        return TraceJudgement(
            claims=claims,
            context_relevance=[self.relevance] * len(trace.contexts),
            relevance_threshold=self.threshold,
            answer_relevance=0.9 if answer else None,
            refusal=False,
            context_tokens=sum(len(c.text.split()) for c in trace.contexts),
        )


def make_trace(trace_id: str = "t-1", **overrides: Any) -> dict[str, Any]:
    """A valid trace (contract v1) as a JSON-ready dict (the suite's one trace builder)."""
    return build_trace(trace_id, **overrides)
