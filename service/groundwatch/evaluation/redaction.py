"""PII redaction: personal data is removed from claim and evidence texts before anything is
stored (findings) or published (results topic). Scoring always sees the original text.

Usage::

    redactor = build_redactor(settings.redaction)       # RedactionConfigError on a bad config
    redactor.redact_text("mail jane@example.com")      # -> "mail [EMAIL]"
    record = redactor.redact_record(record)            # a redacted copy
    registry.register(RedactionCollector(redactor))    # groundwatch_redactions_total{kind}

Built-in detectors (``RedactionSettings.kinds``):

* ``email``: ``local@domain.tld``;
* ``phone``: international numbers (``+44 20 7946 0958``), North-American (``(555) 123-4567``,
  ``555-123-4567``), national numbers starting with 0 in groups (``030 1234567``,
  ``06 12 34 56 78``), and any 7-15 digit number right after a word such as "phone", "call" or
  "tel". A bare run of digits, a year, a price or a percentage is not a phone number;
* ``card``: 13-19 digits, optionally grouped by spaces or dashes, Luhn-checked;
* ``iban``: two letters, two check digits and the account part, mod-97 checked;
* ``ip``: IPv4 and IPv6 addresses (checked with :mod:`ipaddress`);
* ``api_key``: common secret shapes (``sk-…``, ``sk_live_…``, ``AKIA…``, ``ghp_…``,
  ``github_pat_…``, ``glpat-…``, ``xox?-…``, ``AIza…``, ``hf_…``);
* ``jwt``: ``eyJ….eyJ….<signature>``.

Detectors read the text folded (:func:`~groundwatch.evaluation.pii_detectors.fold`): NFKC
(full-width digits, ``＠``), decimal digits of any script as ASCII ("٤١١١", "४१११"), dash and
full-stop variants ("‐", "。") as "-" and ".", zero-width and other invisible characters
removed. A match is replaced in the text as written: the rest of the text is returned unchanged
(not normalised), and a hash token is computed from the folded value, so "٤١١١…" and "4111…"
hash alike. Identifiers (``redact_id``: trace_id, context ids) that contain
personal data are replaced whole by a stable digest, so joins and dedup keep working; slice
values (``redact_label``) are pattern-redacted before they become metric labels or window keys.

The detectors themselves are in :mod:`groundwatch.evaluation.pii_detectors`.

Operator patterns (``RedactionSettings.patterns``, ``{"name": "regex"}``) are applied as well;
an invalid regex or name fails at start-up with :class:`RedactionConfigError`.

Modes: ``mask`` replaces a value with ``[EMAIL]``; ``hash`` with ``[EMAIL:<12 hex>]``, a keyed
HMAC-SHA256 of the normalised value, so equal values stay joinable without being readable;
``drop_text`` keeps no claim or evidence text at all (scores, verdicts and ids stay); ``off``
changes nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import threading
from collections.abc import Iterator
from typing import Literal

from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

from groundwatch.contract.record import ClaimResult, EvaluationRecord
from groundwatch.evaluation.pii_detectors import (
    BUILTIN_DETECTORS,
    BUILTIN_KINDS,
    NORMALISE,
    TRIGGER,
    Detector,
    fold,
    whole_match,
)
from groundwatch.sections.pipeline import RedactionSettings

__all__ = [
    "BUILTIN_KINDS",
    "PiiRedactor",
    "RedactionCollector",
    "RedactionConfigError",
    "build_redactor",
]

RedactionMode = Literal["off", "mask", "hash", "drop_text"]

_HASH_HEX = 12  # 48 bits: joinable without practical collisions at triage scale
_DROPPED = "dropped_text"  # metric kind counting texts removed whole in drop_text mode
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,31}")


class RedactionConfigError(ValueError):
    """The redaction settings cannot work (bad regex, unknown kind, hash mode without key).
    Raised at start-up; not retriable."""

    retriable = False


class PiiRedactor:
    """Removes personal data from texts and evaluation records (implements ``stores.Redactor``).

    Thread-safe: evaluator workers and the Kafka consumer share one instance.

    Usage::

        redactor = PiiRedactor(mode="mask", kinds=["email", "phone"])
        redactor.redact_text("call +44 20 7946 0958")   # -> "call [PHONE]"
        redactor.counts()                               # {"email": 0, "phone": 1}
    """

    def __init__(
        self,
        *,
        mode: RedactionMode = "mask",
        kinds: list[str] | tuple[str, ...] = BUILTIN_KINDS,
        patterns: dict[str, str] | None = None,
        hash_key: bytes | None = None,
    ):
        if mode == "hash" and not hash_key:
            raise RedactionConfigError(
                "redaction mode 'hash' needs a key: set GROUNDWATCH_REDACTION__HASH_KEY "
                "(or choose mode mask, drop_text or off)"
            )
        unknown = sorted(set(kinds) - set(BUILTIN_KINDS))
        if unknown:
            raise RedactionConfigError(
                f"unknown redaction kinds {unknown}; known: {list(BUILTIN_KINDS)}"
            )
        self.mode: RedactionMode = mode
        self._key = hash_key or b""
        self._detectors: list[Detector] = []
        # Operator patterns first: on overlapping matches of equal length the operator wins.
        for name, regex in (patterns or {}).items():
            self._detectors.append(Detector(_custom_kind(name), _compile(name, regex), whole_match))
        for kind in BUILTIN_KINDS:  # fixed order, whatever order the settings list
            if kind in kinds:
                self._detectors.extend(BUILTIN_DETECTORS[kind])
        self._custom = [d for d in self._detectors if d.kind not in BUILTIN_KINDS]
        self._kinds = sorted({d.kind for d in self._detectors})
        self._lock = threading.Lock()
        self._counts: dict[str, int] = dict.fromkeys(self._kinds, 0)
        if mode == "drop_text":
            self._counts[_DROPPED] = 0

    @property
    def kinds(self) -> list[str]:
        """Detector kinds in use (built-in and operator patterns)."""
        return list(self._kinds)

    def counts(self) -> dict[str, int]:
        """Redactions so far, by kind (a snapshot)."""
        with self._lock:
            return dict(self._counts)

    # --- Redactor protocol ---

    def redact_text(self, text: str) -> str | None:
        """The text to store: PII replaced, or None in drop_text mode, unchanged when off."""
        if self.mode == "off":
            return text
        if self.mode == "drop_text":
            if text:
                self._count({_DROPPED: 1})
            return None
        return self._replace(text)

    def redact_record(self, record: EvaluationRecord) -> EvaluationRecord:
        """A copy of ``record`` with claim texts, evidence texts, claim reasons and attribute
        values redacted. In drop_text mode claim and evidence texts become empty strings;
        scores, verdicts, indexes and ids are always kept."""
        if self.mode == "off":
            return record.model_copy(deep=True)
        claims = [self._redact_claim(c) for c in record.claims]
        attributes = {k: self._replace(v) for k, v in record.attributes.items()}
        contexts = [
            c.model_copy(update={"id": self.redact_id(c.id) if c.id is not None else None})
            for c in record.contexts
        ]
        return record.model_copy(
            update={
                "trace_id": self.redact_id(record.trace_id),
                "claims": claims,
                "attributes": attributes,
                "contexts": contexts,
            },
            deep=True,
        )

    def redact_id(self, value: str) -> str:
        """An identifier safe to store: unchanged when no detector fires (the usual opaque id,
        so triage can still look it up in the assistant's logs), else replaced whole by
        ``redacted:<12 hex>``, a digest that is the same for the same id (dedup and joins keep
        working): keyed HMAC in hash mode, plain SHA-256 otherwise."""
        if self.mode == "off" or not self._spans(fold(value).text):
            return value
        self._count({"id": 1})
        if self._key:
            digest = hmac.new(self._key, b"id\x00" + _utf8(value), hashlib.sha256).hexdigest()
        else:
            digest = hashlib.sha256(b"id\x00" + _utf8(value)).hexdigest()
        return f"redacted:{digest[:_HASH_HEX]}"

    def redact_label(self, value: str) -> str:
        """A slice value safe to become a metric label or window key: detected values replaced
        by their mask (``[EMAIL]``) or hash token, in every mode but off (also drop_text)."""
        if self.mode == "off":
            return value
        return self._replace(value)

    # --- internals ---

    def _redact_claim(self, claim: ClaimResult) -> ClaimResult:
        text = self.redact_text(claim.text) or ""
        evidence = claim.evidence
        if evidence is not None:
            evidence = evidence.model_copy(
                update={
                    "text": self.redact_text(evidence.text) or "",
                    "context_id": self.redact_id(evidence.context_id)
                    if evidence.context_id is not None
                    else None,
                }
            )
        # reason is machine-made but may quote slot values (or an LLM judge's words): always
        # pattern-redacted, even in drop_text mode, so it stays useful. It may also quote a
        # *fragment* of a redacted value ("number mismatch: 4111 vs 4242" from two card numbers):
        # every number or word taken from a span redacted in the claim or evidence is masked too.
        sources = [claim.text] + ([claim.evidence.text] if claim.evidence else [])
        reason = None
        if claim.reason is not None:
            reason = self._mask_fragments(self._replace(claim.reason), sources)
        # The conflict's words are quoted from the claim and the evidence: redacted like the
        # reason (a masked value shows as its mask, which the page then finds nowhere).
        conflict = claim.conflict
        if conflict is not None:
            conflict = conflict.model_copy(
                update={
                    side: self._mask_fragments(self._replace(value), sources)
                    for side, value in (("claim", conflict.claim), ("evidence", conflict.evidence))
                    if value is not None
                }
            )
        return claim.model_copy(
            update={"text": text, "evidence": evidence, "reason": reason, "conflict": conflict}
        )

    def _mask_fragments(self, reason: str, sources: list[str]) -> str:
        fragments: dict[str, str] = {}
        for source in sources:
            normal = fold(source).text
            for start, end, kind in self._spans(normal):
                for token in _FRAGMENT.findall(normal[start:end]):
                    if len(token) >= 2:
                        fragments[token.lower()] = kind
        if not fragments:
            return reason
        tally: dict[str, int] = {}

        def mask(match: re.Match[str]) -> str:
            kind = fragments.get(fold(match.group(0)).text.lower())
            if kind is None:
                return match.group(0)
            tally[kind] = tally.get(kind, 0) + 1
            return f"[{kind.upper()}]"

        out = _FRAGMENT.sub(mask, reason)
        self._count(tally)
        return out

    def _spans(self, text: str) -> list[tuple[int, int, str]]:
        detectors = self._detectors if TRIGGER.search(text) else self._custom
        found: list[tuple[int, int, int, str]] = []
        for priority, det in enumerate(detectors):
            for match in det.pattern.finditer(text):
                start, end = match.span(det.group)
                if end <= start:
                    continue  # operator pattern matching the empty string
                length = det.check(text[start:end])
                if length > 0:
                    found.append((start, start + length, priority, det.kind))
        # Leftmost first, then longest, then detector order; overlaps are dropped.
        found.sort(key=lambda s: (s[0], -(s[1] - s[0]), s[2]))
        chosen: list[tuple[int, int, str]] = []
        last_end = 0
        for start, end, _, kind in found:
            if start >= last_end:
                chosen.append((start, end, kind))
                last_end = end
        return chosen

    def _replace(self, text: str) -> str:
        folded = fold(text)
        spans = self._spans(folded.text)
        if not spans:
            return text
        parts: list[str] = []
        pos = 0
        tally: dict[str, int] = {}
        for start, end, kind in spans:
            origin_start, origin_end = folded.origin(start, end)
            parts.append(text[pos:origin_start])
            parts.append(self._token(kind, folded.text[start:end]))
            tally[kind] = tally.get(kind, 0) + 1
            pos = origin_end
        parts.append(text[pos:])
        self._count(tally)
        return "".join(parts)

    def _token(self, kind: str, value: str) -> str:
        label = kind.upper()
        if self.mode != "hash":
            return f"[{label}]"
        normalised = NORMALISE.get(kind, _identity)(value)
        digest = hmac.new(
            self._key, f"{kind}\x00{normalised}".encode("utf-8", "surrogatepass"), hashlib.sha256
        ).hexdigest()
        return f"[{label}:{digest[:_HASH_HEX]}]"

    def _count(self, tally: dict[str, int]) -> None:
        with self._lock:
            for kind, n in tally.items():
                self._counts[kind] = self._counts.get(kind, 0) + n


def _identity(text: str) -> str:
    return text


# Digit runs and words: the pieces a machine-made reason may quote from a value.
_FRAGMENT = re.compile(r"\d+|[^\W\d_]+")


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _custom_kind(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise RedactionConfigError(
            f"redaction pattern name {name!r}: use 1-32 letters, digits or '_', starting with "
            "a letter (it becomes the mask label and a metric label)"
        )
    kind = name.lower()
    if kind in BUILTIN_KINDS or kind == _DROPPED:
        raise RedactionConfigError(
            f"redaction pattern name {name!r} clashes with a built-in kind; choose another name"
        )
    return kind


def _compile(name: str, regex: str) -> re.Pattern[str]:
    try:
        return re.compile(regex)
    except re.error as exc:
        raise RedactionConfigError(
            f"redaction pattern {name!r} is not a valid regular expression: {exc}"
        ) from None


def build_redactor(settings: RedactionSettings) -> PiiRedactor:
    """The redactor described by ``settings``. Raises :class:`RedactionConfigError` at once
    for an invalid pattern, an unknown kind or hash mode without a key."""
    key = settings.hash_key.get_secret_value().encode() if settings.hash_key else None
    lowered = {k.lower() for k in settings.patterns}
    if len(lowered) != len(settings.patterns):
        raise RedactionConfigError("redaction pattern names must differ ignoring case")
    return PiiRedactor(
        mode=settings.mode,
        kinds=[k.strip().lower() for k in settings.kinds if k.strip()],
        patterns=dict(settings.patterns),
        hash_key=key,
    )


class RedactionCollector(Collector):
    """Exports ``groundwatch_redactions_total{kind}`` from a redactor's counts at scrape time.

    Usage::

        registry.register(RedactionCollector(redactor))
    """

    def __init__(self, redactor: PiiRedactor):
        self._redactor = redactor

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = CounterMetricFamily(
            "groundwatch_redactions",
            "Personal-data values redacted before storing or publishing, by kind.",
            labels=["kind"],
        )
        for kind, n in sorted(self._redactor.counts().items()):
            family.add_metric([kind], n)
        yield family
