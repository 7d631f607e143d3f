"""A claim that adds a word no passage has (a noun or an adjective, not a verb, a unit or a
function word) is not supported, whatever a model reads into it: "plays the cello" of a
pianist. Written before the judge was run on them (Session 48)."""

from __future__ import annotations

import pytest

from groundwatch.judges.rules.added_words import added_words
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

PIANIST = ["Mara Voss is a German pianist who has recorded all of Chopin's nocturnes."]
TEACHER = ["Before entering parliament, Lena Ortiz worked as a teacher in Valencia."]
MUSEUM = ["The museum is closed on Mondays unless the Monday is a public holiday."]


def test_an_invented_noun_or_adjective_is_added() -> None:
    assert added_words("Mara Voss plays the cello.", "", PIANIST) == ["cello"]
    assert added_words("Lena Ortiz worked as a nurse.", "", TEACHER) == ["nurse"]
    assert added_words("Mara Voss is a famous pianist.", "", PIANIST) == ["famous"]


def test_verbs_units_function_words_and_question_words_are_not() -> None:
    # a verb may paraphrase ("taught" for "worked as a teacher"), a unit or number restates a
    # value, a function word or a plural form adds nothing
    assert added_words("Lena Ortiz taught in Valencia.", "", TEACHER) == []
    assert added_words("It's closed on Mondays unless it's a public holiday.", "", MUSEUM) == []
    assert (
        added_words("The children get two doses a day.", "", ["Each child gets 2 doses daily."])
        == []
    )
    assert added_words("It lasts a fortnight.", "", ["It lasts 14 days."]) == []
    # the question's own words are the user's
    assert added_words("Mara Voss is German.", "Is Mara Voss a German citizen?", PIANIST) == []


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_claim_with_an_added_word_is_not_supported(backend: str) -> None:
    cases: list[Case] = [
        ("Which instrument does Mara Voss play?", PIANIST, "Mara Voss plays the cello.", False),
        ("What did Lena Ortiz do before politics?", TEACHER, "Lena Ortiz worked as a nurse.", False),
        ("Is the museum open on Mondays?", MUSEUM, "It's closed on Mondays unless it's a public holiday.", True),
    ]  # fmt: skip
    assert_right_and_wrong(backend, cases, right_supported=True)
