"""``groundwatch demo --with-prometheus``: a real Prometheus scraping the demo with the shipped rules.

Starts the Debian package's ``prometheus`` binary on a free loopback port with a temporary data
directory, a one-second scrape and evaluation interval and a demo copy of ``dashboards/alerts.yml``:
the alerts that read window or drift series (whose clock the demo compresses: its ``1h`` window is
the last half of the replay) get every range and ``for:`` divided by the compression; the alerts on
process counters keep the shipped ones. Both lists are printed. The
process is stopped and its directory removed on every exit path (end, Ctrl-C, failure).
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from groundwatch.cli.demo_alerts import parse_duration

__all__ = ["MISSING", "AlertLog", "DemoRules", "local_prometheus", "scaled_rules"]

MISSING = (
    "prometheus is not installed: --with-prometheus runs the Debian package's binary "
    "(apt-get install prometheus), or set GROUNDWATCH_DEMO_PROMETHEUS to its path"
)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_RANGE = re.compile(r"\[([0-9]+(?:ms|s|m|h|d|w|y)(?:[0-9]+(?:ms|s|m|h|d|w|y))*)\]")
# Series on the demo's compressed clock: the window store's "1h" is the last half of the replay.
_WINDOWED = re.compile(r"\bgroundwatch_(?:window_(?!store_)|drift_)\w+")
MIN_RANGE_S = 3  # a range must hold a few 1 s scrapes, so one missed scrape does not reset for:


@dataclass
class DemoRules:
    """A demo copy of the shipped rules: ``rules`` for Prometheus, ``scaled`` (alert -> what was
    compressed, for the printout), ``kept`` (alerts left as shipped) and the longest ``for:``."""

    rules: dict[str, Any]
    scaled: dict[str, str] = field(default_factory=dict)
    kept: list[str] = field(default_factory=list)
    longest_for_s: float = 1.0


def scaled_rules(rules_path: Path, compression: float) -> DemoRules:
    """The shipped rules for the demo's compressed clock, in a 1s group interval.

    The demo compresses only the window store's clock (its exported ``1h`` window is the last
    half of the replay), so the alerts that read window or drift series get every range and
    their ``for:`` divided by ``compression`` (ranges at least ``MIN_RANGE_S``, ``for:`` at
    least 1s). Alerts on process counters (traffic, rejects, lag, store health) run on the real
    clock and keep their shipped ranges and ``for:``.
    """
    rules = yaml.safe_load(rules_path.read_text("utf-8"))
    out = DemoRules(rules)

    def scale_range(match: re.Match[str]) -> str:
        seconds = max(MIN_RANGE_S, math.ceil(parse_duration(match.group(1)) / compression))
        return f"[{seconds}s]"

    for group in rules["groups"]:
        group["interval"] = "1s"
        for rule in group["rules"]:
            if "alert" not in rule:
                continue
            if not _WINDOWED.search(rule["expr"]):
                out.kept.append(rule["alert"])
                continue
            ranges = sorted(set(_RANGE.findall(rule["expr"])))
            rule["expr"] = _RANGE.sub(scale_range, rule["expr"])
            parts = []
            if "for" in rule:
                seconds = max(1, math.ceil(parse_duration(str(rule["for"])) / compression))
                parts.append(f"for: {rule['for']} -> {seconds}s")
                rule["for"] = f"{seconds}s"
                out.longest_for_s = max(out.longest_for_s, float(seconds))
            parts.extend(f"[{r}] -> {_RANGE.sub(scale_range, f'[{r}]')}" for r in ranges)
            out.scaled[rule["alert"]] = ", ".join(parts)
    return out


class AlertLog:
    """Alert states seen through /api/v1/alerts, in the order they were first seen."""

    def __init__(self, url: str, *, longest_for_s: float = 1.0) -> None:
        self.url = url
        self.longest_for_s = longest_for_s
        self.seen: dict[tuple[str, str, str], float] = {}  # (alert, labels, state) -> time

    def poll(self) -> None:
        try:
            with urllib.request.urlopen(f"{self.url}/api/v1/alerts", timeout=5) as resp:  # noqa: S310 - loopback
                alerts = json.loads(resp.read())["data"]["alerts"]
        except (OSError, ValueError, KeyError):
            return
        for alert in alerts:
            labels = alert["labels"]
            where = " ".join(
                f"{labels['slice_key']}={labels.get('slice_value', '')}"
                if k == "slice_key"
                else labels[k]
                for k in ("slice_key", "metric", "rate")
                if k in labels
            )
            where = where.replace("all=all", "all", 1)
            key = (labels["alertname"], where, alert["state"])
            self.seen.setdefault(key, time.monotonic())

    def lines(self, since: float) -> list[str]:
        """One line per alert: when it first went pending and firing, and on which series."""
        alerts: dict[str, dict[str, Any]] = {}
        for (alert, where, state), at in self.seen.items():
            entry = alerts.setdefault(alert, {"pending": None, "firing": None, "series": set()})
            entry[state] = at if entry.get(state) is None else min(entry[state], at)
            entry["series"].add(where)
        out = []
        for alert, entry in sorted(
            alerts.items(), key=lambda kv: min(kv[1]["pending"] or 1e18, kv[1]["firing"] or 1e18)
        ):
            when = ", ".join(
                f"{state} +{entry[state] - since:.0f}s"
                for state in ("pending", "firing")
                if entry[state] is not None
            )
            series = sorted(s for s in entry["series"] if s)
            shown = "; ".join(series[:3]) + ("; ..." if len(series) > 3 else "")
            count = f"{len(series)} series" if series else "1 series"
            out.append(f"  {alert:36s} {when:30s} {count}" + (f": {shown}" if shown else ""))
        return out


def _await_first_scrape(url: str, deadline: float) -> None:
    """Until the target has been scraped once and the rules evaluated on it: before that every
    series is absent, which an `absent(...)` rule would show as a pending alert."""
    query = f"{url}/api/v1/query?query=up"
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError, KeyError):
            with urllib.request.urlopen(query, timeout=1) as resp:  # noqa: S310 - loopback
                result = json.loads(resp.read())["data"]["result"]
            if any(r["value"][1] == "1" for r in result):
                time.sleep(2.0)  # one 1 s rule evaluation after the scrape, with margin
                return
        time.sleep(0.2)


@contextlib.contextmanager
def local_prometheus(
    binary: str, target: str, rules: dict[str, Any], *, startup_timeout: float = 30.0
) -> Iterator[str]:
    """Run Prometheus scraping ``target`` (host:port) with ``rules``; yield its base URL."""
    workdir = Path(tempfile.mkdtemp(prefix="groundwatch-prometheus-"))
    proc: subprocess.Popen[bytes] | None = None
    log = (workdir / "prometheus.log").open("wb")
    try:
        (workdir / "rules.yml").write_text(yaml.safe_dump(rules), "utf-8")
        config = {
            "global": {
                "scrape_interval": "1s",
                "evaluation_interval": "1s",
                "scrape_timeout": "1s",
            },
            "rule_files": [str(workdir / "rules.yml")],
            "scrape_configs": [
                {"job_name": "groundwatch", "static_configs": [{"targets": [target]}]}
            ],
        }
        (workdir / "prometheus.yml").write_text(yaml.safe_dump(config), "utf-8")
        port = _free_port()
        proc = subprocess.Popen(  # noqa: S603 - the local prometheus binary
            [
                binary,
                f"--config.file={workdir / 'prometheus.yml'}",
                f"--storage.tsdb.path={workdir / 'data'}",
                f"--web.listen-address=127.0.0.1:{port}",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + startup_timeout
        while True:
            if proc.poll() is not None:
                tail = (workdir / "prometheus.log").read_text("utf-8", "replace")[-1500:]
                raise RuntimeError(f"prometheus exited with {proc.returncode}: {tail}")
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(f"{url}/-/ready", timeout=1) as resp,  # noqa: S310
            ):
                if resp.status == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"prometheus not ready on {url} after {startup_timeout:.0f}s")
            time.sleep(0.2)
        _await_first_scrape(url, deadline)
        yield url
    finally:
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        log.close()
        shutil.rmtree(workdir, ignore_errors=True)
