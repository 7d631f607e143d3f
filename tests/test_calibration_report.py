"""The calibration's report: what each *contradicted* bar predicts, out-of-fold probabilities,
and the written pairs' split (``training.calibrate``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from training.calibrate import bar_table, fit, out_of_fold, verdict_figures, written_pairs
from training.data import CONTRADICTED, NOT_FOUND, SUPPORTED, WRITTEN_HELD_OUT, is_held_out

S, C, N = frozenset({SUPPORTED}), frozenset({CONTRADICTED}), frozenset({NOT_FOUND})
UNSUPPORTED = frozenset({CONTRADICTED, NOT_FOUND})


def _probs(p_contradicted: list[float]) -> np.ndarray:
    c = np.array(p_contradicted)
    return np.column_stack([(1 - c) / 2, c, (1 - c) / 2])


def test_each_bar_counts_predictions_wrong_ones_and_strict_contradictions_found() -> None:
    probs = _probs([0.99, 0.96, 0.91, 0.91, 0.5])
    ys = [C, C, S, UNSUPPORTED, C]
    rows = {r["bar"]: r for r in bar_table(probs, ys, bars=(0.97, 0.90, 0.40))}
    assert rows[0.97] == {
        "bar": 0.97,
        "predicted": 1,
        "wrong": 0,
        "precision": 1.0,
        "found": 1,
        "strict": 3,
    }
    # a binary "unsupported" label is not a wrong contradiction, a supported one is
    assert rows[0.90]["predicted"] == 4
    assert rows[0.90]["wrong"] == 1
    assert rows[0.90]["precision"] == 0.75
    assert rows[0.90]["found"] == 2
    assert rows[0.40]["found"] == 3
    # a not-found label is wrong for a contradiction too
    assert bar_table(_probs([0.95]), [N], bars=(0.9,))[0]["wrong"] == 1


def test_out_of_fold_probabilities_come_from_models_that_did_not_see_the_claim() -> None:
    rng = np.random.default_rng(3)
    # one feature that separates the classes, plus one claim whose label contradicts it
    x = rng.normal(size=(200, 1))
    ys = [C if v > 0 else S for v in x[:, 0]]
    x[0, 0], ys[0] = 3.0, S
    (in_fold,) = out_of_fold([(x, ys, 1)], folds=5)
    assert in_fold.shape == (200, 3)
    assert np.allclose(in_fold.sum(1), 1.0)
    # the odd claim is read as its neighbours are (contradicted): its own label was not fitted
    assert in_fold[0, CONTRADICTED] > 0.9
    right = [int(np.argmax(p)) == next(iter(y)) for p, y in zip(in_fold[1:], ys[1:], strict=True)]
    assert np.mean(right) > 0.9


def test_verdict_figures_at_the_bars() -> None:
    probs = np.array([[0.1, 0.9, 0.0], [0.8, 0.1, 0.1], [0.2, 0.1, 0.7], [0.05, 0.9, 0.05]])
    figures = verdict_figures(probs, [C, S, N, S], t_con=0.85, t_sup=0.5)
    assert figures["accuracy"] == 0.75
    assert figures["contradicted_predicted"] == 2
    assert figures["contradicted_precision"] == 0.5
    assert figures["contradicted_recall_strict"] == 1.0


def test_written_pairs_split_by_passage_as_training_does(tmp_path: Path) -> None:
    rows = []
    for d in range(40):
        for label in ("supported", "contradicted", "not_found"):
            rows.append(
                {"doc": f"doc-{d}", "premise": f"Passage {d}.", "hypothesis": label, "label": label}
            )
    (tmp_path / "wz.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    fit_on, held = written_pairs("all", root=tmp_path)
    assert len(fit_on) + len(held) == 120
    assert held
    assert {p.group for p in fit_on}.isdisjoint({p.group for p in held})
    assert all(is_held_out(p.group, WRITTEN_HELD_OUT) for p in held)
    assert {p.target for p in held} == {S, C, N}
    assert all(p.premise.startswith("Passage") for p in fit_on)  # the passage whole
    assert written_pairs("none", root=tmp_path) == ([], [])
    assert written_pairs("wa", root=tmp_path) == ([], [])


def test_a_claim_only_its_own_label_explains_is_not_memorised_out_of_fold() -> None:
    # every claim has a feature of its own and a random label: fitted in sample the model
    # learns each label from its own feature; out of fold it has never seen that feature
    rng = np.random.default_rng(5)
    x = np.eye(60)
    ys = [C if v else S for v in rng.integers(0, 2, 60)]
    w, b = fit(x, ys)
    z = x @ w.T + b
    in_sample = np.exp(z - z.max(1, keepdims=True))
    in_sample /= in_sample.sum(1, keepdims=True)
    (oof,) = out_of_fold([(x, ys, 1)], folds=5)
    own = [next(iter(y)) for y in ys]
    assert in_sample[np.arange(60), own].mean() > 0.6
    assert oof[np.arange(60), own].mean() < 0.55
