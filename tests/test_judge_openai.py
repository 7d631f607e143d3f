"""OpenAIJudge against a scripted OpenAI-compatible server on a free loopback port."""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import SecretStr

from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.judges.base import JudgeError, TraceJudgement
from groundwatch.judges.checked import ValueCheckedJudge
from groundwatch.judges.factory import build_judge
from groundwatch.judges.remote.openai import JudgeUsage, OpenAIJudge
from groundwatch.sections.judging import JudgeSettings

API_KEY = "sk-test-very-secret"
CLAIMS = ["The pro plan costs 10 dollars per month.", "The pro plan includes SSO."]
PASSAGE0 = "The pro plan costs 12 dollars per month. Every plan includes SSO and audit logs."


@dataclass
class Reply:
    """One scripted answer to POST /chat/completions (``content`` None = the default JSON)."""

    status: int = 200
    content: str | None = None
    raw: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def default_content(body: dict[str, Any]) -> str:
    prompt = body["messages"][-1]["content"]
    if "Passages, numbered from 0" not in prompt:
        return json.dumps({"refusal": False, "answer_relevance": 0.8, "claims": CLAIMS})
    passages, claims = prompt.split("Claims, numbered from 0:")
    n_passages = len(re.findall(r"^\[\d+\] <<<", passages, re.MULTILINE))
    n_claims = len(re.findall(r"^\[\d+\] <<<", claims, re.MULTILINE))
    verdicts = [
        {
            "claim": i,
            "verdict": "contradicted" if i == 0 else "supported",
            "evidence": 0,
            "quote": "The pro plan costs 12 dollars per month." if i == 0 else "",
            "reason": "12 vs 10 dollars" if i == 0 else "stated",
        }
        for i in range(n_claims)
    ]
    relevance = [{"index": i, "relevance": 0.9 if i == 0 else 0.1} for i in range(n_passages)]
    return json.dumps({"passages": relevance, "verdicts": verdicts})


class FakeChatServer:
    """Speaks the chat-completions subset the judge uses; counts requests and concurrency."""

    def __init__(self) -> None:
        self.script: list[Reply] = []  # consumed first-in first-out, then ``default``
        self.default = Reply()
        self.models_status = 200
        self.bodies: list[dict[str, Any]] = []
        self.auth: list[str | None] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def next_reply(self, body: dict[str, Any]) -> tuple[Reply, str | None]:
        with self._lock:
            self.bodies.append(body)
            reply = self.script.pop(0) if self.script else self.default
        content = reply.content if reply.content is not None else default_content(body)
        return reply, content

    def enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def start(self) -> None:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:
                payload = json.dumps({"object": "list", "data": [{"id": "judge-model"}]})
                self._send(fake.models_status, payload.encode(), {})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length))
                fake.enter()
                try:
                    fake.auth.append(self.headers.get("Authorization"))
                    reply, content = fake.next_reply(body)
                    if reply.delay:
                        fake.stopping.wait(reply.delay)
                    if reply.raw is not None:
                        payload = reply.raw
                    else:
                        payload = json.dumps(
                            {
                                "id": "cmpl-1",
                                "object": "chat.completion",
                                "choices": [
                                    {
                                        "index": 0,
                                        "message": {"role": "assistant", "content": content},
                                        "finish_reason": "stop",
                                    }
                                ],
                                "usage": {
                                    "prompt_tokens": 100,
                                    "completion_tokens": 20,
                                    "total_tokens": 120,
                                },
                            }
                        ).encode()
                    if reply.status != 200 and reply.raw is None:
                        payload = b'{"error": {"message": "scripted"}}'
                    self._send(reply.status, payload, reply.headers)
                finally:
                    fake.leave()

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # clients that time out hang up mid-answer; that is the point

        self._httpd = Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self.stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(5)


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    fake = FakeChatServer()
    fake.start()
    try:
        yield fake
    finally:
        fake.stop()


def make_judge(server: FakeChatServer, **kw: Any) -> OpenAIJudge:
    options: dict[str, Any] = {
        "model": "judge-model",
        "api_key": SecretStr(API_KEY),
        "timeout_s": 2.0,
        "max_retries": 2,
        "concurrency": 4,
        "backoff_base_s": 0.01,
        "price_per_1k_input": 0.5,
        "price_per_1k_output": 1.5,
    }
    options.update(kw)
    return OpenAIJudge(server.url, **options)


@pytest.fixture
def judge(server: FakeChatServer) -> Iterator[OpenAIJudge]:
    j = make_judge(server)
    j.load()
    try:
        yield j
    finally:
        j.close()


def trace(trace_id: str = "t1", **kw: Any) -> RagTrace:
    data: dict[str, Any] = {
        "trace_id": trace_id,
        "question": "How much does the pro plan cost?",
        "contexts": [
            {"text": PASSAGE0, "id": "p1"},
            {"text": "The sky is blue.", "id": "p2"},
        ],
        "answer": "The pro plan costs 10 dollars a month and includes SSO.",
    }
    data.update(kw)
    return RagTrace.model_validate(data)


def test_good_json_gives_a_judgement_and_accounts_cost(
    judge: OpenAIJudge, server: FakeChatServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    [result] = judge.judge_batch([trace()])
    assert isinstance(result, TraceJudgement)
    assert [c.text for c in result.claims] == CLAIMS
    assert [c.verdict for c in result.claims] == ["contradicted", "supported"]
    contradicted, supported = result.claims
    assert contradicted.evidence is not None
    assert contradicted.evidence.text == "The pro plan costs 12 dollars per month."
    assert contradicted.evidence.context_id == "p1"
    assert contradicted.reason == "12 vs 10 dollars"
    # No quote: the passage sentence sharing most words with the claim is kept, not the passage.
    assert supported.evidence is not None
    assert supported.evidence.text == "Every plan includes SSO and audit logs."
    assert result.context_relevance == [0.9, 0.1]
    assert result.answer_relevance == 0.8
    assert result.refusal is False
    assert result.notes == {"input_tokens": "200", "output_tokens": "40"}

    usage = judge.usage
    assert usage == JudgeUsage(
        input_tokens=200, output_tokens=40, cost_usd=pytest.approx(0.16), requests=2
    )
    assert all(body["model"] == "judge-model" for body in server.bodies)
    assert all(body["response_format"] == {"type": "json_object"} for body in server.bodies)
    assert server.auth == [f"Bearer {API_KEY}"] * 2
    assert API_KEY not in repr(judge)
    assert API_KEY not in caplog.text


def test_records_from_the_evaluator(judge: OpenAIJudge) -> None:
    record = Evaluator(judge).evaluate(trace())
    assert record.status == "scored"
    assert record.faithfulness == 0.5
    assert record.contradicted_claims == 1
    assert record.context_precision == 0.5
    assert record.metric_version == "openai/judge-model/p1/rel0.5"


def test_no_passages_skips_the_evidence_prompt(judge: OpenAIJudge, server: FakeChatServer) -> None:
    [result] = judge.judge_batch([trace(contexts=[])])
    assert isinstance(result, TraceJudgement)
    assert [c.verdict for c in result.claims] == ["not_found", "not_found"]
    assert result.context_relevance == []
    assert len(server.bodies) == 1


def test_no_answer_skips_the_answer_prompt(judge: OpenAIJudge, server: FakeChatServer) -> None:
    [result] = judge.judge_batch([trace(answer=None)])
    assert isinstance(result, TraceJudgement)
    assert result.claims == []
    assert result.context_relevance == [0.9, 0.1]
    assert len(server.bodies) == 1


def test_fenced_json_is_accepted(judge: OpenAIJudge, server: FakeChatServer) -> None:
    fenced = (
        "```json\n" + json.dumps({"refusal": True, "answer_relevance": 0, "claims": []}) + "\n```"
    )
    server.script = [Reply(content=fenced)]
    [result] = judge.judge_batch([trace(answer="I cannot find that.")])
    assert isinstance(result, TraceJudgement)
    assert result.refusal is True
    assert result.claims == []


@pytest.mark.parametrize(
    "content",
    [
        "Sure! The answer has two claims.",  # not JSON
        json.dumps({"claims": CLAIMS}),  # keys missing
        json.dumps({"refusal": False, "answer_relevance": 7, "claims": CLAIMS}),  # out of range
        json.dumps([1, 2, 3]),  # not an object
    ],
)
def test_malformed_answer_reply(judge: OpenAIJudge, server: FakeChatServer, content: str) -> None:
    server.script = [Reply(content=content)]
    [result] = judge.judge_batch([trace()])
    assert isinstance(result, JudgeError)
    assert result.reason == "judge_malformed_output"
    assert result.detail
    assert judge.usage.malformed == 1


def test_a_reply_cut_at_max_tokens_says_so(judge: OpenAIJudge, server: FakeChatServer) -> None:
    cut = {
        "choices": [
            {
                "message": {"role": "assistant", "content": '{"refusal": tr'},
                "finish_reason": "length",
            }
        ],
        "usage": {"prompt_tokens": 80, "completion_tokens": 5},
    }
    server.script = [Reply(raw=json.dumps(cut).encode())]
    [result] = judge.judge_batch([trace()])
    assert isinstance(result, JudgeError)
    assert result.reason == "judge_malformed_output"
    assert "not JSON" in result.detail
    assert "reply cut at max_output_tokens=1024" in result.detail
    assert judge.usage.output_tokens == 5  # an unusable reply's tokens are still billed


@pytest.mark.parametrize(
    "evidence",
    [
        {"passages": [{"index": 0, "relevance": 1}], "verdicts": []},  # claims and passage missing
        {
            "passages": [{"index": 0, "relevance": 1}, {"index": 1, "relevance": 0}],
            "verdicts": [
                {"claim": 0, "verdict": "true", "evidence": 0},
                {"claim": 1, "verdict": "supported", "evidence": 0},
            ],
        },
        {
            "passages": [{"index": 0, "relevance": 1}, {"index": 1, "relevance": 0}],
            "verdicts": [
                {"claim": 0, "verdict": "supported", "evidence": 5},
                {"claim": 1, "verdict": "supported", "evidence": 0},
            ],
        },
    ],
)
def test_malformed_evidence_reply_is_unscored(
    judge: OpenAIJudge, server: FakeChatServer, evidence: dict[str, Any]
) -> None:
    server.script = [Reply(), Reply(content=json.dumps(evidence))]
    record = Evaluator(judge).evaluate(trace())
    assert record.status == "unscored"
    assert record.unscored_reason == "judge_malformed_output"


def test_429_then_success_respects_retry_after(server: FakeChatServer) -> None:
    server.script = [Reply(status=429, headers={"Retry-After": "1"})]
    judge = make_judge(server)
    judge.load()
    try:
        start = time.monotonic()
        [result] = judge.judge_batch([trace()])
        elapsed = time.monotonic() - start
    finally:
        judge.close()
    assert isinstance(result, TraceJudgement)
    assert elapsed >= 0.95
    usage = judge.usage
    assert (usage.requests, usage.retries, usage.failures) == (3, 1, 0)
    assert usage.input_tokens == 200  # a 429 carries no usage


def test_500s_exhaust_retries(judge: OpenAIJudge, server: FakeChatServer) -> None:
    server.default = Reply(status=500)
    [result] = judge.judge_batch([trace()])
    assert isinstance(result, JudgeError)
    assert result.reason == "judge_unavailable"
    assert result.retriable
    usage = judge.usage
    assert (usage.requests, usage.retries, usage.failures) == (3, 2, 1)
    record = Evaluator(judge).evaluate(trace("t2"))
    assert record.unscored_reason == "judge_unavailable"


def test_400_is_not_retried(judge: OpenAIJudge, server: FakeChatServer) -> None:
    server.script = [Reply(status=400)]
    [result] = judge.judge_batch([trace()])
    assert isinstance(result, JudgeError)
    assert result.reason == "judge_error"
    assert not result.retriable
    assert judge.usage.requests == 1


def test_slow_server_times_out_after_retries(server: FakeChatServer) -> None:
    server.default = Reply(delay=2.0)
    judge = make_judge(server, timeout_s=0.2, max_retries=1)
    judge.load()
    try:
        [result] = judge.judge_batch([trace()])
    finally:
        judge.close()
    assert isinstance(result, JudgeError)
    assert result.reason == "judge_timeout"
    assert result.retriable
    assert (judge.usage.requests, judge.usage.failures) == (2, 1)


def test_trace_deadline_stops_retrying(server: FakeChatServer) -> None:
    server.default = Reply(status=503, headers={"Retry-After": "5"})
    judge = make_judge(server, max_retries=5, trace_timeout_s=0.5)
    judge.load()
    try:
        start = time.monotonic()
        [result] = judge.judge_batch([trace()])
        assert time.monotonic() - start < 2.0
    finally:
        judge.close()
    assert isinstance(result, JudgeError)
    assert result.retriable


def test_concurrency_limit_is_shared_across_threads(server: FakeChatServer) -> None:
    server.default = Reply(delay=0.15)
    judge = make_judge(server, concurrency=2)
    judge.load()
    results: list[list[TraceJudgement | JudgeError]] = []
    try:
        threads = [
            threading.Thread(
                target=lambda n=n: results.append(
                    judge.judge_batch([trace(f"t{n}-{i}") for i in range(3)])
                )
            )
            for n in range(2)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        judge.close()
    assert server.max_in_flight == 2
    assert len(server.bodies) == 12
    assert all(isinstance(r, TraceJudgement) for batch in results for r in batch)
    assert judge.usage.requests == 12


def test_load_checks_the_endpoint(server: FakeChatServer) -> None:
    server.models_status = 401
    with pytest.raises(JudgeError, match="API key") as rejected:
        make_judge(server).load()
    assert API_KEY not in str(rejected.value)
    server.models_status = 404  # no /models: still reachable, fine
    judge = make_judge(server)
    assert not judge.ready()
    with pytest.raises(JudgeError):
        judge.judge_batch([trace()])
    judge.load()
    assert judge.ready()
    judge.close()
    assert not judge.ready()


def test_load_fails_when_unreachable(server: FakeChatServer) -> None:
    url = server.url
    server.stop()
    with pytest.raises(JudgeError, match="cannot reach") as unreachable:
        OpenAIJudge(url, timeout_s=0.5).load()
    assert unreachable.value.reason == "judge_unavailable"


def test_factory_builds_openai(server: FakeChatServer) -> None:
    judge = build_judge(
        JudgeSettings(
            backend="openai",
            openai_base_url=server.url,
            openai_model="m1",
            openai_api_key=SecretStr(API_KEY),
            relevance_threshold=0.6,
        )
    )
    assert isinstance(judge, ValueCheckedJudge)  # every backend's values are checked
    assert isinstance(judge.inner, OpenAIJudge)
    assert judge.backend == "openai"
    assert judge.version == "openai/m1/p1/rel0.6/vc13"
    with pytest.raises(ValueError, match="OPENAI_BASE_URL"):
        build_judge(JudgeSettings(backend="openai"))
