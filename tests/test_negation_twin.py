"""The negation twin: a claim that is its evidence clause with the negation turned round is
contradicted, whatever the verifier reads; a reworded negative, a condition or an exception is
never a twin."""

from __future__ import annotations

import pytest

from groundwatch.judges.rules.negation_twin import negation_twin


@pytest.mark.parametrize(
    ("claim", "sentence"),
    [
        (
            "The rooftop pool is not available to hotel guests.",
            "The rooftop pool is available to hotel guests from 7am to 10pm every day.",
        ),
        (
            "Scuba diving is covered under the Basic plan.",
            "Scuba diving is not covered under the Basic plan.",
        ),
        (
            "Those seats are available to passengers travelling with infants.",
            "These seats are not available to passengers travelling with infants, because they"
            " are next to emergency exits.",
        ),
        (
            "Wi-Fi calls count towards your roaming cap.",
            "Wi-Fi calls don't count towards your roaming cap.",
        ),
        (
            "Guests can't bring their own towels to the spa.",
            "Guests can bring their own towels to the spa.",
        ),
        # a second verb phrase of the same subject ("... and are non-transferable"), Session 48
        (
            "Day Rover tickets are transferable.",
            "Day Rover tickets are valid on all buses until midnight and are non-transferable.",
        ),
        (
            "The Riverside hall is wheelchair accessible.",
            "The Riverside hall seats 200 people, has a stage and is not wheelchair accessible.",
        ),
    ],
)
def test_the_same_words_with_the_opposite_polarity(claim: str, sentence: str) -> None:
    twin = negation_twin(claim, sentence)
    assert twin is not None
    reason, conflict = twin
    assert reason.startswith("negation mismatch")
    assert conflict is not None
    assert conflict.kind == "negation"
    assert conflict.evidence


@pytest.mark.parametrize(
    ("claim", "sentence"),
    [
        # reworded negatives: other words, so no twin (the verifier decides)
        ("Dogs are prohibited in the library.", "Dogs are not allowed in the library."),
        ("The transfer is free.", "There is no charge for the transfer."),
        ("You can bring a guest at no charge.", "Members may bring a guest free of charge."),
        # the same polarity
        ("A motorhome wouldn't be covered.", "Motorhomes are not covered."),
        # an exception or a condition carries the negation elsewhere
        ("Dogs are not allowed in the library.", "Dogs are allowed everywhere except the library."),
        (
            "If you can't get a police report, the claim is still paid.",
            "Claims submitted without a police report are paid.",
        ),
        # "not outside X" is "only within X"
        (
            "Parcels over 30 kg can be sent to Spain.",
            "Parcels over 30 kg cannot be sent outside France and Spain.",
        ),
        # the negation bears on a word the claim does not assert
        (
            "You can use your usual calls and texts on Plus.",
            "On Plus you can use your usual calls and texts at no extra cost.",
        ),
        # a word of the claim is not in the clause: something else is said
        ("Your 27 kg bag will not be accepted.", "Bags over 32 kg are accepted as cargo."),
        # a terse answer has no polarity of its own to compare
        ("Is the pool open on Sundays? No.", "The pool is open on Sundays."),
        # the negated verb phrase has a subject of its own (Session 48)
        (
            "Flex tickets are refundable.",
            "Flex tickets can be changed for free and are refundable, while Saver tickets are"
            " non-refundable.",
        ),
        (
            "Flex tickets are refundable.",
            "Flex tickets can be changed for free, and Saver tickets are non-refundable.",
        ),
    ],
)
def test_no_twin(claim: str, sentence: str) -> None:
    assert negation_twin(claim, sentence) is None
