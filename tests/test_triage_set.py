"""The blind triage set (tests/triage/, issue 35): one file per deployment domain, each with
enough gold contradictions that a judge's findings can be labelled k = 25-100 at a time."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

TRIAGE = Path(__file__).resolve().parent / "triage"
#: Training traces, written the same way (training/traces/README.md): the verdict model's fit.
TRACES = Path(__file__).resolve().parents[1] / "training" / "traces"
FILES = sorted(TRIAGE.glob("*.jsonl")) + sorted(TRACES.glob("*.jsonl"))
VERDICTS = {"supported", "contradicted", "not_found"}


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_the_sets_have_their_domains_and_share_none() -> None:
    blind = [p.stem for p in sorted(TRIAGE.glob("*.jsonl"))]
    assert blind == ["bank", "clinic", "electronics", "hr", "retail", "saas"]
    train = [p.stem for p in sorted(TRACES.glob("*.jsonl"))]
    assert train == [
        "airline", "devapi", "energy", "insurance", "permits", "property", "telecom", "university"
    ]  # fmt: skip
    texts = {
        c["text"] for p in sorted(TRIAGE.glob("*.jsonl")) for r in _rows(p) for c in r["contexts"]
    }
    for p in sorted(TRACES.glob("*.jsonl")):
        assert not any(c["text"] in texts for r in _rows(p) for c in r["contexts"])


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
