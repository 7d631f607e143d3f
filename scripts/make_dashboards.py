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

    def row(self, title: str) -> None:
        if self.x:
            self.y += 8
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
        description: str = "",
        minmax: tuple[float, float] | None = None,
    ) -> None:
        if self.x + width > 24:
            self.y += 8
            self.x = 0
        defaults: dict[str, Any] = {"unit": unit}
        if minmax:
            defaults["min"], defaults["max"] = minmax
        self.panels.append(
            {
                "type": kind,
                "id": self._id(),
                "title": title,
                "description": description,
                "datasource": DS,
                "gridPos": {"h": 8, "w": width, "x": self.x, "y": self.y},
                "fieldConfig": {"defaults": defaults, "overrides": []},
                "options": {
                    "legend": {"displayMode": "list", "placement": "bottom", "showLegend": True}
                }
                if kind == "timeseries"
                else {},
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


def overview() -> dict[str, Any]:
    lay = Layout()
    lay.row("Traffic")
    lay.panel(
        "Traces received / sampled / evaluated",
        [
            ("sum(rate(groundwatch_traces_received_total[5m]))", "received"),
            ("sum(rate(groundwatch_traces_sampled_total[5m]))", "sampled"),
            (
                "sum by (status) (rate(groundwatch_traces_evaluated_total[5m]))",
                "evaluated {{status}}",
            ),
        ],
        unit="reqps",
        description="Per-replica counters summed over replicas.",
    )
    lay.panel(
        "Rejected inputs (DLQ) by reason",
        [
            (
                "sum by (source, reason) (rate(groundwatch_traces_rejected_total[5m]))",
                "{{source}} {{reason}}",
            )
        ],
        unit="reqps",
    )
    lay.panel(
        "Received traffic by slice (1h window)",
        [
            (
                f'max by (slice_value) (groundwatch_window_traces{{window="1h", kind="received", {SLICE}}})',
                "{{slice_value}}",
            )
        ],
        description="Every trace, sampled or not, from the shared windows.",
    )
    lay.row("Quality by slice")
    for metric, title in (
        ("faithfulness", "Faithfulness"),
        ("context_precision", "Context precision"),
        ("answer_relevance", "Answer relevance"),
    ):
        lay.panel(
            f"{title}: window mean ($window)",
            [
                (
                    f'max by (slice_value) (groundwatch_window_mean{{window="$window", metric="{metric}", {SLICE}}})',
                    "{{slice_value}}",
                )
            ],
            unit="percentunit",
            minmax=(0, 1),
            description="Absent below the minimum sample count; max() de-duplicates replicas.",
        )
    lay.panel(
        "Contradicted claims",
        [
            (
                'sum(rate(groundwatch_claims_total{verdict="contradicted"}[5m]))',
                "contradicted claims/s",
            ),
            (
                f'max by (slice_value) (groundwatch_window_rate{{window="$window", rate="contradicted_per_trace", {SLICE}}})',
                "per trace {{slice_value}}",
            ),
        ],
        description="The loudest signal: each one is a finding on the findings page.",
    )
    lay.panel(
        "Claims by verdict",
        [("sum by (verdict) (rate(groundwatch_claims_total[5m]))", "{{verdict}}")],
        unit="reqps",
    )
    lay.panel(
        "Refusal rate and 2x2 proxies ($window)",
        [
            (
                f'max by (rate, slice_value) (groundwatch_window_rate{{window="$window", rate=~"refusal|false_refusal_suspected|answered_without_evidence", {SLICE}}})',
                "{{rate}} {{slice_value}}",
            )
        ],
        unit="percentunit",
        minmax=(0, 1),
    )
    lay.row("Drift")
    lay.panel(
        "Score drift (PSI)",
        [
            (
                f"max by (metric, slice_value) (groundwatch_drift_psi{{{SLICE}}})",
                "{{metric}} {{slice_value}}",
            )
        ],
        description="PSI > 0.2: a material shift against the reference window.",
    )
    lay.panel(
        "Score drift (Wasserstein-1)",
        [
            (
                f"max by (metric, slice_value) (groundwatch_drift_wasserstein{{{SLICE}}})",
                "{{metric}} {{slice_value}}",
            )
        ],
    )
    lay.panel(
        "Rate drift (two-proportion z)",
        [
            (
                f"max by (rate, slice_value) (groundwatch_drift_rate_z{{{SLICE}}})",
                "{{rate}} {{slice_value}}",
            )
        ],
    )
    lay.panel(
        "Retrieval top score",
        [
            (
                "histogram_quantile(0.5, sum by (le) (rate(groundwatch_retrieval_top_score_bucket[5m])))",
                "p50",
            ),
            (
                "histogram_quantile(0.1, sum by (le) (rate(groundwatch_retrieval_top_score_bucket[5m])))",
                "p10",
            ),
            (
                'max(groundwatch_drift_psi{metric="retrieval_top_score", slice_key="all"})',
                "PSI vs reference",
            ),
        ],
        description="An index or embedding-model change after a deploy shows here first.",
    )
    lay.row("Pipeline")
    lay.panel(
        "Consumer lag by partition",
        [("max by (topic, partition) (groundwatch_consumer_lag)", "{{topic}}/{{partition}}")],
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
        "Queue depth and store errors",
        [
            ("sum by (queue) (groundwatch_queue_depth)", "queue {{queue}}"),
            ("sum by (store) (rate(groundwatch_store_errors_total[5m]))", "store errors {{store}}"),
        ],
    )
    lay.panel(
        "Unscored traces by reason",
        [("sum by (reason) (rate(groundwatch_traces_unscored_total[5m]))", "{{reason}}")],
        unit="reqps",
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
                    "current": {"text": "1h", "value": "1h"},
                    "options": [
                        {"text": w, "value": w, "selected": w == "1h"} for w in ("5m", "1h", "24h")
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
                    "expr": "changes(count by (metric_version) (groundwatch_judge_info)[10m:1m]) > 0",
                    "titleFormat": "judge {{metric_version}}",
                    "textFormat": "scores changed meaning",
                    "step": "60s",
                },
                {
                    "name": "Alerts",
                    "datasource": DS,
                    "enable": True,
                    "iconColor": "red",
                    "expr": 'ALERTS{alertstate="firing", alertname=~"Groundwatch.*"}',
                    "titleFormat": "{{alertname}}",
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
