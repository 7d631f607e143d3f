"""The import layers of docs/architecture.md, checked by import-linter (``[tool.importlinter]``
in pyproject.toml, run by ``scripts/run check``).

The tree as committed keeps every contract; a copy of it with one forbidden import breaks the
matching contract, so the check is known to fail when it should.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("importlinter")


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` over the packages under ``root`` (service/, consumers/ and training/)."""
    env = dict(os.environ)
    # Put the tree under test first on the path: it shadows the installed (editable) packages.
    paths = [str(root), str(root / "service"), str(root / "consumers")]
    env["PYTHONPATH"] = os.pathsep.join([*paths, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    return subprocess.run(
        [sys.executable, "-c", code, "--no-cache", "--config", str(ROOT / "pyproject.toml")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=root,
        env=env,
    )


def _copy_tree(dst: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "static", "data")
    shutil.copytree(
        ROOT / "service" / "groundwatch", dst / "service" / "groundwatch", ignore=ignore
    )
    shutil.copytree(
        ROOT / "consumers" / "groundwatch_consumers",
        dst / "consumers" / "groundwatch_consumers",
        ignore=ignore,
    )
    shutil.copytree(ROOT / "training", dst / "training", ignore=ignore)
    return dst


def _add_import(module: Path, line: str) -> None:
    text = module.read_text(encoding="utf-8")
    head, sep, rest = text.partition("from __future__ import annotations\n")
    assert sep, f"{module} has no __future__ import to anchor on"
    module.write_text(head + sep + "\n" + line + "\n" + rest, encoding="utf-8")


def test_the_committed_tree_keeps_every_import_contract() -> None:
    proc = _lint_imports(ROOT)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


@pytest.mark.parametrize(
    ("module", "bad_import", "contract"),
    [
        # a lower layer reaching up: the judge protocol importing the evaluator
        (
            "service/groundwatch/judges/base.py",
            "import groundwatch.evaluation.evaluator",
            "groundwatch layers",
        ),
        # judges never read state
        (
            "service/groundwatch/judges/refusal.py",
            "import groundwatch.state.stores",
            "judges never import state or the API",
        ),
        # the Kafka consumers never import the API
        (
            "consumers/groundwatch_consumers/lag.py",
            "import groundwatch.api.security",
            "groundwatch_consumers never imports the API or the CLI",
        ),
        # the whole Settings stays at the composition root: the API (above it in the layers)
        # takes its sections, and so does the stream layer (issue 48)
        (
            "service/groundwatch/api/page.py",
            "import groundwatch.settings",
            "only the composition root (cli, runtime) imports the root Settings",
        ),
        (
            "consumers/groundwatch_consumers/lag.py",
            "import groundwatch.settings",
            "only the composition root (cli, runtime) imports the root Settings",
        ),
    ],
)
def test_a_forbidden_import_fails_the_check(
    tmp_path: Path, module: str, bad_import: str, contract: str
) -> None:
    tree = _copy_tree(tmp_path)
    _add_import(tree / module, bad_import)
    proc = _lint_imports(tree)
    assert proc.returncode != 0, proc.stdout[-4000:]
    assert contract in proc.stdout
    broken = [ln for ln in proc.stdout.splitlines() if ln.rstrip().endswith("BROKEN")]
    assert broken, proc.stdout[-4000:]
    assert bad_import.removeprefix("import ") in proc.stdout, proc.stdout[-4000:]


@pytest.mark.parametrize(
    ("module", "bad_import", "contracts"),
    [
        # a circle as in issue 48: the shared model code reaching back into a stage
        (
            "training/model.py",
            "import training.stage1",
            ["no import circle", "training layers"],
        ),
        # one runnable step importing another (they share training.model / training.recipes)
        ("training/stage1_eval.py", "import training.stage1", ["training layers"]),
        # a circle inside the service, between two sibling modules of one package
        (
            "service/groundwatch/judges/text/words.py",
            "import groundwatch.judges.claims.extract",
            ["no import circle"],
        ),
    ],
)
def test_an_import_circle_or_a_step_import_fails_the_check(
    tmp_path: Path, module: str, bad_import: str, contracts: list[str]
) -> None:
    tree = _copy_tree(tmp_path)
    _add_import(tree / module, bad_import)
    proc = _lint_imports(tree)
    assert proc.returncode != 0, proc.stdout[-4000:]
    broken = [ln for ln in proc.stdout.splitlines() if ln.rstrip().endswith("BROKEN")]
    for contract in contracts:
        assert any(contract in ln for ln in broken), proc.stdout[-4000:]
