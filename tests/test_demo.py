"""``groundwatch demo``: the before/after table, the shipped rules evaluated honestly about
``for:``, and ``--with-prometheus`` with a real Prometheus that is always stopped."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from groundwatch.cli.demo_alerts import (
    RuleVerdict,
    default_rules_path,
    evaluate_rules,
    parse_duration,
)
from groundwatch.cli.demo_prometheus import MISSING, local_prometheus, scaled_rules
from tests.infra import free_port

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "dashboards" / "alerts.yml"


def _promtool() -> str:
    binary = shutil.which("promtool")
    if binary is None:
        pytest.skip("promtool not installed (apt-get install prometheus)")
    return binary


def _prometheus() -> str:
    binary = shutil.which("prometheus")
    if binary is None:
        pytest.skip("prometheus not installed (apt-get install prometheus)")
    return binary


def _listening(url: str) -> bool:
    host, port = url.rsplit("//", 1)[1].split(":")
    try:
        with socket.create_connection((host, int(port)), 0.5):
            return True
    except OSError:
        return False


def _metrics(contradicted_per_trace: float, claims: float, faithfulness: float) -> str:
    window = 'window="1h",slice_key="all",slice_value="all"'
    return "\n".join(
        [
            "# TYPE groundwatch_window_rate gauge",
            f'groundwatch_window_rate{{{window},rate="contradicted_per_trace"}} '
            f"{contradicted_per_trace}",
            "# TYPE groundwatch_window_claims gauge",
            f'groundwatch_window_claims{{{window},verdict="contradicted"}} {claims}',
            "# TYPE groundwatch_window_mean gauge",
            f'groundwatch_window_mean{{{window},metric="faithfulness"}} {faithfulness}',
            "# TYPE groundwatch_traces_received_total counter",
            'groundwatch_traces_received_total{source="demo"} 240',
            "# TYPE groundwatch_process_start_time_seconds gauge",
            "groundwatch_process_start_time_seconds 1796322938.1",
            "# TYPE groundwatch_window_store_up gauge",
            "groundwatch_window_store_up 1",
            "",
        ]
    )


def _by_name(verdicts: list[RuleVerdict]) -> dict[str, RuleVerdict]:
    return {v.alert: v for v in verdicts}


def test_parse_duration() -> None:
    assert parse_duration("10m") == 600
    assert parse_duration("1h30m") == 5400
    assert parse_duration("90s") == 90
    with pytest.raises(ValueError, match="duration"):
        parse_duration("10 minutes")


def test_default_rules_are_the_shipped_ones() -> None:
    assert default_rules_path() == RULES


@pytest.mark.prometheus
def test_bad_values_fire_after_the_rule_for_duration_and_healthy_ones_stay_quiet() -> None:
    promtool = _promtool()
    bad = _by_name(evaluate_rules(_metrics(0.32, 34, 0.35), RULES, 40.0, promtool))
    assert bad["GroundwatchContradictedClaims"].fires_after_min == 10  # for: 10m
    assert bad["GroundwatchFaithfulnessLow"].fires_after_min == 15  # for: 15m
    assert bad["GroundwatchFaithfulnessLow"].labels == ["all faithfulness"]
    assert bad["GroundwatchNoTraces"].fires_after_min is None  # traces keep arriving
    assert bad["GroundwatchWindowStoreDown"].fires_after_min is None
    healthy = _by_name(evaluate_rules(_metrics(0.09, 9, 0.81), RULES, 40.0, promtool))
    assert all(v.fires_after_min is None for v in healthy.values()), healthy
    # under the 10-claim minimum the rate alone does not page
    few = _by_name(evaluate_rules(_metrics(0.32, 9, 0.81), RULES, 40.0, promtool))
    assert few["GroundwatchContradictedClaims"].fires_after_min is None


@pytest.mark.prometheus
def test_the_reported_time_follows_the_rules_file(tmp_path: Path) -> None:
    rules = yaml.safe_load(RULES.read_text())
    for rule in rules["groups"][0]["rules"]:
        if rule.get("alert") == "GroundwatchContradictedClaims":
            rule["for"] = "3m"
    changed = tmp_path / "alerts.yml"
    changed.write_text(yaml.safe_dump(rules))
    verdicts = _by_name(evaluate_rules(_metrics(0.32, 34, 0.35), changed, 40.0, _promtool()))
    assert verdicts["GroundwatchContradictedClaims"].fires_after_min == 3
    assert verdicts["GroundwatchContradictedClaims"].for_s == 180


def test_demo_rules_scale_every_range_and_for_of_the_windowed_alerts() -> None:
    """Issue 33: `min_over_time(...[5m])` left at 5m kept the page from firing live in the demo
    while promtool said FIRES. Every range of a windowed alert is compressed with its for:."""
    shipped = {
        r["alert"]: r
        for r in yaml.safe_load(RULES.read_text())["groups"][0]["rules"]
        if "alert" in r
    }
    demo = scaled_rules(RULES, 180.0)
    rules = {r["alert"]: r for r in demo.rules["groups"][0]["rules"] if "alert" in r}
    assert demo.scaled["GroundwatchContradictedClaims"] == "for: 10m -> 4s, [5m] -> [3s]"
    assert demo.scaled["GroundwatchContradictionsSustained"] == "for: 30m -> 10s, [5m] -> [3s]"
    page = rules["GroundwatchContradictedClaims"]
    assert page["for"] == "4s"
    assert re.findall(r"\[[^\]]+\]", page["expr"]) == ["[3s]", "[3s]"]
    assert page["expr"] == shipped["GroundwatchContradictedClaims"]["expr"].replace("[5m]", "[3s]")
    for name in demo.scaled:
        assert not re.search(r"\[\d+[mhd]\]", rules[name]["expr"]), name
    # process counters run on the real clock: shipped ranges and for:
    assert set(demo.kept) >= {"GroundwatchNoTraces", "GroundwatchEvaluatorErrors"}
    assert "GroundwatchWindowStoreDown" in demo.kept
    for name in demo.kept:
        assert rules[name] == shipped[name], name
    assert demo.longest_for_s == 10
    assert demo.rules["groups"][0]["interval"] == "1s"


@pytest.mark.prometheus
def test_local_prometheus_stops_on_an_interrupt() -> None:
    scaled = scaled_rules(RULES, 450.0).rules
    binary = _prometheus()
    seen: list[str] = []

    def interrupted() -> None:
        with local_prometheus(binary, f"127.0.0.1:{free_port()}", scaled) as url:
            seen.append(url)
            assert _listening(url)
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        interrupted()
    assert seen
    assert not _listening(seen[0])


def test_missing_prometheus_is_a_clear_message_before_anything_starts() -> None:
    env = {**os.environ, "GROUNDWATCH_DEMO_PROMETHEUS": "/nonexistent/prometheus"}
    proc = subprocess.run(
        [sys.executable, "-m", "groundwatch.cli", "demo", "--with-prometheus", "--port", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert MISSING in proc.stderr
    assert "loading the embedded judge" not in proc.stderr


@pytest.mark.prometheus
@pytest.mark.slow
def test_demo_with_prometheus_end_to_end() -> None:
    """A shortened replay (8 s): the table shows the bad deploy, promtool says the paging rule
    fires after its for:, the real Prometheus sees alerts pending and firing, and is stopped."""
    _promtool()
    _prometheus()
    start = time.monotonic()
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "groundwatch.cli", "demo", "--duration", "8"),
            *("--port", str(free_port()), "--with-prometheus", "--linger", "0"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    row = re.search(r"faithfulness \(mean\)\s+([\d.]+)\s+([\d.]+)", out)
    assert row, out
    assert float(row.group(1)) > 0.7 > float(row.group(2))
    rate = re.search(r"contradicted claims / answer\s+([\d.]+)\s+([\d.]+)", out)
    assert rate, out
    assert float(rate.group(2)) > 2 * float(rate.group(1))
    assert re.search(r"drift retrieval_top_score\s+DRIFT: PSI [\d.]+, Wasserstein [\d.]+", out)
    assert re.search(
        r"FIRES\s+GroundwatchContradictedClaims \(page, for: 10m\): would fire after 10 min", out
    )
    assert re.search(r"quiet\s+GroundwatchEvaluatorErrors", out)
    live = out.split("Prometheus alerts seen", 1)[1]
    # issue 33: the page promtool says FIRES fires live too; nothing pages for "no traces"
    assert re.search(
        r"GroundwatchContradictedClaims\s+(pending \+\d+s, )?firing \+\d+s\s+1 series: all ", live
    ), live
    assert "GroundwatchNoTraces" not in live, live  # not even pending before the first scrape
    assert re.search(
        r"kept as shipped \(process counters, real clock\):.*GroundwatchNoTraces", proc.stderr
    )
    assert re.search(r"GroundwatchRetrievalDrift\s+pending \+\d+s", live), live
    # under load which drift alert gets past its scaled for: first varies; one on "all" must
    assert re.search(r"Drift\s+pending \+\d+s, firing \+\d+s\s+\d+ series: all ", live), live
    url = re.search(r"prometheus (http://127\.0\.0\.1:\d+) scrapes", proc.stderr)
    assert url, proc.stderr
    assert not _listening(url.group(1))
    assert time.monotonic() - start < 280


def test_named_rules_file_that_is_missing_is_refused_before_anything_starts() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "groundwatch.cli", "demo", "--rules", "/nonexistent/alerts.yml"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert "alert rules not found (/nonexistent/alerts.yml)" in proc.stderr
    assert "loading the embedded judge" not in proc.stderr


@pytest.mark.prometheus
@pytest.mark.slow
def test_ctrl_c_during_the_replay_stops_prometheus() -> None:
    import signal

    _prometheus()
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "groundwatch.cli", "demo", "--duration", "60"),
            *("--port", str(free_port()), "--with-prometheus"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        url = None
        assert proc.stderr is not None
        for line in proc.stderr:
            hit = re.search(r"prometheus (http://127\.0\.0\.1:\d+) scrapes", line)
            if hit:
                url = hit.group(1)
                break
        assert url, "the demo never started prometheus"
        # Keep draining stderr: a full pipe would block the demo's shutdown logging forever.
        import threading

        threading.Thread(target=proc.stderr.read, daemon=True).start()
        assert _listening(url)
        proc.send_signal(signal.SIGINT)
        # (90 s timed out in 2 of 3 fresh-clone CI runs of Session 55, never alone: 12 s; the
        # cause is not found, see the Session 55 note on issue 44)
        assert proc.wait(180) == 0
        assert not _listening(url)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
