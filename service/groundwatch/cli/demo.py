"""``groundwatch demo``: the embedded default end to end, with nothing else to run.

Serves the API on 127.0.0.1 with in-memory state and the embedded judge, and replays the bundled
sample traces (a healthy assistant, then a bad deploy: weaker retrieval, contradicted answers,
more refusals) so that /metrics, the findings page and drift move within a minute.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from importlib import resources
from typing import Any

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
        }
    )
    return settings.model_copy(update={"windows": windows, "state": "memory"})


def run_demo(
    settings: Settings,
    *,
    host: str | None = None,
    port: int | None = None,
    duration: float = 40.0,
    serve_forever: bool = False,
) -> int:
    from groundwatch.api import security
    from groundwatch.api.app import QueueFullError, _ingest_valid, create_app
    from groundwatch.cli.commands import serve_app
    from groundwatch.runtime import Runtime

    settings = _demo_settings(settings, duration)
    host = host or settings.api.host
    port = port or settings.api.port
    # The same bind check as `serve`: no open endpoints (findings included) on a network address.
    api = settings.api.model_copy(update={"host": host, "port": port})
    settings = settings.model_copy(update={"api": api})
    try:
        security.check_bind(settings)
    except security.InsecureBindError as exc:
        print(f"groundwatch demo: {exc}", file=sys.stderr)
        return 2
    print("groundwatch demo: loading the embedded judge ...", file=sys.stderr)
    runtime = Runtime.build(settings, with_kafka=False)
    app = create_app(settings, runtime=runtime)
    server = serve_app(app, host, port, settings)
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
    traces: list[RagTrace] = [validate_trace(t, settings.limits) for t in load_sample_traces()]
    pause = duration / max(1, len(traces))
    half = len(traces) // 2
    try:
        for i, trace in enumerate(traces):
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
        _print_summary(runtime)
        if serve_forever:
            print("groundwatch demo: still serving; Ctrl-C stops", file=sys.stderr)
            thread.join()
    except KeyboardInterrupt:
        pass
    finally:
        server.should_exit = True
        thread.join(timeout=30)
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
