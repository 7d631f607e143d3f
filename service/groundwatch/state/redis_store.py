"""Redis-backed window and finding stores, shared by every replica; standalone Redis or Redis
Cluster.

Usage::

    client = redis_client(redis_settings)               # redis.Redis or redis.RedisCluster
    windows = RedisWindowStore(client, window_settings, redis_settings)
    findings = RedisFindingStore(client, findings_settings, redis_settings)
    mapper = SliceMapper(keys, top_n, RedisSliceRanking(client, prefix, top_n, window_s))

Atomicity and idempotency: a batch is applied by a Lua script that, per trace, first claims the
trace and only for new traces adds to the bucket hashes, so two replicas (or a re-delivery)
applying the same trace count it once, and a crash can never leave half of one trace's update.
How a trace is claimed depends on where it came from:

- with no offset (HTTP, OTLP): a dedup marker ``<prefix>:d:<i|e>:<id>`` set with ``SET NX EX
  dedup_ttl_s`` (the re-delivery horizon, a day by default): about 150 bytes a trace;
- from Kafka (a :class:`~groundwatch.state.stores.Delivery`): a 64-bit digest of the id with its
  64-bit offset, 16 bytes, in the partition's offset set ``<prefix>:o:<i|e>:<topic>:<n>`` (a
  string of such records after a format byte: a sorted set would cost about 150 bytes a
  member). The same script first drops
  the records below ``floor - resend_window_offsets`` (the committed offset, less a margin for
  a producer's re-sends): a re-delivery starts at the committed offset, so it always finds its
  records, and the set holds the uncommitted offsets plus the margin, whatever the traffic. It
  expires after ``dedup_ttl_s`` idle.

Every key a script touches is passed in ``KEYS``. Bucket hashes carry an absolute expiry (``EXPIREAT``). Every Redis error surfaces as
:class:`~groundwatch.state.stores.StoreUnavailableError` (retriable).

Keys (prefix ``p`` = ``RedisSettings.key_prefix``), standalone::

    p:w:f:<start>   fine bucket hash      p:w:c:<start>   coarse bucket hash
    p:d:i:<id>      ingest dedup marker   p:d:e:<id>      evaluation dedup marker
                    (<id>: the trace_id within its tenant, ``processing.scoped_id``)
    p:o:i:<t>:<n>   offsets counted of partition n of topic t (ingest; ``o:e``: evaluations)
    p:baseline      pinned baseline (JSON)
    p:{p:sl:<key>}:...                    slice ranking: see groundwatch.state.slice_ranking
    p:f:...                               findings: see groundwatch.state.redis_findings

Redis Cluster (``redis.cluster`` or a ``redis+cluster://`` URL): a script may only touch keys of
one hash slot, so the window keys carry a hash tag ``{p:s<n>}`` with ``n = crc32(trace_id) %
cluster_shards``: one trace's dedup marker (or its partition's offset set for that shard) and all
the bucket hashes it adds to share a slot (``p:{p:s3}:w:f:<start>``, ``p:{p:s3}:d:i:<id>``,
``p:{p:s3}:o:i:<t>:<n>``) and its update stays atomic, while the
shards spread writes over the masters. A batch becomes one script per shard; a read sums
the shards of each bucket. Findings keys share the tag ``{p:f}`` (one slot: the set is
bounded by ``findings.max_items``).
"""

from __future__ import annotations

import hashlib
import json
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast

import redis
from redis.cluster import RedisCluster

from groundwatch.contract.record import EvaluationRecord
from groundwatch.sections.connections import RedisSettings
from groundwatch.sections.windows import WindowSettings
from groundwatch.state.bucket_reader import BucketWindows, RawBucket
from groundwatch.state.buckets import (
    SEP,
    Baseline,
    BucketKey,
    Increments,
    evaluation_increments,
    ingest_increments,
)
from groundwatch.state.redis_findings import RedisFindingStore
from groundwatch.state.stores import Delivery, IngestObservation, StoreUnavailableError

__all__ = ["RedisClient", "RedisFindingStore", "RedisWindowStore", "is_cluster", "redis_client"]

RedisClient = redis.Redis | RedisCluster

# One script per batch (per shard on a cluster): atomic for the batch, idempotent per trace (SET
# NX on its dedup key, or its digest new in its partition's offset set, pruned first), and
# the increments of the new traces are summed per bucket field before HINCRBY, so a batch costs
# one HINCRBY per distinct field instead of one per trace and field. Keys are only taken from
# KEYS (cluster-safe); the payload refers to them by index. A partition's offset set is a string:
# the format byte 0x01, then 16-byte records (the 8 bytes of the digest, the offset as 8 bytes
# big-endian, read back exactly while below 2^53), read into a table, pruned, extended and
# written back once per batch. A set in the earlier format (32 hex characters a record, no
# format byte: an even length) is read as such and written back in this one.
# ARGV[1] = JSON [dedup_ttl, [[dedup_key_index, [[bucket_key_index, expire_at], ...],
#                             [group, ...], {field: increment}(, record_number)], ...],
#                 [[offset_set_index, drop_below_offset or ""], ...]], ARGV[2] = separator,
# ARGV[3] = the batch's records (16 bytes each; record_number n is the n-th).
_UPDATE = """
local p = cjson.decode(ARGV[1])
local sep = ARGV[2]
local recs = ARGV[3] or ''
local acc, exp, out, sets = {}, {}, {}, {}
local function offset_at(s, at)
  local a, b, c, d, e, f, g, h = string.byte(s, at, at + 7)
  return (((a * 256 + b) * 256 + c) * 256 + d) * 4294967296 + (((e * 256 + f) * 256 + g) * 256 + h)
end
local function unhex(x)
  return (string.gsub(x, '..', function(c) return string.char(tonumber(c, 16)) end))
end
for _, z in ipairs(p[3]) do
  local raw = redis.call('GET', KEYS[z[1]]) or ''
  local below = tonumber(z[2])
  local keep, seen = {}, {}
  if #raw % 2 == 1 then
    for at = 2, #raw - 15, 16 do
      if not below or offset_at(raw, at + 8) >= below then
        keep[#keep + 1] = string.sub(raw, at, at + 15)
        seen[string.sub(raw, at, at + 7)] = true
      end
    end
  else
    for at = 1, #raw - 31, 32 do
      local offset = tonumber(string.sub(raw, at + 16, at + 31), 16)
      if not below or offset >= below then
        local digest = unhex(string.sub(raw, at, at + 15))
        local o = offset
        local bytes = {}
        for k = 8, 1, -1 do bytes[k] = o % 256; o = (o - o % 256) / 256 end
        keep[#keep + 1] = digest .. string.char(unpack(bytes))
        seen[digest] = true
      end
    end
  end
  sets[z[1]] = {keep = keep, seen = seen}
end
for i, item in ipairs(p[2]) do
  local new
  if item[5] then
    local set = sets[item[1]]
    local rec = string.sub(recs, item[5] * 16 - 15, item[5] * 16)
    local digest = string.sub(rec, 1, 8)
    new = not set.seen[digest]
    if new then
      set.seen[digest] = true
      set.keep[#set.keep + 1] = rec
    end
  else
    new = redis.call('SET', KEYS[item[1]], '1', 'NX', 'EX', p[1])
  end
  if new then
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
for index, fields in pairs(acc) do
  local key = KEYS[index]
  for name, v in pairs(fields) do
    if string.sub(name, -4) == ':sum' then
      redis.call('HINCRBYFLOAT', key, name, v)
    else
      redis.call('HINCRBY', key, name, v)
    end
  end
  redis.call('EXPIREAT', key, exp[index])
end
for index, set in pairs(sets) do
  redis.call('SET', KEYS[index], '\\1' .. table.concat(set.keep), 'EX', p[1])
end
return out
"""


def _digest(trace_id: str) -> bytes:
    """A trace's member in its partition's offset set: 64 bits (a collision among the few
    thousand members of one set: about 1e-12)."""
    return hashlib.blake2b(trace_id.encode("utf-8", "surrogatepass"), digest_size=8).digest()


def _record(trace_id: str, offset: int) -> bytes:
    """A trace's 16-byte record in its partition's offset set: digest, offset (big-endian)."""
    return _digest(trace_id) + offset.to_bytes(8, "big")


def is_cluster(settings: RedisSettings) -> bool:
    """Whether ``settings`` ask for Redis Cluster (the flag or a ``redis+cluster://`` URL)."""
    url = settings.url.get_secret_value() if settings.url else ""
    return settings.cluster or url.startswith(("redis+cluster://", "rediss+cluster://"))


def redis_client(
    settings: RedisSettings, socket_timeout: float = 5.0, health_check_interval: int = 30
) -> RedisClient:
    """A client for ``settings.url`` with bounded timeouts: ``redis.RedisCluster`` when
    :func:`is_cluster` (the URL names any one node; the others are discovered). Without a URL:
    ``redis://127.0.0.1:6379/0``."""
    url = settings.url.get_secret_value() if settings.url else "redis://127.0.0.1:6379/0"
    if is_cluster(settings):
        return RedisCluster.from_url(
            url.replace("+cluster://", "://", 1),
            socket_timeout=socket_timeout,
            socket_connect_timeout=socket_timeout,
            health_check_interval=health_check_interval,
        )
    return redis.Redis.from_url(
        url,
        socket_timeout=socket_timeout,
        socket_connect_timeout=socket_timeout,
        health_check_interval=health_check_interval,
    )


@contextmanager
def _unavailable(what: str) -> Iterator[None]:
    try:
        yield
    except redis.RedisError as exc:
        raise StoreUnavailableError(f"redis {what}: {type(exc).__name__}: {exc}") from exc


class RedisWindowStore(BucketWindows):
    """Window store in Redis, shared by replicas; see the module docstring for the layout.

    Usage: ``RedisWindowStore(redis_client(rs), windows, rs).observe_ingest([...])``: the
    bucket layout from ``windows``; the key prefix, re-delivery horizon and cluster shards from
    the ``redis`` section ``rs``.
    """

    def __init__(
        self,
        client: RedisClient,
        windows: WindowSettings,
        redis_settings: RedisSettings,
        clock: Callable[[], float] = time.time,
    ):
        self.settings = windows
        self.clock = clock
        self._init_reader()
        self.client = client
        self.prefix = redis_settings.key_prefix
        self._dedup_ttl = max(1, redis_settings.dedup_ttl_s)
        self._resend_window = redis_settings.resend_window_offsets
        self.cluster = isinstance(client, RedisCluster)
        self.shards = redis_settings.cluster_shards if self.cluster else 1
        self._update = client.register_script(_UPDATE)

    def _tag(self, shard: int) -> str:
        return f"{{{self.prefix}:s{shard}}}:" if self.cluster else ""

    def shard_of(self, trace_id: str) -> int:
        """The hash-tag shard of a trace (always 0 on a standalone Redis)."""
        return zlib.crc32(trace_id.encode()) % self.shards if self.shards > 1 else 0

    def _bucket(self, key: BucketKey, shard: int = 0) -> str:
        return f"{self.prefix}:{self._tag(shard)}w:{key[0]}:{key[1]}"

    def ping(self) -> bool:
        try:
            return bool(self.client.ping())
        except redis.RedisError:
            return False

    def observe_ingest(
        self,
        items: Sequence[IngestObservation],
        deliveries: Sequence[Delivery | None] | None = None,
    ) -> list[bool]:
        bins = self.settings.histogram_bins
        return self._apply(
            [("i", o.trace_id, o.ts, ingest_increments(o, bins)) for o in items], deliveries
        )

    def observe_evaluations(
        self,
        items: Sequence[tuple[EvaluationRecord, dict[str, str], float]],
        deliveries: Sequence[Delivery | None] | None = None,
    ) -> list[bool]:
        bins = self.settings.histogram_bins
        return self._apply(
            [("e", r.trace_id, ts, evaluation_increments(r, s, bins)) for r, s, ts in items],
            deliveries,
        )

    def evaluated(self, trace_ids: Sequence[str]) -> list[bool]:
        if not trace_ids:
            return []
        with _unavailable("dedup read"):
            pipe = self.client.pipeline(transaction=False)
            for trace_id in trace_ids:
                pipe.exists(f"{self.prefix}:{self._tag(self.shard_of(trace_id))}d:e:{trace_id}")
            return [bool(n) for n in cast(list[int], pipe.execute())]

    def _offset_set(self, kind: str, delivery: Delivery, shard: int) -> str:
        """The record of the digests counted from one partition (per shard on a cluster)."""
        return f"{self.prefix}:{self._tag(shard)}o:{kind}:{delivery.topic}:{delivery.partition}"

    def _drop_below(self, deliveries: Sequence[Delivery]) -> str:
        """Offsets below this may be forgotten ("" = none): the committed offset less the
        re-send margin. Never above an offset of this batch: a delivery below the floor means
        the log was reset (a broker that lost its data), and then nothing is forgotten."""
        floors = [d.floor for d in deliveries]
        known = [f for f in floors if f is not None]
        if not deliveries or len(known) < len(floors):
            return ""
        floor = min(*known, *(d.offset for d in deliveries))
        below = floor - self._resend_window
        return str(below) if below > 0 else ""

    def _apply(
        self,
        updates: Sequence[tuple[str, str, float, Increments]],
        deliveries: Sequence[Delivery | None] | None = None,
    ) -> list[bool]:
        if not updates:
            return []
        if deliveries is not None and len(deliveries) != len(updates):
            raise ValueError("deliveries must be parallel to the items")
        now = self.now()
        by_shard: dict[int, list[int]] = {}
        for i, (_, trace_id, _, _) in enumerate(updates):
            by_shard.setdefault(self.shard_of(trace_id), []).append(i)
        out = [False] * len(updates)
        for shard, positions in by_shard.items():
            index: dict[str, int] = {}  # key -> its 1-based position in KEYS
            items: list[list[Any]] = []
            records = bytearray()  # ARGV[3]: the offset records, 16 bytes each
            by_set: dict[int, list[Delivery]] = {}
            for pos in positions:
                kind, trace_id, ts, (groups, fields) = updates[pos]
                targets = [
                    [index.setdefault(self._bucket(k, shard), len(index) + 1), int(exp)]
                    for k, exp in self._targets(ts, now)
                ]
                delivery = deliveries[pos] if deliveries is not None else None
                if delivery is None:
                    dedup = f"{self.prefix}:{self._tag(shard)}d:{kind}:{trace_id}"
                    items.append([index.setdefault(dedup, len(index) + 1), targets, groups, fields])
                    continue
                at = index.setdefault(self._offset_set(kind, delivery, shard), len(index) + 1)
                by_set.setdefault(at, []).append(delivery)
                records += _record(trace_id, delivery.offset)
                items.append([at, targets, groups, fields, len(records) // 16])
            keys = list(index)
            prune = [[at, self._drop_below(ds)] for at, ds in by_set.items()]
            payload = json.dumps([self._dedup_ttl, items, prune], separators=(",", ":"))
            args: list[str | bytes] = [payload, SEP, bytes(records)]
            with _unavailable("window update"):
                results = cast(list[int], self._update(keys=keys, args=args))
            for pos, result in zip(positions, results, strict=True):
                out[pos] = bool(result)
        return out

    def _fetch(self, keys: Sequence[BucketKey]) -> dict[BucketKey, RawBucket]:
        with _unavailable("window read"):
            pipe = self.client.pipeline(transaction=False)
            for key in keys:
                for shard in range(self.shards):
                    pipe.hgetall(self._bucket(key, shard))
            raw = cast(list[dict[bytes, bytes]], pipe.execute())
        out: dict[BucketKey, RawBucket] = {}
        for i, key in enumerate(keys):
            parts = [data for data in raw[i * self.shards : (i + 1) * self.shards] if data]
            if len(parts) == 1:
                out[key] = parts[0]
            elif parts:
                merged: dict[str, float] = {}
                for data in parts:
                    for name, value in data.items():
                        text = name.decode()
                        merged[text] = merged.get(text, 0.0) + float(value)
                out[key] = merged
        return out

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
