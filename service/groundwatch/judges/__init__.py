"""Judges: a RagTrace in, verdicts per claim out. The judge protocol (``base``), the backends
(``embedded``, ``nli``, ``tei``, ``openai``), what they share (``claims``, ``slots``, ``refusal``,
``_evidence``, ``_http``), the sentence embedding model (``embedding``) and
``factory.build_judge(settings)``, which picks one from ``GROUNDWATCH_JUDGE__BACKEND``.
Judges import only ``contract``, ``settings`` and each other: never state, the API or the CLI.
"""

from groundwatch.judges.base import ClaimJudgement, Judge, JudgeError, TraceJudgement

__all__ = ["ClaimJudgement", "Judge", "JudgeError", "TraceJudgement"]
