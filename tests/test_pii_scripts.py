"""PII written in other scripts is redacted (issue 45, item 8): card numbers and phones in
Arabic-Indic or Devanagari digits, dash variants (U+2010 hyphen, U+2011, en dash), an e-mail with
an ideographic or full-width dot, or with a zero-width character inside. Detectors read a folded
text; the replacement is made in the text as written, so the rest of it is unchanged.

The end-to-end test goes through a real HTTP server (``serve_app`` in a thread) and a real Redis:
findings, the cases export, the result records, the slice labels on ``/metrics`` and a label
note, and then every key and value Redis holds.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from groundwatch.api.app import create_app
from groundwatch.contract.record import EvaluationRecord
from groundwatch.evaluation.pii_detectors import fold
from groundwatch.evaluation.redaction import PiiRedactor
from groundwatch.runtime import Runtime
from groundwatch.settings import Settings
from groundwatch.state.redis_store import redis_client
from tests.builders import build_settings, build_trace
from tests.fakes import FakeJudge
from tests.infra import RedisServer, free_port, wait_port

TOKEN = "tok-pii-scripts-7c41e09b2a5d"
AUTH = {"Authorization": f"Bearer {TOKEN}"}

ARABIC_CARD = "٤١١١ ١١١١ ١١١١ ١١١١"  # 4111 1111 1111 1111 in Arabic-Indic digits
DEVANAGARI_CARD = "५५५५ ५५५५ ५५५५ ४४४४"  # 5555 5555 5555 4444
ARABIC_PHONE = "+٤٤ ٢٠ ٧٩٤٦ ٠٩٥٨"  # +44 20 7946 0958
HYPHEN_PHONE = "555\u2010123\u20104567"  # U+2010 HYPHEN
NB_HYPHEN_CARD = "4111\u20111111\u20111111\u20111111"  # U+2011 NON-BREAKING HYPHEN
EN_DASH_PHONE = "+44 20\u20137946\u20130958"  # U+2013 EN DASH
DEVANAGARI_PHONE = "+४४ २० ७९४६ ०९५८"
IDEOGRAPHIC_DOT_MAIL = "jane@example\u3002com"  # IDNA label separator
HALFWIDTH_DOT_MAIL = "jane@example\uff61com"
ZERO_WIDTH_MAIL = "jane\u200b.doe@example.com"  # ZERO WIDTH SPACE
JOINER_CARD = "4111\u20601111\u20601111\u20601111"  # WORD JOINER between the groups

CASES = [
    (f"card {ARABIC_CARD} ok", "card [CARD] ok"),
    (f"card {DEVANAGARI_CARD}", "card [CARD]"),
    (f"call {ARABIC_PHONE} now", "call [PHONE] now"),
    (f"call {HYPHEN_PHONE}", "call [PHONE]"),
    (f"card {NB_HYPHEN_CARD}.", "card [CARD]."),
    (f"tel {EN_DASH_PHONE}", "tel [PHONE]"),
    (f"phone {DEVANAGARI_PHONE}", "phone [PHONE]"),
    (f"mail {IDEOGRAPHIC_DOT_MAIL}", "mail [EMAIL]"),
    (f"mail {HALFWIDTH_DOT_MAIL}", "mail [EMAIL]"),
    (f"mail {ZERO_WIDTH_MAIL} please", "mail [EMAIL] please"),
    (f"card {JOINER_CARD}", "card [CARD]"),
    ("mail jane@bu\u0308cher.de now", "mail [EMAIL] now"),  # a combining mark after ASCII
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_values_in_other_scripts_and_spellings_are_redacted(text: str, expected: str) -> None:
    assert PiiRedactor(mode="mask").redact_text(text) == expected


def test_the_rest_of_the_text_is_kept_as_written() -> None:
    """Only the value is replaced: a year in Arabic-Indic digits, full-width letters, a
    zero-width joiner outside the value and a non-breaking space stay as sent."""
    text = f"رقم البطاقة {ARABIC_CARD} في ٢٠٢٤\u200d، ｆｅｅ\u00a0१२ {IDEOGRAPHIC_DOT_MAIL}。"
    out = PiiRedactor(mode="mask").redact_text(text)
    assert out == "رقم البطاقة [CARD] في ٢٠٢٤\u200d، ｆｅｅ\u00a0१२ [EMAIL]。"
    plain = "आज २०२४ में ५ लोग आए — ８ ｐｍ\u200b"
    assert PiiRedactor(mode="mask").redact_text(plain) == plain


def test_hash_tokens_and_ids_treat_spellings_alike() -> None:
    redactor = PiiRedactor(mode="hash", hash_key=b"k" * 32)
    assert redactor.redact_text(ARABIC_CARD) == redactor.redact_text("4111 1111 1111 1111")
    assert redactor.redact_text(HYPHEN_PHONE) == redactor.redact_text("555-123-4567")
    assert PiiRedactor().redact_id(f"user:{ZERO_WIDTH_MAIL}").startswith("redacted:")
    assert PiiRedactor().redact_label(ZERO_WIDTH_MAIL) == "[EMAIL]"


def test_fold_maps_folded_spans_back_to_the_original() -> None:
    text = f"x {ZERO_WIDTH_MAIL} y"
    folded = fold(text)
    assert folded.text == "x jane.doe@example.com y"
    start = folded.text.index("jane")
    end = start + len("jane.doe@example.com")
    assert folded.origin(start, end) == (2, 2 + len(ZERO_WIDTH_MAIL))


# --- end to end: real HTTP server, real Redis ----------------------------------------------

#: Every value as written, and as folded: neither may be stored or served anywhere.
SECRETS = [
    ARABIC_CARD,
    DEVANAGARI_CARD,
    ARABIC_PHONE,
    HYPHEN_PHONE,
    NB_HYPHEN_CARD,
    EN_DASH_PHONE,
    DEVANAGARI_PHONE,
    IDEOGRAPHIC_DOT_MAIL,
    ZERO_WIDTH_MAIL,
    JOINER_CARD,
]
NEEDLES = sorted({s for v in SECRETS for s in (v, fold(v).text)} | {"jane", "4111111111111111"})


class CapturingSink:
    """Keeps result records exactly as the results topic gets them (JSON, UTF-8)."""

    def __init__(self) -> None:
        self.written: list[str] = []

    def write(self, records: Sequence[EvaluationRecord]) -> None:
        self.written += [r.model_dump_json() for r in records]

    def close(self) -> None:
        return None


@contextmanager
def _server(settings: Settings, sink: CapturingSink) -> Iterator[str]:
    from groundwatch.cli.commands import app_config, serve_app

    judge = FakeJudge(lambda claim, trace: "contradicted")
    runtime = Runtime.build(settings, judge=judge, with_kafka=False, sinks=[sink])
    port = free_port()
    server = serve_app(create_app(runtime, app_config(settings)), "127.0.0.1", port, settings.api)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_port(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
    assert not thread.is_alive()


def _redis_dump(settings: Settings) -> str:
    """Every key under the prefix and every value it holds, decoded, as one text."""
    client: Any = redis_client(settings.redis)
    parts: list[str] = []
    for key in client.scan_iter(f"{settings.redis.key_prefix}:*"):
        kind = client.type(key).decode()
        parts.append(key.decode("utf-8", "replace"))
        if kind == "string":
            values = [client.get(key)]
        elif kind == "hash":
            values = [x for kv in client.hgetall(key).items() for x in kv]
        elif kind == "zset":
            values = client.zrange(key, 0, -1)
        elif kind == "list":
            values = client.lrange(key, 0, -1)
        elif kind == "set":
            values = list(client.smembers(key))
        elif kind == "stream":
            values = [x for _, fields in client.xrange(key) for kv in fields.items() for x in kv]
        else:
            values = []
        parts += [v.decode("utf-8", "replace") for v in values if isinstance(v, bytes)]
    client.close()
    return "\n".join(parts)


def _assert_clean(where: str, text: str) -> None:
    for needle in NEEDLES:
        assert needle not in text, f"{needle!r} found in {where}"


def test_pii_in_other_scripts_is_stored_nowhere_real_server_and_redis(
    redis_server: RedisServer, unique_name: str
) -> None:
    settings = build_settings(
        state="redis",
        redis={"url": redis_server.url, "key_prefix": unique_name},
        redaction={"mode": "mask"},
        api={"tokens": [TOKEN], "rate_limit_per_s": 0},
        windows={"slice_keys": ["tenant"], "min_samples": 1},
    )
    sink = CapturingSink()
    answer = " ".join(f"Value {i} is {value}." for i, value in enumerate(SECRETS))
    trace = build_trace(
        "t-pii-scripts",
        answer=answer,
        question=f"Which card is {ARABIC_CARD}, mail {IDEOGRAPHIC_DOT_MAIL}?",
        contexts=[{"id": "p1", "text": f"On file: {DEVANAGARI_CARD}, {HYPHEN_PHONE}."}],
        attributes={"tenant": ZERO_WIDTH_MAIL},
    )
    with _server(settings, sink) as base, httpx.Client(base_url=base, headers=AUTH) as client:
        r = client.post("/v1/evaluate?record=true", json=trace)
        assert r.status_code == 200, r.text
        findings = client.get("/v1/findings").json()
        assert len(findings["items"]) == len(SECRETS)  # one per contradicted claim
        key = findings["items"][0]["id"]
        note = f"customer {ZERO_WIDTH_MAIL} called from {ARABIC_PHONE}"
        label = {"label": "wrong", "note": note}
        r = client.post(f"/v1/findings/{quote(key, safe='')}/label", json=label)
        assert r.status_code == 200, r.text
        assert r.json()["label"]["note"] == "customer [EMAIL] called from [PHONE]"
        served = json.dumps(client.get("/v1/findings").json(), ensure_ascii=False)
        cases = client.get("/v1/findings/cases").text
        metrics = client.get("/metrics").text
    # the masks are there: the values went through, redacted
    for mask in ("[CARD]", "[PHONE]", "[EMAIL]"):
        assert mask in served
    assert 'slice_value="[EMAIL]"' in metrics
    assert "[CARD]" in cases
    _assert_clean("/v1/findings", served)
    _assert_clean("/v1/findings/cases", cases)
    _assert_clean("/metrics", metrics)
    assert sink.written
    _assert_clean("the result records", "\n".join(sink.written))
    _assert_clean("Redis", _redis_dump(settings))
