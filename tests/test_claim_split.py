"""Claim splitting against claims an annotator wrote (tests/claim_split_cases.jsonl, written
blind before the splitter was changed), and the shapes it must keep whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.claim_split import match
from groundwatch.judges.claims.extract import extract_claims

CASES = Path(__file__).with_name("claim_split_cases.jsonl")


def test_split_cases_recall_and_precision() -> None:
    rows = [json.loads(line) for line in CASES.read_text().splitlines() if line.strip()]
    matched = got_n = want_n = 0
    for row in rows:
        got = extract_claims(row["question"], row["answer"])
        matched += match(got, row["claims"])
        got_n += len(got)
        want_n += len(row["claims"])
    # before the change: recall 0.624, precision 0.912; after: 0.923, 0.991
    assert matched / want_n >= 0.90
    assert matched / got_n >= 0.97


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        (
            "Back up the database, stop the web workers, and then run the migration script.",
            ["Back up the database.", "Stop the web workers.", "Run the migration script."],
        ),
        (
            "The Team plan costs $20 a month, includes 5 seats and can be cancelled at any time.",
            [
                "The Team plan costs $20 a month.",
                "The Team plan includes 5 seats.",
                "The Team plan can be cancelled at any time.",
            ],
        ),
        (
            "The N12 runs every 30 minutes after midnight, stops at the central station.",
            [
                "The N12 runs every 30 minutes after midnight.",
                "The N12 stops at the central station.",
            ],
        ),
        (
            "Because a project can have two live keys, generate a second key, then revoke the old one.",
            [
                "Because a project can have two live keys, generate a second key.",
                "Revoke the old one.",
            ],
        ),
    ],
)
def test_verb_phrases_become_claims(answer: str, claims: list[str]) -> None:
    assert extract_claims("", answer) == claims


@pytest.mark.parametrize(
    "answer",
    [
        "The kit includes cables, batteries and screws for mounting.",
        "On the Business tier, logs are retained for 400 days.",
        "Kestrel University began in 1868 as a school of mines, funded by Josiah Harland.",
        "The regulation applies from 1 January 2026, although Articles 4 and 7 apply earlier.",
        "Bring your passport and boarding pass to the gate.",
        "The removal of Octavius, who had vetoed the bill, was attacked as unconstitutional.",
        # a bare noun-or-verb word after a singular verb is the object's second noun, not a
        # second verb ("covers the gym and pools at ..." would be one)
        "The pass covers the gym and pool at all three centres.",
        "The fee includes the deposit and cover for the first month.",
    ],
)
def test_lists_modifiers_and_relative_clauses_stay_whole(answer: str) -> None:
    assert extract_claims("", answer) == [answer]
