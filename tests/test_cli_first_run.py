"""What a user meets first, part 2 (issue 13): the command line. Version, help everywhere,
effective configuration with its sources, errors that name the variable, quiet broken pipes,
"serving on" only once the port is bound, and a baseline command that says what it needs."""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from groundwatch.api.app import create_app
from groundwatch.cli import main
from groundwatch.cli.commands import BindError, app_config, bind_socket, run_bound, serve_app
from groundwatch.cli.config_doc import settings_table
from groundwatch.cli.entry import _parser
from groundwatch.contract.trace import TraceLimits
from groundwatch.evaluation.batch import run_batch
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.runtime import Runtime
from groundwatch.settings import Settings
from tests.fakes import FakeJudge, make_trace

ROOT = Path(__file__).resolve().parents[1]
# Subcommands of this issue; `suite` and `findings` belong to the offline-suite work.
OWN_COMMANDS = {"serve", "demo", "evaluate", "config", "schema", "baseline", "produce-sample"}


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "groundwatch.cli", *args]


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("GROUNDWATCH_")}
    env.update(extra)
    return env


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith("groundwatch ")
    assert out.split()[1][0].isdigit(), out


def test_help_has_no_markup_and_names_the_bug_report(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "``" not in out
    assert "reference-free monitoring" in out
    assert "groundwatch --version" in out


def test_every_subcommand_and_option_has_help() -> None:
    parser = _parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    helps = {c.dest: c.help for c in sub._choices_actions}
    assert set(sub.choices) >= OWN_COMMANDS
    for name in OWN_COMMANDS:
        command = sub.choices[name]
        assert helps.get(name), name
        assert command.description, name
        for action in command._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"groundwatch {name} {action.option_strings or action.dest}"


def test_config_shows_effective_values_and_their_source(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for key in list(os.environ):
        if key.upper().startswith("GROUNDWATCH_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("GROUNDWATCH_API__PORT", "9999")
    monkeypatch.setenv("GROUNDWATCH_API__TOKENS", "a-secret-token-value-123")
    monkeypatch.setenv("GROUNDWATCH_SAMPLING", '{"rate": 0.25}')
    monkeypatch.setenv("GROUNDWATCH_API__PROT", "1")
    assert main(["config"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    assert rows["GROUNDWATCH_API__PORT"] == ["9999", "environment"]
    assert rows["GROUNDWATCH_API__HOST"] == ["127.0.0.1", "default"]
    assert rows["GROUNDWATCH_SAMPLING__RATE"] == ["0.25", "environment", "(GROUNDWATCH_SAMPLING)"]
    assert rows["GROUNDWATCH_API__TOKENS"] == ["(1", "secrets)", "environment"]
    assert "a-secret-token-value-123" not in out
    assert "GROUNDWATCH_API__PROT is set but is not a groundwatch setting" in out


def test_config_defaults_prints_the_readme_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "--defaults"]) == 0
    assert capsys.readouterr().out.strip() == settings_table()


def test_a_bad_value_names_the_environment_variable() -> None:
    env = _clean_env(GROUNDWATCH_API__PORT="eighty", GROUNDWATCH_API__TOKENS="x-secret-99")
    done = subprocess.run(
        _cli("config"), check=False, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert "GROUNDWATCH_API__PORT: Input should be a valid integer" in done.stderr
    assert "api.port" not in done.stderr
    assert "Traceback" not in done.stderr


def test_a_closed_pipe_ends_quietly() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader (`| head`) is already gone
    try:
        done = subprocess.run(
            _cli("config", "--defaults"),
            check=False,
            env=_clean_env(),
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert done.stderr == ""
    assert done.returncode == 141


def test_serve_on_a_busy_port_fails_at_once_with_one_line() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            _cli("serve", "--port", str(port)),
            check=False,
            env=_clean_env(GROUNDWATCH_STATE="memory"),
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith(f"groundwatch serve: cannot listen on 127.0.0.1:{port}"), lines
    assert "GROUNDWATCH_API__PORT" in lines[-1]
    assert "serving on" not in done.stderr
    assert "Traceback" not in done.stderr


def test_bind_error_for_an_unknown_host() -> None:
    with pytest.raises(BindError, match="cannot listen on"):
        bind_socket("no-such-host.invalid", 0)


def test_serving_on_is_logged_only_once_requests_are_answered(
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = Settings.model_validate({"state": "memory", "redaction": {"mode": "off"}})
    runtime = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    sock = bind_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    server = serve_app(create_app(runtime, app_config(settings)), "127.0.0.1", port, settings.api)
    # What was true at the moment the line was logged: start-up done, port accepting.
    when_logged: list[tuple[bool, bool]] = []

    class Probe(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "serving on" in record.getMessage():
                with socket.socket() as client:
                    accepting = client.connect_ex(("127.0.0.1", port)) == 0
                when_logged.append((bool(server.started), accepting))

    probe = Probe()
    logging.getLogger("groundwatch.cli.commands").addHandler(probe)
    caplog.set_level(logging.INFO, logger="groundwatch.cli.commands")
    thread = threading.Thread(
        target=run_bound, args=(server, sock, f"groundwatch serving on http://127.0.0.1:{port}")
    )
    thread.start()
    try:
        deadline = time.monotonic() + 60
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.started
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as r:
            assert r.status == 200
    finally:
        server.should_exit = True
        thread.join(30)
        logging.getLogger("groundwatch.cli.commands").removeHandler(probe)
    assert [r.getMessage() for r in caplog.records if "serving on" in r.getMessage()] == [
        f"groundwatch serving on http://127.0.0.1:{port}"
    ]
    assert when_logged == [(True, True)]


def test_baseline_says_it_needs_the_shared_store(capsys: pytest.CaptureFixture[str]) -> None:
    settings = Settings.model_validate({"state": "memory"})
    from groundwatch.cli.commands import baseline

    for action in ("pin", "show", "clear"):
        assert baseline(settings, action) == 2
        err = capsys.readouterr().err
        assert "GROUNDWATCH_REDIS__URL" in err
        assert "shared window store" in err


def test_progress_bar_never_prints_its_last_line_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(make_trace(f"t{i}")) + "\n" for i in range(5)))
    judge = FakeJudge()
    judge.load()
    code = run_batch(
        TraceLimits(), str(src), str(tmp_path / "out.jsonl"), evaluator=Evaluator(judge)
    )
    assert code == 0
    assert capsys.readouterr().err.count("100%") <= 1
