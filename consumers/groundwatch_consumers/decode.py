"""A faster decoder with exactly the contract's verdicts.

Usage::

    trace = decode_fast(raw, limits)      # raises TraceDecodeError like decode_trace

Valid traces (the common case) are parsed and validated in one pass by pydantic-core
(``RagTrace.model_validate_json``), about a third cheaper than ``json.loads`` followed by
``model_validate``. Anything that fails the fast path is decoded again by
:func:`groundwatch.contract.trace.decode_trace`, so every rejection has the same reason and detail on
every ingest path (UTF-8, JSON, schema, oversize).
"""

from __future__ import annotations

from pydantic import ValidationError

from groundwatch.contract.trace import RagTrace, TraceLimits, check_limits, decode_trace

__all__ = ["decode_fast"]


def decode_fast(raw: bytes, limits: TraceLimits) -> RagTrace:
    if len(raw) <= limits.max_bytes:
        try:
            trace = RagTrace.model_validate_json(raw)
        except (ValidationError, ValueError, RecursionError):
            pass  # classify the failure exactly as the contract does (decode_trace is total)
        else:
            check_limits(trace, limits)
            return trace
    return decode_trace(raw, limits)
