"""Short answers become claims: a question and its terse answer as one declarative sentence.

``declarative("Are Saver fares refundable?", "No")`` -> 'Saver fares are not refundable.' The
answer fills the wh-phrase's gap (subject, object, adverbial with its preposition) or says yes
or no to the question's statement; None where no grammatical sentence can be built.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lemminflect import getAllInflections, getAllLemmas, getInflection

from groundwatch.judges.text.grammar import AUXILIARIES, PREPOSITIONS, VERBS
from groundwatch.judges.text.words import STOPWORDS, stem, word_set

__all__ = ["be_subject", "declarative", "verb_subject"]

_BE, _DO = word_set("is are was were am"), {"do": "VB", "does": "VBZ", "did": "VBD"}
_MODAL, _HAVE = word_set("can could will would shall should may might must"), ("has", "have", "had")
_TAIL = word_set("if unless because although though whereas while when whenever once")
_DETS = word_set("a an the this that my your his her its our their some any which many much")
_PRONOUNS, _ARTICLES = word_set("it they he she we you i there"), ("a", "an", "the")
_OPENERS = _DETS | PREPOSITIONS | _TAIL | _PRONOUNS | word_set("not me us them him every each")
_ADVERBS = word_set("not never only also always usually still just already often")
_NEEDS = word_set("need want have try plan expect hope like ought")  # "need to bring X"
_WH = word_set("what which who whom whose how where why")
_ASKING = AUXILIARIES | _WH | {"when"}  # "..., and when does it close?": a second question
_TEMPORAL, _MOTION = word_set("time day date year month week"), word_set("send deliver submit post")
_AS_IS = PREPOSITIONS | word_set("every each daily weekly monthly annually hourly twice once per")
_AS_IS |= word_set("between until till since within around near next last this today tomorrow now")
_AS_IS |= word_set("soon ago via using through here there online abroad home nearby outside inside")
_COMMON = STOPWORDS | _AS_IS | word_set("free none nothing anyone everyone nobody half")
_NOUN_NEXT = _DETS | PREPOSITIONS | word_set("one two three four five six seven eight nine ten")
_MONTH = r"(jan|feb|mar|apr|may|june?|july?|aug|sept?|oct|nov|dec)(r?uary|ch|il|ust|ember|ober)?\b"
_PREPS = {  # the preposition an answer to "when" takes, by how it opens
    "on": rf"(mon|tues|wednes|thurs|fri|satur|sun|week)days?\b|weekends?\b|\d{{1,2}}(st|nd|rd|th)?"
    rf"\s+(of\s+)?{_MONTH}|{_MONTH}\.?\s+\d{{1,2}}(st|nd|rd|th)?\b",
    "in": rf"((early|late|mid)[\s-]+)?({_MONTH}|\d{{3,4}}s?\b|the\s+(\d{{4}}s|\w+\s+century)\b"
    r"|(the\s+)?(spring|summer|autumn|fall|winter|morning|afternoon|evening)\b)",
    "at": r"\d{1,2}([:.]\d{2})?\s*[ap]\.?m\b|\d{1,2}:\d{2}\b|noon|midnight|midday",
}
_POLAR = re.compile(r"(yes|yeah|yep|correct|true|no|nope|false)\b[\s,.;:!—–-]*(.*)", re.I | re.S)


def declarative(question: str, answer: str) -> str | None:
    """``question`` and its short ``answer`` as one declarative sentence, or None."""
    words = _question_words(question)
    a = " ".join(answer.split()).rstrip(".!,;: ")
    if not words or not a or re.search(r"[.!?;]\s", a):
        return None
    polar = _bare(words[0]) in _BE | _MODAL | set(_DO) | set(_HAVE)
    wh = not polar and not _POLAR.match(a) and not _clause(a.split())
    out = _yes_no(words, a) if polar else _wh(words, a) if wh else None
    text = " ".join(" ".join(out or []).split())
    return text[0].upper() + text[1:] + "." if text else None


def be_subject(question: str) -> str | None:
    """The subject of a yes/no question on "be" ("Is the Cobalt C3 quieter than 40 dB?" -> "the
    Cobalt C3"); None for any other question or where no predicate follows the subject."""
    words = _question_words(question)
    if not words or _bare(words[0]) not in _BE or len(words) < 3:
        return None
    subject, pred = _be_split(words[1:], loose=True)
    return " ".join(subject) if pred and subject else None


def verb_subject(question: str) -> str | None:
    """The subject of a yes/no question on "do", "have" or a modal ("Did Bob Dylan attend the
    ceremony?" -> "Bob Dylan"); None for any other question or where no main verb is found."""
    words = _question_words(question)
    if not words or len(words) < 3:
        return None
    aux = _bare(words[0])
    if aux not in _MODAL | set(_DO) | set(_HAVE):
        return None
    v = _main_verb(words[1:], ("VBN",) if aux in _HAVE else ("VB",))
    return " ".join(words[1 : v + 1]) if v else None


def _question_words(question: str) -> list[str] | None:
    """The question's words ("What's" opened); None for several clauses or questions."""
    words = (q := " ".join(question.replace("’", "'").split()).rstrip("?.! ")).split()
    if not words or re.search(r"[.!?;]\s", q):
        return None
    if re.fullmatch(r"(what|who|where|when|how)'s", words[0], re.I):  # "What's the fee?"
        words[:1] = [words[0][:-2], "is"]
    for k, (w, nxt) in enumerate(zip(words, [*map(_bare, words[1:]), ""], strict=True)):
        if w.endswith(",") and nxt in _TAIL:
            words[k] = w[:-1]
        elif w.endswith(",") or (_bare(w) in ("and", "or", "but") and nxt in _ASKING):
            return None  # several clauses
        elif k > (_bare(words[0]) in PREPOSITIONS) and _bare(w) in _WH:
            return None  # a second or an embedded question
    return words


def _bare(word: str) -> str:
    return word.strip(',.;:!?"()').lower()


@lru_cache(maxsize=16384)
def _lexicon(word: str) -> dict[str, tuple[str, ...]]:
    return {str(pos): tuple(str(x) for x in lemmas) for pos, lemmas in getAllLemmas(word).items()}


def _is_form(word: str, tags: tuple[str, ...]) -> bool:
    """``word`` is a verb in one of the Penn ``tags`` ("VB", "VBZ", "VBD", "VBP", "VBN")."""
    if not re.fullmatch("[a-z]+", word) or word in AUXILIARIES - {"be", "been", "have", "do"}:
        return False
    lemmas = _lexicon(word).get("VERB", ())
    return word in {f for x in lemmas for t in tags for f in getInflection(x, t)}


def _opens(words: list[str], k: int) -> bool:
    """Word ``k`` opens an object or an adverbial (or the clause ends before it)."""
    w = _bare(words[k]) if k < len(words) else ""
    return not w or w in _OPENERS or not words[k][:1].islower() or _adverb(w)


def _adverb(word: str) -> bool:
    return word in _ADVERBS or (word.endswith("ly") and "ADV" in _lexicon(word))


def _main_verb(words: list[str], tags: tuple[str, ...], stop: int | None = None) -> int | None:
    """The main verb: in a run of verb forms ("the night bus run on"), a known one or one an
    object follows."""
    end = len(words) if stop is None else stop
    ok = [_bare(words[k - 1]) not in _NOUN_NEXT and k + 1 != stop for k in range(end)]
    found = [k for k in range(1, end) if ok[k] and _is_form(words[k], tags)]
    run = [k for i, k in enumerate(found) if k == found[0] + i]
    known = [k for k in run if words[k] in VERBS | {"be", "been"}]
    strong = [k for k in run if k + 1 < len(words) and _opens(words, k + 1)]
    only = [k for k in run if set(_lexicon(words[k])) == {"VERB"}]
    return next(iter([k for k in known if k in strong] + known + strong[::-1] + only + run), None)


def _verb(aux: str, body: list[str], yes: bool = True) -> tuple[int, str] | None:
    """The main verb's place and its form in the statement ("does ... run" -> "runs")."""
    v = _main_verb(body, ("VBN",) if aux in _HAVE else ("VB",))
    if v is None or ([_bare(w) for w in body[:v]] == ["you"] and body[v] in ("know", "tell")):
        return None
    if aux in _DO and yes:
        return v, str((getInflection(body[v], _DO[aux]) or [body[v]])[0])
    return v, f"{aux if yes else {'can': 'cannot'}.get(aux, aux + ' not')} {body[v]}"


def _predicate(words: list[str], k: int, loose: bool = False) -> bool:
    """Word ``k`` opens what a subject is said to be: an adjective, a participle, a value."""
    w, prev = words[k], _bare(words[k - 1])
    low, tags = _bare(w), _lexicon(_bare(w))
    if prev in _DETS | PREPOSITIONS or (not w[:1].islower() and not w[:1].isdigit()):
        return w[:1] in "$€£" and prev not in PREPOSITIONS
    if w[:1].isdigit() or low in ("not", "never"):
        return prev.isalpha() and words[k - 1].islower()
    gradable = "JJR" in getAllInflections(low, upos="ADJ")  # "safe for", not "period for"
    noun_too = (gradable and _opens(words, k + 1)) or (loose and k + 1 == len(words))
    if (loose and low in _ARTICLES) or ("ADJ" in tags and ("NOUN" not in tags or noun_too)):
        return True
    if low.endswith("ing"):
        return _opens(words, k + 1)
    return low not in tags.get("VERB", ()) and _is_form(low, ("VBN",))


def _be_split(body: list[str], loose: bool) -> tuple[list[str], list[str]]:
    """(subject, predicate) after "be"; ``loose``: a preposition may open the predicate."""
    at = [k for k in range(1, len(body)) if _predicate(body, k, loose)]
    at += [k for k in range(1, len(body)) if loose and _bare(body[k]) in PREPOSITIONS - {"of"}]
    if body and _bare(body[0]) == "there":
        return body[:1], body[1:]
    return (body[: at[0]], body[at[0] :]) if at else (body, [])


def _tail(words: list[str], verb: str = "") -> tuple[list[str], list[str]]:
    """(clause, tail): a subordinate clause ("if I pay") or purpose ("to park") stays last."""
    for k, (w, nxt) in enumerate(zip(words, [*words[1:], ""], strict=False)):
        purpose = _bare(w) == "to" and verb not in _NEEDS | {""} and _is_form(_bare(nxt), ("VB",))
        if _bare(w) in _TAIL or purpose:
            return words[:k], words[k:]
    return words, []


def _clause(words: list[str]) -> bool:
    """The answer is a clause of its own ("it isn't", "the cable is standard")."""
    words = words[_bare(words[0]) in ("but", "and", "so") :]  # "No, but you need an eTA."
    low = [_bare(w) for w in words]
    first = low[0].split("'")[0] if low else ""  # "it", "it's", "they're"
    if first in _PRONOUNS and ((len(low) > 1 and first != "there") or "'" in low[0]):
        return True
    for k, (w, lw) in enumerate(zip(words, low, strict=True)):
        prev = low[k - 1] if k else ""
        aux = lw in AUXILIARIES - {"may", "can", "will"} and (k == 0 or w.islower())
        finite = w == lw and lw in VERBS and lw[-1] == "s" and prev.isalpha() and prev[-3:] != "ing"
        if (aux and not prev[:1].isdigit()) or (finite and prev.split("-")[0] not in _NOUN_NEXT):
            return True
    return False


def _mid(text: str) -> str:
    """``text`` inside a sentence: a common first word in lower case ("About 10 hours")."""
    low = (ws := text.split())[0].lower()
    common = low in _COMMON or low.split("-")[0] in _NOUN_NEXT or _adverb(low)
    if len(ws) > 1 and ws[1].isalpha() and ws[1].islower() and ws[1] not in STOPWORDS:
        common = common or bool(_lexicon(low))  # "Bad weather", not "Frank Gehry"
    return text[0].lower() + text[1:] if len(low) > 1 and ws[0][1:].islower() and common else text


def _gap(kind: str, answer: str, np: list[str], question: list[str]) -> str | None:
    """What takes the wh-phrase's place: the answer, with a preposition where one is due."""
    words, mid = [_bare(w) for w in answer.split()], _mid(answer)
    as_is = _TAIL | word_set("to due so since as for") if kind == "why" else _AS_IS
    if kind in ("when", "where", "why", "how", *PREPOSITIONS) and words[0] in as_is:
        return mid
    if kind == "when":
        return next((f"{p} {mid}" for p, rx in _PREPS.items() if re.match(rx, answer, re.I)), None)
    if kind in ("where", "why", *PREPOSITIONS):  # "At what time ...", "In which year ..."
        to = {_bare(w) for w in question} & _MOTION  # "Where do I send ...?"
        place = "to" if to else "on" if set(words) & word_set("floor level platform deck") else "in"
        return f"{ {'where': place, 'why': 'because of'}.get(kind, kind) } {mid}"
    if kind in ("much", "many") and np:  # "How many days of leave ...?" "25 days"
        cut = next((i for i, w in enumerate(np) if _bare(w) in PREPOSITIONS), len(np))
        head, said = stem(_bare(np[cut - 1])), [stem(w) for w in words]
        if head in said:  # "25 days": the noun is not said twice
            return " ".join([answer, *np[cut:]]) if said[-1] == head else answer
        return " ".join([answer, "of" * (kind == "much"), *np])
    if kind == "which" and np and re.fullmatch(r"\d+[A-Za-z]?", answer):
        return f"{np[-1]} {answer}"  # "Which platform ...?" "4": platform 4
    return None if kind == "how" else answer


def _wh(words: list[str], answer: str) -> list[str] | None:
    head = _bare(words[0])
    kind, degree = {"what": "which", "whom": "who"}.get(head, head), ""
    if head in PREPOSITIONS and len(words) > 2 and _bare(words[1]) in ("what", "which"):
        words = words[1:]  # "At what time ...": the preposition goes with the answer
    elif head == "how" and len(words) > 2 and _bare(words[1]) not in AUXILIARIES:
        kind, degree, words = _bare(words[1]), _bare(words[1]), words[1:]
        kind = kind if kind in ("much", "many") or not _lexicon(kind) else "degree"
    filler = kind in ("which", "who", "much", "many")
    if not filler and kind not in ("when", "where", "why", "how", "degree", *PREPOSITIONS):
        return None
    aux = next((k for k in range(1, len(words)) if _bare(words[k]) in AUXILIARIES), None)
    verb = _main_verb(words, ("VBZ", "VBD", "VBP"), aux) if filler else None
    np = words[1 : aux if verb is None else verb]
    if kind == "which" and np and _bare(np[0]) in _TEMPORAL and verb is None:
        kind, filler = "when", False  # "What time does ...?"
    elif np and kind not in ("which", "much", "many", *PREPOSITIONS):
        return None
    gap = _gap(kind, answer, np, words)
    if verb is not None and gap:  # the wh-phrase is the subject: "Who designed ...?"
        return [gap, _agree(answer, words[verb]), *words[verb + 1 :]]
    if aux is None or aux + 1 == len(words) or (gap is None and kind != "when"):
        return None
    aux_word, body = _bare(words[aux]), words[aux + 1 :]
    (core, tail), first = _tail(body, "be" if _bare(body[0]) == "it" else ""), _bare(body[0])
    if filler and first == "there":  # "How many players are there in a team?"
        return [body[0], aux_word, _mid(gap or answer), *body[1:]]
    after_be = first in PREPOSITIONS or _predicate(["_", *body], 1)
    follows = after_be if aux_word in _BE else _is_form(first, ("VB", "VBN"))
    if filler and (_adverb(first) or follows):  # "Which plan can only be paid annually?"
        return [gap or answer, _agree(answer, aux_word), *body]
    if aux_word in _BE:
        subject, pred = _be_split(core, loose=False)
        if kind == "degree" and not pred:  # "How far is the airport from the centre?"
            cut = next((i for i, w in enumerate(subject) if i and _bare(w) == "from"), len(subject))
            subject, tail = subject[:cut], subject[cut:] + tail
            if degree in ("old", "tall", "high", "wide", "deep") and degree not in answer.split():
                gap = f"{gap} {degree}"
        elif kind == "who" and not pred and _bare(subject[0]) in _DETS:
            return [answer, aux_word, *subject, *tail]
        if (gap is None and pred) or not subject:
            return None  # a time no preposition is known for, after a predicate
        return [*subject, aux_word, *pred, _mid(gap or answer), *tail]
    v, form = _verb(aux_word, body) or (None, "")
    if v is None or gap is None:
        return None
    core, tail = _tail(body[v + 1 :], body[v])
    at = [i for i, w in enumerate(core) if _bare(w) in _AS_IS - {"to"} or _adverb(_bare(w))]
    cut = at[0] if filler and at and _bare(core[-1]) not in PREPOSITIONS else len(core)
    return [*body[:v], form, *core[:cut], _mid(gap), *core[cut:], *tail]  # an object: before


def _agree(subject: str, verb: str) -> str:
    """The verb for a subject of two things joined by "and" ("Dehydration and stress cause")."""
    plural = {"is": "are", "was": "were", "has": "have"}
    if not re.search(r"\band [a-z]", subject) or not (verb in plural or _is_form(verb, ("VBZ",))):
        return verb
    return plural.get(verb) or _lexicon(verb)["VERB"][0]


def _yes_no(words: list[str], answer: str) -> list[str] | None:
    m, aux, body = _POLAR.fullmatch(answer), _bare(words[0]), words[1:]
    if not m or not body or any(_bare(w) == "or" for w in body):
        return None
    yes, rest = m.group(1).lower() not in ("no", "nope", "false"), m.group(2).split()
    if rest and _bare(rest[0]) not in _TAIL and _clause(rest):
        return None  # "No, it isn't for children under six.": judged as written
    if aux in _BE:
        subject, pred = _be_split(body, loose=True)
        neg = "no" if _bare(subject[0]) == "there" else "not"  # "There are no lockers ..."
        pred = pred[int(neg == "no" and pred[:1] in (["a"], ["an"], ["any"])) :]
        out = [*subject, aux if yes else f"{aux} {neg}", *pred] if pred else None
    else:
        found = _verb(aux, body, yes)
        out = None if found is None else [*body[: found[0]], found[1], *body[found[0] + 1 :]]
    if not rest or not out:
        return out
    # restated words are dropped, adverbs before them go in ("Yes, fully refundable"); other
    # words follow after a comma ("Yes, from age 10")
    said, low = [_bare(w) for w in out], [_bare(w) for w in rest]
    skip = int(not yes and low[0] in ("not", "never"))  # "No, not refundable"
    for n in range(len(low) - skip, 0, -1):
        at = [p for p in range(len(said) - n + 1) if said[p : p + n] == low[len(low) - n :]]
        if at:
            extra = rest[skip : len(rest) - n]
            if all(_adverb(_bare(w)) and _bare(w) != "not" for w in extra):
                return [*out[: at[0]], *extra, *out[at[0] :]]
            break
    return [*out[:-1], out[-1] + ",", _mid(" ".join(rest))]
