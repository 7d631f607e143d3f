"""The blind sentence-boundary set (tests/sentences/): the splitter's figures as a gate."""

from __future__ import annotations

import json
from pathlib import Path

from groundwatch.judges.text.sentences import split_sentences
from tests.modules import load_script

SET = Path(__file__).resolve().parent / "sentences" / "boundaries.jsonl"
ROOT = Path(__file__).resolve().parents[1]


def _rows() -> list[dict[str, object]]:
    return [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines() if line]


def test_the_set_is_well_formed() -> None:
    rows = _rows()
    assert len(rows) == 90
    for r in rows:
        assert set(r) == {"text", "sentences", "note"}
        sentences = r["sentences"]
        assert isinstance(sentences, list)
        assert sentences
        assert all(isinstance(s, str) and s.strip() == s and s in str(r["text"]) for s in sentences)


def test_the_splitter_on_the_blind_set() -> None:
    # measured 2026-12-06: P 0.903, R 0.868, F1 0.885, 70 of 90 texts exactly right; the best
    # library measured beside it (blingfire) 0.893 and 71 (tests/sentences/README.md)
    figures = load_script(ROOT / "benchmarks" / "sentences.py").score(_rows(), split_sentences)
    assert figures["f1"] >= 0.86
    assert figures["exact"] >= 66
