"""``groundwatch judge adapt`` (issue 35, step 3): the contradicted filter fitted on labelled
findings, its calibration file with its own version, the setting that applies it (and changes
metric_version), and the command on an export of GET /v1/findings/cases."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from groundwatch.cli.entry import _parser
from groundwatch.cli.judge import run_judge
from groundwatch.contract.case import (
    CaseOrigin,
    ClaimLabel,
    ContradictedClaim,
    EvalCase,
    EvidenceQuote,
)
from groundwatch.judges.adapt import (
    AdaptError,
    adapt,
    contradicted_figures,
    predicts_contradicted,
    split_labels,
    write_model,
)
from groundwatch.judges.verdict import ClaimFeatures, Decision, VerdictModel
from groundwatch.sections.judging import JudgeSettings
from groundwatch.settings import Settings

FEATURES = ("log_p_contradicted", "coverage")
BASE = VerdictModel(
    # contradicted logit = 3 * log P(contradicted) + 10: high for any claim the verifier
    # reads as contradicted, whatever its coverage; supported logit = 4 * coverage.
    np.array([[0.0, 4.0], [3.0, 0.0], [0.0, 0.0]]),
    np.array([0.0, 10.0, 0.0]),
    0.9,
    0.5,
    version="t1",
    features=FEATURES,
)


def _claim(right: bool, rng: random.Random) -> ClaimFeatures:
    # In this deployment the judge's wrong contradictions are reworded claims (high word
    # coverage); the right ones share fewer words with the passage.
    coverage = rng.uniform(0.7, 1.0) if not right else rng.uniform(0.2, 0.6)
    return ClaimFeatures(
        p_supported=0.01,
        p_contradicted=0.95,
        p_not_found=0.04,
        coverage=coverage,
        cosine=0.5,
        value_conflict=False,
        value_agreed=False,
        claim=f"claim {rng.random()}",
    )


def _rows(n: int, share_right: float, seed: int) -> list[tuple[ClaimFeatures, bool]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        right = rng.random() < share_right
        out.append((_claim(right, rng), right))
    return out


def test_adapting_on_labelled_findings_raises_precision_on_held_out_ones() -> None:
    fit, held = _rows(50, 0.5, seed=1), _rows(200, 0.5, seed=2)
    assert all(predicts_contradicted(BASE, [f for f, _ in fit + held]))  # all are findings
    model = adapt(BASE, fit)
    before, after = contradicted_figures(BASE, held), contradicted_figures(model, held)
    assert before.precision is not None
    assert after.precision is not None
    assert after.recall is not None
    assert before.precision < 0.6
    assert after.precision > 0.9
    assert after.recall > 0.8
    assert model.version.startswith("t1-adapt-")
    assert model.version != adapt(BASE, _rows(50, 0.5, seed=3)).version
    # A dropped contradiction is decided as if the model had not called it contradicted.
    wrong = next(f for f, r in held if not r)
    assert BASE.decide(wrong).verdict == "contradicted"
    assert model.decide(wrong).verdict in {"supported", "not_found"}


def test_adapt_refuses_too_few_labels_or_labels_of_one_kind() -> None:
    with pytest.raises(AdaptError, match="at least 10"):
        adapt(BASE, _rows(5, 0.5, seed=1))
    with pytest.raises(AdaptError, match="every label is right"):
        adapt(BASE, _rows(20, 1.0, seed=1))


def test_the_calibration_file_round_trips_and_the_setting_changes_metric_version(
    tmp_path: Path,
) -> None:
    model = adapt(BASE, _rows(40, 0.5, seed=4))
    path = tmp_path / "cal.json"
    write_model(model, path, adapted_from="t1")
    loaded = VerdictModel.load(path)
    assert loaded.version == model.version
    assert loaded.contradicted_filter is not None
    held = _rows(50, 0.5, seed=5)
    assert predicts_contradicted(loaded, [f for f, _ in held]) == predicts_contradicted(
        model, [f for f, _ in held]
    )
    from groundwatch.judges.factory import build_judge

    shipped = build_judge(JudgeSettings(backend="verifier"))
    adapted = build_judge(JudgeSettings(backend="verifier", calibration_path=str(path)))
    assert f"cal-{model.version}/" in adapted.version
    assert adapted.version != shipped.version


class _ScriptedJudge:
    """Stands in for the verifier judge: hands the recorder the features scripted per claim."""

    def __init__(self, features: dict[str, ClaimFeatures]):
        self.features = features
        self.recorder: Any = None

    def judge_batch(self, traces: list[Any]) -> None:
        for trace in traces:
            for claim in trace.answer.split(" | "):
                self.recorder.decide(self.features[claim])


class _Recorder:
    def __init__(self) -> None:
        self.seen: list[ClaimFeatures] = []

    def decide(self, features: ClaimFeatures) -> Decision:
        self.seen.append(features)
        return Decision("not_found", 0.5, "recording")


def test_judge_adapt_on_an_export_writes_a_calibration_and_prints_before_and_after(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(7)
    scripted: dict[str, ClaimFeatures] = {}
    cases = []
    for i in range(60):
        right = rng.random() < 0.5
        text = f"the fee for plan {i} is {i} dollars"
        scripted[text] = ClaimFeatures(**{**_claim(right, rng).__dict__, "claim": text})
        cases.append(
            EvalCase(
                id=f"finding-t{i}",
                question=f"What is the fee for plan {i}?",
                evidence=[EvidenceQuote(doc_id="d", quote=f"Plan {i} costs {i + 1} dollars.")],
                needs_review=True,
                origin=CaseOrigin(
                    trace_id=f"t{i}",
                    answer=text,
                    contradicted=[
                        ContradictedClaim(
                            claim=text,
                            claim_index=0,
                            label=ClaimLabel(label="right" if right else "wrong"),
                        )
                    ],
                ),
            )
        )
    export = tmp_path / "labelled.jsonl"
    export.write_text("".join(c.model_dump_json() + "\n" for c in cases))
    base = tmp_path / "base.json"
    write_model(BASE, base)
    out = tmp_path / "adapted.json"
    args = _parser().parse_args(
        ["judge", "adapt", str(export), "-o", str(out), "--base", str(base), "--json"]
    )
    judge = _ScriptedJudge(scripted)
    judge.recorder = _Recorder()
    assert run_judge(Settings(), args, judge=(judge, judge.recorder)) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["labels"] == 60
    assert report["fit_labels"] == 42
    before, after = report["held_out"]["before"], report["held_out"]["after"]
    assert after["contradicted_precision"] > before["contradicted_precision"]
    written = json.loads(out.read_text())
    assert written["version"] == report["version"] != BASE.version
    assert written["adapted_from"] == "t1"
    assert VerdictModel.load(out).contradicted_filter is not None


def test_split_labels_is_seeded_and_holds_out_the_share() -> None:
    rows = _rows(20, 0.5, seed=1)
    fit, held = split_labels(rows, 0.3, seed=3)
    assert len(held) == 6
    assert len(fit) == 14
    assert split_labels(rows, 0.3, seed=3) == (fit, held)


RIGHT_IDS = ("wa-13-6", "wa-16-5", "wa-18-6", "wa-21-6", "wa-33-6", "wa-40-5", "wb-01-5", "wb-03-5")
WRONG_IDS = ("wa-01-3", "wa-06-4", "wa-09-1", "wa-14-2", "wa-17-1", "wa-17-4", "wa-30-1", "wa-30-7")


@pytest.mark.slow
def test_judge_adapt_runs_the_real_verifier_on_an_exported_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Findings the shipped verifier judge makes on written pairs (8 right, 8 wrong), exported
    as GET /v1/findings/cases writes them: the command re-reads each claim with the real judge,
    matches every label and writes a calibration the factory loads."""
    from groundwatch.cli.entry import main

    wanted = {**dict.fromkeys(RIGHT_IDS, "right"), **dict.fromkeys(WRONG_IDS, "wrong")}
    root = Path(__file__).resolve().parents[1] / "training" / "written"
    cases = []
    for path in (root / "wa.jsonl", root / "wb.jsonl"):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            if row["id"] not in wanted:
                continue
            cases.append(
                EvalCase(
                    id=f"finding-{row['id']}",
                    question="(question not recorded)",
                    evidence=[EvidenceQuote(doc_id=row["doc"], quote=row["premise"])],
                    needs_review=True,
                    origin=CaseOrigin(
                        trace_id=row["id"],
                        answer=row["hypothesis"],
                        contradicted=[
                            ContradictedClaim(
                                claim=row["hypothesis"],
                                claim_index=0,
                                label=ClaimLabel(label=wanted[row["id"]]),  # type: ignore[arg-type]
                            )
                        ],
                    ),
                )
            )
    assert len(cases) == 16
    export = tmp_path / "labelled.jsonl"
    export.write_text("".join(c.model_dump_json() + "\n" for c in cases))
    out = tmp_path / "cal.json"
    code = main(["judge", "adapt", str(export), "-o", str(out), "--holdout", "0.25", "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["labels"] == 16  # every finding matched to the judge's own claim
    assert report["held_out"]["before"]["labels"] == 4
    assert report["version"].startswith(VerdictModel.shipped().version + "-adapt-")
    assert VerdictModel.load(out).version == report["version"]


def test_judge_bar_writes_a_triage_calibration_that_finds_more_and_then_adapts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A lower bar (``judge bar``) calls more claims contradicted, under its own version; the
    filter ``judge adapt --base`` fits on that file keeps its bar, so the adapted judge drops
    findings of the triage calibration, never those of the shipped bar alone."""
    base_path = tmp_path / "base.json"
    write_model(BASE, base_path)
    out = tmp_path / "triage.json"
    args = _parser().parse_args(["judge", "bar", "0.5", "-o", str(out), "--base", str(base_path)])
    assert run_judge(Settings(), args) == 0
    assert "0.90 -> 0.50" in capsys.readouterr().out
    triage = VerdictModel.load(out)
    assert triage.version == "t1-bar0.50"
    assert triage.contradicted_threshold == pytest.approx(0.5)
    assert triage.contradicted_filter is None
    # logits (supported, contradicted, not found) = (0, 3 * log(0.06) + 10 = 1.56, 0): the
    # model's P(contradicted) is 0.70, between the two bars
    between = ClaimFeatures(
        p_supported=0.0,
        p_contradicted=0.06,
        p_not_found=0.94,
        coverage=0.0,
        cosine=0.5,
        value_conflict=False,
        value_agreed=False,
        claim="between the bars",
    )
    p_contra = BASE.probabilities(between)[1]
    assert 0.5 <= p_contra < 0.9
    assert predicts_contradicted(triage, [between]) == [True]
    assert predicts_contradicted(BASE, [between]) == [False]
    adapted = adapt(triage, _rows(40, 0.5, seed=6))
    assert adapted.contradicted_threshold == pytest.approx(0.5)
    assert adapted.version.startswith("t1-bar0.50-adapt-")
    bad = _parser().parse_args(["judge", "bar", "1.5", "-o", str(tmp_path / "x.json")])
    assert run_judge(Settings(), bad) == 2
    assert not (tmp_path / "x.json").exists()
