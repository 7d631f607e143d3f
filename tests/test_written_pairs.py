"""The written training pairs load as a three-class source, held out by passage."""

from __future__ import annotations

from collections import Counter

from training.data import CONTRADICTED, NOT_FOUND, SUPPORTED, load_written, split_held_out


def test_written_pairs_load_by_passage_with_their_labels() -> None:
    pairs = load_written()
    assert len(pairs) == 1920
    labels = Counter(next(iter(p.target)) for p in pairs)
    assert labels == {SUPPORTED: 960, CONTRADICTED: 480, NOT_FOUND: 480}
    assert all(len(p.target) == 1 and p.source == "written" for p in pairs)
    train, held = split_held_out(pairs, 0.06)
    held_docs = {p.group for p in held}
    assert not held_docs & {p.group for p in train}  # no passage on both sides
    # 15 % of the 240 passages, not the 6 % of the large sources
    assert 0.10 <= len(held_docs) / 240 <= 0.20
