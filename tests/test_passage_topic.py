"""A passage's topic, named once in its first sentence, is what its later sentences' values are
about ("The Kestrel 5 scooter has ... The deck is magnesium and the scooter weighs 14.2 kg"):
a claim naming the topic aligns with those values too (judges/values/topics). Written before
the judge was run on them (Session 48)."""

from __future__ import annotations

import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.judges.text.words import content_words
from groundwatch.judges.values.topics import passage_topics
from tests.judged import LOCAL_BACKENDS, local_evaluator

SCOOTER = (
    "The Kestrel 5 scooter has a 350 W motor and a range of up to 45 km. "
    "The deck is made of magnesium and the scooter weighs 14.2 kg."
)
CYCLE = (
    "The cycle-to-work scheme lets staff borrow up to £2,500 for a bike, repaid over 12 months "
    "from salary. Staff can join once they have completed a 6-month probation period."
)


def _topic(sentences: list[tuple[int, str]], at: int) -> set[str]:
    return set(passage_topics(sentences)[at])


def test_a_later_sentence_inherits_the_first_sentences_subject() -> None:
    sentences = [
        (0, "The Kestrel 5 scooter has a 350 W motor and a range of up to 45 km."),
        (0, "The deck is made of magnesium and the scooter weighs 14.2 kg."),
    ]
    assert _topic(sentences, 0) == set()  # the first sentence says it itself
    assert set(content_words("Kestrel")) <= _topic(sentences, 1)


def test_no_topic_across_passages_or_into_a_sentence_with_its_own_name() -> None:
    sentences = [
        (0, "The Pro plan costs $12 per user per month."),
        (0, "The Business plan is $24 per user per month."),
        (1, "Refunds are issued within 14 days."),
    ]
    assert not set(content_words("Pro")) & _topic(sentences, 1)
    assert _topic(sentences, 2) == set()  # another passage: nothing inherited


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_value_of_the_topic_in_a_later_sentence_is_not_given_another(backend: str) -> None:
    evaluator = local_evaluator(backend)
    q = "How heavy is the Kestrel 5?"
    traces = [
        RagTrace(trace_id="w", question=q, contexts=[SCOOTER], answer="The Kestrel 5 weighs 12.4 kg."),
        RagTrace(trace_id="r", question=q, contexts=[SCOOTER], answer="The Kestrel 5 weighs 14.2 kg."),
    ]  # fmt: skip
    [wrong], [right] = (r.claims for r in evaluator.evaluate_batch(traces))
    assert wrong.verdict != "supported"
    assert right.verdict != "contradicted"
    if backend == "verifier":
        assert right.verdict == "supported"


KAYAK = (
    "The Orca 300 kayak is 3.9 m long and carries up to 150 kg. "
    "The hull is polyethylene and the boat weighs 23 kg."
)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_wrong_value_beside_a_right_one_is_held_back(backend: str) -> None:
    evaluator = local_evaluator(backend)
    trace = RagTrace(
        trace_id="k",
        question="How long and how heavy is the Orca 300?",
        contexts=[KAYAK],
        answer="The Orca 300 is 3.9 m long and weighs 32 kg.",
    )
    [judged] = evaluator.evaluate_batch([trace])
    weight = [c for c in judged.claims if "32 kg" in c.text]
    assert weight, judged.claims
    assert all(c.verdict != "supported" for c in weight)
    # a contradiction names the boat's weight, not the load it carries
    assert all("150 kg" not in (c.reason or "") for c in weight)


@pytest.mark.xfail(
    strict=True,
    reason="a topic of plain words ('The cycle-to-work scheme') is not inherited: inheriting "
    "one cost a true answer on the values dev set ('Lane swimming ends at 19:00' read as the "
    "pool's opening time); only names are (docs/accuracy.md, Session 48)",
)
@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_short_answer_aligns_with_the_topics_later_value(backend: str) -> None:
    evaluator = local_evaluator(backend)
    q = "When can I join the cycle-to-work scheme?"
    traces = [
        RagTrace(trace_id="w", question=q, contexts=[CYCLE], answer="After a 3-month probation."),
        RagTrace(trace_id="r", question=q, contexts=[CYCLE], answer="After a 6-month probation."),
    ]
    [wrong], [right] = (r.claims for r in evaluator.evaluate_batch(traces))
    assert wrong.verdict == "contradicted"  # the 6-month probation is the scheme's
    assert wrong.reason is not None
    assert "6-month" in wrong.reason
    assert right.verdict != "contradicted"
