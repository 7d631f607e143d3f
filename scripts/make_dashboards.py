"""Generate the Grafana dashboards in dashboards/ (committed; a test checks they are fresh).

Run: python scripts/make_dashboards.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DS = {"type": "prometheus", "uid": "${datasource}"}
SLICE = 'slice_key="$slice_key", slice_value=~"$slice_value"'


class Layout:
    def __init__(self) -> None:
        self.panels: list[dict[str, Any]] = []
        self.next_id = 1
        self.y = 0
        self.x = 0
        self.row_height = 8

    def row(self, title: str) -> None:
        if self.x:
            self.y += self.row_height
            self.x = 0
        self.panels.append(
            {
                "type": "row",
                "id": self._id(),
                "title": title,
                "collapsed": False,
                "gridPos": {"h": 1, "w": 24, "x": 0, "y": self.y},
                "panels": [],
            }
        )
        self.y += 1

    def _id(self) -> int:
        pid = self.next_id
        self.next_id += 1
        return pid

    def panel(
        self,
        title: str,
        targets: list[tuple[str, str]],
        *,
        unit: str = "short",
        kind: str = "timeseries",
        width: int = 8,
        height: int = 8,
        description: str = "",
        minmax: tuple[float, float] | None = None,
        thresholds: list[tuple[float | None, str]] | None = None,
    ) -> None:
        if self.x + width > 24:
            self.y += self.row_height
            self.x = 0
        if self.x == 0:
            self.row_height = height
        defaults: dict[str, Any] = {"unit": unit}
        if minmax:
            defaults["min"], defaults["max"] = minmax
        if thresholds:
            defaults["thresholds"] = {
                "mode": "absolute",
                "steps": [{"value": v, "color": c} for v, c in thresholds],
            }
        options: dict[str, Any] = {}
        if kind == "timeseries":
            options = {"legend": {"displayMode": "list", "placement": "bottom", "showLegend": True}}
        elif kind == "stat":
            options = {"colorMode": "background", "graphMode": "area", "textMode": "value_and_name"}
        self.panels.append(
            {
                "type": kind,
                "id": self._id(),
                "title": title,
                "description": description,
                "datasource": DS,
                "gridPos": {"h": height, "w": width, "x": self.x, "y": self.y},
                "fieldConfig": {"defaults": defaults, "overrides": []},
                "options": options,
                "targets": [
                    {
                        "refId": chr(ord("A") + i),
                        "datasource": DS,
                        "expr": expr,
                        "legendFormat": legend,
                    }
                    for i, (expr, legend) in enumerate(targets)
                ],
            }
        )
        self.x += width


MAXR = "max without (instance, pod)"
TOP = 10


def _health(lay: Layout) -> None:
    lay.row("Health")
    lay.panel(
        "Contradicted claims per answer (1h)",
        [
            (
                'max(groundwatch_window_rate{window="1h", rate="contradicted_per_trace", slice_key="all"}) or vector(0)',
                "per answer",
            )
        ],
        thresholds=[(None, "green"), (0.1, "orange"), (0.15, "red")],
        description="Pages above 0.15 (GroundwatchContradictedClaims). 0 until scored traffic.",
        kind="stat",
        width=4,
        height=5,
    )
    lay.panel(
        "Faithfulness (1h)",
        [
            (
                'max(groundwatch_window_mean{window="1h", metric="faithfulness", slice_key="all"})',
                "faithfulness",
            )
        ],
        unit="percentunit",
        minmax=(0, 1),
        thresholds=[(None, "red"), (0.7, "orange"), (0.85, "green")],
        description="Supported share of answer claims; absent below windows.min_samples.",
        kind="stat",
        width=4,
        height=5,
    )
    lay.panel(
        "Judge precision (labelled findings)",
        [
            (
                f'max({MAXR} (groundwatch_judge_contradicted_precision{{slice_key="all"}}))',
                "precision",
            ),
            (
                f"max({MAXR} (groundwatch_judge_contradicted_precision_bound"
                '{slice_key="all", bound="lower"}))',
                "95% lower bound",
            ),
        ],
        unit="percentunit",
        minmax=(0, 1),
        thresholds=[(None, "red"), (0.8, "orange"), (0.9, "green")],
        description="Share of findings (claims called contradicted) that engineers labelled "
        "right on the findings page: right / (right + wrong), with its Wilson 95% lower bound; "
        "this judge version only. Absent until findings are labelled. Label a random sample "
        "(page: 'Label a random sample') so it is unbiased. Low: read findings before acting "
        "(docs/runbook.md, 'Judge precision').",
        kind="stat",
        width=4,
        height=5,
    )
    lay.panel(
        "Labelled findings",
        [
            (
                f"sum({MAXR} (groundwatch_judge_contradicted_labels"
                '{slice_key="all", label=~"right|wrong"})) or vector(0)',
                "right or wrong",
            )
        ],
        thresholds=[(None, "orange"), (30, "green")],
        description="Right/wrong labels behind the precision (unsure ones not counted); fewer "
        "than 30 leave a wide interval.",
        kind="stat",
        width=4,
        height=5,
    )
    lay.panel(
        "Drifting (slice x metric)",
        [
            (f"count({MAXR} (groundwatch_drift_decision) == 1) or vector(0)", "metrics"),
            (f"count({MAXR} (groundwatch_drift_rate_decision) == 1) or vector(0)", "rates"),
        ],
        thresholds=[(None, "green"), (1, "orange")],
        description="Drift decisions now: significant after Benjamini-Hochberg and above the "
        "effect floor.",
        kind="stat",
        width=4,
        height=5,
    )
    lay.panel(
        "Unscored share (5m)",
        [
            (
                'sum(rate(groundwatch_traces_evaluated_total{status="unscored"}[5m])) / '
                "sum(rate(groundwatch_traces_evaluated_total[5m])) or vector(0)",
                "unscored",
            )
        ],
        unit="percentunit",
        thresholds=[(None, "green"), (0.01, "orange"), (0.05, "red")],
        description="Evaluated traces the judge could not score (errors, timeouts).",
        kind="stat",
        width=4,
        height=5,
    )
    lay.panel(
        "Consumer lag",
        [(f"sum({MAXR} (groundwatch_consumer_lag)) or vector(0)", "messages")],
        thresholds=[(None, "green"), (1000, "orange"), (10000, "red")],
        description="Kafka consumer lag summed over partitions (0 without Kafka ingest).",
        kind="stat",
        width=4,
        height=5,
    )
    lay.panel(
        "Alerts",
        [
            (
                'count(ALERTS{alertname=~"Groundwatch.*", alertstate="firing"}) or vector(0)',
                "firing",
            ),
            (
                'count(ALERTS{alertname=~"Groundwatch.*", alertstate="pending"}) or vector(0)',
                "pending",
            ),
        ],
        thresholds=[(None, "green"), (1, "red")],
        kind="stat",
        width=4,
        height=5,
    )


def _by_deploy(lay: Layout) -> None:
    lay.row("By deploy (prompt_version, model)")
    for key in ("prompt_version", "model"):
        lay.panel(
            f"Contradicted claims per answer by {key} ($window)",
            [
                (
                    f'max by (slice_value) (groundwatch_window_rate{{window="$window", rate="contradicted_per_trace", slice_key="{key}"}})',
                    "{{slice_value}}",
                )
            ],
            width=6,
            description="A new value with more contradictions than the previous one is a bad "
            "deploy: roll back.",
        )
        lay.panel(
            f"Faithfulness by {key} ($window)",
            [
                (
                    f'max by (slice_value) (groundwatch_window_mean{{window="$window", metric="faithfulness", slice_key="{key}"}})',
                    "{{slice_value}}",
                )
            ],
            unit="percentunit",
            minmax=(0, 1),
            width=6,
        )


def _by_slice(lay: Layout) -> None:
    lay.row("Quality by slice ($slice_key, worst 10)")
    for metric, title in (
        ("faithfulness", "Faithfulness"),
        ("context_precision", "Context precision"),
    ):
        lay.panel(
            f"{title}: window mean ($window)",
            [
                (
                    f'bottomk({TOP}, max by (slice_value) (groundwatch_window_mean{{window="$window", metric="{metric}", {SLICE}}}))',
                    "{{slice_value}}",
                )
            ],
            unit="percentunit",
            minmax=(0, 1),
            description="Absent below the minimum sample count; max() de-duplicates replicas.",
        )
    lay.panel(
        "Contradicted claims per answer ($window)",
        [
            (
                f'topk({TOP}, max by (slice_value) (groundwatch_window_rate{{window="$window", rate="contradicted_per_trace", {SLICE}}}))',
                "{{slice_value}}",
            )
        ],
        description="Each contradicted claim is a finding on the findings page.",
    )
    lay.panel(
        "Refusal rate and 2x2 proxies ($window)",
        [
            (
                f'topk({TOP}, max by (rate, slice_value) (groundwatch_window_rate{{window="$window", rate=~"refusal|false_refusal_suspected|answered_without_evidence", {SLICE}}}))',
                "{{rate}} {{slice_value}}",
            )
        ],
        unit="percentunit",
        minmax=(0, 1),
    )
    lay.panel(
        "Claims by verdict",
        [("sum by (verdict) (rate(groundwatch_claims_total[5m]))", "{{verdict}}")],
        unit="reqps",
        description="Claims judged per second, all slices.",
    )
    lay.panel(
        "Answer relevance: window mean ($window)",
        [
            (
                f'bottomk({TOP}, max by (slice_value) (groundwatch_window_mean{{window="$window", metric="answer_relevance", {SLICE}}}))',
                "{{slice_value}}",
            )
        ],
        unit="percentunit",
        minmax=(0, 1),
    )


def _drift(lay: Layout) -> None:
    lay.row("Drift (current window vs reference)")
    lay.panel(
        "Drift decisions by metric ($slice_key)",
        [
            (
                f"sum by (metric) (max by (metric, slice_value) (groundwatch_drift_decision{{{SLICE}}})) or vector(0)",
                "{{metric}}",
            )
        ],
        description="Slices whose metric drifted: significant after Benjamini-Hochberg across "
        "every slice x metric, and above the effect floor. What the drift alerts fire on.",
    )
    lay.panel(
        "Drift effect size: Wasserstein-1 (top 10)",
        [
            (
                f"topk({TOP}, max by (metric, slice_value) (groundwatch_drift_wasserstein{{{SLICE}}}))",
                "{{metric}} {{slice_value}}",
            )
        ],
        description="Score units on [0,1]; 0.1 = the distribution moved by 0.1 on average.",
    )
    lay.panel(
        "Rate ratio, current / reference (top 10)",
        [
            (
                f"topk({TOP}, max by (rate, slice_value) (groundwatch_drift_rate_ratio{{{SLICE}}}))",
                "{{rate}} {{slice_value}}",
            )
        ],
    )
    lay.panel(
        "Retrieval top score (quantiles)",
        [
            (
                "histogram_quantile(0.5, sum by (le) (rate(groundwatch_retrieval_top_score_bucket[5m])))",
                "p50",
            ),
            (
                "histogram_quantile(0.1, sum by (le) (rate(groundwatch_retrieval_top_score_bucket[5m])))",
                "p10",
            ),
        ],
        description="An index or embedding-model change after a deploy shows here first.",
    )
    lay.panel(
        "Drift samples: current window vs required ($slice_key)",
        [
            (
                f'min by (metric) (groundwatch_drift_samples{{side="current", {SLICE}}})',
                "current {{metric}}",
            ),
            (
                f"max by (metric) (groundwatch_drift_required_samples{{{SLICE}}})",
                "required {{metric}}",
            ),
        ],
        description="Below 'required' a slice is underpowered: not tested, never alerts.",
    )
    lay.panel(
        "Drift tests per evaluation (family size)",
        [("max(groundwatch_drift_tests) or vector(0)", "tests")],
    )


def _pipeline(lay: Layout) -> None:
    lay.row("Traffic and pipeline")
    lay.panel(
        "Traces received / sampled / evaluated",
        [
            ("sum(rate(groundwatch_traces_received_total[5m])) or vector(0)", "received"),
            ("sum(rate(groundwatch_traces_sampled_total[5m])) or vector(0)", "sampled"),
            (
                "sum by (status) (rate(groundwatch_traces_evaluated_total[5m]))",
                "evaluated {{status}}",
            ),
        ],
        unit="reqps",
        description="Per-replica counters summed over replicas.",
    )
    lay.panel(
        "Received traffic by slice (top 10)",
        [
            (
                f'topk({TOP}, max by (slice_value) (groundwatch_window_traces{{window="5m", kind="received", {SLICE}}})) / 300',
                "{{slice_value}}",
            )
        ],
        unit="reqps",
        description="Every trace, sampled or not, from the shared 5m window, as a rate.",
    )
    lay.panel(
        "Rejected inputs (DLQ) by reason",
        [
            (
                "sum by (source, reason) (rate(groundwatch_traces_rejected_total[5m])) or vector(0)",
                "{{source}} {{reason}}",
            )
        ],
        unit="reqps",
    )
    lay.panel(
        "Unscored traces by reason",
        [
            (
                "sum by (reason) (rate(groundwatch_traces_unscored_total[5m])) or vector(0)",
                "{{reason}}",
            )
        ],
        unit="reqps",
    )
    lay.panel(
        "Consumer lag by partition",
        [
            (
                "max by (topic, partition) (groundwatch_consumer_lag) or vector(0)",
                "{{topic}}/{{partition}}",
            )
        ],
        description="Needs Kafka ingest; 0 otherwise.",
    )
    lay.panel(
        "Evaluation latency",
        [
            (
                "histogram_quantile(0.5, sum by (le) (rate(groundwatch_evaluation_duration_seconds_bucket[5m])))",
                "p50",
            ),
            (
                "histogram_quantile(0.99, sum by (le) (rate(groundwatch_evaluation_duration_seconds_bucket[5m])))",
                "p99",
            ),
        ],
        unit="s",
    )
    lay.panel(
        "Queue depth",
        [("sum by (queue) (groundwatch_queue_depth) or vector(0)", "{{queue}}")],
    )
    lay.panel(
        "Store errors",
        [
            (
                "sum by (store) (rate(groundwatch_store_errors_total[5m])) or vector(0)",
                "{{store}}",
            )
        ],
        unit="ops",
    )
    lay.panel(
        "Embedding cache hit ratio",
        [("avg(groundwatch_embedding_cache_hit_ratio)", "hit ratio")],
        unit="percentunit",
        minmax=(0, 1),
    )
    lay.panel(
        "Judge version",
        [
            (
                "count by (backend, metric_version) (groundwatch_judge_info)",
                "{{backend}} {{metric_version}}",
            )
        ],
        kind="table",
    )


JUDGE_CHANGE = (
    "count by (metric_version) (groundwatch_judge_info)"
    " unless count by (metric_version) (groundwatch_judge_info offset 5m)"
)
DEPLOY_KEYS = "prompt_version|model"
_SEEN = f'groundwatch_window_traces{{window="5m", kind="received", slice_key=~"{DEPLOY_KEYS}"}}'
DEPLOY = (
    f"max by (slice_key, slice_value) ({_SEEN} > 0)"
    f" unless max by (slice_key, slice_value) ({_SEEN} offset 10m > 0)"
)


def overview() -> dict[str, Any]:
    lay = Layout()
    _health(lay)
    _by_deploy(lay)
    _by_slice(lay)
    _drift(lay)
    _pipeline(lay)

    def var(
        name: str, query: str, *, multi: bool = False, include_all: bool = False
    ) -> dict[str, Any]:
        return {
            "name": name,
            "label": name,
            "type": "query",
            "datasource": DS,
            "query": {"query": query, "refId": f"var-{name}"},
            "definition": query,
            "refresh": 2,
            "multi": multi,
            "includeAll": include_all,
            "sort": 1,
            **({"allValue": ".*"} if include_all else {}),
            "current": {},
        }

    return {
        "uid": "groundwatch-overview",
        "title": "groundwatch / overview",
        "description": "RAG assistant quality in production: faithfulness, contradictions, drift, pipeline health.",
        "tags": ["groundwatch", "rag", "llm"],
        "schemaVersion": 39,
        "version": 1,
        "editable": True,
        "timezone": "browser",
        "refresh": "30s",
        "time": {"from": "now-6h", "to": "now"},
        "graphTooltip": 1,
        "panels": lay.panels,
        "templating": {
            "list": [
                {
                    "name": "datasource",
                    "label": "datasource",
                    "type": "datasource",
                    "query": "prometheus",
                    "current": {},
                    "hide": 0,
                },
                var("slice_key", "label_values(groundwatch_window_traces, slice_key)"),
                var(
                    "slice_value",
                    'label_values(groundwatch_window_traces{slice_key="$slice_key"}, slice_value)',
                    multi=True,
                    include_all=True,
                ),
                {
                    "name": "window",
                    "label": "window",
                    "type": "custom",
                    "query": "5m,1h,24h",
                    "current": {"text": "5m", "value": "5m"},
                    "options": [
                        {"text": w, "value": w, "selected": w == "5m"} for w in ("5m", "1h", "24h")
                    ],
                },
            ]
        },
        "annotations": {
            "list": [
                {
                    "name": "Judge version change",
                    "datasource": DS,
                    "enable": True,
                    "iconColor": "purple",
                    "expr": JUDGE_CHANGE,
                    "titleFormat": "judge {{metric_version}}",
                    "textFormat": "scores changed meaning",
                    "step": "60s",
                },
                {
                    "name": "Deploys (prompt_version, model)",
                    "datasource": DS,
                    "enable": True,
                    "iconColor": "blue",
                    "expr": DEPLOY,
                    "titleFormat": "deploy {{slice_key}}={{slice_value}}",
                    "textFormat": "first traffic from a new value",
                    "step": "60s",
                },
                {
                    "name": "Alerts",
                    "datasource": DS,
                    "enable": True,
                    "iconColor": "red",
                    "expr": 'ALERTS{alertname=~"Groundwatch.*"}',
                    "titleFormat": "{{alertname}} {{alertstate}}",
                    "step": "60s",
                },
            ]
        },
    }


def main() -> None:
    out = Path(__file__).resolve().parents[1] / "dashboards" / "groundwatch-overview.json"
    out.write_text(json.dumps(overview(), indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
