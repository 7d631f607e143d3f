"""Values told apart by the word that qualifies one noun: "a cabin bag of up to 10 kg and a
checked bag of up to 25 kg", "60 minutes before departure for short-haul flights and 75
minutes ... for long-haul flights".

Usage::

    [value] = stated_values("10 kg")
    hit = qualified_rival(value, {("check", "bag")}, ["The fare includes a cabin bag of up to "
                          "10 kg and a checked bag of up to 25 kg."])
    hit.stated, hit.asked, hit.own     # '25 kg', 'checked bag', 'cabin bag'

A sentence that states values of one kind for cases of one noun names each case by a qualifier
of that noun, written on the same side of every value (all before: "a cabin bag of up to
10 kg"; or all after: "75 minutes ... for long-haul flights"). The gaps between the values are
read in order, and each value takes the qualified noun of the gap on its side. A claim whose
value is stated for one qualifier while its words (a short answer's question) name the other
qualifier of that noun, and not the value's own, gives the value of another case.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from groundwatch.judges.text.words import content_words
from groundwatch.judges.values.alignment import agrees, exact_kind
from groundwatch.judges.values.stated import StatedValue, normalised, stated_values

__all__ = ["QualifiedRival", "qualified_pairs", "qualified_rival"]

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’-]*")


@dataclass(frozen=True)
class QualifiedRival:
    """The value stated (``stated``, in evidence ``sentence``) for the qualified noun asked
    (``asked``), where the claim's value is stated for ``own``."""

    stated: str
    asked: str
    own: str
    sentence: int


def _stem(token: str) -> str:
    return "-".join(content_words(token.replace("-", " ")))


def qualified_pairs(text: str) -> list[tuple[str, str, str]]:
    """Adjacent content words of ``text`` (a qualifier and the noun it qualifies, as stems,
    and the two as written), in order; any other word or punctuation between breaks a pair."""
    out: list[tuple[str, str, str]] = []
    prev: tuple[str, int, int] | None = None
    for m in _TOKEN.finditer(text):
        stem = _stem(m.group(0))
        if not stem:
            prev = None
            continue
        if prev is not None and not text[prev[2] : m.start()].strip():
            out.append((prev[0], stem, text[prev[1] : m.end()]))
        prev = (stem, m.start(), m.end())
    return out


def _sides(text: str, kin: Sequence[StatedValue]) -> list[tuple[str, str, str]] | None:
    """Per value of ``kin`` (in order), its qualifier, noun and the two as written; None when
    the gaps between them name no noun with a qualifier on one side of every value."""
    cuts = [0, *(i for v in kin for i in v.span), len(text)]
    gaps = [text[cuts[2 * k] : cuts[2 * k + 1]] for k in range(len(kin) + 1)]
    pairs = [qualified_pairs(g) for g in gaps]
    nouns = {n for found in pairs for _, n, _ in found}
    for noun in sorted(nouns):
        have = [any(n == noun for _, n, _ in found) for found in pairs]
        if all(have[: len(kin)]):
            side = [[p for p in found if p[1] == noun][-1] for found in pairs[: len(kin)]]
        elif all(have[1:]):
            side = [next(p for p in found if p[1] == noun) for found in pairs[1:]]
        else:
            continue
        if len({q for q, _, _ in side}) == len(side):
            return side
    return None


def qualified_rival(
    value: StatedValue,
    asked: Collection[tuple[str, str]],
    evidence: Sequence[str],
    words: Collection[str] = (),
) -> QualifiedRival | None:
    """The first evidence value of exactly ``value``'s kind stated for a qualified noun that
    ``asked`` (qualifier and noun stems) names, where ``value`` is stated in that sentence for
    another qualifier of the noun that neither ``asked`` nor ``words`` (all the claim's or
    question's stems: "the parking permit for residents") names; None when there is none."""
    qualifiers = {q for q, _ in asked} | set(words)
    for k, sentence in enumerate(evidence):
        text = normalised(sentence)
        kin = sorted((e for e in stated_values(sentence) if exact_kind(value, e)), key=_start)
        mine = [i for i, e in enumerate(kin) if agrees(value, e)]
        if len(kin) < 2 or len(mine) != 1:
            continue
        side = _sides(text, kin)
        if side is None:
            continue
        own = side[mine[0]]
        if own[0] in qualifiers:
            return None  # the value's own case is asked
        for i, (q, n, written) in enumerate(side):
            if i != mine[0] and (q, n) in asked and not agrees(value, kin[i]):
                return QualifiedRival(kin[i].text, written, own[2], k)
    return None


def _start(v: StatedValue) -> int:
    return v.span[0]
