"""The ``api`` section: the HTTP API's bind address, tokens and request bounds
(``GROUNDWATCH_API__*``)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, SecretStr, ValidationInfo, field_validator
from pydantic_settings import NoDecode

from groundwatch.access import check_grants, token_list

__all__ = [
    "ApiSettings",
]


class ApiSettings(BaseModel):
    host: str = Field(default="127.0.0.1", description="Bind address of the HTTP API.")
    port: int = Field(default=8080, ge=0, le=65535, description="Port of the HTTP API.")
    tokens: Annotated[list[SecretStr], NoDecode] = Field(
        default_factory=list,
        description=(
            "Bearer tokens for write and trace-content endpoints (JSON list or comma-separated;"
            " several for rotation). Unset = open, and only a loopback host is allowed."
        ),
    )
    scoped_tokens: Annotated[list[SecretStr], NoDecode] = Field(
        default_factory=list,
        description="Tokens with scopes, each '<scope>[+<scope>][@<tenant>]:<token>' (ingest, "
        "read, label, admin); @tenant binds reads and labels to one tenant. TOKENS keep all.",
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host header values served (any port; '*' = any). Empty: loopback names "
        "on loopback connections, anything on others (DNS rebinding guard).",
    )
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Browser origins (scheme://host[:port]) allowed to write besides the "
        "server's own; a write with another Origin header is refused (403).",
    )
    metrics_token: SecretStr | None = Field(
        default=None, description="Separate bearer token for /metrics; unset keeps it open."
    )
    allow_open_network: bool = Field(
        default=False,
        description="Allow a non-loopback host without tokens (endpoints open to the network).",
    )
    max_body_bytes: int = Field(
        default=10_000_000, ge=1, le=1_000_000_000, description="Largest accepted request body."
    )
    max_batch: int = Field(
        default=1000, ge=1, le=100_000, description="Most traces in one POST /v1/rag-traces."
    )
    rate_limit_per_s: float = Field(
        default=50.0, ge=0.0, le=1e6, description="Requests per second per token (0 = off)."
    )
    rate_limit_burst: int = Field(
        default=100, ge=1, le=1_000_000, description="Burst size of the per-token rate limit."
    )
    rate_limit_max_clients: int = Field(
        default=10_000,
        ge=1,
        le=10_000_000,
        description="Rate-limit buckets kept (least recently used dropped).",
    )
    queue_size: int = Field(
        default=1000,
        ge=1,
        le=1_000_000,
        description="Bounded in-process queue of traces to evaluate.",
    )
    queue_max_chars: int = Field(
        default=16_000_000,
        ge=1,
        le=10_000_000_000,
        description="Text (question, answer, passages, in characters) held by the evaluation "
        "queue at once; a batch that does not fit is refused with 503 + Retry-After.",
    )
    max_inflight: int = Field(
        default=64,
        ge=1,
        le=100_000,
        description="Most requests served at once; 503 + Retry-After beyond. /healthz, /readyz "
        "and /metrics are never refused (idle connections do not count).",
    )
    max_connections: int = Field(
        default=1000,
        ge=1,
        le=1_000_000,
        description="Most open connections; past it the connection idle longest (no request "
        "in progress) is closed to make room, so idle clients cannot lock the probes out.",
    )
    evaluate_max_share: float = Field(
        default=0.5,
        gt=0.0,
        le=1.0,
        description="Share of the judge's slots (judge.workers + 2) that synchronous POST "
        "/v1/evaluate calls may hold at once (at least one); 429 + Retry-After beyond.",
    )
    max_inflight_bytes: int = Field(
        default=16_000_000,
        ge=1,
        le=100_000_000_000,
        description="Request bodies held in memory at once, all requests together (bytes); a "
        "body that does not fit is refused with 503 + Retry-After before it is read.",
    )
    keep_alive_s: float = Field(
        default=5.0,
        gt=0.0,
        le=3600.0,
        description="Idle keep-alive connections are closed after this long.",
    )
    header_timeout_s: float = Field(
        default=10.0,
        gt=0.0,
        le=3600.0,
        description="A connection must send a request's line and headers within this long "
        "(from connect or the previous response), else 408 and closed.",
    )
    body_timeout_s: float = Field(
        default=60.0,
        gt=0.0,
        le=3600.0,
        description="A request's body must arrive within this long after its headers, else the "
        "connection is closed.",
    )
    docs: bool = Field(
        default=False,
        description="Serve Swagger UI at /docs and ReDoc at /redoc (scripts from "
        "cdn.jsdelivr.net, pinned, under a CSP); /openapi.json is always served.",
    )
    drain_timeout_s: float = Field(
        default=20.0,
        ge=0.0,
        le=3600.0,
        description="On shutdown (SIGTERM), longest wait for queued traces; judging still in "
        "progress is then given up.",
    )

    @field_validator("tokens", "scoped_tokens", mode="before")
    @classmethod
    def _token_list(cls, value: Any) -> Any:
        # Never raise with the value in hand: a validation error would print the secret.
        return token_list(value)

    @field_validator("tokens", "scoped_tokens", mode="after")
    @classmethod
    def _grants(cls, value: list[SecretStr], info: ValidationInfo) -> list[SecretStr]:
        # Long tokens beyond loopback; scopes readable, and no scoped token also configured
        # elsewhere (its rights would be ambiguous).
        mine = [t.get_secret_value() for t in value]
        host = info.data.get("host", "127.0.0.1")
        if info.field_name == "tokens":
            check_grants(mine, [], host)
        else:
            check_grants([t.get_secret_value() for t in info.data.get("tokens", [])], mine, host)
        return value

    @field_validator("max_inflight_bytes", mode="after")
    @classmethod
    def _room_for_one_body(cls, value: int, info: ValidationInfo) -> int:
        largest = info.data.get("max_body_bytes")
        if isinstance(largest, int) and value < largest:
            raise ValueError(
                "must be at least GROUNDWATCH_API__MAX_BODY_BYTES (else the largest accepted "
                "body can never be read)"
            )
        return value
