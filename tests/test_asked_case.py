"""A short answer's value stated beside another case only, where the question names that other
case (:func:`groundwatch.judges.cases.check_asked_case`). Written before the judge was run on
them (Session 52)."""

from __future__ import annotations

import pytest

from groundwatch.judges.cases import absent_words
from groundwatch.judges.values.contrast import other_case, own_case
from groundwatch.judges.values.stated import stated_values
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

BAGS = ["Checked baggage allowance: Economy 23 kg, Business 32 kg and First 2 × 32 kg."]
CARD = [
    "The Silverline card charges a late payment fee of £12, a returned payment fee of £15 and "
    "a foreign transaction fee of 2.99%."
]
TYRES = ["Tyre pressures for the Vantor: front 2.4 bar, rear 2.6 bar."]
PLAN = [
    "The Orbit phone plan includes 30 GB of data for the first 12 months and 20 GB after that, "
    "with unlimited calls."
]
MENU = ["At Olive & Thyme the weekday lunch menu is £18 and the dinner tasting menu is £45."]
MUSEUM = ["The Harwood Museum charges $14 for adults and $9 for students; under-5s enter free."]


def test_the_other_case_and_the_words_that_name_it() -> None:
    [value] = stated_values("The rear pressure is 2.4 bar.")
    hit = other_case(value, TYRES, exact=True)
    assert hit is not None
    assert (hit.agreed, hit.stated, hit.other, hit.sentence) == ("2.4 bar", "2.6 bar", ("rear",), 0)
    # the value's own case named: no other case
    [value] = stated_values("The front pressure is 2.4 bar.")
    assert other_case(value, TYRES, exact=True) is None


WRONG: list[Case] = [
    ("What is the checked baggage allowance in Economy?", BAGS, "32 kg", False),
    ("How much is the late payment fee on the Silverline card?", CARD, "£15", False),
    ("What pressure should the Vantor's rear tyres be?", TYRES, "2.4 bar", False),
    # the kind of value asked ("ticket") names no case, whether or not the passage says it
    ("How much is a Harwood Museum ticket for a student?", MUSEUM, "$14", False),
]
#: Limit: a case named by a phrase the value's clause shares ("for the first 12 months" /
#: "after the first year") is not told apart; the answer is supported.
SHARED_WORDS: list[Case] = [
    ("How much data does the Orbit plan give after the first year?", PLAN, "30 GB", False),
]

RIGHT: list[Case] = [
    ("What is the checked baggage allowance in Economy?", BAGS, "23 kg", True),
    ("How much is the returned payment fee on the Silverline card?", CARD, "£15", True),
    ("What pressure should the Vantor's rear tyres be?", TYRES, "2.6 bar", True),
    # a case no passage mentions: the value may be that case's, stated nowhere
    ("What does the Sunday brunch cost at Olive & Thyme?", MENU, "£18", True),
    ("How much is the cash advance fee on the Silverline card?", CARD, "£12", True),
    # a yes/no question names its case in what it asks, not as a wh-question's case
    ("Is the late payment fee on the Silverline card £12?", CARD, "Yes, it is £12.", True),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_another_cases_value_is_not_supported(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_the_asked_cases_value_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)


def test_another_cases_value_is_contradicted_by_the_verifier() -> None:
    assert_right_and_wrong("verifier", WRONG, wrong="contradicted")


@pytest.mark.xfail(reason="a case named by words both clauses share is not told apart", strict=True)
def test_a_case_named_by_shared_words() -> None:
    assert_right_and_wrong("verifier", SHARED_WORDS)


ROOMS = ["The standard room rate is £120 on weeknights and £150 on Fridays and Saturdays."]
PARKING = ["Parking at the depot costs £4 for up to 2 hours and £9 for a full day."]


def test_a_value_in_its_own_cases_clause() -> None:
    """A clause that opens with its value ("and £150 on Fridays") shares the sentence's subject:
    the words that tell the cases apart are the ones beside each value."""
    [value] = stated_values("A room on a Friday costs £150.")
    assert own_case(value, ROOMS)
    [value] = stated_values("A room on a weeknight costs £150.")
    assert not own_case(value, ROOMS)
    assert other_case(value, ROOMS) is not None


#: Limit: the backend's contradiction stands; vetoing it where the claim's words name the
#: value's own clause cost the triage and polarity sets one true contradiction each (Session 52).
ROOM_ON_SATURDAY: list[Case] = [
    ("How much is a room on a Saturday?", ROOMS, "On a Saturday a room costs £150.", True),
]


@pytest.mark.xfail(reason="a backend's value conflict is not vetoed by case words", strict=True)
def test_a_value_the_backend_contradicts_in_its_own_clause() -> None:
    assert_right_and_wrong("verifier", ROOM_ON_SATURDAY)


OWN: list[Case] = [
    ("How much is a full day's parking at the depot?", PARKING, "A full day costs £9.", True),
    ("How much is a full day's parking at the depot?", PARKING, "£9", True),
]


def test_a_value_in_its_own_cases_clause_is_supported() -> None:
    assert_right_and_wrong("verifier", OWN, right_supported=True)


def test_the_kind_of_value_asked_names_no_case() -> None:
    """ "How much area ...", "a planetarium ticket": the words naming what kind of value is
    asked are no case the passages must mention (Session 52); the case words are."""
    passage = ["Planetarium shows cost $10 for adults and $8 for students."]
    assert absent_words("How much is a planetarium ticket for a student?", passage) == []
    assert absent_words("How much is a planetarium ticket for a pensioner?", passage) == [
        "pensioner"
    ]
