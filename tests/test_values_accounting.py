"""Every value and every short answer accounted for (issue 44): the value alignment, the
short-answer name, and every backend's verdicts checked against them."""

from __future__ import annotations

from typing import Any

import pytest

from groundwatch.contract.record import Conflict
from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.judges.base import ClaimJudgement
from groundwatch.judges.checked import VALUES_VERSION, ValueCheckedJudge, check_claim
from groundwatch.judges.claims.short_answers import claim_values
from groundwatch.judges.factory import build_judge
from groundwatch.judges.values import account_values, stated_values
from groundwatch.judges.values.names import account_name
from groundwatch.sections.judging import JudgeSettings

DOSE = "For adults aged 18 to 65 the daily dose is 20 mg, taken in the morning."
CONFERENCE = (
    "The conference runs from March 3 to March 5, 2026; registration closes on February 14, 2026."
)
PLANS = "The Basic plan costs $8 per seat per month billed yearly, or $10 billed monthly."
POOL = "On weekdays the pool opens at 7:00 and closes at 21:00; on weekends it opens at 9:00."
OPERA = "The Sydney Opera House was designed by the Danish architect Jørn Utzon and opened in 1973."


def _texts(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return sorted(pairs)


def test_a_value_never_agrees_with_a_range_of_another_attribute() -> None:
    account = account_values(
        "Adults aged 18 to 65 should take 40 mg a day, in the morning.", [DOSE]
    )
    assert [(a.claim.text, a.evidence.text) for a in account.conflicts] == [("40 mg", "20 mg")]
    assert [a.claim.text for a in account.agreed] == ["18 to 65"]


def test_a_date_is_aligned_by_what_it_is_the_date_of() -> None:
    account = account_values(
        "Registration for the conference closes on March 3, 2026.", [CONFERENCE]
    )
    assert [(a.claim.text, a.evidence.text) for a in account.conflicts] == [
        ("March 3, 2026", "February 14, 2026")
    ]


def test_a_price_is_aligned_by_its_billing_period() -> None:
    wrong = account_values("The Basic plan costs $10 per seat per month billed yearly.", [PLANS])
    assert [(a.claim.text, a.evidence.text) for a in wrong.conflicts] == [("$10", "$8")]
    right = account_values("Billed yearly, the Basic plan is $8 a seat per month.", [PLANS])
    assert not right.conflicts
    assert [a.evidence.text for a in right.agreed] == ["$8"]


def test_a_rate_per_another_period_is_neither_agreement_nor_conflict() -> None:
    account = account_values(
        "One seat costs $100 a year.", ["A seat costs $8 per month when billed yearly."]
    )
    assert not account.conflicts
    assert not account.agreed
    assert [v.text for v in account.unaccounted] == ["$100"]


def test_a_rate_per_another_period_agrees_when_converted() -> None:
    """Session 47: "$96 a year" is "$8 per month" (a month a twelfth of a year); it was read
    as neither, so a true claim was held back as "value not in the passages"."""
    account = account_values(
        "One seat costs $96 a year.", ["A seat costs $8 per month when billed yearly."]
    )
    assert [(a.claim.text, a.evidence.text) for a in account.agreed] == [("$96", "$8")]
    weekly = account_values("The pass is £30 a week.", ["A pass costs £130 a month."])
    assert [a.claim.text for a in weekly.agreed] == ["£30"]  # £30 x 365 / 7 / 12 = £130.36
    dearer = account_values("The pass is £35 a week.", ["A pass costs £130 a month."])
    assert not dearer.agreed


def test_a_short_answer_is_read_with_its_question() -> None:
    question = "When does the pool open on weekdays?"
    values = claim_values("When does the pool open on weekdays? 6 am.", question)
    assert [v.text for v in values] == ["6 am"]
    assert "weekday" in values[0].attribute
    account = account_values("", [POOL], values=values)
    assert [(a.claim.text, a.evidence.text) for a in account.conflicts] == [("6 am", "7:00")]


def test_a_short_answers_own_words_are_not_its_attribute() -> None:
    """ "Tuesdays at 8:00" to a question about the choir: the day is the answer's claim, not
    what the time is the time of, so the time aligns by the question's words alone."""
    question = "When does the choir rehearse?"
    [value] = claim_values(f"{question} Tuesdays at 8:00.", question)
    assert "tuesday" not in value.attribute
    assert "choir" in value.attribute


@pytest.mark.parametrize(
    ("question", "answer", "evidence", "conflict"),
    [
        pytest.param(
            "What is the deposit for the studio flat?",
            "£600",
            "The rent for the studio flat is £600 a month; the deposit is £900, returned "
            "within ten days.",
            ("£600", "£900"),
            marks=pytest.mark.xfail(
                strict=True,
                reason="known limit: word overlap weighs the shared 'studio flat' as much as "
                "the attribute 'deposit' (docs/accuracy.md, Session 45)",
            ),
        ),
        (
            "How long is the warranty on the battery?",
            "2 years",
            "The e-bike frame carries a 2-year warranty and the battery a 1-year warranty.",
            ("2 years", "1-year"),
        ),
        (
            "What time does the museum café close?",
            "5:30 pm",
            "The museum is open from 10:00 to 17:30 daily; its café closes at 16:45.",
            ("5:30 pm", "16:45"),
        ),
        pytest.param(
            "How much is the parking permit for residents?",
            "£120",
            "A visitor parking permit costs £120 a year, while a resident permit is £45 a year.",
            ("£120", "£45"),
            marks=pytest.mark.xfail(
                strict=True,
                reason="known limit of the alignment alone: 'visitor' against 'resident' is not "
                "read as a contrast; both candidates share the question's words (Session 45). "
                "The checked judge contradicts it through parallel clauses since vc3 "
                "(tests/test_values_cases.py)",
            ),
        ),
        (
            "When does the ferry leave on Sundays?",
            "7:15",
            "The ferry leaves at 7:15 from Monday to Saturday; on Sundays the first ferry "
            "leaves at 9:40.",
            ("7:15", "9:40"),
        ),
    ],
)
def test_a_short_answer_giving_the_value_of_another_attribute_conflicts(
    question: str, answer: str, evidence: str, conflict: tuple[str, str]
) -> None:
    values = claim_values(f"{question} {answer}.", question)
    account = account_values("", [evidence], values=values)
    assert [(a.claim.text, a.evidence.text) for a in account.conflicts] == [conflict]


def test_a_short_answer_with_the_asked_value_among_others_agrees() -> None:
    question = "When does the ferry leave on Sundays?"
    evidence = (
        "The ferry leaves at 7:15 from Monday to Saturday; on Sundays the first ferry leaves "
        "at 9:40."
    )
    values = claim_values(f"{question} 9:40.", question)
    account = account_values("", [evidence], values=values)
    assert not account.conflicts
    assert [a.evidence.text for a in account.agreed] == ["9:40"]


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The case weighs 1,800 grams.", "The case weighs 1.8 kg and is 40 cm wide."),
        ("It is open 9 am to 1 pm on weekdays.", "It is open from 9:00 to 13:00 on weekdays."),
        ("Revenue was about $48 million.", "Revenue was $48.2 million, up 4 %."),
        ("You may take up to 8 tablets a day.", "Take no more than 8 tablets a day."),
    ],
)
def test_true_paraphrases_of_values_agree(claim: str, evidence: str) -> None:
    account = account_values(claim, [evidence])
    assert not account.conflicts
    assert not account.unaccounted
    assert account.agreed


def test_a_value_within_a_stated_bound_is_no_conflict() -> None:
    account = account_values(
        "A 30 kg bag is still accepted.",
        [
            "Bags weighing 24–32 kg incur an overweight fee of $100; bags over 32 kg are not accepted."
        ],
    )
    assert not account.conflicts


def test_numbers_in_names_and_ages_are_not_values() -> None:
    assert [v.text for v in stated_values("The Lumen Pro 14 ships with 16 GB of RAM.")] == ["16 GB"]
    assert "12" not in {v.text for v in stated_values("A 12-year-old can take 4 tablets.")}


def test_a_short_answer_naming_someone_else_conflicts_with_the_name_given() -> None:
    wrong = account_name("Who designed the Sydney Opera House?", "Frank Gehry", [OPERA])
    assert wrong is not None
    assert (wrong.status, wrong.evidence) == ("conflict", "Jørn Utzon")
    right = account_name("Who designed the Sydney Opera House?", "Jørn Utzon", [OPERA])
    assert right is not None
    assert right.status == "agreed"
    office = [
        "HR contacts: for the London office, speak to Priya Shah (ext. 4417); for the"
        " Manchester office, speak to Tom Whitaker (ext. 4425)."
    ]
    swapped = account_name("Who is the HR contact for the Manchester office?", "Priya Shah", office)
    assert swapped is not None
    # Another office's contact: never agreed (the alignment is not yet clear enough to say
    # contradicted: Tom Whitaker leads Priya Shah by 0.07, under the margin of 0.15).
    assert swapped.status != "agreed"
    right_office = account_name(
        "Who is the HR contact for the Manchester office?", "Tom Whitaker", office
    )
    assert right_office is not None
    assert right_office.status == "agreed"


ISSUE_TABLE = [
    ("When does the pool open on weekdays?", POOL, "6 am", "6 am", "7:00"),
    ("Who designed the Sydney Opera House?", OPERA, "Frank Gehry", "Frank Gehry", "Jørn Utzon"),
]  # fmt: skip
#: A sentence whose value the passages state otherwise, aligned below the sentence bar (0.7) or
#: stated there for another attribute: never supported, held back as not found (a contradiction
#: resting on a loose alignment alone cost true claims on the held-out sets; precision first).
HELD_BACK = [
    ("What dose should adults take?", DOSE, "Adults aged 18 to 65 should take 40 mg a day, in the morning.", "40 mg", "20 mg"),
    ("When does registration close?", CONFERENCE, "Registration for the conference closes on March 3, 2026.", "March 3, 2026", "February 14, 2026"),
    ("How much is the Basic plan?", PLANS, "The Basic plan costs $10 per seat per month billed yearly.", "$10", "$8"),
]  # fmt: skip


@pytest.fixture(scope="module", params=["verifier", "embedded"])
def evaluator(request: pytest.FixtureRequest) -> Evaluator:
    judge = build_judge(JudgeSettings(), backend=request.param)
    assert isinstance(judge, ValueCheckedJudge)
    judge.load()
    return Evaluator(judge)


def _records(evaluator: Evaluator, table: list[tuple[str, str, str, str, str]]) -> list[Any]:
    traces = [
        RagTrace(trace_id=f"t{i}", question=q, contexts=[p], answer=a)
        for i, (q, p, a, _, _) in enumerate(table)
    ]
    return evaluator.evaluate_batch(traces)


def test_the_issue_table_is_contradicted_by_every_backend_naming_both_values(
    evaluator: Evaluator,
) -> None:
    for record, (_, _, _, mine, theirs) in zip(
        _records(evaluator, ISSUE_TABLE), ISSUE_TABLE, strict=True
    ):
        [claim] = record.claims
        assert claim.verdict == "contradicted", claim
        assert claim.conflict is not None
        assert (claim.conflict.claim, claim.conflict.evidence) == (mine, theirs)
        assert claim.reason is not None
        assert mine in claim.reason
        assert theirs in claim.reason
        assert record.metric_version.endswith(f"/{VALUES_VERSION}")


def test_a_value_stated_for_another_attribute_is_never_supported(evaluator: Evaluator) -> None:
    for record, (_, _, _, mine, theirs) in zip(
        _records(evaluator, HELD_BACK), HELD_BACK, strict=True
    ):
        [claim] = record.claims
        assert claim.verdict != "supported", claim
        if claim.verdict == "not_found":
            assert claim.reason == f"value stated otherwise: {mine} vs {theirs}"


def test_the_right_short_answer_and_paraphrases_stay_supported(evaluator: Evaluator) -> None:
    cases = [
        ("Who designed the Sydney Opera House?", OPERA, "Jørn Utzon"),
        ("How heavy is the case?", "The case weighs 1.8 kg and is 40 cm wide.", "It weighs 1,800 grams."),
        ("When does the pool open on weekdays?", POOL, "7 am"),
    ]  # fmt: skip
    traces = [
        RagTrace(trace_id=f"s{i}", question=q, contexts=[p], answer=a)
        for i, (q, p, a) in enumerate(cases)
    ]
    for record in evaluator.evaluate_batch(traces):
        assert {c.verdict for c in record.claims} == {"supported"}, record.claims


def test_offline_suite_nuggets_with_a_wrong_value_or_absent_words_are_not_present(
    evaluator: Evaluator,
) -> None:
    """The regression of issue 44: the nugget "25 working days" was judged present in an answer
    that says 21 days, and "plus bank holidays" in one that never mentions them."""
    answer = "In London you get 21 days of annual leave per year."
    probes = [
        RagTrace(trace_id=f"case#nugget{i}", question="How much annual leave do London staff get?",
                 contexts=[answer], answer=fact)
        for i, fact in enumerate(["25 working days", "plus bank holidays", "21 days"])
    ]  # fmt: skip
    verdicts = [[c.verdict for c in r.claims] for r in evaluator.evaluate_claims_batch(probes)]
    assert verdicts[0] != ["supported"]
    assert verdicts[1] != ["supported"]
    assert verdicts[2] == ["supported"]


def _contradicted(claim: str, mine: str, theirs: str) -> ClaimJudgement:
    """A backend's contradiction resting on a value conflict, as a backend would give it."""
    return ClaimJudgement(
        claim,
        "contradicted",
        0.9,
        None,
        f"number mismatch: {mine} vs {theirs}",
        Conflict(kind="number", claim=mine, evidence=theirs),
    )


@pytest.mark.parametrize(
    ("claim", "evidence", "mine", "theirs", "reason"),
    [
        (
            "A seat costs $96 a year.",
            "A seat costs $8 per month, billed yearly.",
            "$96",
            "$8",
            "value per another period: $96 a year vs $8 a month",
        ),
    ],
)
def test_a_backend_conflict_between_rates_of_two_periods_is_not_a_contradiction(
    claim: str, evidence: str, mine: str, theirs: str, reason: str
) -> None:
    trace = RagTrace(trace_id="v", question="", contexts=[evidence], answer=claim)
    checked = check_claim(_contradicted(claim, mine, theirs), "", [(0, evidence)], trace)
    assert (checked.verdict, checked.reason, checked.conflict) == ("not_found", reason, None)


def test_a_backend_conflict_on_the_same_attribute_stands() -> None:
    claim, evidence = "The Basic plan costs $10 per seat per month.", PLANS
    trace = RagTrace(trace_id="v", question="", contexts=[evidence], answer=claim)
    checked = check_claim(_contradicted(claim, "$10", "$8"), "", [(0, evidence)], trace)
    assert checked.verdict == "contradicted"
    assert checked.conflict is not None


def test_a_value_of_another_year_never_accounts_for_the_claims() -> None:
    evidence = "The hotel's occupancy was 84 % in 2024, up from 78 % in 2023."
    question = "What was the hotel's occupancy in 2023?"
    wrong = account_values("", [evidence], values=claim_values(f"{question} 84 %.", question))
    assert not wrong.agreed
    right = account_values("", [evidence], values=claim_values(f"{question} 78 %.", question))
    assert [a.evidence.text for a in right.agreed] == ["78 %"]
    [value] = [v for v in stated_values(evidence) if v.text == "78 %"]
    assert value.years == frozenset({2023})


def test_a_short_answer_is_accounted_for_only_by_the_best_aligned_value() -> None:
    evidence = (
        "Buses run every 10 minutes on weekdays, every 20 minutes on Saturdays and every 30 "
        "minutes on Sundays and public holidays."
    )
    question = "How often do the buses run on Sundays?"
    wrong = account_values(
        "", [evidence], values=claim_values(f"{question} Every 20 minutes.", question)
    )
    assert not wrong.agreed


@pytest.mark.xfail(
    strict=True,
    reason="known limit: the subject's words ('buses run') weigh most in the first clause, so "
    "'every 10 minutes on weekdays' aligns 0.57 and the Sundays value 0.55; a short answer is "
    "accounted for only by the best-aligned value (docs/accuracy.md, Session 45)",
)
def test_the_right_short_answer_among_a_sentences_values_is_accounted_for() -> None:
    evidence = (
        "Buses run every 10 minutes on weekdays, every 20 minutes on Saturdays and every 30 "
        "minutes on Sundays and public holidays."
    )
    question = "How often do the buses run on Sundays?"
    right = account_values(
        "", [evidence], values=claim_values(f"{question} Every 30 minutes.", question)
    )
    assert [a.evidence.text for a in right.agreed] == ["30 minutes"]


@pytest.mark.parametrize(
    ("question", "answer", "evidence"),
    [
        ("Is the museum open on Mondays?", "No", "The museum is open on Mondays from 10:00."),
        ("Is the museum open on Mondays?", "Yes, it is.", "The museum is not open on Mondays."),
        ("Does the hostel accept pets?", "Yes", "The hostel does not accept pets."),
    ],
)
def test_a_yes_or_no_that_the_passage_negates_is_contradicted(
    evaluator: Evaluator, question: str, answer: str, evidence: str
) -> None:
    [record] = evaluator.evaluate_batch(
        [RagTrace(trace_id="yn", question=question, contexts=[evidence], answer=answer)]
    )
    [claim] = record.claims
    assert claim.verdict == "contradicted", claim
    assert claim.conflict is not None
    assert claim.conflict.kind == "negation"


def test_a_yes_or_no_that_the_passage_states_stays_supported(evaluator: Evaluator) -> None:
    [record] = evaluator.evaluate_batch(
        [
            RagTrace(
                trace_id="yn",
                question="Is the museum open on Mondays?",
                contexts=["The museum is not open on Mondays."],
                answer="No",
            )
        ]
    )
    [claim] = record.claims
    assert claim.verdict != "contradicted", claim


def test_a_value_the_question_names_is_no_candidate_for_the_answer() -> None:
    """ "Lumex 250 mg" names the product the question asks about: the passage's "250 mg" is
    the premise, not a rival to the daily maximum "1,000 mg" (Session 48)."""
    question = "What's the maximum daily dose of Lumex 250 mg capsules?"
    passage = [
        "Lumex 250 mg capsules.",
        "Adults: take one capsule every 8 hours.",
        "Do not take more than 4 capsules (1,000 mg) in 24 hours.",
    ]
    values = claim_values("1 gram in 24 hours", question, short=True)
    account = account_values(
        "1 gram in 24 hours", passage, values=values, given=stated_values(question)
    )
    assert [a.evidence.text for a in account.agreed if a.claim.kind == "mass"] == ["1,000 mg"]
    wrong = claim_values("2 grams in 24 hours", question, short=True)
    account = account_values(
        "2 grams in 24 hours", passage, values=wrong, given=stated_values(question)
    )
    assert not [a for a in account.agreed if a.claim.kind == "mass"]


@pytest.mark.xfail(
    strict=True,
    reason="known limit (Session 48, written before the judge was run): the question's date "
    "('the Tuesday 4 March deliveries') names the case, and the passage's other date of that "
    "sentence ('normally made on Monday 3 March') is aligned to the answer and contradicts it; "
    "the passage does not say when those deliveries are made (not found). The same with the "
    "premise left out, so leaving it out never decides a conflict",
)
def test_the_other_date_of_the_premises_sentence_is_no_rival() -> None:
    question = "When will the Tuesday 4 March deliveries be made?"
    moved = [
        "Deliveries normally made on Monday 3 March will be made on Tuesday 4 March.",
        "Recycling is suspended from 1 to 9 March.",
    ]
    answer = "Wednesday 5 March"
    values = claim_values(answer, question, short=True)
    account = account_values(answer, moved, values=values, given=stated_values(question))
    assert not account.conflicts
