"""Clause reading: which words of a sentence are verbs, and what its subject is.

Usage::

    has_verb("The plan costs $10")     # True
    subject_of("The plan costs $10.")  # 'The plan'
    is_imperative("Back up the database, then stop the workers.")  # True

Word lists (auxiliaries, verbs, prepositions, subordinators) and lemminflect's lexicon decide
what a word reads as; :data:`LIGHT_WORDS` are the verbs and general words that say little of what
a claim asserts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from groundwatch.judges.text.words import IRREGULAR_FORMS, STOPWORDS, stem, word_set

__all__ = [
    "AUXILIARIES",
    "LIGHT_WORDS",
    "PREPOSITIONS",
    "PRONOUNS",
    "SUBORDINATORS",
    "VERBS",
    "WH_WORDS",
    "can_be_verb",
    "clause_verb",
    "has_verb",
    "is_imperative",
    "is_verb",
    "reads_as_verb",
    "singular_verb",
    "subject_of",
    "verb_phrase",
]


AUXILIARIES = word_set(
    """
    is are was were be been am isn't aren't wasn't weren't has have had hasn't haven't hadn't
    does do did doesn't don't didn't will would can could may might must shall should won't
    can't cannot couldn't wouldn't shouldn't
    """
)
VERBS = word_set(
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
PRONOUNS = {
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


#: A clause opened by one of these is subordinate: its comma ends it, not a claim.
SUBORDINATORS = word_set(
    """
    because since as if when whenever once although though while unless until after before
    whereas provided given
    """
)


#: Sequence words that open a step without being part of it ("..., then plug it back in").
_STEP_WORDS = frozenset({"then", "finally", "next", "also", "afterwards", "lastly"})
#: Words after which a noun-or-verb word reads as a verb ("uploads them", "stops the car").
_OBJECT_STARTS = word_set(
    """
    the a an your their his her its our my this that these those it them him us me all any
    each every some no up down in out on off back into onto to
    """
)


WH_WORDS = frozenset(["what", "which", "who", "whom", "whose", "when", "where", "why", "how"])
PREPOSITIONS = word_set(
    """
    in on at by for with from into to of about during after before under over
    """
)


#: Stems of verbs and common words that say little of what a claim asserts (coverage weighs
#: them lightly): the verb list above, irregular verbs, and frequent general words.
LIGHT_WORDS = frozenset(
    stem(w)
    for w in VERBS
    | frozenset(IRREGULAR_FORMS)
    | frozenset(IRREGULAR_FORMS.values())
    | word_set(
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
    | word_set(
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


def common_word(word: str) -> bool:
    """The lexicon knows ``word`` as a common word ("full", "price"; not "Canberra")."""
    return bool(_lexicon(word.lower()))


def can_be_verb(word: str) -> bool:
    """The lexicon knows ``word`` (any form) as a verb, wherever it stands."""
    return "VERB" in _lexicon(word.lower())


def _verb_lemmas(word: str) -> tuple[str, ...]:
    """The word's lemmas as a verb (empty when it cannot be one)."""
    return next((lemmas for pos, lemmas in _lemmas(word) if pos == "VERB"), ())


def reads_as_verb(
    words: Sequence[str],
    k: int,
    *,
    loose: bool = False,
    step: bool = False,
    mid: bool = True,
    singular: bool = False,
) -> bool:
    """Word ``k`` of a clause reads as a verb: a known verb or auxiliary, an -ed form, a word
    the lexicon knows only as a verb, or one it knows as a noun too when an object follows
    ("uploads them", "press the button", "costs $20"). ``loose`` (the part follows a clause,
    not a list of nouns): also before a preposition ("stops at the station"); ``step`` (a step
    of instructions): also in its base form ("exchange details", "spray once"). ``mid``: the
    word is inside a sentence, where a capitalised word is a name. ``singular``: the clause
    before has a verb in the third person singular, so a word in its base form that could be a
    noun, before a preposition, is one ("covers the gym and pool at ...": "pool" is no second
    verb; "..., so export your data" still is)."""
    w = words[k].strip(",.;:").lower()
    if not w.isalpha():
        return False
    nxt = words[k + 1].strip(",.;:").lower() if k + 1 < len(words) else ""
    # "covers the gym and pool at ...", "includes the deposit and cover for ...": a noun
    if singular and not step and nxt in PREPOSITIONS and _base_noun(w):
        return False
    if is_verb(w) or re.fullmatch(r"[a-z]{3,}ed", w):
        return True
    if mid and words[k][:1].isupper():
        return False  # a capitalised word inside a sentence is a name ("Articles 4 and 7")
    tags = _lexicon(w)
    if "VERB" not in tags or w in STOPWORDS or w.endswith("ing"):
        return False  # an -ing word is a noun or a participle, never a clause's verb alone
    if tags == {"VERB"}:
        return True
    if nxt in _OBJECT_STARTS or nxt[:1].isdigit() or (nxt != "" and nxt[0] in "$€£"):
        return True
    if not loose or not nxt:
        return False
    return nxt in PREPOSITIONS or (step and w in _verb_lemmas(w))


def _base_noun(word: str) -> bool:
    """A word in its base form (no -s, no -ed) that can be a noun ("pool", "cover")."""
    return word not in AUXILIARIES and not word.endswith(("s", "ed")) and "NOUN" in _lexicon(word)


def verb_phrase(
    words: Sequence[str],
    *,
    loose: bool = False,
    step: bool = False,
    mid: bool = True,
    singular: bool = False,
) -> int | None:
    """Where a part's leading verb is (after step words like "then"), or None."""
    k = 0
    while k < len(words) - 1 and words[k].strip(",").lower() in _STEP_WORDS:
        k += 1
    found = reads_as_verb(words, k, loose=loose, step=step, mid=mid, singular=singular)
    return k if found else None


def singular_verb(text: str) -> bool:
    """The clause has a verb in the third person singular present ("covers", "is", "has")."""
    for token in text.split():
        t = token.strip(",.;:").lower()
        if t in {"is", "has", "does", "was"} or (
            is_verb(t) and t.endswith("s") and not t.endswith("ss") and t not in AUXILIARIES
        ):
            return True
    return False


def is_imperative(text: str) -> bool:
    """A sentence that opens with a verb and no subject: "Back up the database, ..."."""
    words = text.split()
    if len(words) < 2 or not words[0][:1].isupper() or words[0].lower() in AUXILIARIES:
        return False
    lead = verb_phrase([words[0].lower(), *words[1:]], mid=False)
    return lead is not None and words[lead].lower() in _verb_lemmas(words[lead].lower())


def is_verb(token: str) -> bool:
    t = token.lower().strip(",.;:").replace("’", "'")
    return t in AUXILIARIES or t in VERBS or t in _CONTRACTIONS


_CONTRACTIONS = frozenset(
    f"{p}{c}"
    for p in ("it", "there", "that", "he", "she", "what", "who", "they", "we", "you", "i")
    for c in ("'s", "'re", "'m", "'ve", "'ll", "'d")
)


_VERB_FOLLOWERS = word_set(
    """
    at in into on onto to from by with for the a an its their his her about over under
    """
)


def has_verb(text: str) -> bool:
    """True when ``text`` reads as a clause (a known verb, an -s verb, a past participle)."""
    tokens = text.split()
    if any(is_verb(t) for t in tokens):
        return True
    if any(reads_as_verb(tokens, k) for k in range(1, len(tokens))):
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
    if tokens and tokens[0].lower() in SUBORDINATORS:
        return None  # "Because a project can ...": no subject of a claim
    out: list[str] = []
    for i, tok in enumerate(tokens):
        if is_verb(tok) or (
            i > 0 and (re.fullmatch(r"[a-z]{3,}ed", tok) or reads_as_verb(tokens, i))
        ):
            break
        if tok.lower() in PREPOSITIONS and tok.lower() != "of" and out:
            return None
        out.append(tok.strip(","))
        if len(out) > 7:
            return None
    if not out or len(out) == len(tokens) or out[0].lower() in PRONOUNS:
        return None
    return " ".join(out)


def clause_verb(words: list[str]) -> bool:
    """A verb of the clause's own, not a participle used as an adjective ("a reduced rate")."""
    for k in range(1, min(len(words), 8)):
        w = words[k].strip(",.").lower()
        prev = words[k - 1].strip(",.").lower()
        if (is_verb(w) or re.fullmatch(r"[a-z]{3,}ed", w)) and prev not in _DETERMINERS:
            return True
    return False


_DETERMINERS = frozenset({"a", "an", "the", "its", "their", "his", "her", "this", "that", "our"})
