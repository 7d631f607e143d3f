"""``groundwatch capacity`` and docs/capacity.md agree: one row of the doc's sizing table is what
the command prints, and every coefficient in the doc's unit-cost table is the model's value."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from groundwatch.capacity import COEFFICIENTS, size
from groundwatch.cli import main
from groundwatch.settings import Settings

DOC = Path(__file__).resolve().parents[1] / "docs" / "capacity.md"


@pytest.fixture(autouse=True)
def _default_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("GROUNDWATCH_"):
            monkeypatch.delenv(name)


def _doc_row(traces: str, sample: str, judge: str) -> str:
    for line in DOC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[:3] == [traces, sample, judge]:
            return line.strip()
    raise AssertionError(f"no row {traces} / {sample} / {judge} in {DOC}")


def test_doc_row_matches_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "capacity",
            "--traces-per-second",
            "1000",
            "--sample-rate",
            "0.1",
            "--judge",
            "embedded",
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out.splitlines()
    row = next(ln for ln in printed if ln.startswith("| 1,000 |"))
    assert row == _doc_row("1,000", "10%", "embedded")


def test_json_output_is_the_model(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["capacity", "--traces-per-second", "100", "--sample-rate", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    model = size(100, 1.0, Settings().judge.backend)  # the CLI sizes for the configured judge
    assert out["replicas"] == model.replicas
    assert out["partitions"] >= out["replicas"]


def test_doc_unit_costs_are_the_coefficients() -> None:
    text = DOC.read_text()
    for name, coefficient in COEFFICIENTS.items():
        match = re.search(rf"^\| `{re.escape(name)}` \| ([^|]+) \|", text, re.MULTILINE)
        assert match, f"{name} missing from the unit-cost table of {DOC.name}"
        assert float(match.group(1).replace(",", "")) == pytest.approx(coefficient.value), name


def test_model_is_monotonic_and_partitions_cover_replicas() -> None:
    small, large = size(100, 0.1, "verifier"), size(10_000, 0.1, "verifier")
    assert large.replicas > small.replicas
    assert large.partitions >= large.replicas
    assert size(10, 1.0).extrapolated == []
    with pytest.raises(ValueError, match="judge"):
        size(10, 0.1, "nli")
