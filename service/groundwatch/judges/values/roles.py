"""Names in their roles within one sentence: who did what, read from the words before each name.

Usage::

    hit = crossed_role(
        "Who chaired the opening panel?",
        "Priya Raman",
        ["The day opened with a keynote by Priya Raman, followed by a panel chaired by Jonas Berg."],
    )
    hit.said, hit.stated          # 'Priya Raman', 'Jonas Berg'
    hit.role, hit.asked           # 'keynote', 'chaired'

A sentence gives several names their roles with the words right before each ("a keynote by",
"a panel chaired by", "designed by ... for developer"): the role of a name is the content words
of up to four tokens before it, within its clause (a comma, a value or another name ends the
window). A short answer naming someone whose role shares no word with the question, in a
sentence that names someone else in a role the question asks, gives the asked role to the wrong
name. A name with no role words, or a role the question asks, is never crossed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from groundwatch.judges.text.grammar import PREPOSITIONS, is_verb
from groundwatch.judges.text.words import content_words
from groundwatch.judges.values.entities import entity_spans

__all__ = ["RoleHit", "crossed_role", "name_roles"]

#: Tokens before a name read as its role.
_WINDOW = 4
#: Two role stems this long or longer are one role when one begins the other ("develop" /
#: "developer", "writ" / "write").
_RELATED_STEM = 4
_BREAK = re.compile(r"[,;:()\[\]]|\d")
#: Plain words between two names of one noun phrase ("Danish architect Jørn Utzon").
_MODIFIER_WORDS = 2
_JOINS = frozenset({"and", "or", "but", "nor", "while", "whereas", "than", "as"})
_WH = frozenset({"who", "whom", "whose", "which", "what"})
_WHO = re.compile(r"\s*(?:who|where)\b", re.I)


@dataclass(frozen=True)
class RoleHit:
    """The answer's name (``said``) in one role, another's (``stated``) in the asked one."""

    said: str
    role: str
    stated: str
    asked: str
    sentence: int


@dataclass(frozen=True)
class _Named:
    name: str
    words: frozenset[str]
    role: tuple[str, ...]  # content-word stems
    role_text: str


def name_roles(sentence: str) -> list[_Named]:
    """Every name of ``sentence`` with the words of its role (possibly none)."""
    out: list[_Named] = []
    ends: list[int] = []
    spans = []
    pos = 0
    for name in entity_spans(sentence):
        at = sentence.find(name, pos)
        if at < 0:
            continue
        spans.append((at, at + len(name), name))
        pos = at + len(name)
    for at, end, name in spans:
        before = sentence[max([0, *[e for e in ends if e <= at]]) : at]
        tokens = before.split()[-_WINDOW:]
        window: list[str] = []
        for token in reversed(tokens):
            if _BREAK.search(token):
                break  # "building, designed by X": the comma ends the role's clause
            window.insert(0, token)
        if out and ends and _modifies(before):
            # "the Danish architect Jørn Utzon": the name before is a modifier of this one,
            # which takes its role
            last = out.pop()
            window = [last.role_text, *window]
        role_text = " ".join(w for w in window if w)
        out.append(
            _Named(name, frozenset(content_words(name)), content_words(role_text), role_text)
        )
        ends.append(end)
    return out


def _modifies(between: str) -> bool:
    """The words between two names keep them in one noun phrase: at most two plain words, no
    punctuation, preposition, conjunction or verb."""
    tokens = between.split()
    if len(tokens) > _MODIFIER_WORDS or _BREAK.search(between):
        return False
    return not any(
        t.lower() in PREPOSITIONS or t.lower() in _JOINS or is_verb(t.lower()) for t in tokens
    )


def _related(a: str, b: str) -> bool:
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    return len(short) >= _RELATED_STEM and long.startswith(short)


def _shares(role: Sequence[str], asked: set[str]) -> list[str]:
    return [w for w in role if any(_related(w, a) for a in asked)]


def crossed_role(question: str, answer: str, evidence: Sequence[str]) -> RoleHit | None:
    """The sentence of ``evidence`` that names ``answer`` in a role the question does not ask
    and another name in one it does; None otherwise. Only a question that asks "Who ...?" with
    a verb or a role: one that asks "which <kind>" names the answer by its kind, which a
    sentence may state elsewhere (HaluEval QA dev: three true answers otherwise)."""
    mine = set(content_words(answer))
    if not mine or not _WHO.match(question):
        return None
    asked = set(content_words(question)) - mine - _WH
    for k, sentence in enumerate(evidence):
        named = name_roles(sentence)
        own = [n for n in named if mine <= n.words or (n.words and n.words <= mine)]
        if not own:
            continue
        said = own[0]
        if not said.role or _shares(said.role, asked):
            continue
        for other in named:
            if other.words & mine or other.words & asked or not other.role:
                continue
            shared = _shares(other.role, asked)
            if shared:
                return RoleHit(said.name, said.role_text, other.name, other.role_text, k)
    return None
