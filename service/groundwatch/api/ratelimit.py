"""Per-client request rate on the HTTP API: one token bucket per API token (or per client IP
when the request carries no accepted token), a bounded number of buckets, 429 with Retry-After.

Usage::

    limiter = TokenBucketLimiter(rate_per_s=50, burst=100)
    wait = limiter.acquire(key)      # 0.0 = allowed, else seconds until a request is allowed
    limiter.check(request, token)    # raises HTTPException(429) when over the rate
    @app.get("/x", dependencies=[Depends(limiter)])   # standalone dependency, keyed by client IP

:class:`~groundwatch.api.security.SecurityGuard` calls :meth:`TokenBucketLimiter.check` after
authentication, so every guarded endpoint is rate limited without wiring of its own. Keys are
a SHA-256 of the token, never the token itself. Client IPs are taken from the connection
(``X-Forwarded-For`` is not trusted: behind a proxy, give each client its own token).
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from fastapi import HTTPException, Request

__all__ = ["TokenBucketLimiter", "client_key"]


def client_key(request: Request, token: str | None) -> str:
    """The bucket key of a request: a hash of its token, else its client address."""
    if token:
        return "t:" + hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()[:32]
    host = request.client.host if request.client else "unknown"
    return "ip:" + host


class TokenBucketLimiter:
    """Token buckets keyed by client, least recently used evicted beyond ``max_keys``.

    A bucket holds at most ``burst`` requests and refills at ``rate_per_s``; ``rate_per_s <= 0``
    turns limiting off. Thread-safe (sync endpoints run in a thread pool).

    Usage::

        limiter = TokenBucketLimiter(rate_per_s=5, burst=10, max_keys=10_000)
        if limiter.acquire("ip:10.0.0.1") > 0: ...   # over the rate
    """

    def __init__(
        self,
        rate_per_s: float,
        burst: int,
        *,
        max_keys: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.rate = float(rate_per_s)
        self.burst = max(1, int(burst))
        self.max_keys = max(1, int(max_keys))
        self._clock = clock
        self._lock = threading.Lock()
        # key -> (tokens left, time of last refill); ordered oldest use first
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self.limited = 0  # requests refused so far

    @property
    def enabled(self) -> bool:
        return self.rate > 0 and math.isfinite(self.rate)

    def __len__(self) -> int:
        with self._lock:
            return len(self._buckets)

    def acquire(self, key: str, cost: float = 1.0) -> float:
        """Take ``cost`` from ``key``'s bucket. Returns 0.0 when allowed, else the seconds to
        wait until it would be (nothing is taken then)."""
        if not self.enabled:
            return 0.0
        now = self._clock()
        with self._lock:
            tokens, last = self._buckets.pop(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + max(0.0, now - last) * self.rate)
            if tokens >= cost:
                self._buckets[key] = (tokens - cost, now)
                wait = 0.0
            else:
                self._buckets[key] = (tokens, now)
                wait = (cost - tokens) / self.rate
                self.limited += 1
            while len(self._buckets) > self.max_keys:
                # An evicted client restarts with a full bucket: bounded memory beats exactness.
                self._buckets.popitem(last=False)
        return wait

    def __call__(self, request: Request) -> None:
        """FastAPI dependency keyed by client IP (an unverified token is no identity: keying by
        it would let a client dodge the limit with made-up tokens)."""
        self.check(request, None)

    def check(self, request: Request, token: str | None) -> None:
        """Charge the bucket of ``token`` (already verified by the caller) or, without one, of
        the client IP. Raises ``HTTPException(429)`` with ``Retry-After`` when over the rate."""
        wait = self.acquire(client_key(request, token))
        if wait > 0:
            raise HTTPException(
                429,
                "rate limit exceeded; retry later",
                headers={"Retry-After": str(max(1, math.ceil(wait)))},
            )
