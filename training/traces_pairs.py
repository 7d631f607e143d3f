"""Pairs from the labelled RAG traces (``training/traces/``): each gold claim against a window
of the passage it is most about, as the judge cuts passages.

The traces are the production shape (a question, two or three retrieved passages with
neighbouring cases and similar numbers, an assistant's reworded answer), which the written
pairs (one passage, one claim) and the NLI sources lack. A claim's label is relative to all of
its trace's passages; the pair shows one window, of the passage whose content words the claim
shares most (where a contradiction or a support sits, as a rule). A supported claim that needs
two passages, or a contradicted one whose value comes from the neighbouring passage, can make a
noisy pair: that is the price of one window.

The held-out domains of ``training/traces/README.md`` (``devapi``, ``property``) are never read.
Groups are per trace, so a trace's claims land on the same side of the 6 % split.
"""

from __future__ import annotations

import json
from pathlib import Path

from groundwatch.judges.text.words import content_words
from training.data import Pair, _target, windowed

__all__ = ["HELD_OUT_DOMAINS", "TRACES_DIR", "load_trace_pairs", "most_about"]

TRACES_DIR = Path(__file__).resolve().parent / "traces"
#: Never trained on: the traces' own held-out split (chosen before any figure was seen).
HELD_OUT_DOMAINS = frozenset({"devapi", "property"})


def most_about(claim: str, passages: list[str]) -> str:
    """The passage sharing the most content words with the claim (the first on ties)."""
    words = set(content_words(claim))
    return max(passages, key=lambda p: len(words & set(content_words(p))))


def load_trace_pairs(root: Path = TRACES_DIR) -> list[Pair]:
    """One pair per gold claim of every trace outside :data:`HELD_OUT_DOMAINS`."""
    out: list[Pair] = []
    for path in sorted(root.glob("*.jsonl")):
        if path.stem in HELD_OUT_DOMAINS:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            passages = [str(c["text"]) for c in row["contexts"]]
            for claim in row["label"]["claims"]:
                text = str(claim["text"])
                out.append(
                    Pair(
                        windowed(most_about(text, passages), text),
                        text,
                        _target(str(claim["verdict"])),
                        "traces",
                        f"traces:{row['trace_id']}",
                    )
                )
    return out
