"""Judge backends. ``build_judge(settings)`` picks one from ``GROUNDWATCH_JUDGE__BACKEND``."""

from groundwatch.judges.base import ClaimJudgement, Judge, JudgeError, TraceJudgement

__all__ = ["ClaimJudgement", "Judge", "JudgeError", "TraceJudgement"]
