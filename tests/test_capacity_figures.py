"""The capacity command, docs/capacity.md and the README's performance figures agree, and say
under which settings each holds (issue 47, item 10)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from groundwatch.capacity import COEFFICIENTS, REPLICA_CORE_BUDGET, size
from groundwatch.cli.capacity import README_RATES
from groundwatch.cli.entry import main

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("judge", ["verifier", "embedded"])
def test_the_command_prints_per_core_and_per_replica_rates_and_the_readme_figures(
    judge: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["capacity", "--traces-per-second", "50", "--sample-rate", "1", "--judge", judge]) == 0
    )
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("Evaluated traces/s"))
    eff = COEFFICIENTS["scaleout_efficiency"].value
    cpu = COEFFICIENTS["seen_cpu_s"].value + COEFFICIENTS[f"eval_cpu_s.{judge}"].value
    assert f"{eff / cpu:.1f} per core flat out" in line
    assert f"{REPLICA_CORE_BUDGET * eff / cpu:.1f} per replica as planned" in line
    warm, cold = README_RATES[judge]
    assert f"The README's ~{warm:g} traces/s" in line
    assert f"cold it is {cold:g} on 2 cores" in line
    assert "docs/capacity.md, 'Two sets of figures'" in line


def test_the_doc_table_of_both_figures_is_the_commands_and_the_performance_docs() -> None:
    doc = (ROOT / "docs" / "capacity.md").read_text("utf-8")
    section = doc.split("## Two sets of figures", 1)[1].split("\n## ", 1)[0]
    eff = COEFFICIENTS["scaleout_efficiency"].value
    for judge, col in (("verifier", 5), ("embedded", 6)):
        cpu = COEFFICIENTS["seen_cpu_s"].value + COEFFICIENTS[f"eval_cpu_s.{judge}"].value
        rows = {
            r.split("|")[1].strip(): r.split("|")[col].strip()
            for r in section.splitlines()
            if r.startswith("| ") and not r.startswith("| figure")
        }
        assert rows["this page, flat out"] == f"{eff / cpu:.1f} a core"
        assert (
            rows["this page, planned per replica"] == f"**{REPLICA_CORE_BUDGET * eff / cpu:.1f}**"
        )
        warm, cold = README_RATES[judge]
        assert rows["README, `benchmarks/evaluator` warm (docs/performance.md)"].startswith(
            f"~{warm:g}"
        )
        assert rows["README, cold"].startswith(f"{cold:g}")
    # the README quotes the same warm and cold verifier figures the command compares against
    readme = (ROOT / "README.md").read_text("utf-8")
    perf = re.search(
        r"about (\d+) traces/s with a warm embedding\s+cache and ([\d.]+) from a cold", readme
    )
    assert perf is not None
    assert (float(perf.group(1)), float(perf.group(2))) == README_RATES["verifier"]


def test_the_charts_defaults_follow_from_the_model() -> None:
    """helm/groundwatch/values.yaml: lagPerReplica, the derivation its comment spells out, the
    per-sampling-rate figures it lists, the memory request and the one window exporter are what
    the capacity model (the measured coefficients) gives for the chart's judge and rate."""
    import yaml

    text = (ROOT / "helm" / "groundwatch" / "values.yaml").read_text("utf-8")
    values = yaml.safe_load(text)
    judge = values["config"]["judge"]["backend"]
    rate = values["config"]["sampling"]["rate"]
    lag = values["autoscaling"]["lagPerReplica"]
    model = size(100, rate, judge).lag_per_replica
    assert 0.9 * model < lag <= model  # 60 s of a replica's throughput, rounded down
    eff = COEFFICIENTS["scaleout_efficiency"].value
    cpu = COEFFICIENTS[f"eval_cpu_s.{judge}"].value
    assert f"60 x {eff:g} / {cpu:g} = {round(60 * eff / cpu)} -> {lag}" in text
    listed = re.search(
        r"sampling 1\.0: ([\d,]+) \(embedded ([\d,]+)\)\s+0\.1: ([\d,]+) \(embedded ([\d,]+)\)"
        r"\s+0\.01: ([\d,]+) \(([\d,]+)\)",
        text,
    )
    assert listed is not None
    cases = [(r, j) for r in (1.0, 0.1, 0.01) for j in ("verifier", "embedded")]
    for (r, j), quoted in zip(cases, listed.groups(), strict=True):
        figure = size(100, r, j).lag_per_replica
        assert 0.9 * figure < float(quoted.replace(",", "")) <= figure, (r, j, quoted)
    request = values["resources"]["requests"]["memory"]
    units = {"Mi": 2**20, "Gi": 2**30}
    assert float(request[:-2]) * units[request[-2:]] >= COEFFICIENTS[f"rss_mb.{judge}"].value * 1e6
    # the series model counts one exporter of the window series: the chart keeps the lease on
    assert values["config"]["windows"]["export_lease_s"] > 0


def test_the_docs_series_and_dedup_formulas_are_the_coefficients() -> None:
    """docs/capacity.md's model section quotes the series and Kafka dedup terms with the model's
    coefficients."""
    doc = (ROOT / "docs" / "capacity.md").read_text("utf-8")
    model = doc.split("## The model", 1)[1].split("\n## ", 1)[0]
    process = round(COEFFICIENTS["series_process"].value)
    base = round(COEFFICIENTS["series_window_base"].value)
    per_value = round(COEFFICIENTS["series_per_slice_value"].value)
    assert f"`replicas × {process} + {base} + {per_value} × slice values`" in model
    assert f"`replicas × ({process + base} + {per_value} × slice values)`" in model
    inflight = COEFFICIENTS["offset_inflight_per_poll_record"].value
    record = COEFFICIENTS["offset_record_bytes"].value
    flat = " ".join(model.split())
    assert f"+ {inflight:g} × kafka.max_poll_records) × {record:g} B`" in flat
    assert f"redis.dedup_ttl_s × {COEFFICIENTS['dedup_marker_bytes'].value:g} B`" in flat
    per_partition = 2 * (1000 + inflight * 500) * record
    assert f"{per_partition / 1e3:.0f} kB a partition" in flat
