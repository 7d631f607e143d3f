"""Generate the Grafana dashboards in dashboards/ with Grafana's typed builders
(``grafana-foundation-sdk``, pinned to its Grafana 11.6 schema); committed, and a test checks
they are fresh.

Run: python scripts/make_dashboards.py

Each section is a list of panels under a row; the builders place them left to right (24 columns
a line) and number them. Three things the 11.6 schema has no builder for are written here:
a Prometheus annotation's title, text and step (:class:`PromAnnotation`), and a query variable's
``definition`` (:class:`LabelValues`), the query text Grafana's editor shows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from grafana_foundation_sdk.builders import dashboard as board
from grafana_foundation_sdk.builders import prometheus, stat, table, timeseries
from grafana_foundation_sdk.builders.common import (
    ReduceDataOptions,
    VizLegendOptions,
    VizTooltipOptions,
)
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models import common
from grafana_foundation_sdk.models import dashboard as model

DS = model.DataSourceRef(type_val="prometheus", uid="${datasource}")
SLICE = 'slice_key="$slice_key", slice_value=~"$slice_value"'
MAXR = "max without (instance, pod)"
TOP = 10
Panel = stat.Panel | timeseries.Panel | table.Panel
P = TypeVar("P", stat.Panel, timeseries.Panel, table.Panel)
Queries = list[tuple[str, str]]  # (PromQL, legend)
Steps = list[tuple[float | None, str]]  # (from value, colour)


def _filled(
    panel: P,
    title: str,
    queries: Queries,
    *,
    unit: str = "short",
    width: int = 8,
    height: int = 8,
    description: str = "",
    minmax: tuple[float, float] | None = None,
) -> P:
    """``panel`` with its title, size, unit and one Prometheus query per (PromQL, legend)."""
    panel.title(title).description(description).datasource(DS).unit(unit)
    panel.span(width).height(height)
    for i, (expr, legend) in enumerate(queries):
        query = prometheus.Dataquery().ref_id(chr(ord("A") + i)).datasource(DS)
        panel.with_target(query.expr(expr).legend_format(legend))
    if minmax:
        panel.min(minmax[0]).max(minmax[1])
    return panel


def series(
    title: str,
    queries: Queries,
    *,
    unit: str = "short",
    width: int = 8,
    description: str = "",
    minmax: tuple[float, float] | None = None,
) -> timeseries.Panel:
    """A time series, 8 high, legend as a list below it, one series in the tooltip."""
    legend = VizLegendOptions().display_mode(common.LegendDisplayMode.LIST).show_legend(True)
    tooltip = VizTooltipOptions().mode(common.TooltipDisplayMode.SINGLE)
    panel = (
        timeseries.Panel()
        .legend(legend.placement(common.LegendPlacement.BOTTOM))
        .tooltip(tooltip.sort(common.SortOrder.NONE))
    )
    return _filled(
        panel, title, queries, unit=unit, width=width, description=description, minmax=minmax
    )


def health(
    title: str,
    queries: Queries,
    thresholds: Steps,
    *,
    unit: str = "short",
    description: str = "",
    minmax: tuple[float, float] | None = None,
) -> stat.Panel:
    """A stat of the health row, 4 wide and 5 high, coloured by its thresholds."""
    panel = (
        stat.Panel()
        .color_mode(common.BigValueColorMode.BACKGROUND)
        .graph_mode(common.BigValueGraphMode.AREA)
        .text_mode(common.BigValueTextMode.VALUE_AND_NAME)
        .reduce_options(ReduceDataOptions().calcs(["lastNotNull"]))
    )
    steps = [model.Threshold(value=v, color=c) for v, c in thresholds]
    panel.thresholds(board.ThresholdsConfig().mode(model.ThresholdsMode.ABSOLUTE).steps(steps))
    return _filled(
        panel, title, queries, unit=unit, width=4, height=5, description=description, minmax=minmax
    )


def _health() -> list[Panel]:
    return [
        health(
            "Contradicted claims per answer (1h)",
            [
                (
                    'max(groundwatch_window_rate{window="1h", rate="contradicted_per_trace", slice_key="all"}) or vector(0)',
                    "per answer",
                )
            ],
            [(None, "green"), (0.1, "orange"), (0.15, "red")],
            description="Pages above 0.15 (GroundwatchContradictedClaims). 0 until scored traffic.",
        ),
        health(
            "Faithfulness (1h)",
            [
                (
                    'max(groundwatch_window_mean{window="1h", metric="faithfulness", slice_key="all"})',
                    "faithfulness",
                )
            ],
            [(None, "red"), (0.7, "orange"), (0.85, "green")],
            unit="percentunit",
            minmax=(0, 1),
            description="Supported share of answer claims; absent below windows.min_samples.",
        ),
        health(
            "Judge precision (labelled findings)",
            [
                (
                    f'max({MAXR} (groundwatch_judge_contradicted_precision{{slice_key="all"}}))',
                    "precision",
                ),
                (
                    f'max({MAXR} (groundwatch_judge_contradicted_precision_bound{{slice_key="all", bound="lower"}}))',
                    "95% lower bound",
                ),
            ],
            [(None, "red"), (0.8, "orange"), (0.9, "green")],
            unit="percentunit",
            minmax=(0, 1),
            description="Share of findings (claims called contradicted) that engineers labelled "
            "right on the findings page: right / (right + wrong), with its Wilson 95% lower bound; "
            "this judge version only. Absent until findings are labelled. Label a random sample "
            "(page: 'Label a random sample') so it is unbiased. Low: read findings before acting "
            "(docs/runbook.md, 'Judge precision').",
        ),
        health(
            "Labelled findings",
            [
                (
                    f'sum({MAXR} (groundwatch_judge_contradicted_labels{{slice_key="all", label=~"right|wrong"}})) or vector(0)',
                    "right or wrong",
                )
            ],
            [(None, "orange"), (30, "green")],
            description="Right/wrong labels behind the precision (unsure ones not counted); fewer "
            "than 30 leave a wide interval.",
        ),
        health(
            "Drifting (slice x metric)",
            [
                (f"count({MAXR} (groundwatch_drift_decision) == 1) or vector(0)", "metrics"),
                (f"count({MAXR} (groundwatch_drift_rate_decision) == 1) or vector(0)", "rates"),
            ],
            [(None, "green"), (1, "orange")],
            description="Drift decisions now: significant after Benjamini-Hochberg and above the "
            "effect floor.",
        ),
        health(
            "Unscored share (5m)",
            [
                (
                    'sum(rate(groundwatch_traces_evaluated_total{status="unscored"}[5m])) / sum(rate(groundwatch_traces_evaluated_total[5m])) or vector(0)',
                    "unscored",
                )
            ],
            [(None, "green"), (0.01, "orange"), (0.05, "red")],
            unit="percentunit",
            description="Evaluated traces the judge could not score (errors, timeouts).",
        ),
        health(
            "Consumer lag",
            [(f"sum({MAXR} (groundwatch_consumer_lag)) or vector(0)", "messages")],
            [(None, "green"), (1000, "orange"), (10000, "red")],
            description="Kafka consumer lag summed over partitions (0 without Kafka ingest).",
        ),
        health(
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
            [(None, "green"), (1, "red")],
        ),
    ]


def _by_deploy() -> list[Panel]:
    panels: list[Panel] = []
    for key in ("prompt_version", "model"):
        panels.append(
            series(
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
        )
        panels.append(
            series(
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
        )
    return panels


def _worst(metric: str) -> Queries:
    """The ``TOP`` slices with the lowest window mean of ``metric``."""
    return [
        (
            f'bottomk({TOP}, max by (slice_value) (groundwatch_window_mean{{window="$window", metric="{metric}", {SLICE}}}))',
            "{{slice_value}}",
        )
    ]


def _by_slice() -> list[Panel]:
    mean_note = "Absent below the minimum sample count; max() de-duplicates replicas."
    return [
        series(
            "Faithfulness: window mean ($window)",
            _worst("faithfulness"),
            unit="percentunit",
            minmax=(0, 1),
            description=mean_note,
        ),
        series(
            "Context precision: window mean ($window)",
            _worst("context_precision"),
            unit="percentunit",
            minmax=(0, 1),
            description=mean_note,
        ),
        series(
            "Contradicted claims per answer ($window)",
            [
                (
                    f'topk({TOP}, max by (slice_value) (groundwatch_window_rate{{window="$window", rate="contradicted_per_trace", {SLICE}}}))',
                    "{{slice_value}}",
                )
            ],
            description="Each contradicted claim is a finding on the findings page.",
        ),
        series(
            "Refusal rate and 2x2 proxies ($window)",
            [
                (
                    f'topk({TOP}, max by (rate, slice_value) (groundwatch_window_rate{{window="$window", rate=~"refusal|false_refusal_suspected|answered_without_evidence", {SLICE}}}))',
                    "{{rate}} {{slice_value}}",
                )
            ],
            unit="percentunit",
            minmax=(0, 1),
        ),
        series(
            "Claims by verdict",
            [("sum by (verdict) (rate(groundwatch_claims_total[5m]))", "{{verdict}}")],
            unit="reqps",
            description="Claims judged per second, all slices.",
        ),
        series(
            "Answer relevance: window mean ($window)",
            _worst("answer_relevance"),
            unit="percentunit",
            minmax=(0, 1),
        ),
    ]


def _quantiles(histogram: str, *quantiles: float) -> Queries:
    return [
        (
            f"histogram_quantile({q}, sum by (le) (rate({histogram}_bucket[5m])))",
            f"p{round(q * 100)}",
        )
        for q in quantiles
    ]


def _drift() -> list[Panel]:
    return [
        series(
            "Drift decisions by metric ($slice_key)",
            [
                (
                    f"sum by (metric) (max by (metric, slice_value) (groundwatch_drift_decision{{{SLICE}}})) or vector(0)",
                    "{{metric}}",
                )
            ],
            description="Slices whose metric drifted: significant after Benjamini-Hochberg across "
            "every slice x metric, and above the effect floor. What the drift alerts fire on.",
        ),
        series(
            "Drift effect size: Wasserstein-1 (top 10)",
            [
                (
                    f"topk({TOP}, max by (metric, slice_value) (groundwatch_drift_wasserstein{{{SLICE}}}))",
                    "{{metric}} {{slice_value}}",
                )
            ],
            description="Score units on [0,1]; 0.1 = the distribution moved by 0.1 on average.",
        ),
        series(
            "Rate ratio, current / reference (top 10)",
            [
                (
                    f"topk({TOP}, max by (rate, slice_value) (groundwatch_drift_rate_ratio{{{SLICE}}}))",
                    "{{rate}} {{slice_value}}",
                )
            ],
        ),
        series(
            "Retrieval top score (quantiles)",
            _quantiles("groundwatch_retrieval_top_score", 0.5, 0.1),
            description="An index or embedding-model change after a deploy shows here first.",
        ),
        series(
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
        ),
        series(
            "Drift tests per evaluation (family size)",
            [("max(groundwatch_drift_tests) or vector(0)", "tests")],
        ),
    ]


def _pipeline() -> list[Panel]:
    return [
        series(
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
        ),
        series(
            "Received traffic by slice (top 10)",
            [
                (
                    f'topk({TOP}, max by (slice_value) (groundwatch_window_traces{{window="5m", kind="received", {SLICE}}})) / 300',
                    "{{slice_value}}",
                )
            ],
            unit="reqps",
            description="Every trace, sampled or not, from the shared 5m window, as a rate.",
        ),
        series(
            "Rejected inputs (DLQ) by reason",
            [
                (
                    "sum by (source, reason) (rate(groundwatch_traces_rejected_total[5m])) or vector(0)",
                    "{{source}} {{reason}}",
                )
            ],
            unit="reqps",
        ),
        series(
            "Unscored traces by reason",
            [
                (
                    "sum by (reason) (rate(groundwatch_traces_unscored_total[5m])) or vector(0)",
                    "{{reason}}",
                )
            ],
            unit="reqps",
        ),
        series(
            "Consumer lag by partition",
            [
                (
                    "max by (topic, partition) (groundwatch_consumer_lag) or vector(0)",
                    "{{topic}}/{{partition}}",
                )
            ],
            description="Needs Kafka ingest; 0 otherwise.",
        ),
        series(
            "Evaluation latency",
            _quantiles("groundwatch_evaluation_duration_seconds", 0.5, 0.99),
            unit="s",
        ),
        series(
            "Queue depth", [("sum by (queue) (groundwatch_queue_depth) or vector(0)", "{{queue}}")]
        ),
        series(
            "Store errors",
            [
                (
                    "sum by (store) (rate(groundwatch_store_errors_total[5m])) or vector(0)",
                    "{{store}}",
                )
            ],
            unit="ops",
        ),
        series(
            "Embedding cache hit ratio",
            [("avg(groundwatch_embedding_cache_hit_ratio)", "hit ratio")],
            unit="percentunit",
            minmax=(0, 1),
        ),
        _filled(
            table.Panel(),
            "Judge version",
            [
                (
                    "count by (backend, metric_version) (groundwatch_judge_info)",
                    "{{backend}} {{metric_version}}",
                )
            ],
        ),
    ]


class _PromAnnotationModel(model.AnnotationQuery):
    """The schema's annotation plus the Prometheus data source's own fields."""

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.prometheus: dict[str, object] = {"titleFormat": title, "step": "60s"}
        if text:
            self.prometheus["textFormat"] = text

    def to_json(self) -> dict[str, object]:
        return super().to_json() | self.prometheus


class PromAnnotation(board.AnnotationQuery):
    """A Prometheus annotation: ``expr`` marks the time line, ``title`` names each mark."""

    def __init__(self, name: str, expr: str, colour: str, title: str, text: str = "") -> None:
        super().__init__()
        self._internal = _PromAnnotationModel(title, text)
        self.name(name).datasource(DS).enable(True).icon_color(colour).expr(expr)


class _LabelValuesModel(model.VariableModel):
    """The schema's variable plus ``definition``, the query text Grafana's editor shows."""

    def __init__(self, name: str, definition: str) -> None:
        super().__init__(type_val=model.VariableType.QUERY, name=name)
        self.definition = definition

    def to_json(self) -> dict[str, object]:
        return super().to_json() | {"definition": self.definition}


class LabelValues(board.QueryVariable):
    """A query variable over ``label_values(...)``, refreshed with the time range, sorted."""

    def __init__(self, name: str, query: str) -> None:
        super().__init__(name)
        self._internal = _LabelValuesModel(name, query)
        self.label(name).datasource(DS).query({"query": query, "refId": f"var-{name}"})
        self.refresh(model.VariableRefresh.ON_TIME_RANGE_CHANGED)
        self.sort(model.VariableSort.ALPHABETICAL_ASC)


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
SECTIONS = (
    ("Health", _health),
    ("By deploy (prompt_version, model)", _by_deploy),
    ("Quality by slice ($slice_key, worst 10)", _by_slice),
    ("Drift (current window vs reference)", _drift),
    ("Traffic and pipeline", _pipeline),
)


def overview() -> dict[str, Any]:
    """The overview dashboard as Grafana's JSON model."""
    dash = (
        board.Dashboard("groundwatch / overview")
        .uid("groundwatch-overview")
        .description(
            "RAG assistant quality in production: faithfulness, contradictions, drift, pipeline health."
        )
        .tags(["groundwatch", "rag", "llm"])
        .version(1)
        .editable()
        .timezone("browser")
        .refresh("30s")
        .time("now-6h", "now")
        .tooltip(model.DashboardCursorSync.CROSSHAIR)
    )
    for title, panels in SECTIONS:
        dash.with_row(board.Row(title))
        for panel in panels():
            dash.with_panel(panel)
    window = [
        model.VariableOption(text=w, value=w, selected=w == "5m") for w in ("5m", "1h", "24h")
    ]
    dash.variables(
        [
            board.DatasourceVariable("datasource").label("datasource").type("prometheus"),
            LabelValues("slice_key", "label_values(groundwatch_window_traces, slice_key)"),
            LabelValues(
                "slice_value",
                'label_values(groundwatch_window_traces{slice_key="$slice_key"}, slice_value)',
            )
            .multi(True)
            .include_all(True)
            .all_value(".*"),
            board.CustomVariable("window")
            .label("window")
            .values("5m,1h,24h")
            .current(window[0])
            .options(window),
        ]
    )
    dash.annotations(
        [
            PromAnnotation(
                "Judge version change",
                JUDGE_CHANGE,
                "purple",
                "judge {{metric_version}}",
                "scores changed meaning",
            ),
            PromAnnotation(
                "Deploys (prompt_version, model)",
                DEPLOY,
                "blue",
                "deploy {{slice_key}}={{slice_value}}",
                "first traffic from a new value",
            ),
            PromAnnotation(
                "Alerts",
                'ALERTS{alertname=~"Groundwatch.*"}',
                "red",
                "{{alertname}} {{alertstate}}",
            ),
        ]
    )
    built = dash.build()
    for number, placed in enumerate(built.panels or [], start=1):
        placed.id_val = number
    data: dict[str, Any] = json.loads(json.dumps(built, cls=JSONEncoder))
    return data


def main() -> None:
    out = Path(__file__).resolve().parents[1] / "dashboards" / "groundwatch-overview.json"
    out.write_text(json.dumps(overview(), indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
