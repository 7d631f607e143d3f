"""The negation-equivalent twins of the verifier's training data (training/negation.py): each
supported restatement keeps the sentence's meaning, its twin says the opposite, and sentences
where the rewrite would not hold (modal, epistemic, a number that is a name) give nothing."""

from __future__ import annotations

import random

import pytest

from training.negation import negation_twins


def _all(sentence: str, tries: int = 40) -> tuple[set[str], set[str]]:
    same: set[str] = set()
    opposite: set[str] = set()
    for seed in range(tries):
        got = negation_twins(sentence, random.Random(seed))
        assert got is not None, sentence
        same.add(got[0])
        opposite.add(got[1])
    return same, opposite


def test_complementary_adjective_both_directions() -> None:
    same, opposite = _all("The pool is closed on Mondays.")
    assert same == {"The pool is not open on Mondays."}
    assert opposite == {"The pool is open on Mondays.", "The pool is not closed on Mondays."}
    same, opposite = _all("The service was not available during the outage.")
    assert same == {"The service was unavailable during the outage."}
    assert opposite == {"The service was available during the outage."}


def test_bounds_are_restated_and_flipped() -> None:
    same, opposite = _all("Guests must cancel at least 48 hours before arrival.")
    assert "Guests must cancel no fewer than 48 hours before arrival." in same
    assert opposite <= {
        "Guests must cancel fewer than 48 hours before arrival.",
        "Guests must cancel less than 48 hours before arrival.",
    }
    same, opposite = _all("Each team may register up to 12 players.")
    assert "Each team may register not more than 12 players." in same
    assert "Each team may register more than 12 players." in opposite


def test_phrases_with_a_negation() -> None:
    same, opposite = _all("Entry to the gardens is free of charge.")
    assert "Entry to the gardens is without charge." in same
    assert "Entry to the gardens is for a fee." in opposite
    same, opposite = _all("Visitors must sign in at the front desk.")
    assert "Visitors is required to sign in at the front desk." in same or (
        "Visitors has to sign in at the front desk." in same
    )
    assert "Visitors does not have to sign in at the front desk." in opposite or (
        "Visitors is not required to sign in at the front desk." in opposite
    )


@pytest.mark.parametrize(
    "sentence",
    [
        "The museum can be closed at short notice.",  # modal: no statement to flip
        "The letter must have been lost in the post.",  # epistemic "must"
        "He plays for the under 21 team in the league.",  # a name, not a bound
        "The committee met on Tuesday to discuss the budget.",  # nothing to rewrite
    ],
)
def test_no_twin_where_the_rewrite_would_not_hold(sentence: str) -> None:
    assert negation_twins(sentence, random.Random(0)) is None
