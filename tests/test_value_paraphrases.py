"""True paraphrases of values agree, and the same forms with another value do not
(:mod:`groundwatch.judges.values.quantities`, :mod:`groundwatch.judges.values.spelled`).
Written before the judge was run on them (Session 51)."""

from __future__ import annotations

import pytest

from groundwatch.judges.values.alignment import agrees
from groundwatch.judges.values.stated import stated_values


def _agree(a: str, b: str) -> bool:
    [va], [vb] = stated_values(a), stated_values(b)
    return agrees(va, vb)


@pytest.mark.parametrize(
    ("said", "stated"),
    [
        # rounding marked by a hedge: the value the rounded number stands for
        ("Revenue was roughly £1.3bn.", "Revenue was £1.26 billion."),
        ("About 270 bones fuse.", "Some 268 bones fuse."),
        ("The trip takes nearly 3 hours.", "The trip takes 2.8 hours."),
        # noon and midnight are times of day
        ("It opens at noon.", "It opens at 12:00."),
        ("The bar closes at midnight.", "The bar closes at 00:00."),
        # Fahrenheit against Celsius
        ("Bake at 350 °F.", "Bake at 180 °C."),
    ],
)
def test_paraphrased_values_agree(said: str, stated: str) -> None:
    assert _agree(said, stated)


@pytest.mark.parametrize(
    ("said", "stated"),
    [
        ("Revenue was roughly £1.3bn.", "Revenue was £1.4 billion."),
        ("About 270 bones fuse.", "206 bones fuse."),
        ("The trip takes nearly 3 hours.", "The trip takes 3.5 hours."),
        ("It opens at noon.", "It opens at 13:00."),
        ("Bake at 350 °F.", "Bake at 220 °C."),
    ],
)
def test_the_same_forms_with_another_value_disagree(said: str, stated: str) -> None:
    assert not _agree(said, stated)


def test_a_change_of_temperature_stays_in_its_unit() -> None:
    # 1.5 °F warmer is 0.8 °C warmer, not -16.9 °C: a change is not converted as a temperature
    [v] = stated_values("It warmed by 1.5 °F.")
    assert v.kind == "fahrenheit"
    [v] = stated_values("Expect a 3 °F rise by Friday.")
    assert v.kind == "fahrenheit"
