"""A noun put in another's place ("blueberries" for the raspberries a passage prices) is never
supported; a noun said another way ("kilo" for "kg", "car" for "vehicle") still is
(:mod:`groundwatch.judges.rules.substituted`, :mod:`groundwatch.judges.text.kinds`). Written
before the judge was run on them (Session 54)."""

from __future__ import annotations

import gzip
import hashlib
from importlib import resources

import pytest

from groundwatch.judges.rules.substituted import substituted
from groundwatch.judges.text.kinds import NOUN_KINDS_SHA256, kinds_apart, noun_senses
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

NURSERY = [
    "Greenway Nursery sells apple trees at £24 each and pear trees at £28 each. Delivery within "
    "10 miles is free on orders over £100."
]
KENNELS = [
    "Boarding at Oakfield Kennels costs £22 a night for dogs, including two walks a day. "
    "Bookings need a deposit of £30."
]
TRAIN = [
    "A return ticket from Leeds to York costs £15.40 for adults. Trains leave every 20 minutes "
    "on weekdays."
]


def test_two_kinds_of_one_thing() -> None:
    assert kinds_apart("blueberries", "raspberries")
    assert kinds_apart("cats", "dog")
    assert kinds_apart("plum", "pear")
    # one thing said two ways, or a thing and its hypernym
    assert not kinds_apart("price", "cost")
    assert not kinds_apart("car", "vehicle")
    assert not kinds_apart("puppy", "dog")
    # a word WordNet has no common noun for
    assert noun_senses("Qwertzland") is None
    assert not kinds_apart("Qwertzland", "dog")


def test_the_table_ships_with_the_package() -> None:
    raw = resources.files("groundwatch").joinpath("data/noun_kinds.tsv.gz").read_bytes()
    # pinned: scripts/build_noun_kinds.py builds the same bytes from WordNet 3.0
    assert hashlib.sha256(raw).hexdigest() == NOUN_KINDS_SHA256
    lines = gzip.decompress(raw).decode().splitlines()
    assert len(lines) > 40_000
    assert resources.files("groundwatch").joinpath("data/noun_kinds.LICENSE").is_file()


def test_the_noun_a_claim_puts_in_another_place() -> None:
    evidence = NURSERY[0].split(". ")[0]
    # (either kind the sentence names: it prices apples and pears, never plums)
    found = substituted("Plum trees cost £28 each.", "", evidence)
    assert found is not None
    assert found[0] == "plum"
    assert found[1] in ("apple", "pear")
    # the claim names the passage's own kind: nothing put in its place
    assert substituted("Pear trees cost £28 each.", "", evidence) is None
    # a short answer's kind is its question's
    found = substituted("$28", "How much is a plum tree?", evidence)
    assert found is not None
    assert found[0] == "plum"
    # a name is no noun put in a place ("Pear Lane" is a street)
    assert substituted("They deliver to Plum Lane.", "", evidence) is None


WRONG: list[Case] = [
    ("How much is a plum tree at Greenway?", NURSERY, "Plum trees cost £28 each.", False),
    ("How much does boarding a cat cost at Oakfield?", KENNELS, "£22 a night", False),
    ("How much is a return ticket for a child?", TRAIN, "A child's return costs £15.40.", False),
]
RIGHT: list[Case] = [
    ("How much is a pear tree at Greenway?", NURSERY, "Pear trees are £28 each.", True),
    ("How much does boarding a dog cost at Oakfield?", KENNELS, "£22 a night", True),
    ("How often do trains leave?", TRAIN, "Every 20 minutes on weekdays.", True),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_another_kinds_value_is_not_supported(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_the_kind_the_passage_names_is_not_held_back(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT, right_supported=True)
