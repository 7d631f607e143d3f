"""``groundwatch evaluate`` holds at most one line's worth of bytes (issue 36, item 6): a line
longer than ``limits.max_bytes`` (no newline for 60 MB) is reported as ``oversize`` without
being read into memory, and the lines around it are scored."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

from groundwatch.contract.trace import TraceLimits
from groundwatch.evaluation.batch import run_batch
from groundwatch.evaluation.evaluator import Evaluator
from tests.fakes import FakeJudge, make_trace

HUGE = 60 * 1024 * 1024


def test_an_endless_line_is_oversize_and_never_held_in_memory(tmp_path: Path) -> None:
    source = tmp_path / "traces.jsonl"
    with source.open("wb") as fh:
        fh.write(json.dumps(make_trace("before")).encode() + b"\n")
        chunk = b"x" * (1024 * 1024)
        fh.write(b'{"trace_id": "huge", "question": "')
        for _ in range(HUGE // len(chunk)):
            fh.write(chunk)
        fh.write(b'"}\n')
        fh.write(json.dumps(make_trace("after")).encode() + b"\n")
    out = tmp_path / "out.jsonl"
    errors = tmp_path / "errors.jsonl"
    limits = TraceLimits()
    tracemalloc.start()
    try:
        code = run_batch(
            limits,
            str(source),
            str(out),
            errors_path=str(errors),
            progress=False,
            evaluator=Evaluator(FakeJudge()),
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    print(f"peak traced memory {peak / 2**20:.1f} MiB for a {HUGE / 2**20:.0f} MiB line")
    assert code == 0
    ids = [json.loads(line)["trace_id"] for line in out.read_text().splitlines()]
    assert ids == ["before", "after"]
    (error,) = [json.loads(line) for line in errors.read_text().splitlines()]
    assert error["line"] == 2
    assert error["reason"] == "oversize"
    limit = limits.max_bytes
    assert peak < 4 * limit + 8 * 1024 * 1024, f"peak {peak / 2**20:.0f} MiB for a 60 MiB line"
