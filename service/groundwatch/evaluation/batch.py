"""Batch mode: ``groundwatch evaluate INPUT.jsonl -o OUTPUT.jsonl``.

Writes one evaluation record per valid input line, in input order. Invalid lines are reported
with their line numbers on stderr and written to an errors file; they never abort the run.
Exit codes: 0 done (even with invalid lines), 2 unusable arguments or unreadable/unwritable files,
also when writing fails midway (disk full, ``-o /dev/full``): one line on stderr, no traceback.

Memory is bounded in bytes: a line longer than ``limits.max_bytes`` is reported as ``oversize``
and skipped in 1 MiB reads, never held whole (a file without newlines cannot exhaust memory).

Usage::

    run_batch(settings.limits, "in.jsonl", "out.jsonl", evaluator=make_evaluator)

``evaluator`` is an :class:`Evaluator`, or a callable that builds one (loading the judge), called
only once the files open: a missing input fails at once, before any model loads.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import IO, Any

from groundwatch.contract.record import EvaluationRecord
from groundwatch.contract.trace import RagTrace, TraceDecodeError, TraceLimits, decode_trace
from groundwatch.evaluation.evaluator import Evaluator

__all__ = ["BatchSummary", "run_batch"]


@dataclass
class BatchSummary:
    lines: int = 0
    valid: int = 0
    invalid: int = 0
    scored: int = 0
    unscored: int = 0
    claims: int = 0
    contradicted: int = 0
    not_found: int = 0
    refusals: int = 0
    sums: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, record: EvaluationRecord) -> None:
        if record.status == "unscored":
            self.unscored += 1
            return
        self.scored += 1
        self.claims += len(record.claims)
        self.contradicted += record.contradicted_claims
        self.not_found += record.not_found_claims
        self.refusals += int(record.refusal)
        for metric in ("faithfulness", "context_precision", "answer_relevance", "citation_support"):
            value = getattr(record, metric)
            if value is not None:
                self.sums[metric] = self.sums.get(metric, 0.0) + value
                self.counts[metric] = self.counts.get(metric, 0) + 1

    def table(self) -> str:
        rows = [
            ("lines read", str(self.lines)),
            ("valid traces", str(self.valid)),
            ("invalid lines", str(self.invalid)),
            ("scored", str(self.scored)),
            ("unscored", str(self.unscored)),
            ("claims", str(self.claims)),
            ("contradicted claims", str(self.contradicted)),
            ("not-found claims", str(self.not_found)),
            ("refusals", str(self.refusals)),
        ]
        for metric in ("faithfulness", "context_precision", "answer_relevance", "citation_support"):
            n = self.counts.get(metric, 0)
            mean = f"{self.sums[metric] / n:.3f} (n={n})" if n else "null (n=0)"
            rows.append((f"mean {metric}", mean))
        width = max(len(k) for k, _ in rows)
        return "\n".join(f"  {k.ljust(width)}  {v}" for k, v in rows)


_SKIP_CHUNK = 1 << 20


class _OutputError(Exception):
    """Writing the records failed (disk full, device gone); a broken pipe is not one (the CLI
    ends quietly on it: ``| head``)."""

    def __init__(self, path: str, cause: OSError):
        super().__init__(path)
        where = "stdout" if path == "-" else path
        self.line = f"groundwatch evaluate: cannot write {where}: {cause.strerror or cause}"
        self.stdout = path == "-"


class _Output:
    """Where the records go: a file, or stdout for ``-``. Each write is flushed, so a record is
    on disk (or refused) before the next batch is judged."""

    def __init__(self, path: str):
        self.path = path
        # closed by close(), which the run's ExitStack calls
        self._fh: IO[str] = (
            sys.stdout if path == "-" else open(path, "w", encoding="utf-8")  # noqa: SIM115
        )

    def write(self, text: str) -> None:
        try:
            self._fh.write(text)
            self._fh.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _OutputError(self.path, exc) from exc

    def close(self) -> None:
        if self._fh is sys.stdout:
            return
        try:
            self._fh.close()
        except OSError as exc:
            raise _OutputError(self.path, exc) from exc


def _silence_stdout() -> None:
    # stdout takes no more: point it at /dev/null, so that the interpreter's final flush does
    # not print a second error (with a traceback) at exit.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _lines(stream: IO[bytes], max_bytes: int) -> Iterator[tuple[int, bytes | None]]:
    """(line number, line without its end) for each line; None for a line over ``max_bytes``,
    which is skipped without being kept."""
    number = 0
    while True:
        raw = stream.readline(max_bytes + 3)  # the line, its "\r\n", and one byte to tell
        if not raw:
            return
        number += 1
        if len(raw) > max_bytes + 2 or (len(raw) == max_bytes + 3 and not raw.endswith(b"\n")):
            while not raw.endswith(b"\n"):
                raw = stream.readline(_SKIP_CHUNK)
                if not raw:
                    break
            yield number, None
            continue
        yield number, raw.rstrip(b"\r\n")


def _count_lines(path: str) -> int | None:
    if path == "-":
        return None
    count = 0
    last = b"\n"
    with open(path, "rb") as fh:
        while chunk := fh.read(_SKIP_CHUNK):
            count += chunk.count(b"\n")
            last = chunk[-1:]
    return count + (last != b"\n")


def run_batch(
    limits: TraceLimits,
    input_path: str,
    output_path: str,
    *,
    evaluator: Evaluator | Callable[[], Evaluator],
    errors_path: str | None = None,
    batch_size: int = 16,
    progress: bool = True,
) -> int:
    if batch_size < 1:
        print("groundwatch evaluate: --batch-size must be >= 1", file=sys.stderr)
        return 2
    try:
        total = _count_lines(input_path)
    except OSError as exc:
        print(f"groundwatch evaluate: cannot read {input_path}: {exc.strerror}", file=sys.stderr)
        return 2
    if errors_path is None:
        errors_path = (
            "groundwatch-errors.jsonl" if output_path == "-" else output_path + ".errors.jsonl"
        )
    try:
        with ExitStack() as stack:
            try:
                source: IO[bytes] = (
                    sys.stdin.buffer
                    if input_path == "-"
                    else stack.enter_context(open(input_path, "rb"))
                )
                sink = _Output(output_path)
                stack.callback(sink.close)
            except OSError as exc:
                print(f"groundwatch evaluate: {exc.filename}: {exc.strerror}", file=sys.stderr)
                return 2
            # Built (the judge loaded) only once the files are open.
            judged = evaluator if isinstance(evaluator, Evaluator) else evaluator()
            summary = BatchSummary()
            errors: list[dict[str, Any]] = []
            bar = _progress(total, progress)
            pending: list[RagTrace] = []

            def flush() -> None:
                records = judged.evaluate_batch(pending)
                sink.write("".join(record.model_dump_json() + "\n" for record in records))
                for record in records:
                    summary.add(record)
                bar.update(len(pending))
                pending.clear()

            for number, raw in _lines(source, limits.max_bytes):
                summary.lines += 1
                if raw is not None and not raw.strip():
                    bar.update(1)
                    continue
                try:
                    if raw is None:
                        limit = limits.max_bytes
                        message = (
                            f"(line): longer than {limit} bytes (GROUNDWATCH_LIMITS__MAX_BYTES)"
                        )
                        raise TraceDecodeError("oversize", message)
                    trace = decode_trace(raw, limits)
                except TraceDecodeError as exc:
                    summary.invalid += 1
                    errors.append({"line": number, "reason": exc.reason, "detail": exc.detail})
                    print(f"line {number}: {exc.reason}: {exc.detail}", file=sys.stderr)
                    bar.update(1)
                    continue
                summary.valid += 1
                pending.append(trace)
                if len(pending) >= batch_size:
                    flush()
            if pending:
                flush()
            bar.close()
    except _OutputError as exc:
        if exc.stdout:
            _silence_stdout()
        print(exc.line, file=sys.stderr)
        return 2
    if errors:
        try:
            with open(errors_path, "w", encoding="utf-8") as fh:
                for err in errors:
                    fh.write(json.dumps(err) + "\n")
            print(f"{len(errors)} invalid line(s) written to {errors_path}", file=sys.stderr)
        except OSError as exc:
            print(
                f"groundwatch evaluate: cannot write {errors_path}: {exc.strerror}", file=sys.stderr
            )
            return 2
    print(f"metric_version: {judged.metric_version}", file=sys.stderr)
    print(summary.table(), file=sys.stderr)
    return 0


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int | None, enabled: bool) -> Any:
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    # disable=None: no bar when stderr is not a terminal. Written to a log, tqdm's final
    # refresh and its close each print a 100% line; the summary table follows anyway.
    return tqdm(
        total=total,
        unit="line",
        file=sys.stderr,
        desc="evaluating",
        dynamic_ncols=True,
        disable=None,
    )
