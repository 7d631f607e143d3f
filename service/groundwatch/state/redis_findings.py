"""Findings in Redis, shared by every replica; standalone Redis or Redis Cluster.

Usage::

    findings = RedisFindingStore(redis_client(redis_settings), findings_settings, redis_settings)
    findings.add([finding])                       # idempotent per finding key
    findings.page(limit=50, slice_filter={"tenant": "acme", "intent": "billing"})
    findings.label_counts()                       # O(series): what /metrics reads

Keys (prefix ``p`` = ``RedisSettings.key_prefix``; on a cluster every key carries the hash tag
``{p:f}``, one slot, so each script below stays atomic; the set is bounded by
``findings.max_items``)::

    p:f:data              hash: finding key -> JSON
    p:f:idx               zset by trace time (ts): newest-first pages and their cursors
    p:f:idx:<k>=<v>       zset by ts per slice pair (and ``~scope=<scope>``): filtered pages
    p:f:recv              zset by receive rank (the highest + 1): what is dropped first
    p:f:labels            hash: finding key -> label JSON (trimmed with its finding)
    p:f:lc                hash: label counts per (version, slice key, value, label), JSON
                          array field names, plus ``~built``; kept by the same scripts
    p:f:q:<random>        a two-filter intersection, deleted after the read (30 s expiry)

Eviction follows receive order, never the trace time: a finding dated 2099 is dropped after
``max_items`` later arrivals like any other, and a new finding is never refused as "older than
everything kept". Findings stored before receive order was kept rank, once, by trace time
before every newer arrival (the add script migrates them).

Label counts are updated by the add (trim) and label scripts, so a scrape reads one small hash
(O(series)) instead of every labelled finding. A store whose count hash is missing (written by
an older version, or evicted) rebuilds it once from the labels, in one script.

Two or more slice filters intersect their indexes inside Redis (``ZINTERSTORE``: at most
``filters × size of the smallest index`` ≤ ``filters × findings.max_items`` steps, no finding
is read that is not on the page); one filter reads its own index. Every Redis error surfaces as
:class:`~groundwatch.state.stores.StoreUnavailableError` (retriable).
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast

import redis
from redis.cluster import RedisCluster

from groundwatch.sections.connections import RedisSettings
from groundwatch.sections.windows import FindingsSettings
from groundwatch.state.findings import (
    decode_cursor,
    encode_cursor,
    finding_from_dict,
    finding_to_dict,
    index_pairs,
    kept_ts,
    label_to_dict,
    sample_findings,
)
from groundwatch.state.stores import (
    SCOPE_FILTER,
    Finding,
    FindingLabel,
    FindingPage,
    LabelCounts,
    StoreUnavailableError,
)

__all__ = ["QUERY_TTL_S", "RedisFindingStore"]

log = logging.getLogger(__name__)

#: Expiry of a two-filter intersection key: deleted after the read, this only bounds what a
#: reader that died mid-request leaves behind.
QUERY_TTL_S = 30

_BUILT = "~built"

# count(hash, finding, label, sign): add sign to the label counts of a finding (all/all and
# each slice pair); a count that reaches 0 is deleted. Field: JSON [version, key, value, label].
_COUNT = """
local function count(h, item, label, sign)
  local fields = {cjson.encode({item['metric_version'], 'all', 'all', label})}
  for k, v in pairs(item['slices']) do
    table.insert(fields, cjson.encode({item['metric_version'], k, v, label}))
  end
  for _, f in ipairs(fields) do
    if redis.call('HINCRBY', h, f, sign) <= 0 then redis.call('HDEL', h, f) end
  end
end
"""

# KEYS: data, idx, labels, recv, counts, one index per slice pair (and the scope) of this
# finding; ARGV: key, ts, json, max_items, index prefix, scope filter key. Trims by receive
# order: the dropped findings leave their slice and scope indexes, their labels and the label
# counts. A re-added finding keeps its label. Findings stored by an older version (no receive
# rank) get one by trace time, below every new rank, and join their scope's index.
_ADD_FINDING = (
    _COUNT
    + """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
local function scope_of(raw)
  local scope = cjson.decode(raw)['scope']
  if type(scope) == 'string' and scope ~= '' then return ARGV[5] .. ARGV[6] .. '=' .. scope end
end
local kept = redis.call('ZCARD', KEYS[2])
if redis.call('ZCARD', KEYS[4]) < kept then
  local old = redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')
  for i = 1, #old, 2 do
    redis.call('ZADD', KEYS[4], 'NX', (i - 1) / 2 - kept, old[i])
    local raw = redis.call('HGET', KEYS[1], old[i])
    local scope = raw and scope_of(raw)
    if scope then redis.call('ZADD', scope, old[i + 1], old[i]) end
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
local last = redis.call('ZRANGE', KEYS[4], -1, -1, 'WITHSCORES')[2]
redis.call('ZADD', KEYS[4], (last and tonumber(last) or 0) + 1, ARGV[1])
for i = 6, #KEYS do redis.call('ZADD', KEYS[i], ARGV[2], ARGV[1]) end
local extra = redis.call('ZCARD', KEYS[4]) - tonumber(ARGV[4])
if extra > 0 then
  local built = redis.call('HEXISTS', KEYS[5], '~built') == 1
  for _, member in ipairs(redis.call('ZRANGE', KEYS[4], 0, extra - 1)) do
    local raw = redis.call('HGET', KEYS[1], member)
    if raw then
      local item = cjson.decode(raw)
      for k, v in pairs(item['slices']) do redis.call('ZREM', ARGV[5] .. k .. '=' .. v, member) end
      local scope = scope_of(raw)
      if scope then redis.call('ZREM', scope, member) end
      local label = redis.call('HGET', KEYS[3], member)
      if built and label then count(KEYS[5], item, cjson.decode(label)['label'], -1) end
    end
    redis.call('HDEL', KEYS[1], member)
    redis.call('HDEL', KEYS[3], member)
    redis.call('ZREM', KEYS[2], member)
    redis.call('ZREM', KEYS[4], member)
  end
end
return 1
"""
)

# KEYS: data, labels, counts; ARGV: finding key, label JSON, label. Labels only a kept finding;
# HSET replaces an earlier label (idempotent), and the counts move from the old label to the new.
_SET_LABEL = (
    _COUNT
    + """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
if redis.call('HEXISTS', KEYS[3], '~built') == 1 then
  local item = cjson.decode(raw)
  local old = redis.call('HGET', KEYS[2], ARGV[1])
  if old then count(KEYS[3], item, cjson.decode(old)['label'], -1) end
  count(KEYS[3], item, ARGV[3], 1)
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
"""
)

# KEYS: data, labels, counts. The counts from scratch (once: a store written before they were
# kept, or a count hash that was evicted); returns the hash.
_REBUILD_COUNTS = (
    _COUNT
    + """
redis.call('DEL', KEYS[3])
for _, member in ipairs(redis.call('HKEYS', KEYS[2])) do
  local raw = redis.call('HGET', KEYS[1], member)
  if raw then
    local label = cjson.decode(redis.call('HGET', KEYS[2], member))['label']
    count(KEYS[3], cjson.decode(raw), label, 1)
  end
end
redis.call('HSET', KEYS[3], '~built', '1')
return redis.call('HGETALL', KEYS[3])
"""
)

# KEYS: the query key, then two or more slice indexes; ARGV: expiry (s). The findings in every
# index, scored by ts; returns how many.
_INTERSECT = """
local args = {'ZINTERSTORE', KEYS[1], #KEYS - 1}
for i = 2, #KEYS do table.insert(args, KEYS[i]) end
table.insert(args, 'AGGREGATE')
table.insert(args, 'MAX')
redis.call(unpack(args))
redis.call('EXPIRE', KEYS[1], ARGV[1])
return redis.call('ZCARD', KEYS[1])
"""


@contextmanager
def _unavailable(what: str) -> Iterator[None]:
    try:
        yield
    except redis.RedisError as exc:
        raise StoreUnavailableError(f"redis {what}: {type(exc).__name__}: {exc}") from exc


class RedisFindingStore:
    """Findings in Redis: a hash of JSON by finding key plus sorted sets by ts (one overall,
    one per slice pair) for newest-first cursor pages, and one by receive order for trimming.
    Bounded by ``findings.max_items``; trimming is part of the same atomic script. See the
    module docstring for the layout.

    Usage: ``RedisFindingStore(client, findings, redis_settings).add(items)``: the bound from
    ``findings``, the key prefix from the ``redis`` section.
    """

    def __init__(
        self,
        client: redis.Redis | RedisCluster,
        findings: FindingsSettings,
        redis_settings: RedisSettings,
        clock: Callable[[], float] = time.time,
    ):
        self.client = client
        self.clock = clock
        self.prefix = redis_settings.key_prefix
        self.max_items = max(1, findings.max_items)
        self.cluster = isinstance(client, RedisCluster)
        self._add = client.register_script(_ADD_FINDING)
        self._label = client.register_script(_SET_LABEL)
        self._rebuild = client.register_script(_REBUILD_COUNTS)
        self._intersect = client.register_script(_INTERSECT)
        tag = f"{{{self.prefix}:f}}:" if self.cluster else ""
        base = f"{self.prefix}:{tag}f:"
        self._data = base + "data"
        self._idx = base + "idx"
        self._labels = base + "labels"
        self._recv = base + "recv"
        self._counts = base + "lc"
        self._query = base + "q:"

    def ping(self) -> bool:
        try:
            return bool(self.client.ping())
        except redis.RedisError:
            return False

    def add(self, findings: Sequence[Finding]) -> int:
        now = self.clock()
        calls: list[tuple[list[str], list[str | int | float]]] = []
        for f in findings:
            ts = kept_ts(f.ts, now)
            if ts is None:
                continue
            d = finding_to_dict(f)
            d["ts"] = ts
            pairs = [self._pair(k, v) for k, v in index_pairs(f)]
            args: list[str | int | float] = [
                f.key,
                repr(ts),
                json.dumps(d),
                self.max_items,
                f"{self._idx}:",
                SCOPE_FILTER,
            ]
            keys = [self._data, self._idx, self._labels, self._recv, self._counts]
            calls.append(([*keys, *pairs], args))
        if len(calls) < len(findings):
            refused = len(findings) - len(calls)
            log.warning("%d findings refused: trace time too far ahead of this clock", refused)
        if not calls:
            return 0
        with _unavailable("findings add"):
            if self.cluster:  # one slot; a cluster pipeline cannot load a missing script
                return sum(int(self._add(keys=keys, args=args)) for keys, args in calls)
            pipe = self.client.pipeline(transaction=False)
            for keys, args in calls:
                self._add(keys=keys, args=args, client=pipe)
            return sum(int(r) for r in pipe.execute())

    def _pair(self, key: str, value: str) -> str:
        return f"{self._idx}:{key}={value}"

    @contextmanager
    def _index(self, wanted: dict[str, str]) -> Iterator[tuple[str, int]]:
        """The sorted set of the findings matching ``wanted`` and its size: the overall index,
        one slice index, or (two filters or more) their intersection, made in Redis and
        deleted after the read."""
        if not wanted:
            yield self._idx, int(self.client.zcard(self._idx))
            return
        pairs = [self._pair(k, v) for k, v in sorted(wanted.items())]
        if len(pairs) == 1:
            yield pairs[0], int(self.client.zcard(pairs[0]))
            return
        query = self._query + secrets.token_hex(8)
        total = int(self._intersect(keys=[query, *pairs], args=[QUERY_TTL_S]))
        try:
            yield query, total
        finally:
            self.client.delete(query)

    def page(
        self,
        *,
        limit: int = 50,
        cursor: str | None = None,
        slice_filter: dict[str, str] | None = None,
    ) -> FindingPage:
        limit = max(1, min(limit, 1000))
        after = decode_cursor(cursor) if cursor else None
        with _unavailable("findings page"), self._index(dict(slice_filter or {})) as (index, total):
            items = self._scan(index, after, limit + 1)
        more = len(items) > limit
        items = items[:limit]
        next_cursor = encode_cursor(items[-1].ts, items[-1].key) if more and items else None
        return FindingPage(items=items, next_cursor=next_cursor, total=total)

    def _scan(self, index: str, after: tuple[float, str] | None, want: int) -> list[Finding]:
        """Up to ``want`` findings of ``index``, newest first, after the cursor ``after``."""
        out: list[Finding] = []
        top: str = "+inf" if after is None else repr(after[0])
        chunk = max(64, want * 2)
        offset = 0
        while len(out) < want:
            rows = cast(
                list[tuple[bytes, float]],
                self.client.zrevrangebyscore(
                    index, top, "-inf", start=offset, num=chunk, withscores=True
                ),
            )
            if not rows:
                break
            offset += len(rows)
            members = [
                m.decode()
                for m, score in rows
                if after is None or score < after[0] or m.decode() < after[1]
            ]
            out.extend(self._load(members[: want - len(out)]))
        return out

    def _load(self, members: list[str]) -> list[Finding]:
        """The findings ``members`` that are still kept, with their labels, in that order."""
        if not members:
            return []
        raw = cast(list[bytes | None], self.client.hmget(self._data, members))
        labels = cast(list[bytes | None], self.client.hmget(self._labels, members))
        out: list[Finding] = []
        for data, label in zip(raw, labels, strict=True):
            if data is None:
                continue
            d = cast(dict[str, Any], json.loads(data))
            if label is not None:
                d["label"] = json.loads(label)
            out.append(finding_from_dict(d))
        return out

    def set_label(self, key: str, label: FindingLabel) -> Finding | None:
        with _unavailable("findings label"):
            stored = int(
                self._label(
                    keys=[self._data, self._labels, self._counts],
                    args=[key, json.dumps(label_to_dict(label)), label.label],
                )
            )
            if not stored:
                return None
            found = self._load([key])
        return found[0] if found else None

    def labelled(self) -> list[Finding]:
        with _unavailable("findings labelled"):
            keys = [k.decode() for k in cast(list[bytes], self.client.hkeys(self._labels))]
            return [f for f in self._load(keys) if f.label is not None]

    def label_counts(self) -> LabelCounts:
        with _unavailable("findings label counts"):
            raw = cast(dict[bytes, bytes], self.client.hgetall(self._counts))
            if _BUILT.encode() not in raw:
                keys = [self._data, self._labels, self._counts]
                flat = cast(list[bytes], self._rebuild(keys=keys))
                raw = dict(zip(flat[::2], flat[1::2], strict=True))
        out: LabelCounts = {}
        for field, value in raw.items():
            if field == _BUILT.encode():
                continue
            version, key, slice_value, label = (str(part) for part in json.loads(field))
            out[(version, key, slice_value, label)] = int(value)
        return out

    def sample(self, n: int, *, slice_filter: dict[str, str] | None = None) -> list[Finding]:
        n = max(0, min(n, self.max_items))
        with _unavailable("findings sample"), self._index(dict(slice_filter or {})) as (index, _):
            # ZRANDMEMBER with a positive count: distinct members, uniformly drawn.
            members = cast(list[bytes], self.client.zrandmember(index, n)) if n else []
            return sample_findings(self._load([m.decode() for m in members]), n)
