"""A short answer naming something the passage names too, where the question's words are said
only of another name in the same sentence (:func:`groundwatch.judges.values.contrast.other_name`).
Written before the judge was run on them (Session 52)."""

from __future__ import annotations

import pytest

from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

FILM = ["Northbound was directed by Lena Ortiz, and its score was composed by Tomas Berg."]
VELORIA = [
    "Port Anselm is the largest city in Veloria, but the capital is Castelmar, in the hills."
]
BRIDGE = [
    "The Aldwin Bridge was designed by engineer Marta Sole; its lighting scheme was designed "
    "by artist Jonah Peel."
]

WRONG: list[Case] = [
    ("Who composed the score for Northbound?", FILM, "Lena Ortiz", False),
    ("What is the capital of Veloria?", VELORIA, "Port Anselm", False),
    ("Who designed the Aldwin Bridge?", BRIDGE, "Jonah Peel", False),
]

RIGHT: list[Case] = [
    ("Who directed Northbound?", FILM, "Lena Ortiz", True),
    ("Who composed the score for Northbound?", FILM, "Tomas Berg", True),
    ("What is the largest city in Veloria?", VELORIA, "Port Anselm", True),
    ("Who designed the lighting of the Aldwin Bridge?", BRIDGE, "Jonah Peel", True),
    # the question asks what the passages do not say of either name
    ("Who produced Northbound?", FILM, "Lena Ortiz", True),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_another_names_attribute_is_not_supported(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_the_names_own_attribute_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)


def test_another_names_attribute_is_contradicted() -> None:
    assert_right_and_wrong("verifier", WRONG, wrong="contradicted")


CHOPIN = ["Frédéric Chopin was born in Żelazowa Wola in 1810 and died in Paris in 1849."]
TREATY = ["The treaty was negotiated in Vienna and signed in Lisbon on 13 December 2007."]
PLACES_WRONG: list[Case] = [
    ("Where did Chopin die?", CHOPIN, "Żelazowa Wola", False),
]
#: Limit: a role read from the four words before a name takes in the sentence's subject
#: ("treaty was negotiated in"), which the question names too: never crossed.
SUBJECT_IN_ROLE: list[Case] = [("Where was the treaty signed?", TREATY, "Vienna", False)]
PLACES_RIGHT: list[Case] = [
    ("Where did Chopin die?", CHOPIN, "Paris", True),
    ("Where was Chopin born?", CHOPIN, "Żelazowa Wola", True),
    ("Where was the treaty signed?", TREATY, "Lisbon", True),
]


def test_a_place_in_another_role_is_contradicted() -> None:
    """ "died in Paris" against "born in Żelazowa Wola": the place of another role (Session 52;
    "died" read as "die")."""
    assert_right_and_wrong("verifier", PLACES_WRONG, wrong="contradicted")


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_place_in_its_role_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, PLACES_RIGHT)


@pytest.mark.xfail(reason="the subject in a role's words is read as asked", strict=True)
def test_a_role_with_the_subject_in_it() -> None:
    assert_right_and_wrong("verifier", SUBJECT_IN_ROLE, wrong="contradicted")
