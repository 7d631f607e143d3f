"""Mutation-testing pass over the modules that make promises (not run in CI: it takes minutes
per module). Each module is mutated with cosmic-ray in a throw-away copy of the tree, so the
working tree is never touched, and only the tests that claim its behaviour are run per mutant.

Usage::

    nice -n 10 .venv/bin/python scripts/mutation.py drift offsets      # some modules
    nice -n 10 .venv/bin/python scripts/mutation.py --list             # what can be run
    nice -n 10 .venv/bin/python scripts/mutation.py --all --keep /tmp/m  # keep sessions

It prints, per module, mutants killed / total and the score, and writes the surviving mutants
(operator, line, diff) to ``<work>/<module>.survivors.txt``. docs/mutation.md records the last
scores and why each surviving mutant that has no test does not matter.
"""

from __future__ import annotations

# ruff: noqa: S603  (runs the venv's own cosmic-ray on paths this script builds)
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Target:
    path: str  # module mutated, relative to the repository root
    tests: tuple[str, ...]  # pytest arguments that claim its behaviour
    timeout_s: float = 120.0


TARGETS: dict[str, Target] = {
    "drift": Target("service/groundwatch/state/drift.py", ("tests/test_drift.py",)),
    "offsets": Target(
        "consumers/groundwatch_consumers/offsets.py",
        ("tests/test_consumer_unit.py", "-k", "'offsets or consumer_'"),
    ),
    "redaction": Target(
        "service/groundwatch/evaluation/redaction.py",
        ("tests/test_redaction.py",),
    ),
    "windows": Target(
        "service/groundwatch/state/windows.py",
        ("tests/test_windows.py", "tests/test_drift.py"),
        timeout_s=240.0,
    ),
    "buckets": Target(
        "service/groundwatch/state/buckets.py",
        ("tests/test_windows.py", "tests/test_drift.py"),
        timeout_s=240.0,
    ),
    "findings": Target("service/groundwatch/state/findings.py", ("tests/test_findings.py",)),
    "stores": Target(
        "service/groundwatch/state/redis_store.py",
        ("tests/test_windows.py", "tests/test_findings.py"),
        timeout_s=240.0,
    ),
    "slots": Target(
        "service/groundwatch/judges/slots.py",
        ("tests/test_slots.py", "tests/test_claims.py"),
    ),
}

_IGNORE = shutil.ignore_patterns(
    ".venv", ".git", "build", "training", "__pycache__", "*.egg-info", ".mypy_cache", ".ruff_cache"
)


def _config(target: Target, python: str) -> str:
    tests = " ".join(target.tests)
    command = f"{python} -m pytest -x -q -p no:cacheprovider {tests}"
    return (
        "[cosmic-ray]\n"
        f'module-path = "{target.path}"\n'
        f"timeout = {target.timeout_s}\n"
        "excluded-modules = []\n"
        f'test-command = "{command}"\n'
        "[cosmic-ray.distributor]\n"
        'name = "local"\n'
        "[cosmic-ray.filters.operators-filter]\n"
        'exclude-operators = ["core/ReplaceBinaryOperator_BitOr_.*"]\n'
    )


def run(name: str, work: Path, python: str) -> tuple[int, int]:
    target = TARGETS[name]
    tree = work / f"tree-{name}"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(ROOT, tree, ignore=_IGNORE)
    cfg = work / f"{name}.toml"
    cfg.write_text(_config(target, python))
    session = work / f"{name}.sqlite"
    session.unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=f"{tree}/service:{tree}/consumers:{tree}", CI="")
    cosmic = str(Path(python).with_name("cosmic-ray"))
    subprocess.run([cosmic, "init", str(cfg), str(session)], cwd=tree, env=env, check=True)
    # `X | None` in annotations is never evaluated (from __future__ import annotations), so
    # mutating `|` there makes equivalent mutants only: drop them before running.
    filt = str(Path(python).with_name("cr-filter-operators"))
    subprocess.run([filt, str(session), str(cfg)], cwd=tree, env=env, check=True)
    # The unmutated tests must pass first, or every mutant would count as killed.
    base = subprocess.run(
        [cosmic, "baseline", str(cfg)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if base.returncode != 0:
        raise SystemExit(f"{name}: baseline failed\n{base.stdout[-2000:]}\n{base.stderr[-2000:]}")
    started = time.monotonic()
    subprocess.run([cosmic, "exec", str(cfg), str(session)], cwd=tree, env=env, check=True)
    dump = subprocess.run(
        [cosmic, "dump", str(session)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    total = killed = 0
    survivors: list[str] = []
    for line in dump.stdout.splitlines():
        job, result = json.loads(line)
        if result is None or result.get("worker_outcome") == "skipped":
            continue  # not run yet, or filtered out (annotation mutants)
        total += 1
        if result["test_outcome"] == "survived":
            mutation = job["mutations"][0]
            survivors.append(
                f"{mutation['operator_name']} line {mutation['start_pos'][0]} "
                f"occurrence {mutation['occurrence']}\n{result.get('diff') or ''}"
            )
        else:
            killed += 1
    (work / f"{name}.survivors.txt").write_text("\n".join(survivors))
    score = killed / total if total else 0.0
    print(
        f"{name}: {target.path}: killed {killed}/{total} = {score:.1%}"
        f" ({time.monotonic() - started:.0f} s)",
        flush=True,
    )
    shutil.rmtree(tree, ignore_errors=True)
    return killed, total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", metavar="MODULE", help=", ".join(TARGETS))
    parser.add_argument("--all", action="store_true")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--keep", type=Path, help="work folder to keep (default: a temp dir)")
    args = parser.parse_args(argv)
    if args.list:
        for name, target in TARGETS.items():
            print(f"{name:10} {target.path}  <- {' '.join(target.tests)}")
        return 0
    names = list(TARGETS) if args.all else args.modules
    if not names:
        parser.error("name at least one module, or --all")
    unknown = sorted(set(names) - set(TARGETS))
    if unknown:
        parser.error(f"unknown module(s) {unknown}; see --list")
    work = args.keep or Path(tempfile.mkdtemp(prefix="gw-mutation-"))
    work.mkdir(parents=True, exist_ok=True)
    for name in names:
        run(name, work, sys.executable)
    print(f"sessions and survivors in {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
