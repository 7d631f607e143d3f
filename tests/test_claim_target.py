"""What a claim names: a sentence-initial word is a name only when it reads as one."""

from __future__ import annotations

import pytest

from groundwatch.judges.claims.target import ClaimTarget


@pytest.mark.parametrize(
    "claim",
    [
        "You'll have to repay the full amount within 14 days.",
        "You'd have to make four more payments first.",
        "Yours would begin on April 1.",
        "Theirs was approved last week.",
        "Newly accrued leave becomes available after one pay period.",
        "Recently issued cards have a contactless limit of £100.",
        "They've been inspected since May.",
    ],
)
def test_pronouns_and_adverbs_opening_a_claim_are_not_names(claim: str) -> None:
    assert ClaimTarget.build(claim).hard == set()  # none of these claims names anything


@pytest.mark.parametrize(
    ("claim", "name"),
    [
        ("Germany won the final in 2014.", "germany"),
        ("Corwell's was founded in 1998.", "corwell"),
        ("Kelly signed the lease in March.", "kel"),
    ],
)
def test_a_one_word_subject_before_its_verb_is_a_name(claim: str, name: str) -> None:
    assert name in ClaimTarget.build(claim).hard
