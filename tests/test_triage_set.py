"""The blind triage set (tests/triage/, issue 35): one file per deployment domain, each with
enough gold contradictions that a judge's findings can be labelled k = 25-100 at a time."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

TRIAGE = Path(__file__).resolve().parent / "triage"
FILES = sorted(TRIAGE.glob("*.jsonl"))
VERDICTS = {"supported", "contradicted", "not_found"}


def _rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_the_set_has_six_domains() -> None:
    assert [p.stem for p in FILES] == ["bank", "clinic", "electronics", "hr", "retail", "saas"]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_domain_is_well_formed_and_contradiction_rich(path: Path) -> None:
    rows = _rows(path)
    assert len(rows) == 60
    assert len({r["trace_id"] for r in rows}) == 60
    verdicts: Counter[str] = Counter()
    for r in rows:
        assert set(r) == {"trace_id", "question", "contexts", "answer", "label", "refusal"}
        assert str(r["trace_id"]).startswith(f"{path.stem}-")
        contexts = r["contexts"]
        assert isinstance(contexts, list)
        assert len(contexts) >= 2
        assert all(str(c["text"]).strip() for c in contexts)
        label = r["label"]
        assert isinstance(label, dict)
        claims = label["claims"]
        assert claims
        assert all(c["verdict"] in VERDICTS and c["text"].strip() for c in claims)
        verdicts.update(c["verdict"] for c in claims)
        assert label["hallucinated"] == any(c["verdict"] != "supported" for c in claims)
        assert r["refusal"] is False
    # The reason the set exists: a judge that finds a third of them still has 30+ findings.
    assert verdicts["contradicted"] >= 90
    assert verdicts["supported"] >= 90
