"""Slot-conflict sweep: which labelled claims do the code-checked value slots contradict?

Usage::

    .venv/bin/python benchmarks/slot_sweep.py                 # the four labelled suites
    .venv/bin/python benchmarks/slot_sweep.py tests/hard_cases.jsonl --list

For every labelled claim, the claim's slots (as the embedded judge builds them,
``ClaimTarget.build(claim).slots``) are compared with every sentence of every context passage,
as ``EmbeddedJudge._judge_claim`` calls it: ``compare_slots(claim, sentence, sentence_text,
passage)``. A claim counts as *slot-conflicted* when any sentence reports a conflict (the
contradiction signal; qualifier conflicts are not counted). This is an upper bound on what the
slots can push towards *contradicted*: the judge also needs the sentence to be about the claim.

``--about 0.5`` keeps only sentences holding half the claim's key words (a lexical stand-in
for the judge's "about the same thing" gate). Figures printed: per file and in total, supported claims with a conflict (false alarms: lower
is better) and contradicted claims with a conflict (caught: must not drop). ``--list`` names
the supported claims still conflicted and the first conflict found. Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from pathlib import Path

from groundwatch.judges.claims.extract import content_words, split_sentences
from groundwatch.judges.claims.target import ClaimTarget
from groundwatch.judges.values.agreement import compare_slots
from groundwatch.judges.values.slots import parse_slots

DEFAULT_FILES = (
    "tests/paraphrase_cases.jsonl",
    "tests/heldout2_cases.jsonl",
    "tests/hard_cases.jsonl",
    "tests/heldout_cases.jsonl",
)


@dataclass
class SweepFigures:
    """Counts for one file (or the total)."""

    supported: int = 0
    supported_conflicted: int = 0
    contradicted: int = 0
    contradicted_conflicted: int = 0
    false_alarms: list[tuple[str, str, str]] = field(default_factory=list)  # id, claim, conflict

    def add(self, other: SweepFigures) -> None:
        self.supported += other.supported
        self.supported_conflicted += other.supported_conflicted
        self.contradicted += other.contradicted
        self.contradicted_conflicted += other.contradicted_conflicted
        self.false_alarms.extend(other.false_alarms)


def first_conflict(claim: str, contexts: list[str], *, about: float) -> str | None:
    """The first slot conflict between ``claim`` and a sentence of ``contexts`` that holds at
    least ``about`` of the claim's key words (0.0: any sentence), if any."""
    target = ClaimTarget.build(claim)
    key = set(target.key)
    for passage in contexts:
        passage_slots = parse_slots(passage)
        for sentence in split_sentences(passage):
            if key and len(key & set(content_words(sentence))) < about * len(key):
                continue
            check = compare_slots(target.slots, parse_slots(sentence), sentence, passage_slots)
            if check.conflicts:
                return f"{check.conflicts[0]} | {sentence}"
    return None


def sweep_file(path: Path, about: float) -> SweepFigures:
    figures = SweepFigures()
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        contexts = [c if isinstance(c, str) else str(c.get("text", "")) for c in row["contexts"]]
        for labelled in row.get("label", {}).get("claims", []):
            verdict = labelled["verdict"]
            if verdict not in ("supported", "contradicted"):
                continue
            conflict = first_conflict(labelled["text"], contexts, about=about)
            if verdict == "supported":
                figures.supported += 1
                if conflict is not None:
                    figures.supported_conflicted += 1
                    figures.false_alarms.append((row["trace_id"], labelled["text"], conflict))
            else:
                figures.contradicted += 1
                figures.contradicted_conflicted += conflict is not None
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("files", nargs="*", default=list(DEFAULT_FILES))
    parser.add_argument("--list", action="store_true", help="name the conflicted true claims")
    parser.add_argument(
        "--about",
        type=float,
        default=0.0,
        help="only sentences holding this share of the claim's key words (0: every sentence)",
    )
    args = parser.parse_args(argv)
    total = SweepFigures()
    print(f"sentences compared: those with >= {args.about:.0%} of the claim's key words")
    print(f"{'file':32} {'supported: conflicted':>22} {'contradicted: conflicted':>25}")
    for name in args.files:
        figures = sweep_file(Path(name), args.about)
        total.add(figures)
        print(
            f"{Path(name).name:32} {figures.supported_conflicted:>10} of {figures.supported:<9}"
            f" {figures.contradicted_conflicted:>12} of {figures.contradicted:<9}"
        )
    print(
        f"{'total':32} {total.supported_conflicted:>10} of {total.supported:<9}"
        f" {total.contradicted_conflicted:>12} of {total.contradicted:<9}"
    )
    if args.list:
        for trace_id, claim, conflict in total.false_alarms:
            print(f"- {trace_id}: {claim}\n    {conflict}")


if __name__ == "__main__":
    main()
