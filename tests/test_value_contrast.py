"""A value the passage states for one case, claimed for its neighbour's: the words of each value's
clause tell the two cases apart (:mod:`groundwatch.judges.values.contrast`). Written before the
judge was run on them (Session 50)."""

from __future__ import annotations

import pytest

from groundwatch.judges.values.contrast import other_case, other_name
from groundwatch.judges.values.stated import stated_values
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

CHILI = ["Cook the chili on LOW for 8 hours or on HIGH for 4 to 5 hours."]
CLASSES = ["Members pay £6 per class and non-members pay £9 per class."]
POOL = ["The pool opens at 7:00 and closes at 21:00."]
TRAIN = ["The first Sunday train leaves Leeds at 9:15 and arrives in York at 9:44."]
FLAT = ["Two-bedroom flat: £1,150 pcm, deposit of five weeks' rent (£1,326)."]
CHAPEL = [
    "The Lorne Chapel was built by the mason Hugh Dalby in 1702; its ceiling was painted by "
    "Margaret Ives."
]
CLUB = [
    "The Ashby Rowing Club was founded by Thomas Kerr in 1884, while its boathouse was designed "
    "by Edith Lowe."
]
SWISS = [
    "Bern, the Swiss capital, has about 140,000 residents, while Zurich, the largest city, has "
    "over 420,000. Bern became the federal city in 1848 as a compromise between Zurich and "
    "Lucerne."
]
KILN = ["The kiln fires bisque ware at 1,000 °C, while glaze firings reach 1,240 °C."]


def _case(claim: str, passage: list[str]) -> str | None:
    values = stated_values(claim)
    for v in values:
        hit = other_case(v, passage, [o for o in values if o is not v])
        if hit is not None:
            return hit.stated
    return None


def test_a_claim_naming_the_neighbouring_case() -> None:
    assert _case("On the high setting it needs 8 hours.", CHILI) == "4 to 5 hours"
    assert _case("Non-members pay £6 per class.", CLASSES) == "£9"
    assert _case("A glaze firing reaches 1,000 °C.", KILN) == "1,240 °C"


def test_a_claim_naming_its_own_case() -> None:
    assert _case("On the low setting it needs 8 hours.", CHILI) is None
    assert _case("Members pay £6 per class.", CLASSES) is None
    assert _case("Bisque ware is fired at 1,000 °C.", KILN) is None


def test_what_tells_nothing_apart() -> None:
    # the sentence's topic, said once for both values
    assert _case("The pool is open until 21:00.", POOL) is None
    # a claim that states both values
    assert _case("The train leaves Leeds at 9:15 and gets into York at 9:44.", TRAIN) is None
    # the period tells the rent from a deposit that mentions the rent
    assert _case("The rent is £1,150 a month.", FLAT) is None
    # a case named by a value ("the two-year fix") is no value stated of a case
    assert (
        _case(
            "The two-year fix dropped from 5.61% to 5.39%.",
            [
                "The two-year fix fell to 5.39% from 5.61%, while the five-year fix dropped to 5.01%."
            ],
        )
        is None
    )


def test_a_name_given_what_the_sentence_says_of_another() -> None:
    q = "Who painted the ceiling of the Lorne Chapel?"
    assert other_name(q, "Hugh Dalby", "Margaret Ives", CHAPEL[0]) == ("ceil", "paint")
    assert other_name(q, "Margaret Ives", "Hugh Dalby", CHAPEL[0]) == ()
    q = "Who founded the Ashby Rowing Club?"
    assert other_name(q, "Edith Lowe", "Thomas Kerr", CLUB[0]) != ()
    assert other_name(q, "Thomas Kerr", "Edith Lowe", CLUB[0]) == ()
    # two names in one clause: nothing tells their parts apart
    assert (
        other_name(q, "Thomas Kerr", "Edith Lowe", "Thomas Kerr and Edith Lowe founded it.") == ()
    )


WRONG: list[Case] = [
    ("How long does the chili take on high?", CHILI, "On the high setting it needs 8 hours.", False),
    ("What do non-members pay?", CLASSES, "Non-members pay £6 per class.", False),
    ("How hot is a glaze firing?", KILN, "A glaze firing reaches 1,000 °C.", False),
    ("Who painted the ceiling of the Lorne Chapel?", CHAPEL, "Hugh Dalby", False),
    ("Who founded the Ashby Rowing Club?", CLUB, "Edith Lowe", False),
    ("What is the largest city in Switzerland?", SWISS, "Bern", False),
    # both values stated, each for the other's case
    ("How many teeth does a kitten have?",
     ["Adult cats have 30 teeth, while kittens have 26 milk teeth."],
     "Kittens are born to grow 30 teeth, and adult cats end up with 26.", False),
]  # fmt: skip

RIGHT: list[Case] = [
    ("How long does the chili take on low?", CHILI, "On the low setting it needs 8 hours.", True),
    ("When does the pool close?", POOL, "The pool is open until 21:00.", True),
    ("How much is the rent?", FLAT, "The rent is £1,150 a month.", True),
    ("Who painted the ceiling of the Lorne Chapel?", CHAPEL, "Margaret Ives", True),
    ("Who founded the Ashby Rowing Club?", CLUB, "Thomas Kerr", True),
    # named again in a sentence about another case ("a compromise between Zurich and ...")
    ("What is the largest city in Switzerland?", SWISS, "Zurich", True),
]  # fmt: skip


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_value_of_the_neighbouring_case_is_not_supported(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_value_of_its_own_case_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)
