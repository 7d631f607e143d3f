"""Claim decomposition: an answer becomes a list of atomic, self-contained claims.

Usage::

    split_sentences("Dr. Smith joined in 2019. The fee is $3.50 [1].")
    extract_claims("When does the discount apply?", "From renewal.")
    # -> ["When does the discount apply? From renewal."]

Rules (shared by every judge backend, so that all of them judge the same claims):

* sentences are split on terminal punctuation, robust to abbreviations (Dr., U.S., e.g.), initials,
  decimals, list items and bullet lines; citation markers such as ``[1]`` are removed;
* greetings, meta statements ("Based on the documents, ...", "I hope this helps") and hedges
  ("I think") are dropped, keeping the fact they wrap;
* sentences joined by a conjunction that assert separate facts are split, copying the subject
  when the second part has none ("The plan costs $10 and includes SSO");
* a leading pronoun (it, he, she, they, this) is replaced by the subject of the previous claim;
* a terse answer (a phrase, "Yes", a number) is read together with the question: the claim is
  ``"<question> <answer>"``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from groundwatch.judges.refusal import is_refusal_sentence

__all__ = [
    "LIGHT_WORDS",
    "STOPWORDS",
    "content_words",
    "extract_claims",
    "has_verb",
    "is_terse",
    "split_sentences",
    "stem",
    "terse_claim_parts",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS = _words(
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
STOPWORDS = STOPWORDS | _words(
    """
    roughly approximately around nearly almost approx exactly just currently usually usual
    typically typical generally actually really overall
    """
)

# Words kept even though they look like stopwords: they carry meaning the slot checks need.
_MEANINGFUL = frozenset(
    {"not", "no", "never", "more", "less", "before", "after", "above", "below", "most"}
)

_ABBREVIATIONS = _words(
    """
    mr mrs ms dr prof sr jr st mt ft vs etc e.g i.e eg ie inc ltd co corp no nos fig figs approx
    dept est jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun gen
    col lt sgt capt gov sen rep rev hon pres u.s u.k u.n e.u a.m p.m cf al ca op vol ed eds min
    max avg gov't
    """
)

_CITATION = re.compile(
    r"\s*(\[(?:\d+|[a-z]?\d+(?:\s*[,\-–]\s*[a-z]?\d+)*|source\s*\d+)\]|【[^】]*】)", re.I
)
_BULLET = re.compile(r"^\s*(?:[-*•●▪◦–]|\d{1,2}[.)]|[a-z][.)])\s+")
_WORD = re.compile(r"[^\W_][\w'’\-]*")
# A sentence end: . ! ? (optionally followed by quotes/brackets), then whitespace.
_END = re.compile(r"([.!?]+[\"'”’)\]]*)(\s+)")
# Sentences glued without a space, common in scraped passages: "Mackay.The Honoured Society".
_GLUED = re.compile(r"(?<=[a-z0-9)]{2})\.(?=[A-Z][a-z])")


# Business shorthand read as words, so that "Q3" covers "third quarter".
_PERIODS = {
    **{f"q{i}": (n, "quarter") for i, n in enumerate(("first", "second", "third", "fourth"), 1)},
    "h1": ("first", "half"),
    "h2": ("second", "half"),
    "fy": ("fiscal", "year"),
    "yoy": ("year",),
}


# Irregular verb forms, so that "begun" covers "began".
_IRREGULAR = {
    form: base
    for pair in _words(
        """
    begin:began,begun write:wrote,written build:built hold:held lead:led win:won sell:sold
    pay:paid make:made take:took,taken give:gave,given grow:grew,grown rise:rose,risen
    fall:fell,fallen choose:chose,chosen speak:spoke,spoken buy:bought bring:brought
    become:became run:ran come:came go:went,gone see:saw,seen know:knew,known draw:drew,drawn
    fly:flew,flown send:sent spend:spent keep:kept meet:met tell:told say:said stand:stood
    lose:lost teach:taught fight:fought drive:drove,driven break:broke,broken eat:ate,eaten
    sing:sang,sung shoot:shot
    """
    )
    for base, forms in [pair.split(":")]
    for form in forms.split(",")
}


# General synonyms (stems) read as one word, so that a paraphrase covers its original.
_SYNONYMS = {
    form: canon
    for group in _words(
        """
    allow:permit,let,authoriz,authoris cost:pric,charg buy:purchas get:receiv,obtain
    start:begin,commenc end:finish,terminat make:manufactur,produc larg:big small:littl
    includ:contain show:display need:requir help:assist use:utiliz,utilis keep:retain
    choos:select repli:respond,answer fast:quick,rapid car:vehicl
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
    if w in _IRREGULAR:
        return _IRREGULAR[w]
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


def _is_abbreviation(chunk: str) -> bool:
    """True when ``chunk`` (text up to and including a period) ends in an abbreviation."""
    m = re.search(r"(\S+)\.$", chunk)
    if not m:
        return False
    last = m.group(1).lstrip("([\"'“").lower()
    if last in _ABBREVIATIONS:
        return True
    # Initials and dotted acronyms: "J.", "U.S.", "e.g."
    return bool(re.fullmatch(r"(?:[a-z]\.)*[a-z]", last))


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences; bullets and lines are separate items, citations removed."""
    if not text or not text.strip():
        return []
    text = _CITATION.sub("", text)
    sentences: list[str] = []
    for raw_line in re.split(r"\n+|(?<=\S)\s+(?=(?:[•●▪]|\d{1,2}\))\s)", text):
        line = _BULLET.sub("", raw_line).strip()
        if not line:
            continue
        line = _GLUED.sub(". ", line)
        start = 0
        for m in _END.finditer(line):
            end = m.end(1)
            chunk = line[start:end]
            nxt = line[m.end() : m.end() + 1]
            tail = line[max(start, end - 40) : end]  # only the last word matters (and O(n))
            if (
                m.group(1) == "."
                and _is_abbreviation(tail)
                and not (
                    nxt.isupper() and _ends_acronym_sentence(tail, line[m.end() : m.end() + 20])
                )
            ):
                continue
            if nxt and nxt.islower():
                continue
            if chunk.strip():
                sentences.append(chunk.strip())
            start = m.end()
        rest = line[start:].strip()
        if rest:
            sentences.append(rest)
    return [s for s in sentences if any(ch.isalnum() for ch in s)]


def _ends_acronym_sentence(chunk: str, after: str) -> bool:
    """ "... in the U.S. The fee" ends a sentence; "Dr. Smith" or "J. R. R. Tolkien" does not."""
    m = re.search(r"(\S+)\.$", chunk)
    last = m.group(1).lower() if m else ""
    if last in {"mr", "mrs", "ms", "dr", "prof", "st", "mt", "gen", "col", "lt", "sgt", "capt"}:
        return False
    if re.fullmatch(r"[a-z]", last):  # an initial
        return False
    first = after.split(" ", 1)[0]
    return first in {"The", "A", "An", "It", "This", "They", "He", "She", "We", "In", "Its"}


# --------------------------------------------------------------------------- cleaning

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
    r"|(?:yes|no|yeah|nope|correct|right|indeed)\s*[,!.:;\-–—]\s*)",
    re.I,
)
_YES_NO = re.compile(
    r"^(yes|no|yeah|yep|nope|correct|incorrect|true|false)\b\s*[,.!:;\-–—]?\s*", re.I
)
_BARE_AUX = re.compile(
    r"^(?:(?:it|they|he|she|this|that|you|we|there)\s+)?(?:is|are|was|were|does|do|did|can|"
    r"could|will|would|has|have|had|should|must|may)(?:\s*n't|\s+not)?\s*[.!]?$",
    re.I,
)

_AUX = _words(
    """
    is are was were be been am isn't aren't wasn't weren't has have had hasn't haven't hadn't
    does do did doesn't don't didn't will would can could may might must shall should won't
    can't cannot couldn't wouldn't shouldn't
    """
)
_VERBS = _words(
    """
    costs cost includes include included applies apply applied requires require required covers
    cover covered offers offer offered lasts last takes take took runs run ran supports support
    supported allows allow allowed contains contain contained became become becomes won wins
    founded founds born died lives lived lies lay located sits starts started start ends ended
    begins began begin grows grew makes made make gets got get uses used use needs need needed
    provides provided provide means meant mean remains remained stays stayed belongs belonged
    plays played play served serves serve released releases wrote writes written published
    publishes opened opens closed closes expires expired expire renews renewed renew charges
    charged charge pays paid pay returns returned return gives gave give shows showed causes
    caused cause treats treated reduces reduced increases increased decreases decreased leads
    led flows flowed borders bordered consists consisted comprises comprised operates operated
    features featured stars starred directed directs produced produces owns owned created
    creates developed develops introduced introduces replaced replaces signed signs joined joins
    moved moves covers held holds hosts hosted ships shipped sells sold ranks ranked measures
    measured weighs weighed reaches reached spans spanned let lets keep keeps kept earn earns
    earned accept accepts accepted fell falls rose rises eased eases
    """
)
_PRONOUNS = {
    "it": "",
    "he": "",
    "she": "",
    "they": "",
    "this": "",
    "these": "",
    "its": "'s",
    "his": "'s",
    "her": "'s",
    "their": "'s",
}
_CONJ = re.compile(
    r"\s*(?:;|,\s*(?:and then|and|but|while|whereas|yet|so|although|though|plus|then|or|"
    r"with|during which|after which)\s|\s(?:and then|and|but|whereas)\s)"
    r"\s*",
    re.I,
)
#: A bare comma separates claims only before a verb phrase ("costs $20, includes 5 seats").
_BARE_COMMA = re.compile(r",\s+")
#: A clause opened by one of these is subordinate: its comma ends it, not a claim.
_SUBORDINATORS = _words(
    """
    because since as if when whenever once although though while unless until after before
    whereas provided given
    """
)
_RELATIVES = _words("who whom whose which where")
#: Sequence words that open a step without being part of it ("..., then plug it back in").
_STEP_WORDS = frozenset({"then", "finally", "next", "also", "afterwards", "lastly"})
#: Words after which a noun-or-verb word reads as a verb ("uploads them", "stops the car").
_OBJECT_STARTS = _words(
    """
    the a an your their his her its our my this that these those it them him us me all any
    each every some no up down in out on off back into onto to
    """
)
_WEAK_CONJ = re.compile(r"\b(?:plus|then|or|with|during which|after which)\b", re.I)
_WH = frozenset(["what", "which", "who", "whom", "whose", "when", "where", "why", "how"])
_PREPS = _words(
    """
    in on at by for with from into to of about during after before under over
    """
)


#: Stems of verbs and common words that say little of what a claim asserts (coverage weighs
#: them lightly): the verb list above, irregular verbs, and frequent general words.
LIGHT_WORDS = frozenset(
    stem(w)
    for w in _VERBS
    | frozenset(_IRREGULAR)
    | frozenset(_IRREGULAR.values())
    | _words(
        """
    say says said state states stated mention mentions mentioned note notes noted report reports
    reported explain explains explained describe describes described tell told put go goes come
    comes want wants like find finds found set sets let lets help helps call calls able
    available typical normal normally standard general main various several certain total whole
    entire full usual new old get gets got keep keeps kept bring brings take takes took taken
    give gives gave given make makes made allow allows allowed permit permits permitted offer
    offers include includes including contain contains receive receives received well still
    already later now today even simply different same particular specific possible
    """
    )
    # Comparatives, quantity and position words, and frequent general verbs: paraphrased
    # freely ("at most three in a row" / "no more than three consecutive"); the slot checks
    # carry what they assert about values.
    | _words(
        """
    most more least less over under past row front extra far half whole number amount
    apply applies applied serve serves served wait waits waited play plays played hold holds
    held open opens opened see sees seen plan plans planned count counts counted use uses used
    work works worked start starts started end ends ended need needs needed require requires
    required last lasts lasted remain remains remained become becomes became provide provides
    provided check checks checked follow follows followed happen happens happened
    you'll we'll they'll i'll it'll you're we're they're i'm i've you've we've they've
    """
    )
)


@lru_cache(maxsize=65536)
def _lemmas(word: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each part of speech a word can have and its lemmas there (lemminflect's lexicon)."""
    from lemminflect import getAllLemmas

    return tuple((pos, tuple(lemmas)) for pos, lemmas in getAllLemmas(word).items())


def _lexicon(word: str) -> frozenset[str]:
    """The parts of speech a word can have."""
    return frozenset(pos for pos, _ in _lemmas(word))


def _verb_lemmas(word: str) -> tuple[str, ...]:
    """The word's lemmas as a verb (empty when it cannot be one)."""
    return next((lemmas for pos, lemmas in _lemmas(word) if pos == "VERB"), ())


def _reads_as_verb(
    words: Sequence[str], k: int, *, loose: bool = False, step: bool = False, mid: bool = True
) -> bool:
    """Word ``k`` of a clause reads as a verb: a known verb or auxiliary, an -ed form, a word
    the lexicon knows only as a verb, or one it knows as a noun too when an object follows
    ("uploads them", "press the button", "costs $20"). ``loose`` (the part follows a clause,
    not a list of nouns): also before a preposition ("stops at the station"); ``step`` (a step
    of instructions): also in its base form ("exchange details", "spray once"). ``mid``: the
    word is inside a sentence, where a capitalised word is a name."""
    w = words[k].strip(",.;:").lower()
    if not w.isalpha():
        return False
    if _is_verb(w) or re.fullmatch(r"[a-z]{3,}ed", w):
        return True
    if mid and words[k][:1].isupper():
        return False  # a capitalised word inside a sentence is a name ("Articles 4 and 7")
    tags = _lexicon(w)
    if "VERB" not in tags or w in STOPWORDS or w.endswith("ing"):
        return False  # an -ing word is a noun or a participle, never a clause's verb alone
    if tags == {"VERB"}:
        return True
    nxt = words[k + 1].strip(",.;:").lower() if k + 1 < len(words) else ""
    if nxt in _OBJECT_STARTS or nxt[:1].isdigit() or (nxt != "" and nxt[0] in "$€£"):
        return True
    if not loose or not nxt:
        return False
    return nxt in _PREPS or (step and w in _verb_lemmas(w))


def _verb_phrase(
    words: Sequence[str], *, loose: bool = False, step: bool = False, mid: bool = True
) -> int | None:
    """Where a part's leading verb is (after step words like "then"), or None."""
    k = 0
    while k < len(words) - 1 and words[k].strip(",").lower() in _STEP_WORDS:
        k += 1
    return k if _reads_as_verb(words, k, loose=loose, step=step, mid=mid) else None


def _imperative(text: str) -> bool:
    """A sentence that opens with a verb and no subject: "Back up the database, ..."."""
    words = text.split()
    if len(words) < 2 or not words[0][:1].isupper() or words[0].lower() in _AUX:
        return False
    lead = _verb_phrase([words[0].lower(), *words[1:]], mid=False)
    return lead is not None and words[lead].lower() in _verb_lemmas(words[lead].lower())


def _is_verb(token: str) -> bool:
    t = token.lower().strip(",.;:").replace("’", "'")
    return t in _AUX or t in _VERBS or t in _CONTRACTIONS


_CONTRACTIONS = frozenset(
    f"{p}{c}"
    for p in ("it", "there", "that", "he", "she", "what", "who", "they", "we", "you", "i")
    for c in ("'s", "'re", "'m", "'ve", "'ll", "'d")
)


_VERB_FOLLOWERS = _words(
    """
    at in into on onto to from by with for the a an its their his her about over under
    """
)


def _has_verb(text: str) -> bool:
    tokens = text.split()
    if any(_is_verb(t) for t in tokens):
        return True
    if any(_reads_as_verb(tokens, k) for k in range(1, len(tokens))):
        return True
    # NOUN + "-s" verb + preposition/article/number: "water boils at", "the river flows into".
    for i in range(1, len(tokens) - 1):
        t = tokens[i]
        if (
            re.fullmatch(r"[a-z]{3,}s", t)
            and not t.endswith(("ss", "us", "is"))
            and tokens[i - 1].lower() not in STOPWORDS
            and (
                tokens[i + 1].lower() in _VERB_FOLLOWERS
                or tokens[i + 1][:1].isdigit()
                or tokens[i + 1][:1] in "$€£"
            )
        ):
            return True
    # A past-tense / participle after the first word ("The tour ended at noon").
    return any(re.fullmatch(r"[a-z]{3,}ed", t.strip(",.;:")) for t in tokens[1:4])


def subject_of(sentence: str) -> str | None:
    """The noun phrase before the first verb of a declarative sentence (None if unclear)."""
    tokens = sentence.rstrip(".!?").split()
    if tokens and tokens[0].lower() in _SUBORDINATORS:
        return None  # "Because a project can ...": no subject of a claim
    out: list[str] = []
    for i, tok in enumerate(tokens):
        if _is_verb(tok) or (
            i > 0 and (re.fullmatch(r"[a-z]{3,}ed", tok) or _reads_as_verb(tokens, i))
        ):
            break
        if tok.lower() in _PREPS and tok.lower() != "of" and out:
            return None
        out.append(tok.strip(","))
        if len(out) > 7:
            return None
    if not out or len(out) == len(tokens) or out[0].lower() in _PRONOUNS:
        return None
    return " ".join(out)


def _question_subject(question: str) -> str | None:
    tokens = question.rstrip(" ?").split()
    if tokens and tokens[0].lower() in _WH:
        # "What job does X have?" -> skip the wh-phrase up to its auxiliary.
        rest = tokens[1:]
        cut = next((i for i, t in enumerate(rest[:4]) if t.lower() in _AUX), None)
        tokens = rest[cut:] if cut is not None else rest
    while tokens and (tokens[0].lower() in _WH or tokens[0].lower() in _AUX):
        tokens = tokens[1:]
    out: list[str] = []
    for tok in tokens:
        if _is_verb(tok) or (out and re.fullmatch(r"[a-z]{3,}(?:ed|ing)", tok)):
            break
        if tok.lower() in _PREPS and tok.lower() != "of" and out:
            break
        out.append(tok.strip(","))
        if len(out) > 6:
            break
    return " ".join(out) if out else None


def _question_person(question: str) -> str | None:
    """The longest capitalised multi-word name in the question (outside quotes)."""
    unquoted = re.sub(r"\"[^\"]*\"|“[^”]*”", " ", question)
    spans = re.findall(r"(?:[A-Z][\w'’\-.]+\s+){1,3}[A-Z][\w'’\-]+", unquoted)
    spans = [sp for sp in spans if sp.split()[0].lower() not in STOPWORDS | _WH]
    return max(spans, key=len) if spans else None


def _resolve_pronoun(sentence: str, antecedent: str | None, person: str | None = None) -> str:
    if re.match(r"^(?:He|She|His|Her)\b", sentence) and person:
        antecedent = person
    if not antecedent:
        return sentence
    m = re.match(
        r"^(It|He|She|They|This|These|Its|His|Her|Their)\b(?!\s+(?:is|was)\s+(?:not\s+)?(?:possible|likely|important|unclear|worth|recommended|necessary|advised)\b)",
        sentence,
    )
    if not m:
        return sentence
    word = m.group(1).lower()
    if word in {"this", "these"}:
        # "This plan ..." keeps its own noun; only a bare "This is/was" refers back.
        nxt = sentence[m.end() :].lstrip().split(" ", 1)[0].lower()
        if nxt not in _AUX and nxt not in _VERBS:
            return sentence
    replacement = antecedent + _PRONOUNS[word]
    replacement = replacement[0].upper() + replacement[1:]
    return replacement + sentence[m.end() :]


def _split_conjunctions(sentence: str) -> list[str]:
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
    imperative = _imperative(_main_clause(sentence[starts[0] : ends[0]]))
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
            _verb_phrase(words, loose=loose, step=imperative and loose) if len(words) >= 2 else None
        )
        after_clause = lead is not None
        if len(words) < 2 or not (_has_verb(prev) or imperative) or joins_numbers:
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
            _clause_verb(words)
            if is_weak
            else (
                any(_is_verb(w) for w in words[1:8])
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
    return [_finish(p) for piece in pieces for p in _split_commas(piece)]


def _split_subject(clause: str) -> str | None:
    """The subject a split-off verb phrase gets: the clause's subject, or its leading pronoun
    ("It does not cause drowsiness and should be taken daily": each part is resolved later)."""
    subject = subject_of(clause)
    if subject is not None:
        return subject
    words = clause.split()
    if len(words) >= 2 and words[0].lower() in {"it", "they", "he", "she"}:
        return words[0] if _reads_as_verb(words, 1) else None
    return None


def _ends_in_list(text: str) -> bool:
    """The text ends with a comma and a short item with no verb ("cables, batteries")."""
    if ", " not in text:
        return False
    last = text.rsplit(", ", 1)[1].split()
    return len(last) <= 3 and not any(_reads_as_verb(last, k) for k in range(len(last)))


def _main_clause(text: str) -> str:
    """The main clause of a sentence opened by a subordinate one ("Because X, do Y" -> "Do
    Y"); the text itself otherwise."""
    first = text.split(None, 1)[0].lower() if text.split() else ""
    if first not in _SUBORDINATORS or ", " not in text:
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
    if head.split(None, 1)[0].lower() in _SUBORDINATORS:
        head = head + ", " + segments.pop(0)
    imperative = _imperative(_main_clause(head))
    out = [head]
    clause = imperative or _has_verb(head)
    subject = None if imperative else _split_subject(head)
    after_clause = True
    previous = head
    for seg in segments:
        words = seg.split()
        relative = previous.split(None, 1)[0].lower() in _RELATIVES if previous else False
        lead = None
        if len(words) >= 2 and clause and not relative:
            lead = _verb_phrase(words, loose=after_clause, step=imperative and after_clause)
            verb = words[lead].lower() if lead is not None else ""
            if re.fullmatch(r"[a-z]{3,}ed", verb) and verb not in _VERBS:
                lead = None  # "..., funded by X": a participle modifies, it does not assert
        after_clause = lead is not None
        previous = seg
        if lead is None or (subject is None and not imperative):
            out[-1] = out[-1] + ", " + seg
            continue
        step = " ".join(words[lead:])
        out.append(step if imperative else f"{subject} {step}")
    return out


def _clause_verb(words: list[str]) -> bool:
    """A verb of the clause's own, not a participle used as an adjective ("a reduced rate")."""
    for k in range(1, min(len(words), 8)):
        w = words[k].strip(",.").lower()
        prev = words[k - 1].strip(",.").lower()
        if (_is_verb(w) or re.fullmatch(r"[a-z]{3,}ed", w)) and prev not in _DETERMINERS:
            return True
    return False


_DETERMINERS = frozenset({"a", "an", "the", "its", "their", "his", "her", "this", "that", "our"})


def has_verb(text: str) -> bool:
    """True when ``text`` reads as a clause (a known verb, an -s verb, a past participle)."""
    return _has_verb(text)


_MAX_CONJUNCTS = 12
_NUMBER = re.compile(r"\d")


def _finish(text: str) -> str:
    text = text.strip().rstrip(",;")
    if text and text[-1] not in ".!?":
        text += "."
    return text[0].upper() + text[1:] if text else text


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
    return len(words) <= 8 and not _has_verb(" ".join(lowered))


_QUESTION_MARKS = ("?", "؟", "？")  # Latin, Arabic, full-width


def terse_claim_parts(claim: str) -> tuple[str, str] | None:
    """Split a terse claim ``"<question>? <answer>"`` back into (question, answer)."""
    found = [i for i in (claim.find(q + " ") for q in _QUESTION_MARKS) if i >= 0]
    if not found:
        return None
    idx = min(found)
    return claim[: idx + 1], claim[idx + 2 :]


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
    text = _CITATION.sub("", answer).strip()
    if is_terse(text):
        if is_refusal_sentence(text):
            return []
        m = _YES_NO.match(text)
        rest = _YES_NO.sub("", text).strip().rstrip(".!")
        if m and (not rest or _BARE_AUX.match(rest)):
            word = m.group(1).lower()
            polarity = "Yes" if word in {"yes", "yeah", "yep", "correct", "true"} else "No"
            rest = polarity
        elif not rest:
            return []
        q = question if question.endswith(_QUESTION_MARKS) else question.rstrip(".") + "?"
        return [f"{q} {rest}."]
    claims: list[str] = []
    antecedent = _question_subject(question)
    person = _question_person(question)
    for sentence in split_sentences(text):
        cleaned = _clean(sentence)
        if cleaned is None:
            continue
        if cleaned.endswith("?"):
            continue  # a question back to the user asserts nothing
        for part in _split_conjunctions(cleaned):
            if is_refusal_sentence(part):
                continue  # "the documents do not say" is not a claim about the world
            resolved = _resolve_pronoun(part, antecedent, person)
            resolved = _finish(resolved)
            if len(content_words(resolved)) == 0:
                continue
            subject = subject_of(resolved)
            if subject is not None:
                antecedent = subject
                if re.fullmatch(r"(?:[A-Z][\w'’\-.]+\s*){2,4}", subject):
                    person = subject
            claims.append(resolved)
    if not claims and is_terse(_YES_NO.sub("", text)):
        return extract_claims(question, _YES_NO.sub("", text))
    return claims
