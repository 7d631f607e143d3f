"""The real Langfuse SDK (5.2) and OpenLLMetry LlamaIndex instrumentation (0.62.4), installed in the
dev environment, drive the capture script's RAG app (fake LLM, five questions, one answer
contradicting its passage) and export through their own OTLP exporters to a groundwatch app
served by uvicorn on a loopback port: Langfuse to its default path ``/api/public/otel/v1/traces``,
OpenLLMetry to ``/v1/traces``. Each app runs in a subprocess, so that its global instrumentation
(LlamaIndex's dispatcher, Langfuse's tracer provider) never reaches another test.

The other captured libraries (OpenLLMetry 0.47, openai-v2 2.3 and 2.4) pin OpenTelemetry versions
that the dev environment cannot hold beside 1.45: their payloads are replayed instead
(tests/test_otel_libraries.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from groundwatch.api.app import create_app
from groundwatch.cli.commands import app_config
from groundwatch.contract.trace import RagTrace
from groundwatch.runtime import Runtime
from groundwatch.sections.connections import OtelSettings
from groundwatch.settings import Settings
from tests.infra import free_port, wait_port
from tests.test_otel_libraries import REFUND, WRONG, RecordingJudge, Service

CAPTURE = Path(__file__).resolve().parent / "otel_payloads" / "capture.py"
QUESTIONS = [
    REFUND,
    "How long does shipping take?",
    "How long does the battery warranty last?",
    "When is support open?",
    "What do returns need?",
]


@pytest.fixture
def open_service() -> Iterator[Service]:
    """A service without tokens: the Langfuse SDK authenticates with its own Basic header."""
    settings = Settings(
        api={"host": "127.0.0.1"}, otel=OtelSettings(assembly_window_s=1.0), state="memory"
    )
    judge = RecordingJudge()
    runtime = Runtime.build(settings, judge=judge, with_kafka=False)
    port = free_port()
    config = uvicorn.Config(
        create_app(runtime, app_config(settings)), host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_port(port)
        yield Service(f"http://127.0.0.1:{port}", runtime, judge)
    finally:
        server.should_exit = True
        thread.join(timeout=20)
    assert not thread.is_alive()


def _run_app(scenario: str, url: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "LANGFUSE_"))}
    done = subprocess.run(
        [sys.executable, str(CAPTURE), scenario, "--to", url],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]


def _wait_five(service: Service, timeout: float = 20.0) -> list[RagTrace]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and len(service.judge.seen) < 5:
        time.sleep(0.05)
    service.runtime.queue.join(timeout=5.0)
    traces = sorted(service.judge.seen.values(), key=lambda t: QUESTIONS.index(t.question))
    assert [t.question for t in traces] == QUESTIONS
    return traces


@pytest.mark.parametrize(
    ("scenario", "library"),
    [("langfuse-5", "langfuse"), ("openllmetry-0.62-llamaindex", "openllmetry")],
)
def test_real_library_exports_five_rag_traces_and_the_one_contradiction(
    open_service: Service, scenario: str, library: str
) -> None:
    _run_app(scenario, open_service.url)
    traces = _wait_five(open_service)
    for trace in traces:
        assert len(trace.contexts) == 2
        assert trace.answer
    refund = traces[0]
    assert refund.contexts[0].text == "The refund window is 30 days."
    assert refund.answer == WRONG
    assert open_service.contradicted() == [(refund.trace_id, WRONG)]
    assert (
        open_service.metric(
            "groundwatch_otlp_traces_read_total", source_library=library, completeness="complete"
        )
        == 5
    )
    assert open_service.metric("groundwatch_answered_without_evidence_total") == 0
