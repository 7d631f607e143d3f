"""The local judges (values check included), loaded once per test session and backend."""

from __future__ import annotations

from functools import cache

from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.judges.factory import build_judge
from groundwatch.settings import JudgeSettings

#: The local backends every values test judges with.
LOCAL_BACKENDS = ("verifier", "embedded")


@cache
def local_evaluator(backend: str) -> Evaluator:
    """An evaluator around ``backend`` with default settings, loaded."""
    judge = build_judge(JudgeSettings(), backend=backend)
    judge.load()
    return Evaluator(judge)
