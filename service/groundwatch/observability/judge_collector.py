"""Exports a remote judge's request, token and cost accounting at scrape time.

Usage::

    registry.register(JudgeUsageCollector(judge))   # no-op families for judges without accounting

Reads ``judge.usage`` (openai: tokens, cost, requests, retries, failures, malformed replies) or
``judge.counters`` (tei: requests, retries, failures). Labels: ``backend`` only.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

from groundwatch.judges.base import Judge

__all__ = ["JudgeUsageCollector"]

_FIELDS = {
    "requests": "HTTP requests sent to the judge service (retries included).",
    "retries": "Retried judge requests.",
    "failures": "Judge calls that failed for good (trace left unscored).",
    "malformed": "Judge replies that could not be used (trace left unscored).",
    "input_tokens": "Prompt tokens billed by the judge service.",
    "output_tokens": "Completion tokens billed by the judge service.",
    "cost_usd": "Judge cost in US dollars, from the configured prices.",
}


class JudgeUsageCollector(Collector):
    """``groundwatch_judge_<field>_total{backend}`` for the fields the judge accounts."""

    def __init__(self, judge: Judge):
        self._judge = judge

    def _snapshot(self) -> Any:
        for attr in ("usage", "counters"):
            value = getattr(self._judge, attr, None)
            if value is not None and not callable(value):
                return value
        return None

    def collect(self) -> Iterator[CounterMetricFamily]:
        snapshot = self._snapshot()
        if snapshot is None:
            return
        backend = self._judge.backend
        for field, doc in _FIELDS.items():
            value = getattr(snapshot, field, None)
            if isinstance(value, int | float) and not isinstance(value, bool):
                family = CounterMetricFamily(f"groundwatch_judge_{field}", doc, labels=["backend"])
                family.add_metric([backend], float(value))
                yield family
