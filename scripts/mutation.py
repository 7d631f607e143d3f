"""Mutation-testing pass over the modules that make promises (not run in CI: it takes minutes
per module). Each module is mutated with cosmic-ray in a throw-away copy of the tree, so the
working tree is never touched, and only the tests that claim its behaviour are run per mutant.

Usage::

    nice -n 10 .venv/bin/python scripts/mutation.py drift offsets      # some modules, every mutant
    nice -n 10 .venv/bin/python scripts/mutation.py --list             # what can be run
    nice -n 10 .venv/bin/python scripts/mutation.py --all --sample 40 --seed 16 --keep /tmp/m

``--sample N --seed S`` runs a seeded random sample of N mutants per module, stratified by
operator family (proportional allocation), and reports the score over the sample with its Wilson
95 % interval. ``--resume`` continues a session left in ``--keep`` (a fresh tree copy is made).

It prints, per module, mutants killed / run and the score, and writes the surviving mutants
(operator, line, diff) to ``<work>/<module>.survivors.txt`` and the figures to
``<work>/<module>.json``. docs/mutation.md records the last scores and why each surviving mutant
that has no test does not matter.

Each mutant costs one pytest start. To keep that cheap: entry-point plugins (hypothesis,
schemathesis, langsmith: ~5 s of imports) are not loaded (``PYTEST_DISABLE_PLUGIN_AUTOLOAD``; the
target tests use none of them), the copy is byte-compiled once by a warm-up run (cosmic-ray runs
tests with ``PYTHONDONTWRITEBYTECODE``, which reads but never writes caches), and the per-mutant
timeout is a multiple of the warm-up time (a timed-out mutant counts as killed, and is reported).
"""

from __future__ import annotations

# ruff: noqa: S603  (runs the venv's own cosmic-ray on paths this script builds)
import argparse
import json
import math
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Target:
    path: str  # module mutated, relative to the repository root
    tests: tuple[str, ...]  # pytest arguments that claim its behaviour


TARGETS: dict[str, Target] = {
    "drift": Target(
        "service/groundwatch/state/drift.py",
        ("tests/test_drift.py", "tests/test_drift_decision.py"),
    ),
    "offsets": Target(
        "consumers/groundwatch_consumers/offsets.py",
        ("tests/test_consumer_unit.py", "-k", "'offsets or consumer_'"),
    ),
    "redaction": Target(
        "service/groundwatch/evaluation/redaction.py",
        (
            "tests/test_redaction.py",
            "tests/test_security_pass2.py",
            "-k",
            "'test_redaction or redact or ids_with_pii or reason_keeps or second_pass'",
        ),
    ),
    "windows": Target(
        "service/groundwatch/state/windows.py",
        ("tests/test_windows.py", "tests/test_drift.py"),
    ),
    "buckets": Target(
        "service/groundwatch/state/buckets.py",
        ("tests/test_windows.py", "tests/test_drift.py"),
    ),
    "findings": Target("service/groundwatch/state/findings.py", ("tests/test_findings.py",)),
    "stores": Target(
        "service/groundwatch/state/redis_store.py",
        ("tests/test_windows.py", "tests/test_findings.py"),
    ),
    # judges/values/slots.py was split (issue 32): the slot comparison and the value parsing.
    "slots": Target(
        "service/groundwatch/judges/values/agreement.py",
        ("tests/test_slots.py", "tests/test_claims.py"),
    ),
    "quantities": Target(
        "service/groundwatch/judges/values/quantities.py",
        ("tests/test_slots.py", "tests/test_claims.py"),
    ),
}

_IGNORE = shutil.ignore_patterns(
    ".venv", ".git", "build", "training", "__pycache__", "*.egg-info", ".mypy_cache", ".ruff_cache"
)
# `X | None` in annotations is never evaluated (from __future__ import annotations), so
# mutating `|` there makes equivalent mutants only: they are dropped before running.
_EXCLUDED = ["core/ReplaceBinaryOperator_BitOr_.*"]
_NOT_SAMPLED = "not sampled"


def _command(target: Target, python: str) -> str:
    return f"{python} -m pytest -x -q -p no:cacheprovider {' '.join(target.tests)}"


def _config(target: Target, python: str, timeout_s: float) -> str:
    return (
        "[cosmic-ray]\n"
        f'module-path = "{target.path}"\n'
        f"timeout = {timeout_s:.0f}\n"
        "excluded-modules = []\n"
        f'test-command = "{_command(target, python)}"\n'
        "[cosmic-ray.distributor]\n"
        'name = "local"\n'
        "[cosmic-ray.filters.operators-filter]\n"
        f"exclude-operators = {json.dumps(_EXCLUDED)}\n"
    )


def family(operator: str) -> str:
    """The stratum of an operator: `core/ReplaceComparisonOperator_Lt_LtE` -> its class."""
    return operator.rsplit("/", maxsplit=1)[-1].split("_", maxsplit=1)[0]


def allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """Split `n` over strata in proportion to their sizes (largest remainder, capped)."""
    total = sum(sizes.values())
    if n >= total:
        return dict(sizes)
    exact = {k: n * v / total for k, v in sizes.items()}
    out = {k: math.floor(x) for k, x in exact.items()}
    for k in sorted(exact, key=lambda k: (-(exact[k] - out[k]), k))[: n - sum(out.values())]:
        out[k] += 1
    return out


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials (95 % by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _key(item: Any) -> tuple[str, int, int, int]:
    # job ids are random uuids: order by what the mutation is, so a seed picks the same mutants
    m = item.mutations[0]
    return (m.operator_name, m.start_pos[0], m.start_pos[1], m.occurrence)


def sample(session: Path, n: int, seed: int) -> dict[str, tuple[int, int]]:
    """Mark all but a stratified random sample of `n` pending mutants as skipped."""
    from cosmic_ray.work_db import WorkDB, use_db  # type: ignore[import-untyped]
    from cosmic_ray.work_item import WorkerOutcome, WorkResult  # type: ignore[import-untyped]

    with use_db(str(session), WorkDB.Mode.open) as db:
        strata: dict[str, list[Any]] = defaultdict(list)
        for item in sorted(db.pending_work_items, key=_key):
            strata[family(item.mutations[0].operator_name)].append(item)
        quota = allocate({k: len(v) for k, v in strata.items()}, n)
        rng = random.Random(seed)
        skipped: list[str] = []
        for name in sorted(strata):
            items = strata[name]
            keep = set(rng.sample(range(len(items)), quota[name]))
            skipped += [it.job_id for i, it in enumerate(items) if i not in keep]
        if skipped:
            db.set_multiple_results(
                skipped, WorkResult(output=_NOT_SAMPLED, worker_outcome=WorkerOutcome.SKIPPED)
            )
        return {k: (quota[k], len(v)) for k, v in sorted(strata.items())}


def _copy_tree(target: Target, tree: Path, env: dict[str, str], python: str) -> float:
    """Fresh copy of the repository; byte-compile it with one warm-up test run (also the
    baseline: the unmutated tests must pass, or every mutant would count as killed)."""
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(ROOT, tree, ignore=_IGNORE)
    where = subprocess.run(
        [
            python,
            "-c",
            "import groundwatch, groundwatch_consumers as c; print(groundwatch.__file__, c.__file__)",
        ],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    if str(ROOT / "service") in where or str(ROOT / "consumers") in where:
        raise SystemExit(f"the copy imports the working tree, not itself: {where}")
    started = time.monotonic()
    base = subprocess.run(
        shlex.split(_command(target, python)),
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if base.returncode != 0:
        raise SystemExit(f"baseline failed\n{base.stdout[-3000:]}\n{base.stderr[-2000:]}")
    took = time.monotonic() - started
    # the mutated module is recompiled from source for every mutant, never read from a cache
    for pyc in (tree / target.path).parent.glob(f"__pycache__/{Path(target.path).stem}.*"):
        pyc.unlink()
    return took


def run(
    name: str, work: Path, python: str, *, n: int | None, seed: int, resume: bool
) -> dict[str, Any]:
    target = TARGETS[name]
    tree = work / f"tree-{name}"
    cfg = work / f"{name}.toml"
    session = work / f"{name}.sqlite"
    env = dict(
        os.environ,
        PYTHONPATH=f"{tree}/service:{tree}/consumers:{tree}",
        CI="",
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cosmic = str(Path(python).with_name("cosmic-ray"))
    baseline_s = _copy_tree(target, tree, env, python)
    timeout_s = max(60.0, 5 * baseline_s)
    cfg.write_text(_config(target, python, timeout_s))
    strata: dict[str, tuple[int, int]] = {}
    if not (resume and session.exists()):
        session.unlink(missing_ok=True)
        subprocess.run([cosmic, "init", str(cfg), str(session)], cwd=tree, env=env, check=True)
        filt = str(Path(python).with_name("cr-filter-operators"))
        subprocess.run([filt, str(session), str(cfg)], cwd=tree, env=env, check=True)
        if n is not None:
            strata = sample(session, n, seed)
    print(f"{name}: baseline {baseline_s:.1f} s, timeout {timeout_s:.0f} s", flush=True)
    started = time.monotonic()
    subprocess.run([cosmic, "exec", str(cfg), str(session)], cwd=tree, env=env, check=True)
    elapsed = time.monotonic() - started
    summary = summarise(name, session, tree)
    summary.update(
        seed=seed, sample=n, strata=strata, baseline_s=round(baseline_s, 1), exec_s=round(elapsed)
    )
    (work / f"{name}.survivors.txt").write_text("\n".join(summary.pop("survivor_text")))
    (work / f"{name}.json").write_text(json.dumps(summary, indent=1))
    lo, hi = summary["interval"]
    print(
        f"{name}: {target.path}: ran {summary['ran']} of {summary['total']}, killed "
        f"{summary['killed']} (timeout {summary['timeout']}), survived {summary['survived']}, "
        f"score {summary['score']:.1%} [95% {lo:.1%}, {hi:.1%}] ({elapsed:.0f} s)",
        flush=True,
    )
    shutil.rmtree(tree, ignore_errors=True)
    return summary


def summarise(name: str, session: Path, tree: Path) -> dict[str, Any]:
    from cosmic_ray.work_db import WorkDB, use_db

    source = (tree / TARGETS[name].path).read_text().splitlines()
    total = ran = killed = timeout = survived = incompetent = 0
    texts: list[str] = []
    survivors: list[dict[str, Any]] = []
    with use_db(str(session), WorkDB.Mode.open) as db:
        items = sorted(db.completed_work_items, key=lambda pair: _key(pair[0]))
        total = db.num_work_items
    for item, result in items:
        if result.worker_outcome == "skipped" and result.output != _NOT_SAMPLED:
            total -= 1  # filtered out (annotation mutants): not part of the population
            continue
        if result.worker_outcome == "skipped":
            continue
        if result.test_outcome == "incompetent" or result.worker_outcome != "normal":
            incompetent += 1
            continue
        ran += 1
        if result.test_outcome == "survived":
            survived += 1
            m = item.mutations[0]
            line = m.start_pos[0]
            survivors.append(
                {"operator": m.operator_name, "line": line, "occurrence": m.occurrence}
            )
            texts.append(
                f"{m.operator_name} line {line} occurrence {m.occurrence}: "
                f"{source[line - 1].strip()}\n{result.diff or ''}"
            )
        else:
            killed += 1
            timeout += result.output == "timeout"
    score = killed / ran if ran else 0.0
    return {
        "module": TARGETS[name].path,
        "total": total,
        "ran": ran,
        "killed": killed,
        "timeout": timeout,
        "survived": survived,
        "incompetent": incompetent,
        "score": score,
        "interval": wilson(killed, ran),
        "survivors": survivors,
        "survivor_text": texts,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("modules", nargs="*", metavar="MODULE", help=", ".join(TARGETS))
    parser.add_argument("--all", action="store_true")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--keep", type=Path, help="work folder to keep (default: a temp dir)")
    parser.add_argument("--sample", type=int, metavar="N", help="run N mutants per module")
    parser.add_argument("--seed", type=int, default=16, help="sample seed (default 16)")
    parser.add_argument("--resume", action="store_true", help="continue sessions in --keep")
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
    if args.resume and not args.keep:
        parser.error("--resume needs --keep")
    work = args.keep or Path(tempfile.mkdtemp(prefix="gw-mutation-"))
    work.mkdir(parents=True, exist_ok=True)
    for name in names:
        run(name, work, sys.executable, n=args.sample, seed=args.seed, resume=args.resume)
    print(f"sessions and survivors in {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
