"""Request memory is bounded in bytes (issue 36, item 6): 16 OTLP requests of 7.6 MB, 4 at a
time, against a real server process; its resident memory stays under the documented bound
(docs/security.md, "Memory under large requests"): peak RSS <= RSS at rest + 8 x
api.max_inflight_bytes + 4 x (api.queue_max_chars + otel.max_pending_bytes).

Without the in-flight body budget the same load took a server from 461 to 1,088 MiB.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx

from groundwatch.sections.api import ApiSettings
from groundwatch.sections.connections import OtelSettings
from tests.infra import free_port, wait_port
from tests.otlp_support import record_rag_spans

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "tok-memory-5e1f0a9c7b3d2e48"
MIB = 1024 * 1024
BODY_BYTES = 7_600_000
_API = ApiSettings()
_OTEL = OtelSettings()
#: The documented bound (docs/security.md): each request body in flight costs about 8 times its
#: size while it is decoded and assembled (body, protobuf, span records, traces, validation
#: copies); the text held by the evaluation queue and the span buffer up to 4 times its size
#: (Python objects, and the allocator keeps freed arenas).
BOUND = 8 * _API.max_inflight_bytes + 4 * (_API.queue_max_chars + _OTEL.max_pending_bytes)


def _otlp_body(seed: int, size: int = BODY_BYTES, passage_chars: int = 19_000) -> bytes:
    """An ExportTraceServiceRequest of about ``size`` bytes: RAG traces (root, retrieval, LLM
    span) with large passages (each trace about 40 KB, its own id, every one valid)."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    template = encode_spans(record_rag_spans())
    scope = template.resource_spans[0].scope_spans[0]
    base = list(scope.spans)
    for span in base:
        for attr in span.attributes:
            if attr.key.endswith("document.content"):
                text = "Refunds are accepted within 14 days of purchase. " * 400
                attr.value.string_value = text[:passage_chars]
    del scope.spans[:]
    n = 0
    while template.ByteSize() < size:
        n += 1
        trace_id = (seed * 1_000_000 + n).to_bytes(16, "big")
        for span in base:
            copy = scope.spans.add()
            copy.CopyFrom(span)
            copy.trace_id = trace_id
    return bytes(template.SerializeToString())


def _rss(pid: int, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field} for {pid}")


@contextmanager
def _server_process(env: dict[str, str]) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.upper().startswith("GROUNDWATCH_")}
    clean.update(env)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.server_proc", "--port", str(port), "--judge-delay", "1"],
        cwd=ROOT,
        env=clean,
    )
    try:
        wait_port(port, timeout=120)
        yield port, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _send(url: str, body: bytes, deadline: float) -> int:
    """POST until accepted: a 503 (body budget, queue) is retried after Retry-After, as OTLP
    exporters do; a connection closed before the reply counts as a retry too."""
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/x-protobuf"}
    while True:
        try:
            r = httpx.post(url, content=body, headers=headers, timeout=60)
        except httpx.TransportError:
            status = -1
        else:
            status = r.status_code
            if status not in (429, 503):
                return status
        if time.monotonic() > deadline:
            return status
        time.sleep(0.5 if status == -1 else float(r.headers.get("retry-after", "1")))


def test_sixteen_large_otlp_requests_stay_under_the_documented_bound() -> None:
    bodies = [_otlp_body(seed) for seed in range(16)]  # 16 distinct bodies: 3,000 traces
    assert all(BODY_BYTES <= len(b) <= BODY_BYTES * 1.05 for b in bodies)
    env = {
        "GROUNDWATCH_STATE": "memory",
        "GROUNDWATCH_API__TOKENS": TOKEN,
        "GROUNDWATCH_API__RATE_LIMIT_PER_S": "0",
        "GROUNDWATCH_REDACTION__MODE": "off",
    }
    with _server_process(env) as (port, proc):
        url = f"http://127.0.0.1:{port}/v1/traces"
        # Warm up: one small request loads the OTLP decoder, so the baseline includes it.
        assert _send(url, _otlp_body(99, 200_000), time.monotonic() + 60) == 200
        time.sleep(0.5)
        rest = _rss(proc.pid)
        peak = rest
        # Then a refusal stands: the judge is slow. 30 s let 3 of 16 through on a loaded 2-core
        # machine (6 unloaded); the claim is the memory bound, and 2 accepted prove bodies pass.
        deadline = time.monotonic() + 45
        with ThreadPoolExecutor(4) as pool:
            futures = [pool.submit(_send, url, bodies[i], deadline) for i in range(16)]
            while not all(f.done() for f in futures):
                peak = max(peak, _rss(proc.pid))
                time.sleep(0.02)
            statuses = [f.result() for f in futures]
        hwm = _rss(proc.pid, "VmHWM")
        peak = max(peak, hwm)
        grew = (peak - rest) / MIB
        print(f"RSS at rest {rest / MIB:.0f} MiB, peak {peak / MIB:.0f} MiB (+{grew:.0f} MiB)")
        print("statuses", statuses)
        assert set(statuses) <= {200, 503}, statuses
        assert statuses.count(200) >= 2, statuses
        assert peak - rest <= BOUND, f"+{grew:.0f} MiB, over the bound of {BOUND / MIB:.0f} MiB"
