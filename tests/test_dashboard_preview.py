"""Every panel of the overview dashboard returns data while the demo runs under a real Prometheus.

The demo (embedded judge, bundled traces, bad deploy halfway) is replayed in 20 s by
``scripts/render_dashboard.py``, scraped every second by the Debian ``prometheus`` binary with the
shipped rules; every panel's PromQL is run with the template variables at their defaults, as
Grafana would. A panel may stay empty only if its description says it needs Kafka ingest or labelled
findings.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from scripts import render_dashboard as rd

pytestmark = [pytest.mark.prometheus, pytest.mark.slow]


def _needs_kafka(panel: dict[str, object]) -> bool:
    return "needs kafka" in str(panel.get("description", "")).lower()


def _needs_labels(panel: dict[str, object]) -> bool:
    """The judge's measured precision: empty until an engineer labels findings on the page."""
    return "absent until findings are labelled" in str(panel.get("description", "")).lower()


@pytest.fixture(scope="module")
def preview() -> Iterator[tuple[rd.Run, list[rd.PanelData], dict[str, str]]]:
    if shutil.which("prometheus") is None:
        pytest.skip("prometheus not installed")
    dashboard = rd.load_dashboard()
    with rd.demo_with_prometheus(duration=20, interval_s=1, window_5m=6) as run:
        variables = rd.resolve_variables(run.prom, dashboard, run.end)
        panels = rd.query_panels(
            run.prom, dashboard, variables, start=run.start, end=run.end, step=1
        )
        yield run, panels, variables


def test_every_panel_returns_data(
    preview: tuple[rd.Run, list[rd.PanelData], dict[str, str]],
) -> None:
    run, panels, variables = preview
    dashboard = rd.load_dashboard()
    assert len(panels) == sum(1 for p in dashboard["panels"] if p["type"] != "row")
    assert variables["window"] == "5m"
    assert variables["slice_value"] == ".*"
    errors = [(p.panel["title"], t.expr, t.error) for p in panels for t in p.targets if t.error]
    assert not errors
    empty = [
        (p.panel["title"], t.expr)
        for p in panels
        if not _needs_kafka(p.panel) and not _needs_labels(p.panel)
        for t in p.targets
        if not t.series
    ]
    assert not empty, f"panels without data during the demo:\n{empty}\n{run.demo_log[-2000:]}"
    # timeseries panels draw a line, not a single point
    short = [
        p.panel["title"]
        for p in panels
        if p.panel["type"] == "timeseries" and not _needs_kafka(p.panel)
        if max(len(s.times) for t in p.targets for s in t.series) < 3
    ]
    assert not short


def test_the_bad_deploy_shows_by_prompt_version(
    preview: tuple[rd.Run, list[rd.PanelData], dict[str, str]],
) -> None:
    _, panels, _ = preview
    (panel,) = [
        p for p in panels if p.panel["title"].startswith("Contradicted claims per answer by prompt")
    ]
    worst = {s.legend: max(s.values) for t in panel.targets for s in t.series}
    assert set(worst) == {"v7", "v8"}
    assert worst["v8"] > 2 * worst["v7"]


def test_kafka_only_panels_are_documented(
    preview: tuple[rd.Run, list[rd.PanelData], dict[str, str]],
) -> None:
    """The exemption above covers exactly the consumer-lag panels, and they still show 0."""
    _, panels, _ = preview
    kafka = [p for p in panels if _needs_kafka(p.panel)]
    lag = [p for p in panels if any("groundwatch_consumer_lag" in t.expr for t in p.targets)]
    assert {p.panel["id"] for p in kafka} <= {p.panel["id"] for p in lag}
    for p in lag:
        values = [v for t in p.targets for s in t.series for v in s.values]
        assert values
        assert max(values) == 0


def test_label_only_panels_are_the_precision_panels(
    preview: tuple[rd.Run, list[rd.PanelData], dict[str, str]],
) -> None:
    """The second exemption covers only panels that read the labelled-precision series."""
    _, panels, _ = preview
    labelled = [p for p in panels if _needs_labels(p.panel)]
    assert labelled
    for p in labelled:
        assert all("groundwatch_judge_contradicted_precision" in t.expr for t in p.targets)


def test_preview_pngs_are_drawn(
    preview: tuple[rd.Run, list[rd.PanelData], dict[str, str]], tmp_path: Path
) -> None:
    run, panels, _ = preview
    paths = rd.draw(panels, rd.load_dashboard(), tmp_path, origin=run.start, deploy=run.deploy)
    assert [p.name for p in paths] == [f"dashboard-{page}.png" for page in rd.PAGES]
    for path in paths:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert 10_000 < path.stat().st_size < 300_000
