"""Who may do what through the HTTP API: token lists, scopes and tenant binding, as configured.

Usage::

    grant = parse_grant("read+label@acme:" + token)   # Grant(scopes={read, label}, tenant="acme")
    grant.allows("ingest")                            # False
    Grant(token, ALL_SCOPES)                          # a plain GROUNDWATCH_API__TOKENS token

Scopes: ``ingest`` (POST /v1/rag-traces, /v1/evaluate, /v1/traces), ``read`` (findings, windows,
the page), ``label`` (POST /v1/findings/{id}/label), ``admin`` (all three). A token of
``GROUNDWATCH_API__TOKENS`` holds every scope and no tenant: today's rights, unchanged. A token
of ``GROUNDWATCH_API__SCOPED_TOKENS`` is written ``<scope>[+<scope>...][@<tenant>]:<token>``;
with a tenant it reads and labels only that tenant's findings (see docs/security-tokens.md).

Nothing here puts a token into an error message: a settings error would print it.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final, Literal

__all__ = [
    "ALL_SCOPES",
    "MIN_TOKEN_CHARS",
    "SCOPES",
    "Grant",
    "GrantSpecError",
    "Scope",
    "check_grants",
    "is_loopback_host",
    "parse_grant",
    "tenant_scope",
    "token_list",
]

Scope = Literal["ingest", "read", "label"]
SCOPES: Final[tuple[Scope, ...]] = ("ingest", "read", "label")
ALL_SCOPES: Final[frozenset[str]] = frozenset(SCOPES)
_ALIASES: Final[dict[str, frozenset[str]]] = {
    **{s: frozenset({s}) for s in SCOPES},
    "admin": ALL_SCOPES,
}

#: Shortest API token accepted when the API binds beyond loopback (shorter only warns there).
MIN_TOKEN_CHARS = 16


class GrantSpecError(ValueError):
    """A scoped token entry that cannot be read; the message never holds the token."""

    retriable = False


@dataclass(frozen=True)
class Grant:
    """What one configured token may do: its scopes, and the tenant it is bound to (or None).

    Usage::

        Grant("s3cret-token-...", frozenset({"read"}), tenant="acme").allows("read")  # True
    """

    token: str = field(repr=False)
    scopes: frozenset[str]
    tenant: str | None = None

    def allows(self, scope: str) -> bool:
        return scope in self.scopes


def is_loopback_host(host: str) -> bool:
    """True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def token_list(value: Any) -> list[str]:
    """The tokens of a setting given as a JSON list or comma-separated text (or a list).

    A token is a non-empty string: ``[null]`` (a template rendering a missing secret) or ``[1]``
    is an error, never the token "None" or "1" (issue 36). Raises ValueError without the value.
    """
    if hasattr(value, "get_secret_value"):
        value = value.get_secret_value()
    if value is None:
        return []
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return []
        if text.startswith("["):
            try:
                value = json.loads(text)
            except ValueError:
                raise ValueError("not a valid JSON list of strings") from None
            if not isinstance(value, list):
                raise ValueError("not a valid JSON list of strings")
        else:
            value = text.split(",")
    if not isinstance(value, list | tuple):
        raise ValueError("expected a JSON list of strings or comma-separated tokens")
    out: list[str] = []
    for n, item in enumerate(value, 1):
        raw = item.get_secret_value() if hasattr(item, "get_secret_value") else item
        if not isinstance(raw, str):
            kind = "null" if raw is None else type(raw).__name__
            raise ValueError(f"token {n} is {kind}, not a string")
        if not raw.strip():
            raise ValueError(f"token {n} is empty")
        out.append(raw.strip())
    return out


def parse_grant(entry: str, n: int = 1) -> Grant:
    """Read one ``<scope>[+<scope>...][@<tenant>]:<token>`` entry (``n`` names it in errors).

    Raises :class:`GrantSpecError` for an unknown scope, an empty tenant or an empty token."""
    spec, sep, token = entry.partition(":")
    token = token.strip()
    if not sep or not token:
        raise GrantSpecError(f"scoped token {n}: expected <scope>[+<scope>][@<tenant>]:<token>")
    names, at, tenant = spec.partition("@")
    scopes: set[str] = set()
    for name in names.split("+"):
        granted = _ALIASES.get(name.strip().lower())
        if granted is None:
            known = ", ".join([*SCOPES, "admin"])
            raise GrantSpecError(f"scoped token {n}: unknown scope {name.strip()!r} ({known})")
        scopes |= granted
    if at and not tenant.strip():
        raise GrantSpecError(f"scoped token {n}: empty tenant after '@'")
    return Grant(token, frozenset(scopes), tenant.strip() if at else None)


def check_grants(plain: Iterable[str], scoped: Iterable[str], host: str) -> list[Grant]:
    """Every configured token as a grant: plain ones with every scope, then the scoped entries.

    Raises ValueError (no token in the message) for an unreadable entry, a scoped token
    configured twice (its rights would be ambiguous), or a token shorter than
    :data:`MIN_TOKEN_CHARS` when ``host`` is beyond loopback."""
    grants = [Grant(t, ALL_SCOPES) for t in plain]
    limited = [parse_grant(entry, n) for n, entry in enumerate(scoped, 1)]
    tokens = {g.token for g in limited}
    if len(tokens) < len(limited) or tokens & {g.token for g in grants}:
        raise ValueError("a scoped token is configured twice (in SCOPED_TOKENS or TOKENS too)")
    grants += limited
    if not is_loopback_host(host):
        short = sum(1 for g in grants if len(g.token) < MIN_TOKEN_CHARS)
        if short:
            raise ValueError(
                f"{short} token(s) shorter than {MIN_TOKEN_CHARS} characters while binding "
                f"{host} (beyond loopback)"
            )
    return grants


def tenant_scope(tenant: str) -> str:
    """The scope a tenant's findings are stored under: a short SHA-256 of the tenant value, as
    ``evaluation.processing.finding_scope`` computes it from a trace's ``tenant`` attribute (a
    finding's key ends in ``@<scope>``)."""
    return hashlib.sha256(tenant.encode("utf-8", "surrogatepass")).hexdigest()[:12]
