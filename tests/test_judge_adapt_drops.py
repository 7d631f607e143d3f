"""``groundwatch judge adapt`` says which labelled findings it left out and why (issue 47, item
9): with the real verifier judge, a finding it decides by code (an absent name), one whose
export has no trace text, and the rest counted to the end of the refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundwatch.cli.entry import main
from groundwatch.contract.case import (
    CaseOrigin,
    ClaimLabel,
    ContradictedClaim,
    EvalCase,
    EvidenceQuote,
)
from groundwatch.judges.adapt import DROP_BY_CODE, DROP_NO_TEXT

#: (question, passage, answer, label): the third is decided by code (DHL is in no passage)
LABELLED = [
    (
        "Can I ship express to Alaska?",
        "Express shipping is not available to Alaska and Hawaii for orders under 5 kg.",
        "Express shipping is available to Alaska and Hawaii for orders under 5 kg.",
        "right",
    ),
    (
        "What is the baggage allowance?",
        "Economy passengers may check one bag of up to 23 kg.",
        "Economy passengers may check one bag of up to 32 kg.",
        "right",
    ),
    (
        "Which carrier delivers parcels to Norway?",
        "Parcels to Norway are delivered by PostNord.",
        "Parcels to Norway are delivered by DHL.",
        "wrong",
    ),
    (
        "When does the contract renew?",
        "The contract renews on 1 May 2019.",
        "The contract renews on 1 May 2021.",
        "right",
    ),
]


def _case(i: int, question: str, passage: str, answer: str | None, label: str) -> EvalCase:
    return EvalCase(
        id=f"finding-t{i}",
        question=question,
        evidence=[EvidenceQuote(doc_id="d", quote=passage)] if answer else [],
        needs_review=True,
        origin=CaseOrigin(
            trace_id=f"t{i}",
            answer=answer,
            contradicted=[
                ContradictedClaim(
                    claim=answer or "The refund takes 30 days.",
                    claim_index=0,
                    label=ClaimLabel(label=label),  # type: ignore[arg-type]
                )
            ],
        ),
    )


@pytest.mark.slow
def test_judge_adapt_lists_what_it_left_out_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [_case(i, *row) for i, row in enumerate(LABELLED)]
    cases.append(_case(9, "How long do refunds take?", "", None, "wrong"))  # drop_text export
    export = tmp_path / "labelled.jsonl"
    export.write_text("".join(c.model_dump_json() + "\n" for c in cases))
    code = main(["judge", "adapt", str(export), "-o", str(tmp_path / "cal.json")])
    out = capsys.readouterr()
    assert code == 2
    # before: "2 right/wrong labels: at least 10 are needed", nothing about the other three
    assert "left out of the fit: 2 labelled findings" in out.out
    assert f"1 {DROP_BY_CODE}: t2: 'Parcels to Norway are delivered by DHL.'" in out.out
    assert f"1 {DROP_NO_TEXT}: t9" in out.out
    assert out.err.strip() == (
        "groundwatch judge adapt: 2 right/wrong labels: at least 10 are needed; of 5 findings "
        "labelled right or wrong, 3 reached the verdict model: 2 to fit, 1 held out to measure"
    )
