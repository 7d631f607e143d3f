"""Content words: the stopwords, the stemmer and the words a text is compared on.

Usage::

    content_words("The refunds were approved in Q3.")   # ('refund', 'approv', 'third', 'quarter')
    stem("permitted")                                    # 'allow' (a synonym's stem)
    as_written("Refunds always paid.", ["alway", "pay"])  # ['always', 'paid']

Every judge compares claims and passages on these words, so that all of them read a text alike.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

__all__ = [
    "IRREGULAR_FORMS",
    "STOPWORDS",
    "as_written",
    "content_words",
    "stem",
    "word_set",
]


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS = word_set(
    """
    a an the and or but if then else of to in on at by for with from into onto about as than
    that this these those there here it its it's they them their he him his she her we us our
    you your i me my mine is are was were be been being am do does did done doing has have had
    having will would shall should can could may might must not no nor so such too very also
    just only which who whom whose what when where why how all any both each few more most other
    some own same s t don doesn didn isn aren wasn weren won't can't cannot up down out over
    under again further once both either neither yes per via upon within without while during
    before after above below between through because until against among whether one ones many
    much
    """
)

# Hedges on a quantity ("roughly 1,770 miles") carry no fact of their own.
STOPWORDS = STOPWORDS | word_set(
    """
    roughly approximately around nearly almost approx exactly just currently usually usual
    typically typical generally actually really overall
    """
)

# Words kept even though they look like stopwords: they carry meaning the slot checks need.
_MEANINGFUL = frozenset(
    {"not", "no", "never", "more", "less", "before", "after", "above", "below", "most"}
)


_WORD = re.compile(r"[^\W_][\w'’\-]*")


# Business shorthand read as words, so that "Q3" covers "third quarter".
_PERIODS = {
    **{f"q{i}": (n, "quarter") for i, n in enumerate(("first", "second", "third", "fourth"), 1)},
    "h1": ("first", "half"),
    "h2": ("second", "half"),
    "fy": ("fiscal", "year"),
    "yoy": ("year",),
}


# Irregular verb forms, so that "begun" covers "began".
IRREGULAR_FORMS = {
    form: base
    for pair in word_set(
        """
    begin:began,begun write:wrote,written build:built hold:held lead:led win:won sell:sold
    pay:paid make:made take:took,taken give:gave,given grow:grew,grown rise:rose,risen
    fall:fell,fallen choose:chose,chosen speak:spoke,spoken buy:bought bring:brought
    become:became run:ran come:came go:went,gone see:saw,seen know:knew,known draw:drew,drawn
    fly:flew,flown send:sent spend:spent keep:kept meet:met tell:told say:said stand:stood
    lose:lost teach:taught fight:fought drive:drove,driven break:broke,broken eat:ate,eaten
    sing:sang,sung shoot:shot die:died,dying lie:lied tie:tied
    """
    )
    for base, forms in [pair.split(":")]
    for form in forms.split(",")
}


# General synonyms (stems) read as one word, so that a paraphrase covers its original.
_SYNONYMS = {
    form: canon
    for group in word_set(
        """
    allow:permit,let,authoriz,authoris cost:pric,charg buy:purchas get:receiv,obtain
    start:begin,commenc end:finish,terminat make:manufactur,produc larg:big small:littl
    includ:contain show:display need:requir help:assist use:utiliz,utilis keep:retain
    choos:select repli:respond,answer fast:quick,rapid car:vehicl
    deep:depth wide:width long:length high:height weigh:weight thick:thickness
    """
    )
    for canon, forms in [group.split(":")]
    for form in forms.split(",")
}


def stem(word: str) -> str:
    """A tiny suffix-stripping stemmer: enough for lexical overlap, not for linguistics."""
    base = _stem(word)
    return _SYNONYMS.get(base, base)


def _stem(word: str) -> str:
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if w in IRREGULAR_FORMS:
        return IRREGULAR_FORMS[w]
    if len(w) <= 3:
        return w
    out = _strip_suffix(w)
    # "permitted" -> "permitt" -> "permit"; "stopped" -> "stop" (not "call", "miss", "buzz").
    if len(out) >= 5 and out[-1] == out[-2] and out[-1] not in "lsz" and out != w:
        out = out[:-1]
    # "include" / "included" / "includes": drop a final silent e.
    if len(out) >= 5 and out.endswith("e") and not out.endswith("ee"):
        out = out[:-1]
    return out


def _strip_suffix(w: str) -> str:
    for suffix, repl in (
        ("ies", "y"),
        ("ied", "y"),
        ("sses", "ss"),
        ("ing", ""),
        ("edly", ""),
        ("ed", ""),
        ("ly", ""),
        ("es", ""),
        ("s", ""),
    ):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            if suffix == "s" and w.endswith(("ss", "us", "is")):
                return w
            if suffix == "es" and not w.endswith(("ches", "shes", "xes", "sses", "zes")):
                return w[:-1]
            return w[: len(w) - len(suffix)] + repl
    return w


@lru_cache(maxsize=65536)
def _content_words_cached(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for m in _WORD.finditer(text):
        # "non-refundable" -> "refundable" (the negation is a slot, checked separately).
        for part in m.group(0).lower().split("-"):
            token = part.strip("'’_")
            if not token or token in {"non", "re", "pre", "co"}:
                continue
            if token in STOPWORDS and token not in _MEANINGFUL:
                continue
            if token in _PERIODS:
                out.extend(_PERIODS[token])
                continue
            out.append(stem(token))
    return tuple(out)


def as_written(text: str, stems: Sequence[str]) -> list[str]:
    """The words of ``text`` behind ``stems`` (content words), as the text writes them.

    Reasons quote the claim, not the stemmer: ``["alway", "pay"]`` -> ``["always", "paid"]``.
    A stem with no word behind it (a period expansion) is kept as it is.
    """
    surface: dict[str, str] = {}
    for m in _WORD.finditer(text):
        for part in m.group(0).split("-"):
            token = part.strip("'’_")
            if token:
                surface.setdefault(stem(token.lower()), token)
    return [surface.get(s, s) for s in stems]


def content_words(text: str) -> tuple[str, ...]:
    """Stemmed, lower-cased content words of ``text`` (stopwords removed), in order."""
    return _content_words_cached(text)
