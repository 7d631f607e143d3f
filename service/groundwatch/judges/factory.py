"""Builds the configured judge backend from its settings sections.

Usage::

    judge = build_judge(settings.judge, settings.embedding)   # GROUNDWATCH_JUDGE__BACKEND=...
    judge.load()
    judge = build_judge(JudgeSettings(backend="tei", tei_url=url))   # embedding: the defaults

Backends are imported only when chosen, so an ``embedded`` deployment never imports torch or
opens a socket. Optional knobs not (yet) in :class:`JudgeSettings` are read with defaults.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from groundwatch.judges.base import Judge
from groundwatch.judges.embedding import Embedder, build_embedder
from groundwatch.sections.judging import EmbeddingSettings, JudgeSettings

__all__ = ["build_judge"]


def _opt(judge: JudgeSettings, name: str, default: Any) -> Any:
    value = getattr(judge, name, None)
    return default if value is None else value


def build_judge(
    judge: JudgeSettings,
    embedding: EmbeddingSettings | None = None,
    *,
    embedder: Embedder | None = None,
    backend: str | None = None,
) -> Judge:
    """The judge named by ``judge.backend`` (or ``backend``, with the other judge settings as
    configured: a benchmark measuring one backend), its verdicts checked against the values its
    claims state (:class:`~groundwatch.judges.checked.ValueCheckedJudge`, the same for every
    backend); raises ``ValueError`` when misconfigured. The sentence embedder is ``embedder``
    when given, else built from ``embedding`` (the ``embedding`` section; its defaults when
    None)."""
    from groundwatch.judges.checked import ValueCheckedJudge

    return ValueCheckedJudge(
        _backend_judge(judge, embedding or EmbeddingSettings(), embedder, backend=backend)
    )


def _backend_judge(
    judge: JudgeSettings,
    embedding: EmbeddingSettings,
    embedder: Embedder | None = None,
    *,
    backend: str | None = None,
) -> Judge:
    js = judge if backend is None else judge.model_copy(update={"backend": backend})
    if js.backend == "embedded":
        from groundwatch.judges.embedded import EmbeddedJudge

        return EmbeddedJudge(
            embedder if embedder is not None else build_embedder(embedding),
            relevance_threshold=js.relevance_threshold,
        )
    if js.backend == "verifier":
        from groundwatch.judges.verdict import VerdictModel
        from groundwatch.judges.verified import VerifiedJudge

        # An adapted calibration (groundwatch judge adapt) only when a setting names it.
        path = _opt(js, "calibration_path", None)
        return VerifiedJudge(
            embedder if embedder is not None else build_embedder(embedding),
            relevance_threshold=js.relevance_threshold,
            verdicts=VerdictModel.load(Path(str(path))) if path else None,
        )
    if js.backend == "nli":
        from groundwatch.judges.remote.nli import NliJudge

        if not js.nli_model_dir:
            raise ValueError("judge backend nli needs GROUNDWATCH_JUDGE__NLI_MODEL_DIR")
        return NliJudge(
            js.nli_model_dir,
            embedder=embedder,
            relevance_threshold=js.relevance_threshold,
            contradiction_threshold=float(_opt(js, "nli_contradiction_threshold", 0.5)),
            top_k=int(_opt(js, "nli_top_k", 3)),
            batch_size=int(_opt(js, "nli_batch_size", 16)),
            max_length=int(_opt(js, "nli_max_length", 512)),
            device=str(_opt(js, "nli_device", "cpu")),
        )
    if js.backend == "openai":
        from groundwatch.judges.remote.openai import OpenAIJudge

        if not js.openai_base_url:
            raise ValueError("judge backend openai needs GROUNDWATCH_JUDGE__OPENAI_BASE_URL")
        return OpenAIJudge(
            js.openai_base_url,
            model=js.openai_model,
            api_key=js.openai_api_key,
            timeout_s=js.openai_timeout_s,
            max_retries=js.openai_max_retries,
            concurrency=js.openai_concurrency,
            price_per_1k_input=js.openai_price_per_1k_input,
            price_per_1k_output=js.openai_price_per_1k_output,
            relevance_threshold=js.relevance_threshold,
            trace_timeout_s=js.timeout_s,
            backoff_base_s=float(_opt(js, "openai_backoff_base_s", 0.5)),
            backoff_max_s=float(_opt(js, "openai_backoff_max_s", 20.0)),
            max_output_tokens=int(_opt(js, "openai_max_output_tokens", 1024)),
            max_passage_chars=int(_opt(js, "openai_max_passage_chars", 4000)),
            json_mode=bool(_opt(js, "openai_json_mode", True)),
        )
    if js.backend == "tei":
        from groundwatch.judges.remote.tei import TeiJudge

        if not js.tei_url:
            raise ValueError("judge backend tei needs GROUNDWATCH_JUDGE__TEI_URL")
        return TeiJudge(
            js.tei_url,
            nli_url=_opt(js, "tei_nli_url", None),
            api_key=_opt(js, "tei_api_key", None),
            relevance_threshold=js.relevance_threshold,
            support_threshold=float(_opt(js, "tei_support_threshold", 0.5)),
            contradiction_threshold=float(_opt(js, "tei_contradiction_threshold", 0.5)),
            top_k=int(_opt(js, "tei_top_k", 3)),
            batch_size=int(_opt(js, "tei_batch_size", 32)),
            timeout_s=float(_opt(js, "tei_timeout_s", 10.0)),
            max_retries=int(_opt(js, "tei_max_retries", 3)),
            concurrency=int(_opt(js, "tei_concurrency", 8)),
            trace_timeout_s=js.timeout_s,
        )
    raise ValueError(f"unknown judge backend {js.backend!r}")
