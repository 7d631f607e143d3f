"""One claim per fact: a sentence is split at the conjunctions and commas between its facts.

Usage::

    split_conjunctions("The plan costs $10 and includes SSO.")
    # -> ["The plan costs $10.", "The plan includes SSO."]

A part stands alone only with a verb of its own; a split-off verb phrase gets the clause's subject
copied; lists of nouns or numbers ("Articles 4 and 7 apply") stay one claim; steps of instructions
("Back up the database, stop the workers") are claims of their own.
"""

from __future__ import annotations

import re
from typing import Any

from groundwatch.judges.text.grammar import (
    SUBORDINATORS,
    VERBS,
    clause_verb,
    has_verb,
    is_imperative,
    is_verb,
    reads_as_verb,
    singular_verb,
    subject_of,
    verb_phrase,
)
from groundwatch.judges.text.words import word_set

__all__ = ["finish_claim", "split_conjunctions"]


#: "four and a half hours" is one number, no conjunction
_FRACTION = r"(?!\s+an?\s+(?:half|quarter|third)\b)"
_CONJ = re.compile(
    r"\s*(?:;|,\s*(?:and then|and|but|while|whereas|yet|so|although|though|plus|then|or|"
    rf"with|during which|after which)\s|\s(?:and then|and{_FRACTION}|but|whereas)\s)"
    r"\s*",
    re.I,
)
#: A bare comma separates claims only before a verb phrase ("costs $20, includes 5 seats").
_BARE_COMMA = re.compile(r",\s+")


_RELATIVES = word_set("who whom whose which where")


_WEAK_CONJ = re.compile(r"\b(?:plus|then|or|with|during which|after which)\b", re.I)


def split_conjunctions(sentence: str) -> list[str]:
    seps = list(_CONJ.finditer(sentence))
    if not seps:
        return _split_commas(sentence)
    if len(seps) > _MAX_CONJUNCTS:
        return [sentence]
    # A clause joined by "plus", "with", "then", ... stands alone only with a verb of its own.
    weak = [bool(_WEAK_CONJ.search(m.group(0))) for m in seps]
    starts = [0, *(m.end() for m in seps)]
    ends = [*(m.start() for m in seps), len(sentence)]
    # Each output piece: [prefix, start, end] = prefix + sentence[start:end]; merging a part
    # into the previous piece extends its slice, so the original separator is kept.
    out: list[list[Any]] = [["", starts[0], ends[0]]]
    imperative = is_imperative(_main_clause(sentence[starts[0] : ends[0]]))
    # Whether the last part stood as a clause of its own (not merged as a list item): only
    # then may a noun-or-verb word open the next one as a verb ("..., stops at the station"
    # but "cables, batteries and screws for mounting").
    after_clause = True
    for start, end, is_weak in zip(starts[1:], ends[1:], weak, strict=True):
        part = sentence[start:end]
        prev = out[-1][0] + sentence[out[-1][1] : out[-1][2]]
        words = part.split()
        # "Articles 4 and 7 apply": a list of numbers, not two facts.
        joins_numbers = prev.rstrip()[-1:].isdigit() and part[:1].isdigit()
        # "cables, batteries and screws for mounting": the last item of a list of nouns
        loose = after_clause and not _ends_in_list(prev)
        lead = (
            verb_phrase(words, loose=loose, step=imperative and loose, singular=singular_verb(prev))
            if len(words) >= 2
            else None
        )
        after_clause = lead is not None
        if len(words) < 2 or not (has_verb(prev) or imperative) or joins_numbers:
            out[-1][2] = end
            continue
        if lead is not None:
            # skip "then" / "finally": the claim is the step itself
            skip = start + len(part) - len(part.split(None, lead)[-1]) if lead else start
            if imperative:
                out.append(["", skip, end])
                continue
            subject = _split_subject(out[0][0] + sentence[out[0][1] : out[0][2]])
            if subject is None:
                out[-1][2] = end
            else:
                out.append([subject + " ", skip, end])
        elif (
            clause_verb(words)
            if is_weak
            else (
                any(is_verb(w) for w in words[1:8])
                or any(re.fullmatch(r"[a-z]{3,}ed", w.strip(",.").lower()) for w in words[1:4])
            )
            # Gapping with a second value: "one bag of 23 kg in economy, and two bags of
            # 32 kg in business": separate facts even though the verb is not repeated.
            or (len(words) >= 3 and not is_weak and _NUMBER.search(prev) and _NUMBER.search(part))
        ):
            out.append(["", start, end])
        else:
            out[-1][2] = end
    pieces = [prefix + sentence[a:b] for prefix, a, b in out]
    return [finish_claim(p) for piece in pieces for p in _split_commas(piece)]


def _split_subject(clause: str) -> str | None:
    """The subject a split-off verb phrase gets: the clause's subject, or its leading pronoun
    ("It does not cause drowsiness and should be taken daily": each part is resolved later)."""
    subject = subject_of(clause)
    if subject is not None:
        return subject
    words = clause.split()
    if len(words) >= 2 and words[0].lower() in {"it", "they", "he", "she"}:
        return words[0] if reads_as_verb(words, 1) else None
    return None


def _ends_in_list(text: str) -> bool:
    """The text ends with a comma and a short item with no verb ("cables, batteries")."""
    if ", " not in text:
        return False
    last = text.rsplit(", ", 1)[1].split()
    return len(last) <= 3 and not any(reads_as_verb(last, k) for k in range(len(last)))


def _main_clause(text: str) -> str:
    """The main clause of a sentence opened by a subordinate one ("Because X, do Y" -> "Do
    Y"); the text itself otherwise."""
    first = text.split(None, 1)[0].lower() if text.split() else ""
    if first not in SUBORDINATORS or ", " not in text:
        return text
    main = text.split(", ", 1)[1]
    return main[:1].upper() + main[1:]


def _split_commas(piece: str) -> list[str]:
    """A clause's comma-separated verb phrases, each a claim with the clause's subject
    ("The plan costs $20 a month, includes 5 seats" -> two), or each a step of instructions
    ("Back up the database, stop the workers"). A comma before anything else, after a
    subordinate clause ("Because ..., generate a key") or closing a relative clause
    ("Octavius, who had vetoed the bill, was attacked") joins."""
    segments = _BARE_COMMA.split(piece)
    if len(segments) < 2 or len(segments) > _MAX_CONJUNCTS:
        return [piece]
    head = segments.pop(0)
    if head.split(None, 1)[0].lower() in SUBORDINATORS:
        head = head + ", " + segments.pop(0)
    imperative = is_imperative(_main_clause(head))
    out = [head]
    clause = imperative or has_verb(head)
    subject = None if imperative else _split_subject(head)
    after_clause = True
    previous = head
    for seg in segments:
        words = seg.split()
        relative = previous.split(None, 1)[0].lower() in _RELATIVES if previous else False
        lead = None
        if len(words) >= 2 and clause and not relative:
            lead = verb_phrase(words, loose=after_clause, step=imperative and after_clause)
            verb = words[lead].lower() if lead is not None else ""
            if re.fullmatch(r"[a-z]{3,}ed", verb) and verb not in VERBS:
                lead = None  # "..., funded by X": a participle modifies, it does not assert
        after_clause = lead is not None
        previous = seg
        if lead is None or (subject is None and not imperative):
            out[-1] = out[-1] + ", " + seg
            continue
        step = " ".join(words[lead:])
        out.append(step if imperative else f"{subject} {step}")
    return out


_MAX_CONJUNCTS = 12
_NUMBER = re.compile(r"\d")


def finish_claim(text: str) -> str:
    text = text.strip().rstrip(",;")
    if text and text[-1] not in ".!?":
        text += "."
    return text[0].upper() + text[1:] if text else text
