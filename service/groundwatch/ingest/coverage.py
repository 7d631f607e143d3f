"""How completely each instrumentation library's traces were read: counted, never silent.

Every OTLP trace the assembler finishes is recorded once, by the library that made it
(``source_library``, one of :data:`~groundwatch.ingest.conventions.LIBRARIES`) and by what could
not be read from it (``missing``: ``question``, ``passages``, ``answer``):

* ``groundwatch_otlp_traces_read_total{source_library, completeness}`` with ``completeness`` one of
  ``complete`` (question, passages and answer), ``half_read`` (a RagTrace, something missing) and
  ``dropped`` (no RagTrace at all: no question, not RAG, refused by the contract);
* ``groundwatch_otlp_traces_missing_total{source_library, missing}``, once per missing part.

:meth:`IngestCoverage.view` is the ``GET /v1/ingest/coverage`` body: per library, the traces seen,
the share read completely, and what was missing how often.

Usage::

    coverage = IngestCoverage(registry)
    coverage.record("openllmetry", missing=("passages",), dropped=False)
    coverage.view()   # {"libraries": {"openllmetry": {"traces": 1, "complete_share": 0.0, ...}}}
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from prometheus_client import CollectorRegistry, Counter

from groundwatch.ingest.conventions import LIBRARIES

__all__ = ["MISSING_PARTS", "Completeness", "IngestCoverage"]

MISSING_PARTS = ("question", "passages", "answer")
Completeness = Literal["complete", "half_read", "dropped"]


@dataclass
class _Tally:
    complete: int = 0
    half_read: int = 0
    dropped: int = 0
    missing: dict[str, int] = field(default_factory=dict)


class IngestCoverage:
    """Per-library completeness of OTLP traces (module docstring). Thread-safe."""

    def __init__(self, registry: CollectorRegistry | None = None):
        registry = registry if registry is not None else CollectorRegistry()
        self._lock = threading.Lock()
        self._tallies: dict[str, _Tally] = {}
        self.read = Counter(
            "groundwatch_otlp_traces_read",
            "OTLP traces finished by the assembler, by instrumentation library and completeness "
            "(complete, half_read, dropped).",
            ["source_library", "completeness"],
            registry=registry,
        )
        self.missing = Counter(
            "groundwatch_otlp_traces_missing",
            "OTLP traces from which a part could not be read, by instrumentation library and "
            "part (question, passages, answer).",
            ["source_library", "missing"],
            registry=registry,
        )

    def record(self, library: str, *, missing: Iterable[str], dropped: bool) -> Completeness:
        """Count one finished trace; returns its completeness."""
        library = library if library in LIBRARIES else "unknown"
        parts = [part for part in MISSING_PARTS if part in set(missing)]
        completeness: Completeness = (
            "dropped" if dropped else ("half_read" if parts else "complete")
        )
        with self._lock:
            tally = self._tallies.setdefault(library, _Tally())
            setattr(tally, completeness, getattr(tally, completeness) + 1)
            for part in parts:
                tally.missing[part] = tally.missing.get(part, 0) + 1
        self.read.labels(source_library=library, completeness=completeness).inc()
        for part in parts:
            self.missing.labels(source_library=library, missing=part).inc()
        return completeness

    def view(self) -> dict[str, Any]:
        """Per library seen: traces, complete / half_read / dropped, complete_share, missing."""
        with self._lock:
            libraries: dict[str, Any] = {}
            for name, tally in sorted(self._tallies.items()):
                total = tally.complete + tally.half_read + tally.dropped
                libraries[name] = {
                    "traces": total,
                    "complete": tally.complete,
                    "half_read": tally.half_read,
                    "dropped": tally.dropped,
                    "complete_share": round(tally.complete / total, 4) if total else None,
                    "missing": dict(sorted(tally.missing.items())),
                }
        return {"libraries": libraries}
