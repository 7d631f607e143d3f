"""Which replica exports the shared window and drift series: a lease in Redis, so a deployment
exports one copy of them (not one per replica), and another replica takes over within a lease
TTL when the holder dies.

Usage::

    lease = RedisExportLease(client, "gw:lease:windows", ttl_s=15.0)
    lease.start()                 # renews (or tries to take) the lease every ttl_s / 3
    if lease.held(): ...          # at scrape time: no Redis round trip
    lease.stop()                  # at shutdown: hands the lease back, another takes it at once

Why a lease and not a separate ``exporter`` role: the series are computed from the same store
every replica already reads, so any replica can export them; a lease needs no other Deployment,
Service or ServiceMonitor, and fails over by itself, where a dedicated exporter pod is one more
thing to scale, page on and keep alive.

Safety: a holder believes it holds the lease until ``renewed_at + ttl_s`` on its own monotonic
clock, and ``renewed_at`` is taken *before* the renewal is sent, so its belief ends before
Redis expires the key: two replicas never both export (barring clocks that run apart by more
than the margin in a lease TTL). A replica that cannot reach Redis holds nothing.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from typing import Protocol, cast, runtime_checkable

import redis

from groundwatch.state.stores import StoreUnavailableError

__all__ = ["ExportLease", "RedisExportLease", "holder_name"]

log = logging.getLogger(__name__)

# Take the lease when free, extend it when ours; 1 = held. KEYS[1] lease, ARGV holder, ttl ms.
_TAKE_OR_RENEW = """
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not cur then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""

# Delete the lease only when ours (a late release must not drop a successor's lease).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def holder_name() -> str:
    """A name unique to this process: host, pid and a random part (pids repeat across pods)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@runtime_checkable
class ExportLease(Protocol):
    """Whether this replica exports the shared series now. Called at every scrape: cheap."""

    def held(self) -> bool: ...

    def reachable(self) -> bool:
        """Whether the last attempt to take or renew reached the store."""
        ...


class RedisExportLease:
    """The export lease in Redis (standalone or Cluster: one key).

    Usage: ``lease = RedisExportLease(client, f"{prefix}:lease:windows", 15.0); lease.start()``.
    """

    def __init__(
        self,
        client: redis.Redis | redis.RedisCluster,
        key: str,
        ttl_s: float,
        holder: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.key = key
        self.ttl_s = ttl_s
        self.holder = holder or holder_name()
        self.clock = clock
        self._until = 0.0  # our belief: held until then (clock)
        self._reachable = True
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._take = client.register_script(_TAKE_OR_RENEW)
        self._release = client.register_script(_RELEASE)

    def renew(self) -> bool:
        """One round trip: take the lease when free, extend it when ours. Raises
        :class:`StoreUnavailableError` (and holds nothing) when Redis cannot be reached."""
        started = self.clock()
        try:
            won = bool(self._take(keys=[self.key], args=[self.holder, int(self.ttl_s * 1000)]))
        except redis.RedisError as exc:
            with self._lock:
                self._until, self._reachable = 0.0, False
            raise StoreUnavailableError(f"redis export lease: {type(exc).__name__}") from exc
        with self._lock:
            was = self._until > started
            self._until = started + self.ttl_s if won else 0.0
            self._reachable = True
        if won and not was:
            log.info("this replica now exports the window series (lease %s)", self.key)
        return won

    def held(self) -> bool:
        with self._lock:
            return self.clock() < self._until

    def reachable(self) -> bool:
        with self._lock:
            return self._reachable

    def start(self) -> None:
        """Renew every ``ttl_s / 3`` in a daemon thread until :meth:`stop`."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="gw-export-lease", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                self.renew()
            except StoreUnavailableError as exc:
                log.debug("export lease: %s", exc)
            if self._stop.wait(self.ttl_s / 3):
                return

    def stop(self) -> None:
        """Stop renewing and hand the lease back (when ours), so another replica takes over at
        its next renewal instead of after the TTL."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
        with self._lock:
            self._until = 0.0
        try:
            cast(int, self._release(keys=[self.key], args=[self.holder]))
        except redis.RedisError as exc:  # the lease expires by itself
            log.debug("export lease release: %s", exc)
