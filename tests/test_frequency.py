"""How often, read as one value per day (judges/values/frequency), and compared like any value."""

from __future__ import annotations

import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.judges.values.frequency import frequency_spans
from groundwatch.judges.values.parallel import clauses
from groundwatch.judges.values.stated import stated_values
from tests.judged import LOCAL_BACKENDS, local_evaluator


@pytest.mark.parametrize(
    ("text", "per_day"),
    [
        ("Take 10 mL once daily.", 1.0),
        ("twice a day", 2.0),
        ("Apply three times a day after washing.", 3.0),
        ("Take 1 tablet 4 times daily", 4.0),
        ("Change the filter twice a year.", 2 / 365),
        ("once a week", 1 / 7),
        ("Used nightly", None),
        ("He was twice the age", None),
    ],
)
def test_a_frequency_is_one_value_per_day(text: str, per_day: float | None) -> None:
    spans = frequency_spans(text)
    if per_day is None:
        assert spans == []
    else:
        [(start, end, value)] = spans
        assert value == pytest.approx(per_day)
        assert text[start:end].rsplit(maxsplit=1)[-1] in ("daily", "day", "year", "week")


def test_a_stated_frequency_is_no_bare_count() -> None:
    [freq] = [v for v in stated_values("Take two tablets twice a day.") if v.kind == "freq"]
    assert freq.text == "twice a day"
    assert [v.kind for v in stated_values("Take two tablets twice a day.")].count("n:") == 0


def test_and_before_a_value_cuts_only_between_two_values() -> None:
    assert clauses("Adults and children over 12: 10 mL once daily.") == (
        "Adults and children over 12: 10 mL once daily",
    )
    assert clauses("children aged 2 to 5, 5 mL once daily; adults and children over 12, 10 mL") == (
        "children aged 2 to 5, 5 mL once daily",
        "adults and children over 12, 10 mL",
    )


SYRUP = (
    "Loratadine syrup 1 mg/mL: children aged 2 to 5 years, 5 mL once daily; adults and "
    "children over 12, 10 mL twice daily."
)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_another_cases_frequency_is_contradicted(backend: str) -> None:
    evaluator = local_evaluator(backend)
    question = "How often should adults take the loratadine syrup?"
    traces = [
        RagTrace(trace_id=a, question=question, contexts=[SYRUP], answer=a)
        for a in ("Once a day", "Twice a day")
    ]
    wrong, right = ([c.verdict for c in r.claims] for r in evaluator.evaluate_batch(traces))
    assert wrong == ["contradicted"]
    assert "contradicted" not in right
