"""Synthetic pairs in the shapes production answers take (FactCC / MiniCheck style).

Usage::

    extra = synthesize(supported_pairs, rng, per_pair=1)

From a *supported* (premise, claim) pair, or from a premise sentence taken as the claim:

* **contradicted**: one edit that makes the claim disagree with the evidence: a number, a
  percentage, a year, a month, a negation flipped, an antonym / comparative / quantifier /
  modality swapped, a named entity replaced by another name;
* **not found**: a claim about something else (another premise's claim), the true claim with a
  detail the premise does not state (a year, a place, a reason), or a sentence of the same
  document shown beside its neighbours but without itself (related, same names, not stated:
  the hard case that must not read as a contradiction);
* **supported**: a premise sentence restated (verbatim, a clause of it, numbers written as words
  or digits, equivalent wordings such as "free of charge" = "at no cost", "at least N" = "N or
  more").

Edits apply only where the changed value is stated in the premise, so the label holds.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

from groundwatch.judges.claims.extract import split_sentences
from training.data import CONTRADICTED, NOT_FOUND, SUPPORTED, UNSUPPORTED, Pair

_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w.]*\d)")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20[0-4]\d)\b")
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_MONTH = re.compile(r"\b(" + "|".join(_MONTHS) + r")\b")
_NEGATABLE = re.compile(
    r"\b(is|was|are|were|has|have|had|can|will|could|should|does|did|do|must)\b(?! not\b)"
)
_NEGATED = re.compile(
    r"\b(is|was|are|were|has|have|had|can|will|could|should|does|did|do|must) not\b|"
    r"\b(isn't|wasn't|aren't|weren't|hasn't|haven't|hadn't|can't|won't|couldn't|shouldn't|doesn't|didn't|don't|cannot|never)\b"
)
_UNNEGATE = {
    "isn't": "is",
    "wasn't": "was",
    "aren't": "are",
    "weren't": "were",
    "hasn't": "has",
    "haven't": "have",
    "hadn't": "had",
    "can't": "can",
    "cannot": "can",
    "won't": "will",
    "couldn't": "could",
    "shouldn't": "should",
    "doesn't": "does",
    "didn't": "did",
    "don't": "do",
    "never": "always",
}
_ANTONYMS = [
    ("more", "less"),
    ("higher", "lower"),
    ("increase", "decrease"),
    ("increased", "decreased"),
    ("rose", "fell"),
    ("larger", "smaller"),
    ("largest", "smallest"),
    ("before", "after"),
    ("earlier", "later"),
    ("first", "last"),
    ("above", "below"),
    ("maximum", "minimum"),
    ("most", "least"),
    ("always", "never"),
    ("all", "none of the"),
    ("allowed", "prohibited"),
    ("included", "excluded"),
    ("including", "excluding"),
    ("accepted", "rejected"),
    ("won", "lost"),
    ("male", "female"),
    ("north", "south"),
    ("east", "west"),
    ("open", "closed"),
    ("required", "optional"),
    ("must", "may"),
    ("free", "paid"),
    ("profit", "loss"),
    ("gain", "loss"),
    ("older", "younger"),
    ("longer", "shorter"),
    ("faster", "slower"),
    ("success", "failure"),
    ("positive", "negative"),
    ("approved", "denied"),
]
_SWAP = dict(_ANTONYMS) | {b: a for a, b in _ANTONYMS}
_SWAP_RE = re.compile(r"\b(" + "|".join(re.escape(w) for w in _SWAP) + r")\b")
_ENTITY = re.compile(r"\b([A-Z][\w'-]+(?:\s+(?:of\s+|de\s+)?(?:[A-Z][\w'-]+|\d+))*)")
_NOT_ENTITY = frozenset(
    [
        "The",
        "A",
        "An",
        "In",
        "On",
        "At",
        "He",
        "She",
        "It",
        "They",
        "There",
        "This",
        "That",
        "These",
        "Those",
        "His",
        "Her",
        "Its",
        "Their",
        "We",
        "I",
        "You",
        "After",
        "Before",
        "When",
        "While",
        "If",
        "But",
        "And",
        "Or",
        "As",
        "For",
        "From",
        "By",
        "With",
    ]
)
_NUM_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
_EQUIVALENTS = [
    ("free of charge", "at no cost"),
    ("free of charge", "without any charge"),
    ("at least", "no fewer than"),
    ("more than", "over"),
    ("approximately", "about"),
    ("roughly", "around"),
    ("percent", "%"),
    ("cannot", "is not able to"),
    ("must", "has to"),
    ("begins", "starts"),
    ("purchase", "buy"),
    ("however", "but"),
    ("located in", "based in"),
    ("is known as", "is called"),
    ("died", "passed away"),
    ("film", "movie"),
    ("United States", "US"),
    ("also", "as well"),
    ("received", "got"),
    ("additional", "extra"),
]
_DETAILS = [
    "in {year}",
    "since {year}",
    "for the third time",
    "according to a government report",
    "because of rising costs",
    "in Paris",
    "in Canada",
    "after a vote by the board",
    "with the help of a grant",
    "for children under 12",
    "on weekends only",
    "as a result of the merger",
]


def _sub_once(pattern: re.Pattern[str], repl: Callable[[re.Match[str]], str], text: str) -> str:
    matches = list(pattern.finditer(text))
    if not matches:
        return text
    m = matches[len(text) % len(matches)]
    return text[: m.start()] + repl(m) + text[m.end() :]


def _other_number(value: str, rng: random.Random) -> str:
    plain = value.replace(",", "")
    if _YEAR.fullmatch(plain):
        return str(int(plain) + rng.choice([-11, -5, -3, -2, -1, 1, 2, 3, 7, 10]))
    num = float(plain)
    if num == int(num) and num < 13:
        choices = [n for n in range(0, 25) if n != int(num)]
        return str(rng.choice(choices))
    factor = rng.choice([0.5, 0.6, 0.75, 0.8, 1.25, 1.5, 2.0, 3.0])
    new = num * factor
    if "." in plain:
        decimals = len(plain.split(".")[1])
        return f"{new:.{decimals}f}"
    out = str(round(new))
    if out == plain:
        out = str(round(new) + 1)
    return f"{int(out):,}" if "," in value else out


def contradict(claim: str, premise: str, rng: random.Random) -> str | None:
    """One edit that makes ``claim`` disagree with ``premise``; None when none applies."""
    edits: list[Callable[[], str]] = []
    nums = [m for m in _NUMBER.finditer(claim) if m.group(1) in premise]
    if nums:
        edits.append(lambda: _sub_once(_NUMBER, lambda m: _other_number(m.group(1), rng), claim))
    if any(m.group(1) in premise for m in _MONTH.finditer(claim)):
        edits.append(
            lambda: _sub_once(
                _MONTH, lambda m: rng.choice([x for x in _MONTHS if x != m.group(1)]), claim
            )
        )
    if _NEGATED.search(claim):
        edits.append(lambda: _sub_once(_NEGATED, _unnegate, claim))
    elif _NEGATABLE.search(claim):
        edits.append(lambda: _sub_once(_NEGATABLE, lambda m: m.group(1) + " not", claim))
    if _SWAP_RE.search(claim):
        edits.append(lambda: _sub_once(_SWAP_RE, lambda m: _SWAP[m.group(1)], claim))
    claim_ents = [e for e in _entities(claim) if e in premise]
    others = sorted(e for e in set(_entities(premise)) if e not in claim and claim not in e)
    if claim_ents:
        old = rng.choice(claim_ents)
        alike = [e for e in others if len(e.split()) >= min(2, len(old.split()))]
        if alike:
            edits.append(lambda: claim.replace(old, rng.choice(alike), 1))
    if not edits:
        return None
    out = rng.choice(edits)()
    return out if out != claim else None


def _entities(text: str) -> list[str]:
    return [m.group(1) for m in _ENTITY.finditer(text) if m.group(1) not in _NOT_ENTITY]


def _unnegate(m: re.Match[str]) -> str:
    if m.group(1):
        return m.group(1)
    return _UNNEGATE.get(m.group(2).lower(), m.group(2))


def add_detail(claim: str, rng: random.Random) -> str:
    """The claim with a detail the premise does not state (not found)."""
    detail = rng.choice(_DETAILS).format(year=rng.randint(1950, 2030))
    base = claim.rstrip(" .!?")
    return f"{base} {detail}."


def paraphrase(sentence: str, rng: random.Random) -> str:
    """A premise sentence restated with equivalent wording (supported)."""
    out = sentence
    for a, b in rng.sample(_EQUIVALENTS, len(_EQUIVALENTS)):
        if a in out:
            out = out.replace(a, b, 1)
            break
        if b in out and rng.random() < 0.5:
            out = out.replace(b, a, 1)
            break

    def words(m: re.Match[str]) -> str:
        n = m.group(1)
        return _NUM_WORDS[int(n)] if n.isdigit() and int(n) <= 20 else n

    if rng.random() < 0.5:
        out = re.sub(r"\b(\d{1,2})\b(?!\s*[%:.,/]\d)", words, out, count=1)
    if rng.random() < 0.3 and ", " in out:
        head, tail = out.rstrip(".").split(", ", 1)
        if len(tail.split()) > 3 and len(head.split()) > 3:
            out = tail[0].upper() + tail[1:] + ", " + head[0].lower() + head[1:] + "."
    return out


_TRAILING = re.compile(
    r"(?:,\s+(?:which|who|where|while|and|but|as|after|before|when|including|with)\b[^,]*"
    r"|\s+(?:in|on|at|during|with|for|from|after|before|since|by|near|through)\s+[^,]{3,40})"
    r"[.!]?$"
)


def drop_detail(sentence: str) -> str | None:
    """The sentence without its trailing clause or phrase (supported by deletion); None if unsafe.

    Negated or hedged sentences are skipped: dropping "until 2010" from "did not ... until 2010"
    changes what is claimed.
    """
    if _NEGATED.search(sentence) or re.search(r"\b(only|unless|until|except|if)\b", sentence):
        return None
    m = _TRAILING.search(sentence.rstrip())
    if not m:
        return None
    head = sentence[: m.start()].rstrip(" ,;:")
    if len(head.split()) < 5:
        return None
    return head + "."


def sibling(premise: str, sentence: str) -> str | None:
    """The premise without ``sentence`` (at least two sentences left); None when too short."""
    rest = [s for s in split_sentences(premise) if s != sentence]
    if len(rest) < 2 or len(rest) == len(split_sentences(premise)):
        return None
    return " ".join(rest)


_LOWER_WORD = re.compile(r"\b[a-z]{4,}\b")


def _shape(word: str) -> str:
    """A crude word class by ending, so a swap keeps the sentence grammatical."""
    for end in ("ing", "ed", "ly", "ss", "s"):
        if word.endswith(end):
            return end
    return ""


def swap_word(claim: str, premise: str, pool: Sequence[str], rng: random.Random) -> str | None:
    """One common word the premise states (a noun, verb or adjective: "boy", "sitting") replaced
    by a word from another document: the claim no longer follows (unsupported; a swap may
    contradict or merely not be stated, so both labels are allowed)."""
    from groundwatch.judges.claims.extract import STOPWORDS

    stated = [
        m
        for m in _LOWER_WORD.finditer(claim)
        if m.group(0) not in STOPWORDS and m.group(0) in premise.lower()
    ]
    if not stated or not pool:
        return None
    m = rng.choice(stated)
    shape = _shape(m.group(0))
    alike = [w for w in pool if _shape(w) == shape] or list(pool)
    for _ in range(5):
        new = rng.choice(alike)
        if new not in premise.lower() and new not in STOPWORDS and new != m.group(0):
            return claim[: m.start()] + new + claim[m.end() :]
    return None


def synthesize(
    base: Sequence[Pair], sentences: Sequence[tuple[str, str, str]], rng: random.Random
) -> list[Pair]:
    """Synthetic pairs from supported ``base`` pairs and (premise, sentence, group) triples."""
    out: list[Pair] = []
    claims = [p.claim for p in base]
    pool = sorted({w for c in claims[:5000] for w in _LOWER_WORD.findall(c)})
    swap_rng = random.Random(f"swap-{len(base)}")  # own stream: the other sources stay as they were
    for p in base:
        swapped = swap_word(p.claim, p.premise, pool, swap_rng)
        if swapped:
            out.append(Pair(p.premise, swapped, UNSUPPORTED, "syn_swap", p.group))
        edited = contradict(p.claim, p.premise, rng)
        if edited:
            out.append(Pair(p.premise, edited, frozenset({CONTRADICTED}), "syn_contra", p.group))
        r = rng.random()
        if r < 0.3:
            other = rng.choice(claims)
            if other != p.claim:
                out.append(Pair(p.premise, other, frozenset({NOT_FOUND}), "syn_other", p.group))
        elif r < 0.55:
            out.append(
                Pair(
                    p.premise, add_detail(p.claim, rng), frozenset({NOT_FOUND}), "syn_add", p.group
                )
            )
    for premise, sent, group in sentences:
        restated = paraphrase(sent, rng) if rng.random() < 0.6 else sent
        out.append(Pair(premise, restated, frozenset({SUPPORTED}), "syn_restate", group))
        edited = contradict(sent, premise, rng)
        if edited:
            out.append(Pair(premise, edited, frozenset({CONTRADICTED}), "syn_contra_sent", group))
        rest = sibling(premise, sent)
        if rest:
            out.append(Pair(rest, sent, frozenset({NOT_FOUND}), "syn_sibling", group))
        shorter = drop_detail(sent)
        if shorter:
            out.append(Pair(premise, shorter, frozenset({SUPPORTED}), "syn_drop", group))
    return out
