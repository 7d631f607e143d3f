"""A bound the claim states ("under 30 dB", "over 300 m") that the passage's value for the same
attribute lies outside of is never supported; a value inside it still agrees. Written before
the judge was run on them (Session 48)."""

from __future__ import annotations

import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.judges.values.alignment import account_values
from groundwatch.judges.values.quantities import parse_quantities
from tests.judged import LOCAL_BACKENDS, local_evaluator

FAN = ["The Aero 7 desk fan runs at 34 dB on its lowest setting and draws 22 W."]
BRIDGE = ["The Halden bridge is 280 m long and opened to traffic in 1998."]


def test_a_value_outside_the_claims_bound_conflicts() -> None:
    account = account_values("The Aero 7 fan runs at under 30 dB.", FAN)
    assert [(a.claim.text, a.evidence.text) for a in account.conflicts] == [("30 dB", "34 dB")]
    account = account_values("The Halden bridge is over 300 m long.", BRIDGE)
    assert not account.agreed
    assert account.unaccounted or account.conflicts


def test_a_value_inside_the_claims_bound_agrees() -> None:
    account = account_values("The Aero 7 fan runs at under 40 dB.", FAN)
    assert [a.evidence.text for a in account.agreed] == ["34 dB"]
    account = account_values("The Halden bridge is more than 250 m long.", BRIDGE)
    assert [a.evidence.text for a in account.agreed] == ["280 m"]
    assert not account.conflicts


def test_two_bounds_are_two_limits_not_a_conflict() -> None:
    account = account_values(
        "Children over 12 can take it.", ["Not suitable for children under 6 years."]
    )
    assert not account.conflicts


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_bound_the_passage_value_breaks_is_not_supported(backend: str) -> None:
    evaluator = local_evaluator(backend)
    q = "Is the Aero 7 quieter than 30 dB?"
    traces = [
        RagTrace(trace_id="o", question=q, contexts=FAN, answer="Yes, it runs at under 30 dB."),
        RagTrace(trace_id="b", question="How long is the Halden bridge?", contexts=BRIDGE,
                 answer="The Halden bridge is over 300 m long."),
        RagTrace(trace_id="i", question="How long is the Halden bridge?", contexts=BRIDGE,
                 answer="The Halden bridge is more than 250 m long."),
    ]  # fmt: skip
    outside, longer, inside = (r.claims for r in evaluator.evaluate_batch(traces))
    assert all(c.verdict != "supported" for c in outside)
    assert all(c.verdict != "supported" for c in longer)
    assert all(c.verdict != "contradicted" for c in inside)


def test_after_a_duration_is_a_point_not_a_bound() -> None:
    """ "after 60 days" is the 60-day mark, not any time over 60 days: it never agrees with
    "90 days" or "six months" (Session 48). A clock time after "after" stays a bound."""
    [days] = parse_quantities("New starters qualify after 60 days.")[0]
    assert days.bound == ""
    [clock] = parse_quantities("The pool is open after 2 pm.")[0]
    assert clock.bound == "lower"
    account = account_values("Staff qualify after 60 days.", ["Staff qualify after 90 days."])
    assert not account.agreed


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_waiting_period_of_another_length_is_not_supported(backend: str) -> None:
    evaluator = local_evaluator(backend)
    gym = [
        "The gym discount is 20 % for all staff and is paid through payroll every six months. "
        "New starters qualify after 90 days of service."
    ]
    q = "When do new starters qualify for the gym discount?"
    traces = [
        RagTrace(trace_id="w", question=q, contexts=gym, answer="After 60 days"),
        RagTrace(trace_id="r", question=q, contexts=gym, answer="After 90 days"),
    ]
    [wrong], [right] = (r.claims for r in evaluator.evaluate_batch(traces))
    assert wrong.verdict != "supported"
    assert right.verdict != "contradicted"
