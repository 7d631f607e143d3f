"""The regression gate: rules that fail a release only when a regression is significant.

Usage::

    rules = [parse_rule("vital_nugget_recall,faithfulness@intent=billing")]
    result = check_gate(comparison, rules)
    sys.exit(result.exit_code)      # 0 pass, 1 a rule regressed, 2 a rule names nothing compared

Rule syntax: ``METRIC[,METRIC...][@KEY=VALUE]``. Without ``@`` the rule applies to all cases;
``@KEY=*`` applies it to every value of the slice key. A rule *fails* when the paired interval
of the delta lies entirely on the bad side of zero (below for higher-is-better metrics, above
for ``compare.LOWER_IS_BETTER``): a drop the interval cannot tell from noise passes. A rule
naming a metric or slice that the comparison does not hold is an error (exit 2), so a typo can
never make the gate pass silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from groundwatch.suite.compare import Comparison, MetricRow

__all__ = ["GateCheck", "GateResult", "GateRule", "GateRuleError", "check_gate", "parse_rule"]


class GateRuleError(ValueError):
    """A rule that cannot be parsed. Not retriable."""

    retriable = False


@dataclass(frozen=True)
class GateRule:
    metrics: tuple[str, ...]
    slice_key: str | None = None
    slice_value: str | None = None  # "*" = every value

    def __str__(self) -> str:
        where = f"@{self.slice_key}={self.slice_value}" if self.slice_key else ""
        return ",".join(self.metrics) + where


def parse_rule(text: str) -> GateRule:
    spec, at, where = text.strip().partition("@")
    metrics = tuple(m.strip() for m in spec.split(",") if m.strip())
    if not metrics:
        raise GateRuleError(f"gate rule {text!r} names no metric")
    if not at:
        return GateRule(metrics)
    key, eq, value = where.partition("=")
    if not eq or not key.strip() or not value.strip():
        raise GateRuleError(f"gate rule {text!r}: the slice must look like @key=value")
    return GateRule(metrics, key.strip(), value.strip())


@dataclass(frozen=True)
class GateCheck:
    rule: str
    row: MetricRow | None
    outcome: Literal["pass", "fail", "missing"]
    detail: str


@dataclass
class GateResult:
    checks: list[GateCheck] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        if any(c.outcome == "missing" for c in self.checks):
            return 2
        return 1 if any(c.outcome == "fail" for c in self.checks) else 0


def _slices(comparison: Comparison, rule: GateRule) -> list[str]:
    if rule.slice_key is None:
        return ["all"]
    if rule.slice_value == "*":
        prefix = f"{rule.slice_key}="
        return [s for s in comparison.slices() if s.startswith(prefix)] or [f"{prefix}*"]
    return [f"{rule.slice_key}={rule.slice_value}"]


def check_gate(comparison: Comparison, rules: Sequence[GateRule]) -> GateResult:
    result = GateResult()
    for rule in rules:
        for slice_ in _slices(comparison, rule):
            for metric in rule.metrics:
                row = comparison.row(metric, slice_)
                label = f"{metric}@{slice_}"
                if row is None or row.lo is None or row.hi is None:
                    result.checks.append(
                        GateCheck(label, row, "missing", "not in both runs (check the names)")
                    )
                    continue
                ci = f"Δ {row.delta:+.3f} [{row.lo:+.3f}, {row.hi:+.3f}] n={row.n}"
                if row.regressed:
                    result.checks.append(GateCheck(label, row, "fail", f"regressed: {ci}"))
                else:
                    result.checks.append(GateCheck(label, row, "pass", ci))
    return result
