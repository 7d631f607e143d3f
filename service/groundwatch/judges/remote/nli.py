"""Judge backed by a local Hugging Face sequence-classification NLI model (operator-mounted).

Usage::

    judge = NliJudge("/models/deberta-v3-base-mnli", embedder=embedder)   # embedder optional
    judge.load()                       # reads config.json / tokenizer, loads the weights (torch)
    results = judge.judge_batch(traces)

How a trace is judged:

* claims come from :func:`groundwatch.judges.claims.extract.extract_claims` (the same as every backend);
* for each claim the ``top_k`` passage sentences are picked, by embedding similarity when an
  embedder is given, else by the share of the claim's content words they contain;
* each (premise = sentence, hypothesis = claim) pair goes through the model, batched across all
  claims of all traces of the call; the label order is read from the model's ``id2label``
  (entailment / contradiction / neutral, any order and casing; ``not_entailment`` counts as
  neutral);
* verdict: the pair whose argmax is entailment with the highest probability makes the claim
  ``supported``; one whose argmax is contradiction with probability above
  ``contradiction_threshold`` makes it ``contradicted``; when both exist the more probable wins;
  otherwise ``not_found``. The score is that probability (``not_found``: one minus the largest
  entailment/contradiction probability seen);
* passage relevance and answer relevance are the cosine similarity to the question when an
  embedder is given, else the share of the question's content words found (lexical, weaker).

torch and transformers are imported on ``load()`` only (optional extra ``groundwatch[torch]``).
"""

from __future__ import annotations

import json
import logging
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from groundwatch.contract.trace import RagTrace
from groundwatch.judges.base import ClaimJudgement, JudgeError, TraceJudgement
from groundwatch.judges.claims.extract import judged_text
from groundwatch.judges.embedding import Embedder
from groundwatch.judges.remote._evidence import (
    ClaimExtractor,
    PassageSentence,
    SentenceSplitter,
    approx_tokens,
    content_words,
    default_claim_extractor,
    evidence_of,
    finite01,
    is_refusal,
    lexical_overlap,
    passage_sentences,
    top_k_by_vectors,
    top_k_lexical,
)

__all__ = ["PROMPT_VERSION", "NliJudge", "NliLabels", "read_nli_labels"]

log = logging.getLogger(__name__)

PROMPT_VERSION = "n1"  # the pairing and verdict rules above; bump when they change
LEXICAL_RELEVANCE_THRESHOLD = 0.3
EMBEDDING_RELEVANCE_THRESHOLD = 0.35


@dataclass(frozen=True)
class NliLabels:
    """Output indexes of the model's classes; ``None`` when the model lacks that class."""

    entailment: int
    contradiction: int | None
    neutral: int | None


def read_nli_labels(id2label: dict[Any, Any]) -> NliLabels:
    """Map a config's ``id2label`` to entailment/contradiction/neutral indexes."""
    found: dict[str, int] = {}
    for raw_index, raw_label in id2label.items():
        label = str(raw_label).strip().lower().replace("-", "_").replace(" ", "_")
        if label.startswith(("not_entail", "non_entail")):
            kind = "neutral"
        elif label.startswith("entail"):
            kind = "entailment"
        elif label.startswith("contradict"):
            kind = "contradiction"
        elif label.startswith("neutral"):
            kind = "neutral"
        else:
            raise ValueError(f"unknown NLI label {raw_label!r} in id2label {id2label!r}")
        if kind in found:
            raise ValueError(f"two {kind} labels in id2label {id2label!r}")
        found[kind] = int(raw_index)
    if "entailment" not in found:
        raise ValueError(f"no entailment label in id2label {id2label!r}")
    return NliLabels(found["entailment"], found.get("contradiction"), found.get("neutral"))


@dataclass
class _Pair:
    trace: int
    claim: int
    hypothesis: str
    sentence: PassageSentence
    probs: tuple[float, float] = (0.0, 0.0)  # entailment, contradiction
    argmax: str = "neutral"


def _fmt(value: float) -> str:
    return f"{value:g}"


class NliJudge:
    """Claims checked by a local NLI cross-encoder (see module doc). Thread-safe."""

    def __init__(
        self,
        model_dir: str | Path,
        *,
        embedder: Embedder | None = None,
        relevance_threshold: float | None = None,
        contradiction_threshold: float = 0.5,
        top_k: int = 3,
        batch_size: int = 16,
        max_length: int = 512,
        device: str = "cpu",
        claim_extractor: ClaimExtractor | None = None,
        sentence_splitter: SentenceSplitter | None = None,
    ):
        self.model_dir = Path(model_dir)
        self._embedder = embedder
        default_rel = (
            EMBEDDING_RELEVANCE_THRESHOLD if embedder is not None else LEXICAL_RELEVANCE_THRESHOLD
        )
        self.relevance_threshold = (
            default_rel if relevance_threshold is None else relevance_threshold
        )
        self.contradiction_threshold = contradiction_threshold
        self.top_k = max(1, top_k)
        self.batch_size = max(1, batch_size)
        self.max_length = max_length
        self.device = device
        self._extract = claim_extractor or default_claim_extractor
        self._splitter = sentence_splitter
        self._lock = threading.Lock()
        self._model: Any = None
        self._tokenizer: Any = None
        self._torch: Any = None
        self._labels: NliLabels | None = None
        self._pairs_scored = 0
        self._batches_run = 0

    def __repr__(self) -> str:
        return f"NliJudge({str(self.model_dir)!r})"

    @property
    def version(self) -> str:
        rel = f"emb:{self._embedder.name}" if self._embedder is not None else "lex"
        return (
            f"nli/{self.model_dir.name}/k{self.top_k}/con{_fmt(self.contradiction_threshold)}"
            f"/rel{_fmt(self.relevance_threshold)}@{rel}/{PROMPT_VERSION}"
        )

    @property
    def backend(self) -> str:
        return "nli"

    @property
    def labels(self) -> NliLabels | None:
        return self._labels

    @property
    def pairs_scored(self) -> int:
        """(sentence, claim) pairs run through the model since load."""
        return self._pairs_scored

    @property
    def batches_run(self) -> int:
        """Model forward passes since load."""
        return self._batches_run

    def load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            config_path = self.model_dir / "config.json"
            if not config_path.is_file():
                raise JudgeError(
                    "judge_unavailable",
                    f"NLI model directory {self.model_dir} has no config.json "
                    "(set GROUNDWATCH_JUDGE__NLI_MODEL_DIR to a Hugging Face model directory)",
                )
            config = json.loads(config_path.read_text(encoding="utf-8"))
            try:
                labels = read_nli_labels(config.get("id2label") or {})
            except ValueError as exc:
                raise JudgeError("judge_unavailable", f"{config_path}: {exc}") from None
            try:
                import torch
                from transformers import AutoModelForSequenceClassification, AutoTokenizer
            except ImportError as exc:
                raise JudgeError(
                    "judge_unavailable",
                    f"the nli judge needs torch and transformers (groundwatch[torch]): {exc}",
                ) from None
            try:
                tokenizer = AutoTokenizer.from_pretrained(
                    str(self.model_dir), local_files_only=True
                )
                model = AutoModelForSequenceClassification.from_pretrained(
                    str(self.model_dir), local_files_only=True
                )
            except (OSError, ValueError) as exc:
                raise JudgeError(
                    "judge_unavailable", f"cannot load NLI model from {self.model_dir}: {exc}"
                ) from None
            self._torch = torch
            self._tokenizer = tokenizer
            self._model = model.to(self.device).eval()
            self._labels = labels
        log.info("nli judge ready: %s labels=%s", self.model_dir, labels)

    def ready(self) -> bool:
        return self._model is not None

    def close(self) -> None:
        with self._lock:
            self._model = None
            self._tokenizer = None

    def judge_batch(self, traces: Sequence[RagTrace]) -> list[TraceJudgement | JudgeError]:
        if self._model is None:
            raise JudgeError("judge_unavailable", "nli judge used before load()")
        claims: list[list[str]] = []
        pairs: list[_Pair] = []
        for t, trace in enumerate(traces):
            answer = (trace.answer or "").strip()
            trace_claims = self._extract(trace.question, answer) if answer else []
            claims.append(trace_claims)
            pairs.extend(self._pairs_for(t, trace, trace_claims))
        failed: dict[int, JudgeError] = {}
        self._score(pairs, failed)
        out: list[TraceJudgement | JudgeError] = []
        for t, trace in enumerate(traces):
            if t in failed:
                out.append(failed[t])
                continue
            try:
                out.append(self._judgement(t, trace, claims[t], pairs))
            except JudgeError as exc:
                out.append(exc)
        return out

    def _pairs_for(self, t: int, trace: RagTrace, claims: list[str]) -> list[_Pair]:
        if not claims or not trace.contexts:
            return []
        sentences = passage_sentences(trace, self._splitter)
        if self._embedder is not None and sentences:
            vectors = self._embedder.embed([*claims, *(s.text for s in sentences)])
            picks = top_k_by_vectors(vectors[: len(claims)], vectors[len(claims) :], self.top_k)
        else:
            picks = [top_k_lexical(c, sentences, self.top_k) for c in claims]
        # the model reads a short answer as one declarative sentence, like every backend
        return [
            _Pair(t, c, judged_text(claims[c]), sentences[j])
            for c, row in enumerate(picks)
            for j in row
        ]

    def _score(self, pairs: list[_Pair], failed: dict[int, JudgeError]) -> None:
        labels = self._labels
        assert labels is not None
        for start in range(0, len(pairs), self.batch_size):
            chunk = pairs[start : start + self.batch_size]
            probs = self._forward([p.sentence.text for p in chunk], [p.hypothesis for p in chunk])
            for pair, row in zip(chunk, probs, strict=True):
                if not all(math.isfinite(x) for x in row):
                    failed[pair.trace] = JudgeError(
                        "judge_malformed_output", "NLI model returned non-finite scores"
                    )
                    continue
                best = max(range(len(row)), key=row.__getitem__)
                contra = row[labels.contradiction] if labels.contradiction is not None else 0.0
                pair.probs = (row[labels.entailment], contra)
                if best == labels.entailment:
                    pair.argmax = "entailment"
                elif best == labels.contradiction:
                    pair.argmax = "contradiction"

    def _forward(self, premises: list[str], hypotheses: list[str]) -> list[list[float]]:
        torch = self._torch
        with self._lock:
            model, tokenizer = self._model, self._tokenizer
            if model is None:
                raise JudgeError("judge_unavailable", "nli judge closed")
            enc = tokenizer(
                premises,
                hypotheses,
                padding=True,
                truncation=True,
                max_length=self.max_length,
                return_tensors="pt",
            ).to(self.device)
            with torch.inference_mode():
                logits = model(**enc).logits.float()
            probs = torch.softmax(logits, dim=-1).cpu().tolist()
            self._pairs_scored += len(premises)
            self._batches_run += 1
        return [[float(x) for x in row] for row in probs]

    def _judgement(
        self, t: int, trace: RagTrace, claims: list[str], pairs: list[_Pair]
    ) -> TraceJudgement:
        mine = [p for p in pairs if p.trace == t]
        judged = [
            self._verdict(trace, text, [p for p in mine if p.claim == c])
            for c, text in enumerate(claims)
        ]
        relevance, answer_relevance = self._relevance(trace)
        answer = (trace.answer or "").strip()
        return TraceJudgement(
            claims=judged,
            context_relevance=relevance,
            relevance_threshold=self.relevance_threshold,
            answer_relevance=answer_relevance,
            refusal=bool(answer) and is_refusal(answer, len(claims)),
            context_tokens=self._count_tokens(trace.context_texts()),
        )

    def _verdict(self, trace: RagTrace, claim: str, pairs: list[_Pair]) -> ClaimJudgement:
        entailed = [p for p in pairs if p.argmax == "entailment"]
        contradicted = [
            p
            for p in pairs
            if p.argmax == "contradiction" and p.probs[1] > self.contradiction_threshold
        ]
        best_e = max(entailed, key=lambda p: p.probs[0], default=None)
        best_c = max(contradicted, key=lambda p: p.probs[1], default=None)
        if best_c is not None and (best_e is None or best_c.probs[1] > best_e.probs[0]):
            return ClaimJudgement(
                text=claim,
                verdict="contradicted",
                score=finite01(best_c.probs[1], "contradiction"),
                evidence=evidence_of(trace, best_c.sentence.context_index, best_c.sentence.text),
                reason="nli: contradiction",
            )
        if best_e is not None:
            return ClaimJudgement(
                text=claim,
                verdict="supported",
                score=finite01(best_e.probs[0], "entailment"),
                evidence=evidence_of(trace, best_e.sentence.context_index, best_e.sentence.text),
                reason="nli: entailment",
            )
        strongest = max((max(p.probs) for p in pairs), default=0.0)
        return ClaimJudgement(
            text=claim,
            verdict="not_found",
            score=finite01(1.0 - strongest, "not_found"),
            reason="nli: no entailing sentence" if pairs else "no aligned passage sentence",
        )

    def _relevance(self, trace: RagTrace) -> tuple[list[float], float | None]:
        answer = (trace.answer or "").strip()
        texts = trace.context_texts()
        if self._embedder is not None:
            vectors = self._embedder.embed([trace.question, *texts, *([answer] if answer else [])])
            sims = np.clip(vectors[1:] @ vectors[0], 0.0, 1.0)
            rel = [finite01(float(s), "relevance") for s in sims[: len(texts)]]
            ans = finite01(float(sims[-1]), "answer relevance") if answer else None
            return rel, ans
        question = content_words(trace.question)
        rel = [lexical_overlap(question, content_words(t)) for t in texts]
        ans = lexical_overlap(question, content_words(answer)) if answer else None
        return rel, ans

    def _count_tokens(self, texts: list[str]) -> int:
        if self._embedder is not None:
            return sum(self._embedder.count_tokens(texts))
        return approx_tokens(texts)
