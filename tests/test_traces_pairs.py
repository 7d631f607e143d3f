"""Pairs from the labelled RAG traces (training/traces_pairs.py): the held-out domains are never
read, a trace's claims share a group, and each window is cut from the passage the claim is about."""

from __future__ import annotations

import json
from pathlib import Path

from training.data import CONTRADICTED, SUPPORTED, split_held_out
from training.traces_pairs import HELD_OUT_DOMAINS, load_trace_pairs, most_about


def _trace(trace_id: str, claims: list[tuple[str, str]]) -> dict[str, object]:
    return {
        "trace_id": trace_id,
        "question": "How long is the warranty?",
        "contexts": [
            {"id": "p1", "text": "Headphones. The Aria headphones carry a two-year warranty."},
            {"id": "p2", "text": "Vacuums. The Roam vacuum carries a one-year warranty."},
        ],
        "answer": " ".join(c for c, _ in claims),
        "label": {"hallucinated": True, "claims": [{"text": c, "verdict": v} for c, v in claims]},
        "refusal": False,
    }


def test_held_out_domains_are_never_read_and_windows_come_from_the_claims_passage(
    tmp_path: Path,
) -> None:
    rows = [
        _trace("shop-001", [("The Roam vacuum has a two-year warranty.", "contradicted")]),
        _trace("shop-002", [("The Aria headphones carry a two-year warranty.", "supported")]),
    ]
    (tmp_path / "shop.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    held = sorted(HELD_OUT_DOMAINS)[0]
    (tmp_path / f"{held}.jsonl").write_text(json.dumps(_trace(f"{held}-001", [("x", "supported")])))
    pairs = load_trace_pairs(tmp_path)
    assert [p.group for p in pairs] == ["traces:shop-001", "traces:shop-002"]
    assert "Roam" in pairs[0].premise
    assert "Aria" not in pairs[0].premise
    assert pairs[0].target == frozenset({CONTRADICTED})
    assert "Aria" in pairs[1].premise
    assert pairs[1].target == frozenset({SUPPORTED})
    assert most_about("Roam vacuum warranty", ["Aria headphones", "Roam vacuum"]) == "Roam vacuum"


def test_the_shipped_traces_give_one_pair_per_claim_and_split_by_trace() -> None:
    pairs = load_trace_pairs()
    assert len(pairs) == 1641  # the six fitted domains' claims (devapi, property held out)
    assert not any(
        g.startswith(("traces:devapi", "traces:property")) for g in {p.group for p in pairs}
    )
    train, held = split_held_out(pairs, 0.06)
    assert {p.group for p in train}.isdisjoint({p.group for p in held})
    assert 0.02 < len(held) / len(pairs) < 0.12
