"""Deterministic sampling on trace_id, so replicas and replays agree on which traces are scored.

Usage::

    sampler = Sampler(settings.sampling)
    if sampler.should_sample(trace): ...
"""

from __future__ import annotations

import hashlib

from groundwatch.contract.trace import RagTrace
from groundwatch.sections.pipeline import SamplingSettings

__all__ = ["Sampler", "sample_point"]

_SCALE = float(1 << 64)


def sample_point(trace_id: str) -> float:
    """A stable point in [0, 1) for a trace id (blake2b, independent of Python's hash seed)."""
    digest = hashlib.blake2b(trace_id.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big") / _SCALE


class Sampler:
    """Rate per trace, with per-slice overrides keyed ``"attribute=value"`` (first match wins,
    in the order given)."""

    def __init__(self, settings: SamplingSettings):
        self.rate = settings.rate
        self._overrides: list[tuple[str, str, float]] = []
        for spec, rate in settings.overrides.items():
            key, sep, value = spec.partition("=")
            if not sep:
                raise ValueError(f"sampling override {spec!r} must look like 'key=value'")
            self._overrides.append((key.strip(), value.strip(), min(1.0, max(0.0, rate))))

    def rate_for(self, trace: RagTrace) -> float:
        for key, value, rate in self._overrides:
            if trace.attributes.get(key) == value:
                return rate
        return self.rate

    def should_sample(self, trace: RagTrace) -> bool:
        rate = self.rate_for(trace)
        if rate >= 1.0:
            return True
        if rate <= 0.0:
            return False
        return sample_point(trace.trace_id) < rate
