"""Values read as the cases they name, not as values to compare: a bound written after its value
("£50,000 or less"), a change in percentage points, the question's own case ("the 24-month
contract"), the period a price is for ("a monthly permit"), a sum of two stated values, the
count of a case ("a three-day pass"), and the subject of a yes/no question on "be". Written
before the judge was run on them (Session 49)."""

from __future__ import annotations

import pytest

from groundwatch.judges.claims.target import value_words
from groundwatch.judges.values.alignment import worked_out
from groundwatch.judges.values.quantities import parse_quantities
from groundwatch.judges.values.stated import case_periods, stated_values
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

TAX = [
    "The 25% main rate applies to profits over £250,000, and the 19% small profits rate to "
    "profits of £50,000 or less."
]
CONTRACTS = ["The 12-month contract costs £22 a month and the 36-month contract £16 a month."]
PASSES = ["A one-day pass costs €25 and a three-day pass costs €60."]

RIGHT: list[Case] = [
    # a value within the bound written after another value
    ("What rate does a company with £30,000 profit pay?", TAX,
     "A company with £30,000 of profit pays 19%.", True),
    # a change in percentage points is no percentage
    ("How did unemployment change?",
     ["Unemployment fell to 4.1% in May from 4.4% in April, while inflation held at 2.6%."],
     "Unemployment fell 0.3 percentage points to 4.1%.", True),
    # a sentence opening with common words is no name ("Standard-rate members")
    ("How much is membership?",
     ["Membership of the Kelso Rowing Club costs £45 a year at the standard rate, or £20 for "
      "students."],
     "Standard-rate members pay £45 a year.", True),
    # an aside's "and" does not cut its clause
    ("How much are tickets?",
     ["Tickets at the Halden Planetarium cost $15 for adults, concessions (seniors and "
      "under-18s) pay $9, and members enter free."],
     "Seniors pay $9 and adults pay $15.", True),
    # a sum of two stated values
    ("How much deposit do I pay in total?",
     ["You pay a £1,000 holding deposit when you reserve and a further £500 on exchange."],
     "The total deposit is £1,500.", True),
    ("Is the Nimbus pump quieter than 50 dB?",
     ["The Nimbus pump runs at 45 dB and draws 60 W."], "Yes, it runs at 45 dB.", True),
]  # fmt: skip

NOT_SUPPORTED: list[Case] = [
    # the question's case is not in the passage: not found, never contradicted
    ("What's the price of the 24-month contract?", CONTRACTS, "£18 a month", False),
    # a monthly permit is not priced by a sentence about a daily one
    ("How much is a monthly parking permit?",
     ["A daily parking permit costs £6 and a season ticket costs £400 a year."],
     "A monthly parking permit costs £60.", False),
]  # fmt: skip

CONTRADICTED: list[Case] = [
    ("Is the Aria kettle lighter than 1 kg?",
     ["The Aria kettle weighs 1.3 kg and holds 1.7 litres."], "Yes, it weighs under 1 kg.", False),
    # a yes/no question's value is asserted, not the case asked about
    ("Is the 12-month contract £18 a month?", CONTRACTS,
     "Yes, the 12-month contract is £18 a month.", False),
]  # fmt: skip


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_right_values_of_their_cases_are_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_case_the_passages_lack_is_not_found(backend: str) -> None:
    assert_right_and_wrong(backend, NOT_SUPPORTED, wrong="not_found")


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_values_against_the_asked_case_are_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, CONTRADICTED, wrong="contradicted")


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_the_count_of_a_case_tells_it_apart(backend: str) -> None:
    # the count weighs next to nothing in alignment (at full weight it cost the blind sets 2
    # true contradictions for 1 false support), but it tells the two clauses apart
    # (:mod:`groundwatch.judges.values.contrast`, Session 50)
    assert_right_and_wrong(
        backend, [("What's the fee for the three-day pass?", PASSES, "€25", False)]
    )


def test_a_bound_written_after_its_value() -> None:
    [q] = parse_quantities("profits of £50,000 or less")[0]
    assert q.bound == "upper"
    [q] = parse_quantities("children aged 12 and over")[0]
    assert q.bound == "lower"
    [q] = parse_quantities("it lasts 3 days and more than that")[0]
    assert q.bound == ""


def test_percentage_points_are_not_percentages() -> None:
    [q] = parse_quantities("fell 25 basis points")[0]
    assert q.kind == "ppoint"
    assert q.value == pytest.approx(0.25)
    [q] = parse_quantities("fell 0.3 percentage points")[0]
    assert q.kind == "ppoint"


def test_case_periods() -> None:
    assert case_periods("A weekly travelcard costs £29") == {"week"}
    assert case_periods("£512.40 for one month or £5,336 for a year") == {"month", "year"}
    assert case_periods("a day pass costs £6, or £40 per month") == {"day", "month"}
    assert case_periods("The boat holds 12 people") == frozenset()


def test_worked_out_sums_and_differences() -> None:
    [total] = stated_values("The total is £1,500.")
    parts = stated_values("A £1,000 holding deposit and a further £500 on exchange.")
    assert worked_out(total, parts, "The total is £1,500.")
    # without words that say it is worked out, a sum is no more than a coincidence
    assert not worked_out(total, parts, "The deposit is £1,500.")
    [other] = stated_values("The total is £1,200.")
    assert not worked_out(other, parts, "The total is £1,200.")
    # a value the passage states as it is, for something else, is not worked out
    assert not worked_out(stated_values("It is £500.")[0], parts, "In total it is £500.")


def test_value_words_are_not_looked_up_as_words() -> None:
    assert value_words("Bake it at 175 degrees Celsius for an hour.") >= {"degr", "celsius"}
    assert value_words("It takes a fortnight, or half an hour by car.") >= {"fortnight", "half"}
    # a rate's period or denominator, a noun and an acronym are words of the claim
    assert "pound" not in value_words("Roughly 30 minutes per pound")
    assert "day" not in value_words("Coins are accepted up to £500 a day.")
    assert "year" not in value_words("A year on Venus lasts 243 Earth days.")
    assert "cs" not in value_words("Overrides for 300-level CS courses need approval.")
    # a compound names a case
    assert "year" not in value_words("The five-year fix is 4.29%.")


def test_temperatures_and_gallons_written_out() -> None:
    [c] = stated_values("Bake it at 175 degrees Celsius.")
    [e] = stated_values("Bake at 175 °C.")
    assert (c.kind, e.kind) == ("celsius", "celsius")
    [f] = stated_values("Keep it at 40 degrees F or colder.")
    # a temperature read as Celsius since Session 51 ("350 °F" agrees with "180 °C")
    assert f.kind == "celsius"
    [g] = stated_values("The tank holds 10 imperial gallons.")
    assert g.quantity is not None
    assert g.quantity.value == pytest.approx(45.46)
