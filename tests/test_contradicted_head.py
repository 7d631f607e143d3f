"""The contradicted head: a second model, with the rules judge's reading among its features, can
also call a claim *contradicted* at its own bar; the base model keeps its own bar and alone
decides supported against not found.
Its file round-trips, the judge measures its features, ``judge bar`` and ``judge adapt`` keep it,
and ``training.calibrate --head-of`` writes it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from groundwatch.judges.adapt import adapt, write_model
from groundwatch.judges.verdict import ClaimFeatures, ContradictedHead, VerdictModel

# base: supported logit = 4 * coverage - 2, contradicted logit = 3 * log P(contradicted) + 2
BASE_W = np.array([[0.0, 4.0], [3.0, 0.0], [0.0, 0.0]])
BASE_B = np.array([-2.0, 2.0, 0.0])
# head: contradicted logit = 6 * rules_contradicted - 3 (the verifier's reading ignored)
HEAD = ContradictedHead(
    ("rules_contradicted",), np.array([[0.0], [6.0], [0.0]]), np.array([0.0, -3.0, 0.0]), 0.9
)


def _model(head: ContradictedHead | None = HEAD) -> VerdictModel:
    return VerdictModel(
        BASE_W,
        BASE_B,
        contradicted_threshold=0.8,
        supported_threshold=0.5,
        version="c-test",
        features=("log_p_contradicted", "coverage"),
        contradicted_head=head,
    )


def _claim(p_con: float, coverage: float, rules: str) -> ClaimFeatures:
    return ClaimFeatures(
        p_supported=1.0 - p_con,
        p_contradicted=p_con,
        p_not_found=0.0,
        coverage=coverage,
        cosine=0.5,
        value_conflict=False,
        value_agreed=False,
        rules_verdict=rules,
    )


def test_either_model_calls_a_contradiction_at_its_own_bar() -> None:
    with_head, without = _model(), _model(None)
    verifier_says_contradicted = _claim(0.95, 0.2, rules="not_found")
    assert without.decide(verifier_says_contradicted).verdict == "contradicted"
    assert with_head.decide(verifier_says_contradicted).verdict == "contradicted"
    rules_say_contradicted = _claim(0.05, 1.0, rules="contradicted")
    assert without.decide(rules_say_contradicted).verdict == "supported"
    decision = with_head.decide(rules_say_contradicted)
    assert decision.verdict == "contradicted"
    assert decision.score == pytest.approx(1 / (1 + 2 * np.exp(-3.0)))  # the head's P
    # the head under its own bar (0.9) calls nothing, whatever the base's bar (0.8)
    weak = dataclasses.replace(HEAD, bias=np.array([0.0, -4.0, 0.0]))  # P = 0.79
    assert _model(weak).decide(rules_say_contradicted).verdict == "supported"
    # below both bars the base model decides supported against not found as before
    supported = _claim(0.05, 1.0, rules="supported")
    assert with_head.decide(supported).verdict == without.decide(supported).verdict == "supported"


def test_the_judge_measures_the_heads_features() -> None:
    assert "rules_contradicted" not in _model(None).read_features
    assert _model().read_features == ("log_p_contradicted", "coverage", "rules_contradicted")


def test_the_head_survives_the_file_the_bar_and_adapt(tmp_path: Path) -> None:
    path = tmp_path / "cal.json"
    write_model(_model(), path)
    loaded = VerdictModel.load(path)
    assert loaded.contradicted_head is not None
    assert loaded.contradicted_head.features == HEAD.features
    claim = _claim(0.05, 1.0, rules="contradicted")
    assert loaded.decide(claim).verdict == "contradicted"
    assert loaded.contradicted_head.threshold == pytest.approx(0.9)
    lowered = loaded.with_bar(0.5).contradicted_head
    assert lowered is not None
    assert lowered.threshold == pytest.approx(0.5)
    right = [(_claim(0.05, 1.0, "contradicted"), True) for _ in range(8)]
    wrong = [(_claim(0.05, 0.9, "contradicted"), False) for _ in range(8)]
    adapted = adapt(loaded, right + wrong)
    assert adapted.contradicted_head is not None
    write_model(adapted, path)
    assert VerdictModel.load(path).contradicted_head is not None


def test_a_head_of_the_wrong_shape_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="contradicted head"):
        ContradictedHead(("rules_contradicted",), np.zeros((3, 2)), np.zeros(3), 0.9)
    path = tmp_path / "cal.json"
    write_model(_model(), path)
    data = json.loads(path.read_text())
    data["contradicted_head"]["features"] = ["no_such_feature"]
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="unknown features"):
        VerdictModel.load(path)


def test_calibrate_writes_the_base_with_the_head() -> None:
    from training.calibrate import with_head

    base = json.loads(
        (
            Path(__file__).resolve().parents[1]
            / "service"
            / "groundwatch"
            / "judges"
            / "verifier_model"
            / "judge_calibration.json"
        ).read_text()
    )
    base = {k: v for k, v in base.items() if k not in ("contradicted_head", "head_fit")}
    base["version"], base["sentence_cascade"] = "c-base", 0.64
    fitted = {
        "version": "c-head",
        "features": ["rules_contradicted"],
        "weights": [[0.0], [6.0], [0.0]],
        "bias": [0.0, -3.0, 0.0],
        "contradicted_threshold": 0.83,
        "sentence_cascade": 0.85,
        "fit_claims": 1,
        "fit_case_claims": 2,
        "fit_figures": {},
        "seed": 13,
    }
    out = with_head(base, fitted)
    assert (out["version"], out["base_version"]) == ("c-head", "c-base")
    assert out["weights"] == base["weights"]
    assert out["features"] == base["features"]
    assert out["contradicted_threshold"] == base["contradicted_threshold"]  # the base keeps its bar
    assert out["contradicted_head"]["threshold"] == 0.83
    assert out["sentence_cascade"] == 0.85  # the higher bar: neither model is overruled
    assert out["contradicted_head"]["features"] == ["rules_contradicted"]
