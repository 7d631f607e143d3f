"""HTTP framing rules the server enforces before any route: no ambiguous body length, and
``HEAD`` wherever ``GET`` is served.

Usage::

    app.add_middleware(WireRules)     # outside the body limits, inside the OTLP error bodies

- A request with both ``Content-Length`` and ``Transfer-Encoding`` is answered **400** with
  ``Connection: close``, and the connection is closed after it. Front proxies and this server
  could disagree on where such a body ends, so whatever follows it on the connection (a request
  smuggled behind it) is never read (RFC 9112, section 6.3: a server MAY reject such a message,
  and must close the connection after responding when it does not).
- ``HEAD`` is served by the ``GET`` route of the same path, with the same status and headers
  (``Content-Length`` included) and no body (RFC 9110, section 9.3.2). Routes are declared
  with GET only; FastAPI would answer 405.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from groundwatch.api.errors import error_response

__all__ = ["WireRules"]


class WireRules:
    """ASGI middleware: 400 + close for Content-Length with Transfer-Encoding; HEAD as GET."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        names = {name.lower() for name, _ in scope.get("headers", [])}
        if b"content-length" in names and b"transfer-encoding" in names:
            response = error_response(
                400,
                "ambiguous_length",
                "(headers): Content-Length and Transfer-Encoding together; send one of them",
                headers={"Connection": "close"},  # the server closes after this answer
            )
            await response(scope, receive, send)
            return
        if scope.get("method") != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)
