"""Keeps trace text (question, answer, passages, claims) out of log records, at every level.

Usage::

    install_log_guard(settings.redaction.mode)   # Runtime.build does this
    with trace_texts(traces):                    # the evaluator and judge threads do this
        judge.judge_batch(traces)

While traces are being judged their texts are registered here. Every log record created in the
process (any logger, any level, any handler: the guard wraps the log record factory) is checked:
a string argument, an argument whose ``str()`` holds trace text, or a message without
arguments that contains a piece of a registered text (whole, or 24 characters of it) is
replaced by ``[trace text]``. Ids, counts and reasons pass. With redaction mode ``off`` the
guard lets everything through (the operator chose to see text).

The check only runs for records that a logger level lets through, so it costs nothing at INFO
when a judge logs sentences at DEBUG.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

__all__ = ["PLACEHOLDER", "contains_trace_text", "install_log_guard", "trace_texts"]

PLACEHOLDER = "[trace text]"
_MIN_CHARS = 8  # shorter texts ("yes", "Paris") are too common to be told from code's own words
_WINDOW = 24
_STEP = 12

_lock = threading.Lock()
_texts: Counter[str] = Counter()
_state: dict[str, Any] = {"mode": None, "factory": None}


class _TextTrace(Protocol):
    question: str
    answer: str | None

    def context_texts(self) -> list[str]: ...


def _texts_of(trace: _TextTrace) -> list[str]:
    texts = [trace.question, trace.answer or "", *trace.context_texts()]
    return [t for t in texts if len(t.strip()) >= _MIN_CHARS]


@contextmanager
def trace_texts(traces: Iterable[_TextTrace]) -> Iterator[None]:
    """Register the traces' texts for the duration of the block (nesting is fine)."""
    texts = [t for trace in traces for t in _texts_of(trace)]
    with _lock:
        _texts.update(texts)
    try:
        yield
    finally:
        with _lock:
            _texts.subtract(texts)
            for text in texts:
                if _texts[text] <= 0:
                    del _texts[text]


def contains_trace_text(value: str) -> bool:
    """True when ``value`` is, holds, or is a piece of a text being judged."""
    if len(value.strip()) < _MIN_CHARS:
        return False
    with _lock:
        texts = list(_texts)
    if not texts:
        return False
    for text in texts:
        if value in text or text in value:
            return True
    # A piece of a text inside a longer message: any 36+ characters of it contain one window.
    windows = {value[i : i + _WINDOW] for i in range(0, max(1, len(value) - _WINDOW + 1), _STEP)}
    windows = {w for w in windows if len(w) == _WINDOW}
    return any(w in text for text in texts for w in windows)


def _scrub(record: logging.LogRecord) -> None:
    if _state["mode"] in (None, "off") or not _texts:
        return
    args = record.args
    if isinstance(args, tuple) and args:
        record.args = tuple(_scrub_arg(a) for a in args)
    elif isinstance(args, dict) and args:
        record.args = {k: _scrub_arg(v) for k, v in args.items()}
    elif isinstance(record.msg, str) and contains_trace_text(record.msg):
        record.msg = PLACEHOLDER
    error = record.exc_info[1] if record.exc_info else None
    if error is not None and contains_trace_text(str(error)):
        # Keep the exception's type (what failed), not its message (what it said).
        record.exc_text = f"{type(error).__name__}: {PLACEHOLDER}"
        record.exc_info = None


def _scrub_arg(arg: Any) -> Any:
    if isinstance(arg, int | float | bool) or arg is None:
        return arg
    try:
        text = arg if isinstance(arg, str) else str(arg)
    except Exception:
        return arg
    return PLACEHOLDER if contains_trace_text(text) else arg


def install_log_guard(mode: str) -> None:
    """Install (once) or re-configure the guard for a redaction mode (``off`` disables it)."""
    _state["mode"] = mode
    if _state["factory"] is not None:
        return
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        _scrub(record)
        return record

    _state["factory"] = factory
    logging.setLogRecordFactory(factory)
