"""Stage 2 of verifier v2: replayed stage-1 pairs keep stage 1's split; distractor windows keep
their origin's label and group, and never borrow a sentence of their own document."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from training.data import SUPPORTED, UNSUPPORTED, Pair, split_held_out
from training.stage2 import distractor_pairs

# The shared data beside the checkout, or where this workplace keeps it (a clone elsewhere).
DATA = next(
    (
        p
        for p in (
            Path(__file__).resolve().parents[2] / "shared/data/verifier",
            Path("/work/shared/data/verifier"),
        )
        if p.exists()
    ),
    Path(__file__).resolve().parents[2] / "shared/data/verifier",
)


def _doc(n: int) -> list[Pair]:
    group = f"written:d{n}" if n % 2 else f"d{n}"  # written passages are held out at 15 %
    premise = (
        f"Document {n} says the gate opens at {n} o'clock every weekday. "
        f"Visitors of document {n} must show a ticket at the door. "
        f"Parking for document {n} costs {n} dollars a day."
    )
    return [
        Pair(premise, f"The gate of {n} opens at {n}.", frozenset({SUPPORTED}), "written", group),
        Pair(premise, f"Parking of {n} is free.", UNSUPPORTED, "summedits", group),
    ]


def test_distractor_windows_keep_label_and_group_and_add_foreign_sentences() -> None:
    pairs = [p for n in range(20) for p in _doc(n)]
    out = distractor_pairs(pairs, random.Random(3))
    assert len(out) == len(pairs)
    for orig, copy in zip(pairs, out, strict=True):
        assert copy.source == "distract"
        assert (copy.claim, copy.target, copy.group) == (orig.claim, orig.target, orig.group)
        assert len(copy.premise) > len(orig.premise)
        added = copy.premise
        for sent in orig.premise.split(". "):
            assert sent.rstrip(".") in copy.premise  # every original sentence is still there
            added = added.replace(sent.rstrip("."), "")
        number = orig.group.rsplit(":", 1)[-1][1:]
        assert f"document {number} " not in added.lower()  # nothing of its own document


def test_distractor_copies_land_on_their_origins_side_of_the_split() -> None:
    pairs = [p for n in range(200) for p in _doc(n)]
    out = distractor_pairs(pairs, random.Random(5))
    train, held = split_held_out(pairs + out, 0.06)
    held_groups = {p.group for p in held}
    assert any(g.startswith("written:") for g in held_groups)
    assert not held_groups & {p.group for p in train}  # a written passage's copies stay out


@pytest.mark.skipif(not (DATA / "train/natural_nli.jsonl").exists(), reason="shared data absent")
def test_replay_holds_out_everything_stage1_held_out() -> None:
    from training.data import NATURAL_HELD_OUT, load_natural, split_by_group
    from training.stage2 import replay_pairs

    limit = 3000
    stage1_train, stage1_held = split_by_group(load_natural(DATA, limit), NATURAL_HELD_OUT)
    replay = replay_pairs(DATA)
    _, stage2_held = split_held_out(replay, 0.06)
    held_keys = {(p.premise, p.claim) for p in stage2_held}
    assert {(p.premise, p.claim) for p in stage1_held} <= held_keys
    assert all(p.source == "replay" for p in replay)
    assert len(stage1_train) + len(stage1_held) <= len(replay)
