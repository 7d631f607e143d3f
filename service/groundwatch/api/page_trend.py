"""The findings page's trend: contradicted claims per scored trace over the last day, in
buckets, read from the window store.

Usage::

    points = trend_points(reader, settings.windows, ("tenant", "acme"))
    html = trend_svg(points)

The span is the exported ``24h`` window (a day; the demo's compressed clock makes it shorter),
cut into up to 24 equal buckets, never finer than the store's own buckets. A bucket with no
scored trace has no point (a gap in the line), never a zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from groundwatch.sections.windows import WindowSettings
from groundwatch.state.bucket_reader import WindowReader
from groundwatch.state.buckets import SliceId

__all__ = ["TrendPoint", "trend_points", "trend_svg"]

_BUCKETS = 24
_DAY_S = 86_400.0


@dataclass(frozen=True)
class TrendPoint:
    """One bucket ``(start, end]`` (unix s): contradicted claims per scored trace, or None."""

    start: float
    end: float
    scored: float
    contradicted: float

    @property
    def per_trace(self) -> float | None:
        return self.contradicted / self.scored if self.scored else None


def trend_points(
    reader: WindowReader, windows: WindowSettings, slice_id: SliceId, now: float | None = None
) -> list[TrendPoint]:
    """Buckets over the ``24h`` window ending ``now`` (the store's clock) for ``slice_id``."""
    end = reader.now() if now is None else now
    span = float(windows.export_windows_s.get("24h", _DAY_S))
    n = max(1, min(_BUCKETS, int(span // max(1, windows.bucket_s))))
    step = span / n
    ranges = [(end - span + i * step, end - span + (i + 1) * step) for i in range(n)]
    points = []
    for (lo, hi), by_slice in zip(ranges, reader.summaries_many(ranges), strict=True):
        summary = by_slice.get(slice_id)
        scored = summary.count("scored") if summary else 0.0
        contradicted = summary.count("contradicted") if summary else 0.0
        points.append(TrendPoint(lo, hi, scored, contradicted))
    return points


def _ago(seconds: float) -> str:
    if seconds >= 3600:
        return f"-{seconds / 3600:.0f}h"
    if seconds >= 60:
        return f"-{seconds / 60:.0f}m"
    return f"-{seconds:.0f}s"


def trend_svg(points: list[TrendPoint], label: str = "all traces") -> str:
    """A 480x140 inline SVG (no CDN): contradicted claims per scored trace per bucket, oldest
    left, the axis scaled to the largest value; each point's title gives its bucket, value and
    traces."""
    if not points:
        return ""
    width, height, pad = 480, 140, 30
    values = [p.per_trace for p in points]
    top = max([v for v in values if v is not None] + [0.0]) or 1.0
    step = (width - 2 * pad) / max(1, len(points) - 1)
    end = points[-1].end

    def y(v: float) -> float:
        return height - pad - v / top * (height - 2 * pad)

    parts = [
        f"<svg id='trend' role='img' viewBox='0 0 {width} {height}' width='{width}' "
        f"height='{height}' aria-label='contradicted claims per trace over time, {escape(label)}'>",
        f"<line x1='{pad}' y1='{height - pad}' x2='{width - pad}' y2='{height - pad}' "
        "class='axis'/>",
        f"<text x='2' y='{pad + 4}' class='tick'>{top:.2g}</text>",
        f"<text x='2' y='{height - pad + 4}' class='tick'>0</text>",
    ]
    coords = [(pad + i * step, y(v)) for i, v in enumerate(values) if v is not None]
    if coords:
        line = " ".join(f"{x:.1f},{yy:.1f}" for x, yy in coords)
        parts.append(f"<polyline class='contra' points='{line}'/>")
    for i, p in enumerate(points):
        if p.per_trace is None:
            continue
        title = (
            f"{_ago(end - p.start)} to {_ago(end - p.end) if end > p.end else 'now'}: "
            f"{p.per_trace:.2f} contradicted claims per trace ({p.scored:.0f} scored)"
        )
        parts.append(
            f"<circle class='contra point' cx='{pad + i * step:.1f}' cy='{y(p.per_trace):.1f}' "
            f"r='3' data-value='{p.per_trace:.4f}'><title>{escape(title)}</title></circle>"
        )
    for i in (0, len(points) // 2):
        parts.append(
            f"<text x='{pad + i * step:.1f}' y='{height - 8}' class='tick' "
            f"text-anchor='middle'>{_ago(end - points[i].start)}</text>"
        )
    parts.append(
        f"<text x='{width - pad:.1f}' y='{height - 8}' class='tick' text-anchor='middle'>now</text>"
    )
    parts.append("</svg>")
    return "".join(parts)
