"""Age bands as cases (judges/values/bands): a value of another band is not the asked age's."""

from __future__ import annotations

import math

import pytest

from groundwatch.judges.values.bands import age_band, claim_age, other_band
from groundwatch.judges.values.stated import stated_values

SYRUP = [
    "Children's cough syrup (dextromethorphan 7.5 mg/5 mL).",
    "Children 6 to 11 years: 5 mL every 6 to 8 hours.",
    "Adults and children 12 years and over: 10 mL every 6 to 8 hours.",
    "Do not give to children under 6 years.",
]
TABLETS = [
    "Adults and children aged 16 and over: take 1 or 2 tablets every 4 to 6 hours.",
    "Do not take more than 8 tablets in any 24-hour period.",
    "Children aged 10 to 15: take 1 tablet every 4 to 6 hours, with no more than 4 tablets in "
    "24 hours.",
]


@pytest.mark.parametrize(
    ("text", "age"),
    [
        ("How much can my 12-year-old take?", 12.0),
        ("An 8 year old should take 10 mL.", 8.0),
        ("For a child aged 9, how much?", 9.0),
        ("Children aged 10 to 15 take one tablet.", None),  # a band, not an age
        ("My 8-year-old and my 12-year-old", None),  # two ages: no one case
    ],
)
def test_claim_age(text: str, age: float | None) -> None:
    assert claim_age(text) == age


@pytest.mark.parametrize(
    ("text", "band"),
    [
        ("Children aged 10 to 15: take 1 tablet", (10.0, 15.0)),
        ("Children 6 to 11 years: 5 mL", (6.0, 11.0)),
        ("Adults and children 12 years and over: 10 mL", (12.0, math.inf)),
        ("Adults aged 65+ pay £4", (65.0, math.inf)),
        ("Do not give to children under 6 years.", (0.0, 5.0)),
        ("Take 1 tablet every 4 to 6 hours.", None),  # hours, no ages
    ],
)
def test_age_band(text: str, band: tuple[float, float] | None) -> None:
    assert age_band(text) == band


def _hit(claim: str, passage: list[str]):  # type: ignore[no-untyped-def]
    values = stated_values(claim)
    hits = [other_band(v, claim_age(claim), passage, values) for v in values]
    return [h for h in hits if h is not None]


def test_another_bands_value_is_found_with_the_asked_bands() -> None:
    [hit] = _hit("An 8-year-old should take 10 mL every 6 to 8 hours.", SYRUP)
    assert (hit.said, hit.band, hit.stated) == ("10 mL", "ages 12 and over", "5 mL")
    assert _hit("An 8-year-old should take 5 mL every 6 to 8 hours.", SYRUP) == []
    assert _hit("A 14-year-old should take 10 mL every 6 to 8 hours.", SYRUP) == []


def test_a_sentence_without_a_band_continues_the_one_before() -> None:
    # "Do not take more than 8 tablets" is said of ages 16 and over; the 10-15 band's cap is 4
    [hit] = _hit("A 12-year-old can take up to 8 tablets in 24 hours.", TABLETS)
    assert (hit.said, hit.band, hit.stated) == ("8 tablets", "ages 16 and over", "4 tablets")
    assert _hit("A 17-year-old can take up to 8 tablets in 24 hours.", TABLETS) == []


def test_an_age_no_stated_band_holds_decides_nothing() -> None:
    passage = ["Children under 5 travel free.", "Adult tickets cost £10."]
    assert _hit("A 30-year-old pays £10.", passage) == []
