"""Trace contract v1: what a RAG assistant sends to groundwatch.

Usage::

    trace = decode_trace(raw_bytes, TraceLimits())  # raises TraceDecodeError

Every decoding failure is a :class:`TraceDecodeError` with a bounded ``reason``
(used as a metric label and a DLQ header) and a human-readable ``detail`` that
names the offending field. The same limits apply on every path (HTTP body, batch item,
OTLP, Kafka): :func:`validate_trace` measures the encoded size of an already-parsed trace.

Question, answer, passage texts and cited sentences are normalised when the model is built
(:func:`groundwatch.contract.text.normalize_text`: NFKC, zero-width and control characters
removed), so no judge ever parses ``$1\u200b25`` as ``$1``.
"""

from __future__ import annotations

import json
import math
import time
import unicodedata
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from groundwatch.contract.text import (
    control_characters,
    has_visible_character,
    normalize_text,
    unencodable_path,
)

__all__ = [
    "CONTRACT_VERSION",
    "EARLIEST_TIMESTAMP",
    "MAX_FUTURE_SKEW_S",
    "Citation",
    "ContextPassage",
    "DecodeReason",
    "RagTrace",
    "TraceDecodeError",
    "TraceLimits",
    "check_limits",
    "check_timestamp",
    "decode_trace",
    "encoded_size",
    "parse_json",
    "validate_trace",
]

CONTRACT_VERSION = "v1"

#: Why a message never became a scored trace. ``unprocessable``: it decoded and validated, but
#: processing it failed on its own (a dead-letter reason of the Kafka consumer, never of HTTP).
#: ``timestamp``: a trace time outside :data:`EARLIEST_TIMESTAMP` .. now +
#: :data:`MAX_FUTURE_SKEW_S` (:func:`check_timestamp`).
DecodeReason = Literal["not_utf8", "not_json", "schema", "oversize", "timestamp", "unprocessable"]

#: Earliest trace time accepted (2000-01-01T00:00:00Z): an earlier one is a clock or unit error.
EARLIEST_TIMESTAMP = 946_684_800.0
#: How far past the receiver's clock a trace time may be (clock skew, seconds). The windows
#: count such a trace now and the findings store keeps its finding at now; a trace further
#: ahead is refused on every ingest path (reason ``timestamp``), so it can never sort above
#: every real finding, nor carry a time that cannot be formatted (year 10000 in UTC).
MAX_FUTURE_SKEW_S = 300.0


class TraceDecodeError(ValueError):
    """A message that can never become a trace. Not retriable: it goes to the DLQ."""

    retriable = False

    def __init__(
        self, reason: DecodeReason, detail: str, errors: list[dict[str, Any]] | None = None
    ):
        super().__init__(f"{reason}: {detail}")
        self.reason: DecodeReason = reason
        self.detail = detail
        self.errors: list[dict[str, Any]] = errors or []


class TraceLimits(BaseModel):
    """Size limits applied on ingest; anything larger is rejected with reason ``oversize``."""

    model_config = ConfigDict(frozen=True)

    max_bytes: int = Field(
        default=1_000_000, ge=1, le=1_000_000_000, description="Largest encoded trace, in bytes."
    )
    max_question_chars: int = Field(
        default=8_000, ge=1, le=100_000_000, description="Longest question, in characters."
    )
    max_answer_chars: int = Field(
        default=32_000, ge=1, le=100_000_000, description="Longest answer, in characters."
    )
    max_passage_chars: int = Field(
        default=20_000,
        ge=1,
        le=100_000_000,
        description="Longest retrieved passage, in characters.",
    )
    max_passages: int = Field(
        default=100, ge=0, le=100_000, description="Most passages in one trace."
    )
    max_attributes: int = Field(
        default=64, ge=0, le=100_000, description="Most attributes in one trace."
    )
    max_attribute_key_chars: int = Field(
        default=128, ge=1, le=100_000, description="Longest attribute key, in characters."
    )
    max_attribute_value_chars: int = Field(
        default=1_024, ge=1, le=10_000_000, description="Longest attribute value, in characters."
    )
    max_citations: int = Field(
        default=256, ge=0, le=100_000, description="Most citations in one trace."
    )
    max_citation_ids: int = Field(
        default=32, ge=0, le=100_000, description="Most passage ids cited by one citation."
    )


class ContextPassage(BaseModel):
    """One retrieved passage, in the order it was given to the model."""

    model_config = ConfigDict(extra="allow", str_strip_whitespace=False)

    text: str
    id: str | None = None
    doc_id: str | None = None
    score: float | None = Field(default=None, allow_inf_nan=False)
    rank: int | None = None
    source: str | None = None

    @field_validator("text")
    @classmethod
    def _normal_text(cls, value: str) -> str:
        return normalize_text(value)


class Citation(BaseModel):
    """An answer sentence and the ids (or 0-based indexes, as strings) of the passages it cites."""

    model_config = ConfigDict(extra="forbid")

    sentence: str
    context_ids: list[str] = Field(default_factory=list)

    @field_validator("context_ids", mode="before")
    @classmethod
    def _ids_as_strings(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [str(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in value]
        return value

    @field_validator("sentence")
    @classmethod
    def _normal_sentence(cls, value: str) -> str:
        return normalize_text(value)


def _passage(value: Any) -> Any:
    if isinstance(value, str):
        return {"text": value}
    return value


class RagTrace(BaseModel):
    """Trace contract v1 (see design.md): question, retrieved passages, answer."""

    model_config = ConfigDict(extra="ignore", title="RagTrace")

    trace_id: Annotated[str, Field(min_length=1, max_length=256)]
    timestamp: datetime | None = None
    question: str
    contexts: list[ContextPassage]
    answer: str | None = None
    citations: list[Citation] | None = None
    attributes: dict[str, str] = Field(default_factory=dict)

    @field_validator("trace_id")
    @classmethod
    def _usable_trace_id(cls, value: str) -> str:
        # A trace_id is a metric exemplar, a Redis key and a log field: it must be seen and typed.
        if not has_visible_character(value):
            raise ValueError("must contain a visible character (not only spaces)")
        controls = control_characters(value)
        if controls:
            raise ValueError(f"must not contain control characters ({', '.join(controls[:3])})")
        # U+2028/U+2029 (Zl, Zp) end a line in JavaScript and many log viewers: a forged line.
        breaks = [f"U+{ord(ch):04X}" for ch in value if unicodedata.category(ch) in ("Zl", "Zp")]
        if breaks:
            raise ValueError(f"must not contain line or paragraph separators ({breaks[0]})")
        return value

    @field_validator("question")
    @classmethod
    def _normal_question(cls, value: str) -> str:
        return normalize_text(value)

    @field_validator("answer")
    @classmethod
    def _normal_answer(cls, value: str | None) -> str | None:
        return None if value is None else normalize_text(value)

    @field_validator("contexts", mode="before")
    @classmethod
    def _strings_to_passages(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [_passage(v) for v in value]
        return value

    @field_validator("attributes", mode="before")
    @classmethod
    def _scalar_attributes(cls, value: Any) -> Any:
        # Numbers and booleans are common in attributes; keep them as strings.
        if isinstance(value, dict):
            return {
                k: (str(v).lower() if isinstance(v, bool) else str(v))
                if isinstance(v, int | float | bool)
                else v
                for k, v in value.items()
            }
        return value

    @model_validator(mode="before")
    @classmethod
    def _encodable(cls, data: Any) -> Any:
        # JSON allows lone surrogates ("\\ud800") in any string, ids and extra fields too; they
        # cannot be encoded as UTF-8 when the record, finding or export is written later.
        where = unencodable_path(data)
        if where is not None:
            raise ValueError(f"{where}: text contains an unpaired surrogate (not valid Unicode)")
        return data

    def context_texts(self) -> list[str]:
        return [c.text for c in self.contexts]

    def citation_warnings(self) -> list[str]:
        """One line per cited id that names no passage (neither an ``id`` nor a 0-based index)."""
        if not self.citations:
            return []
        known = {c.id for c in self.contexts if c.id is not None}
        known.update(str(i) for i in range(len(self.contexts)))
        return [
            f"citations.{i}.context_ids: {cid[:64]!r} matches no passage"
            for i, citation in enumerate(self.citations)
            for cid in citation.context_ids
            if cid not in known
        ]


def check_limits(trace: RagTrace, limits: TraceLimits, *, now: float | None = None) -> None:
    """Size limits and the timestamp range (:func:`check_timestamp`): every ingest path calls
    this on a validated trace, so a rejection has the same reason on all of them."""
    check_timestamp(trace.timestamp, time.time() if now is None else now)
    if len(trace.question) > limits.max_question_chars:
        raise TraceDecodeError(
            "oversize", f"question: longer than {limits.max_question_chars} chars"
        )
    if trace.answer is not None and len(trace.answer) > limits.max_answer_chars:
        raise TraceDecodeError("oversize", f"answer: longer than {limits.max_answer_chars} chars")
    if len(trace.contexts) > limits.max_passages:
        raise TraceDecodeError("oversize", f"contexts: more than {limits.max_passages} passages")
    for i, passage in enumerate(trace.contexts):
        if len(passage.text) > limits.max_passage_chars:
            raise TraceDecodeError(
                "oversize", f"contexts.{i}.text: longer than {limits.max_passage_chars} chars"
            )
    _check_attributes(trace.attributes, limits)
    _check_citations(trace.citations or [], limits)


def check_timestamp(value: datetime | None, now: float) -> None:
    """Refuse (reason ``timestamp``) a trace time before :data:`EARLIEST_TIMESTAMP`, more than
    :data:`MAX_FUTURE_SKEW_S` after ``now``, or with no UTC equivalent a datetime can hold
    (``9999-12-31T23:59:59-12:00`` is year 10000 in UTC). Absent: receive time, always fine."""
    if value is None:
        return
    try:
        ts = value.timestamp()
        value.astimezone(UTC)  # an aware time whose UTC date leaves datetime's range
    except (OverflowError, ValueError, OSError):
        ts = -math.inf if value.year < 2000 else math.inf
    if ts < EARLIEST_TIMESTAMP:
        problem = "is before 2000-01-01T00:00:00Z"
    elif not ts <= now + MAX_FUTURE_SKEW_S:
        problem = f"is more than {MAX_FUTURE_SKEW_S:.0f} s ahead of the receiver's clock"
    else:
        return
    raise TraceDecodeError(
        "timestamp",
        f"timestamp: {problem}",
        [{"field": "timestamp", "message": problem, "type": "timestamp_range"}],
    )


def _check_attributes(attributes: dict[str, str], limits: TraceLimits) -> None:
    if len(attributes) > limits.max_attributes:
        raise TraceDecodeError(
            "oversize", f"attributes: more than {limits.max_attributes} attributes"
        )
    for key, value in attributes.items():
        # The key is sender-controlled: name it only by a bounded, printable prefix.
        shown = ascii(key[:32])
        if len(key) > limits.max_attribute_key_chars:
            raise TraceDecodeError(
                "oversize",
                f"attributes.{shown}: key longer than {limits.max_attribute_key_chars} chars",
            )
        if len(value) > limits.max_attribute_value_chars:
            raise TraceDecodeError(
                "oversize",
                f"attributes.{shown}: value longer than {limits.max_attribute_value_chars} chars",
            )


def _check_citations(citations: list[Citation], limits: TraceLimits) -> None:
    if len(citations) > limits.max_citations:
        raise TraceDecodeError("oversize", f"citations: more than {limits.max_citations} citations")
    for i, citation in enumerate(citations):
        if len(citation.context_ids) > limits.max_citation_ids:
            raise TraceDecodeError(
                "oversize",
                f"citations.{i}.context_ids: more than {limits.max_citation_ids} ids",
            )


def _format_errors(exc: ValidationError) -> tuple[str, list[dict[str, Any]]]:
    errors: list[dict[str, Any]] = []
    for err in exc.errors(include_url=False, include_input=False):
        loc = ".".join(str(p) for p in err["loc"]) or "(root)"
        errors.append({"field": loc, "message": err["msg"], "type": err["type"]})
    detail = "; ".join(f"{e['field']}: {e['message']}" for e in errors[:5])
    return detail, errors


def encoded_size(obj: Any) -> int:
    """Bytes of ``obj`` as compact UTF-8 JSON: the size limit of a trace that arrived parsed."""
    try:
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    except (ValueError, RecursionError) as exc:  # an int too long to print; deep nesting
        raise TraceDecodeError("not_json", f"(root): unreadable value: {exc}"[:200]) from None
    return len(text.encode("utf-8", "replace"))


def _check_size(size: int, limits: TraceLimits) -> None:
    if size > limits.max_bytes:
        raise TraceDecodeError("oversize", f"(root): {size} bytes > {limits.max_bytes}")


def validate_trace(obj: Any, limits: TraceLimits, *, size: int | None = None) -> RagTrace:
    """Validate an already-parsed JSON value into a trace.

    ``size`` is the encoded size when the caller knows it; otherwise it is measured, so a
    trace inside a batch or assembled from spans meets the same ``max_bytes`` as a Kafka message.
    """
    _check_size(encoded_size(obj) if size is None else size, limits)
    if not isinstance(obj, dict):
        raise TraceDecodeError(
            "schema",
            "(root): expected a JSON object",
            [{"field": "(root)", "message": "expected object", "type": "type"}],
        )
    try:
        trace = RagTrace.model_validate(obj)
    except ValidationError as exc:
        detail, errors = _format_errors(exc)
        raise TraceDecodeError("schema", detail, errors) from None
    except RecursionError:
        raise TraceDecodeError("not_json", "(root): JSON nested too deeply") from None
    except Exception as exc:  # last resort: no input may escape as another exception type
        raise TraceDecodeError(
            "schema", f"(root): unreadable trace ({type(exc).__name__})"
        ) from None
    check_limits(trace, limits)
    return trace


def parse_json(raw: bytes, where: str = "(root)") -> Any:
    """Parse UTF-8 JSON bytes; total: every failure is a :class:`TraceDecodeError`
    (``not_utf8`` or ``not_json``), never another exception. ``json.loads`` also raises a plain
    ``ValueError`` (an integer literal longer than Python's 4,300-digit conversion limit) and
    ``RecursionError`` (nesting): both are input faults, not crashes."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TraceDecodeError("not_utf8", f"{where}: invalid UTF-8 at byte {exc.start}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TraceDecodeError(
            "not_json", f"{where}: {exc.msg} at line {exc.lineno} column {exc.colno}"[:200]
        ) from None
    except RecursionError:
        raise TraceDecodeError("not_json", f"{where}: JSON nested too deeply") from None
    except ValueError as exc:  # e.g. "Exceeds the limit (4300 digits) for integer string ..."
        raise TraceDecodeError("not_json", f"{where}: unreadable value: {exc}"[:200]) from None


def decode_trace(raw: bytes, limits: TraceLimits) -> RagTrace:
    """Decode one encoded trace (UTF-8 JSON bytes) and validate it."""
    _check_size(len(raw), limits)
    return validate_trace(parse_json(raw), limits, size=len(raw))
