"""The value and short-answer figures of issue 44 on ``tests/values/`` pair files.

Usage::

    python benchmarks/values.py tests/values/dev/*.jsonl --backend verifier
    python benchmarks/values.py tests/values/blind/*.jsonl --backend embedded --json out.json

Each line: ``{question, premise, hypothesis, label, kind, note}``; ``kind`` is ``short`` (a
fragment or short answer, read with its question) or ``sentence`` (a sentence stating one or
more values). Every pair is judged as a trace by the whole judge (``benchmarks/pairs.py``).

Prints, overall and per kind:

* **false support**: the share of wrong answers (labelled contradicted or not found) that the
  judge calls supported (target <= 2 %);
* **contradicted recall**: of the pairs labelled contradicted, the share called contradicted
  (targets: >= 0.80 on sentences, the value conflicts; >= 0.60 on short answers);
* **contradicted precision**: of the pairs called contradicted, the share labelled so
  (target >= 0.95);
* **true support kept**: of the pairs labelled supported, the share called supported
  (target >= 0.85);
* 3-way accuracy and the confusion matrix.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pairs import VERDICTS, judge_pairs


def _share(hits: int, total: int) -> float | None:
    return hits / total if total else None


def value_figures(rows: Sequence[dict[str, Any]], verdicts: Sequence[str]) -> dict[str, Any]:
    """The issue-44 figures for ``rows`` judged ``verdicts``."""
    labels = [str(r["label"]) for r in rows]
    pairs = list(zip(labels, verdicts, strict=True))
    wrong = [v for lab, v in pairs if lab != "supported"]
    gold_con = [v for lab, v in pairs if lab == "contradicted"]
    called_con = [lab for lab, v in pairs if v == "contradicted"]
    gold_sup = [v for lab, v in pairs if lab == "supported"]
    return {
        "pairs": len(rows),
        "false_support": _share(sum(v == "supported" for v in wrong), len(wrong)),
        "false_support_n": sum(v == "supported" for v in wrong),
        "contradicted_recall": _share(sum(v == "contradicted" for v in gold_con), len(gold_con)),
        "contradicted_precision": _share(
            sum(lab == "contradicted" for lab in called_con), len(called_con)
        ),
        "contradicted_called": len(called_con),
        "true_support_kept": _share(sum(v == "supported" for v in gold_sup), len(gold_sup)),
        "three_way": _share(sum(lab == v for lab, v in pairs), len(pairs)),
        "confusion": {
            lab: dict(Counter(v for x, v in pairs if x == lab)) for lab in sorted(set(labels))
        },
    }


def _fmt(x: Any) -> str:
    return "n/a" if x is None else f"{x:.3f}" if isinstance(x, float) else str(x)


def report(rows: Sequence[dict[str, Any]], verdicts: Sequence[str]) -> dict[str, Any]:
    """Figures overall and per kind, printed and returned."""
    out: dict[str, Any] = {"all": value_figures(rows, verdicts)}
    for kind in sorted({str(r.get("kind", "")) for r in rows}):
        idx = [i for i, r in enumerate(rows) if str(r.get("kind", "")) == kind]
        out[kind] = value_figures([rows[i] for i in idx], [verdicts[i] for i in idx])
    keys = (
        "pairs",
        "false_support",
        "false_support_n",
        "contradicted_recall",
        "contradicted_precision",
        "contradicted_called",
        "true_support_kept",
        "three_way",
    )
    print(f"{'':<26}" + "".join(f"{k:>12}" for k in out))
    for key in keys:
        print(f"{key:<26}" + "".join(f"{_fmt(out[k][key]):>12}" for k in out))
    print("confusion (rows = label; cols = " + " / ".join(VERDICTS) + "):")
    for lab, row in out["all"]["confusion"].items():
        print(f"  {lab:<13} " + " ".join(f"{row.get(v, 0):>6}" for v in VERDICTS))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument("--backend", choices=["embedded", "verifier"], default="verifier")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument("--show", choices=["errors", "none"], default="none")
    args = parser.parse_args(argv)
    rows = [
        json.loads(line)
        for f in args.files
        for line in f.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    start = time.perf_counter()
    verdicts, _, name = judge_pairs(rows, args.backend)
    elapsed = time.perf_counter() - start
    print(f"{', '.join(f.name for f in args.files)}  ({name}; {len(rows) / elapsed:.1f} pairs/s)")
    out = report(rows, verdicts)
    if args.show == "errors":
        for r, v in zip(rows, verdicts, strict=True):
            if v != r["label"]:
                print(f"- [{r['label']} -> {v}] Q: {r['question']} | A: {r['hypothesis']}")
                print(f"    P: {r['premise']}")
    if args.json is not None:
        args.json.write_text(json.dumps({"judge": name, **out}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
