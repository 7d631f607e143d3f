"""Time and size bounds around any judge: a deadline per call, a size budget per trace, and
cancellation when the caller stops waiting (HTTP client gone, shutdown).

Usage::

    guarded = GuardedJudge(judge, timeout_s=60, max_chars=200_000, over_budget="truncate",
                           registry=registry)
    evaluator = Evaluator(guarded)          # records "unscored", reason "timeout", past the deadline
    with guarded.cancel_on(event):          # this thread's calls give up when event is set
        evaluator.evaluate_batch(traces)

The judge runs in its own thread; the caller waits at most ``timeout_s`` (or until the cancel
event is set) and gets :class:`~groundwatch.judges.base.JudgeError` ``("timeout")`` for each
trace of a call that did not finish. Python cannot stop a thread from outside, so the call is
told to stop (``judges.cancellation``: the embedder and verifier check before each model call)
and gives its slot back within one model call; a judge that never checks runs to its end in
the background, bounded by the size budget, and at most ``max_abandoned`` abandoned calls may
run at once (a further call waits for a slot within its own deadline, else it times out too),
so CPU and threads stay bounded. The pipeline worker that called is free again at the deadline.

``slots`` is the number of judge calls that may run at once; :meth:`GuardedJudge.cancel_on`
events come from the caller (HTTP client gone, shutdown).

The size budget applies before judging: a trace whose question, answer and passages together
exceed ``max_chars`` has its passages cut (``truncate``: passages kept in order until the budget,
the next one cut, the rest dropped) or is not judged (``reject``: unscored, reason
``over_budget``). Both are counted in ``groundwatch_judge_budget_total{action}``.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Literal

from prometheus_client import CollectorRegistry, Counter

from groundwatch.contract.trace import RagTrace
from groundwatch.judges.base import Judge, JudgeError, TraceJudgement
from groundwatch.judges.cancellation import cancellable
from groundwatch.observability.log_guard import trace_texts

__all__ = ["GuardedJudge", "OverBudget", "apply_budget"]

OverBudget = Literal["truncate", "reject"]
_Result = list[TraceJudgement | JudgeError]


def apply_budget(trace: RagTrace, max_chars: int) -> RagTrace | None:
    """``trace`` with its passages cut to fit ``max_chars`` (question + answer + passages), the
    same trace when it fits, or None when even question and answer do not fit."""
    fixed = len(trace.question) + len(trace.answer or "")
    total = fixed + sum(len(c.text) for c in trace.contexts)
    if total <= max_chars:
        return trace
    room = max_chars - fixed
    if room < 0:
        return None
    kept = []
    for passage in trace.contexts:
        if room <= 0:
            break
        cut = passage
        if len(passage.text) > room:
            cut = passage.model_copy(update={"text": passage.text[:room]})
        kept.append(cut)
        room -= len(cut.text)
    return trace.model_copy(update={"contexts": kept})


class _Call:
    """One judge call running in its own thread."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.abandoned = threading.Event()  # set when the caller gives up: the call stops
        self.result: _Result | None = None
        self.error: BaseException | None = None


class GuardedJudge:
    """A :class:`~groundwatch.judges.base.Judge` that bounds the time and size of another."""

    def __init__(
        self,
        inner: Judge,
        *,
        timeout_s: float,
        max_chars: int = 0,
        over_budget: OverBudget = "truncate",
        max_abandoned: int = 2,
        registry: CollectorRegistry | None = None,
    ):
        self.inner = inner
        self.timeout_s = float(timeout_s)
        self.max_chars = int(max_chars)
        self.over_budget: OverBudget = over_budget
        self.slots = max(1, max_abandoned) + 1
        self._slots = threading.BoundedSemaphore(self.slots)
        self._local = threading.local()
        self.timeouts = 0
        self._budget = Counter(
            "groundwatch_judge_budget",
            "Traces over the judge's size budget (GROUNDWATCH_JUDGE__MAX_CHARS), by action "
            "(truncated: passages cut before judging; rejected: unscored, reason over_budget).",
            ["action"],
            registry=registry,
        )
        self._timeouts = Counter(
            "groundwatch_judge_timeouts",
            "Judge calls given up at the deadline (GROUNDWATCH_JUDGE__TIMEOUT_S) or cancelled "
            "(client gone, shutdown), by cause.",
            ["cause"],
            registry=registry,
        )
        for action in ("truncated", "rejected"):
            self._budget.labels(action=action)
        for cause in ("deadline", "cancelled"):
            self._timeouts.labels(cause=cause)

    # --- Judge protocol: delegated ---

    @property
    def version(self) -> str:
        return self.inner.version

    @property
    def backend(self) -> str:
        return self.inner.backend

    def load(self) -> None:
        self.inner.load()

    def ready(self) -> bool:
        return self.inner.ready()

    def close(self) -> None:
        self.inner.close()

    # --- cancellation ---

    @contextlib.contextmanager
    def cancel_on(self, event: threading.Event) -> Iterator[None]:
        """Calls made by this thread inside the block give up as soon as ``event`` is set."""
        previous = getattr(self._local, "cancel", None)
        self._local.cancel = event
        try:
            yield
        finally:
            self._local.cancel = previous

    # --- judging ---

    def judge_batch(self, traces: Sequence[RagTrace]) -> _Result:
        results: list[TraceJudgement | JudgeError | None] = [None] * len(traces)
        todo: list[tuple[int, RagTrace]] = []
        for i, trace in enumerate(traces):
            bounded = apply_budget(trace, self.max_chars) if self.max_chars > 0 else trace
            if bounded is not trace:
                if bounded is None or self.over_budget == "reject":
                    self._budget.labels(action="rejected").inc()
                    results[i] = JudgeError("over_budget", "trace over the judge's size budget")
                    continue
                self._budget.labels(action="truncated").inc()
            todo.append((i, bounded if bounded is not None else trace))
        if todo:
            judged = self._call([t for _, t in todo])
            for (i, _), result in zip(todo, judged, strict=True):
                results[i] = result
        return [r if r is not None else JudgeError("judge_error") for r in results]

    def _call(self, traces: list[RagTrace]) -> _Result:
        cancel: threading.Event | None = getattr(self._local, "cancel", None)
        deadline = time.monotonic() + self.timeout_s if self.timeout_s > 0 else None
        if not self._acquire(deadline, cancel):
            return self._gave_up(traces, cancel)
        call = _Call()

        def run() -> None:
            try:
                # Registered here too: an abandoned call outlives the caller's registration.
                with trace_texts(traces), cancellable(call.abandoned):
                    call.result = self.inner.judge_batch(traces)
            except BaseException as exc:  # handed to the waiting caller
                call.error = exc
            finally:
                self._slots.release()
                call.done.set()

        threading.Thread(target=run, name="gw-judge", daemon=True).start()
        if not self._wait(call.done, deadline, cancel):
            call.abandoned.set()  # the judge stops at its next check and frees the slot
            return self._gave_up(traces, cancel)
        if call.error is not None:
            raise call.error
        return call.result if call.result is not None else []

    def _acquire(self, deadline: float | None, cancel: threading.Event | None) -> bool:
        while True:
            if cancel is not None and cancel.is_set():
                return False
            left = 0.05 if deadline is None else min(0.05, deadline - time.monotonic())
            if left <= 0:
                return False
            if self._slots.acquire(timeout=left):
                return True

    @staticmethod
    def _wait(
        done: threading.Event, deadline: float | None, cancel: threading.Event | None
    ) -> bool:
        while True:
            if cancel is not None and cancel.is_set():
                return False
            left = 0.05 if deadline is None else min(0.05, deadline - time.monotonic())
            if left <= 0:
                return done.is_set()
            if done.wait(left):
                return True

    def _gave_up(self, traces: list[RagTrace], cancel: threading.Event | None) -> _Result:
        cause = "cancelled" if cancel is not None and cancel.is_set() else "deadline"
        self._timeouts.labels(cause=cause).inc()
        self.timeouts += 1
        detail = f"judge gave up ({cause}) after at most {self.timeout_s:g} s"
        return [JudgeError("timeout", detail) for _ in traces]
