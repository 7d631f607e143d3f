"""Slot agreement: numbers, units, dates, negation, modality, comparatives."""

from __future__ import annotations

import pytest

from groundwatch.judges.claims import stem
from groundwatch.judges.slots import (
    Quantity,
    _bound_tokens,
    _kinds_compatible,
    _related,
    _same_unit,
    compare_slots,
    parse_slots,
    polarity_negated,
)


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


# Mutation pass (docs/mutation.md): each test below kills sampled mutants of judges/slots.py
# that the tests above let through.


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("It takes one day.", "time", 1.0),
        ("It takes 2 hr.", "time", 2 / 24),
        ("It took 2 yr.", "time", 730.5),
        ("It is 3 km.", "length", 3000.0),
        ("It holds 2 terabytes.", "data", 2e6),
        ("It is 50 °F.", "fahrenheit", 50.0),
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
    assert "up" in _bound_tokens(["it", "costs", "up", "to", "ten"])
    assert "up" not in _bound_tokens(["prices", "went", "up", "by", "ten"])


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
    assert _same_unit(_q("length"), _q("n:"))
    assert _same_unit(_q("n:"), _q("length"))
    assert not _same_unit(_q("length"), _q("percent"))
    assert not _kinds_compatible(_q("length"), _q("mass"))
    assert _kinds_compatible(_q("n:"), _q("length"))
    assert not _kinds_compatible(_q("n:"), _q("percent"))


def test_related_words_share_a_stem_prefix_either_way() -> None:
    assert _related("approval", "approve")
    assert _related("approve", "approval")
    assert not _related("approve", "apply")
