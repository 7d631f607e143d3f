"""Settings are validated at start-up (issue 36, item 7): a bad value is one clear line on
stderr and exit code 2, never a traceback, never the secret itself."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
from pydantic import ValidationError

from groundwatch.settings import Settings

LONG = "tok-validation-8d2e4f6a1b3c5d7e"


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.upper().startswith("GROUNDWATCH_")}
    clean.update(env)
    return subprocess.run(
        [sys.executable, "-m", "groundwatch.cli", *(args or ("config",))],
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _assert_refused(result: subprocess.CompletedProcess[str], variable: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stdout[-500:], result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if variable in line]
    assert len(lines) == 1, result.stderr
    assert len(lines[0]) < 300, lines[0]


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({"GROUNDWATCH_API__TOKENS": "[null]"}, "GROUNDWATCH_API__TOKENS"),
        ({"GROUNDWATCH_API__TOKENS": "[1]"}, "GROUNDWATCH_API__TOKENS"),
        ({"GROUNDWATCH_API__TOKENS": f'["{LONG}", null]'}, "GROUNDWATCH_API__TOKENS"),
        ({"GROUNDWATCH_API__TOKENS": '[""]'}, "GROUNDWATCH_API__TOKENS"),
        (
            {"GROUNDWATCH_API__HOST": "0.0.0.0", "GROUNDWATCH_API__TOKENS": "short-token"},
            "GROUNDWATCH_API__TOKENS",
        ),
        ({"GROUNDWATCH_API__MAX_BODY_BYTES": "-1"}, "GROUNDWATCH_API__MAX_BODY_BYTES"),
        ({"GROUNDWATCH_API__MAX_BATCH": "0"}, "GROUNDWATCH_API__MAX_BATCH"),
        ({"GROUNDWATCH_API__QUEUE_SIZE": "-5"}, "GROUNDWATCH_API__QUEUE_SIZE"),
        (
            {"GROUNDWATCH_LIMITS__MAX_QUESTION_CHARS": "-1"},
            "GROUNDWATCH_LIMITS__MAX_QUESTION_CHARS",
        ),
        ({"GROUNDWATCH_JUDGE__TIMEOUT_S": "-1"}, "GROUNDWATCH_JUDGE__TIMEOUT_S"),
        ({"GROUNDWATCH_REDIS__URL": "redis://host:notaport/0"}, "GROUNDWATCH_REDIS__URL"),
        ({"GROUNDWATCH_REDIS__URL": "localhost:6379"}, "GROUNDWATCH_REDIS__URL"),
    ],
)
def test_bad_settings_exit_2_with_one_line(env: dict[str, str], variable: str) -> None:
    result = _cli(env)
    _assert_refused(result, variable)
    for value in env.values():
        if "redis" in value or "token" in value:
            assert value not in result.stderr  # secrets are never echoed


def test_short_token_refused_for_a_non_loopback_host_given_on_the_command_line() -> None:
    result = _cli({"GROUNDWATCH_API__TOKENS": "short-token"}, "serve", "--host", "0.0.0.0")
    assert result.returncode == 2, (result.stdout[-500:], result.stderr)
    assert "Traceback" not in result.stderr
    assert "16" in result.stderr
    assert "short-token" not in result.stderr


@pytest.mark.parametrize(
    "api",
    [
        {"tokens": [None]},
        {"tokens": [1]},
        {"tokens": ["[null]"], "host": "10.0.0.5"},
        {"max_body_bytes": 0},
        {"max_inflight_bytes": 1000, "max_body_bytes": 2000},
    ],
)
def test_settings_model_rejects(api: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        Settings.model_validate({"api": api})


@pytest.mark.parametrize(
    "settings",
    [
        {"api": {"tokens": ["short"]}},  # loopback: short tokens only warn
        {"api": {"host": "0.0.0.0", "tokens": [LONG]}},
        {"api": {"host": "0.0.0.0", "allow_open_network": True}},
        {"redis": {"url": "redis://:pw@redis.internal:6379/0"}},
        {"redis": {"url": "rediss://redis.internal"}},
        {"redis": {"url": "unix:///var/run/redis.sock"}},
        {"redis": {"url": "redis+cluster://a:7000"}},
    ],
)
def test_settings_model_accepts(settings: dict[str, Any]) -> None:
    Settings.model_validate(settings)


def test_comma_separated_tokens_still_work() -> None:
    settings = Settings.model_validate({"api": {"tokens": f"{LONG}, {LONG}x"}})
    assert [t.get_secret_value() for t in settings.api.tokens] == [LONG, LONG + "x"]
