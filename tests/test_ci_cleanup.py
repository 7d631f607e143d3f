"""CI's safety net stops only what its own run started (issue 47, item 14): a redis-server in a
``gw-redis-*`` folder or a ``gw-prom-*`` process of someone else on the same host survives it;
the run's own processes (its session, and those that left it carrying the run's value) are
stopped, by pid."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from tests.infra import free_port

ROOT = Path(__file__).resolve().parent.parent


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie child of this test is dead for the purpose
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _redis_args(workdir: str) -> list[str]:
    return [
        *("redis-server", "--port", str(free_port()), "--bind", "127.0.0.1", "--save", ""),
        *("--appendonly", "no", "--dir", workdir),
    ]


def test_ci_run_kills_nothing_by_name_or_folder() -> None:
    text = (ROOT / ".ci" / "run").read_text("utf-8")
    assert "pkill" not in text
    assert "pgrep -x redis-server" not in text
    assert 'gw_ci_cleanup "$GW_CI_RUN"' in text


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server not installed")
def test_the_cleanup_stops_this_runs_processes_and_spares_a_neighbours() -> None:
    run = f"gw-ci-test-{uuid.uuid4().hex}"
    other_env = {k: v for k, v in os.environ.items() if k != "GW_CI_RUN"}
    mine_dir = tempfile.mkdtemp(prefix="gw-redis-")
    other_dir = tempfile.mkdtemp(prefix="gw-redis-")
    pids_file = Path(mine_dir) / "pids"
    procs: list[subprocess.Popen[bytes]] = []
    mine: list[int] = []
    try:
        # the neighbours: a redis-server in a gw-redis-* folder and a gw-prom-* process
        other_redis = subprocess.Popen(_redis_args(other_dir), env=other_env)
        other_prom = subprocess.Popen(["bash", "-c", "exec -a gw-prom-x sleep 60"], env=other_env)
        procs += [other_redis, other_prom]
        # a CI run in its own session: a redis (title rewritten, environ unreadable), a process
        # that left the session but carries the run's value; then its safety net
        script = (
            f'. "{ROOT}/.ci/cleanup.sh"; export GW_CI_RUN="{run}"; '
            + " ".join(_redis_args(mine_dir))
            + f" >/dev/null & echo $! >> {pids_file}; "
            + f"setsid sleep 60 & echo $! >> {pids_file}; "
            + 'sleep 1; gw_ci_cleanup "$GW_CI_RUN" $$'
        )
        subprocess.run(
            ["setsid", "--wait", "bash", "-c", script], env=other_env, check=True, timeout=60
        )
        mine = [int(p) for p in pids_file.read_text().split()]
        assert len(mine) == 2
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(p) for p in mine):
            time.sleep(0.1)
        assert not any(_alive(p) for p in mine)
        # what the old safety net killed: a redis-server in a gw-redis-* folder, a gw-prom-* name
        assert other_redis.poll() is None
        assert other_prom.poll() is None
    finally:
        for pid in mine:
            if _alive(pid):
                os.kill(pid, 15)
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait(10)
        shutil.rmtree(mine_dir, ignore_errors=True)
        shutil.rmtree(other_dir, ignore_errors=True)


def test_the_ci_venv_is_ignored() -> None:
    """``.ci/run`` builds ``.venv-ci/`` (3 GB): it must not show up as untracked."""
    for path in (".venv-ci/bin/python", ".venv/bin/python"):
        probe = subprocess.run(
            ["git", "check-ignore", "-q", path], cwd=ROOT, check=False, timeout=30
        )
        assert probe.returncode == 0, path
