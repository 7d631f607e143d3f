"""A claim's case read where it states its value, and a short answer's word read as a word
(:mod:`groundwatch.judges.cases`, :mod:`groundwatch.judges.rules.added_words`). Written before
the judge was run on them (Session 51)."""

from __future__ import annotations

import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.judges.rules.added_words import added_words
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong, local_evaluator

LIBRARY = ["The Eastgate library is open until 8 pm Monday to Friday and until 5 pm on Saturdays."]
PARKING = ["Quayside car park charges £2.50 an hour on weekdays; Sunday parking is a flat £4."]
TRAINS = ["On weekdays the last train to Hexham leaves at 23:10."]
GLASS = ["Glass goes in the green bin; paper and card go in the blue bin."]
SOUP = ["The soup of the day is made with roasted butternut squash, onion and sage."]
POOL = ["Crescent pool: Monday–Friday 06:00–22:00, Saturday 08:00–20:00, Sunday 09:00–18:00."]
PHARMACY = ["Opening hours: Mon–Fri 08:30–19:00, Sat 09:00–13:00, closed Sundays."]
CABIN = ["The Lakeview cabin sleeps up to six guests and has two bedrooms; check-in is from 4 pm."]
FRAME = ["The bike's frame is hand-built from steel tubing and finished in a matt powder coat."]


def test_a_word_opening_the_answer_is_a_word_not_a_name() -> None:
    q = "What colour is the bin for glass?"
    assert added_words(f"{q} Red.", q, GLASS) == ["Red"]
    assert added_words(f"{q} Green.", q, GLASS) == []
    # a capitalised word inside a sentence is still a name, left to the name checks
    q = "Who built the frame?"
    assert added_words(f"{q} It was built by Colnago.", q, FRAME) == []


WRONG: list[Case] = [
    # a value stated for weekdays, claimed for another day beside "as on weekdays"
    ("How late is the Eastgate library open on Saturdays?", LIBRARY,
     "Until 8 pm on Saturdays, the same as on weekdays.", False),
    ("How much is Sunday parking at the Quayside car park?", PARKING,
     "Sunday parking is £2.50 an hour, as on weekdays.", False),
    ("What time is the last Sunday train to Hexham?", TRAINS,
     "The last Sunday train leaves at 23:10, like on weekdays.", False),
    # a list of days with their hours: the hours of the day before
    ("What time does the Crescent pool open on Sundays?", POOL, "6 am", False),
    ("When does the Crescent pool close on Saturdays?", POOL, "At 10 pm.", False),
    ("What time does the pharmacy close on Saturdays?", PHARMACY, "7 pm", False),
    # a count of what "how many" asks, not any number
    ("How many bedrooms does the Lakeview cabin have?", CABIN, "Four.", False),
    ("How many guests can stay in the Lakeview cabin?", CABIN, "Up to eight.", False),
    # a one-word answer no passage has
    ("What colour is the bin for glass?", GLASS, "Red.", False),
    ("Which vegetable is used in the soup?", SOUP, "Carrots.", False),
    ("What material is the frame made of?", FRAME, "Aluminium.", False),
]  # fmt: skip

RIGHT: list[Case] = [
    ("When does the Eastgate library close?", LIBRARY,
     "At 8 pm on weekdays, and at 5 pm on Saturdays.", True),
    ("How much is parking at Quayside?", PARKING,
     "£2.50 an hour on weekdays, and a flat £4 on Sundays.", True),
    ("When is the last train to Hexham on weekdays?", TRAINS,
     "The last weekday train leaves at 23:10.", True),
    ("What time does the Crescent pool open on Saturdays?", POOL, "8 am", True),
    ("When does the Crescent pool close on weekdays?", POOL, "At 10 pm.", True),
    ("What time does the pharmacy open on weekdays?", PHARMACY, "8:30 am", True),
    ("What colour is the bin for glass?", GLASS, "Green.", True),
    ("What material is the frame made of?", FRAME, "Steel.", True),
    ("Which vegetable is used in the soup?", SOUP, "Butternut squash.", True),
]  # fmt: skip


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_value_or_word_of_another_case_is_not_supported(backend: str) -> None:
    # "..., as on weekdays" is a claim of its own, and a true one: the answer is judged by its
    # worst claim, as the values benchmark does
    traces = [
        RagTrace(trace_id=str(i), question=q, contexts=list(ctx), answer=a)
        for i, (q, ctx, a, _) in enumerate(WRONG)
    ]
    for (q, _, a, _), record in zip(WRONG, local_evaluator(backend).evaluate_batch(traces)):
        verdicts = {c.verdict for c in record.claims}
        assert verdicts - {"supported"}, (q, a, record.claims)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_right_answers_are_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)


COUNTED: list[Case] = [
    # the count "how many" asks is the passages' count of it, not the sentence's first number
    ("How many bedrooms does the Lakeview cabin have?", CABIN, "Two.", True),
    ("How many guests can stay in the Lakeview cabin?", CABIN, "No more than six.", True),
    ("How many guests can the Lakeview cabin sleep?", CABIN, "Six.", True),
]


def test_a_bare_count_is_a_count_of_what_is_asked() -> None:
    assert_right_and_wrong("verifier", COUNTED, right_supported=True)
