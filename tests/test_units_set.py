"""The units pair set (tests/units/, issue 32): the same value written in other units, values
changed across units, same digits in another unit; written blind (tests/units/README.md)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.modules import load_script

UNITS = Path(__file__).resolve().parent / "units"
FILES = sorted(UNITS.glob("*.jsonl"))
LABELS = {"supported", "contradicted", "not_found"}


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@pytest.fixture(scope="module")
def pairs() -> ModuleType:
    return load_script(UNITS.parents[1] / "benchmarks" / "pairs.py")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_file_is_well_formed(path: Path) -> None:
    rows = _rows(path)
    assert len(rows) >= 90
    labels: Counter[str] = Counter()
    for r in rows:
        assert set(r) == {"premise", "hypothesis", "label", "note"}
        assert all(str(r[k]).strip() for k in r)
        labels[r["label"]] += 1
    assert set(labels) == LABELS
    assert labels["supported"] >= 35
    assert labels["contradicted"] >= 35
    assert len({r["hypothesis"] for r in rows}) == len(rows)


# Measured 2026-12-06 (Session 43, judges v4 / r7: pint reads the units the table lacks); bars a
# little below. Session 46 (values check vc3): one more right contradiction on each file, for
# both judges, none wrong (verifier 3-way: devices_energy 0.548, health_transport 0.585,
# number_words 0.711, dates 0.567). Session 47 (vc4): dates one more right contradiction
# for both judges (verifier 0.567 -> 0.589, 0.800 of 15), none wrong. (file, backend): (3-way accuracy, contradicted precision, true pairs contradicted)
GATES = {
    ("devices_energy", "verifier"): (
        0.52,
        0.78,
        2,
    ),  # measured 0.538, 0.833 of 18, 2 (vc2; vc1: 0.559; v4: 0.516)
    ("devices_energy", "embedded"): (0.40, 0.75, 2),  # measured 0.452, 0.833 of 18, 2 (r6: 0.333)
    # Session 44, values check vc1: 3-way 0.532 -> 0.574, contradicted 15 -> 18 called, precision
    # 0.933 -> 0.833, one more true pair contradicted (1 -> 2): the cost of reading values by
    # attribute, measured and kept (docs/accuracy.md, Session 44)
    ("health_transport", "verifier"): (0.53, 0.80, 2),  # measured 0.574, 0.833 of 18, 2
    ("health_transport", "embedded"): (0.50, 0.78, 3),  # measured 0.543, 0.850 of 20, 3 (r6: 0.415)
    # numbers of several words read with text2num (before: pint alone, same session)
    ("number_words", "verifier"): (
        0.66,
        0.75,
        4,
    ),  # measured 0.700, 0.800 of 25, 4 (vc1; v4: 0.622)
    ("number_words", "embedded"): (0.62, 0.75, 4),  # measured 0.667, 0.800 of 25, 4 (0.567)
    # dates in other formats, computed deadlines: a baseline (no date code changed), 2026-12-06
    ("dates", "verifier"): (
        0.51,
        0.72,
        1,
    ),  # measured 0.556, 0.769 of 13, 1 (before vc1: 0.500, 0.889 of 9, 0)
    ("dates", "embedded"): (0.43, 0.55, 7),  # measured 0.467, 0.630 of 27, 6
}


@pytest.mark.parametrize(
    ("stem", "backend"), sorted(GATES), ids=["-".join(k) for k in sorted(GATES)]
)
def test_judges_on_units(pairs: ModuleType, stem: str, backend: str) -> None:
    rows = pairs.load_pairs(UNITS / f"{stem}.jsonl", None)
    verdicts, scores, _ = pairs.judge_pairs(rows, backend)
    figures = pairs.figures(rows, verdicts, scores)
    called = [r["label"] for r, v in zip(rows, verdicts, strict=True) if v == "contradicted"]
    precision = called.count("contradicted") / len(called) if called else 0.0
    false_pages = called.count("supported")
    print(f"\n{stem} {backend}: {figures}, contradicted precision {precision:.3f} of {len(called)}")
    three_way, min_precision, max_false = GATES[(stem, backend)]
    assert figures["three_way"] is not None
    assert figures["three_way"] >= three_way
    assert precision >= min_precision
    assert false_pages <= max_false
