"""Names in a coordination whose second half leaves its verb out ("The bar is run by Ana Diaz,
and the bistro by Leo Marsh"): :mod:`groundwatch.judges.values.gapped`. Written before the
judge was run on them (Session 53)."""

from __future__ import annotations

import pytest

from groundwatch.judges.values.gapped import gapped_rival
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

VENUES = [
    "The hotel has two kitchens: the Copper Bar is run by Ana Diaz, and the Riverside Bistro, "
    "on the ground floor, by Leo Marsh."
]
EDITIONS = ["Mara Holt edited the 2019 edition of the guide, and Sam Okoro the 2022 edition."]


def test_the_name_of_the_other_half() -> None:
    hit = gapped_rival("Who runs the Riverside Bistro?", "Ana Diaz", VENUES)
    assert hit is not None
    assert (hit.stated, hit.sentence) == ("Leo Marsh", 0)
    assert gapped_rival("Who runs the Copper Bar?", "Ana Diaz", VENUES) is None
    # a case told apart by a code of digits and letters, the role left out with the verb
    series = ["Kit Moy is release manager for the 4.x series and Ola Berg for 5.x."]
    hit = gapped_rival("Who is the release manager for 5.x?", "Kit Moy", series)
    assert hit is not None
    assert (hit.stated, hit.asked) == ("Ola Berg", ("5.x",))
    # the answer's own half says what is asked
    leeds = ["Anna Berg manages the office, and Leeds staff report to Tom Hale."]
    assert gapped_rival("Who manages the Leeds office?", "Anna Berg", leeds) is None


WRONG: list[Case] = [
    ("Who runs the Riverside Bistro?", VENUES, "Ana Diaz", False),
    ("Who is in charge of the Copper Bar?", VENUES, "Leo Marsh", False),
]
RIGHT: list[Case] = [
    ("Who runs the Riverside Bistro?", VENUES, "Leo Marsh", True),
    ("Who runs the Copper Bar?", VENUES, "Ana Diaz", True),
    ("Who edited the guide's first edition?", EDITIONS, "Mara Holt", True),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_the_other_halfs_name_is_not_supported(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_the_halfs_own_name_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)
