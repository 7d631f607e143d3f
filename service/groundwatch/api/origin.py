"""Browser-borne requests: DNS rebinding (the ``Host`` allow-list) and cross-site writes
(``Origin`` and the media type of write routes).

Usage::

    app.add_middleware(BrowserGuard, allowed_hosts=[], allowed_origins=[])

A server with no token (the default, bound to loopback) trusts whoever can reach it, and a web
page in the user's browser can reach it too:

- **DNS rebinding**: a page on ``attacker.example`` re-points its name to 127.0.0.1 and reads
  the findings with the browser. The browser still sends ``Host: attacker.example``. So on a
  connection that arrived on a loopback address, only loopback names are served: ``localhost``,
  ``*.localhost`` and IP literals (no DNS name, nothing to rebind), with any port. Anything else
  is **421**. ``allowed_hosts`` adds names (then checked on every connection); ``*`` turns the
  check off. Connections on other addresses are not checked unless names are configured.
- **Cross-site writes**: a page may POST a ``text/plain`` or form body anywhere without asking
  (no CORS preflight). Write routes (POST, PUT, PATCH, DELETE) therefore take only
  ``application/json`` (415 otherwise; the OTLP route checks its own types, also 415), and a
  write carrying an ``Origin`` header must come from the server's own origin or one in
  ``allowed_origins`` (403 otherwise, ``Origin: null`` included). Clients that are not
  browsers send no ``Origin`` and are not affected.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from groundwatch.access import is_loopback_host
from groundwatch.api.errors import error_response

__all__ = ["BrowserGuard", "host_name", "origin_allowed", "otlp_paths"]

_WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


@functools.cache
def otlp_paths() -> frozenset[str]:
    """The OTLP ingest routes (``/v1/traces``, ``/v1/logs``, Langfuse's path): they take
    application/x-protobuf or JSON and answer 415 themselves; none without the OTLP extra."""
    try:
        from groundwatch.api.otlp import OTLP_PATHS
    except ImportError:
        return frozenset()
    return OTLP_PATHS


def host_name(host: str) -> str:
    """The name of a ``Host`` header value, port and IPv6 brackets removed, lower case."""
    value = host.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value[1:]
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def _port_of(host: str) -> int | None:
    value = host.strip()
    tail = value.rsplit("]", 1)[-1] if value.startswith("[") else value
    if tail.count(":") != 1:
        return None
    digits = tail.rsplit(":", 1)[1]
    return int(digits) if digits.isdigit() else None


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def origin_allowed(origin: str, host: str, allowed: Iterable[str]) -> bool:
    """True when ``origin`` is the server's own (same host and port as ``host``) or listed."""
    normalized = origin.strip().rstrip("/").lower()
    if normalized in {a.strip().rstrip("/").lower() for a in allowed}:
        return True
    parts = urlsplit(normalized)
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname or not host:
        return False  # "null" (sandboxed frames, file:) and odd schemes are never same-origin
    try:
        origin_port = parts.port or _DEFAULT_PORTS[parts.scheme]
    except ValueError:
        return False
    host_port = _port_of(host) or _DEFAULT_PORTS[parts.scheme]
    return parts.hostname == host_name(host) and origin_port == host_port


class BrowserGuard:
    """ASGI middleware: 421 for an unexpected ``Host``; on write routes 403 for a foreign
    ``Origin`` and 415 for a body that is not ``application/json``."""

    def __init__(
        self, app: ASGIApp, allowed_hosts: Iterable[str] = (), allowed_origins: Iterable[str] = ()
    ):
        self.app = app
        self.hosts = {host_name(h) for h in allowed_hosts if h.strip()}
        self.any_host = "*" in self.hosts
        self.origins = [o for o in allowed_origins if o.strip()]
        self.own_media_types = otlp_paths()

    def host_ok(self, host: str | None, scope: Scope) -> bool:
        if self.any_host or host is None:  # HTTP/1.0 without Host: no browser sends that
            return True
        name = host_name(host)
        if _is_ip(name) or name in self.hosts:
            return True
        server = scope.get("server")
        if server is not None and is_loopback_host(str(server[0])):
            return name == "localhost" or name.endswith(".localhost")
        return not self.hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {name.lower(): value.decode("latin-1") for name, value in scope["headers"]}
        host = headers.get(b"host")
        if not self.host_ok(host, scope):
            response = error_response(
                421,
                "misdirected_host",
                "(headers): this server does not serve that Host name "
                "(GROUNDWATCH_API__ALLOWED_HOSTS)",
            )
            await response(scope, receive, send)
            return
        if scope.get("method") in _WRITE_METHODS:
            origin = headers.get(b"origin")
            if origin is not None and not origin_allowed(origin, host or "", self.origins):
                response = error_response(
                    403,
                    "origin_refused",
                    "(headers): writes from another site's page are refused "
                    "(GROUNDWATCH_API__ALLOWED_ORIGINS)",
                )
                await response(scope, receive, send)
                return
            media = headers.get(b"content-type", "").split(";", 1)[0].strip().lower()
            if scope.get("path") not in self.own_media_types and media != "application/json":
                shown = media or "none"
                response = error_response(
                    415,
                    "unsupported_media_type",
                    f"(headers): content-type was {shown!r}; send JSON with "
                    "content-type: application/json",
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
