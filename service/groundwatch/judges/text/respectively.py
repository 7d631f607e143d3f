"""A sentence that pairs two lists by "respectively", read as one sentence per pair.

Usage::

    expand_respectively("Day and evening classes cost £12 and £9 respectively.")
    # ['Day classes cost £12.', 'evening classes cost £9.']

"Mei and Tashi joined us from Rotterdam Zoo and Dublin Zoo respectively" says Tashi came from
Dublin; read as it is written, every check would find Tashi and Rotterdam in one clause. The
second list ends at "respectively"; the first is the coordination ("A, B and C") before it.
Each list's last item follows its "and"; the items before it are found back from there, each
written like the last one: a name (capitalised words, with an aside in brackets after it), a
value ("£12", "1998", "10 kg"), or as many plain words. Both lists must have the same number
of items (two or more); otherwise the sentence stays as it is.
"""

from __future__ import annotations

import re

__all__ = ["expand_respectively"]

_RESPECTIVELY = re.compile(r",?\s+respectively\b", re.I)
_AND = re.compile(r"\s+(?:and|or)\s+", re.I)
_VALUE = r"[$€£¥]?\d[\d,.:]*(?:\s?%|\s?[A-Za-z]{1,6}\b)?"
_NAME = r"[A-Z][\w'’.-]*(?:\s+(?:(?:of|de|da|van|von|la|le|the)\s+)?[A-Z][\w'’.-]*)*"
_ASIDE = r"(?:\s*\([^()]*\))?"
_SHAPES = {
    "value": (re.compile(rf"^{_VALUE}"), re.compile(rf"(?<![\w.,]){_VALUE}$")),
    "name": (re.compile(rf"^{_NAME}{_ASIDE}"), re.compile(rf"(?<![\w'’-]){_NAME}{_ASIDE}$")),
}
_SEPARATOR = re.compile(r",\s*$")
#: What the words between the two lists may not hold: a number, or a capitalised word.
_CLUTTER = re.compile(r"\d|(?<=\s)[A-Z]")


def _shape(item: str) -> str:
    if re.match(rf"^{_VALUE}$", item.strip()):
        return "value"
    return "name" if item[:1].isupper() else "words"


def _head(text: str, shape: str, words: int) -> str | None:
    """The item ``text`` opens with, written as ``shape``."""
    if shape == "words":
        found = text.split()[:words]
        return " ".join(found) if len(found) == words else None
    m = _SHAPES[shape][0].match(text)
    return m.group(0) if m is not None else None


def _tail(text: str, shape: str, words: int) -> str | None:
    """The item ``text`` ends with, written as ``shape``."""
    if shape == "words":
        found = text.split()[-words:]
        return " ".join(found) if len(found) == words and text.rstrip() == text else None
    m = _SHAPES[shape][1].search(text)
    return m.group(0) if m is not None else None


def _items(text: str, shape: str, words: int) -> tuple[list[str], int]:
    """The items ``text`` ends with (one, then more while a comma separates them), in order,
    and where the first begins."""
    items: list[str] = []
    start = end = len(text)
    while True:
        item = _tail(text[:end], shape, words)
        if not item:
            break
        items.insert(0, item)
        start = end - len(item)
        sep = _SEPARATOR.search(text[:start])
        if sep is None:
            break
        end = sep.start()
    return items, start


def expand_respectively(sentence: str) -> list[str]:
    """One sentence per pair of ``sentence``'s "respectively" lists; ``[sentence]`` when it
    has none, or lists of different lengths."""
    m = _RESPECTIVELY.search(sentence)
    if m is None:
        return [sentence]
    head, tail = sentence[: m.start()], sentence[m.end() :]
    ands = list(_AND.finditer(head))
    if len(ands) < 2:
        return [sentence]
    # the second list: its last item after the last "and", the rest before it
    second_and = ands[-1]
    last = head[second_and.end() :].strip()
    shape = _shape(last)
    count = len(last.split())
    before, start2 = _items(head[: second_and.start()], shape, count)
    seconds = [*before, last]
    # the first list: the last "and" before the second list's first item
    firsts: list[str] = []
    prefix = mid = ""
    for first_and in reversed(ands[:-1]):
        if first_and.end() > start2:
            continue
        rest = head[first_and.end() : start2]
        shape1 = _shape(rest)
        item = _head(rest, shape1, 1)
        if item is None:
            return [sentence]
        items, start1 = _items(head[: first_and.start()], shape1, len(item.split()))
        firsts = [*items, item]
        prefix = head[:start1]
        mid = rest[len(item) :]
        break
    if len(firsts) < 2 or len(firsts) != len(seconds):
        return [sentence]
    if _CLUTTER.search(mid.strip()):
        return [sentence]  # a value or a name between the lists: not read as one frame
    return [f"{prefix}{a}{mid}{x}{tail}" for a, x in zip(firsts, seconds, strict=True)]
