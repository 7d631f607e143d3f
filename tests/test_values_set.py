"""The values and short-answers set (tests/values/, issue 44): question -> passage -> answer
triples in 8 domains, written blind (tests/values/README.md); ``dev/`` read, ``blind/`` measured
once after the code was final."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.modules import load_script

VALUES = Path(__file__).resolve().parent / "values"
FILES = sorted(VALUES.glob("*/*.jsonl"))
LABELS = {"supported", "contradicted", "not_found"}


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@pytest.fixture(scope="module")
def values() -> ModuleType:
    return load_script(VALUES.parent.parent / "benchmarks" / "values.py")


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}-{p.stem}" for p in FILES])
def test_each_file_is_well_formed(path: Path) -> None:
    rows = _rows(path)
    assert len(rows) >= 40
    for r in rows:
        assert set(r) == {"question", "premise", "hypothesis", "label", "kind", "note"}
        assert all(isinstance(v, str) and v.strip() for v in r.values())
        assert r["label"] in LABELS
        assert r["kind"] in {"short", "sentence"}
    labels = Counter(r["label"] for r in rows)
    assert labels["supported"] >= 15
    assert labels["contradicted"] >= 15
    assert len({r["hypothesis"] for r in rows}) == len(rows)


def test_the_halves_are_apart_and_large_enough() -> None:
    dev = [r for p in FILES if p.parent.name == "dev" for r in _rows(p)]
    blind = [r for p in FILES if p.parent.name == "blind" for r in _rows(p)]
    assert len(dev) + len(blind) >= 300
    assert not {r["premise"] for r in dev} & {r["premise"] for r in blind}
    assert {p.stem for p in FILES if p.parent.name == "dev"} == {
        p.stem for p in FILES if p.parent.name == "blind"
    }


# Measured 2026-12-06 (Session 44, values check vc1, final); bars a little below. Before (no
# values check), verifier: dev false support 0.725, blind 0.735; embedded: dev 0.412, blind 0.451.
# The blind half was measured twice: at 80d9948, then once more after precision changes made
# for held-out set 4 and the paraphrase suite (its mistakes were never read).
# (half, backend): (max false support, min contradicted recall, min contradicted precision)
GATES = {
    ("dev", "verifier"): (0.45, 0.15, 0.66),  # measured 0.422, 0.171, 0.706 of 17
    ("dev", "embedded"): (0.24, 0.24, 0.62),  # measured 0.216, 0.271, 0.655 of 29
    ("blind", "verifier"): (0.41, 0.15, 0.70),  # measured 0.382, 0.171, 0.750 of 16
    ("blind", "embedded"): (0.24, 0.20, 0.68),  # measured 0.216, 0.229, 0.727 of 22
}


@pytest.mark.parametrize(("half", "backend"), sorted(GATES), ids=["-".join(k) for k in GATES])
def test_judges_on_values(values: ModuleType, half: str, backend: str) -> None:
    rows = [r for p in sorted((VALUES / half).glob("*.jsonl")) for r in _rows(p)]
    pairs = load_script(VALUES.parent.parent / "benchmarks" / "pairs.py")
    verdicts, _, _ = pairs.judge_pairs(rows, backend)
    figures = values.value_figures(rows, verdicts)
    print(f"\n{half} {backend}: {figures}")
    max_false_support, min_recall, min_precision = GATES[(half, backend)]
    assert figures["false_support"] <= max_false_support
    assert figures["contradicted_recall"] >= min_recall
    assert figures["contradicted_precision"] >= min_precision
