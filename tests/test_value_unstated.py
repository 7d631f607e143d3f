"""A sentence's measure of a kind the passages state none of ("weighs 2.1 kg" of passages
without a weight): a limit, kept as a strict xfail (holding such values back cost the triage
clinic and blind units sets, Session 53). Written before the judge was run on them
(Session 53)."""

from __future__ import annotations

import pytest

from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

MUSEUM = ["The Kelso Museum opens at 10:00 and closes at 17:30 every day; entry is free."]
TENT = ["The Alpine 2 tent sleeps two people and packs down to 45 cm long."]
TICKETS = ["Tickets are £12 for adults and £6 for children."]

WRONG: list[Case] = [
    (
        "When does the museum open?",
        MUSEUM,
        "From its 10 am opening, the museum charges £5 for parking.",
        False,
    ),
    (
        "How small does the tent pack?",
        TENT,
        "Packed down to 45 cm, the Alpine 2 weighs 2.1 kg.",
        False,
    ),
]
RIGHT: list[Case] = [
    ("When does the museum open?", MUSEUM, "Entry is free, and the museum opens at 10 am.", True),
    ("How small does the tent pack?", TENT, "It packs down to 45 centimetres.", True),
    ("What do tickets cost?", TICKETS, "An adult and a child pay £18 in total.", True),
]


@pytest.mark.xfail(reason="a measure no passage states is left to the backend", strict=True)
def test_a_measure_of_a_kind_no_passage_states_is_not_supported() -> None:
    assert_right_and_wrong("verifier", WRONG)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_the_passages_measures_are_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)
