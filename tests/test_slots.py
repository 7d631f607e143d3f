"""Slot agreement: numbers, units, dates, negation, modality, comparatives."""

from __future__ import annotations

import re

import pytest

from groundwatch.judges.claims.extract import stem
from groundwatch.judges.text.polarity import bound_tokens, polarity_negated, related
from groundwatch.judges.values.agreement import compare_slots
from groundwatch.judges.values.quantities import Quantity, kinds_compatible, same_unit
from groundwatch.judges.values.slots import parse_slots


def _conflicts(claim: str, evidence: str) -> list[str]:
    check = compare_slots(parse_slots(claim), parse_slots(evidence), evidence)
    return check.conflicts


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The refund window is 14 days.", "Refunds are accepted within two weeks."),
        ("The refund window is fourteen days.", "The refund window is 14 days."),
        ("The Danube is about 1,770 miles long.", "The Danube is about 2,850 km long."),
        ("Revenue was $12 million.", "Revenue was 12,000,000 dollars."),
        ("Growth was 5 percent.", "Growth was 5%."),
        ("Shipping takes 4 business days.", "Shipping takes 3-5 business days."),
        ("Parental leave is sixteen weeks.", "Parental leave is 112 days."),
        ("The laptop weighs 2.6 pounds.", "The laptop weighs 1.2 kg."),
        ("He was born on March 2, 1975.", "He was born 2 March 1975 in Paris."),
        (
            "Monthly plans are prorated.",
            "The annual plan is not prorated, but monthly plans are prorated.",
        ),
        ("It ran for 30 years.", "It ran for 30 years, ending in 1999."),
    ],
)
def test_agreeing_slots(claim: str, evidence: str) -> None:
    assert _conflicts(claim, evidence) == []


@pytest.mark.parametrize(
    ("claim", "evidence", "reason"),
    [
        ("Revenue was $12 million.", "Revenue was $18 million.", "number mismatch"),
        ("The fee is 12%.", "The fee is 21%.", "number mismatch"),
        ("Shipping takes 7 business days.", "Shipping takes 3-5 business days.", "number mismatch"),
        ("The Wall fell on 9 November 1991.", "The Wall fell on 9 November 1989.", "date mismatch"),
        ("The company was founded in 1998.", "The company was founded in 2001.", "year mismatch"),
        ("The annual plan is prorated.", "The annual plan is not prorated.", "negation mismatch"),
        ("The flag is optional.", "The flag is required.", "modality mismatch"),
        ("K2 is higher than Everest.", "K2 is lower than Everest.", "comparative mismatch"),
        (
            "It was signed after the battle.",
            "It was signed before the battle.",
            "comparative mismatch",
        ),
        ("It is the first model.", "It is the third model.", "number mismatch"),
    ],
)
def test_disagreeing_slots(claim: str, evidence: str, reason: str) -> None:
    conflicts = _conflicts(claim, evidence)
    assert conflicts, claim
    assert conflicts[0].startswith(reason)


def test_reason_names_both_values() -> None:
    assert _conflicts("Revenue was $12 million.", "Revenue was $18 million.") == [
        "number mismatch: $12 million vs $18 million"
    ]


def test_missing_number_is_not_a_conflict() -> None:
    check = compare_slots(parse_slots("The fee is $12."), parse_slots("A fee applies."))
    assert check.conflicts == []
    assert check.missing == ["$12"]


def test_year_qualifier_with_matching_value_is_a_qualifier_conflict() -> None:
    check = compare_slots(
        parse_slots("In 2023 the fee was $25."), parse_slots("In 2022 the fee was $25.")
    )
    assert check.conflicts == []
    assert check.qualifier_conflicts


def test_polarity() -> None:
    assert polarity_negated("Annual plans are non-refundable.")
    assert not polarity_negated("Annual plans are refundable.")
    assert polarity_negated("Is the plan refundable? No.")
    assert not polarity_negated("Delivery takes no longer than 3 days.")


def test_bounds_are_not_negations() -> None:
    assert not polarity_negated("Do not take more than eight tablets in 24 hours.")
    assert not polarity_negated("The fee must not exceed $50.")
    assert (
        _conflicts("You can take up to 8 tablets a day.", "Do not take more than 8 tablets a day.")
        == []
    )


def test_parenthesised_dates_never_clash() -> None:
    evidence = "Jane Doe (born March 2, 1975) joined Acme as CTO."
    check = compare_slots(
        parse_slots("Jane Doe joined Acme in 2019."), parse_slots(evidence), evidence
    )
    assert check.conflicts == []
    assert check.missing == ["2019"]


def test_modality_on_another_verb_is_no_conflict() -> None:
    # A deadline ("must be made within 14 days") does not clash with "can request".
    assert (
        _conflicts(
            "You can request a refund within 14 days.",
            "Refund requests must be made within 14 days of purchase.",
        )
        == []
    )


# --------------------------------------------------------------------------- r2 mechanisms
@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # Model codes are identifiers, not quantities.
        (
            "The HX-200 filter lasts 12 months.",
            "The HEPA-13 filter must be replaced every 12 months.",
        ),
        # Spelled-out durations and sizes.
        ("Take it half an hour before a meal.", "Take it at least 30 minutes before a meal."),
        ("The window is a fortnight.", "The window is 14 days."),
        ("New hires serve a ninety-day probation.", "New hires serve a probation of 90 days."),
        ("The tier gives two thousand gigabytes.", "The tier includes 2 TB of storage."),
        # Numbers attached to other things in the sentence are no rivals.
        ("Each side has 7 players.", "It is played on the pitch used for fifteen-a-side rugby."),
        # An evidence value equal to one claim value is not another claim value's rival.
        (
            "Probation is 90 days, with seven days' notice.",
            "All new staff serve a probation of 90 days.",
        ),
        (
            "It applies from 1 January 2026 and Article 4 from 1 July 2025.",
            "Article 4 applies from 1 July 2025.",
        ),
        # A negation about something the claim does not say is no polarity clash.
        (
            "A payment more than ten days late incurs a fee of 5%.",
            "If a payment is not received within 10 days, a late charge of 5% is added.",
        ),
    ],
)
def test_r2_agreeing_slots(claim: str, evidence: str) -> None:
    assert _conflicts(claim, evidence) == []


@pytest.mark.parametrize(
    ("claim", "evidence", "reason"),
    [
        ("Returns are accepted within 30 days.", "Returns are accepted within 45 days.", "number"),
        ("New hires get 18 days.", "New hires receive 15 vacation days.", "number"),
        ("The plan is refundable.", "The plan is not refundable.", "negation"),
        ("Staff can work remotely without approval.", "Approval is required.", "negation"),
    ],
)
def test_r2_still_disagreeing(claim: str, evidence: str, reason: str) -> None:
    conflicts = _conflicts(claim, evidence)
    assert conflicts, claim
    assert conflicts[0].startswith(reason), conflicts


def test_quantity_context_records_what_the_value_is_about() -> None:
    [q] = parse_slots("Employees receive 15 vacation days.").quantities
    assert q.kind == "time"
    assert {"vacation", stem("receive")} <= q.context


def test_passage_value_closer_to_claim_suppresses_rival() -> None:
    claim = parse_slots("Core inflation eased to 2.9% in March.")
    sentence = "Headline inflation fell to 2.4% in March."
    passage = parse_slots(sentence + " Core inflation eased to 2.9%.")
    check = compare_slots(claim, parse_slots(sentence), sentence, passage)
    assert not check.conflicts


def test_superlative_is_no_bound() -> None:
    """r4: "most recent" is no maximum, so "at least 16" does not clash with it."""
    check = compare_slots(
        parse_slots("You can renew if your last passport was issued when you were at least 16."),
        parse_slots("You can renew if your most recent passport was issued when you were 16."),
    )
    assert not any("comparative" in c for c in check.conflicts)
    bound = compare_slots(
        parse_slots("You may bring at least 2 bags."), parse_slots("You may bring at most 2 bags.")
    )
    assert any("comparative" in c for c in bound.conflicts)


# Mutation pass (docs/mutation.md): each test below kills sampled mutants of judges/values/slots.py
# that the tests above let through.


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("It takes one day.", "time", 1.0),
        ("It takes 2 hr.", "time", 2 / 24),
        ("It took 2 yr.", "time", 730.5),
        ("It is 3 km.", "length", 3000.0),
        ("It holds 2 terabytes.", "data", 2e6),
        ("It is 50 °F.", "celsius", 10.0),  # a temperature, not a change: read as Celsius
        ("It weighs 3 oz.", "mass", 3 * 0.02835),
    ],
)
def test_values_are_converted_to_the_base_unit_of_their_kind(
    text: str, kind: str, value: float
) -> None:
    [q] = parse_slots(text).quantities
    assert (q.kind, q.value) == (kind, pytest.approx(value, rel=1e-12))


def test_a_three_percent_difference_in_length_is_a_mismatch() -> None:
    # 2 % tolerance; only time gets 4 % (months are 28-31 days)
    assert _conflicts("The trail is 10 km long.", "The trail is 10.3 km long.")


def test_ranges_agree_only_when_they_coincide_and_a_point_inside_a_range_agrees() -> None:
    assert _conflicts("Shipping takes 3-5 business days.", "Shipping takes 4 business days.") == []
    assert _conflicts("Shipping takes 3-5 days.", "Shipping takes 3-5 days.") == []
    assert _conflicts("Shipping takes 3-5 days.", "Shipping takes 3-9 days.")


def test_matched_counts_each_agreeing_value_and_date() -> None:
    assert (
        compare_slots(parse_slots("The fee is $12."), parse_slots("The fee is $12.")).matched == 1
    )
    born = compare_slots(
        parse_slots("He was born on March 2, 1975."), parse_slots("He was born 2 March 1975.")
    )
    assert born.matched == 2  # the date and its year


def test_decades_and_year_ranges_are_years() -> None:
    assert parse_slots("It was built in the 1990s.").years == set(range(1990, 2000))
    ran = parse_slots("It ran 1990-95.")
    assert ran.years == {1990, 1995}
    assert ran.quantities == ()
    backwards = parse_slots("It ran from 2010-05.")  # no range: 05 is not after 2010
    assert 2005 not in backwards.years


def test_values_after_an_ordinal_without_a_noun_are_read() -> None:
    assert [q.text for q in parse_slots("She came 2nd, winning $500.").quantities] == [
        "2nd",
        "$500",
    ]


def test_quantity_context_reads_words_after_the_value() -> None:
    [q] = parse_slots("The fee is 12 for members.").quantities
    assert "member" in q.context


def test_a_common_word_starting_the_sentence_is_not_part_of_a_name() -> None:
    assert parse_slots("The Acme plan is cheap.").entities == ("Acme",)


def test_up_to_is_a_bound() -> None:
    assert "up" in bound_tokens(["it", "costs", "up", "to", "ten"])
    assert "up" not in bound_tokens(["prices", "went", "up", "by", "ten"])


def test_several_rivals_pick_the_one_about_the_same_thing() -> None:
    assert _conflicts(
        "The basic plan costs $10.", "The basic plan costs $12 and the pro plan costs $30."
    ) == ["number mismatch: $10 vs $12"]


def test_a_value_with_a_unit_is_not_matched_by_a_year() -> None:
    check = compare_slots(parse_slots("It took 2000 days."), parse_slots("It opened in 2000."))
    assert check.missing == ["2000 days"]


def test_an_opposite_said_more_often_in_the_evidence_on_the_claims_side_is_no_clash() -> None:
    claim = parse_slots("K2 is higher.")
    evidence = parse_slots("It is higher here and higher there but lower, lower and lower.")
    assert not any("comparative" in c for c in compare_slots(claim, evidence).conflicts)


def _q(kind: str) -> Quantity:
    return Quantity(10.0, 10.0, kind, "10", (10.0, 10.0))


def test_unit_and_kind_compatibility() -> None:
    assert same_unit(_q("length"), _q("n:"))
    assert same_unit(_q("n:"), _q("length"))
    assert not same_unit(_q("length"), _q("percent"))
    assert not kinds_compatible(_q("length"), _q("mass"))
    assert kinds_compatible(_q("n:"), _q("length"))
    assert not kinds_compatible(_q("n:"), _q("percent"))


def test_related_words_share_a_stem_prefix_either_way() -> None:
    assert related("approval", "approve")
    assert related("approve", "approval")
    assert not related("approve", "apply")


# --- Fractions written as words -------------------------------------------------------------


def _values(text: str) -> list[tuple[float, str]]:
    return [(round(q.value, 2), q.kind) for q in parse_slots(text).quantities]


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("Three-quarters of the staff work remotely.", 75.0, "percent"),
        ("A third of respondents prefer tea.", 33.33, "percent"),
        ("Two thirds of the budget goes to salaries.", 66.67, "percent"),
        ("Half of the apartments have a balcony.", 50.0, "percent"),
        ("Sales rose by one-fifth.", 20.0, "percent"),
        ("The hike takes two and a half hours.", 2.5 / 24, "time"),
        ("The trail is three quarters of a mile long.", 0.75 * 1609.34, "length"),
        ("The recipe needs one and a half kilograms of flour.", 1.5, "mass"),
        ("The festival lasts a week and a half.", 10.5, "time"),
    ],
)
def test_fractions_written_as_words_are_read_as_their_value(
    text: str, value: float, kind: str
) -> None:
    assert (round(value, 2), kind) in _values(text)


@pytest.mark.parametrize(
    "text",
    [
        "Three-quarters of the 12 seats went to the coalition.",
        "Two-thirds of the 30 pupils passed.",
        "One and a half million people visited.",
    ],
)
def test_a_fraction_is_never_read_as_the_integer_of_its_first_word(text: str) -> None:
    assert not any(q.value in (1.0, 2.0, 3.0) for q in parse_slots(text).quantities)


@pytest.mark.parametrize(
    "text",
    [
        "Revenue grew in the third quarter of the year.",
        "The second half of the season was better.",
        "Data is shared with a third party.",
        "She reached the quarter-final.",
        "Profits rose over the last two quarters.",
    ],
)
def test_ordinals_and_periods_are_not_fractions(text: str) -> None:
    assert not any(q.kind == "percent" for q in parse_slots(text).quantities)


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        (
            "Three-quarters of the 12 seats went to the coalition.",
            "The coalition won 9 of the 12 seats.",
        ),
        ("She won three-quarters of her matches.", "She won 12 of her 16 matches."),
        ("A third of respondents prefer tea.", "33% of respondents prefer tea."),
        ("Half of the 40 rooms face the sea.", "20 out of the 40 rooms face the sea."),
        ("The hike takes two and a half hours.", "The hike takes 150 minutes."),
    ],
)
def test_fractions_agree_with_equal_values(claim: str, evidence: str) -> None:
    check = compare_slots(parse_slots(claim), parse_slots(evidence), evidence)
    assert check.conflicts == []


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Three-quarters of the staff work remotely.", "40% of the staff work remotely."),
        ("A quarter of the players are left-handed.", "60% of the players are left-handed."),
        ("The hike takes two and a half hours.", "The hike takes 4 hours."),
    ],
)
def test_fractions_still_disagree_with_other_values(claim: str, evidence: str) -> None:
    assert any("number mismatch" in c for c in _conflicts(claim, evidence))


# --- Business days ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["Refunds arrive within 4 business days.", "Appeals are answered in five working days."],
)
def test_business_and_working_days_are_their_own_unit(text: str) -> None:
    assert [q.kind for q in parse_slots(text).quantities] == ["bday"]


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Refunds arrive within 4 business days.", "Refunds arrive within 4 days."),
        ("Refunds arrive within 4 business days.", "Refunds arrive within 10 days."),
        ("Appeals are answered in five working days.", "Appeals are answered in 5 calendar days."),
        ("Appeals are answered in five working days.", "Appeals are answered within a week."),
    ],
)
def test_business_days_neither_agree_nor_conflict_with_calendar_days(
    claim: str, evidence: str
) -> None:
    check = compare_slots(parse_slots(claim), parse_slots(evidence), evidence)
    assert check.conflicts == []
    assert check.agreed == []


def test_business_days_compare_with_working_days() -> None:
    assert _conflicts("Shipping takes four working days.", "Shipping takes 4 business days.") == []
    assert any(
        "number mismatch" in c
        for c in _conflicts("Appeals take 10 working days.", "Appeals take 3 business days.")
    )


# --- Scoped values: a rival value stated for another named thing ----------------------------


def _passage_conflicts(claim: str, passage: str) -> list[str]:
    """Conflicts of ``claim`` with each sentence of ``passage``, as the judge compares them."""
    out: list[str] = []
    context = parse_slots(passage)
    for sentence in re.split(r"(?<=\.)\s+", passage):
        check = compare_slots(parse_slots(claim), parse_slots(sentence), sentence, context)
        out.extend(check.conflicts)
    return out


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        (
            "The Basic plan allows 100 requests per minute.",
            "Basic plan: 100 requests per minute. Premium plan: 1,000 requests per minute.",
        ),
        (
            "A Standard room costs €120 per night.",
            "Standard room: €120 per night. Deluxe Suite: €310 per night.",
        ),
        (
            "The Orion model has a range of 450 km.",
            "Range, Orion model: 450 km. Range, Vega model: 610 km.",
        ),
        ("The Orion model has a range of 450 km.", "The Vega model has a range of 610 km."),
        (
            "The Harbour ferry departs every 20 minutes.",
            "The Island ferry departs every 45 minutes.",
        ),
    ],
)
def test_a_value_of_another_named_scope_is_no_rival(claim: str, passage: str) -> None:
    assert _passage_conflicts(claim, passage) == []


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        (
            "The Basic plan allows 1,000 requests per minute.",
            "Basic plan: 100 requests per minute. Premium plan: 1,000 requests per minute.",
        ),
        (
            "A Standard room costs €310 per night.",
            "Standard room: €120 per night. Deluxe Suite: €310 per night.",
        ),
        ("The Orion model has a range of 610 km.", "The Orion model has a range of 450 km."),
    ],
)
def test_a_rival_value_of_the_claims_own_scope_still_conflicts(claim: str, passage: str) -> None:
    assert any("number mismatch" in c for c in _passage_conflicts(claim, passage))


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        (
            "The Pro plan costs €29 per user when billed annually.",
            "Pro: €24 per user, billed annually (€29 if billed monthly).",
        ),
        (
            "The Atlas bike weighs 14 kg with the battery fitted.",
            "Atlas bike: 19 kg with the battery fitted (14 kg once it is removed).",
        ),
    ],
)
def test_a_value_stated_only_as_an_aside_does_not_outvote_the_claims_own_value(
    claim: str, passage: str
) -> None:
    # The aside is another case of the claim's own name; the main clause's value is the name's.
    assert any("number mismatch" in c for c in _passage_conflicts(claim, passage))


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        (
            "The Pro plan costs €29 per user if billed monthly.",
            "Pro: €24 per user, billed annually (€29 if billed monthly).",
        ),
        (
            "The Atlas bike weighs 14 kg with the battery removed.",
            "Atlas bike: 19 kg with the battery fitted (14 kg once it is removed).",
        ),
    ],
)
def test_a_claim_about_the_asides_case_agrees_with_the_aside(claim: str, passage: str) -> None:
    assert _passage_conflicts(claim, passage) == []


def test_a_converted_value_in_parentheses_still_agrees() -> None:
    claim = "The Atlas bike weighs 50 lb."
    assert _passage_conflicts(claim, "The Atlas bike weighs 23 kg (50 lb).") == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [("It weighs 2 kilograms.", "mass"), ("The trail is 5.9 kilometres long.", "length")],
)
def test_a_spelled_out_unit_is_not_split_into_a_modifier_and_a_shorter_unit(
    text: str, kind: str
) -> None:
    assert [q.kind for q in parse_slots(text).quantities] == [kind]


# ---------------------------------------------------------------- agreement is scoped too
@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        (
            "Economy passengers may check one bag of up to 32 kg.",
            "Business class passengers may check two bags of up to 32 kg each.",
        ),
        (
            "The Basic plan allows 1,000 requests per minute.",
            "The Premium plan allows 1,000 requests per minute.",
        ),
        (
            "Room 12 on the Garden floor sleeps 4 guests.",
            "Each room on the Terrace floor sleeps 4 guests.",
        ),
    ],
)
def test_the_same_value_for_another_name_is_no_agreement(claim: str, evidence: str) -> None:
    check = compare_slots(parse_slots(claim), parse_slots(evidence))
    assert check.agreed == []


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        (
            "Inflation fell to 2.4% in March from 2.6% in February.",
            "Annual inflation in the euro area is expected to be 2.4% in March, down from 2.6%.",
        ),
        (
            "The Premium plan allows 1,000 requests per minute.",
            "Premium plan: 1,000 requests per minute, burst up to 1,500.",
        ),
        (
            "Attendance rose to 12,400 visitors in 2023.",
            "Museum attendance reached 12,400 visitors in 2023.",
        ),
    ],
)
def test_the_same_value_for_the_same_thing_agrees(claim: str, evidence: str) -> None:
    check = compare_slots(parse_slots(claim), parse_slots(evidence))
    assert check.agreed
    assert check.conflicts == []


def test_value_conflicts_are_data_beside_the_messages() -> None:
    """Each number, date and year conflict is also a ValueConflict with both values as written,
    so a caller can restate the claim with the evidence's value."""
    from groundwatch.judges.values.agreement import ValueConflict

    check = compare_slots(
        parse_slots("Each bag may weigh up to 32 kg."),
        parse_slots("Each checked bag in Economy may weigh up to 23 kg (50 lb)."),
    )
    assert check.value_conflicts == [ValueConflict("number", "32 kg", "23 kg")]
    check = compare_slots(
        parse_slots("The company was founded in 1998."),
        parse_slots("The company was founded in 1996 in Oslo."),
    )
    assert check.value_conflicts == [ValueConflict("year", "1998", "1996")]
    check = compare_slots(
        parse_slots("The bridge opened on 19 March 1934."),
        parse_slots("The bridge opened on 19 March 1932."),
    )
    assert ValueConflict("date", "1934", "1932") in check.value_conflicts
    agree = compare_slots(
        parse_slots("Refunds take two weeks."), parse_slots("Refunds take 14 days.")
    )
    assert agree.conflicts == []
    assert agree.value_conflicts == []


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # a value on the side a comparison bound allows is no rival of the bound
        (
            "An order placed at 4 p.m. ships on the next business day.",
            "Orders placed after 2 p.m. ship the next business day.",
        ),
        ("The company has 120 employees.", "The company has more than 100 employees."),
        ("An order of $80 ships free.", "Orders over $50 ship free."),
        (
            "A child of 9 travels at the reduced fare.",
            "Children under 12 travel at the reduced fare.",
        ),
    ],
)
def test_a_value_within_a_comparison_bound_is_no_conflict(claim: str, evidence: str) -> None:
    assert _conflicts(claim, evidence) == []
    check = compare_slots(parse_slots(claim), parse_slots(evidence), evidence)
    assert check.within  # consistent with the bound ...
    assert not check.agreed  # ... not stated


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # outside the bound
        ("The company has 80 employees.", "The company has more than 100 employees."),
        (
            "A child of 14 travels at the reduced fare.",
            "Children under 12 travel at the reduced fare.",
        ),
        # two bounds are two limits
        ("Orders over $30 ship free.", "Orders over $50 ship free."),
        # limits a policy states are values, not comparison bounds
        ("Returns are accepted for 30 days.", "Returns are accepted within 45 days."),
        # a bound on a time before something reads the other way round: no bound is read
        (
            "Cancelling at least 24 hours before arrival is free.",
            "Cancelling at least 48 hours before arrival is free.",
        ),
        # "no more than 8" is a limit, not "more than 8"
        ("You may take 10 tablets a day.", "Take no more than 8 tablets a day."),
    ],
)
def test_a_value_outside_a_bound_or_against_a_limit_still_disagrees(
    claim: str, evidence: str
) -> None:
    conflicts = _conflicts(claim, evidence)
    assert conflicts, claim
    assert conflicts[0].startswith("number"), conflicts


def test_bounds_are_read_before_the_value() -> None:
    def bound(text: str) -> str:
        [q] = parse_slots(text).quantities
        return q.bound

    assert bound("Orders placed after 2 p.m. ship tomorrow.") == "lower"
    assert bound("It weighs less than 5 kg.") == "upper"
    assert bound("It weighs no more than 5 kg.") == ""
    assert bound("Refunds are issued within 14 days.") == ""
    assert bound("Cancel more than 48 hours before arrival.") == ""
    assert bound("It weighs 5 kg.") == ""


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("The store closes at 8 pm.", [20.0]),
        ("Doors open at 7:30 a.m. sharp.", [7.5]),
        ("The last train leaves at 23:45.", [23.75]),
        ("Check-in is from 3PM.", [15.0]),
        ("Opening hours move from 7 pm to 8 pm.", [19.0, 20.0]),
        ("The clinic opens at 12 am and 12 pm.", [0.0, 12.0]),
    ],
)
def test_clock_times_are_one_value_in_hours(text: str, hours: list[float]) -> None:
    clock = [q.value for q in parse_slots(text).quantities if q.kind == "clock"]
    assert clock == pytest.approx(hours)
    assert all(q.kind == "clock" for q in parse_slots(text).quantities)  # no stray 30 or 00


def test_ratios_and_scales_are_no_clock_time() -> None:
    kinds = {q.kind for q in parse_slots("A 16:9 screen and a 1:50,000 map.").quantities}
    assert "clock" not in kinds


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The branch now closes at 20:00.", "The branch now closes at 8 pm."),
        ("Boarding starts at 6:15 p.m.", "Boarding starts at 18:15."),
    ],
)
def test_clock_times_written_two_ways_agree(claim: str, evidence: str) -> None:
    assert _conflicts(claim, evidence) == []


def test_clock_times_that_differ_conflict() -> None:
    assert _conflicts("The pharmacy closes at 6 pm.", "The pharmacy closes at 9 pm.") == [
        "number mismatch: 6 pm vs 9 pm"
    ]
