"""Redis-backed window and finding stores, shared by every replica.

Usage::

    client = redis_client(settings)                     # or redis.Redis.from_url(...)
    windows = RedisWindowStore(client, settings)
    findings = RedisFindingStore(client, settings)
    mapper = SliceMapper(keys, top_n, admit=windows.slice_admitter(top_n))

Atomicity and idempotency: a batch is one Lua script that, per trace, first sets a dedup key
``<prefix>:d:<i|e>:<trace_id>`` with ``SET NX EX dedup_ttl_s`` and only for new traces adds to
the bucket hashes, so two replicas (or a re-delivery) applying the same trace count it once, and
a crash can never leave half an update. (Keys are computed inside the script: use a standalone
or replicated Redis, not Redis Cluster.) Bucket hashes carry an absolute expiry (``EXPIREAT``).
Every Redis error surfaces as :class:`~groundwatch.state.stores.StoreUnavailableError` (retriable).

Keys (prefix ``p`` = ``RedisSettings.key_prefix``)::

    p:w:f:<start>   fine bucket hash      p:w:c:<start>   coarse bucket hash
    p:d:i:<id>      ingest dedup marker   p:d:e:<id>      evaluation dedup marker
    p:slices:<key>  admitted slice values p:baseline      pinned baseline (JSON)
    p:f:data / p:f:idx / p:f:idx:<k>=<v>  findings (hash, zsets by ts)
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast

import redis

from groundwatch.contract.record import EvaluationRecord
from groundwatch.settings import Settings
from groundwatch.state.bucket_reader import BucketWindows, RawBucket
from groundwatch.state.buckets import (
    SEP,
    Baseline,
    BucketKey,
    Increments,
    evaluation_increments,
    ingest_increments,
)
from groundwatch.state.findings import (
    decode_cursor,
    encode_cursor,
    finding_from_dict,
    finding_to_dict,
)
from groundwatch.state.stores import (
    Finding,
    FindingPage,
    IngestObservation,
    StoreUnavailableError,
)

__all__ = ["RedisFindingStore", "RedisWindowStore", "redis_client"]

# One script per batch: atomic for the batch, idempotent per trace (SET NX on its dedup key),
# and the increments of the new traces are summed per bucket field before HINCRBY, so a batch
# costs one HINCRBY per distinct field instead of one per trace and field.
# ARGV[1] = JSON [dedup_ttl, [[dedup_key, [[bucket_key, expire_at], ...], [group, ...],
#                             {field: increment}], ...]], ARGV[2] = separator.
_UPDATE = """
local p = cjson.decode(ARGV[1])
local sep = ARGV[2]
local acc, exp, out = {}, {}, {}
for i, item in ipairs(p[2]) do
  if redis.call('SET', item[1], '1', 'NX', 'EX', p[1]) then
    out[i] = 1
    for _, t in ipairs(item[2]) do
      local b = acc[t[1]]
      if not b then b = {}; acc[t[1]] = b; exp[t[1]] = t[2] end
      for _, g in ipairs(item[3]) do
        for f, v in pairs(item[4]) do
          local name = g .. sep .. f
          b[name] = (b[name] or 0) + v
        end
      end
    end
  else
    out[i] = 0
  end
end
for key, fields in pairs(acc) do
  for name, v in pairs(fields) do
    if string.sub(name, -4) == ':sum' then
      redis.call('HINCRBYFLOAT', key, name, v)
    else
      redis.call('HINCRBY', key, name, v)
    end
  end
  redis.call('EXPIREAT', key, exp[key])
end
return out
"""

_ADMIT = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
return 1
"""

# KEYS: data hash, global index; ARGV: key, ts, json, max_items, index prefix, n slice pairs...
_ADD_FINDING = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[3]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
for i = 6, #ARGV do redis.call('ZADD', ARGV[5] .. ARGV[i], ARGV[2], ARGV[1]) end
local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if extra > 0 then
  local old = redis.call('ZRANGE', KEYS[2], 0, extra - 1)
  for _, member in ipairs(old) do
    local raw = redis.call('HGET', KEYS[1], member)
    if raw then
      local item = cjson.decode(raw)
      for k, v in pairs(item['slices']) do redis.call('ZREM', ARGV[5] .. k .. '=' .. v, member) end
    end
    redis.call('HDEL', KEYS[1], member)
    redis.call('ZREM', KEYS[2], member)
  end
end
return 1
"""


def redis_client(settings: Settings, socket_timeout: float = 5.0) -> redis.Redis:
    """A client for ``settings.redis.url`` with bounded timeouts."""
    if settings.redis.url is None:
        raise ValueError("redis.url is not set")
    return redis.Redis.from_url(
        settings.redis.url.get_secret_value(),
        socket_timeout=socket_timeout,
        socket_connect_timeout=socket_timeout,
        health_check_interval=30,
    )


@contextmanager
def _unavailable(what: str) -> Iterator[None]:
    try:
        yield
    except redis.RedisError as exc:
        raise StoreUnavailableError(f"redis {what}: {type(exc).__name__}: {exc}") from exc


class RedisWindowStore(BucketWindows):
    """Window store in Redis, shared by replicas; see the module docstring for the layout.

    Usage: ``RedisWindowStore(redis.Redis.from_url(url), settings).observe_ingest([...])``.
    """

    def __init__(
        self, client: redis.Redis, settings: Settings, clock: Callable[[], float] = time.time
    ):
        self.settings = settings.windows
        self.clock = clock
        self._init_reader()
        self.client = client
        self.prefix = settings.redis.key_prefix
        self._dedup_ttl = max(1, settings.redis.dedup_ttl_s)
        self._update = client.register_script(_UPDATE)
        self._admit = client.register_script(_ADMIT)

    def _bucket(self, key: BucketKey) -> str:
        return f"{self.prefix}:w:{key[0]}:{key[1]}"

    def ping(self) -> bool:
        try:
            return bool(self.client.ping())
        except redis.RedisError:
            return False

    def observe_ingest(self, items: Sequence[IngestObservation]) -> list[bool]:
        bins = self.settings.histogram_bins
        return self._apply([("i", o.trace_id, o.ts, ingest_increments(o, bins)) for o in items])

    def observe_evaluations(
        self, items: Sequence[tuple[EvaluationRecord, dict[str, str], float]]
    ) -> list[bool]:
        bins = self.settings.histogram_bins
        return self._apply(
            [("e", r.trace_id, ts, evaluation_increments(r, s, bins)) for r, s, ts in items]
        )

    def _apply(self, updates: Sequence[tuple[str, str, float, Increments]]) -> list[bool]:
        if not updates:
            return []
        now = self.now()
        items: list[list[Any]] = []
        for kind, trace_id, ts, (groups, fields) in updates:
            targets = [[self._bucket(k), int(exp)] for k, exp in self._targets(ts, now)]
            items.append([f"{self.prefix}:d:{kind}:{trace_id}", targets, groups, fields])
        payload = json.dumps([self._dedup_ttl, items], separators=(",", ":"))
        with _unavailable("window update"):
            results = cast(list[int], self._update(keys=[], args=[payload, SEP]))
        return [bool(r) for r in results]

    def _fetch(self, keys: Sequence[BucketKey]) -> dict[BucketKey, RawBucket]:
        with _unavailable("window read"):
            pipe = self.client.pipeline(transaction=False)
            for key in keys:
                pipe.hgetall(self._bucket(key))
            raw = pipe.execute()
        return {
            key: cast(dict[bytes, bytes], data) for key, data in zip(keys, raw, strict=True) if data
        }

    def admit_slice_value(self, key: str, value: str, top_n: int) -> bool:
        """Cluster-wide: the first ``top_n`` distinct values of a slice key are admitted as
        their own label; later values map to "other" on every replica."""
        with _unavailable("slice admission"):
            return bool(self._admit(keys=[f"{self.prefix}:slices:{key}"], args=[value, top_n]))

    def slice_admitter(self, top_n: int) -> Callable[[str, str], bool]:
        """``admit`` callable for :class:`~groundwatch.state.slices.SliceMapper`."""
        return lambda key, value: self.admit_slice_value(key, value, top_n)

    def load_baseline(self) -> Baseline | None:
        with _unavailable("baseline read"):
            raw = cast(bytes | None, self.client.get(f"{self.prefix}:baseline"))
        return Baseline.from_dict(json.loads(raw)) if raw else None

    def save_baseline(self, baseline: Baseline) -> None:
        with _unavailable("baseline write"):
            self.client.set(f"{self.prefix}:baseline", json.dumps(baseline.to_dict()))

    def delete_baseline(self) -> bool:
        with _unavailable("baseline delete"):
            return bool(self.client.delete(f"{self.prefix}:baseline"))


class RedisFindingStore:
    """Findings in Redis: a hash of JSON by ``trace_id#claim_index`` plus sorted sets by ts
    (one overall, one per slice pair) for newest-first cursor pages. Bounded by
    ``findings.max_items``; trimming the oldest is part of the same atomic script.

    Usage: ``RedisFindingStore(client, settings).add(findings)``.
    """

    def __init__(self, client: redis.Redis, settings: Settings):
        self.client = client
        self.prefix = settings.redis.key_prefix
        self.max_items = max(1, settings.findings.max_items)
        self._add = client.register_script(_ADD_FINDING)
        self._data = f"{self.prefix}:f:data"
        self._idx = f"{self.prefix}:f:idx"

    def ping(self) -> bool:
        try:
            return bool(self.client.ping())
        except redis.RedisError:
            return False

    def add(self, findings: Sequence[Finding]) -> int:
        if not findings:
            return 0
        with _unavailable("findings add"):
            pipe = self.client.pipeline(transaction=False)
            for f in findings:
                pairs = [f"{k}={v}" for k, v in sorted(f.slices.items())]
                args: list[str | int | float] = [
                    f.key,
                    repr(f.ts),
                    json.dumps(finding_to_dict(f)),
                    self.max_items,
                    f"{self._idx}:",
                    *pairs,
                ]
                self._add(keys=[self._data, self._idx], args=args, client=pipe)
            return sum(int(r) for r in pipe.execute())

    def page(
        self,
        *,
        limit: int = 50,
        cursor: str | None = None,
        slice_filter: dict[str, str] | None = None,
    ) -> FindingPage:
        limit = max(1, min(limit, 1000))
        wanted = dict(slice_filter or {})
        index = self._idx
        if wanted:
            k, v = sorted(wanted.items())[0]
            index = f"{self._idx}:{k}={v}"
        after = decode_cursor(cursor) if cursor else None
        with _unavailable("findings page"):
            total = int(self.client.zcard(index)) if len(wanted) <= 1 else -1
            items = self._scan(index, after, limit + 1, wanted)
            if total < 0:
                total = len(self._scan(index, None, self.max_items, wanted))
        more = len(items) > limit
        items = items[:limit]
        next_cursor = encode_cursor(items[-1].ts, items[-1].key) if more and items else None
        return FindingPage(items=items, next_cursor=next_cursor, total=total)

    def _scan(
        self, index: str, after: tuple[float, str] | None, want: int, wanted: dict[str, str]
    ) -> list[Finding]:
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
            raw = (
                cast(list[bytes | None], self.client.hmget(self._data, members)) if members else []
            )
            for data in raw:
                if data is None:
                    continue
                finding = finding_from_dict(cast(dict[str, Any], json.loads(data)))
                if all(finding.slices.get(k) == v for k, v in wanted.items()):
                    out.append(finding)
                    if len(out) >= want:
                        break
        return out
