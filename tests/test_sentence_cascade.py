"""The sentence cascade's bar is fitted so that it changes no verdict on the fit set."""

from __future__ import annotations

import numpy as np

from groundwatch.judges.verdict import FEATURES
from training.calibrate import sentence_cascade


def _claims(sentence: list[float], conflict: list[int]) -> np.ndarray:
    x = np.zeros((len(sentence), len(FEATURES)))
    x[:, FEATURES.index("sentence_supported")] = sentence
    x[:, FEATURES.index("value_conflict")] = conflict
    return x


def test_the_bar_sits_above_every_claim_the_model_did_not_call_supported() -> None:
    sure = [0.9 - 0.01 * i for i in range(30)]  # 0.90 .. 0.61, all supported by the model
    x = _claims([*sure, 0.7, 0.95], [0] * 30 + [0, 1])
    verdicts = np.array([0] * 30 + [2, 1])  # a not-found claim at 0.7; a conflict at 0.95
    bar, figures = sentence_cascade(x, verdicts, min_claims=5)
    # the not-found claim at 0.70 bounds the bar from below; the claim with a value conflict
    # is never the cascade's, however sure its sentence
    assert bar == 0.71
    assert figures["cascade_claims"] == 20  # 0.90 .. 0.71
    taken = (x[:, FEATURES.index("sentence_supported")] >= bar) & (
        x[:, FEATURES.index("value_conflict")] == 0
    )
    assert (verdicts[taken] == 0).all()


def test_no_cascade_when_it_would_take_too_few_claims() -> None:
    x = _claims([0.9, 0.8, 0.7], [0, 0, 0])
    bar, figures = sentence_cascade(x, np.array([0, 0, 2]), min_claims=5)
    assert bar is None
    assert figures == {}
