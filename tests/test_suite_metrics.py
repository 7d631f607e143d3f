"""Suite retrieval metrics, evidence matching and case loading against hand-computed values."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from groundwatch.contract.trace import ContextPassage, RagTrace
from groundwatch.suite.cases import EvalCase, EvidenceQuote, EvidenceSpan, load_cases
from groundwatch.suite.generation import diagnose
from groundwatch.suite.matching import match_evidence, normalise
from groundwatch.suite.retrieval import (
    hit_at_k,
    ndcg_at_k,
    precision_at_k,
    rank_metrics,
    recall_at_k,
    reciprocal_rank,
)
from groundwatch.suite.stages import retrieval_stage

# --- rank metrics -------------------------------------------------------------------------


def test_recall_counts_each_gold_item_once_and_k_beyond_the_list() -> None:
    found = [set(), {0}, {0}, {1}]  # gold item 0 at ranks 2 and 3, item 1 at rank 4
    assert recall_at_k(found, 3, 1) == 0.0
    assert recall_at_k(found, 3, 3) == pytest.approx(1 / 3)
    assert recall_at_k(found, 3, 4) == pytest.approx(2 / 3)
    assert recall_at_k(found, 3, 50) == pytest.approx(2 / 3)  # k > list: nothing more found


def test_empty_relevant_set_is_none_not_zero() -> None:
    assert recall_at_k([set(), set()], 0, 3) is None
    assert precision_at_k([0, 0], 3, any_relevant=False) is None
    assert hit_at_k([0, 0], 3, any_relevant=False) is None
    assert reciprocal_rank([0, 0], any_relevant=False) is None
    assert ndcg_at_k([0, 0], [], 3) is None
    assert ndcg_at_k([0, 0], [0, 0], 3) is None


def test_precision_divides_by_k_even_when_the_list_is_shorter() -> None:
    assert precision_at_k([1, 0], 2) == 0.5
    assert precision_at_k([1, 0], 5) == pytest.approx(1 / 5)
    assert precision_at_k([], 3) == 0.0


def test_hit_and_reciprocal_rank() -> None:
    assert hit_at_k([0, 0, 2], 2) == 0.0
    assert hit_at_k([0, 0, 2], 3) == 1.0
    assert reciprocal_rank([0, 0, 2]) == pytest.approx(1 / 3)
    assert reciprocal_rank([0, 0]) == 0.0  # relevant exists but was not retrieved


def test_graded_ndcg_by_hand() -> None:
    # gains 0,2,0,1 ; ideal grades {2,1}; k=3
    dcg = (2**2 - 1) / math.log2(3)  # rank 2
    idcg = (2**2 - 1) / math.log2(2) + (2**1 - 1) / math.log2(3)
    assert ndcg_at_k([0, 2, 0, 1], [2, 1], 3) == pytest.approx(dcg / idcg)
    # k=4 adds the grade-1 passage at rank 4
    dcg4 = dcg + 1 / math.log2(5)
    assert ndcg_at_k([0, 2, 0, 1], [2, 1], 4) == pytest.approx(dcg4 / idcg)
    assert ndcg_at_k([2, 1], [2, 1], 10) == pytest.approx(1.0)
    # the same list with grades swapped scores lower: grading matters
    assert ndcg_at_k([1, 2], [2, 1], 2) < 1.0


def test_rank_metrics_in_one_pass_equal_the_definitions_bit_for_bit() -> None:
    """``rank_metrics`` (what a suite run uses) against the one-metric functions on random
    lists: graded gains, repeated and missing gold items, k of 0, inside and beyond the list."""
    import random

    rng = random.Random(7)
    for _ in range(500):
        n = rng.randint(0, 8)
        gains = [float(rng.choice([0, 0, 1, 2, 3])) for _ in range(n)]
        n_gold = rng.randint(0, 3)
        found = [{i for i in range(n_gold) if rng.random() < 0.3} for _ in range(n)]
        ideal = [float(rng.choice([0, 1, 2, 3])) for _ in range(rng.randint(0, 4))]
        any_relevant = rng.random() < 0.8
        ks = sorted({rng.randint(0, 10) for _ in range(3)})
        want: dict[str, float | None] = {}
        for k in ks:
            recall = recall_at_k(found, n_gold, k)
            want[f"recall@{k}"] = recall
            want[f"all_evidence@{k}"] = None if recall is None else float(recall == 1.0)
            want[f"precision@{k}"] = precision_at_k(gains, k, any_relevant)
            want[f"hit@{k}"] = hit_at_k(gains, k, any_relevant)
            want[f"ndcg@{k}"] = ndcg_at_k(gains, ideal, k)
        want["mrr"] = reciprocal_rank(gains, any_relevant)
        got = rank_metrics(found, n_gold, gains, ideal, ks, any_relevant=any_relevant)
        assert list(got) == list(want)
        for name, value in want.items():  # exact: == on floats, and None stays None
            assert (got[name] is None) == (value is None), name
            assert got[name] == value, name


def test_ties_keep_the_order_given() -> None:
    # two passages tied at the same retrieval score: the trace's rank decides, never resorted
    trace = RagTrace(
        trace_id="c",
        question="q",
        contexts=[
            ContextPassage(text="The Pro plan costs $49.", doc_id="price", score=0.5, rank=2),
            ContextPassage(text="Unrelated.", doc_id="other", score=0.5, rank=1),
        ],
    )
    case = EvalCase(
        id="c", question="q", evidence=[EvidenceQuote(doc_id="price", quote="Pro plan costs $49")]
    )
    stage = retrieval_stage(case, trace, ks=(1, 2))
    assert stage.retrieved == ["other", "price"]
    assert stage.metrics["mrr"] == 0.5
    assert stage.metrics["hit@1"] == 0.0
    assert stage.metrics["hit@2"] == 1.0


# --- matching -----------------------------------------------------------------------------


def test_quote_matches_across_whitespace_and_punctuation() -> None:
    p = ContextPassage(text="Refunds:  within 30 days\nof purchase!", doc_id="refund")
    assert normalise("Refunds: within 30 days of purchase") in normalise(p.text)
    assert (
        match_evidence(EvidenceQuote(doc_id="refund", quote="within 30 days of purchase"), p)
        == "quote"
    )
    # wrong document: the same words in another doc are not the gold evidence
    assert match_evidence(EvidenceQuote(doc_id="other", quote="within 30 days"), p) is None


def test_fuzzy_fallback_says_so() -> None:
    p = ContextPassage(
        text="Refunds are possible within thirty days of the purchase date.", doc_id="d"
    )
    q = EvidenceQuote(doc_id="d", quote="Refunds are possible within 30 days of the purchase date")
    assert match_evidence(q, p) == "fuzzy"  # 9 of 10 words
    assert match_evidence(EvidenceQuote(doc_id="d", quote="Exchanges take two weeks"), p) is None


def test_span_matches_by_offsets_or_corpus_text() -> None:
    corpus = {"d": "Intro. The Pro plan costs $49 per month. Outro."}
    span = EvidenceSpan(doc_id="d", start=7, end=40)
    chunk = ContextPassage(text="The Pro plan costs $49 per month.", doc_id="d")
    assert match_evidence(span, chunk, corpus) == "span"
    assert match_evidence(span, chunk, None) is None  # no corpus, no offsets: cannot tell
    with_offsets = ContextPassage(text="whatever", doc_id="d", start=30, end=60)
    assert match_evidence(span, with_offsets) == "span"


def test_duplicate_chunks_of_one_doc_do_not_inflate_ndcg() -> None:
    trace = RagTrace(
        trace_id="c",
        question="q",
        contexts=[
            ContextPassage(text="Pro plan costs $49", doc_id="price"),
            ContextPassage(text="Pro plan costs $49 monthly", doc_id="price"),
        ],
    )
    case = EvalCase(
        id="c", question="q", evidence=[EvidenceQuote(doc_id="price", quote="Pro plan costs $49")]
    )
    stage = retrieval_stage(case, trace, ks=(2,))
    assert stage.metrics["ndcg@2"] == pytest.approx(1.0)
    assert stage.metrics["precision@2"] == 0.5
    assert stage.metrics["recall@2"] == 1.0
    assert stage.metrics["gold_context_precision"] == 1.0  # both passages hold the quote


def test_unanswerable_case_has_no_retrieval_metrics() -> None:
    trace = RagTrace(trace_id="u", question="q", contexts=["anything"])
    stage = retrieval_stage(EvalCase(id="u", question="q", answerable=False), trace, ks=(3,))
    assert stage.metrics["recall@3"] is None
    assert stage.metrics["ndcg@3"] is None
    assert stage.context_hit is None


def test_diagnosis_table() -> None:
    assert diagnose(True, False, True, True) == "working"
    assert diagnose(True, False, True, False) == "generation_problem"
    assert diagnose(True, False, False, False) == "retrieval_problem"
    assert diagnose(True, False, False, True) == "lucky"
    assert diagnose(True, True, True, None) == "generation_problem"  # refused despite context
    assert diagnose(True, True, False, None) == "retrieval_problem"
    assert diagnose(True, True, None, None) == "abstained"
    assert diagnose(False, True, None, True) == "correct_refusal"
    assert diagnose(False, False, None, False) == "false_answer"


# --- case contract ------------------------------------------------------------------------


def test_bad_cases_are_reported_with_line_numbers_and_the_rest_load(tmp_path: Path) -> None:
    good = {"id": "a", "question": "Q?", "evidence": [{"doc_id": "d", "quote": "x"}]}
    lines = [
        json.dumps(good),
        "{not json",
        json.dumps({"id": "b"}),  # no question
        "",
        json.dumps(
            {"id": "c", "question": "Q", "evidence": [{"doc_id": "d", "start": 5, "end": 2}]}
        ),
        json.dumps({"id": "d", "question": "Q", "answerable": False, "nuggets": [{"text": "n"}]}),
        json.dumps({**good, "question": "again"}),  # repeated id
        json.dumps({"id": "e", "question": "Q", "chunk_id": "c-17"}),  # chunk ids are not evidence
        json.dumps({"id": "f", "question": "Q", "answerable": False}),
    ]
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cases, errors = load_cases(path)
    assert [c.id for c in cases] == ["a", "f"]
    assert [(e.line, e.reason) for e in errors] == [
        (2, "not_json"),
        (3, "schema"),
        (5, "schema"),
        (6, "schema"),
        (7, "duplicate_id"),
        (8, "schema"),
    ]
    assert "question" in errors[1].detail
    assert "end must be greater than start" in errors[2].detail
    assert str(errors[0]).startswith("line 2: not_json")
