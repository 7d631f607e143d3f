"""Findings (contradicted claims) kept for triage: the in-memory store and the shared
encoding used by every finding store.

Usage::

    store = MemoryFindingStore(FindingsSettings(max_items=10_000))
    store.add(findings)                                   # idempotent per trace_id#claim_index
    store.set_label("t-1#0", FindingLabel("wrong", time.time(), "supported"))  # re-label replaces
    to_label = store.sample(20)                           # uniform random, for an unbiased estimate
    page = store.page(limit=50, slice_filter={"tenant": "acme"})
    more = store.page(limit=50, cursor=page.next_cursor)  # newest first, stable under inserts
    counts = store.label_counts()                         # O(series): the precision figures

Order is (ts, key) descending; a cursor is the (ts, key) of the last item returned, so pages
neither repeat nor skip items when new findings arrive between requests.

Every store bounds trace times the way the windows do (:func:`kept_ts`: up to
``MAX_FUTURE_SKEW_S`` ahead is kept at now, further ahead is refused) and, when full, drops
the finding it *received* first, never the one with the oldest trace time: a forged time can
neither push real findings out nor make a late (replayed) finding be refused on arrival.
Slice filters read per-slice indexes; two or more examine only the smallest one's findings.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import dataclasses
import json
import logging
import math
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from groundwatch.contract.record import Conflict
from groundwatch.contract.trace import MAX_FUTURE_SKEW_S
from groundwatch.sections.windows import FindingsSettings
from groundwatch.state.buckets import ALL
from groundwatch.state.stores import (
    SCOPE_FILTER,
    Finding,
    FindingLabel,
    FindingPage,
    FindingPassage,
    FindingTrace,
    LabelCountKey,
    LabelCounts,
)

__all__ = [
    "InvalidCursorError",
    "MemoryFindingStore",
    "decode_cursor",
    "encode_cursor",
    "finding_from_dict",
    "finding_to_dict",
    "index_pairs",
    "kept_ts",
    "label_count_keys",
    "label_from_dict",
    "label_to_dict",
    "sample_findings",
]

log = logging.getLogger(__name__)


class InvalidCursorError(ValueError):
    """A pagination cursor that this server did not produce. Not retriable."""

    retriable = False


def encode_cursor(ts: float, key: str) -> str:
    raw = json.dumps([ts, key], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[float, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        ts, key = json.loads(raw)
        return float(ts), str(key)
    except (ValueError, TypeError, binascii.Error) as exc:
        raise InvalidCursorError("invalid cursor") from exc


def finding_to_dict(f: Finding) -> dict[str, Any]:
    return {
        "trace_id": f.trace_id,
        "ts": f.ts,
        "claim_index": f.claim_index,
        "claim": f.claim,
        "evidence": f.evidence,
        "context_index": f.context_index,
        "context_id": f.context_id,
        "score": f.score,
        "reason": f.reason,
        "metric_version": f.metric_version,
        "slices": dict(f.slices),
        "trace": None if f.trace is None else _trace_to_dict(f.trace),
        "conflict": None if f.conflict is None else f.conflict.model_dump(),
        "label": None if f.label is None else label_to_dict(f.label),
        "scope": f.scope,
    }


def label_to_dict(label: FindingLabel) -> dict[str, Any]:
    return {
        "label": label.label,
        "ts": label.ts,
        "corrected_verdict": label.corrected_verdict,
        "note": label.note,
    }


def label_from_dict(d: Any) -> FindingLabel | None:
    """The stored label, or None (absent, or not a label this version reads)."""
    if not isinstance(d, Mapping) or not d.get("label"):
        return None
    return FindingLabel(
        label=str(d["label"]),
        ts=float(d.get("ts") or 0.0),
        corrected_verdict=_opt(d.get("corrected_verdict")),
        note=_opt(d.get("note")),
    )


def _trace_to_dict(t: FindingTrace) -> dict[str, Any]:
    return {
        "question": t.question,
        "answer": t.answer,
        "passages": [
            {"index": p.index, "text": p.text, "id": p.id, "doc_id": p.doc_id} for p in t.passages
        ],
        "truncated": t.truncated,
    }


def _opt(value: Any) -> str | None:
    return None if value is None else str(value)


def _trace_from_dict(d: Any) -> FindingTrace | None:
    """The stored trace text, or None (absent: stored before it was kept, or drop_text)."""
    if not isinstance(d, Mapping):
        return None
    return FindingTrace(
        question=str(d.get("question") or ""),
        answer=_opt(d.get("answer")),
        passages=tuple(
            FindingPassage(
                index=int(p["index"]),
                text=str(p["text"]),
                id=_opt(p.get("id")),
                doc_id=_opt(p.get("doc_id")),
            )
            for p in d.get("passages") or ()
        ),
        truncated=bool(d.get("truncated")),
    )


def _conflict_from_dict(d: Any) -> Conflict | None:
    """The stored conflict, or None (absent: stored before conflicts were kept, or unreadable)."""
    if not isinstance(d, Mapping):
        return None
    try:
        return Conflict.model_validate(d)
    except ValidationError:
        return None


def finding_from_dict(d: Mapping[str, Any]) -> Finding:
    slices = d.get("slices") or {}
    return Finding(
        trace_id=str(d["trace_id"]),
        ts=float(d["ts"]),
        claim_index=int(d["claim_index"]),
        claim=str(d["claim"]),
        evidence=None if d.get("evidence") is None else str(d["evidence"]),
        context_index=None if d.get("context_index") is None else int(d["context_index"]),
        context_id=None if d.get("context_id") is None else str(d["context_id"]),
        score=float(d["score"]),
        reason=None if d.get("reason") is None else str(d["reason"]),
        metric_version=str(d["metric_version"]),
        slices={str(k): str(v) for k, v in dict(slices).items()},
        trace=_trace_from_dict(d.get("trace")),
        conflict=_conflict_from_dict(d.get("conflict")),
        label=label_from_dict(d.get("label")),
        scope=str(d.get("scope") or ""),
    )


def kept_ts(ts: float, now: float) -> float | None:
    """The time a finding is kept at: its trace time, at most ``now`` (clock skew: the windows
    count such a trace now too); None (refused) when it lies more than
    :data:`~groundwatch.contract.trace.MAX_FUTURE_SKEW_S` ahead, or is not a number. Ingest
    refuses such traces already; this guards what reaches a store by any other way."""
    if not math.isfinite(ts) or ts > now + MAX_FUTURE_SKEW_S:
        return None
    return min(ts, now)


def index_pairs(f: Finding) -> list[tuple[str, str]]:
    """The (key, value) pairs a finding is indexed under: its slices, and its scope under
    :data:`~groundwatch.state.stores.SCOPE_FILTER` when it has one."""
    pairs = sorted(f.slices.items())
    return [*pairs, (SCOPE_FILTER, f.scope)] if f.scope else pairs


def label_count_keys(f: Finding) -> list[LabelCountKey]:
    """The :data:`~groundwatch.state.stores.LabelCounts` entries one labelled finding adds to
    (``all``/``all`` and each of its slice pairs); none without a label."""
    if f.label is None:
        return []
    pairs = [ALL, *sorted(f.slices.items())]
    return [(f.metric_version, key, value, f.label.label) for key, value in pairs]


class MemoryFindingStore:
    """Process-local findings, newest first, at most ``findings.max_items``: the finding
    received longest ago is dropped (receive order, so a forged trace time cannot push real
    findings out). Label counts are kept as labels change, so reading them costs O(series).

    Usage: ``MemoryFindingStore(FindingsSettings()).add([finding])``.
    """

    def __init__(self, findings: FindingsSettings, clock: Callable[[], float] = time.time):
        self.max_items = max(1, findings.max_items)
        self.clock = clock
        self._order: list[tuple[float, str]] = []  # ascending (ts, key): pages
        self._items: dict[str, Finding] = {}  # in receive order: eviction drops the first
        self._pairs: dict[tuple[str, str], set[str]] = {}  # slice pair -> keys
        self._counts: Counter[LabelCountKey] = Counter()
        self._lock = threading.Lock()

    def ping(self) -> bool:
        return True

    def add(self, findings: Sequence[Finding]) -> int:
        new = refused = 0
        now = self.clock()
        with self._lock:
            for given in findings:
                if given.key in self._items:
                    continue
                ts = kept_ts(given.ts, now)
                if ts is None:
                    refused += 1
                    continue
                f = given if ts == given.ts else dataclasses.replace(given, ts=ts)
                bisect.insort(self._order, (f.ts, f.key))
                self._items[f.key] = f
                for pair in index_pairs(f):
                    self._pairs.setdefault(pair, set()).add(f.key)
                self._counts.update(label_count_keys(f))
                new += 1
                while len(self._items) > self.max_items:
                    self._drop(next(iter(self._items)))
        if refused:
            log.warning("%d findings refused: trace time too far ahead of this clock", refused)
        return new

    def _drop(self, key: str) -> None:
        f = self._items.pop(key)
        del self._order[bisect.bisect_left(self._order, (f.ts, key))]
        for pair in index_pairs(f):
            keys = self._pairs[pair]
            keys.discard(key)
            if not keys:
                del self._pairs[pair]
        self._count(f, -1)

    def _count(self, f: Finding, sign: int) -> None:
        for entry in label_count_keys(f):
            self._counts[entry] += sign
            if self._counts[entry] <= 0:
                del self._counts[entry]

    def __len__(self) -> int:
        return len(self._order)

    def _matching(self, wanted: dict[str, str]) -> list[tuple[float, str]]:
        """Ascending (ts, key) of the findings in every slice of ``wanted``: examines the keys
        of its smallest slice only (at most ``max_items``, never every finding for two
        filters)."""
        sets = sorted((self._pairs.get(pair, set()) for pair in wanted.items()), key=len)
        smallest, rest = sets[0], sets[1:]
        keys = [k for k in smallest if all(k in s for s in rest)]
        return sorted((self._items[k].ts, k) for k in keys)

    def page(
        self,
        *,
        limit: int = 50,
        cursor: str | None = None,
        slice_filter: dict[str, str] | None = None,
    ) -> FindingPage:
        limit = max(1, min(limit, 1000))
        wanted = dict(slice_filter or {})
        after = decode_cursor(cursor) if cursor else None
        with self._lock:
            order = self._matching(wanted) if wanted else self._order
            end = len(order) if after is None else bisect.bisect_left(order, after)
            items = [self._items[key] for _, key in reversed(order[max(0, end - limit) : end])]
            more = end > limit
            total = len(order)
        next_cursor = encode_cursor(items[-1].ts, items[-1].key) if more and items else None
        return FindingPage(items=items, next_cursor=next_cursor, total=total)

    def set_label(self, key: str, label: FindingLabel) -> Finding | None:
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            labelled = dataclasses.replace(found, label=label)
            self._count(found, -1)
            self._count(labelled, +1)
            self._items[key] = labelled
            return labelled

    def labelled(self) -> list[Finding]:
        with self._lock:
            return [f for f in self._items.values() if f.label is not None]

    def label_counts(self) -> LabelCounts:
        with self._lock:
            return dict(self._counts)

    def sample(self, n: int, *, slice_filter: dict[str, str] | None = None) -> list[Finding]:
        wanted = dict(slice_filter or {})
        with self._lock:
            keys = [k for _, k in self._matching(wanted)] if wanted else list(self._items)
            matching = [self._items[k] for k in keys]
        return sample_findings(matching, n)


def sample_findings(findings: Sequence[Finding], n: int) -> list[Finding]:
    """Up to ``n`` of ``findings`` drawn uniformly without replacement, newest first. Not for
    secrets: ``random`` is enough for picking what to label."""
    picked = random.sample(list(findings), min(max(0, n), len(findings)))
    return sorted(picked, key=lambda f: (f.ts, f.key), reverse=True)
