"""The blind polarity set (tests/polarity/, issue 32): one file per deployment domain, rich in
negation and modality errors and in true negatives reworded, the two ways a judge fails on
polarity."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

POLARITY = Path(__file__).resolve().parent / "polarity"
FILES = sorted(POLARITY.glob("*.jsonl"))
VERDICTS = {"supported", "contradicted", "not_found"}


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_the_domains_and_no_passage_shared_with_the_other_sets() -> None:
    assert [p.stem for p in FILES] == ["council", "travel", "university"]
    mine = {c["text"] for p in FILES for r in _rows(p) for c in r["contexts"]}
    tests = Path(__file__).resolve().parent
    others = [*tests.glob("triage/*.jsonl"), *tests.glob("heldout*_cases.jsonl")]
    others += list((tests.parent / "training" / "traces").glob("*.jsonl"))
    for p in others:
        assert not any(c["text"] in mine for r in _rows(p) for c in r["contexts"]), p


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_domain_is_well_formed(path: Path) -> None:
    rows = _rows(path)
    assert len(rows) == 40
    assert len({r["trace_id"] for r in rows}) == 40
    verdicts: Counter[str] = Counter()
    for r in rows:
        assert set(r) == {"trace_id", "question", "contexts", "answer", "label", "refusal"}
        assert str(r["trace_id"]).startswith(f"{path.stem}-")
        assert len(r["contexts"]) >= 2
        assert all(str(c["text"]).strip() for c in r["contexts"])
        claims = r["label"]["claims"]
        assert claims
        assert all(c["verdict"] in VERDICTS and c["text"].strip() for c in claims)
        verdicts.update(c["verdict"] for c in claims)
        assert r["label"]["hallucinated"] == any(c["verdict"] != "supported" for c in claims)
        assert r["refusal"] is False
    assert verdicts["contradicted"] >= 55
    assert verdicts["supported"] >= 55
