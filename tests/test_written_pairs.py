"""The written training pairs load as a three-class source, held out by passage."""

from __future__ import annotations

from collections import Counter

from training.data import (
    CONTRADICTED,
    FIRST_WRITTEN,
    NOT_FOUND,
    SUPPORTED,
    load_written,
    split_held_out,
)


def test_written_pairs_load_by_passage_with_their_labels() -> None:
    pairs = load_written()
    assert len(pairs) == 3360
    labels = Counter(next(iter(p.target)) for p in pairs)
    assert labels == {SUPPORTED: 1680, CONTRADICTED: 840, NOT_FOUND: 840}
    assert all(len(p.target) == 1 and p.source == "written" for p in pairs)
    train, held = split_held_out(pairs, 0.06)
    held_docs = {p.group for p in held}
    assert not held_docs & {p.group for p in train}  # no passage on both sides
    # 15 % of the 420 passages, not the 6 % of the large sources
    assert 0.10 <= len(held_docs) / 420 <= 0.20


def test_a_recipe_reads_only_the_written_files_it_names() -> None:
    """The recipes of sessions 7-9 read the first six files; later files change nothing there."""
    first = load_written(sets=FIRST_WRITTEN)
    assert len(first) == 1920
    assert {p.group.split(":")[1][:2] for p in first} == set(FIRST_WRITTEN)
    later = load_written(sets=("wg",))
    assert len(later) == 80
    assert {p.group for p in later}.isdisjoint({p.group for p in first})
