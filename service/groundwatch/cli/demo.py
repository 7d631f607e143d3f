"""``groundwatch demo``: the default judge end to end, with nothing else to run.

Serves the API on 127.0.0.1 with in-memory state and the default (verifier) judge, and replays
the bundled sample traces (a healthy assistant, then a bad deploy: weaker retrieval, contradicted
answers, more refusals) so that /metrics, the findings page and drift move within a minute.
After the replay the windows are frozen and the page stays up ``linger_s`` (default 300 s from
the command line) or, with ``serve_forever``, until Ctrl-C; the demo says which at start and end.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import threading
import time
from importlib import resources
from pathlib import Path
from typing import Any

from groundwatch.cli.demo_alerts import default_rules_path
from groundwatch.contract.trace import RagTrace, validate_trace
from groundwatch.settings import Settings

__all__ = ["load_sample_traces", "run_demo"]


def load_sample_traces() -> list[dict[str, Any]]:
    text = resources.files("groundwatch").joinpath("data/sample_traces.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _demo_settings(settings: Settings, duration: float) -> Settings:
    # Short windows so drift shows within the replay: the first half becomes the reference.
    half = max(5, int(duration / 2))
    windows = settings.windows.model_copy(
        update={
            "bucket_s": max(1, min(settings.windows.bucket_s, half // 5 or 1)),
            "current_window_s": half,
            "reference_window_s": half * 4,
            "min_samples": min(settings.windows.min_samples, 10),
            "report_refresh_s": 0.0,
        }
    )
    if "export_windows_s" not in settings.windows.model_fields_set:
        # Time is compressed: the exported "1h" window is the current (bad deploy) half.
        windows.export_windows_s = {"5m": max(1, half // 12), "1h": half, "24h": half * 4}
    return settings.model_copy(update={"windows": windows, "state": "memory"})


def run_demo(
    settings: Settings,
    *,
    host: str | None = None,
    port: int | None = None,
    duration: float = 40.0,
    serve_forever: bool = False,
    with_prometheus: bool = False,
    rules: Path | None = None,
    linger_s: float = 0.0,
) -> int:
    from groundwatch.api import security
    from groundwatch.api.app import create_app
    from groundwatch.cli.commands import app_config, serve_app
    from groundwatch.runtime import Runtime

    explicit = rules is not None
    rules = rules or default_rules_path()
    if (explicit or with_prometheus) and (rules is None or not rules.is_file()):
        # An installed package has no dashboards/: the table still prints, the verdict says why not.
        print(
            f"groundwatch demo: alert rules not found ({rules or 'dashboards/alerts.yml'}): "
            "pass --rules PATH to the shipped dashboards/alerts.yml",
            file=sys.stderr,
        )
        return 2
    prometheus = os.environ.get("GROUNDWATCH_DEMO_PROMETHEUS") or shutil.which("prometheus")
    if with_prometheus and (prometheus is None or not Path(prometheus).is_file()):
        from groundwatch.cli.demo_prometheus import MISSING

        print(f"groundwatch demo: {MISSING}", file=sys.stderr)
        return 2
    settings = _demo_settings(settings, duration)
    host = host or settings.api.host
    port = port or settings.api.port
    # The same bind check as `serve`: no open endpoints (findings included) on a network address.
    api = settings.api.model_copy(update={"host": host, "port": port})
    settings = settings.model_copy(update={"api": api})
    try:
        security.check_bind(settings.api)
    except security.InsecureBindError as exc:
        print(f"groundwatch demo: {exc}", file=sys.stderr)
        return 2
    print(f"groundwatch demo: loading the {settings.judge.backend} judge ...", file=sys.stderr)
    runtime = Runtime.build(settings, with_kafka=False)
    app = create_app(runtime, app_config(settings))
    server = serve_app(app, host, port, settings.api)
    thread = threading.Thread(target=server.run, name="gw-http", daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        time.sleep(0.05)
    if not thread.is_alive():
        print(f"groundwatch demo: could not serve on {host}:{port}", file=sys.stderr)
        return 2
    base = f"http://{host}:{port}"
    print(
        f"groundwatch demo: serving {base}  (findings page {base}/, metrics {base}/metrics)",
        file=sys.stderr,
    )
    print(f"groundwatch demo: {_stays_up(duration, serve_forever, linger_s)}", file=sys.stderr)
    # Prometheus (when asked for) stops before the API does, on every exit path.
    try:
        with contextlib.ExitStack() as stack:
            alert_log = None
            if with_prometheus and prometheus is not None and rules is not None:
                alert_log = _start_prometheus(stack, prometheus, f"{host}:{port}", rules, settings)
            code = _replay(settings, runtime, thread, duration, serve_forever, rules, alert_log)
            if code == 0 and not serve_forever and linger_s > 0:
                _linger(runtime, base, linger_s)
            return code
    except KeyboardInterrupt:
        return 0
    except RuntimeError as exc:
        print(f"groundwatch demo: {exc}", file=sys.stderr)
        return 1
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def _stays_up(duration: float, serve_forever: bool, linger_s: float) -> str:
    """What the demo says at start: how long the page stays up, and how to change it."""
    if serve_forever:
        return f"the replay takes ~{duration:g} s; the page stays up after it until Ctrl-C"
    if linger_s > 0:
        return (
            f"the replay takes ~{duration:g} s; the page stays up {linger_s:g} s after it "
            "(--linger SECONDS, or --serve-forever until Ctrl-C; Ctrl-C stops sooner)"
        )
    return f"the replay takes ~{duration:g} s; the page goes when it ends (--linger 0)"


def _linger(runtime: Any, base: str, linger_s: float) -> None:
    """Keep serving the replay's last windows for ``linger_s`` seconds (Ctrl-C stops)."""
    frozen = runtime.windows.freeze()
    at = time.strftime("%H:%M:%S", time.localtime(frozen))
    until = time.strftime("%H:%M:%S", time.localtime(time.time() + linger_s))
    print(
        f"groundwatch demo: still serving {base}/ until {until} ({linger_s:g} s; windows frozen"
        f" at {at}, the end of the replay); Ctrl-C stops; --serve-forever keeps it up",
        file=sys.stderr,
    )
    time.sleep(linger_s)
    print("groundwatch demo: linger over, stopping", file=sys.stderr)


def _start_prometheus(
    stack: contextlib.ExitStack, binary: str, target: str, rules: Path, settings: Settings
) -> Any:
    from groundwatch.cli.demo_prometheus import AlertLog, local_prometheus, scaled_rules

    compression = 3600 / settings.windows.export_windows_s["1h"]
    demo_rules = scaled_rules(rules, compression)
    url = stack.enter_context(local_prometheus(binary, target, demo_rules.rules))
    print(
        f"groundwatch demo: prometheus {url} scrapes the demo every 1s with a demo copy of"
        f" {rules}; the windows' clock runs {compression:.0f}x faster here, so the rules on"
        " window and drift series are scaled:",
        file=sys.stderr,
    )
    for alert, change in sorted(demo_rules.scaled.items()):
        print(f"  {alert:36s} {change}", file=sys.stderr)
    print(
        "  kept as shipped (process counters, real clock): " + ", ".join(demo_rules.kept),
        file=sys.stderr,
    )
    longest = demo_rules.longest_for_s
    return AlertLog(url, longest_for_s=longest)


def _replay(  # noqa: PLR0917 - one private call site
    settings: Settings,
    runtime: Any,
    thread: threading.Thread,
    duration: float,
    serve_forever: bool,
    rules: Path | None,
    alert_log: Any,
) -> int:
    from groundwatch.api.app import QueueFullError, _ingest_valid

    traces: list[RagTrace] = [validate_trace(t, settings.limits) for t in load_sample_traces()]
    pause = duration / max(1, len(traces))
    half = len(traces) // 2
    started = last_poll = time.monotonic()
    for i, trace in enumerate(traces):
        if alert_log is not None and time.monotonic() - last_poll >= 1.0:
            alert_log.poll()
            last_poll = time.monotonic()
        if i == half:
            print(
                "groundwatch demo: -- a bad deploy happens now (prompt v8, weaker retrieval) --",
                file=sys.stderr,
            )
        while True:
            try:
                _ingest_valid(runtime, [trace], "demo")
                break
            except QueueFullError:
                time.sleep(0.1)
        time.sleep(pause)
        if (i + 1) % 40 == 0:
            print(f"groundwatch demo: replayed {i + 1}/{len(traces)} traces", file=sys.stderr)
    runtime.queue.join(timeout=120)
    elapsed = time.monotonic() - started
    _print_summary(runtime)
    _print_conclusion(runtime, settings, rules, elapsed)
    if alert_log is not None:
        # A few evaluations past the longest scaled for: so pending alerts can fire.
        until = time.monotonic() + alert_log.longest_for_s + 5.0
        while time.monotonic() < until:
            alert_log.poll()
            time.sleep(1.0)
        lines = alert_log.lines(started)
        print(
            "\nPrometheus alerts seen (first pending / firing, seconds since the replay began;"
            " for: scaled as above):"
        )
        print("\n".join(lines) if lines else "  none went pending")
    if serve_forever:
        # No traffic comes after the replay: left running, the windows would empty within
        # a window's length and the page would say "no drift" right after DRIFT was printed.
        # Keep the last ones (/metrics keeps exporting them; the page and /v1/windows say so).
        frozen = runtime.windows.freeze()
        at = time.strftime("%H:%M:%S", time.localtime(frozen))
        print(
            f"groundwatch demo: still serving; windows frozen at {at} (the end of the replay),"
            " so the page and /metrics keep its last values; Ctrl-C stops",
            file=sys.stderr,
        )
        thread.join()
    return 0


def _print_summary(runtime: Any) -> None:
    registry = runtime.registry
    wanted = {
        "groundwatch_traces_received_total": "traces received",
        "groundwatch_traces_evaluated_total": "traces evaluated",
        "groundwatch_claims_total": "claims",
        "groundwatch_refusals_total": "refusals",
        "groundwatch_findings_total": "findings (contradicted claims)",
    }
    totals: dict[str, float] = {}
    by_verdict: dict[str, float] = {}
    for family in registry.collect():
        for sample in family.samples:
            if sample.name in wanted:
                totals[sample.name] = totals.get(sample.name, 0.0) + sample.value
            if sample.name == "groundwatch_claims_total":
                verdict = sample.labels.get("verdict", "?")
                by_verdict[verdict] = by_verdict.get(verdict, 0.0) + sample.value
    print("groundwatch demo: summary", file=sys.stderr)
    for name, label in wanted.items():
        print(f"  {label:32s} {totals.get(name, 0.0):.0f}", file=sys.stderr)
    for verdict, value in sorted(by_verdict.items()):
        print(f"    claims {verdict:24s} {value:.0f}", file=sys.stderr)


def _print_conclusion(runtime: Any, settings: Settings, rules: Path | None, elapsed: float) -> None:
    """The before/after table and which shipped alert rules would fire, on stdout."""
    from prometheus_client import generate_latest

    from groundwatch.cli.demo_alerts import evaluate_rules, format_rules, format_table, table_rows
    from groundwatch.observability.windows_collector import build_report
    from groundwatch.state.buckets import ALL

    reader = runtime.windows
    report = build_report(reader, settings.windows)
    cur_s = settings.windows.current_window_s
    reference, current = reader.summaries_many(
        [report.reference_range, (report.now - cur_s, report.now)]
    )
    half = settings.windows.export_windows_s["1h"]
    print(
        f"\nBefore / after the bad deploy (slice all; healthy = drift reference, bad = last {half}s):"
    )
    print(format_table(table_rows(reference.get(ALL), current.get(ALL), report)))
    promtool = os.environ.get("GROUNDWATCH_DEMO_PROMTOOL") or shutil.which("promtool")
    if rules is None:
        print("\nShipped alert rules: not evaluated (no dashboards/alerts.yml here; pass --rules)")
        return
    print(f"\nShipped alert rules ({rules}) on these values, evaluated by promtool:")
    if promtool is None or not Path(promtool).is_file():
        print("  not evaluated: promtool is not installed (apt-get install prometheus)")
        return
    text = generate_latest(runtime.registry).decode("utf-8")
    try:
        verdicts = evaluate_rules(text, rules, elapsed, promtool)
    except (RuntimeError, OSError, ValueError) as exc:
        print(f"  not evaluated: {exc}")
        return
    print(format_rules(verdicts))
    print(
        f"  (values as exported at the end of the replay, held for an hour; counters at the\n"
        f'  replay\'s rate. The demo compresses time: its window "1h" is the last {half}s.)'
    )
