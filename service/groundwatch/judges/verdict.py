"""The claim verdict: features of a claim against its evidence -> supported / contradicted /
not found, by a small calibrated model, with the rule that decided recorded as data.

Usage::

    model = VerdictModel.shipped()
    decision = model.decide(ClaimFeatures(p_supported=0.9, p_contradicted=0.05, ...))
    decision.verdict, decision.score, decision.rule     # "supported", 0.93, "model"

The features are the verifier's probabilities (best evidence window), the claim's weighted word
coverage and cosine against its best-aligned sentence, and the code-checked value slots (a
number, date or year that disagrees, or agrees, in a sentence clearly about the same thing, and
whether a disagreeing value came with no agreeing one), and, for a disagreeing value, the
verifier's reading of the minimal pair: that sentence's window against the claim restated with
the evidence's value, and against the claim as said (``restated_supported``, ``restated_gain``).
A contradiction is the evidence saying the same thing with another value; a value about
something else leaves the restated claim unsupported too.
The aligned swap (``swap_supported``, ``swap_gain``; :mod:`groundwatch.judges.rules.swap`) is the
same reading for any other word: the claim with the one span where it differs from its evidence
sentence put back as the evidence says it.
The verifier's reading of the claim against its best-aligned sentences alone, without the
window's neighbours (``sentence_supported``, ``sentence_contradicted``), is a second view of the
same evidence.
A multinomial logistic model over them is fitted on held-out labelled pairs
(``training/calibrate.py``, never on ``dev/``), and the thresholds are chosen there: first the
*contradicted* threshold, for precision, then the supported one. Hand-set weights do not appear
here; the numbers come from ``verifier_model/judge_calibration.json``.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import numpy.typing as npt

__all__ = [
    "FEATURES",
    "ClaimFeatures",
    "ContradictedFilter",
    "ContradictedHead",
    "Decision",
    "VerdictModel",
]

Verdict = Literal["supported", "contradicted", "not_found"]
_VERDICTS: tuple[Verdict, Verdict, Verdict] = ("supported", "contradicted", "not_found")
CALIBRATION = Path(__file__).resolve().parent / "verifier_model" / "judge_calibration.json"
#: Every feature a claim has; a calibration file names the ones its model reads, in order.
FEATURES = (
    "log_p_supported",
    "log_p_contradicted",
    "log_p_not_found",
    "coverage",
    "cosine",
    "value_conflict",
    "value_agreed",
    "value_conflict_alone",
    "restated_supported",
    "restated_gain",
    "swap_supported",
    "swap_gain",
    "sentence_supported",
    "sentence_contradicted",
    "rules_supported",
    "rules_strength",
    "rules_contradicted",
    "rules_negation",
)


def _log(p: float) -> float:
    return math.log(min(1.0, max(1e-6, p)))


@dataclass(frozen=True)
class ClaimFeatures:
    """What the judge measured about one claim against its best evidence."""

    p_supported: float
    p_contradicted: float
    p_not_found: float
    coverage: float
    cosine: float
    value_conflict: bool
    value_agreed: bool
    #: P(supported) of the claim restated with the disagreeing evidence value, on that
    #: sentence's window (0 without a value conflict that can be restated).
    restated_supported: float = 0.0
    #: How much more the window supports the restated claim than the claim itself (-1..1).
    restated_gain: float = 0.0
    #: The same two for the aligned swap (:mod:`groundwatch.judges.rules.swap`): the claim with the
    #: one differing span of its evidence sentence put back (0 without such a span).
    swap_supported: float = 0.0
    swap_gain: float = 0.0
    #: The verifier on the best-aligned sentences alone: the highest P(supported) of the two
    #: best, and P(contradicted) of the best (0 when not read).
    sentence_supported: float = 0.0
    sentence_contradicted: float = 0.0
    #: The rules judge's verdict on the same claim ("supported", "contradicted", "not_found";
    #: "" when it was not asked) and its strength of support in [0, 1].
    rules_verdict: str = ""
    rules_strength: float = 0.0
    #: The rules judge's contradiction is a negation mismatch (never a verdict alone).
    rules_negation: bool = False
    #: The claim these features describe (for calibration and logs; not a feature).
    claim: str = ""

    def values(self) -> dict[str, float]:
        """Every feature by name (:data:`FEATURES`)."""
        return {
            "log_p_supported": _log(self.p_supported),
            "log_p_contradicted": _log(self.p_contradicted),
            "log_p_not_found": _log(self.p_not_found),
            "coverage": self.coverage,
            "cosine": self.cosine,
            "value_conflict": float(self.value_conflict),
            "value_agreed": float(self.value_agreed),
            # A value that disagrees with no value of the claim agreeing: the clearest
            # slot signal (a conflict beside an agreeing value is often another scope).
            "value_conflict_alone": float(self.value_conflict and not self.value_agreed),
            "restated_supported": self.restated_supported,
            "restated_gain": self.restated_gain,
            "swap_supported": self.swap_supported,
            "swap_gain": self.swap_gain,
            "sentence_supported": self.sentence_supported,
            "sentence_contradicted": self.sentence_contradicted,
            "rules_supported": float(self.rules_verdict == "supported"),
            "rules_strength": self.rules_strength,
            "rules_contradicted": float(
                self.rules_verdict == "contradicted" and not self.rules_negation
            ),
            "rules_negation": float(self.rules_verdict == "contradicted" and self.rules_negation),
        }

    def vector(self, names: Sequence[str] = FEATURES) -> npt.NDArray[np.float64]:
        values = self.values()
        return np.array([values[n] for n in names])


@dataclass(frozen=True)
class Decision:
    """A verdict, its probability under the model, and which rule produced it."""

    verdict: Verdict
    score: float
    rule: str
    probabilities: tuple[float, float, float] = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class ContradictedFilter:
    """A deployment's second look at the model's contradictions (``groundwatch judge adapt``):
    a logistic score over the same features, fitted on the deployment's labelled findings; a
    contradiction it scores below ``threshold`` is not one (the claim is then decided as if the
    model had not called it contradicted). It can only drop contradictions, never add one: the
    labels it learns from are all of claims the model called contradicted."""

    weights: npt.NDArray[np.float64]
    bias: float
    threshold: float
    labels: int = 0

    def score(self, x: npt.NDArray[np.float64]) -> float:
        return float(1.0 / (1.0 + math.exp(-(float(self.weights @ x) + self.bias))))

    def to_json(self) -> dict[str, object]:
        return {
            "weights": [round(float(w), 6) for w in self.weights],
            "bias": round(self.bias, 6),
            "threshold": round(self.threshold, 6),
            "labels": self.labels,
        }


@dataclass(frozen=True)
class ContradictedHead:
    """A second multinomial model over its own features (the rules judge's reading among them),
    fitted on labelled RAG traces for precision (``training.calibrate --head-of``): a claim is
    *contradicted* when the base model's P(contradicted) reaches its bar **or** the head's
    reaches ``threshold``; the base model alone decides supported against not found."""

    features: tuple[str, ...]
    weights: npt.NDArray[np.float64]
    bias: npt.NDArray[np.float64]
    threshold: float

    def __post_init__(self) -> None:
        unknown = [f for f in self.features if f not in FEATURES]
        if unknown:
            raise ValueError(f"contradicted head: unknown features {unknown}")
        if self.weights.shape != (3, len(self.features)) or self.bias.shape != (3,):
            raise ValueError("contradicted head: weights must be 3 x features, bias 3")

    def p_contradicted(self, features: ClaimFeatures) -> float:
        z = self.weights @ features.vector(self.features) + self.bias
        e = np.exp(z - z.max())
        return float(e[1] / e.sum())

    def to_json(self) -> dict[str, object]:
        return {
            "features": list(self.features),
            "weights": np.round(self.weights, 6).tolist(),
            "bias": np.round(self.bias, 6).tolist(),
            "threshold": round(self.threshold, 6),
        }


class VerdictModel:
    """Softmax over ``W @ features + b``, then: contradicted when P(contradicted) >= its
    threshold (chosen for precision) and the deployment's :class:`ContradictedFilter` (when
    the calibration has one) keeps it, else supported when P(supported) >= its threshold, else
    not found.

    ``sentence_cascade`` (optional, fitted with the rest): a claim that one of its best-aligned
    sentences, read alone, supports at least this surely (``sentence_supported``), with no value conflict and
    no aligned swap, is supported without its windows being read; the bar is the lowest at
    which the model's own verdict on every such fit claim was *supported*.

    ``contradicted_head`` (optional, :class:`ContradictedHead`): a second model that can also
    call a claim contradicted, at its own bar.
    """

    def __init__(
        self,
        weights: npt.NDArray[np.float64],
        bias: npt.NDArray[np.float64],
        contradicted_threshold: float,
        supported_threshold: float,
        *,
        version: str = "v0",
        features: Sequence[str] = FEATURES,
        sentence_cascade: float | None = None,
        contradicted_filter: ContradictedFilter | None = None,
        contradicted_head: ContradictedHead | None = None,
    ):
        unknown = [f for f in features if f not in FEATURES]
        if unknown:
            raise ValueError(f"verdict model: unknown features {unknown}")
        if weights.shape != (3, len(features)) or bias.shape != (3,):
            raise ValueError("verdict model: weights must be 3 x features, bias 3")
        self.features = tuple(features)
        self.weights = weights
        self.bias = bias
        self.contradicted_threshold = contradicted_threshold
        self.supported_threshold = supported_threshold
        self.version = version
        self.sentence_cascade = sentence_cascade
        if contradicted_filter is not None and contradicted_filter.weights.shape != (
            len(features),
        ):
            raise ValueError("verdict model: the contradicted filter must weigh every feature")
        self.contradicted_filter = contradicted_filter
        self.contradicted_head = contradicted_head

    @property
    def read_features(self) -> tuple[str, ...]:
        """Every feature the judge must measure: the base model's, then the head's."""
        head = self.contradicted_head.features if self.contradicted_head is not None else ()
        return tuple(dict.fromkeys((*self.features, *head)))

    @classmethod
    def load(cls, path: Path) -> VerdictModel:
        data = json.loads(path.read_text(encoding="utf-8"))
        try:
            return cls(
                np.array(data["weights"], dtype=np.float64),
                np.array(data["bias"], dtype=np.float64),
                float(data["contradicted_threshold"]),
                float(data["supported_threshold"]),
                version=str(data.get("version", "v0")),
                features=tuple(data["features"]),
                sentence_cascade=(
                    float(data["sentence_cascade"])
                    if data.get("sentence_cascade") is not None
                    else None
                ),
                contradicted_filter=_filter(data.get("contradicted_filter")),
                contradicted_head=_head(data.get("contradicted_head")),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}: {exc}") from exc

    def without_filter(self) -> VerdictModel:
        """The same model without its deployment's contradicted filter."""
        return self._unfiltered(self.contradicted_threshold, self.version, self.contradicted_head)

    def _unfiltered(
        self, contradicted_threshold: float, version: str, head: ContradictedHead | None
    ) -> VerdictModel:
        return VerdictModel(
            self.weights,
            self.bias,
            contradicted_threshold,
            self.supported_threshold,
            version=version,
            features=self.features,
            sentence_cascade=self.sentence_cascade,
            contradicted_head=head,
        )

    def with_bar(self, bar: float) -> VerdictModel:
        """The same model, without a filter, calling a claim contradicted from ``bar`` on: a
        lower bar finds more contradictions at a lower precision (a *triage* calibration, run
        while findings are labelled for ``groundwatch judge adapt``). Its version says so."""
        if not 0.0 < bar < 1.0:
            raise ValueError("the contradicted bar must be between 0 and 1")
        head = self.contradicted_head
        if head is not None:  # a lower bar lowers both models' bars
            head = dataclasses.replace(head, threshold=min(head.threshold, bar))
        return self._unfiltered(bar, f"{self.version}-bar{bar:.2f}", head)

    @classmethod
    def shipped(cls) -> VerdictModel:
        return cls.load(CALIBRATION)

    def probabilities(self, features: ClaimFeatures) -> npt.NDArray[np.float64]:
        z = self.weights @ features.vector(self.features) + self.bias
        z = z - z.max()
        e = np.exp(z)
        out: npt.NDArray[np.float64] = e / e.sum()
        return out

    def decide(self, features: ClaimFeatures) -> Decision:
        x = features.vector(self.features)
        z = self.weights @ x + self.bias
        e = np.exp(z - z.max())
        p = e / e.sum()
        probs = (float(p[0]), float(p[1]), float(p[2]))
        fired = [probs[1]] if probs[1] >= self.contradicted_threshold else []
        head = self.contradicted_head
        if head is not None:
            p_head = head.p_contradicted(features)
            fired += [p_head] if p_head >= head.threshold else []
            probs = (probs[0], max(probs[1], p_head), probs[2])
        if fired:
            gate = self.contradicted_filter
            if gate is None or gate.score(x) >= gate.threshold:
                return Decision("contradicted", max(fired), "model", probs)
        if probs[0] >= self.supported_threshold:
            return Decision("supported", probs[0], "model", probs)
        return Decision("not_found", max(probs[2], 1.0 - probs[0]), "model", probs)


def _head(data: object) -> ContradictedHead | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ValueError("contradicted_head must be an object")
    return ContradictedHead(
        tuple(data["features"]),
        np.array(data["weights"], dtype=np.float64),
        np.array(data["bias"], dtype=np.float64),
        float(data["threshold"]),
    )


def _filter(data: object) -> ContradictedFilter | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ValueError("contradicted_filter must be an object")
    return ContradictedFilter(
        np.array(data["weights"], dtype=np.float64),
        float(data["bias"]),
        float(data["threshold"]),
        int(data.get("labels", 0)),
    )
