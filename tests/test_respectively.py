"""Sentences that pair two lists by "respectively" read as one sentence per pair
(:mod:`groundwatch.judges.text.respectively`). Written before the judge was run on them
(Session 53)."""

from __future__ import annotations

import pytest

from groundwatch.judges.text.respectively import expand_respectively
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

OTTERS = [
    "Our two otters, Pip (born 2018) and Moss (born 2020), came from Edinburgh Zoo and Chester "
    "Zoo respectively."
]
FEES = ["Day and evening classes cost £12 and £9 respectively."]
FOUNDERS = [
    "The company's first three stores opened in Leeds, York and Hull in 1998, 2001 and 2004 respectively."
]


def test_each_pair_becomes_a_sentence() -> None:
    assert expand_respectively(FEES[0]) == [
        "Day classes cost £12.",
        "evening classes cost £9.",
    ]
    pip, moss = expand_respectively(OTTERS[0])
    assert all(w in pip for w in ("Pip", "Edinburgh Zoo"))
    assert "Chester" not in pip
    assert all(w in moss for w in ("Moss", "Chester Zoo"))
    assert "Edinburgh" not in moss
    three = expand_respectively(FOUNDERS[0])
    assert len(three) == 3
    assert all(w in three[1] for w in ("York", "2001"))
    assert "1998" not in three[1]
    # no "respectively", or lists of different lengths: the sentence as it is
    assert expand_respectively("Classes cost £12.") == ["Classes cost £12."]
    odd = "Pip and Moss came from Edinburgh Zoo respectively."
    assert expand_respectively(odd) == [odd]


WRONG: list[Case] = [
    ("Which zoo did Moss come from?", OTTERS, "Edinburgh Zoo", False),
    ("How much is an evening class?", FEES, "£12", False),
]
RIGHT: list[Case] = [
    ("Which zoo did Moss come from?", OTTERS, "Chester Zoo", True),
    ("How much is an evening class?", FEES, "£9", True),
    ("When was Pip born?", OTTERS, "In 2018", True),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_the_other_pairs_value_is_not_supported(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_the_pairs_own_value_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)
