"""The one settings object. Built once at start-up and passed down; nothing else reads the environment.

Every field maps to one environment variable: prefix ``GROUNDWATCH_``, nested delimiter ``__``,
e.g. ``GROUNDWATCH_KAFKA__BOOTSTRAP_SERVERS``. ``groundwatch config`` prints the full table.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, SecretStr, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from groundwatch.access import check_grants, token_list
from groundwatch.contract.trace import TraceLimits

__all__ = [
    "DEFAULT_CASE_TEXT_CHARS",
    "ENV_PREFIX",
    "ApiSettings",
    "EmbeddingSettings",
    "FindingsSettings",
    "JudgeSettings",
    "KafkaSettings",
    "OtelSettings",
    "RedactionSettings",
    "RedisSettings",
    "SamplingSettings",
    "Settings",
    "WindowSettings",
    "environment_variable",
    "groundwatch_environment",
]

ENV_PREFIX = "GROUNDWATCH_"

_REDIS_SCHEMES = ("redis", "rediss", "unix", "redis+cluster", "rediss+cluster")

#: Longest time span a window, retention or TTL setting may name (a little over a year).
_MAX_SPAN_S = 400 * 86400


def environment_variable(path: tuple[str | int, ...] | list[str]) -> str:
    """The variable that sets a settings field: ``("api", "port")`` -> ``GROUNDWATCH_API__PORT``."""
    return ENV_PREFIX + "__".join(str(p).upper() for p in path)


def groundwatch_environment() -> dict[str, str]:
    """The ``GROUNDWATCH_*`` variables set now, names upper-cased (``groundwatch config`` shows
    where each effective value came from). Values of secrets are the caller's to hide."""
    import os

    return {k.upper(): v for k, v in os.environ.items() if k.upper().startswith(ENV_PREFIX)}


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
        default=86400,
        ge=1,
        le=366 * 86400,
        description="Re-delivery horizon: how long a trace_id received over HTTP/OTLP is "
        "remembered (a re-send within it is not counted again), and how long an idle Kafka "
        "partition's record of applied offsets is kept.",
    )
    resend_window_offsets: int = Field(
        default=1000,
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


class SamplingSettings(BaseModel):
    rate: float = Field(
        default=1.0, ge=0.0, le=1.0, description="Share of traces scored, by trace_id hash."
    )
    overrides: dict[str, Annotated[float, Field(ge=0.0, le=1.0)]] = Field(
        default_factory=dict,
        description='Per-slice rates (0..1), JSON {"key=value": rate}, e.g. {"tenant=acme": 0.5}.',
    )


class EmbeddingSettings(BaseModel):
    runtime: Literal["onnx", "torch"] = Field(default="onnx", description="Embedding runtime.")
    cache_size: int = Field(
        default=50_000,
        ge=0,
        le=10_000_000,
        description="Embeddings cached by content hash (entries).",
    )
    batch_size: int = Field(default=64, ge=1, le=4096, description="Most texts per model call.")
    token_budget: int = Field(
        default=4096,
        ge=1,
        le=1_000_000,
        description="Most padded tokens (texts x longest) per model call; at least 256.",
    )
    threads: int = Field(
        default=0, ge=0, le=1024, description="Intra-op threads; 0 = number of cores."
    )
    spin_wait: bool = Field(
        default=False,
        description="Let onnxruntime threads busy-wait between ops (only on dedicated cores).",
    )
    verify_sha256: bool = Field(default=True, description="Check the weights' sha256 at start-up.")


class JudgeSettings(BaseModel):
    backend: Literal["embedded", "verifier", "nli", "openai", "tei"] = Field(
        default="verifier",
        description="Judge backend (verifier = embedded alignment + the trained claim verifier;"
        " embedded = the rules alone).",
    )
    nli_model_dir: str | None = Field(
        default=None, description="Local HF NLI model directory (nli)."
    )
    openai_base_url: str | None = Field(
        default=None, description="OpenAI-compatible base URL (openai)."
    )
    openai_api_key: SecretStr | None = Field(default=None, description="API key (openai).")
    openai_model: str = Field(default="gpt-4o-mini", description="Model name (openai).")
    openai_timeout_s: float = Field(
        default=30.0, gt=0.0, le=3600.0, description="Per-request timeout (openai)."
    )
    openai_max_retries: int = Field(
        default=3, ge=0, le=100, description="Retries with backoff (openai)."
    )
    openai_concurrency: int = Field(
        default=4, ge=1, le=1024, description="Concurrent requests (openai)."
    )
    openai_price_per_1k_input: float = Field(
        default=0.0, ge=0.0, le=1000.0, description="Cost accounting, input tokens."
    )
    openai_price_per_1k_output: float = Field(
        default=0.0, ge=0.0, le=1000.0, description="Cost accounting, output tokens."
    )
    tei_url: str | None = Field(
        default=None, description="TEI-style rerank/classify service URL (tei)."
    )
    nli_top_k: int = Field(
        default=3, ge=1, le=100, description="Evidence sentences per claim (nli)."
    )
    nli_batch_size: int = Field(
        default=16, ge=1, le=4096, description="Premise/hypothesis pairs per forward pass (nli)."
    )
    nli_contradiction_threshold: float = Field(
        default=0.5, ge=0.0, le=1.0, description="Contradiction probability bar (nli)."
    )
    nli_max_length: int = Field(
        default=512, ge=1, le=32_768, description="Max tokens per pair (nli)."
    )
    nli_device: str = Field(default="cpu", description="torch device (nli).")
    openai_backoff_base_s: float = Field(
        default=0.5, ge=0.0, le=3600.0, description="First retry delay (openai)."
    )
    openai_backoff_max_s: float = Field(
        default=20.0, ge=0.0, le=3600.0, description="Longest retry delay (openai)."
    )
    openai_max_output_tokens: int = Field(
        default=1024, ge=1, le=1_000_000, description="max_tokens per request (openai)."
    )
    openai_max_passage_chars: int = Field(
        default=4000, ge=1, le=10_000_000, description="Passage chars sent per passage (openai)."
    )
    openai_json_mode: bool = Field(
        default=True, description="Send response_format json_object (openai)."
    )
    tei_nli_url: str | None = Field(
        default=None, description="Classify (/predict) service URL; unset = tei_url."
    )
    tei_api_key: SecretStr | None = Field(
        default=None, description="Bearer key for the TEI service."
    )
    tei_top_k: int = Field(
        default=3, ge=1, le=100, description="Evidence sentences per claim (tei)."
    )
    tei_batch_size: int = Field(default=32, ge=1, le=4096, description="Pairs per request (tei).")
    tei_timeout_s: float = Field(
        default=10.0, gt=0.0, le=3600.0, description="Per-request timeout (tei)."
    )
    tei_max_retries: int = Field(default=3, ge=0, le=100, description="Retries with backoff (tei).")
    tei_concurrency: int = Field(default=8, ge=1, le=1024, description="Concurrent requests (tei).")
    tei_support_threshold: float = Field(
        default=0.5, ge=0.0, le=1.0, description="Entailment bar for supported (tei)."
    )
    tei_contradiction_threshold: float = Field(
        default=0.5, ge=0.0, le=1.0, description="Contradiction bar (tei)."
    )
    relevance_threshold: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Passage relevance threshold; unset = the judge's calibrated value.",
    )
    calibration_path: str | None = Field(
        default=None,
        description="Verdict model calibration file for the verifier judge (written by "
        "`groundwatch judge adapt`); unset = the shipped calibration. Its version is part of "
        "metric_version.",
    )
    workers: int = Field(default=1, ge=1, le=256, description="Evaluator worker threads.")
    timeout_s: float = Field(
        default=60.0,
        ge=0.0,
        le=86400.0,
        description="Deadline of one judge call, every backend (embedded too); past it the "
        "traces are unscored, reason timeout.",
    )
    max_chars: int = Field(
        default=200_000,
        ge=0,
        le=100_000_000,
        description="Size budget of one trace for the judge: question + answer + passages, in "
        "chars (0 = none).",
    )
    over_budget: Literal["truncate", "reject"] = Field(
        default="truncate",
        description="Over max_chars: cut the passages to fit, or leave the trace unscored "
        "(reason over_budget).",
    )


class WindowSettings(BaseModel):
    slice_keys: list[str] = Field(
        default_factory=lambda: ["intent", "tenant", "model", "prompt_version"],
        description="Attribute keys that become slice labels.",
    )
    top_n: int = Field(
        default=10,
        ge=1,
        le=1000,
        description="Values kept per slice key: the top-N by traces in slice_window_s; the "
        "rest are 'other'.",
    )
    slice_window_s: int = Field(
        default=3600,
        ge=4,
        le=7 * 86400,
        description="Recent volume that ranks slice values; re-ranked every quarter of it, so "
        "a value that stops arriving loses its label within it.",
    )
    slice_allow: dict[str, str] = Field(
        default_factory=dict,
        description='Allow-list per slice key, JSON {"key": "regex"}: values that do not fully '
        "match become 'other'.",
    )
    bucket_s: int = Field(default=60, ge=1, le=86400, description="Width of one time bucket.")
    retention_s: int = Field(
        default=8 * 86400, ge=1, le=_MAX_SPAN_S, description="How long buckets are kept."
    )
    min_samples: int = Field(
        default=30,
        ge=1,
        le=1_000_000,
        description="Fewest samples before a window value or drift is exported.",
    )
    reference: Literal["rolling", "pinned"] = Field(
        default="rolling", description="Drift reference."
    )
    current_window_s: int = Field(
        default=3600, ge=1, le=_MAX_SPAN_S, description="Current window for drift."
    )
    reference_window_s: int = Field(
        default=7 * 86400, ge=1, le=_MAX_SPAN_S, description="Rolling reference window for drift."
    )
    rollup_s: int = Field(
        default=3600,
        ge=1,
        le=7 * 86400,
        description="Width of the coarse buckets used for long windows (a multiple of bucket_s).",
    )
    fine_retention_s: int = Field(
        default=26 * 3600,
        ge=1,
        le=_MAX_SPAN_S,
        description="How long the fine (bucket_s) buckets are kept.",
    )
    histogram_bins: int = Field(
        default=20, ge=2, le=200, description="Equal-width bins of the [0,1] window histograms."
    )
    export_windows_s: dict[str, Annotated[int, Field(ge=1, le=_MAX_SPAN_S)]] = Field(
        default_factory=lambda: {"5m": 300, "1h": 3600, "24h": 86400},
        description='Windows exported to Prometheus, JSON {"label": seconds}.',
    )
    psi_epsilon: float = Field(
        default=1e-4,
        gt=0.0,
        le=0.1,
        description="Smallest bin share used by PSI (empty-bin smoothing).",
    )
    drift_fdr: float = Field(
        default=0.01,
        gt=0.0,
        lt=1.0,
        description="Drift level: Benjamini-Hochberg false discovery rate over all drift tests "
        "of one evaluation (slices x metrics x rates).",
    )
    drift_min_wasserstein: float = Field(
        default=0.03,
        ge=0.0,
        le=1.0,
        description="Smallest Wasserstein-1 distance (score units on [0,1]) reported as drift.",
    )
    drift_min_rate_ratio: float = Field(
        default=1.5,
        ge=1.0,
        le=1000.0,
        description="Smallest rate increase (current/reference) reported.",
    )
    drift_detectable_shift: float = Field(
        default=0.1,
        gt=0.0,
        le=1.0,
        description="Target detectable mean shift: a slice is tested once its current window "
        "can detect it (80% power at drift_fdr), else it is reported as underpowered.",
    )
    drift_detectable_rate_ratio: float = Field(
        default=2.0,
        gt=1.0,
        le=1000.0,
        description="Target detectable rate increase (same rule, for rates).",
    )
    read_cache_s: int = Field(
        default=300,
        ge=0,
        le=86400,
        description="Readers cache buckets closed over 10 min ago this long (0 = off).",
    )
    report_refresh_s: float = Field(
        default=10.0,
        ge=0.0,
        le=3600.0,
        description="Scrapes serve a window report at most this old, refreshed in the "
        "background (0 = compute during every scrape).",
    )
    export_lease_s: float = Field(
        default=15.0,
        ge=0.0,
        le=3600.0,
        description="Redis only: one replica at a time exports the window and drift series, "
        "holding a lease this long (renewed every third of it); another takes over within it "
        "when the holder dies. Keep it under the alert rules' 5m gap tolerance; 0 = every "
        "replica exports them.",
    )
    memory_dedup_max: int = Field(
        default=1_000_000,
        ge=1,
        le=100_000_000,
        description="Trace ids remembered by the in-memory window store.",
    )


#: Trace text kept per finding for the draft-case download (``findings.case_text_chars``).
DEFAULT_CASE_TEXT_CHARS = 4_000


class FindingsSettings(BaseModel):
    max_items: int = Field(
        default=10_000, ge=1, le=10_000_000, description="Findings kept (oldest dropped first)."
    )
    case_text_chars: int = Field(
        default=DEFAULT_CASE_TEXT_CHARS,
        ge=0,
        le=100_000,
        description=(
            "Trace text kept per finding for GET /v1/findings/cases (question, answer, then "
            "passages, redacted like the claim, cut to this many chars in all); 0 keeps none. "
            "Never kept in redaction mode drop_text."
        ),
    )


class RedactionSettings(BaseModel):
    mode: Literal["off", "mask", "hash", "drop_text"] = Field(
        default="mask", description="How PII is removed before anything is stored or published."
    )
    hash_key: SecretStr | None = Field(
        default=None, description="Key of the keyed hash (mode=hash)."
    )
    kinds: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["email", "phone", "card", "iban", "ip", "api_key", "jwt"],
        description="Built-in detectors enabled (JSON list or comma-separated).",
    )
    patterns: dict[str, str] = Field(
        default_factory=dict, description='Operator patterns, JSON {"name": "regex"}.'
    )

    @field_validator("kinds", mode="before")
    @classmethod
    def _kind_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [k.strip() for k in text.split(",") if k.strip()]
        return value


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


class Settings(BaseSettings):
    """All of groundwatch's configuration. ``Settings()`` reads ``GROUNDWATCH_*`` variables."""

    model_config = SettingsConfigDict(
        env_prefix="GROUNDWATCH_", env_nested_delimiter="__", extra="ignore"
    )

    log_level: str = Field(default="INFO", description="Log level.")
    state: Literal["auto", "memory", "redis"] = Field(
        default="auto", description="Window/findings store: auto = redis when REDIS__URL is set."
    )
    api: ApiSettings = Field(default_factory=ApiSettings)
    limits: TraceLimits = Field(default_factory=TraceLimits)
    kafka: KafkaSettings = Field(default_factory=KafkaSettings)
    redis: RedisSettings = Field(default_factory=RedisSettings)
    sampling: SamplingSettings = Field(default_factory=SamplingSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    windows: WindowSettings = Field(default_factory=WindowSettings)
    findings: FindingsSettings = Field(default_factory=FindingsSettings)
    redaction: RedactionSettings = Field(default_factory=RedactionSettings)
    otel: OtelSettings = Field(default_factory=OtelSettings)
