"""The trained claim verifier, its evidence windows and the calibrated verdict model.

Unit tests of the three pieces the embedded judge combines; the judge's accuracy on labelled
data is measured in ``test_judge_accuracy.py``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from groundwatch.judges.embedding import ModelIntegrityError
from groundwatch.judges.evidence_window import evidence_window
from groundwatch.judges.verdict import FEATURES, ClaimFeatures, VerdictModel
from groundwatch.judges.verifier import (
    CONTRADICTED,
    SUPPORTED,
    VERIFIER_DIR,
    VERIFIER_SHA256,
    ClaimVerifier,
    shipped_verifier,
)


@pytest.fixture(scope="module")
def verifier() -> ClaimVerifier:
    return shipped_verifier()


def test_shipped_weights_match_the_pin_and_the_card() -> None:
    meta = json.loads((VERIFIER_DIR / "verifier.json").read_text())
    assert meta["sha256"] == VERIFIER_SHA256
    assert (VERIFIER_DIR / meta["file"]).stat().st_size <= 30 * 1024 * 1024
    card = (Path(__file__).resolve().parents[1] / "docs" / "verifier.md").read_text()
    assert VERIFIER_SHA256 in card


def test_tampered_weights_are_refused(tmp_path: Path) -> None:
    meta = json.loads((VERIFIER_DIR / "verifier.json").read_text())
    copy = tmp_path / "v.onnx"
    shutil.copy(VERIFIER_DIR / meta["file"], copy)
    with copy.open("r+b") as fh:
        fh.seek(-64, 2)
        fh.write(b"\x00" * 64)
    with pytest.raises(ModelIntegrityError):
        ClaimVerifier(copy, expected_sha256=VERIFIER_SHA256)


def test_loads_without_torch() -> None:
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from groundwatch.judges.verifier import ClaimVerifier\n"
        "v = ClaimVerifier.shipped()\n"
        "print(v.predict([('The fee is $5.', 'The fee is $5.')]).shape)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "(1, 3)"


def test_probabilities_are_calibrated_rows_in_input_order(verifier: ClaimVerifier) -> None:
    premise = "Annual plans can be refunded within 30 days of purchase."
    pairs = [
        (premise, "Annual plans can be refunded within 30 days of purchase."),
        ("The office is closed on public holidays.", "Annual plans can be refunded."),
        (premise, "Annual plans can be refunded within 30 days of purchase."),
    ]
    probs = verifier.predict(pairs)
    assert probs.shape == (3, 3)
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    assert np.allclose(probs[0], probs[2], atol=1e-6)  # order restored after length sorting
    assert probs[0, SUPPORTED] > probs[1, SUPPORTED]
    assert verifier.predict([]).shape == (0, 3)


def test_truncation_cuts_the_premise_never_the_claim(verifier: ClaimVerifier) -> None:
    long_premise = "Filler words about nothing in particular. " * 80
    claim = "The warranty covers water damage for two years."
    ids, types = verifier._encode(long_premise, claim)
    assert len(ids) == verifier.max_length
    claim_ids = verifier._tok.encode(claim).ids[1:-1]
    assert ids[-len(claim_ids) - 1 : -1] == claim_ids
    assert types[-1] == 1


def test_evidence_window_keeps_best_sentences_in_order_within_budget() -> None:
    sentences = [f"Sentence {i} talks about topic {i} at some length here." for i in range(30)]
    sentences[17] = "The refund window for annual plans is 30 days."
    window = evidence_window(sentences, "How long is the refund window for annual plans?", 30)
    assert "refund window for annual plans is 30 days" in window
    assert len(window.split()) <= 30
    assert window.index("refund window") < window.index("Sentence 18")  # neighbour follows
    short = ["One short passage.", "Two sentences."]
    assert evidence_window(short, "anything") == "One short passage. Two sentences."
    assert evidence_window([], "anything") == ""


def _model(con: float, sup: float) -> VerdictModel:
    # Each class' logit is its own log-probability feature: the model passes them through.
    w = np.zeros((3, len(FEATURES)))
    w[0, 0] = w[1, 1] = w[2, 2] = 1.0
    return VerdictModel(w, np.zeros(3), contradicted_threshold=con, supported_threshold=sup)


def _features(ps: float, pc: float, pn: float) -> ClaimFeatures:
    return ClaimFeatures(ps, pc, pn, coverage=0.5, cosine=0.5, value_conflict=False,
                         value_agreed=False)  # fmt: skip


def test_verdict_model_checks_contradiction_first_then_support() -> None:
    model = _model(con=0.8, sup=0.5)
    assert model.decide(_features(0.05, 0.9, 0.05)).verdict == "contradicted"
    # likely contradicted, but under the precision threshold: not a finding
    assert model.decide(_features(0.25, 0.7, 0.05)).verdict == "not_found"
    assert model.decide(_features(0.6, 0.3, 0.1)).verdict == "supported"
    assert model.decide(_features(0.4, 0.2, 0.4)).verdict == "not_found"
    d = model.decide(_features(0.9, 0.05, 0.05))
    assert d.rule == "model"
    assert d.score == pytest.approx(d.probabilities[0])


def test_verdict_model_file_is_checked(tmp_path: Path) -> None:
    shipped = json.loads((VERIFIER_DIR / "judge_calibration.json").read_text())
    assert set(shipped["features"]) <= set(FEATURES)
    assert VerdictModel.shipped().features == tuple(shipped["features"])
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(dict(shipped, features=["cosine"])))  # 1 name, more weights
    with pytest.raises(ValueError, match="features"):
        VerdictModel.load(path)
    renamed = [*shipped["features"][:-1], "moon_phase"]
    path.write_text(json.dumps(dict(shipped, features=renamed)))
    with pytest.raises(ValueError, match=r"unknown features.*moon_phase"):
        VerdictModel.load(path)


def test_verdict_model_reads_only_its_features_in_its_order() -> None:
    # Two features, named in reverse order of FEATURES: the weights apply to those columns.
    w = np.array([[0.0, 4.0], [0.0, 0.0], [4.0, 0.0]])
    model = VerdictModel(w, np.zeros(3), 0.9, 0.5, features=("rules_supported", "coverage"))
    sup = ClaimFeatures(0.0, 0.0, 0.0, coverage=1.0, cosine=0.0, value_conflict=False,
                        value_agreed=False, rules_verdict="not_found")  # fmt: skip
    assert model.decide(sup).verdict == "supported"
    nf = ClaimFeatures(0.9, 0.0, 0.0, coverage=0.0, cosine=0.9, value_conflict=False,
                       value_agreed=False, rules_verdict="supported")  # fmt: skip
    assert model.decide(nf).verdict == "not_found"


def test_rules_features_keep_a_negation_apart_from_other_contradictions() -> None:
    def values(verdict: str, negation: bool = False, score: float = 0.8) -> dict[str, float]:
        return ClaimFeatures(0.3, 0.3, 0.3, 0.5, 0.5, value_conflict=False, value_agreed=False,
                             rules_verdict=verdict, rules_strength=score,
                             rules_negation=negation).values()  # fmt: skip

    neg = values("contradicted", negation=True, score=0.0)
    assert (neg["rules_negation"], neg["rules_contradicted"]) == (1.0, 0.0)
    other = values("contradicted", score=0.0)
    assert (other["rules_negation"], other["rules_contradicted"]) == (0.0, 1.0)
    sup = values("supported")
    assert (sup["rules_supported"], sup["rules_strength"], sup["rules_contradicted"]) == (
        1.0,
        0.8,
        0.0,
    )
    assert values("")["rules_supported"] == 0.0  # the rules judge was not asked


def test_value_conflict_feature_raises_contradiction() -> None:
    model = VerdictModel.shipped()
    base = ClaimFeatures(0.3, 0.4, 0.3, 0.9, 0.9, value_conflict=False, value_agreed=False)
    conflict = ClaimFeatures(0.3, 0.4, 0.3, 0.9, 0.9, value_conflict=True, value_agreed=False)
    assert model.probabilities(conflict)[CONTRADICTED] > model.probabilities(base)[CONTRADICTED]


def test_a_pair_scores_the_same_alone_and_beside_others() -> None:
    """The int8 model quantises activations per call: a pair's score must not depend on which
    other pairs (of other lengths) share its call."""
    verifier = shipped_verifier()
    pair = ("Annual plans can be refunded within 30 days of purchase.", "Refunds take 30 days.")
    others = [
        ("Monthly plans renew on the first day of each month. " * 6, "Plans renew monthly."),
        ("The office is closed on public holidays.", "The office opens on holidays."),
    ]
    alone = verifier.predict([pair])[0]
    beside = verifier.predict([others[0], pair, others[1]])[1]
    assert np.array_equal(alone, beside)


def test_pairs_spread_over_threads_score_as_on_one() -> None:
    """The pairs of a call run on several worker threads: the same rows, in input order, as one
    thread gives."""
    one = ClaimVerifier.shipped(threads=1)
    many = ClaimVerifier.shipped(threads=3)
    pairs = [
        (
            f"Plan {i} costs ${10 + i} a month and renews on day {i + 1}. " * (1 + i % 4),
            f"Plan {i}.",
        )
        for i in range(12)
    ]
    assert many.threads == 3
    assert np.array_equal(one.logits(pairs), many.logits(pairs))
    assert np.array_equal(many.logits(pairs[5:6]), one.logits(pairs)[5:6])
    assert many.logits([]).shape == (0, 3)
