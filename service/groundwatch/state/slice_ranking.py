"""Which slice values get their own label: the top-N by recent volume, re-ranked every period,
so a value that stops arriving ages out and early junk cannot squat a label for good.

Time is cut into periods of ``window_s / 4``. Traces are counted per value and period in a
bounded heavy-hitter sketch (Space-Saving: at most ``capacity`` values a period; a new value
past it takes the place of the smallest, inheriting its count, so any value with more than
1/capacity of the volume is always counted). At the first flush of a period the admitted set is
ranked afresh from the four periods before it (the window):

* admitted values of the last period that still have volume are kept (incumbents), the best
  ``top_n`` of them;
* free places go to the other values by volume;
* a value outside then displaces the weakest incumbent only with more than
  :data:`DISPLACE` times its volume (hysteresis: two values of about equal volume do not swap
  labels every period);
* during the period, a value new to the set is admitted at once while fewer than ``top_n``
  are (first come, as before, but only until the next ranking).

A value with no trace in the window has no volume and is not ranked: it ages out within one
window. Bounded: at most ``top_n`` values are admitted in any period, so at most
``top_n x (T / period + 2)`` distinct values of one key become labels over any span ``T``, and
the sketches hold at most ``capacity`` values a period and key.

Usage::

    ranking = MemorySliceRanking(top_n=10, window_s=3600)    # or RedisSliceRanking(client, ...)
    admitted = ranking.flush({"tenant": {"acme": 40, "junk-1": 1}}, time.time())
    admitted["tenant"]                                          # frozenset({"acme", "junk-1"})
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Protocol, cast

from groundwatch.state.stores import StoreUnavailableError

if TYPE_CHECKING:
    from groundwatch.state.redis_store import RedisClient

__all__ = [
    "DISPLACE",
    "PERIODS",
    "MemorySliceRanking",
    "RedisSliceRanking",
    "SliceRanking",
    "rerank",
    "sketch_add",
    "sketch_capacity",
]

#: Periods in one ranking window.
PERIODS = 4
#: A value displaces an admitted one only with more than this many times its volume.
DISPLACE = 1.5


def sketch_capacity(top_n: int) -> int:
    """Values a sketch counts per period and key: enough that the top ``top_n`` are exact
    unless floods of distinct values outnumber them many times over."""
    return max(64, 4 * top_n)


def sketch_add(sketch: dict[str, float], value: str, count: float, capacity: int) -> None:
    """Space-Saving: count ``value``; past ``capacity`` values the smallest (then the first by
    name) gives its place and its count to the newcomer."""
    if value in sketch:
        sketch[value] += count
    elif len(sketch) < capacity:
        sketch[value] = count
    else:
        victim = min(sketch, key=lambda v: (sketch[v], v))
        sketch[value] = sketch.pop(victim) + count


def _by_volume(values: Iterable[str], totals: Mapping[str, float]) -> list[str]:
    return sorted(values, key=lambda v: (-totals[v], v))


def rerank(totals: Mapping[str, float], incumbents: Iterable[str], top_n: int) -> set[str]:
    """The admitted set of a new period from the window's volume ``totals`` (see the module
    docstring); values with no volume are never admitted."""
    was = set(incumbents)
    kept = _by_volume([v for v in was if totals.get(v, 0) > 0], totals)[:top_n]
    challengers = _by_volume([v for v in totals if v not in was and totals[v] > 0], totals)
    chosen = set(kept)
    rest = iter(challengers)
    for value in rest:
        if len(chosen) >= top_n:
            if kept and totals[value] > DISPLACE * totals[kept[-1]]:
                chosen.discard(kept.pop())
                chosen.add(value)
                continue
            break
        chosen.add(value)
    return chosen


class SliceRanking(Protocol):
    """Counts slice values and answers the admitted set per key, shared by every replica that
    uses the same backend. Called by :class:`~groundwatch.state.slices.SliceMapper` about once a
    second, and at once when a new value may take a free place."""

    top_n: int
    period_s: float

    def flush(
        self,
        counts: Mapping[str, Mapping[str, float]],
        now: float,
        counted_at: float | None = None,
    ) -> dict[str, frozenset[str]]:
        """Add ``counts`` (key -> value -> traces since the last flush) to the period of
        ``counted_at`` (default ``now``; counts older than the window are dropped) and return
        the admitted values of every key in ``counts`` for the period of ``now`` (empty counts
        are fine: the answer is then the set as it stands). Raises ``StoreUnavailableError``
        (retriable)."""
        ...


class MemorySliceRanking:
    """The ranking in this process (state=memory).

    Usage: ``MemorySliceRanking(top_n=10, window_s=3600).flush({"tenant": {"a": 3}}, now)``.
    """

    def __init__(self, top_n: int, window_s: float):
        self.top_n = max(0, top_n)
        self.period_s = max(1e-3, window_s / PERIODS)
        self.capacity = sketch_capacity(self.top_n)
        self._lock = threading.Lock()
        self._sketches: dict[str, dict[int, dict[str, float]]] = {}
        self._admitted: dict[str, tuple[int, set[str]]] = {}

    def flush(
        self,
        counts: Mapping[str, Mapping[str, float]],
        now: float,
        counted_at: float | None = None,
    ) -> dict[str, frozenset[str]]:
        epoch = math.floor(now / self.period_s)
        counted = min(
            epoch, math.floor((now if counted_at is None else counted_at) / self.period_s)
        )
        with self._lock:
            return {
                key: self._flush_key(key, values, epoch, counted) for key, values in counts.items()
            }

    def _flush_key(
        self, key: str, counts: Mapping[str, float], epoch: int, counted: int
    ) -> frozenset[str]:
        sketches = self._sketches.setdefault(key, {})
        if counted >= epoch - PERIODS:
            sketch = sketches.setdefault(counted, {})
            for value, n in counts.items():
                sketch_add(sketch, value, n, self.capacity)
        for old in [e for e in sketches if e < epoch - PERIODS]:
            del sketches[old]
        state = self._admitted.get(key)
        if state is None or state[0] != epoch:
            incumbents = state[1] if state is not None and state[0] == epoch - 1 else set()
            totals: dict[str, float] = {}
            for e in range(epoch - PERIODS, epoch):
                for value, n in sketches.get(e, {}).items():
                    totals[value] = totals.get(value, 0.0) + n
            state = (epoch, rerank(totals, incumbents, self.top_n))
            self._admitted[key] = state
        admitted = state[1]
        for value in _by_volume(counts, counts):
            if len(admitted) >= self.top_n:
                break
            admitted.add(value)
        return frozenset(admitted)


# The same ranking for replicas sharing Redis, one atomic script per key. KEYS: the admitted
# set of this period, of the last one, the sketch of the period counted in, then the PERIODS
# sketches of the window. ARGV: top_n, capacity, ttl_ms, DISPLACE, then value, count pairs by volume.
# An admitted set holds "" as well, so that an empty ranking still marks the period as ranked
# ("" is never a slice value: empty values are "unknown").
_FLUSH = """
local top_n = tonumber(ARGV[1])
local cap = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local displace = tonumber(ARGV[4])
local cur = KEYS[3]
for i = 5, #ARGV, 2 do
  local v, c = ARGV[i], tonumber(ARGV[i + 1])
  if redis.call('ZSCORE', cur, v) then
    redis.call('ZINCRBY', cur, c, v)
  elseif redis.call('ZCARD', cur) < cap then
    redis.call('ZADD', cur, c, v)
  else
    local low = redis.call('ZPOPMIN', cur)
    redis.call('ZADD', cur, tonumber(low[2]) + c, v)
  end
end
if #ARGV > 4 then redis.call('PEXPIRE', cur, ttl) end
local adm = KEYS[1]
if redis.call('EXISTS', adm) == 0 then
  local totals, names = {}, {}
  for k = 4, #KEYS do
    local z = redis.call('ZRANGE', KEYS[k], 0, -1, 'WITHSCORES')
    for j = 1, #z, 2 do
      if not totals[z[j]] then names[#names + 1] = z[j]; totals[z[j]] = 0 end
      totals[z[j]] = totals[z[j]] + tonumber(z[j + 1])
    end
  end
  local was = {}
  for _, v in ipairs(redis.call('SMEMBERS', KEYS[2])) do
    if v ~= '' then was[v] = true end
  end
  local kept, challengers = {}, {}
  for _, v in ipairs(names) do
    if totals[v] > 0 then
      if was[v] then kept[#kept + 1] = v else challengers[#challengers + 1] = v end
    end
  end
  local order = function(a, b)
    if totals[a] ~= totals[b] then return totals[a] > totals[b] end
    return a < b
  end
  table.sort(kept, order)
  table.sort(challengers, order)
  while #kept > top_n do table.remove(kept) end
  local chosen, size = {}, 0
  for _, v in ipairs(kept) do chosen[v] = true; size = size + 1 end
  for _, v in ipairs(challengers) do
    if size >= top_n then
      if #kept > 0 and totals[v] > displace * totals[kept[#kept]] then
        chosen[table.remove(kept)] = nil
        chosen[v] = true
      else
        break
      end
    else
      chosen[v] = true
      size = size + 1
    end
  end
  redis.call('SADD', adm, '')
  for v, _ in pairs(chosen) do redis.call('SADD', adm, v) end
  redis.call('PEXPIRE', adm, ttl)
end
for i = 5, #ARGV, 2 do
  if redis.call('SCARD', adm) - 1 >= top_n then break end
  redis.call('SADD', adm, ARGV[i])
end
return redis.call('SMEMBERS', adm)
"""


class RedisSliceRanking:
    """The ranking shared by every replica through Redis (standalone or Cluster: one key's
    sets share the hash tag ``{<prefix>:sl:<key>}``). Keys expire on their own: a period's
    sketch after the window has passed it, an admitted set two periods after its own.

    Usage: ``RedisSliceRanking(client, "gw", top_n=10, window_s=3600).flush(counts, now)``.
    """

    def __init__(self, client: RedisClient, prefix: str, top_n: int, window_s: float):
        self.client = client
        self.prefix = prefix
        self.top_n = max(0, top_n)
        self.period_s = max(1e-3, window_s / PERIODS)
        self.capacity = sketch_capacity(self.top_n)
        self._ttl_ms = max(1000, math.ceil((PERIODS + 2) * self.period_s * 1000))
        self._script = client.register_script(_FLUSH)

    def flush(
        self,
        counts: Mapping[str, Mapping[str, float]],
        now: float,
        counted_at: float | None = None,
    ) -> dict[str, frozenset[str]]:
        import redis

        epoch = math.floor(now / self.period_s)
        counted = min(
            epoch, math.floor((now if counted_at is None else counted_at) / self.period_s)
        )
        out: dict[str, frozenset[str]] = {}
        try:
            for key, values in counts.items():
                recent = values if counted >= epoch - PERIODS else {}
                out[key] = self._flush_key(key, recent, epoch, counted)
        except redis.RedisError as exc:
            raise StoreUnavailableError(
                f"redis slice ranking: {type(exc).__name__}: {exc}"
            ) from exc
        return out

    def _flush_key(
        self, key: str, counts: Mapping[str, float], epoch: int, counted: int
    ) -> frozenset[str]:
        base = f"{self.prefix}:{{{self.prefix}:sl:{key}}}"
        keys = [f"{base}:a:{epoch}", f"{base}:a:{epoch - 1}", f"{base}:c:{counted}"]
        keys += [f"{base}:c:{e}" for e in range(epoch - PERIODS, epoch)]
        args: list[str | float] = [self.top_n, self.capacity, self._ttl_ms, DISPLACE]
        for value in _by_volume(counts, counts):
            args += [value, counts[value]]
        members = cast(list[bytes], self._script(keys=keys, args=args))
        return frozenset(m.decode() for m in members if m)
