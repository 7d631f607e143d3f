"""The aligned swap (groundwatch.judges.rules.swap): which claim / evidence pairs are minimal pairs,
and how the claim is restated with the evidence's span."""

from __future__ import annotations

import pytest

from groundwatch.judges.rules.swap import aligned_swap


@pytest.mark.parametrize(
    ("claim", "evidence", "restated", "claim_span", "evidence_span"),
    [
        # one word replaced: a name, a weekday, an antonym, a quantifier
        (
            "The office opens on Tuesday.",
            "Our office opens on Thursday at 9.",
            "The office opens on Thursday.",
            "Tuesday",
            "Thursday",
        ),
        (
            "Revenue increased in 2023.",
            "Revenue decreased in 2023.",
            "Revenue decreased in 2023.",
            "increased",
            "decreased",
        ),
        (
            "The fee applies to all members.",
            "The fee applies to some members.",
            "The fee applies to some members.",
            "all",
            "some",
        ),
        # a negation the evidence has and the claim lacks, kept with its hyphen
        (
            "The registration fee is refundable.",
            "Registration fees are non-refundable.",
            "The registration fee is non-refundable.",
            "",
            "non",
        ),
        (
            "The museum is open on Mondays.",
            "The museum is not open on Mondays.",
            "The museum is not open on Mondays.",
            "",
            "not",
        ),
        # a negation the claim has and the evidence lacks
        (
            "The registration fee is not refundable.",
            "Registration fees are refundable.",
            "The registration fee is refundable.",
            "not",
            "",
        ),
        # a contraction reads as its negation
        (
            "The museum doesn't open on Mondays.",
            "The museum is closed on Mondays.",
            "The museum is closed on Mondays.",
            "doesn't open",
            "is closed",
        ),
    ],
)
def test_minimal_pairs_are_restated(
    claim: str, evidence: str, restated: str, claim_span: str, evidence_span: str
) -> None:
    swap = aligned_swap(claim, evidence)
    assert swap is not None
    assert swap.restated == restated
    assert swap.claim_span == claim_span
    assert swap.evidence_span == evidence_span


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # an added detail: the claim says more than the evidence (not found, not a swap)
        ("The premium plan includes phone support.", "The plan includes phone support."),
        # the claim says less than the evidence: nothing to restate
        (
            "Refunds are issued to the original payment method.",
            "Refunds are issued to the original payment method within 5 days.",
        ),
        ("The app supports Android.", "The app supports iOS and Android."),
        # a reworded paraphrase differs in several places: not a minimal pair
        (
            "If you cancel at least two days before you arrive there is no charge.",
            "Reservations may be cancelled free of charge up to 48 hours before the arrival date.",
        ),
        ("You can buy tickets online.", "Tickets can be purchased online."),
        # two differences
        ("Lyon is the largest city of Spain.", "Madrid is the largest city of Portugal."),
        # values are the value slots' minimal pair, not this one
        ("Prices rose by 14%.", "Prices rose by 30%."),
        # identical up to function words and inflection: no difference at all
        ("The fees are refundable.", "The fee is refundable."),
        # a one-word claim has nothing to anchor the swap
        ("Refundable.", "Non-refundable."),
    ],
)
def test_not_minimal_pairs(claim: str, evidence: str) -> None:
    assert aligned_swap(claim, evidence) is None


def test_long_spans_are_not_swapped() -> None:
    claim = "The service is operated by the city transport authority of the region."
    evidence = "The service is operated by a private company under a ten year contract."
    assert aligned_swap(claim, evidence) is None


def test_empty_inputs() -> None:
    assert aligned_swap("", "The office opens on Thursday.") is None
    assert aligned_swap("The office opens on Thursday.", "") is None
