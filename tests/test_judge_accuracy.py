"""The verifier judge (``GROUNDWATCH_JUDGE__BACKEND=verifier``) measured on data it was not
built on. (The default rules judge is gated on its own cases in ``test_hard_cases.py``.)

* ``heldout2_cases.jsonl``: written blind by engineers who had not seen the judge; never tuned on.
* ``heldout3_cases.jsonl``: 40 traces in 25+ other domains, written blind the same way (2026-12-01);
  never tuned on.
* ``heldout4_cases.jsonl``: 50 traces (285 claims) in 10 more domains, multi-claim answers,
  written blind the same way (2026-12-02); never tuned on.
* ``paraphrase_cases.jsonl``: true paraphrases in 14 domains, written blind before the verifier
  existed: none may come out *contradicted* (a false page).
* ``refusal_cases.jsonl``: refusals, partial refusals and look-alike non-refusals, written blind;
  measured as balanced accuracy, never plain accuracy.
* the verifier's dev sets (``../shared/data/verifier/dev``, measuring only), seeded stratified
  samples: SICK 3-way accuracy, Climate-FEVER AUROC, SummEdits (2 unseen domains) balanced
  accuracy.

Bars sit a little under the figures measured for the shipped model (README, docs/verifier.md), so
a regression fails and noise does not. ``benchmarks/accuracy.py FILE --mistakes`` lists misses.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from groundwatch.judges.embedding import build_embedder
from groundwatch.judges.verified import VerifiedJudge
from groundwatch.sections.judging import EmbeddingSettings
from tests.modules import load_script

ROOT = Path(__file__).resolve().parents[1]
DEV = next(
    (
        p
        for p in (
            ROOT.parent / "shared" / "data" / "verifier" / "dev",
            Path("/work/shared/data/verifier/dev"),
        )
        if p.exists()
    ),
    ROOT.parent / "shared" / "data" / "verifier" / "dev",
)


def _module(name: str) -> ModuleType:
    return load_script(ROOT / "benchmarks" / f"{name}.py")


@pytest.fixture(scope="module")
def accuracy() -> ModuleType:
    return _module("accuracy")


@pytest.fixture(scope="module")
def pairs() -> ModuleType:
    return _module("pairs")


@pytest.fixture(scope="module")
def judge() -> VerifiedJudge:
    j = VerifiedJudge(build_embedder(EmbeddingSettings()))
    j.load()
    return j


def _report(accuracy: ModuleType, judge: VerifiedJudge, name: str) -> Any:
    rows = accuracy.load_rows(ROOT / "tests" / name)
    report, _ = accuracy.evaluate_rows(rows, judge)
    print(f"\n{name}\n" + "\n".join(report.lines()))
    return report


def test_blind_heldout_claims(accuracy: ModuleType, judge: VerifiedJudge) -> None:
    report = _report(accuracy, judge, "heldout2_cases.jsonl")
    assert report.claim_accuracy >= HELDOUT2_CLAIM_ACCURACY
    # a finding with no contradicted labelled claim in it pages someone for nothing (a judged
    # sentence holding a true and a contradicted claim is a right finding: benchmarks/accuracy)
    assert report.findings_false <= HELDOUT2_FALSE_PAGES


def test_second_blind_heldout_claims(accuracy: ModuleType, judge: VerifiedJudge) -> None:
    report = _report(accuracy, judge, "heldout3_cases.jsonl")
    assert report.claim_accuracy >= HELDOUT3_CLAIM_ACCURACY
    assert report.findings_false <= HELDOUT3_FALSE_PAGES


def test_third_blind_heldout_claims(accuracy: ModuleType, judge: VerifiedJudge) -> None:
    report = _report(accuracy, judge, "heldout4_cases.jsonl")
    assert report.claim_accuracy >= HELDOUT4_CLAIM_ACCURACY
    assert report.findings_false <= HELDOUT4_FALSE_PAGES


def test_true_paraphrases_are_never_contradicted(
    accuracy: ModuleType, judge: VerifiedJudge
) -> None:
    report = _report(accuracy, judge, "paraphrase_cases.jsonl")
    contradicted = [m for m in report.mistakes if m.get("got") == "contradicted"]
    assert contradicted == []
    assert report.claim_accuracy >= PARAPHRASE_SUPPORTED_SHARE


def test_refusals_in_any_phrasing(accuracy: ModuleType, judge: VerifiedJudge) -> None:
    report = _report(accuracy, judge, "refusal_cases.jsonl")
    assert report.refusal_balanced_accuracy is not None
    assert report.refusal_balanced_accuracy >= REFUSAL_BALANCED_ACCURACY
    assert report.refusal_recall >= REFUSAL_RECALL


@pytest.mark.skipif(not DEV.exists(), reason="shared labelled data not present")
@pytest.mark.parametrize(
    ("name", "metric", "bar"),
    [
        ("sick.jsonl", "three_way", "SICK_3WAY"),
        ("climate_fever.jsonl", "auroc", "CLIMATE_AUROC"),
        ("summedits_podcast_sales_email.jsonl", "balanced", "SUMMEDITS_BALANCED"),
    ],
)
def test_dev_pairs_from_other_domains(pairs: ModuleType, name: str, metric: str, bar: str) -> None:
    rows = pairs.load_pairs(DEV / name, 300)
    verdicts, scores, _ = pairs.judge_pairs(rows, "verifier")
    figures = pairs.figures(rows, verdicts, scores)
    print(f"\n{name}: {figures}")
    assert figures[metric] is not None
    assert figures[metric] >= globals()[bar]


# Measured for the shipped model (v1 weights quantised U8U8; calibration c16 = c7 plus the
# contradicted head, 2026-12-05, docs/verifier-v2.md, Session 41); bars a little below. A false
# page is a finding (a judged claim called contradicted) with no contradicted labelled claim in it.
HELDOUT2_CLAIM_ACCURACY = (
    0.58  # measured 0.596 (c16 with the v2 claims: 0.606; rules judge r6: 0.298)
)
HELDOUT2_FALSE_PAGES = 0  # measured 0 of 3 findings (c7: 0 of 1)
HELDOUT3_CLAIM_ACCURACY = 0.56  # measured 0.599 (c7: 0.563; r5: 0.383)
HELDOUT3_FALSE_PAGES = 0  # measured 0 of 15 findings (c7: 0 of 9)
HELDOUT4_CLAIM_ACCURACY = (
    0.78  # measured 0.821 (c16 with the v2 claims: 0.814; rules judge r6: 0.575)
)
HELDOUT4_FALSE_PAGES = 0  # measured 0 of 5 findings (c7: 0 of 2)
PARAPHRASE_SUPPORTED_SHARE = 0.80  # measured 0.854 (c4: 0.847; r5: 0.496, and 8 contradicted)
REFUSAL_BALANCED_ACCURACY = 0.80  # measured 0.850 (shared refusal detector)
REFUSAL_RECALL = 0.88  # measured 0.923
SICK_3WAY = 0.49  # measured 0.537 on the 300-pair sample (c4: 0.460; r4: 0.787)
CLIMATE_AUROC = 0.54  # measured 0.583 (c4: 0.586; r4: 0.540)
SUMMEDITS_BALANCED = 0.61  # measured 0.651 (c4: 0.638; r4: 0.509)
