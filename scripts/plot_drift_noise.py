"""Chart the drift-noise benchmark: false alarms per slice-day and detection power/delay per rule.

Reads the Markdown tables that ``python -m benchmarks.drift_noise`` prints (from a file or stdin)
and draws docs/img/drift-noise.png:

    nice -n 5 .venv/bin/python -m benchmarks.drift_noise --slices 30 --days 2 --warmup 2 \\
        --per-shift 4 > /tmp/drift_noise.md
    .venv/bin/python scripts/plot_drift_noise.py /tmp/drift_noise.md
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class FalseAlarms:
    rule: str
    rate: float
    alarms: int
    slice_days: int


@dataclass
class Detection:
    shift: str
    rule: str
    detected: int
    slices: int
    median_delay_h: float | None


@dataclass
class Results:
    header: str
    false_alarms: list[FalseAlarms]
    detections: list[Detection]


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse(text: str) -> Results:
    """The benchmark's two tables (the second is absent with ``--no-shift``)."""
    header = next((ln for ln in text.splitlines() if "slices," in ln), "").strip()
    false_alarms: list[FalseAlarms] = []
    detections: list[Detection] = []
    for line in text.splitlines():
        if not line.startswith("|") or line.startswith("|---"):
            continue
        cells = _cells(line)
        if len(cells) == 3 and cells[0] != "rule":
            m = re.fullmatch(r"([\d.]+) \((\d+)/(\d+)\)", cells[1])
            if m is None:
                raise ValueError(f"unexpected false-alarm row: {line!r}")
            false_alarms.append(
                FalseAlarms(cells[0], float(m.group(1)), int(m.group(2)), int(m.group(3)))
            )
        elif len(cells) == 5 and cells[0] != "shift":
            m = re.fullmatch(r"(\d+)/(\d+)", cells[2])
            if m is None:
                raise ValueError(f"unexpected detection row: {line!r}")
            delay = None if cells[3] == "-" else float(cells[3])
            detections.append(
                Detection(cells[0], cells[1], int(m.group(1)), int(m.group(2)), delay)
            )
    if not false_alarms:
        raise ValueError("no false-alarm table in the benchmark output")
    return Results(header, false_alarms, detections)


COLOURS = ["#2b8a3e", "#e8590c", "#f59f00", "#7048e8"]


def draw(results: Results, out: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rules = [f.rule for f in results.false_alarms]
    colour = {r: COLOURS[i % len(COLOURS)] for i, r in enumerate(rules)}
    shifts = list(dict.fromkeys(d.shift for d in results.detections))
    ncols = 3 if shifts else 1
    fig, axes = plt.subplots(1, ncols, figsize=(4.6 * ncols, 3.6), dpi=90, squeeze=False)
    ax = axes[0][0]
    ys = range(len(rules))
    ax.barh(ys, [f.rate for f in results.false_alarms], color=[colour[r] for r in rules])
    for y, f in zip(ys, results.false_alarms, strict=True):
        ax.text(
            f.rate + 0.01, y, f"{f.rate:.3f} ({f.alarms}/{f.slice_days})", va="center", fontsize=7
        )
    ax.set_yticks(list(ys), [r.replace(" (", "\n(") for r in rules], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.25)
    ax.set_xlabel("false alarms per slice-day (stationary slices)", fontsize=8)
    ax.set_title("Noise: days with a drift alert, no drift", fontsize=9, loc="left")
    if shifts:
        width = 0.8 / len(rules)
        for k, (metric, title, unit) in enumerate(
            [
                ("power", "Power: shifted slices alerted within 24 h", "share of shifted slices"),
                ("delay", "Delay: median hours to the first alert", "hours after the shift"),
            ]
        ):
            ax = axes[0][k + 1]
            for i, rule in enumerate(rules):
                xs, vals, labels = [], [], []
                for j, shift in enumerate(shifts):
                    d = next(
                        (d for d in results.detections if d.shift == shift and d.rule == rule),
                        None,
                    )
                    if d is None:
                        continue
                    xs.append(j + (i - (len(rules) - 1) / 2) * width)
                    if metric == "power":
                        vals.append(d.detected / max(d.slices, 1))
                        labels.append(f"{d.detected}/{d.slices}")
                    else:
                        vals.append(d.median_delay_h or 0.0)
                        labels.append("-" if d.median_delay_h is None else "")
                ax.bar(xs, vals, width, color=colour[rule], label=rule if k == 0 else None)
                for x, v, lab in zip(xs, vals, labels, strict=True):
                    if lab:
                        ax.text(
                            x,
                            v + 0.01 * (24 if metric == "delay" else 1),
                            lab,
                            ha="center",
                            fontsize=5.5,
                            rotation=90 if metric == "power" else 0,
                        )
            ax.set_xticks(range(len(shifts)), [s.replace(" ", "\n", 1) for s in shifts], fontsize=7)
            ax.set_ylim(0, 1.25 if metric == "power" else 24)
            ax.set_ylabel(unit, fontsize=8)
            ax.set_title(title, fontsize=9, loc="left")
            ax.tick_params(labelsize=7)
        axes[0][1].legend(fontsize=6, loc="upper left", frameon=False)
        axes[0][2].text(
            0.98,
            0.97,
            "- = never alerted",
            ha="right",
            va="top",
            fontsize=6,
            transform=axes[0][2].transAxes,
        )
    fig.suptitle(f"Drift noise benchmark: {results.header}", fontsize=8, x=0.01, ha="left")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, pil_kwargs={"optimize": True})
    plt.close(fig)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("input", nargs="?", type=Path, help="benchmark output (default: stdin)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "drift-noise.png")
    args = parser.parse_args(argv)
    text = args.input.read_text("utf-8") if args.input else sys.stdin.read()
    path = draw(parse(text), args.out)
    print(f"{path}: {path.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
