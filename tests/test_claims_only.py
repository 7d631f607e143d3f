"""The claims-only path the suite's probes use gives the claim verdicts of the full path.

Every probe (reference answer and nugget checked against the assistant's answer) of the worked
example's 44 cases, answered by its toy assistant in both configurations, is judged twice: by
``evaluate_batch`` and by ``evaluate_claims_batch``. The claims (text, verdict, score, evidence,
reason) must be equal, for the embedded judge and for the verifier judge; a judge without a
claims-only path is asked for the whole trace.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.judges.base import ClaimsJudge, JudgeError, TraceJudgement
from groundwatch.judges.embedded import EmbeddedJudge
from groundwatch.judges.embedding import CachedEmbedder, build_embedder
from groundwatch.judges.verified import VerifiedJudge
from groundwatch.sections.judging import EmbeddingSettings
from groundwatch.suite.cases import EvalCase
from groundwatch.suite.generation import generation_probes
from tests.modules import load_script

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "suite"


def _toy() -> ModuleType:
    return load_script(EXAMPLE / "toy_assistant.py", "toy_assistant")


def _probe_traces() -> list[RagTrace]:
    toy = _toy()
    kb = toy.passages()
    cases = [
        EvalCase.model_validate(json.loads(line))
        for line in (EXAMPLE / "cases.jsonl").read_text().splitlines()
    ]
    out: dict[tuple[str, str, str], RagTrace] = {}
    for config_file in ("baseline.json", "candidate.json"):
        config = json.loads((EXAMPLE / config_file).read_text())
        for case in cases:
            trace = RagTrace.model_validate(
                {"trace_id": case.id, **toy.answer(case.question, config, kb)}
            )
            for probe in generation_probes(case, trace):
                out.setdefault(probe.key, probe.trace)
    return list(out.values())


@pytest.fixture(scope="module")
def embedder() -> CachedEmbedder:
    return build_embedder(EmbeddingSettings())


# Yes/no facts about a comparison: their verdict also depends on whether the passage (the
# assistant's answer) is relevant to the question, so the claims-only path must compute that.
_COMPARISONS = [
    (
        "Are the Pro and Team plans both billed monthly?",
        "Pro and Team are charged every month.",
        "Yes.",
    ),
    (
        "Do the ferry and the bus take the same time?",
        "The crossing takes 90 minutes; the coach needs about two hours.",
        "No.",
    ),
    (
        "Is the north trail more demanding than the river path?",
        "The north trail climbs 600 metres in 4 km; the river path is flat.",
        "Yes.",
    ),
    (
        "Are the museum and the gallery both open on Mondays?",
        "Opening days: Tuesday to Sunday for both venues.",
        "No.",
    ),
]


@pytest.fixture(scope="module")
def probes() -> list[RagTrace]:
    traces = _probe_traces() + [
        RagTrace(trace_id=f"cmp{i}", question=q, contexts=[passage], answer=fact)
        for i, (q, passage, fact) in enumerate(_COMPARISONS)
    ]
    assert len(traces) >= 60  # the example's probes, both configurations
    return traces


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["embedded", "verifier"])
def test_claims_only_gives_the_full_paths_claims(
    kind: str, embedder: CachedEmbedder, probes: list[RagTrace]
) -> None:
    judge = EmbeddedJudge(embedder) if kind == "embedded" else VerifiedJudge(embedder)
    judge.load()
    assert isinstance(judge, ClaimsJudge)
    evaluator = Evaluator(judge)
    full = evaluator.evaluate_batch(probes)
    slim = evaluator.evaluate_claims_batch(probes)
    assert [r.status for r in slim] == [r.status for r in full]
    assert [[c.model_dump() for c in r.claims] for r in slim] == [
        [c.model_dump() for c in r.claims] for r in full
    ]
    verdicts = {c.verdict for r in full for c in r.claims}
    assert {"supported", "not_found"} <= verdicts  # the comparison covers more than one verdict
    # What a probe does not need is not computed: no relevance, no answer relevance.
    assert all(r.contexts == [] and r.answer_relevance is None for r in slim)
    assert any(r.contexts for r in full)


class _WholeTraceOnly:
    """A judge with no claims-only path (an HTTP backend, say): counts its calls."""

    version = "fake/1"
    backend = "fake"

    def __init__(self) -> None:
        self.calls = 0

    def load(self) -> None: ...

    def ready(self) -> bool:
        return True

    def close(self) -> None: ...

    def judge_batch(self, traces: Sequence[RagTrace]) -> list[TraceJudgement | JudgeError]:
        self.calls += 1
        return [
            TraceJudgement(
                claims=[],
                context_relevance=[0.9] * len(t.contexts),
                relevance_threshold=0.5,
                answer_relevance=0.8,
                refusal=False,
                context_tokens=3,
            )
            for t in traces
        ]


def test_a_judge_without_a_claims_only_path_scores_the_whole_trace() -> None:
    judge = _WholeTraceOnly()
    assert not isinstance(judge, ClaimsJudge)
    trace = RagTrace(trace_id="t", question="q?", contexts=["passage"], answer="a.")
    (record,) = Evaluator(judge).evaluate_claims_batch([trace])
    assert judge.calls == 1
    assert record.status == "scored"
    assert record.answer_relevance == 0.8
    assert Evaluator(judge).evaluate_claims_batch([]) == []
