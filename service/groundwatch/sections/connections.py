"""The sections of the systems groundwatch connects to: ``kafka``, ``redis`` and ``otel``
(``GROUNDWATCH_KAFKA__*``, ``GROUNDWATCH_REDIS__*``, ``GROUNDWATCH_OTEL__*``)."""

from __future__ import annotations

from urllib.parse import urlsplit

from pydantic import BaseModel, Field, SecretStr, field_validator

__all__ = [
    "DEFAULT_DEDUP_TTL_S",
    "DEFAULT_RESEND_WINDOW_OFFSETS",
    "KafkaSettings",
    "OtelSettings",
    "RedisSettings",
]

_REDIS_SCHEMES = ("redis", "rediss", "unix", "redis+cluster", "rediss+cluster")

#: Re-delivery horizon (``redis.dedup_ttl_s``), also the in-memory window store's default.
DEFAULT_DEDUP_TTL_S = 86400

#: Offsets before a partition's floor still deduplicated (``redis.resend_window_offsets``),
#: also the in-memory window store's default.
DEFAULT_RESEND_WINDOW_OFFSETS = 1000


class KafkaSettings(BaseModel):
    bootstrap_servers: str | None = Field(
        default=None, description="Comma-separated brokers; when set, `serve` consumes from Kafka."
    )
    topic: str = Field(default="rag.traces", description="Topic the assistant's traces arrive on.")
    dlq_topic: str = Field(default="rag.traces.dlq", description="Dead-letter topic.")
    results_topic: str | None = Field(
        default="rag.evaluations", description="Topic for evaluation records (empty = off)."
    )
    group_id: str = Field(default="groundwatch", description="Consumer group id.")
    client_id: str = Field(default="groundwatch", description="Kafka client id.")
    security_protocol: str = Field(
        default="PLAINTEXT", description="PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL."
    )
    sasl_mechanism: str | None = Field(
        default=None, description="PLAIN, SCRAM-SHA-256, SCRAM-SHA-512."
    )
    sasl_username: str | None = Field(default=None, description="SASL user name.")
    sasl_password: SecretStr | None = Field(default=None, description="SASL password.")
    ssl_cafile: str | None = Field(default=None, description="CA bundle for SSL.")
    ssl_certfile: str | None = Field(default=None, description="Client certificate for SSL.")
    ssl_keyfile: str | None = Field(default=None, description="Client key for SSL.")
    session_timeout_ms: int = Field(
        default=10_000, ge=1, le=3_600_000, description="Consumer group session timeout."
    )
    heartbeat_interval_ms: int = Field(
        default=3_000, ge=1, le=3_600_000, description="Consumer heartbeat interval."
    )
    max_poll_records: int = Field(
        default=500, ge=1, le=100_000, description="Most records per poll."
    )
    commit_interval_s: float = Field(
        default=1.0, gt=0.0, le=3600.0, description="Longest time between offset commits."
    )


class RedisSettings(BaseModel):
    url: SecretStr | None = Field(
        default=None, description="redis:// URL for shared windows and findings; unset = in memory."
    )

    @field_validator("url", mode="after")
    @classmethod
    def _parseable_url(cls, value: SecretStr | None) -> SecretStr | None:
        # The URL may hold a password: messages name the problem, never the value.
        if value is None:
            return None
        text = value.get_secret_value().strip()
        if not text:
            return None
        try:
            parts = urlsplit(text)
            port = parts.port
        except ValueError:
            raise ValueError("not a parseable URL (bad port or brackets)") from None
        if parts.scheme not in _REDIS_SCHEMES:
            raise ValueError(
                "the scheme must be one of " + ", ".join(f"{s}://" for s in _REDIS_SCHEMES)
            )
        if parts.scheme == "unix":
            if not parts.path:
                raise ValueError("unix:// URL without a socket path")
        elif not parts.hostname:
            raise ValueError("URL without a host")
        if port == 0:
            raise ValueError("port 0")
        return SecretStr(text)

    key_prefix: str = Field(default="gw", description="Prefix of every Redis key.")
    dedup_ttl_s: int = Field(
        default=DEFAULT_DEDUP_TTL_S,
        ge=1,
        le=366 * 86400,
        description="Re-delivery horizon: how long a trace_id received over HTTP/OTLP is "
        "remembered (a re-send within it is not counted again), and how long an idle Kafka "
        "partition's record of applied offsets is kept.",
    )
    resend_window_offsets: int = Field(
        default=DEFAULT_RESEND_WINDOW_OFFSETS,
        ge=0,
        le=1_000_000,
        description="Kafka: a trace_id already seen this many offsets before a partition's "
        "committed offset (a producer's re-send) is still counted once; memory per partition.",
    )
    cluster: bool = Field(
        default=False,
        description="Redis Cluster (also implied by a redis+cluster:// URL); keys carry hash tags.",
    )
    cluster_shards: int = Field(
        default=8,
        ge=1,
        le=1024,
        description="Cluster only: window buckets split over this many hash-tag slots "
        "(by trace_id); changing it forgets the dedup markers.",
    )


class OtelSettings(BaseModel):
    endpoint: str | None = Field(
        default=None, description="OTLP/HTTP endpoint for spans and evaluation events."
    )
    service_name: str = Field(default="groundwatch", description="service.name resource attribute.")
    assembly_window_s: float = Field(
        default=5.0, gt=0.0, le=3600.0, description="How long OTLP spans of a trace are awaited."
    )
    max_pending_bytes: int = Field(
        default=16_000_000,
        ge=1,
        le=100_000_000_000,
        description="Estimated bytes of OTLP spans held while traces are assembled (or put back "
        "after a full queue); past it a request is refused with 503 + Retry-After.",
    )
    max_pending_traces: int = Field(
        default=10_000, ge=1, le=10_000_000, description="OTLP traces being assembled at once."
    )
