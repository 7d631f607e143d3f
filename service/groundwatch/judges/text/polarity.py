"""Polarity, modality and opposite words: negation, may / must, more / less.

Usage::

    polarity_negated("Refunds are not prorated.")     # True
    modality_of("you may cancel".split())             # ('may', 'cancel')
    negator_written("It is not refundable.")          # 'not'

Cosine similarity cannot see a "not", a "must" or a "lower" where the other text says "higher";
these are the words the slot checks compare (:mod:`groundwatch.judges.values.agreement`), and the
functions that quote them as written for a finding.
"""

from __future__ import annotations

import re

from groundwatch.judges.text.words import content_words, stem

__all__ = [
    "NEGATORS",
    "OPPOSITES",
    "bound_tokens",
    "modal_written",
    "modality_of",
    "negated_words",
    "negator_written",
    "polarity_negated",
    "related",
    "word_written",
]


NEGATORS = frozenset(
    [
        "not",
        "no",
        "never",
        "none",
        "nobody",
        "nothing",
        "neither",
        "nor",
        "without",
        "cannot",
        "can't",
        "won't",
        "don't",
        "doesn't",
        "didn't",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "hasn't",
        "haven't",
        "hadn't",
        "shouldn't",
        "wouldn't",
        "couldn't",
        "mustn't",
        "needn't",
    ]
)


OPPOSITES: list[tuple[frozenset[str], frozenset[str]]] = [
    (frozenset({"more", "greater", "higher", "larger", "bigger", "increase", "increased",
                "increases", "rise", "rose", "raised", "gain", "exceed", "exceeds", "above",
                "over", "plus", "longer", "faster", "older", "heavier", "stronger"}),
     frozenset({"less", "fewer", "lower", "smaller", "decrease", "decreased", "decreases",
                "reduce", "reduced", "reduces", "fall", "fell", "drop", "dropped", "loss",
                "below", "under", "minus", "shorter", "slower", "younger", "lighter",
                "weaker"})),
    (frozenset({"before", "earlier", "prior", "preceded", "precedes"}),
     frozenset({"after", "later", "following", "followed", "subsequent"})),
    (frozenset({"maximum", "max", "most", "up"}), frozenset({"minimum", "min", "least"})),
    (frozenset({"first", "earliest"}), frozenset({"last", "latest", "final"})),
    (frozenset({"north", "northern"}), frozenset({"south", "southern"})),
    (frozenset({"east", "eastern"}), frozenset({"west", "western"})),
    (frozenset({"include", "includes", "included", "including"}),
     frozenset({"exclude", "excludes", "excluded", "excluding"})),
    (frozenset({"allow", "allows", "allowed", "permit", "permits", "permitted"}),
     frozenset({"prohibit", "prohibits", "prohibited", "forbid", "forbids", "forbidden",
                "ban", "bans", "banned", "disallowed"})),
    (frozenset({"accept", "accepts", "accepted", "approve", "approved"}),
     frozenset({"reject", "rejects", "rejected", "deny", "denied", "decline", "declined"})),
    (frozenset({"open", "opened", "opens"}), frozenset({"closed", "close", "closes"})),
    (frozenset({"win", "won", "wins", "victory"}), frozenset({"lose", "lost", "loses", "defeat", "defeated"})),
    (frozenset({"paid"}), frozenset({"free", "unpaid"})),
    (frozenset({"always"}), frozenset({"never", "sometimes", "occasionally"})),
    (frozenset({"enabled", "on"}), frozenset({"disabled", "off"})),
    (frozenset({"daily"}), frozenset({"weekly", "monthly", "annually", "yearly"})),
    (frozenset({"weekly"}), frozenset({"daily", "monthly", "annually", "yearly"})),
    (frozenset({"monthly"}), frozenset({"daily", "weekly", "annually", "yearly", "quarterly"})),
    (frozenset({"annually", "yearly", "annual"}), frozenset({"monthly", "weekly", "daily", "quarterly"})),
]  # fmt: skip


_BOUND_NEGATION = re.compile(
    r"\b(?:no|not|never)\s+(?:\w+\s+){0,2}?(?:more|less|fewer|later|earlier|longer|shorter|greater|higher|"
    r"lower|sooner)\s+than\b|\bnot\s+(?:to\s+)?exceed|\bnot only\b|\bno matter\b"
)


def polarity_negated(text: str) -> bool:
    """True when ``text`` asserts a negation (an odd number of negators; "? No." answers)."""
    lowered = text.lower().replace("’", "'")
    tokens = re.findall(r"[a-z]+(?:'[a-z]+)?", lowered)
    count = sum(1 for t in tokens if t in NEGATORS)
    count += len(re.findall(r"\bnon-?[a-z]", lowered))
    # "no more than 8", "not later than", "not to exceed": bounds, not negations.
    count -= len(_BOUND_NEGATION.findall(lowered))
    idx = lowered.rfind("? ")
    if idx >= 0:
        answer = lowered[idx + 2 :].strip(" .!")
        if answer in {"no", "nope", "false", "incorrect"}:
            count += 1
        lowered_q = lowered[:idx]
        count = sum(1 for t in re.findall(r"[a-z]+(?:'[a-z]+)?", lowered_q) if t in NEGATORS) + (
            1 if answer in {"no", "nope", "false", "incorrect"} else 0
        )
    return count % 2 == 1


_MUST = re.compile(
    r"\b(?:(?P<adj>required|mandatory|obligatory)|must|shall|needs? to|ha(?:ve|s) to)\b"
    r"(?:\s+(?:not|also|only|always|be|first))*(?:\s+(?P<verb>[a-z]+))?"
)
_MAY = re.compile(
    r"\b(?:(?P<adj>optional|optionally)|may|might|can|could|(?:allowed|permitted) to)\b"
    r"(?:\s+(?:not|also|only|always|be|first))*(?:\s+(?P<verb>[a-z]+))?"
)


def modality_of(tokens: list[str]) -> tuple[str, str] | None:
    """("must" | "may", what it bears on): "adj" for optional/required, else the next verb."""
    joined = " ".join(tokens)
    for kind, rx in (("must", _MUST), ("may", _MAY)):
        m = rx.search(joined)
        if m:
            return kind, "adj" if m.group("adj") else stem(m.group("verb") or "")
    return None


def bound_tokens(tokens: list[str]) -> list[str]:
    """Tokens less superlatives that are no bound: "most recent" and "least busy" say nothing
    of a maximum or minimum ("at most", "at least" do), nor "up" without "to" ("up to")."""
    out: list[str] = []
    for k, t in enumerate(tokens):
        before = tokens[k - 1] if k else ""
        after = tokens[k + 1] if k + 1 < len(tokens) else ""
        if t in _SUPERLATIVE_BOUNDS and before != "at":
            continue
        if t == "up" and after != "to":
            continue
        out.append(t)
    return out


_SUPERLATIVE_BOUNDS = frozenset({"most", "least"})


def negated_words(tokens: tuple[str, ...]) -> set[str]:
    """Content words a negator bears on: the first content word within 3 tokens after it."""
    out: set[str] = set()
    for i, t in enumerate(tokens):
        if t not in NEGATORS and t not in {"t", "n", "non"}:
            continue
        for nxt in tokens[i + 1 : i + 4]:
            words = content_words(nxt)
            if words and words[0] not in {"not", "no", "never"}:
                out.add(words[0])
                break
    return out


#: A word as written; "non-refundable" whole (its "non" is the negator written).
_WORD = re.compile(r"non-[A-Za-z]+|[A-Za-z]+(?:['’][A-Za-z]+)?", re.IGNORECASE)


def negator_written(text: str) -> str | None:
    """The first negator of ``text`` as written ("not", "Never", "isn't", "non-refundable"),
    leaving out bounds such as "no more than"; None when there is none."""
    bounds = [m.span() for m in _BOUND_NEGATION.finditer(text.lower())]
    for m in _WORD.finditer(text):
        word = m.group(0).lower().replace("’", "'")
        if any(a <= m.start() < b for a, b in bounds):
            continue
        if word in NEGATORS or re.fullmatch(r"non-?[a-z]+", word):
            return m.group(0)
    return None


def word_written(text: str, stems: set[str]) -> str | None:
    """The first word of ``text`` (as written) related to one of ``stems``."""
    for m in _WORD.finditer(text):
        words = content_words(m.group(0))
        if words and any(related(words[0], s) for s in stems):
            return m.group(0)
    return None


_MODAL_HEAD = re.compile(r"needs? to|ha(?:ve|s) to|(?:allowed|permitted) to|[a-z]+")


def modal_written(text: str, kind: str) -> str | None:
    """The modal word of ``kind`` ("must" | "may") in ``text`` as written ("must", "Required",
    "can", "needs to"), without the verb it bears on; None when there is none."""
    lowered = text.lower()
    m = (_MUST if kind == "must" else _MAY).search(lowered)
    if m is None or len(lowered) != len(text):
        return None
    head = _MODAL_HEAD.match(lowered, m.start())
    return None if head is None else text[head.start() : head.end()]


def related(a: str, b: str) -> bool:
    """Same stem, or one derivation of the other ("approval" / "approv", "refundable")."""
    if a == b:
        return True
    n = min(len(a), len(b))
    return n >= 4 and a[: max(4, n - 2)] == b[: max(4, n - 2)]
