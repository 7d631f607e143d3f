"""Negation-equivalent twins: a premise sentence restated with a negation that keeps its meaning
(*supported*), beside a twin that says the opposite (*contradicted*).

Usage::

    twins = negation_twins("The museum is free of charge on Sundays.", rng)
    # ("The museum is at no cost on Sundays.", "The museum is for a fee on Sundays.")

Why: a model trained on one-edit contradictions learns "a near copy with a negation or a bound
changed is a contradiction", and then calls "inactive above 60 °C" vs "not active at over 60 °C"
contradicted. Each supported restatement here carries a negation, a negative prefix or a
reworded bound; its twin differs from it by the same kind of edit and is contradicted. So the
negation is never a cue alone: only what it negates decides.

The rewrites are meaning-preserving equivalences (complementary adjectives: "not open" =
"closed"; negative prefixes: "unavailable" = "not available"; bounds: "at least N" = "N or
more", "up to N" = "no more than N"; obligations: "must" = "is required to"), each applied once
where the sentence states it, in either direction.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

__all__ = ["negation_twins"]

_COPULA = r"(is|are|was|were|remains|remained|stays|stayed)"
#: Complementary adjectives: "not A" means B (and "not B" means A) after a copula.
_COMPLEMENTS = [
    ("open", "closed"),
    ("alive", "dead"),
    ("present", "absent"),
    ("allowed", "prohibited"),
    ("permitted", "forbidden"),
    ("required", "optional"),
    ("mandatory", "optional"),
    ("included", "excluded"),
    ("true", "false"),
    ("correct", "wrong"),
    ("the same", "different"),
    ("male", "female"),
    ("awake", "asleep"),
    ("public", "private"),
    ("permanent", "temporary"),
    ("online", "offline"),
    ("enabled", "disabled"),
    ("locked", "unlocked"),
    ("employed", "unemployed"),
    ("successful", "unsuccessful"),
    ("accepted", "rejected"),
    ("approved", "rejected"),
    ("visible", "hidden"),
    ("legal", "illegal"),
    ("possible", "impossible"),
    ("available", "unavailable"),
    ("able", "unable"),
    ("active", "inactive"),
    ("valid", "invalid"),
    ("safe", "unsafe"),
    ("complete", "incomplete"),
    ("accurate", "inaccurate"),
    ("necessary", "unnecessary"),
    ("paid", "unpaid"),
    ("sufficient", "insufficient"),
    ("aware", "unaware"),
    ("eligible", "ineligible"),
    ("changed", "unchanged"),
    ("stable", "unstable"),
    ("refundable", "non-refundable"),
    ("limited", "unlimited"),
    ("affected", "unaffected"),
    ("harmed", "unharmed"),
    ("injured", "uninjured"),
    ("finished", "unfinished"),
    ("solved", "unsolved"),
    ("armed", "unarmed"),
    ("conscious", "unconscious"),
]
_OTHER = dict(_COMPLEMENTS) | {b: a for a, b in _COMPLEMENTS}
_ADJ = "|".join(sorted((re.escape(w) for w in _OTHER), key=len, reverse=True))
# "is open" / "is not open" (no modal before: "can be open" is not a statement)
_COPULA_ADJ = re.compile(rf"\b{_COPULA}()\s+({_ADJ})\b(?!-)")
_COPULA_NOT_ADJ = re.compile(rf"\b{_COPULA}\s+not\s+({_ADJ})\b(?!-)")
_NUM = r"(\d[\d,.]*(?:\s*%)?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|fifty|a hundred)"
#: Bounds: (pattern, equivalents, contradicting rewrites); the number is group 1.
_BOUNDS: list[tuple[re.Pattern[str], list[str], list[str]]] = [
    (
        re.compile(rf"\bat least {_NUM}"),
        ["{n} or more", "no fewer than {n}", "not less than {n}"],
        ["fewer than {n}", "less than {n}"],
    ),
    (
        re.compile(rf"\b(?:up to|at most|no more than) {_NUM}"),
        ["not more than {n}", "{n} at most", "a maximum of {n}"],
        ["more than {n}", "over {n}"],
    ),
    (
        re.compile(rf"\b(?:more than|over) {_NUM}"),
        ["upwards of {n}", "in excess of {n}"],
        ["no more than {n}", "at most {n}", "fewer than {n}"],
    ),
    (
        re.compile(rf"\b(?:fewer than|less than) {_NUM}"),
        ["below {n}", "not as many as {n}"],
        ["at least {n}", "more than {n}"],
    ),
]
#: Phrases: (pattern, equivalents with a negation, contradicting rewrites).
_PHRASES: list[tuple[re.Pattern[str], list[str], list[str]]] = [
    (
        re.compile(r"\b(?:free of charge|for free|at no cost|at no charge)\b"),
        ["at no charge", "without charge", "with no fee"],
        ["for a fee", "at an extra charge"],
    ),
    (
        re.compile(r"\bmust not\b(?! (?:have|be)\b)"),
        ["is not allowed to", "is not permitted to"],
        ["may", "is allowed to"],
    ),
    (
        re.compile(r"\bcannot\b|\bcan not\b|\bcan't\b"),
        ["is unable to", "is not able to"],
        ["can", "is able to"],
    ),
    (
        re.compile(r"\bmust\b(?! not\b)(?! (?:have|be)\b)"),
        ["is required to", "has to", "cannot fail to"],
        ["does not have to", "is not required to", "need not"],
    ),
    (
        re.compile(r"\bfailed to\b"),
        ["did not", "did not manage to", "was unable to"],
        ["managed to", "did"],
    ),
    (
        re.compile(r"\bnever\b"),
        ["not once", "not ever", "at no time"],
        ["sometimes", "at least once"],
    ),
    (
        re.compile(r"\bwithout\b"),
        ["with no", "lacking"],
        ["with", "along with"],
    ),
    (
        re.compile(r"\bnone of the\b"),
        ["not one of the", "not any of the"],
        ["all of the", "some of the"],
    ),
    (
        re.compile(r"\bexcept\b"),
        ["other than", "but not"],
        ["including", "as well as"],
    ),
]


def _replace_once(
    pattern: re.Pattern[str], text: str, repl: Callable[[re.Match[str]], str]
) -> str | None:
    m = pattern.search(text)
    if m is None:
        return None
    return text[: m.start()] + repl(m) + text[m.end() :]


def _complement(sentence: str, rng: random.Random) -> tuple[str, str] | None:
    """'is not open' -> supported 'is closed', twin 'is open'; 'is open' -> supported
    'is not closed', twin 'is closed'."""
    m = _COPULA_NOT_ADJ.search(sentence)
    if m is not None:
        cop, adj = m.group(1), m.group(2)
        pre, post = sentence[: m.start()], sentence[m.end() :]
        return f"{pre}{cop} {_OTHER[adj]}{post}", f"{pre}{cop} {adj}{post}"
    m = _COPULA_ADJ.search(sentence)
    if m is None:
        return None
    cop, adv, adj = m.group(1), m.group(2) or "", m.group(3)
    pre, post = sentence[: m.start()], sentence[m.end() :]
    supported = f"{pre}{cop} not{adv} {_OTHER[adj]}{post}"
    if rng.random() < 0.5:
        contradicted = f"{pre}{cop}{adv} {_OTHER[adj]}{post}"
    else:
        contradicted = f"{pre}{cop} not{adv} {adj}{post}"
    return supported, contradicted


def _rewrite(
    sentence: str,
    rules: list[tuple[re.Pattern[str], list[str], list[str]]],
    rng: random.Random,
) -> tuple[str, str] | None:
    for pattern, same, opposite in rules:
        m = pattern.search(sentence)
        if m is None:
            continue
        n = m.group(1) if pattern.groups else ""
        yes = rng.choice(same).format(n=n)
        no = rng.choice(opposite).format(n=n)
        supported = _replace_once(pattern, sentence, lambda _m, s=yes: s)
        contradicted = _replace_once(pattern, sentence, lambda _m, s=no: s)
        if supported and contradicted:
            return supported, contradicted
    return None


def negation_twins(sentence: str, rng: random.Random) -> tuple[str, str] | None:
    """(supported restatement, contradicted twin) of ``sentence``, or None where no
    equivalence applies. The first that applies is used: bounds, phrases, then complements."""
    for attempt in (
        lambda: _rewrite(sentence, _BOUNDS, rng),
        lambda: _rewrite(sentence, _PHRASES, rng),
        lambda: _complement(sentence, rng),
    ):
        out = attempt()
        if out is not None and out[0] != sentence and out[1] != sentence:
            return out
    return None
