"""The demo and scripts/run say which judge the demo runs, and the demo's page stays up after
the replay for as long as it says (issue 47, items 11 and 12)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from groundwatch.sections.judging import JudgeSettings
from tests.infra import free_port, wait_port

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JUDGE = str(JudgeSettings.model_fields["backend"].default)


def test_demo_help_and_the_scripts_run_header_name_the_judge_the_demo_runs() -> None:
    assert DEFAULT_JUDGE == "verifier"
    helped = subprocess.run(
        [sys.executable, "-m", "groundwatch.cli", "demo", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    flat = " ".join(helped.split())
    assert f"the default judge ({DEFAULT_JUDGE}:" in flat
    assert "embedded judge" not in flat  # what it said before; the demo runs the verifier
    assert "--linger SECONDS" in flat
    assert "--serve-forever" in flat
    header = (ROOT / "scripts" / "run").read_text("utf-8").split("set -euo", 1)[0]
    demo_line = " ".join(
        header.split("scripts/run demo", 1)[1].split("scripts/run test")[0].replace("#", "").split()
    )
    assert "default verifier judge" in demo_line
    assert "embedded judge" not in header
    assert "~10 min and ~3 GB" in header  # what scripts/run test installs, and its cost


@pytest.mark.slow
def test_the_demo_keeps_its_page_up_after_the_replay_for_the_linger_it_announced() -> None:
    port = free_port()
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "groundwatch.cli", "demo", "--duration", "4"),
            *("--port", str(port), "--linger", "6"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "GROUNDWATCH_DEMO_PROMTOOL": "/nonexistent"},
    )
    try:
        assert proc.stderr is not None
        lines: list[str] = []
        for line in proc.stderr:
            lines.append(line)
            if "still serving" in line:
                break
        else:
            pytest.fail("the demo ended without lingering:\n" + "".join(lines[-20:]))
        said = "".join(lines)
        assert f"loading the {DEFAULT_JUDGE} judge" in said
        assert "the page stays up 6 s after it" in said
        assert "windows frozen at" in lines[-1]
        assert "Ctrl-C stops" in lines[-1]
        wait_port(port, timeout=10)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as resp:
            page = resp.read().decode()
        assert resp.status == 200
        assert "<tr class='finding'" in page  # the replay's findings, after the replay
        started = time.monotonic()
        rest = proc.stderr.read()
        assert proc.wait(30) == 0
        assert "linger over, stopping" in rest
        assert time.monotonic() - started < 20
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
