"""What ``groundwatch demo`` concludes: a before/after table and the alert rules that would fire.

The table compares the drift reference (the healthy half of the replay) with the current window
(the bad deploy) from the same window store and drift decision the service exports: means of the
judge scores, the contradiction rates, and the drift statistics of the window report (PSI,
Wasserstein-1, q-value, decision).

Which rules would fire is decided by Prometheus itself, not re-implemented here: the demo's
``/metrics`` values at the end of the replay become ``promtool test rules`` input series, held
at their values (gauges) or growing at the replay's rate (counters), and the shipped rules
(``dashboards/alerts.yml``, unchanged) are evaluated on them every minute for an hour. An alert
reported as firing "after N min" is what a production Prometheus would do if the demo's numbers
held that long: N includes the rule's ``for:`` duration. The demo compresses time (its ``1h``
window is the last half of the replay), which is said next to the verdicts.
"""

from __future__ import annotations

import math
import re
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from prometheus_client.parser import text_string_to_metric_families

from groundwatch.observability.windows_collector import WindowReport
from groundwatch.state.buckets import ALL, WindowSummary

__all__ = [
    "Row",
    "RuleVerdict",
    "default_rules_path",
    "evaluate_rules",
    "format_rules",
    "format_table",
    "parse_duration",
    "table_rows",
]

HORIZON_MIN = 60
START_TIME = "groundwatch_process_start_time_seconds"
_METRIC = re.compile(r"\b(groundwatch_[a-z0-9_]+)")
_DURATION = re.compile(r"(\d+)(ms|s|m|h|d|w|y)")
_UNIT_S = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31536000}


def default_rules_path() -> Path | None:
    """``dashboards/alerts.yml`` of the source tree this package runs from, if there is one."""
    path = Path(__file__).resolve().parents[3] / "dashboards" / "alerts.yml"
    return path if path.is_file() else None


def parse_duration(text: str) -> float:
    """Seconds in a Prometheus duration (``10m``, ``1h30m``, ``90s``)."""
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text.strip():
        raise ValueError(f"not a Prometheus duration: {text!r}")
    return float(sum(int(n) * _UNIT_S[u] for n, u in parts))


# --- before / after ---------------------------------------------------------------------------


@dataclass
class Row:
    label: str
    before: float | None
    after: float | None
    note: str = ""


def _mean(summary: WindowSummary | None, metric: str, min_samples: int) -> float | None:
    if summary is None or summary.samples(metric) < max(1, min_samples):
        return None
    return summary.mean(metric)


def _rate(summary: WindowSummary | None, name: str, min_samples: int) -> float | None:
    if summary is None:
        return None
    num, den = summary.rate(name)
    return num / den if den >= max(1, min_samples) else None


def table_rows(
    reference: WindowSummary | None, current: WindowSummary | None, report: WindowReport
) -> list[Row]:
    """Healthy (drift reference) vs bad deploy (current window), slice ``all``."""
    m = report.min_samples
    rows = [
        Row("traces scored", _count(reference), _count(current)),
        Row(
            "faithfulness (mean)",
            _mean(reference, "faithfulness", m),
            _mean(current, "faithfulness", m),
        ),
        Row(
            "context precision (mean)",
            _mean(reference, "context_precision", m),
            _mean(current, "context_precision", m),
        ),
        Row(
            "retrieval top score (mean)",
            _mean(reference, "retrieval_top_score", m),
            _mean(current, "retrieval_top_score", m),
        ),
        Row(
            "contradicted claims / answer",
            _rate(reference, "contradicted_per_trace", m),
            _rate(current, "contradicted_per_trace", m),
        ),
        _share_row(reference, current, m),
        Row("refusal rate", _rate(reference, "refusal", m), _rate(current, "refusal", m)),
    ]
    drift = report.drift.get(ALL)
    if drift is not None:
        for metric in ("faithfulness", "context_precision", "retrieval_top_score"):
            test = drift.metrics.get(metric)
            if test is None:
                continue
            q = "-" if test.q_value is None else f"{test.q_value:.2g}"
            psi = "-" if test.psi is None else f"{test.psi:.2f}"
            w1 = "-" if test.wasserstein is None else f"{test.wasserstein:.3f}"
            verdict = (
                "DRIFT"
                if test.decision
                else _untested(test.required, test.n_current, test.n_reference, m)
                if test.q_value is None
                else "no drift"
            )
            rows.append(
                Row(f"drift {metric}", None, None, f"{verdict}: PSI {psi}, Wasserstein {w1}, q {q}")
            )
        for rate in ("contradicted_trace_share", "refusal"):
            rt = drift.rates.get(rate)
            if rt is None:
                continue
            q = "-" if rt.q_value is None else f"{rt.q_value:.2g}"
            verdict = (
                "RISE"
                if rt.decision
                else _untested(rt.required, rt.n_current, rt.n_reference, m)
                if rt.q_value is None
                else "no significant rise"
            )
            rows.append(Row(f"drift {rate}", None, None, f"{verdict}: {rt.ratio:.1f}x, q {q}"))
    return rows


def _share_row(reference: WindowSummary | None, current: WindowSummary | None, m: int) -> Row:
    """Answers with a contradiction; when every such answer has exactly one contradicted claim
    it equals the row above, and says so instead of repeating its figures."""
    before = _rate(reference, "contradicted_trace_share", m)
    after = _rate(current, "contradicted_trace_share", m)
    per_answer = (
        _rate(reference, "contradicted_per_trace", m),
        _rate(current, "contradicted_per_trace", m),
    )
    if (before, after) == per_answer and after is not None:
        return Row("answers with a contradiction", None, None, "the same (one claim each)")
    return Row("answers with a contradiction", before, after)


def _untested(required: float, n_current: float, n_reference: float, min_samples: int) -> str:
    """Why a drift test was not made, with the samples it needs."""
    if n_reference < min_samples:
        return f"untested (reference has {n_reference:.0f} samples, needs {min_samples})"
    if math.isinf(required):
        return f"untested (the reference's {n_reference:.0f} samples are too few to ever test)"
    return f"untested (needs {math.ceil(required)} samples, has {n_current:.0f})"


def _count(summary: WindowSummary | None) -> float | None:
    return None if summary is None else summary.count("scored")


def format_table(rows: Iterable[Row]) -> str:
    def cell(value: float | None) -> str:
        if value is None:
            return "-"
        return f"{value:.0f}" if value >= 10 and float(value).is_integer() else f"{value:.3f}"

    lines = [f"  {'':32s} {'healthy':>9s} {'bad deploy':>11s}"]
    for row in rows:
        if row.note:
            lines.append(f"  {row.label:32s} {row.note}")
        else:
            lines.append(f"  {row.label:32s} {cell(row.before):>9s} {cell(row.after):>11s}")
    return "\n".join(lines)


# --- the shipped rules, evaluated by promtool ------------------------------------------------------


@dataclass
class RuleVerdict:
    alert: str
    severity: str
    for_s: float
    fires_after_min: int | None  # None: not within HORIZON_MIN at these values
    labels: list[str] = field(default_factory=list)  # slice labels of the firing series


def _series_name(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def input_series(metrics_text: str, wanted: set[str], elapsed_s: float) -> list[dict[str, str]]:
    """``promtool`` input series for the metrics the rules read: gauges held at their value,
    counters growing at their average rate over ``elapsed_s`` (one step a minute)."""
    out: list[dict[str, str]] = []
    for family in text_string_to_metric_families(metrics_text):
        for sample in family.samples:
            if sample.name not in wanted:
                continue
            labels = ", ".join(f'{k}="{_series_name(v)}"' for k, v in sorted(sample.labels.items()))
            series = f"{sample.name}{{{labels}}}"
            value = float(sample.value)
            if sample.name == START_TIME:
                # promtool's clock starts at 0 (the end of the replay): started elapsed_s before
                value = -elapsed_s
            if family.type == "counter":
                step = value / max(1.0, elapsed_s) * 60.0
                out.append({"series": series, "values": f"{value:g}+{step:g}x{HORIZON_MIN}"})
            else:
                out.append({"series": series, "values": f"{value:g}+0x{HORIZON_MIN}"})
    return out


def _alerts(rules: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for g in rules.get("groups", []) for r in g.get("rules", []) if "alert" in r]


_FAILED = re.compile(r"alertname: (\S+), time: (\S+),")
_LABELS = re.compile(r"Labels:\{(.*)\}")


def evaluate_rules(
    metrics_text: str, rules_path: Path, elapsed_s: float, promtool: str
) -> list[RuleVerdict]:
    """Every alert of ``rules_path`` evaluated by ``promtool test rules`` on the demo's values
    held for an hour; for each, the first minute at which it fires."""
    rules = yaml.safe_load(rules_path.read_text("utf-8"))
    alerts = _alerts(rules)
    wanted = {n for g in rules["groups"] for r in g["rules"] for n in _METRIC.findall(r["expr"])}
    series = input_series(metrics_text, wanted, elapsed_s)
    tests = [
        {"eval_time": f"{minute}m", "alertname": rule["alert"], "exp_alerts": []}
        for rule in alerts
        for minute in range(HORIZON_MIN + 1)
    ]
    with tempfile.TemporaryDirectory(prefix="groundwatch-demo-") as tmp:
        test_file = Path(tmp) / "demo_test.yml"
        test_file.write_text(
            yaml.safe_dump(
                {
                    "rule_files": [str(rules_path.resolve())],
                    "evaluation_interval": "1m",
                    "tests": [{"interval": "1m", "input_series": series, "alert_rule_test": tests}],
                }
            ),
            "utf-8",
        )
        proc = subprocess.run(  # noqa: S603 - a local binary on a file we wrote
            [promtool, "test", "rules", str(test_file)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    output = proc.stdout + proc.stderr
    if proc.returncode not in (0, 1) or (proc.returncode == 1 and "FAILED" not in output):
        raise RuntimeError(f"promtool test rules failed: {output.strip()[-2000:]}")
    first: dict[str, int] = {}
    labels: dict[str, set[str]] = {}
    current: str | None = None
    for line in output.splitlines():
        hit = _FAILED.search(line)
        if hit:
            current = hit.group(1)
            minute = round(parse_duration(hit.group(2)) / 60)
            first[current] = min(first.get(current, minute), minute)
            continue
        got = _LABELS.search(line)
        if got and current is not None:
            pairs = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', got.group(1)))
            slice_id = f"{pairs.get('slice_key', '')}={pairs.get('slice_value', '')}"
            slice_id = "all" if slice_id == "all=all" else slice_id
            extra = pairs.get("metric") or pairs.get("rate") or ""
            text = f"{slice_id}" + (f" {extra}" if extra else "")
            labels.setdefault(current, set()).add(text.strip("="))
    return [
        RuleVerdict(
            alert=rule["alert"],
            severity=str(rule.get("labels", {}).get("severity", "")),
            for_s=parse_duration(str(rule.get("for", "0s"))),
            fires_after_min=first.get(rule["alert"]),
            labels=sorted(labels.get(rule["alert"], set())),
        )
        for rule in alerts
    ]


def format_rules(verdicts: Iterable[RuleVerdict]) -> str:
    lines = []
    for v in sorted(verdicts, key=lambda v: (v.fires_after_min is None, v.fires_after_min or 0)):
        hold = f"for: {v.for_s / 60:g}m"
        if v.fires_after_min is None:
            lines.append(f"  quiet     {v.alert} ({v.severity}, {hold})")
            continue
        where = (
            f" [{', '.join(v.labels[:4])}{', ...' if len(v.labels) > 4 else ''}]"
            if v.labels
            else ""
        )
        lines.append(
            f"  FIRES     {v.alert} ({v.severity}, {hold}): would fire after "
            f"{v.fires_after_min} min at this rate{where}"
        )
    return "\n".join(lines)
