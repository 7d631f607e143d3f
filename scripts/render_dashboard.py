"""Render dashboards/groundwatch-overview.json from a real Prometheus scraping ``groundwatch demo``.

No Grafana can run here, so this does what Grafana would: start the demo (embedded judge, the
bundled 240 sample traces with a bad deploy halfway) on a free loopback port, start the Debian
``prometheus`` binary on another one with a short scrape interval and the shipped rules
(``dashboards/alerts.yml``, evaluation interval and ``for:`` shortened to the replay), then run
every panel's PromQL through the HTTP API (template variables resolved to their defaults the way
Grafana does: a custom variable's current value, a query variable's first value in its sort
order, ``All`` -> ``allValue``) and draw the grid with matplotlib, one PNG per group of rows.

The replay is compressed (``--duration`` seconds instead of hours), so the exported windows are
scaled with it: ``window="5m"`` is ``--window-5m`` seconds of traffic (``1h`` and ``24h`` in
proportion) and the demo's drift windows are half the replay (see ``groundwatch.cli.demo``).

Run: ``python scripts/render_dashboard.py`` (about a minute; writes docs/img/dashboard-*.png).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
DASHBOARD = ROOT / "dashboards" / "groundwatch-overview.json"
RULES = ROOT / "dashboards" / "alerts.yml"
# Row groups -> one PNG each (row titles are matched by prefix).
PAGES = {
    "health": ("Health", "By deploy"),
    "quality": ("Quality by slice",),
    "drift": ("Drift",),
    "pipeline": ("Traffic and pipeline",),
}


# --------------------------------------------------------------------------- processes


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_http(url: str, timeout: float, proc: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process for {url} exited with {proc.returncode}")
        with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=2):  # noqa: S310
            return
        time.sleep(0.2)
    raise TimeoutError(f"{url} did not answer within {timeout:.0f} s")


def stop(proc: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout)


def scaled_windows(window_5m: float) -> dict[str, int]:
    """The exported windows, compressed like the replay (5m : 1h : 24h kept at 1 : 12 : 288,
    the long ones capped so that they still cover the whole replay)."""
    five = max(1, int(window_5m))
    return {"5m": five, "1h": five * 12, "24h": five * 288}


def start_demo(port: int, duration: float, window_5m: float, log: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env["GROUNDWATCH_WINDOWS__EXPORT_WINDOWS_S"] = json.dumps(scaled_windows(window_5m))
    env["GROUNDWATCH_WINDOWS__BUCKET_S"] = "1"
    env["GROUNDWATCH_WINDOWS__ROLLUP_S"] = "10"
    env.setdefault("GROUNDWATCH_API__RATE_LIMIT_PER_S", "0")
    cmd = [sys.executable, "-m", "groundwatch.cli", "demo", "--host", "127.0.0.1"]
    cmd += ["--port", str(port), "--duration", str(duration), "--serve-forever"]
    with log.open("wb") as out:
        return subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)  # noqa: S603


def write_prometheus_config(workdir: Path, target_port: int, interval_s: float) -> Path:
    """Prometheus config scraping the demo, with the shipped rules (evaluation interval and
    ``for:`` shortened to the compressed replay; the expressions are the shipped ones)."""
    rules = yaml.safe_load(RULES.read_text("utf-8"))
    every = f"{max(1, round(interval_s))}s"
    for group in rules["groups"]:
        group["interval"] = every
        for rule in group["rules"]:
            if "for" in rule:
                rule["for"] = f"{max(2, round(2 * interval_s))}s"
    (workdir / "rules.yml").write_text(yaml.safe_dump(rules), "utf-8")
    config = {
        "global": {"scrape_interval": every, "evaluation_interval": every, "scrape_timeout": every},
        "rule_files": [str(workdir / "rules.yml")],
        "scrape_configs": [
            {
                "job_name": "groundwatch",
                "static_configs": [{"targets": [f"127.0.0.1:{target_port}"]}],
            }
        ],
    }
    path = workdir / "prometheus.yml"
    path.write_text(yaml.safe_dump(config), "utf-8")
    return path


def start_prometheus(workdir: Path, config: Path, port: int) -> subprocess.Popen[bytes]:
    binary = shutil.which("prometheus")
    if binary is None:
        raise FileNotFoundError(
            "the prometheus binary is not installed (apt-get install prometheus)"
        )
    cmd = [
        binary,
        f"--config.file={config}",
        f"--storage.tsdb.path={workdir / 'data'}",
        f"--web.listen-address=127.0.0.1:{port}",
    ]
    with (workdir / "prometheus.log").open("wb") as out:
        return subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)  # noqa: S603


@dataclass
class Run:
    """A finished demo replay scraped by Prometheus: query it between ``start`` and ``end``."""

    prom: str
    start: float
    end: float
    deploy: float
    demo_log: str


@contextlib.contextmanager
def demo_with_prometheus(
    duration: float = 40.0, interval_s: float = 1.0, window_5m: float | None = None
) -> Iterator[Run]:
    """Run the demo replay under a real Prometheus; yield once the replay is fully scored and
    scraped, with both processes still up (stopped on exit, also on failure)."""
    window = window_5m if window_5m is not None else max(4.0, duration / 4)
    with tempfile.TemporaryDirectory(prefix="gw-render-") as tmp:
        workdir = Path(tmp)
        app_port, prom_port = free_port(), free_port()
        demo_log = workdir / "demo.log"
        # Prometheus first, so that it scrapes from the demo's first second.
        config = write_prometheus_config(workdir, app_port, interval_s)
        prom = start_prometheus(workdir, config, prom_port)
        demo: subprocess.Popen[bytes] | None = None
        try:
            url = f"http://127.0.0.1:{prom_port}"
            wait_http(f"{url}/-/ready", 60, prom)
            demo = start_demo(app_port, duration, window, demo_log)
            wait_http(f"http://127.0.0.1:{app_port}/healthz", 300, demo)
            start = time.time()
            _wait_log(demo_log, "a bad deploy happens now", duration + 300, demo)
            deploy = time.time()
            _wait_log(demo_log, "still serving", duration + 300, demo)
            time.sleep(max(3.0, 3 * interval_s))  # a few scrapes and rule evaluations after
            yield Run(url, start, time.time(), deploy, demo_log.read_text("utf-8", "replace"))
        finally:
            if demo is not None:
                stop(demo)
            stop(prom)


def _wait_log(log: Path, text: str, timeout: float, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in log.read_text("utf-8", "replace"):
            return
        if proc.poll() is not None:
            raise RuntimeError(f"demo exited ({proc.returncode}):\n{log.read_text('utf-8')}")
        time.sleep(0.2)
    raise TimeoutError(f"demo did not print {text!r} within {timeout:.0f} s")


# --------------------------------------------------------------------------- queries


def api(prom: str, path: str, **params: Any) -> Any:
    url = f"{prom}{path}?{urllib.parse.urlencode(params)}"
    with urllib.request.urlopen(url, timeout=30) as resp:  # noqa: S310 (loopback http only)
        body = json.loads(resp.read())
    if body.get("status") != "success":
        raise RuntimeError(f"{path} {params}: {body}")
    return body["data"]


def load_dashboard(path: Path | None = None) -> dict[str, Any]:
    return dict(json.loads((path or DASHBOARD).read_text("utf-8")))


def substitute(expr: str, variables: dict[str, str]) -> str:
    def repl(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        return variables.get(name, m.group(0))

    return re.sub(r"\$\{(\w+)\}|\$(\w+)", repl, expr)


def resolve_variables(prom: str, dashboard: dict[str, Any], at: float) -> dict[str, str]:
    """Template variables at their defaults, in dashboard order (later ones may use earlier)."""
    out: dict[str, str] = {}
    for var in dashboard.get("templating", {}).get("list", []):
        name, kind = var["name"], var.get("type")
        current = (var.get("current") or {}).get("value")
        if kind == "datasource":
            continue
        if current not in (None, "", []):
            out[name] = current[0] if isinstance(current, list) else str(current)
            continue
        if kind == "custom":
            out[name] = str(var["query"]).split(",")[0].strip()
            continue
        if var.get("includeAll"):  # Grafana's first option is "All"
            out[name] = str(var.get("allValue") or ".*")
            continue
        definition = substitute(str(var.get("definition", "")), out)
        m = re.fullmatch(r"label_values\((?:(.*),\s*)?(\w+)\)", definition)
        if m is None:
            raise ValueError(f"variable {name}: unsupported query {definition!r}")
        params: dict[str, Any] = {"start": at - 60, "end": at}
        if m.group(1):
            params["match[]"] = m.group(1)
        values = sorted(api(prom, f"/api/v1/label/{m.group(2)}/values", **params))
        if var.get("sort") in (2, 4, 6):
            values.reverse()
        if not values:
            raise ValueError(f"variable {name}: no values for {definition!r}")
        out[name] = str(values[0])
    return out


@dataclass
class Series:
    legend: str
    times: list[float]
    values: list[float]


@dataclass
class TargetData:
    ref: str
    expr: str
    series: list[Series] = field(default_factory=list)
    error: str | None = None


@dataclass
class PanelData:
    panel: dict[str, Any]
    targets: list[TargetData]

    @property
    def has_data(self) -> bool:
        return all(t.error is None and t.series for t in self.targets)


def _legend(fmt: str | None, metric: dict[str, str]) -> str:
    if not fmt:
        inner = ", ".join(f'{k}="{v}"' for k, v in sorted(metric.items()) if k != "__name__")
        return metric.get("__name__", "") + ("{" + inner + "}" if inner else "")
    return re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: metric.get(m.group(1), ""), fmt).strip()


def query_panels(
    prom: str,
    dashboard: dict[str, Any],
    variables: dict[str, str],
    *,
    start: float,
    end: float,
    step: float,
) -> list[PanelData]:
    """Every non-row panel's targets: a range query for time series, instant (at ``end``) else."""
    out: list[PanelData] = []
    for panel in dashboard["panels"]:
        if panel.get("type") == "row":
            continue
        targets = []
        for target in panel.get("targets", []):
            expr = substitute(target["expr"], variables)
            data = TargetData(target.get("refId", "?"), expr)
            try:
                if panel.get("type") == "timeseries":
                    res = api(
                        prom, "/api/v1/query_range", query=expr, start=start, end=end, step=step
                    )
                    for item in res["result"]:
                        pts = [(float(t), float(v)) for t, v in item["values"]]
                        data.series.append(
                            Series(
                                _legend(target.get("legendFormat"), item["metric"]),
                                [p[0] for p in pts],
                                [p[1] for p in pts],
                            )
                        )
                else:
                    res = api(prom, "/api/v1/query", query=expr, time=end)
                    for item in res["result"]:
                        t, v = item["value"]
                        data.series.append(
                            Series(
                                _legend(target.get("legendFormat"), item["metric"]),
                                [float(t)],
                                [float(v)],
                            )
                        )
            except (OSError, RuntimeError) as exc:
                data.error = str(exc)
            targets.append(data)
        out.append(PanelData(panel, targets))
    return out


def annotation_marks(
    prom: str, dashboard: dict[str, Any], start: float, end: float, step: float
) -> list[tuple[str, str, float]]:
    """(annotation name, colour, time) where each annotation query's series first appear."""
    marks: list[tuple[str, str, float]] = []
    for ann in dashboard.get("annotations", {}).get("list", []):
        expr = ann.get("expr")
        if not expr:
            continue
        res = api(prom, "/api/v1/query_range", query=expr, start=start, end=end, step=step)
        seen: set[float] = set()
        for item in res["result"]:
            times = [float(t) for t, _ in item["values"]]
            for i, t in enumerate(times):  # the start of each contiguous run
                if (i == 0 or t - times[i - 1] > step * 1.5) and round(t) not in seen:
                    seen.add(round(t))
                    marks.append((str(ann.get("name")), str(ann.get("iconColor", "gray")), t))
    return marks


# --------------------------------------------------------------------------- drawing

GRAFANA_COLOURS = {
    "green": "#56a64b",
    "red": "#e02f44",
    "orange": "#ff9830",
    "yellow": "#f2cc0c",
    "blue": "#3274d9",
    "purple": "#a352cc",
    "text": "#d8d9da",
}


def fmt_value(value: float, unit: str | None) -> str:
    if math.isnan(value):
        return "NaN"
    if unit == "percentunit":
        return f"{value * 100:.0f}%"
    if unit == "reqps":
        return f"{value:.2g} req/s"
    if unit == "ops":
        return f"{value:.2g} ops/s"
    if unit == "s":
        return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"
    return f"{value:.3g}"


def _colour(name: str) -> str:
    return GRAFANA_COLOURS.get(name, name)


def _threshold_colour(panel: dict[str, Any], value: float) -> str:
    steps = panel.get("fieldConfig", {}).get("defaults", {}).get("thresholds", {}).get("steps")
    colour = "text"
    for step in steps or []:
        if step.get("value") is None or value >= float(step["value"]):
            colour = step.get("color", colour)
    return _colour(colour)


def draw(
    panels: list[PanelData],
    dashboard: dict[str, Any],
    out_dir: Path,
    *,
    origin: float,
    deploy: float | None = None,
    marks: list[tuple[str, str, float]] | None = None,
    subtitle: str = "",
) -> list[Path]:
    """One PNG per page of rows (``PAGES``), panels placed on Grafana's 24-column grid."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    rows = [p for p in dashboard["panels"] if p.get("type") == "row"]
    by_id = {pd.panel["id"]: pd for pd in panels}
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for page, prefixes in PAGES.items():
        page_rows = [r for r in rows if str(r["title"]).startswith(prefixes)]
        if not page_rows:
            continue
        ys = sorted(r["gridPos"]["y"] for r in rows)
        members: list[dict[str, Any]] = []
        for r in page_rows:
            y0 = r["gridPos"]["y"]
            y1 = min([y for y in ys if y > y0], default=10**6)
            members.append(r)
            members += [
                p
                for p in dashboard["panels"]
                if p.get("type") != "row" and y0 < p["gridPos"]["y"] < y1
            ]
        top = min(p["gridPos"]["y"] for p in members)
        bottom = max(p["gridPos"]["y"] + p["gridPos"]["h"] for p in members)
        unit_h = 0.34  # inches per grid unit (Grafana: 30 px)
        width = 16.0
        height = (bottom - top) * unit_h + 0.5
        fig = plt.figure(figsize=(width, height), dpi=72, facecolor="#111217")
        fig.text(
            0.005,
            1 - 0.15 / height,
            f"{dashboard['title']}  {subtitle}",
            color="#9fa7b3",
            fontsize=8,
            va="top",
        )
        for p in members:
            g = p["gridPos"]
            x0, w = g["x"] / 24, g["w"] / 24
            y_top = 1 - ((g["y"] - top) * unit_h + 0.4) / height
            h = g["h"] * unit_h / height
            if p.get("type") == "row":
                fig.text(
                    x0 + 0.004,
                    y_top - h / 2,
                    p["title"],
                    color="#d8d9da",
                    fontsize=11,
                    fontweight="bold",
                    va="center",
                )
                continue
            pad = 0.032 if p.get("type") == "timeseries" else 0.006  # room for y tick labels
            ax = fig.add_axes(
                (x0 + pad, y_top - h + 0.04 * 8 / height, w - pad - 0.006, h - 0.09 * 8 / height)
            )
            _draw_panel(
                ax,
                by_id.get(p["id"]),
                p,
                origin=origin,
                deploy=deploy,
                marks=marks or [],
                formatter=FuncFormatter,
            )
        path = out_dir / f"dashboard-{page}.png"
        fig.savefig(path, facecolor=fig.get_facecolor(), pil_kwargs={"optimize": True})
        plt.close(fig)
        written.append(path)
    return written


def _draw_panel(
    ax: Any,
    data: PanelData | None,
    panel: dict[str, Any],
    *,
    origin: float,
    deploy: float | None,
    marks: list[tuple[str, str, float]],
    formatter: Any,
) -> None:
    unit = panel.get("fieldConfig", {}).get("defaults", {}).get("unit")
    ax.set_facecolor("#181b1f")
    for spine in ax.spines.values():
        spine.set_color("#2c3235")
    title = str(panel.get("title", ""))
    ax.set_title(f"{title}  [{unit or 'short'}]", color="#d8d9da", fontsize=8, loc="left", pad=3)
    ax.tick_params(colors="#9fa7b3", labelsize=6)
    if data is None or not any(t.series for t in data.targets):
        ax.set_xticks([])
        ax.set_yticks([])
        errors = [t.error for t in (data.targets if data else []) if t.error]
        ax.text(
            0.5,
            0.5,
            "No data" if not errors else errors[0][:80],
            color="#9fa7b3",
            ha="center",
            va="center",
            transform=ax.transAxes,
            fontsize=9,
        )
        return
    kind = panel.get("type")
    if kind == "stat":
        ax.set_xticks([])
        ax.set_yticks([])
        values = [(s.legend, s.values[-1]) for t in data.targets for s in t.series]
        n = len(values)
        for i, (legend, value) in enumerate(values):
            x = (i + 0.5) / n
            ax.text(
                x,
                0.5,
                fmt_value(value, unit),
                color=_threshold_colour(panel, value),
                ha="center",
                va="center",
                fontsize=20 if n == 1 else 16,
                fontweight="bold",
                transform=ax.transAxes,
            )
            ax.text(
                x, 0.12, legend, color="#9fa7b3", ha="center", fontsize=7, transform=ax.transAxes
            )
        return
    if kind == "table":
        ax.set_xticks([])
        ax.set_yticks([])
        lines = [
            f"{s.legend}: {fmt_value(s.values[-1], unit)}" for t in data.targets for s in t.series
        ]
        ax.text(
            0.03,
            0.92,
            "\n".join(lines[:8]),
            color="#d8d9da",
            va="top",
            fontsize=8,
            family="monospace",
            transform=ax.transAxes,
        )
        return
    n_lines = 0
    for t in data.targets:
        for s in t.series:
            xs = [x - origin for x in s.times]
            ax.plot(xs, s.values, linewidth=1.1, label=s.legend[:28] or t.ref)
            n_lines += 1
    if deploy is not None:
        ax.axvline(deploy - origin, color="#ff9830", linewidth=0.8, linestyle="--")
    for _, colour, when in marks:
        ax.axvline(when - origin, color=_colour(colour), linewidth=0.5, alpha=0.35)
    ax.yaxis.set_major_formatter(formatter(lambda v, _: fmt_value(v, unit)))
    ax.xaxis.set_major_formatter(formatter(lambda v, _: f"{v:.0f}s"))
    ax.grid(color="#2c3235", linewidth=0.5)
    if n_lines:
        ax.legend(
            fontsize=5.5,
            loc="upper left",
            ncol=2 if n_lines > 5 else 1,
            frameon=False,
            labelcolor="#d8d9da",
            handlelength=1.2,
        )


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=40.0, help="replay seconds (demo: 40)")
    parser.add_argument("--interval", type=float, default=1.0, help="scrape/eval interval, s")
    parser.add_argument(
        "--window-5m",
        type=float,
        default=None,
        help="seconds the 5m window stands for (default: duration / 4)",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args(argv)
    dashboard = load_dashboard()
    with demo_with_prometheus(args.duration, args.interval, args.window_5m) as run:
        variables = resolve_variables(run.prom, dashboard, run.end)
        step = max(1.0, args.interval)
        panels = query_panels(
            run.prom, dashboard, variables, start=run.start, end=run.end, step=step
        )
        marks = annotation_marks(run.prom, dashboard, run.start, run.end, step)
    window = args.window_5m if args.window_5m is not None else max(4.0, args.duration / 4)
    subtitle = (
        f"groundwatch demo, 240 traces in {args.duration:.0f} s, bad deploy at the dashed line; "
        f"real Prometheus, shipped rules; window 5m = {window:.0f} s of replay; "
        + ", ".join(f"{k}={v}" for k, v in variables.items())
    )
    paths = draw(
        panels,
        dashboard,
        args.out,
        origin=run.start,
        deploy=run.deploy,
        marks=marks,
        subtitle=subtitle,
    )
    empty = [p.panel["title"] for p in panels if not p.has_data]
    for path in paths:
        print(
            f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: "
            f"{path.stat().st_size // 1024} KB"
        )
    print(f"{len(panels)} panels, variables {variables}, no data: {empty or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
