"""TeiJudge against a fake TEI service (rerank + NLI predict) on free loopback ports."""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.judges.base import JudgeError, TraceJudgement
from groundwatch.judges.checked import ValueCheckedJudge
from groundwatch.judges.factory import build_judge
from groundwatch.judges.remote.tei import TeiJudge
from groundwatch.sections.judging import JudgeSettings

_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    stop = {"the", "a", "is", "per", "and", "what", "does"}
    return {w.removesuffix("s") for w in _WORD.findall(text.lower()) if w not in stop}


def rerank_score(query: str, text: str) -> float:
    q = _words(query)
    return len(q & _words(text)) / len(q) if q else 0.0


def nli_scores(premise: str, hypothesis: str) -> list[dict[str, Any]]:
    """Entailment when the premise has every hypothesis word, contradiction when only the
    numbers differ, neutral otherwise; sorted by score like TEI."""
    p, h = _words(premise), _words(hypothesis)
    numbers = {w for w in h | p if w.isdigit()}
    if h <= p:
        scores = {"ENTAILMENT": 0.9, "NEUTRAL": 0.07, "CONTRADICTION": 0.03}
    elif (h - numbers) <= p and (h & numbers) != (p & numbers):
        scores = {"ENTAILMENT": 0.05, "NEUTRAL": 0.15, "CONTRADICTION": 0.8}
    else:
        scores = {"ENTAILMENT": 0.1, "NEUTRAL": 0.8, "CONTRADICTION": 0.1}
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    return [{"label": label, "score": score} for label, score in ranked]


@dataclass
class Fault:
    """A scripted failure for the next matching request."""

    path: str
    status: int = 503
    delay: float = 0.0
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


class FakeTei:
    """The TEI endpoints the judge uses. ``predict``: "nli", "reranker" (LABEL_0) or "missing"."""

    def __init__(self, model_id: str = "BAAI/bge-reranker-base", predict: str = "nli"):
        self.model_id = model_id
        self.predict = predict
        self.health_status = 200
        self.faults: list[Fault] = []
        self.calls: list[tuple[str, Any]] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def paths(self, path: str) -> list[Any]:
        return [body for p, body in self.calls if p == path]

    def answer(self, path: str, body: Any) -> tuple[int, Any, dict[str, str], float]:
        with self._lock:
            self.calls.append((path, body))
            fault = next((f for f in self.faults if f.path == path), None)
            if fault is not None:
                self.faults.remove(fault)
        if fault is not None:
            payload = fault.body if fault.body is not None else {"error": "scripted"}
            return fault.status, payload, fault.headers, fault.delay
        if path == "/rerank":
            scores = [
                {"index": i, "score": rerank_score(body["query"], t)}
                for i, t in enumerate(body["texts"])
            ]
            return 200, sorted(scores, key=lambda s: -s["score"]), {}, 0.0
        if path == "/predict":
            if self.predict == "missing":
                return 404, {"error": "not found"}, {}, 0.0
            if self.predict == "reranker":
                return 200, [[{"label": "LABEL_0", "score": 0.7}] for _ in body["inputs"]], {}, 0.0
            return 200, [nli_scores(p, h) for p, h in body["inputs"]], {}, 0.0
        return 404, {"error": "no route"}, {}, 0.0

    def start(self) -> FakeTei:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, obj: Any, headers: dict[str, str]) -> None:
                payload = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:
                if self.path == "/health":
                    self._send(fake.health_status, {}, {})
                elif self.path == "/info":
                    self._send(200, {"model_id": fake.model_id, "version": "1.5"}, {})
                else:
                    self._send(404, {"error": "no route"}, {})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                status, obj, headers, delay = fake.answer(self.path, body)
                if delay:
                    fake.stopping.wait(delay)
                self._send(status, obj, headers)

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # clients that time out hang up mid-answer

        self._httpd = Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(5)


@pytest.fixture
def tei() -> Iterator[FakeTei]:
    fake = FakeTei().start()
    try:
        yield fake
    finally:
        fake.stop()


@pytest.fixture
def judge(tei: FakeTei) -> Iterator[TeiJudge]:
    j = TeiJudge(tei.url, top_k=2, backoff_base_s=0.01)
    j.load()
    try:
        yield j
    finally:
        j.close()


def trace(trace_id: str = "t1", **kw: Any) -> RagTrace:
    data: dict[str, Any] = {
        "trace_id": trace_id,
        "question": "What does the pro plan cost per month?",
        "contexts": [
            {"text": "The sky is blue. Rain falls in autumn.", "id": "weather"},
            {
                "text": "The pro plan costs 12 dollars per month. Every plan includes SSO.",
                "id": "pricing",
            },
        ],
        "answer": "The pro plan costs 10 dollars per month. Every plan includes SSO.",
    }
    data.update(kw)
    return RagTrace.model_validate(data)


def judged(result: TraceJudgement | JudgeError) -> TraceJudgement:
    assert isinstance(result, TraceJudgement), result
    for claim in result.claims:
        assert claim.verdict in {"supported", "contradicted", "not_found"}
        assert math.isfinite(claim.score)
        assert 0.0 <= claim.score <= 1.0
    return result


def test_rerank_and_predict_give_verdicts(judge: TeiJudge, tei: FakeTei) -> None:
    assert judge.nli_available
    assert judge.version == "tei/bge-reranker-base+bge-reranker-base/con0.5/k2/rel0.5/t1"
    result = judged(judge.judge_batch([trace()])[0])
    assert [c.verdict for c in result.claims] == ["contradicted", "supported"]
    contradicted, supported = result.claims
    assert contradicted.evidence is not None
    assert contradicted.evidence.context_id == "pricing"
    assert contradicted.evidence.text == "The pro plan costs 12 dollars per month."
    assert contradicted.score == pytest.approx(0.8)
    assert supported.evidence is not None
    assert supported.evidence.text == "Every plan includes SSO."
    assert result.context_relevance[1] > result.context_relevance[0]
    assert result.answer_relevance is not None
    assert result.answer_relevance > 0.5
    # One predict call for the whole trace: every claim's top-k pairs together.
    predicts = tei.paths("/predict")[1:]  # the first is load()'s probe
    assert [len(body["inputs"]) for body in predicts] == [4]
    assert all(pair[1] in {c.text for c in result.claims} for pair in predicts[0]["inputs"])


def test_records_from_the_evaluator(judge: TeiJudge) -> None:
    records = Evaluator(judge).evaluate_batch([trace("a"), trace("b", answer=None)])
    assert [r.status for r in records] == ["scored", "scored"]
    assert records[0].contradicted_claims == 1
    assert records[0].faithfulness == 0.5
    assert records[0].first_relevant_rank == 2
    assert records[1].claims == []
    assert records[1].context_precision == 0.5


@pytest.mark.parametrize("predict", ["missing", "reranker"])
def test_without_nli_falls_back_to_rerank_scores(predict: str) -> None:
    fake = FakeTei(predict=predict).start()
    judge = TeiJudge(fake.url, backoff_base_s=0.01, max_retries=0)
    try:
        judge.load()
        assert not judge.nli_available
        assert "rerank-only/sup0.5" in judge.version
        result = judged(judge.judge_batch([trace(answer="Every plan includes SSO. Cats fly.")])[0])
    finally:
        judge.close()
        fake.stop()
    assert [c.verdict for c in result.claims] == ["supported", "not_found"]
    assert len(fake.paths("/predict")) == 1  # only the probe


def test_separate_nli_service(tei: FakeTei) -> None:
    nli = FakeTei(model_id="org/deberta-v3-mnli").start()
    tei.predict = "missing"
    judge = TeiJudge(tei.url, nli_url=nli.url, backoff_base_s=0.01)
    try:
        judge.load()
        assert "+deberta-v3-mnli/" in judge.version
        result = judged(judge.judge_batch([trace()])[0])
    finally:
        judge.close()
        nli.stop()
    assert [c.verdict for c in result.claims] == ["contradicted", "supported"]
    assert not tei.paths("/predict")
    assert len(nli.paths("/predict")) == 2


def test_large_inputs_are_sent_in_batches(tei: FakeTei) -> None:
    judge = TeiJudge(tei.url, batch_size=2, backoff_base_s=0.01)
    contexts = [f"Passage {i} says the pro plan costs {i} dollars." for i in range(5)]
    try:
        judge.load()
        result = judged(
            judge.judge_batch([trace(contexts=contexts, answer="It costs 3 dollars.")])[0]
        )
    finally:
        judge.close()
    assert len(result.context_relevance) == 5
    reranks = tei.paths("/rerank")
    assert max(len(body["texts"]) for body in reranks) == 2
    assert all(len(body["inputs"]) <= 2 for body in tei.paths("/predict"))


def test_retries_on_503_then_succeeds(judge: TeiJudge, tei: FakeTei) -> None:
    tei.faults = [Fault("/rerank", 503, headers={"Retry-After": "0"}), Fault("/predict", 429)]
    judged(judge.judge_batch([trace()])[0])
    counters = judge.counters
    assert counters.retries == 2
    assert counters.failures == 0


def test_timeout_exhausts_retries(tei: FakeTei) -> None:
    judge = TeiJudge(tei.url, timeout_s=0.2, max_retries=1, backoff_base_s=0.01)
    try:
        judge.load()
        tei.faults = [Fault("/rerank", 200, delay=2.0), Fault("/rerank", 200, delay=2.0)]
        [result] = judge.judge_batch([trace()])
    finally:
        judge.close()
    assert isinstance(result, JudgeError)
    assert result.reason == "judge_timeout"
    assert result.retriable


@pytest.mark.parametrize(
    "body",
    [
        [{"index": 0, "score": float("nan")}, {"index": 1, "score": 0.5}, {"index": 2, "score": 0}],
        [{"index": 0}],
        {"error": "not a list"},
    ],
)
def test_malformed_rerank_is_unscored_never_nan(tei: FakeTei, judge: TeiJudge, body: Any) -> None:
    tei.faults = [Fault("/rerank", 200, body=body)]
    record = Evaluator(judge).evaluate(trace())
    assert record.status == "unscored"
    assert record.unscored_reason == "judge_malformed_output"


def test_load_checks_the_service(tei: FakeTei) -> None:
    tei.health_status = 503
    with pytest.raises(JudgeError, match="health") as unhealthy:
        TeiJudge(tei.url).load()
    assert unhealthy.value.retriable
    url = tei.url
    tei.stop()
    judge = TeiJudge(url, timeout_s=0.5)
    with pytest.raises(JudgeError, match="cannot reach"):
        judge.load()
    assert not judge.ready()
    with pytest.raises(JudgeError):
        judge.judge_batch([trace()])


def test_factory_builds_tei(tei: FakeTei) -> None:
    judge = build_judge(JudgeSettings(backend="tei", tei_url=tei.url))
    assert isinstance(judge, ValueCheckedJudge)  # every backend's values are checked
    assert isinstance(judge.inner, TeiJudge)
    assert judge.backend == "tei"
    with pytest.raises(ValueError, match="TEI_URL"):
        build_judge(JudgeSettings(backend="tei"))


def test_a_short_answer_is_read_as_one_declarative_sentence(judge: TeiJudge, tei: FakeTei) -> None:
    """Issue 44 item 4: the remote backends judge the same claim construction as the local
    ones; the model reads "Frank Gehry designed the opera house", not a question."""
    short = trace(
        "short",
        question="Who designed the opera house?",
        answer="Frank Gehry",
        contexts=[{"id": "history", "text": "The opera house was designed by Jørn Utzon."}],
    )
    judged(judge.judge_batch([short])[0])
    hypotheses = {pair[1] for body in tei.paths("/predict")[1:] for pair in body["inputs"]}
    assert hypotheses == {"Frank Gehry designed the opera house."}
