"""Coverage-guided fuzzing (atheris / libFuzzer) of every parser that reads untrusted input.

Usage::

    .venv/bin/python tests/fuzz/fuzz_decoders.py -max_total_time=300          # 5 minutes
    .venv/bin/python tests/fuzz/fuzz_decoders.py -runs=100000 corpus_dir/     # keep a corpus
    .venv/bin/python tests/fuzz/fuzz_decoders.py crash-<sha1>                 # replay a crash

The first input byte picks the target: the trace decoder, the OTLP decoder (protobuf or JSON),
the claim splitter, or the PII redactor. Only the documented errors may escape; anything else
is a crash (libFuzzer writes the input to ``crash-*``), to be turned into an ``@example`` in
tests/test_fuzz.py.
"""

from __future__ import annotations

import contextlib
import sys

import atheris

with atheris.instrument_imports(include=["groundwatch"]):
    from groundwatch.contract.trace import TraceDecodeError, TraceLimits, decode_trace
    from groundwatch.evaluation.redaction import PiiRedactor
    from groundwatch.judges.claims.extract import extract_claims, split_sentences

    try:
        from groundwatch.ingest.otlp_decode import OtlpDecodeError, decode_otlp_request
    except ImportError:  # pragma: no cover - OTLP ingest not installed
        decode_otlp_request = None  # type: ignore[assignment]

LIMITS = TraceLimits()
MASK = PiiRedactor(mode="mask")
HASH = PiiRedactor(mode="hash", hash_key=b"atheris")


def test_one_input(data: bytes) -> None:
    if not data:
        return
    target, body = data[0] % 5, data[1:]
    if target == 0:
        with contextlib.suppress(TraceDecodeError):
            decode_trace(body, LIMITS)
    elif target in (1, 2) and decode_otlp_request is not None:
        media = "application/x-protobuf" if target == 1 else "application/json"
        try:
            spans = decode_otlp_request(body, media)
        except OtlpDecodeError:
            return
        assert isinstance(spans, list)
    elif target == 3:
        fdp = atheris.FuzzedDataProvider(body)
        question = fdp.ConsumeUnicodeNoSurrogates(200)
        answer = fdp.ConsumeUnicode(2000)
        sentences = split_sentences(answer)
        assert all(isinstance(s, str) for s in sentences)
        claims = extract_claims(question, answer)
        assert len(claims) <= max(1, len(answer))
    else:
        text = atheris.FuzzedDataProvider(body).ConsumeUnicode(4000)
        for redactor in (MASK, HASH):
            out = redactor.redact_text(text)
            assert isinstance(out, str)


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
