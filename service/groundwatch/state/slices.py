"""Bounded slice labels: configured attribute keys only, at most top-N values per key, the rest
``"other"``. Label values never carry free text beyond what the operator configured.

Usage::

    mapper = SliceMapper(["tenant", "intent"], top_n=10)
    mapper.slices({"tenant": "acme", "user": "bob"})   # {"tenant": "acme", "intent": "unknown"}
    SliceMapper(["tenant"], 10, scrub=redactor.redact_label,          # PII never becomes a label
                allow={"tenant": r"[a-z]{2,16}"})                     # allow-list: else "other"

A value passes, in order: ``scrub`` (the PII redactor: an e-mail becomes ``[EMAIL]``), the
key's allow-list pattern (a full match, else ``other``), the character clean-up, then top-N.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Mapping

__all__ = ["MISSING", "OTHER", "SliceMapper"]

OTHER = "other"
MISSING = "unknown"
_MAX_VALUE_LEN = 64
_SAFE = re.compile(r"[^A-Za-z0-9_.:/@+\[\]-]")

Admit = Callable[[str, str], bool]


class SliceMapper:
    """Maps trace attributes to bounded slice labels.

    ``admit(key, value)`` decides whether a new value may become its own label (a shared store
    can make replicas agree: the first N distinct values admitted cluster-wide); by default the
    first N values this process sees are admitted. Decisions are cached, bounded by top_n.
    """

    def __init__(
        self,
        keys: Iterable[str],
        top_n: int,
        admit: Admit | None = None,
        *,
        scrub: Callable[[str], str] | None = None,
        allow: Mapping[str, str | re.Pattern[str]] | None = None,
    ):
        self.keys = [k for k in keys if k]
        self.top_n = max(0, top_n)
        self._admit = admit
        self._scrub = scrub
        self._allow = {
            k: re.compile(p) if isinstance(p, str) else p for k, p in (allow or {}).items()
        }
        self._admitted: dict[str, set[str]] = {k: set() for k in self.keys}
        self._rejected: dict[str, set[str]] = {k: set() for k in self.keys}
        self._lock = threading.Lock()

    @staticmethod
    def clean(value: str) -> str:
        return _SAFE.sub("_", value.strip())[:_MAX_VALUE_LEN] or MISSING

    def _label(self, key: str, raw: str | None) -> str:
        if raw is None or not raw.strip():
            return MISSING
        if self._scrub is not None:
            raw = self._scrub(raw)
        pattern = self._allow.get(key)
        if pattern is not None and not pattern.fullmatch(raw.strip()):
            return OTHER
        value = self.clean(raw)
        with self._lock:
            admitted = self._admitted[key]
            if value in admitted:
                return value
            rejected = self._rejected[key]
            if value in rejected:
                return OTHER
            if len(admitted) >= self.top_n:
                if len(rejected) < 4 * self.top_n + 64:
                    rejected.add(value)
                return OTHER
        ok = self._admit(key, value) if self._admit else True
        with self._lock:
            if ok and len(self._admitted[key]) < self.top_n:
                self._admitted[key].add(value)
                return value
            return OTHER

    def slices(self, attributes: dict[str, str]) -> dict[str, str]:
        return {key: self._label(key, attributes.get(key)) for key in self.keys}
