"""The built-in PII detectors of redaction: what counts as an email, phone number, payment card,
IBAN or IP address (patterns plus checksum and shape checks, so a year, a price or a bare run of
digits is not redacted), and how each kind is normalised before hashing. Which detectors run and
what replaces a match is :mod:`groundwatch.evaluation.redaction`.

Detectors run on the *folded* text (:func:`fold`): NFKC, every Unicode decimal digit as its ASCII
digit (Arabic-Indic "٤١١١", Devanagari "४१११"), dash variants (U+2010..U+2015, minus) as "-",
full-stop variants ("。", "．") as ".", and zero-width / format characters (U+200B, U+FEFF,
bidi controls) removed. :class:`Folded` maps a span of the folded text back to the original.

Usage::

    for detector in BUILTIN_DETECTORS["card"]:
        for m in detector.pattern.finditer(text):
            n = detector.check(m.group(detector.group))   # length of the valid prefix, 0 = none
    luhn_valid("4111111111111111")                           # True
    folded = fold("card ٤١١١ ١١١١")                            # folded.text == "card 4111 1111"
    folded.origin(5, 14)                                     # (5, 14): the span in the original
"""

from __future__ import annotations

import functools
import ipaddress
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from stdnum import iban as stdnum_iban

__all__ = [
    "BUILTIN_DETECTORS",
    "BUILTIN_KINDS",
    "NORMALISE",
    "TRIGGER",
    "Detector",
    "Folded",
    "fold",
    "iban_valid",
    "luhn_valid",
    "whole_match",
]

BUILTIN_KINDS = ("email", "phone", "card", "iban", "ip", "api_key", "jwt")


# --- folding: one spelling per character before detection ----------------------------------

# Invisible characters that split a value without showing: zero-width space / joiners, word
# joiner, BOM, soft hyphen and the other format (Cf) characters, the combining grapheme joiner
# and variation selectors.
_INVISIBLE = frozenset("\u034f\u180b\u180c\u180d") | frozenset(map(chr, range(0xFE00, 0xFE10)))
_DASHES = frozenset("\u2212\u2043\u02d7")  # minus sign, hyphen bullet, modifier minus (+ Pd)


@functools.lru_cache(maxsize=4096)
def _fold_cluster(cluster: str) -> str:
    out: list[str] = []
    for ch in unicodedata.normalize("NFKC", cluster):
        if ch.isascii():
            out.append(ch)
            continue
        category = unicodedata.category(ch)
        if category == "Cf" or ch in _INVISIBLE:
            continue
        digit = unicodedata.decimal(ch, None)
        if digit is not None:
            out.append(chr(48 + digit))
        elif category == "Pd" or ch in _DASHES:
            out.append("-")
        elif category == "Po" and unicodedata.name(ch, "").endswith("FULL STOP"):
            out.append(".")  # ideographic "。", Arabic "۔", Armenian "։", ...
        else:
            out.append(ch)
    return "".join(out)


@dataclass(frozen=True)
class Folded:
    """A text in the one spelling the detectors read, with the way back: ``starts[i]`` and
    ``ends[i]`` bound the original characters that folded character ``i`` came from (None:
    the text was ASCII and folding changed nothing)."""

    text: str
    starts: list[int] | None = None
    ends: list[int] | None = None

    def origin(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the folded span ``[start, end)`` (non-empty): from the first
        character it came from to the last, so invisible characters inside go with it."""
        if self.starts is None or self.ends is None:
            return start, end
        return self.starts[start], self.ends[end - 1]


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def fold(text: str) -> Folded:
    """``text`` as the detectors read it (see the module docstring). A base character is folded
    together with the combining marks after it (NFKC composes them), so "bu\u0308cher" reads
    as "bücher". ASCII runs are copied whole; only the non-ASCII runs are folded one cluster at
    a time."""
    if text.isascii():
        return Folded(text)
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    for run in _NON_ASCII.finditer(text):
        start, end = run.span()
        if start > pos and unicodedata.combining(text[start]):
            start -= 1  # the ASCII base character goes with its combining marks
        out.append(text[pos:start])
        starts.extend(range(pos, start))
        ends.extend(range(pos + 1, start + 1))
        i = start
        while i < end:
            j = i + 1
            while j < end and unicodedata.combining(text[j]):
                j += 1
            piece = _fold_cluster(text[i:j])
            out.append(piece)
            starts.extend([i] * len(piece))
            ends.extend([j] * len(piece))
            i = j
        pos = end
    out.append(text[pos:])
    starts.extend(range(pos, len(text)))
    ends.extend(range(pos + 1, len(text) + 1))
    return Folded("".join(out), starts, ends)


# --- validators ---------------------------------------------------------------------------


def luhn_valid(digits: str) -> bool:
    """True when ``digits`` (only 0-9) passes the Luhn checksum."""
    if not digits.isdigit() or not digits.isascii():
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def iban_valid(iban: str) -> bool:
    """True when ``iban`` (compact, upper case) passes mod-97 *and* has its country's length and
    layout (the ISO 13616 registry in python-stdnum: "DE" + 2 check digits + 18 digits). The
    checksum alone passes one random string in 97: one 16-hex span id in 2,000 did."""
    if not 15 <= len(iban) <= 34 or not iban.isascii() or not iban.isalnum():
        return False
    if not (iban[:2].isalpha() and iban[2:4].isdigit()):
        return False
    return stdnum_iban.is_valid(iban, check_country=False)


def _digits(text: str) -> str:
    return "".join(ch for ch in text if "0" <= ch <= "9")


# Each check gets the matched text and returns the length of its longest valid prefix (0 = no
# match), so a greedy candidate such as "DE89 3704 0044 0532 0130 00 AND" shrinks to the IBAN.
_Check = Callable[[str], int]


def _check_card(text: str) -> int:
    digits = _digits(text)
    if not 13 <= len(digits) <= 19 or not luhn_valid(digits):
        return 0
    groups = re.split(r"[ .-]", text)
    if len(groups) == 1:
        return len(text)
    # Written in groups (4-4-4-4, 4-6-5, 4-4-4-4-3), with any mix of space, dot and dash: at
    # least three groups of 3-6 digits, so a decimal such as "3.14159265358979" is no card.
    if len(groups) >= 3 and all(3 <= len(g) <= 6 for g in groups):
        return len(text)
    return 0


def _check_iban(text: str) -> int:
    groups = text.split(" ")
    for n in range(len(groups), 0, -1):
        candidate = " ".join(groups[:n])
        if iban_valid(candidate.replace(" ", "").upper()):
            return len(candidate)
    return 0


def _check_phone_international(text: str) -> int:
    return len(text) if 8 <= len(_digits(text)) <= 15 else 0


def _check_phone_national(text: str) -> int:
    # one kind of separator: "01.02.2024 10" is a date and a number, not a phone number
    separators = {ch for ch in text if not "0" <= ch <= "9"} - {"/"}
    if len(separators) > 1:
        return 0
    return len(text) if 9 <= len(_digits(text)) <= 12 else 0


def _check_phone_context(text: str) -> int:
    return len(text) if 7 <= len(_digits(text)) <= 15 else 0


def _check_ipv6(text: str) -> int:
    if not any("0" <= ch <= "9" for ch in text):
        return 0  # "a::b" or "cafe::bad" are valid addresses but far likelier to be prose or code
    candidate = text
    while candidate:
        if candidate.count(":") >= 2:
            try:
                ipaddress.IPv6Address(candidate.split("%", 1)[0])
            except ValueError:
                pass
            else:
                return len(candidate)
        if candidate[-1] not in ".:":
            return 0
        candidate = candidate[:-1]  # trailing sentence punctuation
    return 0


def whole_match(text: str) -> int:
    return len(text)


# --- normalisation for hash mode: the same value written differently hashes the same -------


def _norm_ip(text: str) -> str:
    try:
        return str(ipaddress.ip_address(text.split("%", 1)[0]))
    except ValueError:
        return text


NORMALISE: dict[str, Callable[[str], str]] = {
    "email": str.lower,
    "phone": lambda t: ("+" if t.lstrip().startswith("+") else "") + _digits(t),
    "card": _digits,
    "iban": lambda t: t.replace(" ", "").upper(),
    "ip": _norm_ip,
}  # api_key, jwt: hashed as written


@dataclass(frozen=True)
class Detector:
    kind: str
    pattern: re.Pattern[str]
    check: _Check
    group: int = 0  # which group is the value (context rules match a keyword first)


_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_PHONE_WORDS = (
    r"phone|telephone|tel|mobile|cell|cellphone|call|fax|whatsapp|sms|text\s+me|"
    r"contact\s+number|number\s+is"
)

BUILTIN_DETECTORS: dict[str, list[Detector]] = {
    "email": [
        Detector(
            "email",
            # Domain labels may be internationalised (IDN: "jane@bücher.de", "x@例え.jp").
            re.compile(
                r"(?<![\w.%+-])[\w.%+-]{1,64}@(?:[^\W_](?:[\w-]{0,61}[^\W_])?\.)+"
                r"(?:[^\W\d_]{2,24}|xn--[A-Za-z0-9-]{1,59})(?![\w-])"
            ),
            whole_match,
        )
    ],
    "card": [
        Detector(
            "card",
            # not inside a longer word: digits in a hex id ("f0173342850354c") are no card
            re.compile(r"(?<![^\W_]|[.,-])\d(?:[ .-]?\d){12,18}(?![^\W_]|[.,-]\d)"),
            _check_card,
        )
    ],
    "iban": [
        Detector(
            "iban",
            # Case-insensitive: "de89 3704 0044 0532 0130 00" is the same account (mod-97 checked).
            re.compile(
                r"(?i)(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?"
                r"(?![A-Za-z0-9])"
            ),
            _check_iban,
        )
    ],
    "ip": [
        Detector(
            "ip",
            re.compile(rf"(?<![\w.])(?:{_OCTET}\.){{3}}{_OCTET}(?![\w]|\.\d)"),
            whole_match,
        ),
        Detector(
            "ip",
            re.compile(r"(?<![\w:.])[0-9A-Fa-f]{0,4}:[0-9A-Fa-f:.]{1,44}(?:%[\w.]{1,16})?"),
            _check_ipv6,
        ),
    ],
    "phone": [
        # +44 20 7946 0958, +1 (555) 123-4567, +4915112345678
        Detector(
            "phone",
            re.compile(r"(?<![\w+])\+\d{1,3}(?:[ .-]?(?:\(\d{1,4}\)|\d{1,5})){1,6}(?![\w]|[.-]\d)"),
            _check_phone_international,
        ),
        # (555) 123-4567, 555-123-4567, 555.123.4567, 555 123 4567
        Detector(
            "phone",
            re.compile(r"(?<![\w.,-])(?:\(\d{3}\) ?|\d{3}[ .-])\d{3}[ .-]\d{4}(?![\w-]|[.,]\d)"),
            whole_match,
        ),
        # national, leading 0, grouped: 030 1234567, 06 12 34 56 78, 020 7946 0958
        Detector(
            "phone",
            re.compile(r"(?<![\w.,/-])0\d{1,4}[ ./-]\d{2,8}(?:[ .-]\d{2,4}){0,3}(?![\w-]|[.,/]\d)"),
            _check_phone_national,
        ),
        # any 7-15 digit number right after a phone word: "call me at 5551234567"
        Detector(
            "phone",
            re.compile(
                rf"(?i)\b(?:{_PHONE_WORDS})\b[^\d\n]{{0,24}}?"
                r"(?<![\w.,-])(\+?\d(?:[ ().-]{0,2}\d){6,16})(?![\w]|[.,]\d)"
            ),
            _check_phone_context,
            group=1,
        ),
    ],
}

BUILTIN_DETECTORS["api_key"] = [
    Detector(
        "api_key",
        re.compile(
            r"(?<![\w-])(?:"
            r"sk-(?:proj-|live-|test-|ant-[\w-]{0,12})?[A-Za-z0-9_-]{16,}"  # OpenAI, Anthropic
            r"|(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"  # Stripe
            r"|(?:AKIA|ASIA|AGPA|AIDA|AROA)[A-Z0-9]{16}"  # AWS access key ids
            r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}"  # GitHub
            r"|glpat-[A-Za-z0-9_-]{20,}"  # GitLab
            r"|xox[abprs]-[A-Za-z0-9-]{10,}"  # Slack
            r"|AIza[A-Za-z0-9_-]{35}"  # Google
            r"|hf_[A-Za-z0-9]{30,}"  # Hugging Face
            r")(?![\w-])"
        ),
        whole_match,
    )
]
BUILTIN_DETECTORS["jwt"] = [
    Detector(
        "jwt",
        re.compile(
            r"(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{0,}(?![\w-])"
        ),
        whole_match,
    )
]

# Cheap pre-check: built-in detectors all need a digit, '@', ':' or a key prefix somewhere.
TRIGGER = re.compile(
    r"[\d@:]|sk-|[spr]k_|A[KSGIR][IS]A|gh[pousr]_|github_pat_|glpat-|xox|AIza|hf_|eyJ"
)
