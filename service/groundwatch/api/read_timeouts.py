"""Header and body read timeouts for uvicorn's h11 protocol (uvicorn has neither).

Usage::

    config = uvicorn.Config(app, http=guarded_h11(header_timeout_s=10, body_timeout_s=60))

A connection that has not sent a complete request line and headers within ``header_timeout_s``
(counted from the connect, then from the end of each response on a kept-alive connection) gets
``408 Request Timeout`` and is closed; one that has sent nothing yet is closed quietly (uvicorn's
keep-alive timeout usually closes those first). A request whose body has not fully arrived
within ``body_timeout_s`` after its headers is closed: the application sees
``http.disconnect`` and gives up. Both are total deadlines, not gaps between reads, so a client
trickling one byte a second holds a connection for at most the timeout.

At most ``max_connections`` connections stay open: one more evicts the connection that has
waited longest for a request (nothing in progress on it: kept-alive, or a request line and
headers not yet complete), so a crowd of idle or slow clients never locks out a new one such as
a liveness probe. When every connection has a request in progress the new one is closed.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["guarded_h11"]

log = logging.getLogger(__name__)

_TIMEOUT_BODY = (
    b'{"error":"request_timeout","message":"request headers not received in time","errors":[]}'
)
_REQUEST_TIMEOUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\n"
    + b"content-length: %d\r\n\r\n" % len(_TIMEOUT_BODY)
    + _TIMEOUT_BODY
)


class _GuardedH11Protocol(H11Protocol):
    header_timeout_s: float = 10.0
    body_timeout_s: float = 60.0
    max_connections: int = 1000

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._read_deadline: asyncio.TimerHandle | None = None
        self._reading: str | None = None  # "headers", "body" or None (nothing owed)
        self._waiting_since = 0.0  # when it started waiting for a request (reading headers)

    def _arm(self, phase: str, seconds: float) -> None:
        self._disarm()
        self._reading = phase
        if phase == "headers":
            self._waiting_since = self.loop.time()
        self._read_deadline = self.loop.call_later(seconds, self._read_timed_out, phase)

    def _disarm(self) -> None:
        if self._read_deadline is not None:
            self._read_deadline.cancel()
        self._read_deadline = None
        self._reading = None

    def _follow_state(self) -> None:
        """Arm, switch or cancel the deadline after the client side of h11 moved."""
        if self.transport.is_closing():
            self._disarm()
            return
        state = self.conn.their_state
        if state is h11.IDLE:
            if self._reading != "headers":
                self._arm("headers", self.header_timeout_s)
        elif state is h11.SEND_BODY:
            if self._reading != "body":
                self._arm("body", self.body_timeout_s)
        else:
            self._disarm()

    def _read_timed_out(self, phase: str) -> None:
        self._read_deadline = None
        self._reading = None
        if self.transport.is_closing():
            return
        if phase == "headers" and self.conn.their_state is not h11.IDLE:
            return
        if phase == "body" and self.conn.their_state is not h11.SEND_BODY:
            return
        partial = bool(self.conn.trailing_data[0])
        log.info("closing a connection: request %s not received in time", phase)
        if phase == "headers" and partial and self.conn.our_state is h11.IDLE:
            self.transport.write(_REQUEST_TIMEOUT)
        self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm("headers", self.header_timeout_s)
        if len(self.connections) > self.max_connections:
            self._make_room()

    def _make_room(self) -> None:
        """Close the connection waiting longest for a request; this one if all are busy."""
        waiting = [
            p
            for p in self.connections
            if p is not self
            and isinstance(p, _GuardedH11Protocol)
            and p._reading == "headers"
            and not p.transport.is_closing()
        ]
        if not waiting:
            log.info("closing a new connection: %d open, all busy", len(self.connections))
            self.transport.close()
            return
        oldest = min(waiting, key=lambda p: p._waiting_since)
        log.debug("closing the longest idle connection: over %d open", self.max_connections)
        oldest._disarm()
        oldest.transport.close()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow_state()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow_state()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def guarded_h11(
    header_timeout_s: float, body_timeout_s: float, max_connections: int = 1000
) -> type[H11Protocol]:
    """uvicorn's h11 protocol with header and body read deadlines and a connection cap that
    evicts idle connections (pass as ``http=``)."""
    return type(
        "GuardedH11Protocol",
        (_GuardedH11Protocol,),
        {
            "header_timeout_s": header_timeout_s,
            "body_timeout_s": body_timeout_s,
            "max_connections": max(1, max_connections),
        },
    )
