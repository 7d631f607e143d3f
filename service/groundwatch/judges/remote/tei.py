"""Judge backed by text-embeddings-inference (TEI) style HTTP services, for GPU scale-out.

Usage::

    judge = TeiJudge("http://tei-rerank:8080", nli_url="http://tei-nli:8080")
    judge.load()                       # GET /health (and /info); probes /predict for NLI labels
    results = judge.judge_batch(traces)

Protocol (the subset of TEI used; any service speaking it works):

* ``GET {url}/health`` -> 200 when serving. ``GET {url}/info`` -> ``{"model_id": ...}``
  (optional; names the model in ``version``).
* ``POST {url}/rerank`` ``{"query": str, "texts": [str], "truncate": true}`` ->
  ``[{"index": int, "score": float}, ...]`` in any order, scores in [0, 1] (TEI applies a sigmoid
  unless ``raw_scores`` is set). Used with the question as query for passage relevance and
  answer relevance (the answer is ranked along with the passages), and with each claim as query
  to pick its ``top_k`` evidence sentences.
* ``POST {nli_url}/predict`` ``{"inputs": [[premise, hypothesis], ...], "truncate": true}`` ->
  ``[[{"label": str, "score": float}, ...], ...]``, one list per pair, from an NLI
  sequence-classification model (labels entailment/contradiction/neutral, any casing).
  ``nli_url`` defaults to ``url``. ``load()`` sends one probe pair: when ``/predict`` is missing or
  its labels have no entailment class, verdicts fall back to the rerank score
  (``supported`` when the best sentence scores at least ``support_threshold``, else
  ``not_found``; no contradiction can be seen) and ``version`` says ``rerank-only``.

Verdicts with NLI follow :mod:`groundwatch.judges.remote.nli`: the most probable entailment makes a claim
``supported``, a contradiction above ``contradiction_threshold`` makes it ``contradicted`` (the more
probable of the two wins), otherwise ``not_found``. Requests go through a retrying client
(timeouts, 429/5xx with backoff, a concurrency limit); traces of a batch run concurrently.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from pydantic import SecretStr

from groundwatch.contract.trace import RagTrace
from groundwatch.judges.base import ClaimJudgement, JudgeError, TraceJudgement
from groundwatch.judges.claims.extract import judged_text
from groundwatch.judges.remote._evidence import (
    ClaimExtractor,
    PassageSentence,
    SentenceSplitter,
    approx_tokens,
    default_claim_extractor,
    evidence_of,
    finite01,
    is_refusal,
    passage_sentences,
)
from groundwatch.judges.remote._http import (
    HttpCounters,
    RetryingHttp,
    RetryPolicy,
    judge_concurrently,
)
from groundwatch.judges.remote.nli import read_nli_labels

__all__ = ["PROMPT_VERSION", "TeiJudge"]

log = logging.getLogger(__name__)

PROMPT_VERSION = "t1"  # the protocol use and verdict rules above; bump when they change
DEFAULT_RELEVANCE_THRESHOLD = 0.5
_PROBE = [["The sky is blue.", "The sky is blue."]]


@dataclass(frozen=True)
class _Probs:
    entailment: float
    contradiction: float
    argmax: str  # entailment | contradiction | neutral


def _fmt(value: float) -> str:
    return f"{value:g}"


class TeiJudge:
    """Rerank + NLI-classify judge over TEI-style HTTP endpoints (see module doc)."""

    def __init__(
        self,
        url: str,
        *,
        nli_url: str | None = None,
        api_key: SecretStr | None = None,
        relevance_threshold: float | None = None,
        support_threshold: float = 0.5,
        contradiction_threshold: float = 0.5,
        top_k: int = 3,
        batch_size: int = 32,
        timeout_s: float = 10.0,
        max_retries: int = 3,
        concurrency: int = 8,
        trace_timeout_s: float | None = None,
        backoff_base_s: float = 0.5,
        claim_extractor: ClaimExtractor | None = None,
        sentence_splitter: SentenceSplitter | None = None,
    ):
        if not url:
            raise ValueError("tei judge: url is required (GROUNDWATCH_JUDGE__TEI_URL)")
        self.url = url.rstrip("/")
        self.nli_url = (nli_url or url).rstrip("/")
        self.relevance_threshold = (
            DEFAULT_RELEVANCE_THRESHOLD if relevance_threshold is None else relevance_threshold
        )
        self.support_threshold = support_threshold
        self.contradiction_threshold = contradiction_threshold
        self.top_k = max(1, top_k)
        self.batch_size = max(1, batch_size)
        self._api_key = api_key
        self._timeout_s = timeout_s
        self._policy = RetryPolicy(max_retries=max(0, max_retries), backoff_base_s=backoff_base_s)
        self._concurrency = max(1, concurrency)
        self._trace_timeout_s = trace_timeout_s
        self._extract = claim_extractor or default_claim_extractor
        self._splitter = sentence_splitter
        self._lock = threading.Lock()
        self._rerank: RetryingHttp | None = None
        self._nli: RetryingHttp | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._rerank_model = "tei"
        self._nli_model: str | None = None
        self._ready = False

    def __repr__(self) -> str:
        return f"TeiJudge({self.url!r}, nli_url={self.nli_url!r})"

    @property
    def version(self) -> str:
        verdicts = (
            f"{self._nli_model}/con{_fmt(self.contradiction_threshold)}"
            if self._nli_model is not None
            else f"rerank-only/sup{_fmt(self.support_threshold)}"
        )
        return (
            f"tei/{self._rerank_model}+{verdicts}/k{self.top_k}"
            f"/rel{_fmt(self.relevance_threshold)}/{PROMPT_VERSION}"
        )

    @property
    def backend(self) -> str:
        return "tei"

    @property
    def nli_available(self) -> bool:
        return self._nli_model is not None

    @property
    def counters(self) -> HttpCounters:
        """Requests, retries and failures, both endpoints together."""
        clients = list({id(c): c for c in (self._rerank, self._nli) if c}.values())
        parts = [c.counters for c in clients]
        return HttpCounters(
            requests=sum(p.requests for p in parts),
            retries=sum(p.retries for p in parts),
            failures=sum(p.failures for p in parts),
        )

    def _client(self, url: str) -> RetryingHttp:
        headers = {"Accept": "application/json"}
        if self._api_key is not None:
            headers["Authorization"] = f"Bearer {self._api_key.get_secret_value()}"
        return RetryingHttp(
            url,
            timeout_s=self._timeout_s,
            policy=self._policy,
            concurrency=self._concurrency,
            headers=headers,
        )

    def load(self) -> None:
        with self._lock:
            if self._ready:
                return
            rerank = self._client(self.url)
            nli = rerank if self.nli_url == self.url else self._client(self.nli_url)
            try:
                self._rerank_model = self._check(rerank)
                nli_model = self._check(nli) if nli is not rerank else self._rerank_model
                self._nli_model = nli_model if self._probe_nli(nli) else None
            except JudgeError:
                rerank.close()
                nli.close()
                raise
            self._rerank, self._nli = rerank, nli
            self._pool = ThreadPoolExecutor(self._concurrency, thread_name_prefix="gw-tei")
            self._ready = True
        log.info("tei judge ready: %s", self.version)

    @staticmethod
    def _check(http: RetryingHttp) -> str:
        health = http.probe("/health")
        if not health.is_success:
            raise JudgeError(
                "judge_unavailable",
                f"{http.base_url}/health answered HTTP {health.status_code}",
                retriable=True,
            )
        info = http.probe("/info")
        try:
            model_id = info.json().get("model_id") if info.is_success else None
        except (ValueError, AttributeError):
            model_id = None
        name = str(model_id).rstrip("/").rsplit("/", 1)[-1] if model_id else "tei"
        return name.replace(" ", "_") or "tei"

    def _probe_nli(self, http: RetryingHttp) -> bool:
        try:
            reply = http.post_json("/predict", {"inputs": _PROBE, "truncate": True})
            self._parse_predict(reply, 1)
        except JudgeError as exc:
            log.warning(
                "tei judge: no NLI /predict at %s (%s); verdicts from rerank scores only",
                http.base_url,
                exc.detail or exc.reason,
            )
            return False
        return True

    def ready(self) -> bool:
        return self._ready

    def close(self) -> None:
        with self._lock:
            self._ready = False
            clients = {id(c): c for c in (self._rerank, self._nli) if c}.values()
            pool = self._pool
            self._rerank = self._nli = None
            self._pool = None
        for client in clients:
            client.close()
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def judge_batch(self, traces: Sequence[RagTrace]) -> list[TraceJudgement | JudgeError]:
        pool = self._pool
        if not self._ready or pool is None:
            raise JudgeError("judge_unavailable", "tei judge used before load()")
        return judge_concurrently(pool, self._judge, traces, backend="tei")

    def _judge(self, trace: RagTrace) -> TraceJudgement:
        deadline = time.monotonic() + self._trace_timeout_s if self._trace_timeout_s else None
        answer = (trace.answer or "").strip()
        texts = trace.context_texts()
        ranked = self._rerank_scores(
            trace.question, [*texts, *([answer] if answer else [])], deadline
        )
        relevance = ranked[: len(texts)]
        answer_relevance = ranked[-1] if answer else None
        claims = self._extract(trace.question, answer) if answer else []
        sentences = passage_sentences(trace, self._splitter) if claims and texts else []
        aligned = [self._align(c, sentences, deadline) for c in claims]
        probs: list[_Probs] = []
        if self._nli_model is not None:
            pairs = [
                [sentences[j].text, judged_text(c)]
                for c, picks in zip(claims, aligned, strict=True)
                for j, _ in picks
            ]
            probs = self._predict(pairs, deadline)
        judged: list[ClaimJudgement] = []
        offset = 0
        for claim, picks in zip(claims, aligned, strict=True):
            found = [(sentences[j], score) for j, score in picks]
            if self._nli_model is not None:
                judged.append(
                    self._nli_verdict(trace, claim, found, probs[offset : offset + len(picks)])
                )
                offset += len(picks)
            else:
                judged.append(self._rerank_verdict(trace, claim, found))
        return TraceJudgement(
            claims=judged,
            context_relevance=relevance,
            relevance_threshold=self.relevance_threshold,
            answer_relevance=answer_relevance,
            refusal=bool(answer) and is_refusal(answer, len(claims)),
            context_tokens=approx_tokens(texts),
        )

    def _align(
        self, claim: str, sentences: list[PassageSentence], deadline: float | None
    ) -> list[tuple[int, float]]:
        """The claim's ``top_k`` sentences by rerank score, best first."""
        if not sentences:
            return []
        scores = self._rerank_scores(claim, [s.text for s in sentences], deadline)
        order = sorted(range(len(scores)), key=lambda j: (-scores[j], j))
        return [(j, scores[j]) for j in order[: self.top_k]]

    def _rerank_scores(self, query: str, texts: list[str], deadline: float | None) -> list[float]:
        http = self._rerank
        if http is None:
            raise JudgeError("judge_unavailable", "tei judge closed")
        scores: list[float] = []
        for start in range(0, len(texts), self.batch_size):
            chunk = texts[start : start + self.batch_size]
            body = {"query": query, "texts": chunk, "truncate": True}
            reply = http.post_json("/rerank", body, deadline=deadline)
            scores.extend(self._parse_rerank(reply, len(chunk)))
        return scores

    @staticmethod
    def _parse_rerank(reply: Any, n: int) -> list[float]:
        if not isinstance(reply, list):
            raise JudgeError("judge_malformed_output", "rerank: expected a list")
        by_index: dict[int, float] = {}
        for item in reply:
            try:
                index, score = int(item["index"]), float(item["score"])
            except (KeyError, TypeError, ValueError):
                raise JudgeError(
                    "judge_malformed_output", "rerank: item without index/score"
                ) from None
            by_index[index] = finite01(score, "rerank")
        if sorted(by_index) != list(range(n)):
            raise JudgeError("judge_malformed_output", f"rerank: expected indexes 0..{n - 1}")
        return [by_index[i] for i in range(n)]

    def _predict(self, pairs: list[list[str]], deadline: float | None) -> list[_Probs]:
        http = self._nli
        if http is None:
            raise JudgeError("judge_unavailable", "tei judge closed")
        out: list[_Probs] = []
        for start in range(0, len(pairs), self.batch_size):
            chunk = pairs[start : start + self.batch_size]
            reply = http.post_json(
                "/predict", {"inputs": chunk, "truncate": True}, deadline=deadline
            )
            out.extend(self._parse_predict(reply, len(chunk)))
        return out

    @staticmethod
    def _parse_predict(reply: Any, n: int) -> list[_Probs]:
        # TEI answers a single pair with a flat list; a batch with one list per pair.
        if isinstance(reply, list) and reply and isinstance(reply[0], dict) and n == 1:
            reply = [reply]
        if not isinstance(reply, list) or len(reply) != n:
            raise JudgeError("judge_malformed_output", f"predict: expected {n} results")
        out: list[_Probs] = []
        for row in reply:
            try:
                scores = {str(item["label"]): float(item["score"]) for item in row}
                labels = read_nli_labels(dict(enumerate(scores)))
            except (KeyError, TypeError, ValueError) as exc:
                raise JudgeError("judge_malformed_output", f"predict: {exc}") from None
            values = [finite01(v, "predict") for v in scores.values()]
            best = max(range(len(values)), key=values.__getitem__)
            contra = values[labels.contradiction] if labels.contradiction is not None else 0.0
            argmax = (
                "entailment"
                if best == labels.entailment
                else "contradiction"
                if best == labels.contradiction
                else "neutral"
            )
            out.append(_Probs(values[labels.entailment], contra, argmax))
        return out

    def _nli_verdict(
        self,
        trace: RagTrace,
        claim: str,
        found: list[tuple[PassageSentence, float]],
        probs: list[_Probs],
    ) -> ClaimJudgement:
        scored = list(zip((s for s, _ in found), probs, strict=True))
        entailed = [(s, p) for s, p in scored if p.argmax == "entailment"]
        contradicted = [
            (s, p)
            for s, p in scored
            if p.argmax == "contradiction" and p.contradiction > self.contradiction_threshold
        ]
        best_e = max(entailed, key=lambda sp: sp[1].entailment, default=None)
        best_c = max(contradicted, key=lambda sp: sp[1].contradiction, default=None)
        if best_c is not None and (
            best_e is None or best_c[1].contradiction > best_e[1].entailment
        ):
            sentence, p = best_c
            return ClaimJudgement(
                text=claim,
                verdict="contradicted",
                score=p.contradiction,
                evidence=evidence_of(trace, sentence.context_index, sentence.text),
                reason="tei nli: contradiction",
            )
        if best_e is not None:
            sentence, p = best_e
            return ClaimJudgement(
                text=claim,
                verdict="supported",
                score=p.entailment,
                evidence=evidence_of(trace, sentence.context_index, sentence.text),
                reason="tei nli: entailment",
            )
        strongest = max((max(p.entailment, p.contradiction) for p in probs), default=0.0)
        return ClaimJudgement(
            text=claim,
            verdict="not_found",
            score=1.0 - strongest,
            reason="tei nli: no entailing sentence" if probs else "no passage sentence",
        )

    def _rerank_verdict(
        self, trace: RagTrace, claim: str, found: list[tuple[PassageSentence, float]]
    ) -> ClaimJudgement:
        if found and found[0][1] >= self.support_threshold:
            sentence, score = found[0]
            return ClaimJudgement(
                text=claim,
                verdict="supported",
                score=score,
                evidence=evidence_of(trace, sentence.context_index, sentence.text),
                reason="tei rerank: aligned sentence",
            )
        best = found[0][1] if found else 0.0
        return ClaimJudgement(
            text=claim,
            verdict="not_found",
            score=1.0 - best,
            reason="tei rerank: no sentence above threshold",
        )
