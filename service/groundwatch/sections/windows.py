"""The ``windows`` and ``findings`` sections: time buckets, drift tests, slice labels and the
findings kept (``GROUNDWATCH_WINDOWS__*``, ``GROUNDWATCH_FINDINGS__*``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

__all__ = [
    "DEFAULT_CASE_TEXT_CHARS",
    "FindingsSettings",
    "WindowSettings",
]

#: Longest time span a window, retention or TTL setting may name (a little over a year).
_MAX_SPAN_S = 400 * 86400


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
