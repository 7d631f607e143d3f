"""Adapt the verdict model to a deployment from its triage labels (``groundwatch judge adapt``).

Usage::

    claims = labelled_claims(cases)                 # GET /v1/findings/cases export, labelled
    rows = claim_features(claims, judge)            # the judge's features of each labelled claim
    fit, held = split_labels(rows, holdout=0.3, seed=0)
    model = adapt(VerdictModel.shipped(), fit)      # a new calibration with its own version
    before, after = contradicted_figures(base, held), contradicted_figures(model, held)
    model.save(path, extra={...})                   # GROUNDWATCH_JUDGE__CALIBRATION_PATH=path

Every finding is a claim the judge called *contradicted*; a *right* label says it is, *wrong*
says it is not (*unsure* is left out). The labels can only teach the model which of its
contradictions to drop or keep, so the adaptation changes the contradicted decision alone: a
:class:`~groundwatch.judges.verdict.ContradictedFilter` (logistic over the model's features,
standardised, L2) is fitted on the labelled findings, right against wrong, with its bar chosen
on the same labels (F0.5: precision weighted over the share of right findings kept). A
contradiction the filter scores below its bar is decided as if the model had not called it
contradicted. The weights, thresholds and sentence cascade of the base model stay as they were,
so the adapted judge can only drop findings, never add one.

Recall here is relative: of the findings labelled right, the share the new model still calls
contradicted. A contradiction the judge never flagged is never a finding, so no label can say
the new model finds it; the simulation (``benchmarks/triage_adapt.py``) measures recall over
every labelled claim instead.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from groundwatch.contract.case import EvalCase
from groundwatch.judges.verdict import (
    FEATURES,
    ClaimFeatures,
    ContradictedFilter,
    Decision,
    VerdictModel,
)
from groundwatch.sections.judging import EmbeddingSettings

__all__ = [
    "DROP_BY_CODE",
    "DROP_NOT_CONTRADICTED",
    "DROP_NO_MATCH",
    "DROP_NO_TEXT",
    "AdaptError",
    "ContradictedFigures",
    "LabelledFinding",
    "adapt",
    "adapted_version",
    "claim_features",
    "contradicted_figures",
    "fit_filter",
    "labelled_claims",
    "model_to_json",
    "predicts_contradicted",
    "split_labels",
]

# Why a labelled finding does not reach the fit (``judge adapt`` prints each with its count).
#: The export has no trace text for it (redaction mode drop_text, no answer or passages).
DROP_NO_TEXT = "no trace text in the export (redaction drop_text, or no answer or passages)"
#: The judge decides the claim by code before the verdict model: a negation, the passage's own
#: words, an absent name. The filter sits on the model's decision, so it has nothing to learn.
DROP_BY_CODE = (
    "decided by code before the verdict model (a negation, the passage's own words or an "
    "absent name), which the filter cannot change"
)
#: No claim the judge makes of the trace now reads like the labelled one.
DROP_NO_MATCH = "the judge no longer makes this claim (its claims of the trace read differently)"
#: The base calibration does not call the claim contradicted now (another calibration found it).
DROP_NOT_CONTRADICTED = "the base calibration does not call it contradicted"
#: (finding, reason) of each labelled finding left out; reasons are the DROP_* texts.
Dropped = list[tuple["LabelledFinding", str]]

Vector = npt.NDArray[np.float64]


class AdaptError(ValueError):
    """The labels cannot adapt the model (too few, or of one kind only). Not retriable."""

    retriable = False


@dataclass(frozen=True)
class LabelledFinding:
    """One labelled finding from an export: the trace text and the claim; ``right`` is the
    engineer's word that the judge was right (the claim is contradicted)."""

    trace_id: str
    question: str
    passages: tuple[str, ...]
    answer: str
    claim: str
    right: bool


def labelled_claims(
    cases: Iterable[EvalCase], dropped: Dropped | None = None
) -> list[LabelledFinding]:
    """The right/wrong-labelled findings of exported draft cases (unsure and unlabelled ones
    are left out; right/wrong ones without the trace text too, appended to ``dropped``)."""
    out: list[LabelledFinding] = []
    for case in cases:
        origin = case.origin
        if origin is None:
            continue
        if not origin.answer or not case.evidence:
            if dropped is not None:
                dropped += [
                    (
                        LabelledFinding(origin.trace_id, case.question, (), "", c.claim, False),
                        DROP_NO_TEXT,
                    )
                    for c in origin.contradicted
                    if c.label is not None and c.label.label != "unsure"
                ]
            continue
        passages = tuple(getattr(e, "quote", "") for e in case.evidence)
        for c in origin.contradicted:
            if c.label is None or c.label.label == "unsure":
                continue
            out.append(
                LabelledFinding(
                    trace_id=origin.trace_id,
                    question=case.question,
                    passages=passages,
                    answer=origin.answer,
                    claim=c.claim,
                    right=c.label.label == "right",
                )
            )
    return out


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _overlap(a: str, b: str) -> float:
    wa, wb = _words(a), _words(b)
    return len(wa & wb) / max(1, len(wa | wb))


class _Recorder(VerdictModel):
    """Records the features of every claim the model is asked about (reads every feature)."""

    def __init__(self) -> None:
        super().__init__(np.zeros((3, len(FEATURES))), np.zeros(3), 2.0, 2.0, version="record")
        self.seen: list[ClaimFeatures] = []
        #: Every claim of the last trace judged, the model's or decided by code.
        self.claims: list[str] = []

    def decide(self, features: ClaimFeatures) -> Decision:
        self.seen.append(features)
        return Decision("not_found", 0.5, "recording")


def recording_judge(
    embedder: Any = None, embedding: EmbeddingSettings | None = None
) -> tuple[Any, _Recorder]:
    """A verifier judge whose verdict model records features instead of deciding; its
    sentence embedder is ``embedder``, else built from the ``embedding`` section (the
    deployment's: ``groundwatch judge adapt`` passes it; its defaults when None)."""
    from groundwatch.judges.embedding import build_embedder
    from groundwatch.judges.verified import VerifiedJudge

    recorder = _Recorder()
    built = embedder or build_embedder(embedding or EmbeddingSettings())
    judge = VerifiedJudge(built, verdicts=recorder)
    return judge, recorder


def trace_features(
    judge: Any, recorder: _Recorder, question: str, passages: Sequence[str], answer: str
) -> list[ClaimFeatures]:
    """The features of every model-decided claim of one trace (claims the judge decides
    without the model, a passage's own words or an absent name, are not among them)."""
    from groundwatch.contract.trace import RagTrace

    trace = RagTrace(trace_id="adapt", question=question, contexts=list(passages), answer=answer)
    recorder.seen.clear()
    judged = judge.judge_batch([trace])
    recorder.claims = [c.text for j in judged or [] for c in getattr(j, "claims", [])]
    return list(recorder.seen)


def claim_features(
    findings: Sequence[LabelledFinding],
    judge: Any = None,
    recorder: _Recorder | None = None,
    dropped: Dropped | None = None,
) -> list[tuple[ClaimFeatures, bool]]:
    """(features, right) of each labelled finding, matched to the judge's model-decided claims
    of its trace by word overlap (>= 0.5). A finding left out is appended to ``dropped`` with
    why: its claim is decided by code (:data:`DROP_BY_CODE`) or no longer made
    (:data:`DROP_NO_MATCH`)."""
    if judge is None or recorder is None:
        judge, recorder = recording_judge()
    by_trace: dict[tuple[str, str], list[LabelledFinding]] = {}
    for f in findings:
        by_trace.setdefault((f.trace_id, f.answer), []).append(f)
    out: list[tuple[ClaimFeatures, bool]] = []
    for group in by_trace.values():
        first = group[0]
        seen = trace_features(judge, recorder, first.question, first.passages, first.answer)
        for f in group:
            best = max(seen, key=lambda s: _overlap(s.claim, f.claim), default=None)
            if best is not None and _overlap(best.claim, f.claim) >= 0.5:
                out.append((best, f.right))
            elif dropped is not None:
                made = any(_overlap(c, f.claim) >= 0.5 for c in recorder.claims)
                dropped.append((f, DROP_BY_CODE if made else DROP_NO_MATCH))
    return out


def split_labels(
    rows: Sequence[tuple[ClaimFeatures, bool]], holdout: float, seed: int = 0
) -> tuple[list[tuple[ClaimFeatures, bool]], list[tuple[ClaimFeatures, bool]]]:
    """(fit, held out): a seeded shuffle, ``holdout`` of the rows held out (at least one of
    each when there are two or more)."""
    order = list(rows)
    random.Random(seed).shuffle(order)
    n_held = round(len(order) * holdout)
    if len(order) >= 2:
        n_held = min(max(1, n_held), len(order) - 1)
    return order[n_held:], order[:n_held]


def _cascade(model: VerdictModel, f: ClaimFeatures) -> bool:
    """Whether the judge's sentence cascade decides the claim supported before the model."""
    bar = model.sentence_cascade
    if bar is None:
        return False
    minimal = f.restated_supported > 0.0 or f.swap_supported > 0.0
    return f.sentence_supported >= bar and not minimal and not f.value_conflict


def predicts_contradicted(model: VerdictModel, features: Sequence[ClaimFeatures]) -> list[bool]:
    """Whether the judge with ``model`` calls each claim contradicted (cascade included)."""
    return [not _cascade(model, f) and model.decide(f).verdict == "contradicted" for f in features]


@dataclass(frozen=True)
class ContradictedFigures:
    """Contradicted precision and (relative) recall on labelled findings."""

    n: int
    right: int
    predicted: int
    true_positive: int

    @property
    def precision(self) -> float | None:
        return self.true_positive / self.predicted if self.predicted else None

    @property
    def recall(self) -> float | None:
        return self.true_positive / self.right if self.right else None

    def to_json(self) -> dict[str, Any]:
        return {
            "labels": self.n,
            "right": self.right,
            "contradicted_predicted": self.predicted,
            "contradicted_precision": _round(self.precision),
            "contradicted_recall_of_right": _round(self.recall),
        }


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 4)


def contradicted_figures(
    model: VerdictModel, rows: Sequence[tuple[ClaimFeatures, bool]]
) -> ContradictedFigures:
    flagged = predicts_contradicted(model, [f for f, _ in rows])
    right = [r for _, r in rows]
    return ContradictedFigures(
        n=len(rows),
        right=sum(right),
        predicted=sum(flagged),
        true_positive=sum(1 for p, r in zip(flagged, right, strict=True) if p and r),
    )


def _fit_logistic(x: Vector, y: Vector, l2: float, steps: int = 100) -> Vector:
    """Newton steps for sigmoid(x @ w[:-1] + w[-1]) with L2 ``l2`` on w[:-1] (weak on the bias)."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(xb.shape[1])
    reg = np.full(xb.shape[1], l2)
    reg[-1] = 1e-3
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(xb @ w)))
        grad = xb.T @ (p - y) + reg * w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + np.diag(reg)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return w


def _f_half(tp: int, predicted: int, right: int) -> float:
    if tp == 0:
        return 0.0
    precision, recall = tp / predicted, tp / right
    return 1.25 * precision * recall / (0.25 * precision + recall)


def _threshold(p: Vector, y: Vector) -> float:
    """The bar on the filter's score with the best F0.5 on the fit labels (precision weighted
    over the share of right findings kept); the lowest of equal ones."""
    right = int(y.sum())
    best, best_t = -1.0, 0.0
    for t in sorted({0.0, *(float(v) for v in p)}):
        keep = p >= t
        score = _f_half(int((keep & (y > 0)).sum()), int(keep.sum()), right)
        if score > best + 1e-12:
            best, best_t = score, t
    return best_t


def adapted_version(base: str, gate: ContradictedFilter) -> str:
    """``<base>-adapt-<hash of the filter>``: a new metric_version for every new fit."""
    digest = hashlib.sha256(json.dumps(gate.to_json(), sort_keys=True).encode()).hexdigest()[:8]
    return f"{base}-adapt-{digest}"


def fit_filter(
    rows: Sequence[tuple[ClaimFeatures, bool]],
    features: Sequence[str],
    *,
    l2: float = 1.0,
    min_labels: int = 10,
) -> ContradictedFilter:
    """The filter over ``features`` fitted right-against-wrong on labelled findings (each row a
    claim some judge called contradicted), its bar chosen for F0.5 on them. :class:`AdaptError`
    with fewer than ``min_labels`` rows or without both kinds."""
    if len(rows) < min_labels:
        raise AdaptError(f"{len(rows)} right/wrong labels: at least {min_labels} are needed")
    y = np.array([1.0 if r else 0.0 for _, r in rows])
    if y.min() == y.max():
        kind = "right" if y[0] else "wrong"
        raise AdaptError(f"every label is {kind}: the model cannot learn which to drop")
    x = np.array([f.vector(features) for f, _ in rows])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-9] = 1.0  # a constant feature gets no weight from the L2 anyway
    w = _fit_logistic((x - mean) / scale, y, l2)
    weights = w[:-1] / scale
    bias = float(w[-1] - (w[:-1] * mean / scale).sum())
    p = 1.0 / (1.0 + np.exp(-(x @ weights + bias)))
    return ContradictedFilter(weights, bias, _threshold(p, y), labels=len(rows))


def adapt(
    base: VerdictModel,
    rows: Sequence[tuple[ClaimFeatures, bool]],
    *,
    l2: float = 1.0,
    min_labels: int = 10,
) -> VerdictModel:
    """``base`` with a :class:`ContradictedFilter` fitted on ``rows`` (see module docstring).
    Rows the base model does not call contradicted (the claim reads differently now) are left
    out. :class:`AdaptError` with fewer than ``min_labels`` rows or without both kinds (its
    message counts the rows left out, :data:`DROP_NOT_CONTRADICTED`)."""
    flagged = predicts_contradicted(base.without_filter(), [f for f, _ in rows])
    kept = [row for row, keep in zip(rows, flagged, strict=True) if keep]
    try:
        gate = fit_filter(kept, base.features, l2=l2, min_labels=min_labels)
    except AdaptError as exc:
        if len(kept) == len(rows):
            raise
        raise AdaptError(
            f"{exc} ({len(rows) - len(kept)} left out: {DROP_NOT_CONTRADICTED})"
        ) from None
    return VerdictModel(
        base.weights,
        base.bias,
        base.contradicted_threshold,
        base.supported_threshold,
        version=adapted_version(base.version, gate),
        features=base.features,
        sentence_cascade=base.sentence_cascade,
        contradicted_filter=gate,
        contradicted_head=base.contradicted_head,
    )


def model_to_json(model: VerdictModel, **extra: Any) -> dict[str, Any]:
    """The calibration file of ``model`` (what :meth:`VerdictModel.load` reads)."""
    return {
        "version": model.version,
        "features": list(model.features),
        "weights": np.round(model.weights, 6).tolist(),
        "bias": np.round(model.bias, 6).tolist(),
        "contradicted_threshold": round(model.contradicted_threshold, 6),
        "supported_threshold": model.supported_threshold,
        "sentence_cascade": model.sentence_cascade,
        "contradicted_filter": (
            None if model.contradicted_filter is None else model.contradicted_filter.to_json()
        ),
        **(
            {"contradicted_head": model.contradicted_head.to_json()}
            if model.contradicted_head is not None
            else {}
        ),
        **extra,
    }


def write_model(model: VerdictModel, path: Path, **extra: Any) -> None:
    path.write_text(json.dumps(model_to_json(model, **extra), indent=2) + "\n", encoding="utf-8")
