"""The ``judge`` and ``embedding`` sections: which judge backend scores traces, with what
bounds, and how the sentence embedding model runs (``GROUNDWATCH_JUDGE__*``,
``GROUNDWATCH_EMBEDDING__*``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, SecretStr

__all__ = [
    "EmbeddingSettings",
    "JudgeSettings",
]


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
