"""The capacity command, docs/capacity.md and the README's performance figures agree, and say
under which settings each holds (issue 47, item 10)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from groundwatch.capacity import COEFFICIENTS, REPLICA_CORE_BUDGET
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
