"""The local judges (values check included), loaded once per test session and backend."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from groundwatch.contract.trace import RagTrace
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


#: A labelled answer: (question, passages, answer, whether the answer is right).
Case = tuple[str, Sequence[str], str, bool]


def assert_right_and_wrong(
    backend: str, cases: Sequence[Case], *, wrong: str = "", right_supported: bool = False
) -> None:
    """Judge each case with ``backend``: a right answer is never contradicted (with
    ``right_supported``, the verifier supports it); a wrong one is never supported (with
    ``wrong``, every claim has that verdict)."""
    traces = [
        RagTrace(trace_id=str(i), question=q, contexts=list(ctx), answer=a)
        for i, (q, ctx, a, _) in enumerate(cases)
    ]
    records = local_evaluator(backend).evaluate_batch(traces)
    for (q, _, a, right), record in zip(cases, records, strict=True):
        verdicts = {c.verdict for c in record.claims}
        if right:
            assert "contradicted" not in verdicts, (q, a, record.claims)
            if right_supported and backend == "verifier":
                assert verdicts == {"supported"}, (q, a, record.claims)
        elif wrong:
            assert verdicts == {wrong}, (q, a, record.claims)
        else:
            assert "supported" not in verdicts, (q, a, record.claims)
