"""One settings factory and one trace builder for the whole suite (issue 16).

Usage::

    from tests.builders import build_settings, build_trace, build_rag_trace
    settings = build_settings(api={"tokens": ["t" * 24]}, redaction={"mode": "mask"})
    trace = build_trace("t-1", answer="...")              # JSON-ready dict (contract v1)
    rag = build_rag_trace("t-2", ts=1.7e9)                # validated RagTrace

Tests that prefer fixtures ask for ``settings_factory`` / ``trace_factory`` /
``rag_trace_factory`` (tests/conftest.py), which return these functions.
"""

from __future__ import annotations

from typing import Any

from groundwatch.contract.trace import RagTrace
from groundwatch.settings import Settings

__all__ = [
    "BASE_SETTINGS",
    "DRIFT_WINDOWS",
    "build_rag_trace",
    "build_settings",
    "build_trace",
    "merge",
]

# In-memory state and no redaction: a test that needs Redis, Kafka or PII masking says so.
BASE_SETTINGS: dict[str, Any] = {"state": "memory", "redaction": {"mode": "off"}}


# Window layout of the drift tests: 10 s buckets, a 5-minute current window against a 30-minute
# reference, 20 samples minimum; no read cache, because those tests write into old buckets
# between reads. ``build_settings(windows=DRIFT_WINDOWS)``, with overrides merged on top.
DRIFT_WINDOWS: dict[str, Any] = {
    "bucket_s": 10,
    "rollup_s": 100,
    "fine_retention_s": 3600,
    "retention_s": 7200,
    "min_samples": 20,
    "current_window_s": 300,
    "reference_window_s": 1800,
    "export_windows_s": {"5m": 300, "1h": 3600},
    "slice_keys": ["tenant"],
    "read_cache_s": 0,
}


def merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """``base`` updated with ``overrides``, nested dicts merged key by key (not replaced)."""
    out = dict(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def build_settings(base: dict[str, Any] | None = None, **overrides: Any) -> Settings:
    """Settings from :data:`BASE_SETTINGS` (or ``base``) with nested ``overrides`` merged in;
    validated like the environment would be, so a bad override fails the test."""
    return Settings.model_validate(merge(BASE_SETTINGS if base is None else base, overrides))


def build_trace(trace_id: str = "t-1", **overrides: Any) -> dict[str, Any]:
    """A valid trace (contract v1) as a JSON-ready dict; ``overrides`` replace top-level fields."""
    trace: dict[str, Any] = {
        "trace_id": trace_id,
        "question": "When does the discount apply?",
        "contexts": [
            {"id": "p1", "text": "The discount applies from renewal.", "score": 0.8},
            "Renewals happen yearly.",
        ],
        "answer": "The discount applies from renewal.",
        "attributes": {"tenant": "acme"},
    }
    trace.update(overrides)
    return trace


def build_rag_trace(trace_id: str = "t-1", **overrides: Any) -> RagTrace:
    """:func:`build_trace` validated into a :class:`RagTrace`."""
    return RagTrace.model_validate(build_trace(trace_id, **overrides))
