"""Pin, show and clear the drift baseline (``groundwatch baseline pin|show|clear``).

Usage::

    baseline = pin_baseline(store, windows)     # freeze the current reference (now = store clock)
    show_baseline(store)                         # dict for printing, or None
    clear_baseline(store)                        # True when one was removed

Pinning copies the *current rolling reference* (``reference_window_s`` ending where the current
window starts) into the store, so every replica sees it. With ``windows.reference = "pinned"``
drift is measured against it; while none is pinned, the rolling reference is used.
A pinned baseline does not expire and does not follow judge changes: re-pin after a new
``metric_version`` (``show`` prints the version it was pinned under).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from groundwatch.sections.windows import WindowSettings
from groundwatch.state.bucket_reader import WindowReader, as_reader
from groundwatch.state.buckets import ALL, SCORE_METRICS, Baseline
from groundwatch.state.stores import WindowStore

__all__ = ["BaselineError", "clear_baseline", "pin_baseline", "show_baseline"]


class BaselineError(RuntimeError):
    """The baseline cannot be pinned (e.g. too few samples). Not retriable."""

    retriable = False


def pin_baseline(
    store: WindowStore | WindowReader,
    windows: WindowSettings,
    now: float | None = None,
    *,
    metric_version: str | None = None,
    require_min_samples: bool = True,
) -> Baseline:
    """Freeze the rolling reference ending at ``now - current_window_s`` as the baseline.

    Raises :class:`BaselineError` when the total has fewer than ``min_samples`` scored traces
    (unless ``require_min_samples`` is False), and ``StoreUnavailableError`` when the store is
    unreachable."""
    reader = as_reader(store)
    now = reader.now() if now is None else now
    ws = windows
    end = now - ws.current_window_s
    start = end - ws.reference_window_s
    slices = reader.summaries(start, end)
    scored = slices[ALL].count("scored") if ALL in slices else 0.0
    if require_min_samples and scored < ws.min_samples:
        raise BaselineError(
            f"reference window has {scored:.0f} scored traces, fewer than "
            f"windows.min_samples={ws.min_samples}; nothing pinned"
        )
    baseline = Baseline(
        pinned_at=now, start=start, end=end, metric_version=metric_version, slices=slices
    )
    reader.save_baseline(baseline)
    return baseline


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def show_baseline(store: WindowStore | WindowReader) -> dict[str, Any] | None:
    """A printable description of the pinned baseline, or None when none is pinned."""
    baseline = as_reader(store).load_baseline()
    if baseline is None:
        return None
    total = baseline.slices.get(ALL)
    return {
        "pinned_at": _iso(baseline.pinned_at),
        "reference_start": _iso(baseline.start),
        "reference_end": _iso(baseline.end),
        "metric_version": baseline.metric_version,
        "slices": len(baseline.slices),
        "traces_received": total.count("received") if total else 0.0,
        "traces_scored": total.count("scored") if total else 0.0,
        "means": {m: total.mean(m) if total else None for m in SCORE_METRICS},
    }


def clear_baseline(store: WindowStore | WindowReader) -> bool:
    """Remove the pinned baseline; drift falls back to the rolling reference."""
    return as_reader(store).delete_baseline()
