"""Two alternatives written side by side ("128 GB or 256 GB") are values of one attribute:
neither aligns better than the other with what is asked. Written before the judge was run on
them (Session 48); the two ends of a span of clock times are a known limit (below)."""

from __future__ import annotations

import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.judges.values.stated import stated_values
from tests.judged import LOCAL_BACKENDS, local_evaluator


@pytest.mark.parametrize(
    "sentence",
    [
        "It comes with 128 GB or 256 GB of storage.",
        "Tickets cost £12 or £15 on the door.",
    ],
)
def test_joined_values_share_one_attribute(sentence: str) -> None:
    first, second = stated_values(sentence)
    assert dict(first.attribute) == dict(second.attribute)


def test_values_of_two_clauses_keep_their_own() -> None:
    prices = list(stated_values("Adults pay £12, and children under 16 pay £6."))
    first, second = prices[0], prices[-1]
    assert (first.text, second.text) == ("£12", "£6")
    assert dict(first.attribute) != dict(second.attribute)


def _never_held_back(backend: str, cases: list[tuple[str, list[str], str]]) -> None:
    traces = [
        RagTrace(trace_id=str(i), question=q, contexts=ctx, answer=a)
        for i, (q, ctx, a) in enumerate(cases)
    ]
    judged = local_evaluator(backend).evaluate_batch(traces)
    for (q, _, a), record in zip(cases, judged, strict=True):
        for c in record.claims:
            assert c.verdict != "contradicted", (q, a, c)
            assert "stated otherwise" not in (c.reason or ""), (q, a, c)


LYRA = ["The Lyra 5 has a 6.4-inch screen and comes with 128 GB or 256 GB of storage."]
HOURS = ["The museum is open 10 am to 5 pm daily; the café opens at 9 am."]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_either_alternative_is_accounted_for(backend: str) -> None:
    _never_held_back(
        backend,
        [
            ("What storage does the Lyra 5 come with?", LYRA, "128 GB or 256 GB"),
            ("Which storage sizes can I choose for the Lyra 5?", LYRA, "256 GB"),
        ],
    )


@pytest.mark.xfail(
    strict=True,
    reason="known limit: the two ends of 'open 10 am to 5 pm daily' align by their positions "
    "in the clause, so one of them is held back ('value stated otherwise') for either "
    "question, and 'close' is not written at all. Reading the second end "
    "as the closing time was tried: a true 'The café shuts at 4 pm' was then contradicted by "
    "the centre's 4:30 pm closing on the values dev set (Session 48)",
)
@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_each_end_of_a_span_is_accounted_for(backend: str) -> None:
    _never_held_back(
        backend,
        [
            ("When does the museum open?", HOURS, "At 10 am"),
            ("When does the museum close?", HOURS, "At 5 pm"),
        ],
    )
