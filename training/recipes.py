"""The data of a training recipe: the mixes (most pairs per source) and the pairs they draw.

Usage::

    train, held = build_data(args)    # args: the recipe's command line (add_written_args)

A recipe names a mix (``--mix stage2``, or ``source=cap,...``); :func:`build_data` loads the
sources (:mod:`training.data`), adds synthetic pairs (:mod:`training.synthetic`), negation twins
(:mod:`training.negation`), the written and trace pairs and stage 2's windows
(:mod:`training.stage2`) as the mix asks, keeps a held-out split by document, and draws the
training pairs. :mod:`training.train`, :mod:`training.export` and :mod:`training.calibrate`
read it, so the three rebuild (and find in the cache) the same data.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import random
from pathlib import Path

from groundwatch.judges.claims.extract import split_sentences
from training.data import (
    CONTRADICTED,
    FIRST_WRITTEN,
    SUPPORTED,
    WRITTEN_DIR,
    Pair,
    load_sources,
    load_written,
    split_held_out,
)
from training.negation import negation_twins
from training.stage2 import (
    DISTRACT_FROM,
    STAGE2_MIX,
    STAGE2_TRACES_MIX,
    distractor_pairs,
    replay_pairs,
)
from training.synthetic import synthesize

__all__ = [
    "DEFAULT_MIX",
    "HARD_NEGATIVE_MIX",
    "NEGATION_MIX",
    "SWAP_MIX",
    "add_written_args",
    "build_data",
    "negation_pairs",
]

DEFAULT_MIX = (
    "fever=12500,summedits=5600,halueval_summarization=4600,halueval_dialogue=1800,wice=2000,"
    "syn_contra=6000,syn_contra_sent=5000,syn_restate=7000,syn_other=2500,syn_add=3000,"
    "syn_sibling=0,syn_drop=0,syn_swap=0"
)
# Stage 3: fewer one-edit contradictions; related-but-unstated sentences (not found) and
# entailment by deletion (supported) so a near copy is not read as a contradiction.
HARD_NEGATIVE_MIX = (
    "fever=12500,summedits=5600,halueval_summarization=4600,halueval_dialogue=1800,wice=2000,"
    "syn_contra=3500,syn_contra_sent=3000,syn_restate=7000,syn_other=2500,syn_add=3000,"
    "syn_sibling=6000,syn_drop=4000,syn_swap=0"
)
# Stage 4: one common word swapped for another document's word is unsupported ("a boy is
# sitting" does not support "a girl is sitting"): near copies are not support either.
SWAP_MIX = HARD_NEGATIVE_MIX.replace("syn_swap=0", "syn_swap=5000")
# Stage 5 (from stage 2's weights): negation-equivalent twins ("unavailable" = "not available"
# supported beside "available" contradicted), so a negation is never a cue alone; the natural
# sources and the other synthetic shapes in stage 1's proportions, a third as many.
NEGATION_MIX = (
    "fever=3500,summedits=1800,halueval_summarization=1800,halueval_dialogue=700,wice=800,"
    "syn_contra=900,syn_contra_sent=900,syn_restate=1800,syn_other=600,syn_add=600,"
    "syn_sibling=600,syn_drop=400,syn_swap=0,syn_neg_same=5000,syn_neg_opposite=5000"
)


def negation_pairs(pairs: list[Pair], seed: int) -> list[Pair]:
    """Every premise sentence an equivalence applies to: its supported restatement with a
    negation and its contradicted twin (:mod:`training.negation`); own random stream."""
    rng = random.Random(f"negation-{seed}")
    out: list[Pair] = []
    seen: set[str] = set()
    for p in pairs:
        if p.premise in seen:
            continue
        seen.add(p.premise)
        for sent in split_sentences(p.premise):
            if not 6 <= len(sent.split()) <= 40:
                continue
            found = negation_twins(sent, rng)
            if found is None:
                continue
            same, opposite = found
            out.append(Pair(p.premise, same, frozenset({SUPPORTED}), "syn_neg_same", p.group))
            out.append(
                Pair(p.premise, opposite, frozenset({CONTRADICTED}), "syn_neg_opposite", p.group)
            )
    return out


def add_written_args(ap: argparse.ArgumentParser) -> None:
    """The written-pair options of a recipe; export and calibrate take them too, so they rebuild
    (and find in the cache) the same data the recipe trained on."""
    ap.add_argument(
        "--written-repeat", type=int, default=1, help="times each written training pair is seen"
    )
    ap.add_argument(
        "--written-sets",
        default=",".join(FIRST_WRITTEN),
        help="written files to read (stems, comma-separated, or 'all'); the default is the "
        "first six, which the recipes of sessions 7-9 read",
    )


def build_data(args: argparse.Namespace) -> tuple[list[Pair], list[Pair]]:
    """The training and held-out pairs of a recipe; cached in ``build/cache`` by every input
    (cutting windows for ~50,000 pairs takes minutes, and export and calibrate rebuild them)."""
    inputs = {
        k: str(getattr(args, k, ""))
        for k in ("data", "halueval_wheel", "halueval_limit", "restate_share", "held_out", "mix",
                  "seed", "written_sets", "written_repeat")
    }  # fmt: skip
    inputs["written_files"] = ",".join(
        f"{p.name}:{p.stat().st_size}" for p in sorted(WRITTEN_DIR.glob("*.jsonl"))
    )
    inputs["code"] = ",".join(
        hashlib.sha256(Path(f).read_bytes()).hexdigest()[:12]
        for f in sorted(Path(__file__).parent.glob("[dnrst]*.py"))  # data, negation, recipes, ...
    )
    key = hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:16]
    cache = Path("build/cache") / f"data-{key}.pkl"
    if cache.exists():
        with cache.open("rb") as fh:
            cached: tuple[list[Pair], list[Pair]] = pickle.load(fh)  # noqa: S301 - our own file
        return cached
    built = _build_data(args)
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_suffix(".tmp")
    with tmp.open("wb") as fh:
        pickle.dump(built, fh)
    tmp.replace(cache)
    return built


def _build_data(args: argparse.Namespace) -> tuple[list[Pair], list[Pair]]:
    rng = random.Random(args.seed)
    wheel = Path(args.halueval_wheel) if args.halueval_wheel else None
    pairs = load_sources(Path(args.data), wheel, args.halueval_limit, args.seed)
    sentences = []
    for p in pairs:
        sents = [s for s in split_sentences(p.premise) if 6 <= len(s.split()) <= 40]
        if sents and rng.random() < args.restate_share:
            sentences.append((p.premise, rng.choice(sents), p.group))
    supported = [p for p in pairs if p.target == frozenset({SUPPORTED})]
    mix = {
        "stage2": STAGE2_MIX,
        "stage2-traces": STAGE2_TRACES_MIX,
        "hard-negatives": HARD_NEGATIVE_MIX,
        "swaps": SWAP_MIX,
        "negation-twins": NEGATION_MIX,
    }.get(args.mix, args.mix)
    caps = {k: int(v) for k, v in (item.split("=") for item in mix.split(","))}
    twins = negation_pairs(pairs, args.seed) if caps.get("syn_neg_same", 0) > 0 else []
    pairs += synthesize(supported, sentences, rng) + twins
    # The written pairs only for a recipe that names them (earlier recipes stay as they were).
    if caps.get("written", 0) > 0:
        named = str(getattr(args, "written_sets", ",".join(FIRST_WRITTEN)))
        sets = None if named == "all" else tuple(named.split(","))
        pairs += load_written(sets=sets)
    if caps.get("traces", 0) > 0:  # the labelled RAG traces (training.traces_pairs)
        from training.traces_pairs import load_trace_pairs

        pairs += load_trace_pairs()
    # Stage 2 of verifier v2 (training.stage2): distractor windows, then stage-1 replay.
    if caps.get("distract", 0) > 0:
        pairs += distractor_pairs([p for p in pairs if p.source in DISTRACT_FROM], rng)
    if caps.get("replay", 0) > 0:
        pairs += replay_pairs(Path(args.data))
    train, held = split_held_out(pairs, args.held_out)
    # A source the mix leaves out (cap 0) is out of the held-out split too, so a recipe's
    # checkpoint choice and calibration see exactly the data they saw when it was written.
    held = [p for p in held if caps.get(p.source, 1) > 0]
    by_source: dict[str, list[Pair]] = {}
    for p in train:
        by_source.setdefault(p.source, []).append(p)
    drawn: list[Pair] = []
    for source, items in sorted(by_source.items()):
        if caps.get(source) == 0:
            continue  # left out: no draw from the shared stream (earlier recipes stay as they were)
        rng.shuffle(items)
        repeat = getattr(args, "written_repeat", 1) if source == "written" else 1
        drawn += items[: caps.get(source, len(items))] * repeat
    rng.shuffle(drawn)
    return drawn, held
