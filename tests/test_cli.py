"""Batch CLI, schemas and documentation stay true (issue 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from groundwatch.cli import main
from groundwatch.cli.config_doc import settings_rows
from groundwatch.contract.schemas import render_schemas
from groundwatch.contract.trace import TraceLimits
from groundwatch.evaluation.batch import run_batch
from groundwatch.evaluation.evaluator import Evaluator
from tests.fakes import FakeJudge, make_trace

ROOT = Path(__file__).resolve().parents[1]
HALUEVAL = next(
    (
        p / "halueval_qa_dev.jsonl"
        for p in (ROOT.parent / "shared" / "data", Path("/work/shared/data"))
        if (p / "halueval_qa_dev.jsonl").exists()
    ),
    ROOT.parent / "shared" / "data" / "halueval_qa_dev.jsonl",
)


def _evaluator() -> Evaluator:
    judge = FakeJudge()
    judge.load()
    return Evaluator(judge)


def test_committed_schemas_are_fresh() -> None:
    for name, text in render_schemas().items():
        committed = ROOT / "schemas" / name
        assert committed.exists(), f"{committed} missing: run `groundwatch schema`"
        assert committed.read_text(encoding="utf-8") == text, (
            f"{name} is stale: run `groundwatch schema`"
        )


def test_schema_check_detects_staleness(tmp_path: Path) -> None:
    assert main(["schema", "--out", str(tmp_path)]) == 0
    assert main(["schema", "--out", str(tmp_path), "--check"]) == 0
    (tmp_path / "rag-trace.v1.schema.json").write_text("{}")
    assert main(["schema", "--out", str(tmp_path), "--check"]) == 1


def test_the_configuration_doc_lists_every_variable_with_its_default() -> None:
    table = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    for var, default, _ in settings_rows():
        assert f"| `{var}` | `{default}` |" in table, (
            f"docs/configuration.md misses {var} (run scripts/update_readme.py)"
        )


def test_evaluate_keeps_order_and_reports_invalid_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "in.jsonl"
    lines = [
        json.dumps(make_trace("a")),
        "{broken",
        json.dumps({"trace_id": "x"}),
        "",
        json.dumps(make_trace("b", answer=None)),
        json.dumps(make_trace("c")),
    ]
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    code = run_batch(TraceLimits(), str(src), str(out), evaluator=_evaluator(), progress=False)
    assert code == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["trace_id"] for r in records] == ["a", "b", "c"]
    errors = [
        json.loads(line) for line in (tmp_path / "out.jsonl.errors.jsonl").read_text().splitlines()
    ]
    assert [(e["line"], e["reason"]) for e in errors] == [(2, "not_json"), (3, "schema")]
    err = capsys.readouterr().err
    assert "line 2: not_json" in err
    assert "contradicted claims" in err
    assert "mean faithfulness" in err


def test_unreadable_input_is_exit_2(tmp_path: Path) -> None:
    code = run_batch(TraceLimits(), str(tmp_path / "missing.jsonl"), "-", evaluator=_evaluator())
    assert code == 2
    assert main(["evaluate", str(tmp_path / "missing.jsonl")]) == 2


def test_unwritable_output_is_exit_2(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(make_trace("a")) + "\n")
    code = run_batch(
        TraceLimits(), str(src), str(tmp_path / "no" / "dir" / "o.jsonl"), evaluator=_evaluator()
    )
    assert code == 2


def test_config_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config"]) == 0
    assert "GROUNDWATCH_KAFKA__BOOTSTRAP_SERVERS" in capsys.readouterr().out


def test_invalid_configuration_is_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROUNDWATCH_SAMPLING__RATE", "2.5")
    assert main(["config"]) == 2


@pytest.mark.slow
@pytest.mark.skipif(not HALUEVAL.exists(), reason="shared labeled data not present")
def test_evaluate_halueval_with_the_embedded_judge_writes_300_valid_records(tmp_path: Path) -> None:
    """The real command, real judge, stdin -> stdout: 300 records that validate."""
    schema = json.loads((ROOT / "schemas" / "evaluation-record.v1.schema.json").read_text())
    with HALUEVAL.open("rb") as fh:
        proc = subprocess.run(
            [sys.executable, "-m", "groundwatch.cli", "evaluate", "-", "-o", "-", "--no-progress"],
            stdin=fh,
            capture_output=True,
            timeout=600,
            check=False,
            cwd=tmp_path,
        )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    records = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert len(records) == 300
    for record in records:
        jsonschema.validate(record, schema)
    assert sum(r["status"] == "scored" for r in records) == 300
    assert b"mean faithfulness" in proc.stderr
