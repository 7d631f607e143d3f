"""Authentication and request-rate guard of the HTTP API, and the start-up security checks.

Usage::

    guard = SecurityGuard(settings.api)
    @app.post("/v1/evaluate", dependencies=[Depends(guard.require_write)])
    @app.get("/v1/findings", dependencies=[Depends(guard.require_read)])
    @app.get("/metrics", dependencies=[Depends(guard.require_metrics)])

    for line in startup_warnings(settings): log.warning(line)
    check_bind(settings)            # InsecureBindError: open endpoints on a network address

Auth model: when ``GROUNDWATCH_API__TOKENS`` is set, write endpoints and endpoints returning
trace content need ``Authorization: Bearer <token>``; a missing token is 401, a wrong one 403.
Several tokens are accepted at once (rotation: add the new one, roll clients, drop the old).
The presented token is compared with every configured token by ``hmac.compare_digest``, so the
time taken does not depend on which token matched or how much of it did. ``/metrics`` has its
own optional token; ``/healthz`` and ``/readyz`` stay open. Tokens are never logged, never put
in an error message, and never accepted from the query string (URLs end up in access logs).

Every guarded request is also rate limited (``ratelimit.TokenBucketLimiter``): per token once
the token is verified, per client IP for unauthenticated requests and failed attempts, so
guessing tokens is rate limited too.
"""

from __future__ import annotations

import hmac
import ipaddress

from fastapi import HTTPException, Request

from groundwatch.api.ratelimit import TokenBucketLimiter
from groundwatch.settings import ApiSettings, Settings

__all__ = [
    "InsecureBindError",
    "SecurityGuard",
    "bearer_token",
    "check_bind",
    "is_loopback",
    "startup_warnings",
]

_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="groundwatch"'}
_MIN_TOKEN_CHARS = 16


class InsecureBindError(RuntimeError):
    """The API would listen on a network address with no token: refuse to start."""

    retriable = False


def bearer_token(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def _matches(token: str, accepted: list[bytes]) -> bool:
    presented = token.encode("utf-8", "replace")
    ok = False
    for candidate in accepted:  # compare with every token: time does not depend on which matched
        ok |= hmac.compare_digest(presented, candidate)
    return ok


class SecurityGuard:
    """FastAPI dependencies guarding write, trace-content and metrics endpoints.

    Usage::

        guard = SecurityGuard(settings.api)            # builds its own rate limiter
        app.post("/v1/rag-traces", dependencies=[Depends(guard.require_write)])
    """

    def __init__(self, settings: ApiSettings, limiter: TokenBucketLimiter | None = None):
        self._tokens = [
            t.get_secret_value().encode() for t in settings.tokens if t.get_secret_value()
        ]
        metrics = settings.metrics_token.get_secret_value() if settings.metrics_token else ""
        self._metrics_tokens = [metrics.encode()] if metrics else []
        self.limiter = (
            limiter
            if limiter is not None
            else TokenBucketLimiter(
                settings.rate_limit_per_s,
                settings.rate_limit_burst,
                max_keys=settings.rate_limit_max_clients,
            )
        )
        self.auth_failures = 0  # refused requests (401 and 403) so far

    @property
    def enabled(self) -> bool:
        return bool(self._tokens)

    def _authenticate(self, request: Request, accepted: list[bytes]) -> str | None:
        """The verified token (None when auth is off). Raises 401/403, or 429 when the client
        keeps failing faster than the rate allows."""
        if not accepted:
            return None
        token = bearer_token(request)
        if token is not None and _matches(token, accepted):
            return token
        self.auth_failures += 1
        self.limiter.check(request, None)  # failed attempts cost the client IP's bucket
        if token is None:
            raise HTTPException(401, "missing bearer token", headers=_CHALLENGE)
        raise HTTPException(403, "invalid token")

    def require_write(self, request: Request) -> None:
        """Dependency of ingest endpoints: token (when configured), then rate limit."""
        token = self._authenticate(request, self._tokens)
        self.limiter.check(request, token)

    def require_read(self, request: Request) -> None:
        """Dependency of endpoints returning trace content: token, then rate limit."""
        token = self._authenticate(request, self._tokens)
        self.limiter.check(request, token)

    def require_metrics(self, request: Request) -> None:
        """Dependency of /metrics: its own token when configured; never rate limited."""
        self._authenticate(request, self._metrics_tokens)


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def startup_warnings(settings: Settings) -> list[str]:
    """Lines the CLI logs at start-up about how exposed this configuration is."""
    api = settings.api
    out: list[str] = []
    tokens = [t.get_secret_value() for t in api.tokens if t.get_secret_value()]
    loopback = is_loopback(api.host)
    if not tokens:
        if loopback:
            out.append(
                "no API token configured: write and read endpoints are open; "
                f"binding {api.host} only (set GROUNDWATCH_API__TOKENS to serve other hosts)"
            )
        else:
            out.append(
                f"no API token configured and host {api.host} is not loopback: write and read "
                "endpoints (trace content included) are open to the network; set "
                "GROUNDWATCH_API__TOKENS"
                + (
                    ""
                    if api.allow_open_network
                    else " (refusing to start unless GROUNDWATCH_API__ALLOW_OPEN_NETWORK=true)"
                )
            )
    short = sum(1 for t in tokens if len(t) < _MIN_TOKEN_CHARS)
    if short:
        out.append(
            f"{short} API token(s) shorter than {_MIN_TOKEN_CHARS} characters; "
            "use long random tokens (e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
        )
    if api.metrics_token is None and not loopback:
        out.append("/metrics is open (no GROUNDWATCH_API__METRICS_TOKEN); it holds no trace text")
    if api.rate_limit_per_s <= 0:
        out.append("API rate limit is off (GROUNDWATCH_API__RATE_LIMIT_PER_S=0)")
    key = settings.redaction.hash_key
    if settings.redaction.mode == "hash" and key and len(key.get_secret_value()) < _MIN_TOKEN_CHARS:
        out.append(
            f"redaction hash key shorter than {_MIN_TOKEN_CHARS} characters: short keys make "
            "hashed values guessable"
        )
    if settings.redaction.mode == "off":
        out.append(
            "PII redaction is off: findings and published records keep claim and evidence text "
            "as written"
        )
    return out


def check_bind(settings: Settings) -> None:
    """Refuse to serve open endpoints on a network address. Raises :class:`InsecureBindError`
    when the host is not loopback and no token is configured (unless ``api.allow_open_network``),
    or a token is shorter than 16 characters (``serve --host`` bypasses the settings check).
    """
    api = settings.api
    tokens = [t for t in api.tokens if t.get_secret_value()]
    if is_loopback(api.host):
        return
    short = sum(1 for t in tokens if len(t.get_secret_value()) < _MIN_TOKEN_CHARS)
    if short:
        raise InsecureBindError(
            f"refusing to bind {api.host}: {short} API token(s) shorter than {_MIN_TOKEN_CHARS} "
            "characters in GROUNDWATCH_API__TOKENS (use long random tokens)"
        )
    if tokens or api.allow_open_network:
        return
    raise InsecureBindError(
        f"refusing to bind {api.host} with no API token: set GROUNDWATCH_API__TOKENS, bind "
        "127.0.0.1, or set GROUNDWATCH_API__ALLOW_OPEN_NETWORK=true to accept open endpoints"
    )
