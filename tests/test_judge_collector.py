"""Remote judges' token, cost and request accounting reaches /metrics."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, generate_latest

from groundwatch.judges.remote.openai import JudgeUsage
from groundwatch.observability.judge_collector import JudgeUsageCollector
from tests.fakes import FakeJudge


class _MeteredJudge(FakeJudge):
    @property
    def backend(self) -> str:
        return "openai"

    @property
    def usage(self) -> JudgeUsage:
        return JudgeUsage(
            input_tokens=1200, output_tokens=300, cost_usd=0.25, requests=7, retries=2
        )


def test_usage_is_exported_per_backend() -> None:
    registry = CollectorRegistry()
    registry.register(JudgeUsageCollector(_MeteredJudge()))
    text = generate_latest(registry).decode()
    assert 'groundwatch_judge_input_tokens_total{backend="openai"} 1200.0' in text
    assert 'groundwatch_judge_cost_usd_total{backend="openai"} 0.25' in text
    assert 'groundwatch_judge_retries_total{backend="openai"} 2.0' in text


def test_a_judge_without_accounting_exports_nothing() -> None:
    registry = CollectorRegistry()
    registry.register(JudgeUsageCollector(FakeJudge()))
    assert "groundwatch_judge_" not in generate_latest(registry).decode()
