"""Cooperative cancellation of judge work: a judge call nobody waits for any more stops at its
next check instead of running to its end (Python cannot stop a thread from outside).

Usage::

    with cancellable(event):          # GuardedJudge, around the inner judge call
        judge.judge_batch(traces)
    raise_if_cancelled()              # judges and models, between model calls

:func:`raise_if_cancelled` raises :class:`JudgeCancelledError` once the event of the calling
thread's :func:`cancellable` block is set; outside such a block it does nothing. The embedder
checks before each model batch and the verifier before each pair, so an abandoned call gives
its judge slot back within one model call.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from groundwatch.judges.base import JudgeError

__all__ = ["JudgeCancelledError", "cancellable", "raise_if_cancelled"]

_local = threading.local()


class JudgeCancelledError(JudgeError):
    """The caller gave up on this judge call (deadline, client gone, shutdown)."""

    def __init__(self) -> None:
        super().__init__("timeout", "judge call cancelled: its caller gave up")


@contextlib.contextmanager
def cancellable(event: threading.Event) -> Iterator[None]:
    """Judge work done by this thread inside the block stops once ``event`` is set."""
    previous = getattr(_local, "event", None)
    _local.event = event
    try:
        yield
    finally:
        _local.event = previous


def raise_if_cancelled() -> None:
    """Raise :class:`JudgeCancelledError` when this thread's judge call was given up."""
    event: threading.Event | None = getattr(_local, "event", None)
    if event is not None and event.is_set():
        raise JudgeCancelledError
