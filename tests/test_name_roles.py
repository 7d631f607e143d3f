"""Names of one sentence in their roles ("a keynote by Priya Raman, followed by a panel chaired
by Jonas Berg"): a short answer naming the one the passage gives another role than the question
asks is not supported (judges/values/roles). Written before the judge was run on them (Session
48)."""

from __future__ import annotations

import pytest

from groundwatch.judges.values.roles import crossed_role
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

PANEL = [
    "The conference opened with a keynote by Priya Raman, followed by a panel chaired by "
    "Jonas Berg."
]
BRIDGE = [
    "The Harbour Bridge extension, designed by Lund Partners for the city council, was built "
    "by Ferro Construct and opened in 2021."
]
NOVEL = ["The novel, written by Ana Ruiz and published by Vela Books in 2019, won the Premio Sur."]
OWNED = ["Ana Ruiz's second novel, published by Vela Books in 2019, won the Premio Sur."]


def test_the_name_in_another_role_is_crossed() -> None:
    hit = crossed_role("Who chaired the opening panel?", "Priya Raman", PANEL)
    assert hit is not None
    assert (hit.said, hit.stated) == ("Priya Raman", "Jonas Berg")
    hit = crossed_role("Who built the Harbour Bridge extension?", "Lund Partners", BRIDGE)
    assert hit is not None
    assert hit.stated == "Ferro Construct"


def test_the_name_in_the_asked_role_or_with_no_role_is_not() -> None:
    assert crossed_role("Who chaired the opening panel?", "Jonas Berg", PANEL) is None
    assert (
        crossed_role("Who built the Harbour Bridge extension?", "Ferro Construct", BRIDGE) is None
    )
    assert crossed_role("Who wrote the novel?", "Ana Ruiz", NOVEL) is None
    # the passage gives Ana Ruiz no role word: nothing to cross
    assert crossed_role("Who wrote the novel?", "Ana Ruiz", OWNED) is None
    # a name the passage does not give: not this check's
    assert crossed_role("Who chaired the opening panel?", "Maria Lopez", PANEL) is None


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_short_answer_naming_the_other_role_is_not_supported(backend: str) -> None:
    cases: list[Case] = [
        ("Who chaired the opening panel?", PANEL, "Priya Raman", False),
        ("Who chaired the opening panel?", PANEL, "Jonas Berg", True),
        ("Who built the Harbour Bridge extension?", BRIDGE, "Lund Partners", False),
        ("Who wrote the novel?", NOVEL, "Vela Books", False),
        ("Who wrote the novel?", NOVEL, "Ana Ruiz", True),
    ]
    assert_right_and_wrong(backend, cases)
