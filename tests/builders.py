"""The settings and trace builders of the whole suite (issues 16, 48).

A component takes its own settings section, so a test builds only that section; the whole
``Settings`` is for tests of the composition root (``Runtime.build``, the CLI).

Usage::

    from tests.builders import build_redis, build_settings, build_trace, build_windows
    windows = build_windows(DRIFT_WINDOWS, min_samples=5)      # a WindowSettings
    redis = build_redis(server.url, unique_name)               # a RedisSettings (url, key prefix)
    store = RedisWindowStore(redis_client(redis), windows, redis)
    settings = build_settings(api={"tokens": ["t" * 24]}, redaction={"mode": "mask"})
    trace = build_trace("t-1", answer="...")              # JSON-ready dict (contract v1)
    rag = build_rag_trace("t-2", ts=1.7e9)                # validated RagTrace

Tests that prefer fixtures ask for ``settings_factory`` / ``windows_factory`` /
``redis_factory`` / ``trace_factory`` / ``rag_trace_factory`` (tests/plugins.py), which return
these functions.
"""

from __future__ import annotations

from typing import Any

from groundwatch.contract.trace import RagTrace, TraceLimits
from groundwatch.sections.connections import KafkaSettings, RedisSettings
from groundwatch.sections.pipeline import SamplingSettings
from groundwatch.sections.windows import WindowSettings
from groundwatch.settings import Settings

__all__ = [
    "BASE_SETTINGS",
    "DRIFT_WINDOWS",
    "STORE_WINDOWS",
    "build_pipeline_settings",
    "build_rag_trace",
    "build_redis",
    "build_settings",
    "build_trace",
    "build_windows",
    "merge",
]

# In-memory state and no redaction: a test that needs Redis, Kafka or PII masking says so.
BASE_SETTINGS: dict[str, Any] = {"state": "memory", "redaction": {"mode": "off"}}


# Window layout of the drift tests: 10 s buckets, a 5-minute current window against a 30-minute
# reference, 20 samples minimum; no read cache, because those tests write into old buckets
# between reads. ``build_settings(windows=DRIFT_WINDOWS)``, with overrides merged on top.
DRIFT_WINDOWS: dict[str, Any] = {
    "bucket_s": 10,
    "rollup_s": 100,
    "fine_retention_s": 3600,
    "retention_s": 7200,
    "min_samples": 20,
    "current_window_s": 300,
    "reference_window_s": 1800,
    "export_windows_s": {"5m": 300, "1h": 3600},
    "slice_keys": ["tenant"],
    "read_cache_s": 0,
}

# Window layout of the store tests: one-minute buckets, ten-minute rollups, an hour of fine
# buckets in two hours kept, 3 samples minimum and 10 histogram bins.
# ``build_windows(STORE_WINDOWS)``, with overrides merged on top.
STORE_WINDOWS: dict[str, Any] = {
    "bucket_s": 60,
    "rollup_s": 600,
    "fine_retention_s": 3600,
    "retention_s": 7200,
    "min_samples": 3,
    "histogram_bins": 10,
}


def merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """``base`` updated with ``overrides``, nested dicts merged key by key (not replaced)."""
    out = dict(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def build_settings(base: dict[str, Any] | None = None, **overrides: Any) -> Settings:
    """Settings from :data:`BASE_SETTINGS` (or ``base``) with nested ``overrides`` merged in;
    validated like the environment would be, so a bad override fails the test."""
    return Settings.model_validate(merge(BASE_SETTINGS if base is None else base, overrides))


def build_windows(base: dict[str, Any] | None = None, **overrides: Any) -> WindowSettings:
    """The ``windows`` section: the defaults, or ``base`` (e.g. :data:`DRIFT_WINDOWS`), with
    ``overrides`` merged in; validated, so a bad override fails the test."""
    return WindowSettings.model_validate(merge(base or {}, overrides))


def build_redis(url: str | None = None, prefix: str = "gw", **overrides: Any) -> RedisSettings:
    """The ``redis`` section for a store on ``url`` (None: no server, e.g. for the memory
    store's re-delivery horizon) under key prefix ``prefix``, with ``overrides``."""
    return RedisSettings.model_validate({"url": url, "key_prefix": prefix, **overrides})


def build_pipeline_settings(
    bootstrap: str, redis_url: str, name: str, rate: float = 1.0
) -> Settings:
    """The whole Settings of a Kafka consumer pipeline under test (a harness wiring the consumer,
    the Redis stores and the sampler, as the composition root does): topic ``name`` with its
    ``.dlq`` and ``.results`` topics, group ``name-g``, a short session and commit interval, Redis
    under key prefix ``name``, sampling at ``rate``, traces up to 20 kB."""
    return Settings(
        kafka=KafkaSettings(
            bootstrap_servers=bootstrap,
            topic=name,
            dlq_topic=f"{name}.dlq",
            results_topic=f"{name}.results",
            group_id=f"{name}-g",
            client_id=name,
            session_timeout_ms=6000,
            heartbeat_interval_ms=1000,
            commit_interval_s=0.2,
        ),
        redis=build_redis(redis_url, name),
        sampling=SamplingSettings(rate=rate),
        limits=TraceLimits(max_bytes=20_000),
    )


def build_trace(trace_id: str = "t-1", **overrides: Any) -> dict[str, Any]:
    """A valid trace (contract v1) as a JSON-ready dict; ``overrides`` replace top-level fields."""
    trace: dict[str, Any] = {
        "trace_id": trace_id,
        "question": "When does the discount apply?",
        "contexts": [
            {"id": "p1", "text": "The discount applies from renewal.", "score": 0.8},
            "Renewals happen yearly.",
        ],
        "answer": "The discount applies from renewal.",
        "attributes": {"tenant": "acme"},
    }
    trace.update(overrides)
    return trace


def build_rag_trace(trace_id: str = "t-1", **overrides: Any) -> RagTrace:
    """:func:`build_trace` validated into a :class:`RagTrace`."""
    return RagTrace.model_validate(build_trace(trace_id, **overrides))
