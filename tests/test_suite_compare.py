"""Paired bootstrap against a closed form, McNemar by hand, flips, and the gate both ways."""

from __future__ import annotations

import math

import numpy as np
import pytest

from groundwatch.suite.compare import bootstrap_mean_ci, compare_runs, mcnemar_p
from groundwatch.suite.gate import GateRuleError, check_gate, parse_rule
from groundwatch.suite.record import EvalRecord


def _rec(case_id: str, intent: str, **metrics: float | None) -> EvalRecord:
    passed = metrics.get("correct")
    return EvalRecord(
        case_id=case_id,
        question="q",
        slices={"intent": intent},
        metrics=dict(metrics),
        passed=None if passed is None else bool(passed),
        diagnosis="working" if passed else "retrieval_problem",
    )


def test_bootstrap_interval_matches_the_normal_closed_form() -> None:
    # For the mean of n iid values the bootstrap distribution is ≈ N(mean, σ²/n) with the
    # population (ddof=0) σ: the 95% percentile interval is ≈ mean ± 1.96·σ/√n.
    rng = np.random.default_rng(7)
    diffs = rng.normal(0.1, 1.0, size=4000)
    lo, hi = bootstrap_mean_ci(diffs[:, None], resamples=4000, seed=1)
    half = 1.959964 * diffs.std() / math.sqrt(diffs.size)
    assert lo[0] == pytest.approx(diffs.mean() - half, abs=0.1 * half)
    assert hi[0] == pytest.approx(diffs.mean() + half, abs=0.1 * half)


def test_bootstrap_is_seeded_and_ignores_missing_values() -> None:
    d = np.array([[1.0, np.nan], [0.0, np.nan], [1.0, 2.0], [0.0, 2.0]])
    a = bootstrap_mean_ci(d, 500, seed=3)
    b = bootstrap_mean_ci(d, 500, seed=3)
    assert np.array_equal(a[0], b[0])
    assert np.array_equal(a[1], b[1])
    assert a[0][1] == 2.0  # only the two present values, both 2.0
    assert a[1][1] == 2.0


def test_mcnemar_exact_by_hand() -> None:
    # b=0, c=5: p = 2 · 0.5^5
    assert mcnemar_p(0, 5) == pytest.approx(2 * 0.5**5)
    # b=2, c=8: p = 2 · Σ_{i≤2} C(10,i) / 2^10
    assert mcnemar_p(2, 8) == pytest.approx(2 * (1 + 10 + 45) / 1024)
    assert mcnemar_p(3, 3) == 1.0
    assert mcnemar_p(0, 0) == 1.0


def _runs(billing_drop: bool) -> tuple[list[EvalRecord], list[EvalRecord]]:
    base, cand = [], []
    for i in range(60):
        intent = "billing" if i < 30 else "account"
        base.append(_rec(f"c{i}", intent, correct=1.0, vital_nugget_recall=1.0, faithfulness=0.9))
        worse = billing_drop and intent == "billing" and i % 3 != 0
        cand.append(
            _rec(
                f"c{i}",
                intent,
                correct=0.0 if worse else 1.0,
                vital_nugget_recall=0.0 if worse else 1.0,
                faithfulness=0.9,
            )
        )
    return base, cand


def test_compare_finds_the_slice_and_the_flips() -> None:
    base, cand = _runs(billing_drop=True)
    cmp = compare_runs(base, cand, resamples=500, seed=0)
    billing = cmp.row("vital_nugget_recall", "intent=billing")
    account = cmp.row("vital_nugget_recall", "intent=account")
    assert billing is not None
    assert account is not None
    assert billing.delta == pytest.approx(-20 / 30)
    assert billing.regressed
    assert billing.hi is not None
    assert billing.hi < 0
    assert billing.p_value is not None
    assert billing.p_value < 1e-4
    assert not account.regressed
    assert account.delta == 0.0
    assert len(cmp.flips) == 20
    assert all(f.before and not f.after for f in cmp.flips)
    assert cmp.flips[0].changes["correct"] == (1.0, 0.0)


def test_gate_exit_code_both_ways() -> None:
    rule = parse_rule("vital_nugget_recall,faithfulness@intent=billing")
    base, cand = _runs(billing_drop=True)
    failing = check_gate(compare_runs(base, cand, resamples=500), [rule])
    assert failing.exit_code == 1
    assert [c.outcome for c in failing.checks] == ["fail", "pass"]
    base, cand = _runs(billing_drop=False)
    assert check_gate(compare_runs(base, cand, resamples=500), [rule]).exit_code == 0


def test_gate_passes_a_drop_the_interval_cannot_tell_from_noise() -> None:
    base, cand = _runs(billing_drop=False)
    cand[0] = _rec("c0", "billing", correct=0.0, vital_nugget_recall=0.0, faithfulness=0.9)
    cmp = compare_runs(base, cand, resamples=500)
    row = cmp.row("vital_nugget_recall", "intent=billing")
    assert row is not None
    assert row.delta is not None
    assert row.delta < 0
    assert check_gate(cmp, [parse_rule("vital_nugget_recall@intent=*")]).exit_code == 0


def test_gate_rule_naming_nothing_is_an_error_not_a_pass() -> None:
    base, cand = _runs(billing_drop=False)
    cmp = compare_runs(base, cand, resamples=100)
    assert check_gate(cmp, [parse_rule("vital_nuget_recall")]).exit_code == 2
    assert check_gate(cmp, [parse_rule("correct@intent=shipping")]).exit_code == 2
    with pytest.raises(GateRuleError):
        parse_rule("correct@intent")


def test_lower_is_better_metrics_regress_upwards() -> None:
    base = [_rec(f"u{i}", "x", false_answer=0.0) for i in range(40)]
    cand = [_rec(f"u{i}", "x", false_answer=1.0 if i < 20 else 0.0) for i in range(40)]
    cmp = compare_runs(base, cand, resamples=300)
    row = cmp.row("false_answer")
    assert row is not None
    assert row.delta == 0.5
    assert row.regressed
    assert check_gate(cmp, [parse_rule("false_answer")]).exit_code == 1
