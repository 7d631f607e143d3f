"""How the claim splitter decomposes answers, against claims an annotator wrote.

Usage::

    python benchmarks/claim_split.py tests/claim_split_cases.jsonl [--show]

Each case is ``{"question", "answer", "claims": [...]}``. An extracted claim matches a written
one when their word sets overlap (Jaccard) by at least 0.5, one to one, best pairs first.
Prints: cases split into exactly as many claims as written, claim recall (written claims
matched), claim precision (extracted claims matched), and with ``--show`` every case that
differs.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from groundwatch.judges.claims.extract import extract_claims


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9$%]+", text.lower()))


def _overlap(a: str, b: str) -> float:
    wa, wb = _words(a), _words(b)
    return len(wa & wb) / max(1, len(wa | wb))


def match(got: list[str], want: list[str], bar: float = 0.5) -> int:
    """One-to-one matches of extracted to written claims at Jaccard >= bar, greedy best first."""
    scored = sorted(
        ((_overlap(g, w), i, j) for i, g in enumerate(got) for j, w in enumerate(want)),
        reverse=True,
    )
    used_g: set[int] = set()
    used_w: set[int] = set()
    n = 0
    for s, i, j in scored:
        if s < bar:
            break
        if i in used_g or j in used_w:
            continue
        used_g.add(i)
        used_w.add(j)
        n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("file")
    ap.add_argument("--show", action="store_true")
    args = ap.parse_args()
    cases = [json.loads(line) for line in Path(args.file).read_text().splitlines() if line.strip()]
    exact = matched = n_got = n_want = 0
    for case in cases:
        got = extract_claims(case.get("question", ""), case["answer"])
        want = list(case["claims"])
        m = match(got, want)
        exact += int(len(got) == len(want) and m == len(want))
        matched += m
        n_got += len(got)
        n_want += len(want)
        if args.show and not (len(got) == len(want) and m == len(want)):
            print(json.dumps({"id": case.get("id"), "got": got, "want": want}))
    print(f"cases: {len(cases)}, split exactly as written: {exact} ({exact / len(cases):.3f})")
    print(f"claim recall: {matched / max(1, n_want):.3f} ({matched} of {n_want} written claims)")
    print(f"claim precision: {matched / max(1, n_got):.3f} ({matched} of {n_got} extracted claims)")


if __name__ == "__main__":
    main()
