"""Authentication and request-rate guard of the HTTP API, and the start-up security checks.

Usage::

    guard = SecurityGuard(settings.api)
    @app.post("/v1/evaluate", dependencies=[Depends(guard.require_ingest)])
    @app.get("/v1/findings", dependencies=[Depends(guard.require_read)])
    @app.post("/v1/findings/{finding_id}/label", dependencies=[Depends(guard.require_label)])
    @app.get("/metrics", dependencies=[Depends(guard.require_metrics)])

    for line in startup_warnings(settings.api, settings.redaction): log.warning(line)
    check_bind(settings.api)        # InsecureBindError: open endpoints on a network address

Auth model: when ``GROUNDWATCH_API__TOKENS`` is set, write endpoints and endpoints returning
trace content need ``Authorization: Bearer <token>``; a missing token is 401, a wrong one 403.
Several tokens are accepted at once (rotation: add the new one, roll clients, drop the old).
The presented token is compared with every configured token by ``hmac.compare_digest``, so the
time taken does not depend on which token matched or how much of it did. ``/metrics`` has its
own optional token; ``/healthz`` and ``/readyz`` stay open. Tokens are never logged, never put
in an error message, and never accepted from the query string (URLs end up in access logs).

Scopes (``groundwatch.access``): a token of ``GROUNDWATCH_API__TOKENS`` may do everything, as
before; one of ``GROUNDWATCH_API__SCOPED_TOKENS`` (``read+label@acme:<token>``) only what its
scopes name (``ingest``, ``read``, ``label``, ``admin``), and with ``@tenant`` it reads and
labels that tenant's findings only (``api.tenancy``). A valid token without the scope is 403.

Every guarded request is also rate limited (``ratelimit.TokenBucketLimiter``): per token once
the token is verified, per client IP for unauthenticated requests and failed attempts, so
guessing tokens is rate limited too.
"""

from __future__ import annotations

import hmac
from typing import NoReturn

from fastapi import HTTPException, Request

from groundwatch.access import (
    MIN_TOKEN_CHARS,
    Grant,
    Scope,
    check_grants,
    is_loopback_host,
    tenant_scope,
)
from groundwatch.api.origin import otlp_paths
from groundwatch.api.ratelimit import TokenBucketLimiter
from groundwatch.sections.api import ApiSettings
from groundwatch.sections.pipeline import RedactionSettings

__all__ = [
    "InsecureBindError",
    "SecurityGuard",
    "bearer_token",
    "check_bind",
    "is_loopback",
    "startup_warnings",
]

_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="groundwatch"'}
_MIN_TOKEN_CHARS = MIN_TOKEN_CHARS


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


#: Routes whose answers span tenants: refused to tenant-bound tokens.
_ALL_TENANTS = frozenset({"/v1/windows"})
_METRICS_REFUSAL = {True: "missing bearer token", False: "invalid token"}


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
        app.post("/v1/rag-traces", dependencies=[Depends(guard.require_ingest)])

    Each configured token is a :class:`~groundwatch.access.Grant`: plain tokens hold every
    scope, scoped ones what their entry names, bound to a tenant or not. A valid token without
    the route's scope is 403, as is a tenant-bound token on a route that spans tenants.
    """

    def __init__(self, settings: ApiSettings, limiter: TokenBucketLimiter | None = None):
        plain = [t.get_secret_value() for t in settings.tokens if t.get_secret_value()]
        scoped = [t.get_secret_value() for t in settings.scoped_tokens]
        # Token lengths against the bind address are the settings' and check_bind's business.
        grants = check_grants(plain, scoped, "127.0.0.1")
        self._grants = [(g.token.encode("utf-8", "replace"), g) for g in grants]
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
        return bool(self._grants)

    def _grant_of(self, token: str) -> Grant | None:
        presented = token.encode("utf-8", "replace")
        found: Grant | None = None
        for candidate, grant in self._grants:  # every token compared, whichever matches
            if hmac.compare_digest(presented, candidate):
                found = grant
        return found

    def grant_for(self, request: Request) -> Grant | None:
        """The grant of the request's bearer token; None without a valid one (or auth off)."""
        token = bearer_token(request)
        return None if token is None else self._grant_of(token)

    def _fail(self, request: Request, token: str | None, status: int, message: str) -> NoReturn:
        self.auth_failures += 1
        self.limiter.check(request, token)  # failed attempts cost the client's bucket
        if status == 401:
            raise HTTPException(401, message, headers=_CHALLENGE)
        raise HTTPException(status, message)

    def _authorize(self, request: Request, scope: Scope) -> Grant | None:
        """The request's grant, holding ``scope`` (None when auth is off). Raises 401/403, or
        429 when the client keeps failing faster than the rate allows."""
        if not self._grants:
            return None
        token = bearer_token(request)
        grant = None if token is None else self._grant_of(token)
        if token is None:
            self._fail(request, None, 401, "missing bearer token")
        if grant is None:
            self._fail(request, None, 403, "invalid token")
        if not grant.allows(scope):
            self._fail(request, grant.token, 403, f"this token lacks the {scope} scope")
        return grant

    def _authenticate(self, request: Request, accepted: list[bytes]) -> None:
        """The /metrics token check (None configured: open)."""
        if not accepted:
            return
        token = bearer_token(request)
        if token is not None and _matches(token, accepted):
            return
        self._fail(request, None, 401 if token is None else 403, _METRICS_REFUSAL[token is None])

    def require_ingest(self, request: Request) -> None:
        """Dependency of ingest endpoints: a token with the ingest scope, then rate limit. A
        tenant-bound token's traces are stamped with its tenant (``api.tenancy``); OTLP spans
        are assembled later, out of the request, so that route refuses such a token."""
        grant = self._authorize(request, "ingest")
        if grant is not None and grant.tenant is not None and request.url.path in otlp_paths():
            self._fail(request, grant.token, 403, "a tenant-bound token cannot send OTLP spans")
        self.limiter.check(request, grant.token if grant else None)

    #: Before scopes, every token could write: the ingest routes keep this name.
    require_write = require_ingest

    def require_read(self, request: Request) -> None:
        """Dependency of endpoints returning trace content: read scope, then rate limit. A
        tenant-bound token reads its tenant's findings (:mod:`groundwatch.api.tenancy`) and
        nothing that spans tenants (``/v1/windows``)."""
        grant = self._authorize(request, "read")
        if grant is not None and grant.tenant is not None and request.url.path in _ALL_TENANTS:
            self._fail(request, grant.token, 403, "a tenant-bound token cannot read this route")
        self.limiter.check(request, grant.token if grant else None)

    def require_read_all_tenants(self, request: Request) -> None:
        """The findings page's check: read scope and no tenant binding (the page shows
        windows, drift and precision across tenants)."""
        grant = self._authorize(request, "read")
        if grant is not None and grant.tenant is not None:
            self._fail(request, grant.token, 403, "a tenant-bound token cannot read this page")
        self.limiter.check(request, grant.token if grant else None)

    def require_label(self, request: Request) -> None:
        """Dependency of the label route: label scope; a tenant-bound token labels only its
        tenant's findings (another's is answered as unknown, 404), then rate limit."""
        grant = self._authorize(request, "label")
        if grant is not None and grant.tenant is not None:
            finding_id = str(request.path_params.get("finding_id", ""))
            if not finding_id.endswith("@" + tenant_scope(grant.tenant)):
                self.limiter.check(request, grant.token)
                raise HTTPException(404, "no such finding")
        self.limiter.check(request, grant.token if grant else None)

    def require_metrics(self, request: Request) -> None:
        """Dependency of /metrics: its own token when configured; never rate limited."""
        self._authenticate(request, self._metrics_tokens)


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    return is_loopback_host(host)


def _configured_tokens(api: ApiSettings) -> list[str]:
    """Every configured token, plain and scoped (the settings validated the entries)."""
    plain = [t.get_secret_value() for t in api.tokens if t.get_secret_value()]
    scoped = [t.get_secret_value() for t in api.scoped_tokens]
    return [g.token for g in check_grants(plain, scoped, "127.0.0.1")]


def startup_warnings(api: ApiSettings, redaction: RedactionSettings) -> list[str]:
    """Lines the CLI logs at start-up about how exposed this configuration is: the ``api``
    section (bind address, tokens, limits) and the ``redaction`` section (what is kept)."""
    out: list[str] = []
    tokens = _configured_tokens(api)
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
    if not tokens and "*" in api.allowed_hosts:
        out.append(
            "GROUNDWATCH_API__ALLOWED_HOSTS is '*' with no API token: a web page can reach the "
            "open API through DNS rebinding"
        )
    if api.metrics_token is None and not loopback:
        out.append("/metrics is open (no GROUNDWATCH_API__METRICS_TOKEN); it holds no trace text")
    if api.rate_limit_per_s <= 0:
        out.append("API rate limit is off (GROUNDWATCH_API__RATE_LIMIT_PER_S=0)")
    key = redaction.hash_key
    if redaction.mode == "hash" and key and len(key.get_secret_value()) < _MIN_TOKEN_CHARS:
        out.append(
            f"redaction hash key shorter than {_MIN_TOKEN_CHARS} characters: short keys make "
            "hashed values guessable"
        )
    if redaction.mode == "off":
        out.append(
            "PII redaction is off: findings and published records keep claim and evidence text "
            "as written"
        )
    return out


def check_bind(api: ApiSettings) -> None:
    """Refuse to serve open endpoints on a network address. Raises :class:`InsecureBindError`
    when the host is not loopback and no token is configured (unless ``api.allow_open_network``),
    or a token is shorter than 16 characters (``serve --host`` bypasses the settings check).
    """
    tokens = _configured_tokens(api)
    if is_loopback(api.host):
        return
    short = sum(1 for t in tokens if len(t) < _MIN_TOKEN_CHARS)
    if short:
        raise InsecureBindError(
            f"refusing to bind {api.host}: {short} API token(s) shorter than {_MIN_TOKEN_CHARS} "
            "characters in GROUNDWATCH_API__TOKENS or __SCOPED_TOKENS (use long random tokens)"
        )
    if tokens or api.allow_open_network:
        return
    raise InsecureBindError(
        f"refusing to bind {api.host} with no API token: set GROUNDWATCH_API__TOKENS, bind "
        "127.0.0.1, or set GROUNDWATCH_API__ALLOW_OPEN_NETWORK=true to accept open endpoints"
    )
