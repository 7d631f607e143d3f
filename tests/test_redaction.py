"""PII redaction: detectors, modes, records, configuration errors and metrics."""

from __future__ import annotations

import random
import threading
import uuid
from datetime import UTC, datetime

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from pydantic import SecretStr

from groundwatch.contract.record import ClaimResult, EvaluationRecord, Evidence
from groundwatch.evaluation.pii_detectors import iban_valid, luhn_valid
from groundwatch.evaluation.redaction import (
    PiiRedactor,
    RedactionCollector,
    RedactionConfigError,
    build_redactor,
)
from groundwatch.sections.pipeline import RedactionSettings
from groundwatch.state.stores import Redactor


@pytest.fixture
def mask() -> PiiRedactor:
    return PiiRedactor(mode="mask")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Mail jane.doe+x@example.co.uk now.", "Mail [EMAIL] now."),
        ("a@b.io, B_C@sub.example.org", "[EMAIL], [EMAIL]"),
        ("Call +44 20 7946 0958 today", "Call [PHONE] today"),
        ("+1 (555) 123-4567", "[PHONE]"),
        ("+4915112345678.", "[PHONE]."),
        ("(555) 123-4567 or 555-123-4567 or 555.123.4567", "[PHONE] or [PHONE] or [PHONE]"),
        (
            "DE 030 1234567, FR 06 12 34 56 78, UK 020 7946 0958",
            "DE [PHONE], FR [PHONE], UK [PHONE]",
        ),
        ("call me at 5551234567 please", "call me at [PHONE] please"),
        ("Phone: 0612345678", "Phone: [PHONE]"),
        ("card 4111 1111 1111 1111 ok", "card [CARD] ok"),
        ("4111-1111-1111-1111", "[CARD]"),
        ("pay with 5500005555555559.", "pay with [CARD]."),
        ("378282246310005 (amex)", "[CARD] (amex)"),
        ("IBAN DE89 3704 0044 0532 0130 00 AND more", "IBAN [IBAN] AND more"),
        ("GB82WEST12345698765432", "[IBAN]"),
        ("host 192.168.1.20.", "host [IP]."),
        ("v6 2001:db8::8a2e:370:7334, ::1 and fe80::1%eth0", "v6 [IP], [IP] and [IP]"),
        ("::ffff:192.0.2.1", "[IP]"),
    ],
)
def test_detects(mask: PiiRedactor, text: str, expected: str) -> None:
    assert mask.redact_text(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "In 2019 the fee rose 12.5% to $1,234.56.",
        "Order id 123456789012 shipped; ticket #4411-2231.",
        "Invoice 2024-01-15, total 1500.00 EUR, due 15/02/2024.",
        "On 01.02.2024 10 people came at 10:30:45.",
        "Version 1.2.3, ratio 1:2:3, std::vector, a::b is not an address? yes",
        "Population 8 000 000 and 1 234 567 890 units; 0.25 0.50 0.75",
        "Not a card: 4111 1111 1111 1112. Not an IBAN: DE89 3704 0044 0532 0130 01.",
        "Years 1999-2004 and 2010 to 2020; 3+4=7; 100 km; 20 mg",
        # digits inside a longer word (a hex id) are no card: 5500005555555559 is Luhn-valid
        "ref a5500005555555559f and x4111111111111111",
        # the shape and check digits of an IBAN, but not the length or layout of its country
        "be64 2c3d 4e5f 6a7b and fa402c3d4e5f6a7b",
        "",
    ],
)
def test_leaves_non_pii_alone(mask: PiiRedactor, text: str) -> None:
    assert mask.redact_text(text) == text


def test_checksums() -> None:
    assert luhn_valid("4111111111111111")
    assert not luhn_valid("4111111111111112")
    assert not luhn_valid("41a1")
    assert iban_valid("DE89370400440532013000")
    assert not iban_valid("DE89370400440532013001")
    assert not iban_valid("DE8937")


def test_kinds_subset() -> None:
    only_email = PiiRedactor(mode="mask", kinds=["email"])
    text = "x@example.com +44 20 7946 0958"
    assert only_email.redact_text(text) == "[EMAIL] +44 20 7946 0958"
    assert only_email.kinds == ["email"]


def test_hash_mode_is_keyed_and_joinable() -> None:
    a = PiiRedactor(mode="hash", hash_key=b"key-a")
    b = PiiRedactor(mode="hash", hash_key=b"key-b")
    first = a.redact_text("Jane@Example.com")
    second = a.redact_text("jane@example.com")
    assert first == second
    assert first is not None
    assert first.startswith("[EMAIL:")
    assert len(first) == len("[EMAIL:]") + 12
    assert "jane" not in first
    assert b.redact_text("jane@example.com") != first
    # the same number written two ways is the same person
    assert a.redact_text("+44 20 7946 0958") == a.redact_text("+442079460958")
    assert a.redact_text("4111 1111 1111 1111") == a.redact_text("4111-1111-1111-1111")
    assert a.redact_text("x@example.com") != a.redact_text("y@example.com")


def test_hash_mode_without_key_fails_at_start() -> None:
    with pytest.raises(RedactionConfigError, match="HASH_KEY"):
        build_redactor(RedactionSettings(mode="hash"))


@pytest.mark.parametrize(
    ("patterns", "match"),
    [
        ({"ticket": "TICKET-(\\d+"}, "not a valid regular expression"),
        ({"bad name": "x"}, "pattern name"),
        ({"email": "x"}, "clashes"),
        ({"Emp": "E\\d+", "emp": "X\\d+"}, "differ ignoring case"),
    ],
)
def test_bad_patterns_fail_at_start(patterns: dict[str, str], match: str) -> None:
    with pytest.raises(RedactionConfigError, match=match):
        build_redactor(RedactionSettings(patterns=patterns))


def test_unknown_kind_fails_at_start() -> None:
    with pytest.raises(RedactionConfigError, match="unknown redaction kinds"):
        build_redactor(RedactionSettings(kinds=["email", "ssn"]))


def test_operator_patterns() -> None:
    redactor = build_redactor(
        RedactionSettings(patterns={"employee_id": r"\bEMP-\d{6}\b", "empty": r"x*"})
    )
    out = redactor.redact_text("EMP-123456 wrote to a@b.io")
    assert out == "[EMPLOYEE_ID] wrote to [EMAIL]"
    assert redactor.counts()["employee_id"] == 1
    assert redactor.counts()["empty"] == 0  # empty matches are ignored


def test_off_mode_changes_nothing() -> None:
    redactor = PiiRedactor(mode="off")
    assert redactor.redact_text("a@b.io") == "a@b.io"
    record = _record()
    assert redactor.redact_record(record) == record


def _record() -> EvaluationRecord:
    evidence = Evidence(context_index=0, context_id="p1", text="Reach jane@example.com")
    return EvaluationRecord(
        trace_id="t-1",
        evaluated_at=datetime(2024, 1, 1, tzinfo=UTC),
        metric_version="fake/1",
        status="scored",
        faithfulness=0.5,
        claims=[
            ClaimResult(
                text="Call +44 20 7946 0958.",
                verdict="contradicted",
                score=0.8,
                evidence=evidence,
                reason="slot phone: +44 20 7946 0958 vs other",
            ),
            ClaimResult(text="It is fine.", verdict="supported", score=0.9),
        ],
        contradicted_claims=1,
        attributes={"tenant": "acme", "user": "bob@example.com"},
    )


def test_redact_record_mask_copies() -> None:
    record = _record()
    out = PiiRedactor(mode="mask").redact_record(record)
    assert out.claims[0].text == "Call [PHONE]."
    assert out.claims[0].evidence is not None
    assert out.claims[0].evidence.text == "Reach [EMAIL]"
    assert out.claims[0].reason == "slot phone: [PHONE] vs other"
    assert out.attributes == {"tenant": "acme", "user": "[EMAIL]"}
    assert out.claims[0].score == 0.8
    assert out.claims[0].verdict == "contradicted"
    assert out.faithfulness == 0.5
    # the original is untouched: scoring and callers still hold the real text
    assert record.claims[0].text == "Call +44 20 7946 0958."
    assert record.claims[0].evidence is not None
    assert record.claims[0].evidence.text == "Reach jane@example.com"


def test_drop_text_mode() -> None:
    redactor = build_redactor(RedactionSettings(mode="drop_text"))
    assert redactor.redact_text("anything at all") is None
    out = redactor.redact_record(_record())
    assert [c.text for c in out.claims] == ["", ""]
    assert out.claims[0].evidence is not None
    assert out.claims[0].evidence.text == ""
    assert out.claims[0].evidence.context_id == "p1"
    assert out.claims[0].evidence.context_index == 0
    assert [c.verdict for c in out.claims] == ["contradicted", "supported"]
    assert [c.score for c in out.claims] == [0.8, 0.9]
    assert out.claims[0].reason == "slot phone: [PHONE] vs other"
    assert "example.com" not in out.model_dump_json()
    assert redactor.counts()["dropped_text"] >= 3


def test_is_a_redactor() -> None:
    assert isinstance(build_redactor(RedactionSettings()), Redactor)


def test_collector_exports_counts_by_kind() -> None:
    redactor = PiiRedactor(mode="mask")
    redactor.redact_text("a@b.io, c@d.io and 192.168.0.1")
    registry = CollectorRegistry()
    registry.register(RedactionCollector(redactor))
    text = generate_latest(registry).decode()
    assert 'groundwatch_redactions_total{kind="email"} 2.0' in text
    assert 'groundwatch_redactions_total{kind="ip"} 1.0' in text
    assert 'groundwatch_redactions_total{kind="card"} 0.0' in text
    assert registry.get_sample_value("groundwatch_redactions_total", {"kind": "email"}) == 2.0


def test_counts_are_thread_safe() -> None:
    redactor = PiiRedactor(mode="mask", kinds=["email"])

    def work() -> None:
        for _ in range(200):
            redactor.redact_text("a@b.io")

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert redactor.counts()["email"] == 1600


def test_settings_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from groundwatch.settings import Settings

    monkeypatch.setenv("GROUNDWATCH_REDACTION__MODE", "hash")
    monkeypatch.setenv("GROUNDWATCH_REDACTION__HASH_KEY", "s3cret-key")
    monkeypatch.setenv("GROUNDWATCH_REDACTION__PATTERNS", '{"ticket": "TCK-\\\\d+"}')
    settings = Settings()
    redactor = build_redactor(settings.redaction)
    out = redactor.redact_text("TCK-42 from a@b.io")
    assert out is not None
    assert out.startswith("[TICKET:")
    assert "a@b.io" not in out
    assert isinstance(settings.redaction.hash_key, SecretStr)


def test_kinds_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from groundwatch.settings import Settings

    monkeypatch.setenv("GROUNDWATCH_REDACTION__KINDS", "email, ip")
    redactor = build_redactor(Settings().redaction)
    assert redactor.kinds == ["email", "ip"]
    assert redactor.redact_text("a@b.io +44 20 7946 0958") == "[EMAIL] +44 20 7946 0958"


def test_long_input_is_fast(mask: PiiRedactor) -> None:
    import time

    hostile = ("1-" * 10_000) + ("a" * 20_000) + ("@" * 5_000) + (":" * 5_000) + ("0 " * 10_000)
    start = time.perf_counter()
    mask.redact_text(hostile)
    assert time.perf_counter() - start < 2.0


# Mutation pass (docs/mutation.md): each test below kills sampled mutants of
# evaluation/redaction.py that the redaction tests let through.


def _one_claim(claim: str, evidence: str, reason: str) -> EvaluationRecord:
    return EvaluationRecord(
        trace_id="t-1",
        evaluated_at=datetime(2024, 1, 1, tzinfo=UTC),
        metric_version="fake/1",
        status="scored",
        faithfulness=0.5,
        claims=[
            ClaimResult(
                text=claim,
                verdict="contradicted",
                score=0.8,
                evidence=Evidence(context_index=0, context_id="p1", text=evidence),
                reason=reason,
            )
        ],
        contradicted_claims=1,
    )


def test_reason_fragments_are_masked_and_counted() -> None:
    redactor = PiiRedactor(mode="mask")
    record = _one_claim(
        "Charged to card 4111 1111 1111 1111.",
        "The card on file is 4242 4242 4242 4242.",
        "number mismatch: 4111 vs 4242; digits 1111 differ",
    )
    reason = redactor.redact_record(record).claims[0].reason
    assert reason == "number mismatch: [CARD] vs [CARD]; digits [CARD] differ"
    assert redactor.counts()["card"] == 5  # the two numbers and the three fragments


def test_two_character_fragments_are_masked_too() -> None:
    redactor = PiiRedactor(mode="mask")
    record = _one_claim("Write to jo@xy.io today.", "Write to al@xy.io today.", "to: jo vs al")
    assert redactor.redact_record(record).claims[0].reason == "to: [EMAIL] vs [EMAIL]"


def test_overlapping_matches_longest_first_then_pattern_order() -> None:
    longest = PiiRedactor(mode="mask", patterns={"short": r"\d{4}", "long": r"\d{8}"})
    assert longest.redact_text("id: 12345678 ok") == "id: [LONG] ok"
    first = PiiRedactor(mode="mask", patterns={"zeta": r"\d{6}", "alpha": r"\d{6}"})
    assert first.redact_text("id: 123456 ok") == "id: [ZETA] ok"


def test_opaque_random_ids_are_never_redacted() -> None:
    # W3C trace ids, span ids and UUIDs hold no personal data; a run of digits inside one may
    # pass Luhn or mod-97 by chance (about 1 in 300 trace ids did), and a redacted trace id no
    # longer joins with the assistant's own logs.
    rng = random.Random(5)
    redactor = PiiRedactor(mode="mask")
    ids = [format(rng.getrandbits(128), "032x") for _ in range(5000)]
    ids += [format(rng.getrandbits(64), "016x") for _ in range(5000)]
    ids += [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(5000)]
    ids.append("0d6f041a55d374f01733428503549ccb")  # a trace id that was redacted as a card
    assert [v for v in ids if redactor.redact_id(v) != v] == []
    # an id that does hold a card number or an IBAN still is
    assert redactor.redact_id("card=4111111111111111").startswith("redacted:")
    assert redactor.redact_id("iban:DE89370400440532013000").startswith("redacted:")


def test_hash_mode_ids_are_keyed_digests() -> None:
    value = "user=jane@example.com"
    keyed = PiiRedactor(mode="hash", hash_key=b"k" * 32)
    digest = keyed.redact_id(value)
    assert digest.startswith("redacted:")
    assert keyed.redact_id(value) == digest  # stable: dedup and joins keep working
    assert PiiRedactor(mode="hash", hash_key=b"j" * 32).redact_id(value) != digest
    assert PiiRedactor(mode="mask").redact_id(value) != digest


def test_drop_text_mode_exports_a_zero_count_before_the_first_drop() -> None:
    assert build_redactor(RedactionSettings(mode="drop_text")).counts()["dropped_text"] == 0


def test_pattern_named_like_the_dropped_text_counter_fails_at_start() -> None:
    with pytest.raises(RedactionConfigError, match="clashes"):
        PiiRedactor(patterns={"dropped_text": r"\d{6}"})
    assert PiiRedactor(patterns={"acct": r"\d{6}"}).kinds[0] == "acct"
