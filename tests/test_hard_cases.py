"""Hand-written hard cases with claim-level labels, through the real embedded judge.

The cases (tests/hard_cases.jsonl) cover number/unit/date/entity/negation/modality/comparative
disagreements, near-duplicate passages about another country, tier or year, paraphrase,
unsupported additions, correct and false refusals, hedges and terse answers, across domains.
Run ``.venv/bin/python benchmarks/accuracy.py tests/hard_cases.jsonl --mistakes`` to see misses.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from groundwatch.judges.embedded import EmbeddedJudge
from groundwatch.judges.embedding import build_embedder
from groundwatch.sections.judging import EmbeddingSettings
from tests.modules import load_script

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "hard_cases.jsonl"


def _accuracy_module() -> ModuleType:
    return load_script(ROOT / "benchmarks" / "accuracy.py")


@pytest.fixture(scope="module")
def accuracy() -> ModuleType:
    return _accuracy_module()


def test_cases_are_many_and_varied(accuracy: ModuleType) -> None:
    rows = accuracy.load_rows(CASES)
    assert len(rows) >= 45
    domains = Counter(r["domain"] for r in rows)
    assert len(domains) >= 6, domains
    verdicts = Counter(c["verdict"] for r in rows for c in r["label"]["claims"])
    assert verdicts["contradicted"] >= 15
    assert verdicts["not_found"] >= 5
    assert sum(1 for r in rows if r["label"].get("refusal")) >= 2


def test_hard_cases_accuracy(accuracy: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    rows = accuracy.load_rows(CASES)
    judge = EmbeddedJudge(build_embedder(EmbeddingSettings()))
    report, _ = accuracy.evaluate_rows(rows, judge)
    with capsys.disabled():
        print()
        print("\n".join(report.lines()))
        for m in report.mistakes:
            print("  miss:", m)
    assert report.claim_accuracy is not None
    assert report.claim_accuracy >= 0.90
    assert report.contradicted_precision is not None
    assert report.contradicted_precision >= 0.90
    assert report.refusal_accuracy is not None
    assert report.refusal_accuracy >= 0.90
    # Near-duplicate passages (another lake, another country) look relevant to the embedding;
    # everything else is separated.
    assert report.relevance_accuracy is not None
    assert report.relevance_accuracy >= 0.80
