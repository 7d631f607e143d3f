"""A trace prepared for judging: its passages split into sentences, their words and slots.

Usage::

    prep = prepare_trace(trace)
    prep.sentences[0].text, prep.sentences[0].window_text   # a sentence, and what it leans on
    texts_to_embed(prep)                                     # every text the judge compares

Each passage sentence keeps its content words, its window (the passage heading and the sentence
its pronoun refers to) and its neighbours; the trace keeps the document frequency of every word
(:func:`word_weights` weighs a claim's words by it), the answer's claims and its cited sentences.
Built once per trace, shared by the rules judge and the verified judge.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from groundwatch.contract.record import Evidence
from groundwatch.contract.trace import RagTrace
from groundwatch.judges.claims.extract import extract_claims
from groundwatch.judges.text.grammar import LIGHT_WORDS, has_verb
from groundwatch.judges.text.sentences import split_sentences
from groundwatch.judges.text.words import content_words
from groundwatch.judges.values.slots import Slots, parse_slots

__all__ = [
    "PreparedPassage",
    "PreparedSentence",
    "PreparedTrace",
    "cited_claims",
    "evidence_at",
    "prepare_trace",
    "texts_to_embed",
    "word_weights",
]


#: Weight of a verb or common word relative to a name, number or noun of the same rarity.
_LIGHT_WEIGHT = 0.3


@dataclass
class PreparedPassage:
    """One retrieved passage: its sentences (indexes into the trace's), words and slots."""

    index: int
    id: str | None
    sentences: list[int]  # indexes into PreparedTrace.sentences
    words: frozenset[str]
    slots: Slots


@dataclass
class PreparedSentence:
    """One passage sentence (``ctx``: its passage), its words and what it leans on."""

    ctx: int
    position: int
    text: str
    words: frozenset[str]
    window_text: str = ""
    window: frozenset[str] = frozenset()
    #: The sentence with its neighbours in the same passage: a compound claim may state the
    #: values of two adjacent sentences.
    near_text: str = ""
    near: frozenset[str] = frozenset()


@dataclass
class PreparedTrace:
    """A trace ready for judging. Usage: ``prep = prepare_trace(trace)``."""

    trace: RagTrace
    passages: list[PreparedPassage]
    sentences: list[PreparedSentence]
    claims: list[str]
    answer_sentences: list[str]
    citation_claims: list[list[str]]
    df: dict[str, int]
    postings: dict[str, list[int]]  # word -> sentences containing it
    relevant: bool = False  # some passage is relevant to the question


def texts_to_embed(prep: PreparedTrace, claims_only: bool = False) -> list[str]:
    """Every text of a trace the judge compares: all go into the batch's one embed call.
    ``claims_only``: not the answer and its sentences (answer relevance and refusal only)."""
    trace = prep.trace
    out = [trace.question]
    if not claims_only and trace.answer and trace.answer.strip():
        out.append(trace.answer.strip())
    out.extend(s.text for s in prep.sentences)
    out.extend(prep.claims)
    if not claims_only:
        out.extend(prep.answer_sentences)
    out.extend(c for claims in prep.citation_claims for c in claims)
    return out


def _is_heading(text: str) -> bool:
    if len(text.split()) > 10:
        return False
    if text.endswith(":") or not text.endswith((".", "!", "?")):
        return True
    # "Driving in Spain." / "HX-200 Maintenance.": a short title without a verb.
    return len(text.split()) <= 6 and not has_verb(text.rstrip("."))


# A sentence leaning on the previous one: "It ...", "Today it holds ...", "The latter ...".
_ANAPHOR = re.compile(
    r"^(?:this|these|both|each|the latter|the former|(?:\w+,?\s+){0,2}(?:it|he|she|they|its|his|her|their))\b",
    re.I,
)


@lru_cache(maxsize=8192)
def _passage_sentences(text: str) -> tuple[str, ...]:
    """Sentences of a passage; cached, because popular passages recur across traces."""
    return tuple(split_sentences(text))


def evidence_at(prep: PreparedTrace, sentence: int) -> Evidence:
    """The evidence a verdict shows: sentence ``sentence`` of the trace and its passage."""
    s = prep.sentences[sentence]
    return Evidence(context_index=s.ctx, context_id=prep.passages[s.ctx].id, text=s.text)


def prepare_trace(trace: RagTrace) -> PreparedTrace:
    """Split the trace's passages into sentences and its answer into claims (see the module)."""
    passages: list[PreparedPassage] = []
    sentences: list[PreparedSentence] = []
    df: dict[str, int] = {}
    postings: dict[str, list[int]] = {}
    for i, ctx in enumerate(trace.contexts):
        idxs: list[int] = []
        texts = list(_passage_sentences(ctx.text))
        heading = texts[0] if texts and _is_heading(texts[0]) else None
        for pos, sent in enumerate(texts):
            words = frozenset(content_words(sent))
            for w in words:
                df[w] = df.get(w, 0) + 1
                postings.setdefault(w, []).append(len(sentences))
            # What a sentence can lean on: a heading, and the sentence its pronoun refers to.
            extra = [t for t in (heading,) if t is not None and t != sent]
            if pos > 0 and _ANAPHOR.match(sent) and texts[pos - 1] != heading:
                extra.append(texts[pos - 1])
            window_text = " ".join([*extra, sent])
            idxs.append(len(sentences))
            sentences.append(
                PreparedSentence(
                    i, pos, sent, words, window_text, frozenset(content_words(window_text))
                )
            )
        for k in idxs:
            lo, hi = max(0, k - 1), k + 2
            near = [sentences[j].text for j in range(lo, hi) if j in idxs]
            sentences[k].near_text = " ".join(near)
            sentences[k].near = frozenset(content_words(sentences[k].near_text))
        passages.append(
            PreparedPassage(
                i,
                ctx.id,
                idxs,
                frozenset(content_words(ctx.text)),
                parse_slots(ctx.text),
            )
        )
    answer = (trace.answer or "").strip()
    claims = extract_claims(trace.question, answer) if answer else []
    citation_claims = [extract_claims(trace.question, c.sentence) for c in (trace.citations or [])]
    return PreparedTrace(
        trace=trace,
        passages=passages,
        sentences=sentences,
        claims=claims,
        answer_sentences=split_sentences(answer) if answer else [],
        citation_claims=citation_claims,
        df=df,
        postings=postings,
    )


def word_weights(words: Sequence[str], prep: PreparedTrace) -> list[float]:
    """The IDF weight of each of ``words`` among the trace's sentences."""
    # What a claim asserts is in its names, numbers and nouns; verbs and common words are
    # paraphrased freely ("costs" / "is priced at"), so they weigh little.
    n = max(1, len(prep.sentences))
    return [
        math.log(1.0 + (n + 1) / (prep.df.get(w, 0) + 0.5))
        * (_LIGHT_WEIGHT if w in LIGHT_WORDS else 1.0)
        for w in words
    ]


def cited_claims(prep: PreparedTrace) -> list[tuple[list[str], set[int]]] | None:
    """Each cited sentence that has claims: its claims and the indexes of the passages its
    citation names (by passage id or by position; empty when it names none of them). None
    when the trace has no citations."""
    citations = prep.trace.citations
    if not citations:
        return None
    by_id = {p.id: p.index for p in prep.passages if p.id is not None}
    out: list[tuple[list[str], set[int]]] = []
    for citation, claims in zip(citations, prep.citation_claims, strict=True):
        allowed: set[int] = set()
        for cid in citation.context_ids:
            if cid in by_id:
                allowed.add(by_id[cid])
            elif cid.isdigit() and int(cid) < len(prep.passages):
                allowed.add(int(cid))
        if claims:
            out.append((claims, allowed))
    return out
