"""The aligned swap: a claim restated with its evidence sentence's words where the two differ in
one short span, for the verifier to read as a minimal pair.

Usage::

    swap = aligned_swap("The office opens on Tuesday.", "Our office opens on Thursday at 9.")
    swap.restated          # "The office opens on Thursday."
    swap.claim_span, swap.evidence_span   # "Tuesday", "Thursday"

A claim that follows its evidence sentence word for word except for one short span (a name, a
weekday, an antonym, a negation the evidence has and the claim lacks) is either a paraphrase of
it (the span is a synonym) or a contradiction (the span says otherwise). Which one is not a
question for a word list: the verifier reads the evidence window against the claim and against
the claim with the evidence's span put back. When the restated claim is supported and the claim
is not, the evidence says the same thing with something else in that place, which is what a
contradiction is; when both are supported the span was a synonym. This generalises the judge's
value minimal pair (numbers, dates) to any word.

Alignment is :class:`difflib.SequenceMatcher` over stemmed word tokens; a candidate span is one
edit of at most :data:`MAX_SPAN` tokens on each side, with at least :data:`MIN_ANCHORS`
content word or number of the claim matched around it, at least two content words in the
claim, and no other content-word difference (a claim
that differs in several places is a paraphrase or another statement, not a minimal pair).
Insertions and deletions count only for polarity words (negation, quantifiers, comparatives):
an added adjective changes what is said, not whether it is true.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from groundwatch.judges.text.words import STOPWORDS, stem

__all__ = ["MAX_SPAN", "MIN_ANCHORS", "POLARITY", "Swap", "aligned_swap"]

#: Longest span (tokens) on either side of the one edit.
MAX_SPAN = 3
#: Content words of the claim that must match the evidence sentence outside the edit.
MIN_ANCHORS = 1
#: Closed-class words whose presence or absence alone changes what is asserted.
POLARITY = frozenset(
    ("not", "no", "never", "non", "none", "nothing", "nobody", "neither", "nor", "without",
     "cannot", "un", "all", "every", "each", "some", "any", "only", "always", "more", "less",
     "fewer", "most", "least", "before", "after", "above", "below", "over", "under", "earlier",
     "later")
)  # fmt: skip

_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")


@dataclass(frozen=True)
class Swap:
    """One aligned difference between a claim and its evidence sentence."""

    restated: str  # the claim with the evidence's span in place of its own
    claim_span: str  # as written in the claim ("" for an insertion)
    evidence_span: str  # as written in the evidence ("" for a deletion)


@dataclass(frozen=True)
class _Tok:
    key: str
    start: int
    end: int
    content: bool
    polar: bool  # a POLARITY word (or a negative contraction)


def _tokens(text: str) -> list[_Tok]:
    out = []
    for m in _TOKEN.finditer(text):
        word = m.group().lower().replace("’", "'")
        key = "not" if word.endswith("n't") or word == "cannot" else stem(word)
        polar = key == "not" or word in POLARITY
        content = polar or (word not in STOPWORDS and not word.isdigit())
        out.append(_Tok(key, m.start(), m.end(), content, polar))
    return out


def _meaningful(toks: list[_Tok]) -> bool:
    return any(t.content for t in toks)


def aligned_swap(claim: str, evidence: str) -> Swap | None:
    """The claim restated with the evidence's words in the one place they differ, or None
    when the two are not a minimal pair (no difference, several, or too few anchors)."""
    c, e = _tokens(claim), _tokens(evidence)
    if not c or not e:
        return None
    ops = SequenceMatcher(None, [t.key for t in c], [t.key for t in e], autojunk=False)
    edits: list[tuple[str, int, int, int, int, bool]] = []  # (..., usable as the minimal pair)
    anchors = 0
    for tag, i1, i2, j1, j2 in ops.get_opcodes():
        if tag == "equal":
            anchors += sum(t.content or t.key.isdigit() for t in c[i1:i2])
            continue
        cs, es = c[i1:i2], e[j1:j2]
        if not _meaningful(cs) and not _meaningful(es):
            continue  # function words or numbers only ("the", "is" / "are"; values: slots)
        if tag == "insert":
            # Evidence words the claim lacks: the claim says less, which is no difference,
            # unless the evidence has a polarity word there ("non-refundable").
            if any(t.polar for t in es):
                edits.append((tag, i1, i2, j1, j2, True))
            continue
        if tag == "delete":
            # Claim words the evidence lacks: an added detail (not found, never a swap) unless
            # they are polarity words only ("not refundable" against "refundable").
            edits.append((tag, i1, i2, j1, j2, all(t.polar for t in cs if t.content)))
            continue
        edits.append((tag, i1, i2, j1, j2, True))
    if len(edits) != 1 or anchors < MIN_ANCHORS or not edits[0][5]:
        return None
    if sum(t.content for t in c) < 2:
        return None
    kind, i1, i2, j1, j2, _ = edits[0]
    cs, es = c[i1:i2], e[j1:j2]
    if kind == "replace":
        if i2 == len(c) and len(es) > len(cs):
            j2 = j1 + len(cs)  # past the claim's end the evidence only says more
            es = e[j1:j2]
        if not _meaningful(cs):
            # "is" -> "are non": the evidence's polarity word inserted before the next word
            polar = [k for k, t in enumerate(es) if t.polar]
            if not polar or i2 >= len(c):
                return None
            kind, i1, j1, j2 = "insert", i2, j1 + polar[0], j1 + polar[-1] + 1
            cs, es = [], e[j1:j2]
        elif not _meaningful(es) and all(t.polar for t in cs if t.content):
            # "is not" -> "are": the claim's polarity words dropped
            keep = [k for k, t in enumerate(cs) if t.content]
            kind, i1, i2 = "delete", i1 + keep[0], i1 + keep[-1] + 1
            cs, es = c[i1:i2], []
    if len(cs) > MAX_SPAN or len(es) > MAX_SPAN:
        return None
    ev_text = evidence[es[0].start : es[-1].end] if es else ""
    if kind == "insert":
        at = c[i1].start if i1 < len(c) else len(claim.rstrip(" .!?"))
        # keep the evidence's joiner ("non-refundable"): up to the next evidence token
        nxt = e[j2].start if j2 < len(e) else es[-1].end
        joiner = evidence[es[-1].end : nxt]
        joiner = joiner if joiner in ("-", " ") else " "
        if i1 >= len(c):
            restated = claim[:at] + " " + ev_text + claim[at:]
        else:
            restated = claim[:at] + ev_text + joiner + claim[at:]
        return Swap(restated, "", ev_text)
    start, end = cs[0].start, cs[-1].end
    if kind == "delete":
        # drop the claim's span and the space after it
        while end < len(claim) and claim[end] in " -":
            end += 1
        return Swap(claim[:start] + claim[end:], claim[cs[0].start : cs[-1].end], "")
    return Swap(claim[:start] + ev_text + claim[end:], claim[start:end], ev_text)
