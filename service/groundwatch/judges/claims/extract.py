"""Claim decomposition: an answer becomes a list of atomic, self-contained claims.

Usage::

    extract_claims("When does the discount apply?", "From renewal.")
    # -> ["When does the discount apply? From renewal."]

Rules (shared by every judge backend, so that all of them judge the same claims):

* the answer is split into sentences (:mod:`groundwatch.judges.text.sentences`); citation markers such
  as ``[1]`` are removed;
* greetings, meta statements ("Based on the documents, ...", "I hope this helps") and hedges
  ("I think") are dropped, keeping the fact they wrap;
* sentences joined by a conjunction that assert separate facts are split, copying the subject
  when the second part has none ("The plan costs $10 and includes SSO";
  :mod:`groundwatch.judges.claims.split`);
* a leading pronoun (it, he, she, they, this) is replaced by the subject of the previous claim;
* a terse answer (a phrase, "Yes", a number) is read together with the question: the claim is
  ``"<question> <answer>"``.

The word and sentence helpers the claims are built on (``content_words``, ``split_sentences``,
``stem``, ...) live in :mod:`~groundwatch.judges.text.words`, :mod:`~groundwatch.judges.text.sentences` and
:mod:`~groundwatch.judges.text.grammar`; they are re-exported here for the scripts, benchmarks and
training code that import them from this module.
"""

from __future__ import annotations

import re

from groundwatch.judges.claims.declarative import be_subject, declarative, verb_subject
from groundwatch.judges.claims.split import finish_claim, split_conjunctions
from groundwatch.judges.refusal import is_refusal_sentence
from groundwatch.judges.text.grammar import (
    AUXILIARIES,
    LIGHT_WORDS,
    PREPOSITIONS,
    PRONOUNS,
    SUBORDINATORS,
    VERBS,
    WH_WORDS,
    has_verb,
    is_verb,
    subject_of,
)
from groundwatch.judges.text.sentences import split_sentences, strip_citations
from groundwatch.judges.text.words import STOPWORDS, as_written, content_words, stem

__all__ = [
    "LIGHT_WORDS",
    "STOPWORDS",
    "as_written",
    "claim_as_written",
    "content_words",
    "extract_claims",
    "has_verb",
    "is_terse",
    "split_sentences",
    "stem",
    "terse_claim_parts",
]


_GREETING_WORDS = (
    r"(?:hi|hello|hey|greetings|thanks|thank you|great question|good question|sure|certainly|"
    r"of course|absolutely|happy to help|glad to help|no problem|you're welcome|okay|ok)"
)
# A greeting alone, or followed by a few filler words ("Sure, happy to help!").
_GREETING = re.compile(rf"^{_GREETING_WORDS}\b[\s,!.]*(?:[\w']+[\s,!.]*){{0,4}}$", re.I)
_GREETING_PREFIX = re.compile(rf"^{_GREETING_WORDS}\s*[,!.:;\-–—]\s*", re.I)

_META_SENTENCE = re.compile(
    r"^(?:i hope (?:this|that) helps|hope (?:this|that) helps|let me know|feel free|"
    r"don't hesitate|do not hesitate|please (?:let|feel|contact|reach|consult|check|verify|refer|"
    r"see|note)(?! that)|is there anything else|if you have (?:any )?(?:other|more|further)|"
    r"good luck|have a (?:great|nice|good)|i'm not (?:entirely |completely |100% )?sure\.?$|"
    r"i am not (?:entirely |completely )?sure\.?$|here (?:is|are) (?:the|a|some) "
    r"(?:answer|summary|details|information)\b[^.]*:?$)",
    re.I,
)
_LEAD_IN = re.compile(
    r"^(?:(?:based on|according to|from|per|as (?:stated|mentioned|noted|described) in|in)\s+"
    r"(?:the\s+)?(?:provided\s+|given\s+|available\s+|retrieved\s+|above\s+)?"
    r"(?:documents?|context|information|passages?|sources?|text|excerpts?|knowledge base|"
    r"search results|materials?|documentation|records?)(?:\s+(?:provided|given|above|available|"
    r"i have|you shared))?\s*,?\s*"
    r"|(?:the\s+)?(?:documents?|context|passages?|sources?|documentation)\s+"
    r"(?:says?|states?|indicates?|mentions?|shows?|suggests?|notes?|explains?)\s+(?:that\s+)?"
    r"|(?:i think|i believe|i guess|it seems|it appears|it looks like|to my knowledge|"
    r"if i recall correctly|as far as i (?:know|can tell|can see)|from what i can (?:tell|see)|"
    r"in summary|in short|to summarize|overall|"
    r"in conclusion|please note|note|keep in mind|importantly|basically|essentially|generally|"
    r"typically|probably|likely|perhaps|maybe|possibly)(?:\s+that)?\s*,?\s+"
    r"|(?:yes|no|yeah|nope|correct|right|indeed)\s*[,!.:;\-–—]\s*"
    # "Unfortunately not – X": the answer to the question, not a negation of X
    r"|(?:unfortunately|sadly|regrettably|i'm afraid|i am afraid|afraid)\s*,?\s*(?:not|no)\b"
    r"\s*[,!.:;\-–—]\s*"
    # "Alternatively, X": a discourse adverb is no part of the claim ("Otherwise" is a condition)
    r"|(?:unfortunately|sadly|fortunately|luckily|happily|regrettably|alternatively|"
    r"additionally|also|however|in addition|that said|even so|as a result|so|then)\s*,\s+)",
    re.I,
)
_YES_NO = re.compile(
    # "correct", "true" ... only where a mark or the end follows ("True Detective" is a name)
    r"^((?:yes|no|yeah|yep|nope)\b|(?:correct|incorrect|true|false)\b(?=\s*(?:[,.!:;\-–—]|$)))"
    r"\s*[,.!:;\-–—]?\s*",
    re.I,
)
_BARE_AUX = re.compile(
    r"^(?:(?:it|they|he|she|this|that|you|we|there)\s+)?(?:is|are|was|were|does|do|did|can|"
    r"could|will|would|has|have|had|should|must|may)(?:\s*n't|\s+not)?\s*[.!]?$",
    re.I,
)


def _question_subject(question: str) -> str | None:
    subject = be_subject(question)  # "Is the Cobalt C3 quieter than 40 dB?": "the Cobalt C3"
    subject = subject or verb_subject(question)  # "Did Bob Dylan attend ...?": "Bob Dylan"
    if subject is not None:
        return subject
    tokens = question.rstrip(" ?").split()
    if tokens and tokens[0].lower() in WH_WORDS:
        # "What job does X have?" -> skip the wh-phrase up to its auxiliary.
        rest = tokens[1:]
        cut = next((i for i, t in enumerate(rest[:4]) if t.lower() in AUXILIARIES), None)
        tokens = rest[cut:] if cut is not None else rest
    while tokens and (tokens[0].lower() in WH_WORDS or tokens[0].lower() in AUXILIARIES):
        tokens = tokens[1:]
    out: list[str] = []
    for tok in tokens:
        if is_verb(tok) or (out and re.fullmatch(r"[a-z]{3,}(?:ed|ing)", tok)):
            break
        if tok.lower() in PREPOSITIONS and tok.lower() != "of" and out:
            break
        if tok.lower() in SUBORDINATORS and out:
            break  # "How old was Augustus when he died?": "Augustus", not "Augustus when he"
        out.append(tok.strip(","))
        if len(out) > 6:
            break
    return " ".join(out) if out else None


def _question_person(question: str) -> str | None:
    """The longest capitalised multi-word name in the question (outside quotes)."""
    unquoted = re.sub(r"\"[^\"]*\"|“[^”]*”", " ", question)
    spans = re.findall(r"(?:[A-Z][\w'’\-.]+\s+){1,3}[A-Z][\w'’\-]+", unquoted)
    spans = [
        sp for sp in spans if sp.split()[0].lower() not in STOPWORDS | WH_WORDS and _referent(sp)
    ]
    return max(spans, key=len) if spans else None


_PERSONAL = frozenset({"i", "you", "we", "me", "us", "yours", "mine", "ours", "theirs"})
_DEICTIC = frozenset({"it", "this", "that", "these", "those", "they", "he", "she"})
_CONTRACTION = re.compile(r"['’](?:s|re|ll|ve|d|m)$", re.I)


def _referent(phrase: str | None) -> bool:
    """Whether a pronoun can stand for ``phrase``: it names something (a content word), and it
    is not the speaker or the reader ("You", "I'm UK-based") or a bare determiner ("The")."""
    if not phrase:
        return False
    words = phrase.split()
    bare = [_CONTRACTION.sub("", w.lower().strip(",.")) for w in words]
    if bare[0] in _DEICTIC and (len(words) == 1 or bare[1] in {"a", "an", "the"}):
        return False  # "Is this a known problem?": "this" is no thing named
    if bare[0] in SUBORDINATORS or any(w in _PERSONAL for w in bare):
        return False  # "Since updating my ...", "Happens if I miss two payments"
    return bool(content_words(phrase))


def _plural(phrase: str) -> bool:
    """ "Partners", "the new rules": a head noun in the plural (a capitalised head that is not
    the phrase's first word is a name: "Texas", "Kings Cross")."""
    words = phrase.split()
    head = words[-1].strip(",.")
    if "'" in head or "’" in head or (head[:1].isupper() and len(words) > 1):
        return False
    return bool(re.fullmatch(r"[A-Za-z]{3,}[^sui]s", head))


def _resolve_pronoun(sentence: str, antecedent: str | None, person: str | None = None) -> str:
    if re.match(r"^(?:He|She|His|Her)\b", sentence) and person:
        antecedent = person
    if antecedent is None or not _referent(antecedent):
        return sentence
    antecedent = re.sub(r"^(?:but|and|so|or|yet)\s+", "", antecedent, flags=re.I)
    m = re.match(
        r"^(It|He|She|They|This|These|Its|His|Her|Their)"
        r"(?!(?:['’]s|\s+(?:is|was))\s+(?:also\s+)?(?:not\s+)?(?:(?:possible|likely|important|"
        r"unclear|recommended|necessary|advised)\b|worth\s+(?:[a-z]+ing|it)\b))"
        r"(['’](?:s|re|ll|ve|d))?(?![\w'’])",
        sentence,
    )
    if not m:
        return sentence
    word = m.group(1).lower()
    if word in {"it", "its", "he", "his", "she", "her"} and _plural(antecedent):
        return sentence  # "His cover" is not "Partners's cover"
    if m.group(2):
        # "It's fixed" is "<antecedent> is fixed": the verb is written out, never "X's fixed".
        ending = m.group(2)[1:].lower()
        if word not in _SUBJECT_PRONOUNS or ending == ("s" if word == "they" else "re"):
            return sentence  # "Its" / "They's": not a pronoun and its verb
        rest = sentence[m.end() :]
        verb = _written_out(ending, rest.lstrip().split(" ", 1)[0].lower())
        resolved = antecedent + " " + verb + rest
        return resolved[0].upper() + resolved[1:]
    if word in {"this", "these"}:
        # "This plan ..." keeps its own noun; only a bare "This is/was" refers back.
        nxt = sentence[m.end() :].lstrip().split(" ", 1)[0].lower()
        if nxt not in AUXILIARIES and nxt not in VERBS:
            return sentence
    replacement = antecedent + PRONOUNS[word]
    replacement = replacement[0].upper() + replacement[1:]
    return replacement + sentence[m.end() :]


_SUBJECT_PRONOUNS = frozenset({"it", "he", "she", "they"})


def _written_out(contraction: str, next_word: str) -> str:
    """The verb of a contracted pronoun: "'s" is "is" ("has" before "been" or "got"), "'d" is
    "would" ("had" before "been")."""
    if contraction == "s":
        return "has" if next_word in {"been", "got"} else "is"
    if contraction == "d":
        return "had" if next_word == "been" else "would"
    return {"re": "are", "ll": "will", "ve": "have"}[contraction]


def _clean(sentence: str) -> str | None:
    s = sentence.strip()
    if _GREETING.match(s) or _META_SENTENCE.match(s):
        return None
    for _ in range(3):
        new = _GREETING_PREFIX.sub("", s, count=1).strip()
        new = _LEAD_IN.sub("", new, count=1).strip()
        if new == s:
            break
        s = new
    if not s or not any(ch.isalnum() for ch in s):
        return None
    if _GREETING.match(s) or _META_SENTENCE.match(s):
        return None
    return s[0].upper() + s[1:]


def is_terse(answer: str) -> bool:
    """A phrase, a number or a yes/no: too short to be a claim without the question."""
    a = answer.strip().rstrip(".!")
    if not a:
        return False
    rest = _YES_NO.sub("", a).strip()
    if not rest or _BARE_AUX.match(rest):
        return True
    if len(split_sentences(a)) > 1:
        return False
    words = rest.split()
    lowered = [w.strip(",.;:") for w in words if not w[:1].isupper()]
    if any(re.fullmatch(r"[a-z]{3,}ed", w) for w in lowered):
        return False
    return len(words) <= 8 and not has_verb(" ".join(lowered))


_QUESTION_MARKS = ("?", "؟", "？")  # Latin, Arabic, full-width


def terse_claim_parts(claim: str) -> tuple[str, str] | None:
    """Split a terse claim ``"<question>? <answer>"`` back into (question, answer)."""
    found = [i for i in (claim.find(q + " ") for q in _QUESTION_MARKS) if i >= 0]
    if not found:
        return None
    idx = min(found)
    return claim[: idx + 1], claim[idx + 2 :]


def judged_text(claim: str) -> str:
    """What a model reads for ``claim``: a terse claim ``"<question>? <answer>."`` as one
    declarative sentence ("Who designed X? Frank Gehry." -> "Frank Gehry designed X."), when
    one can be built (:mod:`.declarative`); any other claim as it is."""
    parts = terse_claim_parts(claim)
    if parts is None:
        return claim
    question, answer = parts
    return declarative(question, answer.strip().removesuffix(".")) or claim


def claim_as_written(claim: str, question: str) -> str:
    """What a record shows of a claim: the answer's words, never the question.

    A terse answer ("No.", "48 hours") is judged read together with its question (the claim the
    judge checks is ``"<question>? <answer>."``); the record shows the answer part alone.
    """
    q = " ".join(question.split())
    if q and claim.startswith(q):
        parts = terse_claim_parts(claim)
        if parts is not None and parts[1].strip(" ."):
            return parts[1].strip().removesuffix(".")  # the period the judge added
    return claim


def extract_claims(question: str, answer: str) -> list[str]:
    """Atomic, self-contained claims asserted by ``answer`` (read with ``question``)."""
    if not answer or not answer.strip():
        return []
    question = " ".join(question.split())
    text = strip_citations(answer).strip()
    if is_terse(text):
        if is_refusal_sentence(text):
            return []
        m = _YES_NO.match(text)
        rest = _YES_NO.sub("", text).strip().rstrip(".!")
        said = _polarity(text, question)
        if m and (not rest or _BARE_AUX.match(rest)):
            rest = "Yes" if m.group(1).lower() in _YES_WORDS else "No"
        elif not rest:
            return []
        elif said == "Yes":
            # "Yes, with a 28-day milk withdrawal": the yes is said too ("I can use it on dairy
            # cows, with ..."), not only what follows it. (A "No, ..." says what holds instead:
            # "No, just a cabin bag"; read with its no, the rules judge called the passage's
            # "a cabin bag" its negation, 3 false contradictions on the dev halves.)
            rest = f"{said}, {rest}"
        return [f"{_asked(question)} {rest}."]
    claims: list[str] = []
    antecedent = _question_subject(question)
    person = _question_person(question)
    for sentence in split_sentences(text):
        cleaned = _clean(sentence)
        if cleaned is None:
            continue
        if cleaned.endswith("?"):
            continue  # a question back to the user asserts nothing
        for part in split_conjunctions(cleaned):
            if is_refusal_sentence(part):
                continue  # "the documents do not say" is not a claim about the world
            resolved = _resolve_pronoun(part, antecedent, person)
            resolved = finish_claim(resolved)
            if len(content_words(resolved)) == 0:
                continue
            subject = subject_of(resolved)
            if subject is not None and _referent(subject):
                antecedent = subject
                if re.fullmatch(r"(?:[A-Z][\w'’\-.]+\s*){2,4}", subject):
                    person = subject
            claims.append(resolved)
    if not claims and is_terse(_YES_NO.sub("", text)):
        return extract_claims(question, _YES_NO.sub("", text))
    said = _polarity(text, question)
    if said is not None and claims:
        # "Yes, any headphones are allowed." to "Can I wear earbuds?": the yes is a claim of its
        # own ("I can wear earbuds"), before what the answer adds
        claims.insert(0, f"{_asked(question)} {said}.")
    return claims


_YES_WORDS = frozenset({"yes", "yeah", "yep", "correct", "true"})


def _polarity(answer: str, question: str) -> str | None:
    """ "Yes" or "No" where ``answer`` opens with one, more follows, and ``question`` asks yes or
    no ("Can I ...?", "Is there ...?"); None otherwise."""
    words = question.split()
    if not words or words[0].lower().strip(",") not in AUXILIARIES:
        return None
    m = _YES_NO.match(answer.strip())
    if m is None or not answer.strip()[m.end() :]:
        return None
    said = "Yes" if m.group(1).lower() in _YES_WORDS else "No"
    # one question that reads as a statement ("I can wear earbuds"), or no claim of its own
    return said if declarative(question, said) is not None else None


def _asked(question: str) -> str:
    return question if question.endswith(_QUESTION_MARKS) else question.rstrip(".") + "?"
