"""Findings (contradicted claims) kept for triage: the in-memory store and the shared
encoding used by every finding store.

Usage::

    store = MemoryFindingStore(settings)
    store.add(findings)                                   # idempotent per trace_id#claim_index
    store.set_label("t-1#0", FindingLabel("wrong", time.time(), "supported"))  # re-label replaces
    to_label = store.sample(20)                           # uniform random, for an unbiased estimate
    page = store.page(limit=50, slice_filter={"tenant": "acme"})
    more = store.page(limit=50, cursor=page.next_cursor)  # newest first, stable under inserts

Order is (ts, key) descending; a cursor is the (ts, key) of the last item returned, so pages
neither repeat nor skip items when new findings arrive between requests.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import dataclasses
import json
import random
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from groundwatch.contract.record import Conflict
from groundwatch.settings import Settings
from groundwatch.state.stores import (
    Finding,
    FindingLabel,
    FindingPage,
    FindingPassage,
    FindingTrace,
)

__all__ = [
    "InvalidCursorError",
    "MemoryFindingStore",
    "decode_cursor",
    "encode_cursor",
    "finding_from_dict",
    "finding_to_dict",
    "label_from_dict",
    "label_to_dict",
    "sample_findings",
]


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


class MemoryFindingStore:
    """Process-local findings, newest first, at most ``findings.max_items`` (oldest dropped).

    Usage: ``MemoryFindingStore(settings).add([finding])``.
    """

    def __init__(self, settings: Settings):
        self.max_items = max(1, settings.findings.max_items)
        self._order: list[tuple[float, str]] = []  # ascending (ts, key)
        self._items: dict[str, Finding] = {}
        self._lock = threading.Lock()

    def ping(self) -> bool:
        return True

    def add(self, findings: Sequence[Finding]) -> int:
        new = 0
        with self._lock:
            for f in findings:
                if f.key in self._items:
                    continue
                entry = (f.ts, f.key)
                if len(self._order) >= self.max_items and entry < self._order[0]:
                    continue  # older than everything kept: it would be dropped at once
                bisect.insort(self._order, entry)
                self._items[f.key] = f
                new += 1
                while len(self._order) > self.max_items:
                    _, old = self._order.pop(0)
                    del self._items[old]
        return new

    def __len__(self) -> int:
        return len(self._order)

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
            end = len(self._order) if after is None else bisect.bisect_left(self._order, after)
            items: list[Finding] = []
            more = False
            total = 0
            for i in range(len(self._order) - 1, -1, -1):
                f = self._items[self._order[i][1]]
                if not all(f.slices.get(k) == v for k, v in wanted.items()):
                    continue
                total += 1
                if i >= end:
                    continue
                if len(items) < limit:
                    items.append(f)
                else:
                    more = True
        next_cursor = encode_cursor(items[-1].ts, items[-1].key) if more and items else None
        return FindingPage(items=items, next_cursor=next_cursor, total=total)

    def set_label(self, key: str, label: FindingLabel) -> Finding | None:
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            labelled = dataclasses.replace(found, label=label)
            self._items[key] = labelled
            return labelled

    def labelled(self) -> list[Finding]:
        with self._lock:
            return [f for f in self._items.values() if f.label is not None]

    def sample(self, n: int, *, slice_filter: dict[str, str] | None = None) -> list[Finding]:
        wanted = dict(slice_filter or {})
        with self._lock:
            matching = [
                f
                for f in self._items.values()
                if all(f.slices.get(k) == v for k, v in wanted.items())
            ]
        return sample_findings(matching, n)


def sample_findings(findings: Sequence[Finding], n: int) -> list[Finding]:
    """Up to ``n`` of ``findings`` drawn uniformly without replacement, newest first. Not for
    secrets: ``random`` is enough for picking what to label."""
    picked = random.sample(list(findings), min(max(0, n), len(findings)))
    return sorted(picked, key=lambda f: (f.ts, f.key), reverse=True)
