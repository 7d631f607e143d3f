"""ASGI bounds shared by every route: requests in progress, and request-body bytes in memory.

Usage (``create_app`` does this)::

    app.add_middleware(BodyBudget, max_bytes=settings.api.max_inflight_bytes)
    app.add_middleware(InflightLimit, max_inflight=settings.api.max_inflight)

:class:`InflightLimit` answers 503 + ``Retry-After`` past ``max_inflight`` requests at once;
the probes and ``/metrics`` are never counted nor refused, so a busy API still answers its
liveness probe. (Idle connections are the connection cap's business, see ``read_timeouts``.)

:class:`BodyBudget` keeps the request bodies held in memory, all requests together, under
``max_bytes``: a request reserves its declared ``Content-Length`` before a byte is read (it
waits up to ``wait_s`` for room, its unread body held back by TCP, not by us), a chunked one
reserves as its chunks arrive, and the reservation is released when the response is done. A
body that still does not fit gets 503 + ``Retry-After`` before it is read, so N concurrent
large uploads cost at most ``max_bytes`` of raw body, not N bodies. A body larger than the
whole budget can never fit: 413.
"""

from __future__ import annotations

import asyncio
import threading

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from groundwatch.api.errors import error_response

__all__ = ["UNCOUNTED_PATHS", "BodyBudget", "InflightLimit"]

#: Cheap routes that must answer however busy the API is (liveness, readiness, scrapes).
UNCOUNTED_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})


class InflightLimit:
    """ASGI middleware: 503 past ``max_inflight`` requests in progress (probes exempt)."""

    def __init__(self, app: ASGIApp, max_inflight: int):
        self.app = app
        self.max_inflight = max(1, max_inflight)
        self._inflight = 0

    @property
    def inflight(self) -> int:
        return self._inflight

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") in UNCOUNTED_PATHS:
            await self.app(scope, receive, send)
            return
        if self._inflight >= self.max_inflight:  # one event loop: no lock needed
            message = f"more than {self.max_inflight} requests in progress; retry later"
            response = error_response(
                503, "overloaded", message, headers={"Retry-After": "1", "Connection": "close"}
            )
            await response(scope, receive, send)
            return
        self._inflight += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self._inflight -= 1


class _OverBudgetError(Exception):
    pass


class BodyBudget:
    """ASGI middleware: request bodies in memory, all requests together, at most ``max_bytes``."""

    def __init__(self, app: ASGIApp, max_bytes: int, wait_s: float = 10.0):
        self.app = app
        self.max_bytes = max(1, max_bytes)
        self.wait_s = wait_s
        self._reserved = 0
        self._lock = threading.Lock()
        self._freed: asyncio.Event | None = None
        self.peak = 0

    @property
    def reserved(self) -> int:
        return self._reserved

    def _reserve(self, n: int) -> bool:
        with self._lock:
            if n and self._reserved + n > self.max_bytes:
                return False
            self._reserved += n
            self.peak = max(self.peak, self._reserved)
            return True

    def _release(self, n: int) -> None:
        with self._lock:
            self._reserved -= n
        if self._freed is not None:
            self._freed.set()  # wake every waiter; each one tries again
            self._freed = None

    async def _reserve_waiting(self, n: int) -> bool:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.wait_s
        while not self._reserve(n):
            left = deadline - loop.time()
            if left <= 0:
                return False
            if self._freed is None:
                self._freed = asyncio.Event()
            try:
                await asyncio.wait_for(self._freed.wait(), left)
            except TimeoutError:
                return False
        return True

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._refuse(413, scope, receive, send)
            return
        held = declared or 0
        if not await self._reserve_waiting(held):
            await self._refuse(503, scope, receive, send)
            return
        started = False

        async def counted() -> Message:
            nonlocal held
            message = await receive()
            if declared is None and message["type"] == "http.request":
                size = len(message.get("body", b""))
                if not self._reserve(size):
                    raise _OverBudgetError
                held += size
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except _OverBudgetError:
            if started:
                raise
            await self._refuse(503, scope, receive, send)
        finally:
            self._release(held)

    async def _refuse(self, status: int, scope: Scope, receive: Receive, send: Send) -> None:
        if status == 413:
            message = (
                f"(body): request body over {self.max_bytes} bytes, the in-flight body budget "
                "(GROUNDWATCH_API__MAX_INFLIGHT_BYTES)"
            )
            response = error_response(413, "oversize", message)
        else:
            message = (
                "request bodies in progress use the in-flight body budget "
                f"({self.max_bytes} bytes, GROUNDWATCH_API__MAX_INFLIGHT_BYTES); retry later"
            )
            # Closing the connection: the unread body is not drained into memory.
            headers = {"Retry-After": "1", "Connection": "close"}
            response = error_response(503, "overloaded", message, headers=headers)
        await response(scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return max(0, int(value))
            except ValueError:
                return None
    return None
