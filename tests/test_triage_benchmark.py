"""benchmarks/triage_adapt.py (issue 35, step 4): the simulation labels the first k findings
the page shows (newest first), adapts, and measures only the rest of the unit."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from groundwatch.judges.verdict import ClaimFeatures, VerdictModel
from tests.modules import load_script

ROOT = Path(__file__).resolve().parents[1]


def _benchmark() -> ModuleType:
    return load_script(ROOT / "benchmarks" / "triage_adapt.py", "triage_adapt")


def _row(order: int, gold: str, coverage: float) -> dict[str, Any]:
    f = ClaimFeatures(
        p_supported=0.0,
        p_contradicted=1.0,
        p_not_found=0.0,
        coverage=coverage,
        cosine=0.5,
        value_conflict=True,
        value_agreed=False,
        restated_supported=0.9,
        restated_gain=0.9,
        sentence_contradicted=0.9,
        claim=f"c{order}",
    )
    return {
        "unit": "written",
        "item": f"w-{order}",
        "order": order,
        "domain": "banking and card fees",
        "gold": gold,
        "features": dataclasses.asdict(f),
    }


def test_the_simulation_labels_the_newest_findings_and_measures_the_rest() -> None:
    bench = _benchmark()
    rng = random.Random(0)
    rows = []
    for i in range(80):
        right = rng.random() < 0.5
        rows.append(
            _row(
                i,
                "contradicted" if right else "supported",
                rng.uniform(0.2, 0.5) if right else rng.uniform(0.7, 1.0),
            )
        )
    base = VerdictModel.shipped()
    flagged = [bench._features(r["features"]) for r in rows]
    from groundwatch.judges.adapt import predicts_contradicted

    assert all(predicts_contradicted(base, flagged))  # every row is a finding of the shipped judge
    results = {e["unit"]: e for e in bench.simulate(rows)}
    finance = results["written:finance"]
    assert finance["findings"] == 80
    assert set(finance["k"]) == {"10", "20", "25", "50"}  # 100 needs 105 findings
    k50 = finance["k"]["50"]
    assert k50["before"]["predicted"] == 30  # the 30 oldest: the page showed the 50 newest
    assert k50["after"]["precision"] > k50["before"]["precision"]


def test_a_triage_domain_is_a_unit_and_the_base_judge_can_be_the_rules_or_a_lower_bar() -> None:
    bench = _benchmark()
    rows = []
    for i in range(40):
        row = _row(i, "contradicted" if i % 2 else "supported", 0.3)
        row["unit"] = row["domain"] = "triage:bank"
        # the rules judge calls every third claim contradicted
        row["features"]["rules_verdict"] = "contradicted" if i % 3 == 0 else "not_found"
        rows.append(row)
    rules = {e["unit"]: e for e in bench.simulate(rows, base="rules")}
    assert set(rules) == {"triage:bank", "triage:all"}
    assert rules["triage:bank"]["findings"] == 14
    assert rules["triage:bank"]["base"] == "rules"
    model, _ = bench.base_judge("verifier@0.3")
    assert model.contradicted_threshold == 0.3
    assert model.version.endswith("-bar0.30")
    with pytest.raises(ValueError, match="unknown base"):
        bench.base_judge("nli")
