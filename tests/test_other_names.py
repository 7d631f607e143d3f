"""A short answer naming something the passage names too, where the question's words are said
only of another name in the same sentence (:func:`groundwatch.judges.values.contrast.other_name`).
Written before the judge was run on them (Session 52)."""

from __future__ import annotations

import pytest

from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

FILM = ["Northbound was directed by Lena Ortiz, and its score was composed by Tomas Berg."]
VELORIA = ["Port Anselm is the largest city in Veloria, but the capital is Castelmar, in the hills."]
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
