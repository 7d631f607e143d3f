"""A real Prometheus scrapes the running service and evaluates the shipped alert rules.

The app is the real one (``create_app`` + ``Runtime``, in-memory stores) served by uvicorn on a
free loopback port; only the judge is a deterministic fake so that scores are exact. Windows are
shrunk to seconds through WindowSettings and the rules' ``for:`` durations are shortened; the
rule expressions themselves are the shipped ones. Scenario: a stable reference and a stable
current window (no drift alert), then shifted scores and retrieval scores -> GroundwatchScoreDrift
and GroundwatchRetrievalDrift become pending/firing, as seen through /api/v1/alerts; and ten
stationary tenants beside one shifted tenant, where only the shifted one may alert.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import uvicorn
import yaml

from groundwatch.contract.trace import RagTrace
from tests.builders import build_settings
from tests.helpers_windows import FakeJudge
from tests.infra import _stop, free_port, wait_port

ROOT = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.prometheus, pytest.mark.slow]


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as resp:  # loopback only
        return json.loads(resp.read())


def _trace(i: int, prefix: str, ts: float, answer: str, top: float) -> RagTrace:
    return RagTrace.model_validate(
        {
            "trace_id": f"{prefix}-{i}",
            "timestamp": datetime.fromtimestamp(ts, UTC).isoformat(),
            "question": "When does the contract renew?",
            "contexts": [{"text": "The contract renews on 1 May.", "score": top}],
            "answer": answer,
            "attributes": {"tenant": "acme" if i % 2 else "beta"},
        }
    )


# Windows compressed for a test that runs in seconds: 1 s buckets, a 30 s current window.
E2E_WINDOWS: dict[str, Any] = {
    "slice_keys": ["tenant"],
    "top_n": 20,
    "bucket_s": 1,
    "rollup_s": 10,
    "fine_retention_s": 600,
    "retention_s": 3600,
    "min_samples": 20,
    "current_window_s": 30,
    "reference_window_s": 120,
    "export_windows_s": {"5m": 10, "1h": 30, "24h": 120},
    "report_refresh_s": 0,
}


@pytest.fixture
def service() -> Iterator[tuple[int, Any]]:
    from groundwatch.api.app import create_app
    from groundwatch.cli.commands import app_config
    from groundwatch.runtime import Runtime

    port = free_port()
    settings = build_settings(
        api={"host": "127.0.0.1", "port": port, "rate_limit_per_s": 0}, windows=E2E_WINDOWS
    )
    runtime = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    app = create_app(runtime, app_config(settings))
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, name="gw-e2e-uvicorn", daemon=True)
    thread.start()
    try:
        wait_port(port)
        yield port, runtime
    finally:
        server.should_exit = True
        thread.join(15)


@pytest.fixture
def prometheus(service: tuple[int, Any], tmp_path: Path) -> Iterator[str]:
    binary = shutil.which("prometheus")
    if binary is None:
        pytest.skip("prometheus not installed")
    rules = yaml.safe_load((ROOT / "dashboards" / "alerts.yml").read_text())
    for group in rules["groups"]:
        group["interval"] = "1s"
        for rule in group["rules"]:
            if "for" in rule:
                rule["for"] = "2s"
    (tmp_path / "rules.yml").write_text(yaml.safe_dump(rules))
    app_port, _ = service
    config = {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s", "scrape_timeout": "1s"},
        "rule_files": [str(tmp_path / "rules.yml")],
        "scrape_configs": [
            {"job_name": "groundwatch", "static_configs": [{"targets": [f"127.0.0.1:{app_port}"]}]}
        ],
    }
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
    port = free_port()
    log = (tmp_path / "prometheus.log").open("wb")
    proc = subprocess.Popen(
        [
            binary,
            f"--config.file={tmp_path / 'prometheus.yml'}",
            f"--storage.tsdb.path={tmp_path / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_port(port, timeout=20)
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(proc)
        log.close()


def _feed(runtime: Any, prefix: str, n: int, t0: float, t1: float, answer: str, top: float) -> None:
    traces = [
        _trace(i, prefix, t0 + (t1 - t0) * i / n, answer if i % 4 else "4/4", top) for i in range(n)
    ]
    sampled = runtime.processor.observe(traces, source="e2e")
    runtime.processor.evaluate_and_record(sampled)


def _wait(predicate: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}; last={last!r}")


def _rule_group_counters(prom: str) -> dict[str, float]:
    """Prometheus's own counters for the shipped rule group, from its /metrics: scheduled
    iterations, missed ones and failed rule evaluations."""
    with urllib.request.urlopen(f"{prom}/metrics", timeout=5) as resp:  # loopback only
        text = resp.read().decode()
    out: dict[str, float] = {}
    for line in text.splitlines():
        name, _, rest = line.partition("{")
        if ';groundwatch"' in rest and name in {
            "prometheus_rule_group_iterations_total",
            "prometheus_rule_group_iterations_missed_total",
            "prometheus_rule_evaluation_failures_total",
        }:
            out[name] = float(rest.rsplit(" ", 1)[1])
    assert "prometheus_rule_group_iterations_total" in out, "rule group 'groundwatch' not loaded"
    return out


def _evaluated(counters: dict[str, float]) -> float:
    return counters["prometheus_rule_group_iterations_total"] - counters.get(
        "prometheus_rule_group_iterations_missed_total", 0.0
    )


def _wait_rule_evaluations(prom: str, n: int, timeout: float) -> None:
    """Wait until the rule group has really been evaluated ``n`` more times from now (missed
    iterations do not count), with no failed rule evaluation: silence after this means the
    rules saw the data and did not fire, not that they have not run yet."""
    before = _rule_group_counters(prom)
    _wait(
        lambda: _evaluated(_rule_group_counters(prom)) >= _evaluated(before) + n,
        timeout,
        f"{n} evaluations of the alert rules",
    )
    failures = "prometheus_rule_evaluation_failures_total"
    assert _rule_group_counters(prom).get(failures, 0.0) == before.get(failures, 0.0)


def _alerts(prom: str) -> list[dict[str, Any]]:
    return list(_get(f"{prom}/api/v1/alerts")["data"]["alerts"])


def _query(prom: str, expr: str) -> list[dict[str, Any]]:
    from urllib.parse import quote

    return list(_get(f"{prom}/api/v1/query?query={quote(expr)}")["data"]["result"])


def test_drift_alert_fires_through_real_prometheus(
    service: tuple[int, Any], prometheus: str
) -> None:
    _, runtime = service
    now = time.time()
    # stable: reference (35..140 s ago) and current window, same score mix, same retrieval
    _feed(runtime, "ref", 120, now - 140, now - 35, "3/4", 0.85)
    _feed(runtime, "cur", 40, now - 20, now, "3/4", 0.85)
    decision = 'groundwatch_drift_decision{metric="faithfulness",slice_key="all"}'
    stable = _wait(lambda: _query(prometheus, decision), 20, "a scraped drift series")
    assert float(stable[0]["value"][1]) == 0
    mean = _query(
        prometheus, 'groundwatch_window_mean{window="1h",metric="faithfulness",slice_key="all"}'
    )
    assert mean
    assert float(mean[0]["value"][1]) == pytest.approx((30 * 0.75 + 10 * 1.0) / 40)
    # the stable data has been scraped; silence counts only once the rules have run on it
    _wait_rule_evaluations(prometheus, 3, 20)
    assert not [a for a in _alerts(prometheus) if a["labels"]["alertname"].endswith("Drift")]

    # shift: faithfulness collapses and retrieval scores drop
    now = time.time()
    _feed(runtime, "shift", 160, now - 5, now, "1/4", 0.3)

    def drift_alerts() -> set[tuple[str, str]]:
        return {
            (a["labels"]["alertname"], a["labels"].get("metric", ""))
            for a in _alerts(prometheus)
            if a["state"] in {"pending", "firing"} and a["labels"].get("slice_key") == "all"
        }

    got = _wait(
        lambda: (
            {
                ("GroundwatchScoreDrift", "faithfulness"),
                ("GroundwatchRetrievalDrift", "retrieval_top_score"),
            }
            <= drift_alerts()
            and drift_alerts()
        ),
        25,
        "drift alerts pending or firing",
    )
    assert ("GroundwatchScoreDrift", "faithfulness") in got
    firing = _wait(
        lambda: [
            a
            for a in _alerts(prometheus)
            if a["labels"]["alertname"] == "GroundwatchScoreDrift" and a["state"] == "firing"
        ],
        15,
        "GroundwatchScoreDrift firing",
    )
    assert float(firing[0]["value"]) > 0.03  # Wasserstein-1 above the effect floor


def test_stationary_slices_stay_silent_while_the_shifted_one_fires(
    service: tuple[int, Any], prometheus: str
) -> None:
    """Issue 19's end-to-end case: 10 tenants whose reference and current traffic come from the
    same distribution and one whose retrieval scores and answers really shifted. Under the old
    rule (PSI > 0.25 at 40 current traces) 6 of the 10 stationary tenants fired."""
    import random

    _, runtime = service
    rng = random.Random(19)
    now = time.time()
    answers = ["4/4"] * 18 + ["3/4", "1/1"]  # 0.05 contradicted claims per trace
    traces: list[RagTrace] = []
    for t in range(11):
        tenant = f"t{t}" if t < 10 else "moved"
        for side, n, t0, t1 in (("r", 300, now - 140, now - 35), ("c", 80, now - 25, now)):
            moved = tenant == "moved" and side == "c"
            for i in range(n):
                ts = t0 + (t1 - t0) * i / n
                answer = "1/4" if moved and i % 2 else rng.choice(answers)
                top = rng.gauss(0.6 if moved else 0.85, 0.05)
                trace = _trace(i, f"{tenant}-{side}", ts, answer, min(1.0, max(0.0, top)))
                traces.append(trace.model_copy(update={"attributes": {"tenant": tenant}}))
    for start in range(0, len(traces), 500):
        sampled = runtime.processor.observe(traces[start : start + 500], source="e2e")
        runtime.processor.evaluate_and_record(sampled)

    def tenant_drift_alerts() -> set[tuple[str, str, str]]:
        return {
            (a["labels"]["alertname"], a["labels"]["slice_value"], a["state"])
            for a in _alerts(prometheus)
            if a["labels"].get("slice_key") == "tenant"
        }

    _wait(
        lambda: any(v == "moved" for _, v, _ in tenant_drift_alerts()),
        25,
        "the shifted tenant's drift alert",
    )
    tests = _query(prometheus, "groundwatch_drift_tests")
    assert float(tests[0]["value"][1]) >= 22  # 11 tenants x (>= faithfulness, retrieval)
    # the shifted tenant fired, so the data is scraped; several more evaluations on it
    _wait_rule_evaluations(prometheus, 5, 30)
    got = tenant_drift_alerts()
    assert ("GroundwatchRetrievalDrift", "moved", "firing") in got
    assert {v for _, v, _ in got} == {"moved"}, got
