"""Two nouns that are two kinds of one thing: "blueberries" and "raspberries", "cat" and "dog".

Usage::

    kinds_apart("blueberries", "raspberries")   # True: two edible fruits
    kinds_apart("kilo", "kg")                   # False: one unit, said two ways
    kinds_apart("car", "vehicle")               # False: a car is a vehicle

A claim that puts one noun in another's place (a price stated for raspberries given for
blueberries) reads, to a model, almost as the passage does. WordNet tells the two apart from a
paraphrase: nouns of one synset, or one a hypernym of the other (up to four steps), are the same
thing said another way; nouns whose senses meet one or two steps up, under a hypernym at least
five steps below the root, are two kinds of one thing. Only the first three senses of each noun
count. The table is built from WordNet 3.0 by ``scripts/build_noun_kinds.py`` and ships with the
package (``groundwatch/data/noun_kinds.tsv.gz``, with WordNet's licence beside it).
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from lemminflect import getLemma

__all__ = ["NOUN_KINDS_SHA256", "NounSenses", "kinds_apart", "noun_senses"]


@dataclass(frozen=True)
class NounSenses:
    """A noun's synsets (``own``), its hypernyms one or two steps up that are specific enough to
    make kinds (``near``), and all its hypernyms up to four steps (``far``)."""

    own: frozenset[str]
    near: frozenset[str]
    far: frozenset[str]


#: sha256 of ``noun_kinds.tsv.gz`` as ``scripts/build_noun_kinds.py`` builds it.
NOUN_KINDS_SHA256 = "e7272fe77d3e06fe1231a734e75b49f58ebd689ebedc3c83e647a5a4aaab2b96"


@lru_cache(maxsize=1)
def _table() -> dict[str, tuple[str, str, str]]:
    raw = resources.files("groundwatch").joinpath("data/noun_kinds.tsv.gz").read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != NOUN_KINDS_SHA256:
        raise RuntimeError(f"noun_kinds.tsv.gz: sha256 {digest}, expected {NOUN_KINDS_SHA256}")
    out: dict[str, tuple[str, str, str]] = {}
    for line in gzip.decompress(raw).decode().splitlines():
        lemma, own, near, far = line.split("\t")
        out[lemma] = (own, near, far)
    return out


def _ids(field: str) -> frozenset[str]:
    return frozenset(field.split(",")) if field else frozenset()


@lru_cache(maxsize=8192)
def noun_senses(word: str) -> NounSenses | None:
    """What WordNet says of ``word`` as a noun (its lemma: "blueberries" -> "blueberry"); None
    for a word it has no common noun for."""
    low = word.lower()
    table = _table()
    for lemma in (low, *getLemma(low, upos="NOUN")):
        row = table.get(lemma)
        if row is not None:
            return NounSenses(*(_ids(f) for f in row))
    return None


def kinds_apart(a: str, b: str) -> bool:
    """``a`` and ``b`` are two kinds of one thing, not one thing said two ways."""
    x, y = noun_senses(a), noun_senses(b)
    if x is None or y is None:
        return False
    if x.own & y.own or x.own & y.far or y.own & x.far:
        return False  # one synset, or one a hypernym of the other
    return bool(x.near & y.near)
