"""Real third-party instrumentation, end to end and offline: LlamaIndex and LangChain apps with
fake models, instrumented by OpenInference (``openinference-instrumentation-llama-index`` 4.6.1,
``openinference-instrumentation-langchain`` 0.1.80) and OpenLLMetry
(``opentelemetry-instrumentation-langchain``), export with the OpenTelemetry SDK's
``OTLPSpanExporter`` to a groundwatch app served by uvicorn on a loopback port. Each test checks
the RagTrace that reached the judge (question, passages in rank order with ids and scores, answer,
model) and that the answer's wrong number (90 days; the passage says 30) became a finding.

The judge here is a deterministic number check (a claim is contradicted when it states a number
that no passage has): what is under test is the instrumentation -> OTLP -> assembly -> scoring ->
findings path, not the model judge, which is being replaced and has tests of its own.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
import uvicorn
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from groundwatch.api.app import create_app
from groundwatch.cli.commands import app_config
from groundwatch.contract.record import Verdict
from groundwatch.contract.trace import RagTrace
from groundwatch.judges.base import JudgeError, TraceJudgement
from groundwatch.runtime import Runtime
from groundwatch.sections.connections import OtelSettings
from groundwatch.settings import Settings
from tests.fakes import FakeJudge
from tests.infra import free_port, wait_port

TOKEN = "instrumentation-e2e-token-0123456789"
QUESTION = "How long is the refund window?"
WRONG_ANSWER = "The refund window is 90 days."
KNOWLEDGE = [
    ("refund", "The refund window is 30 days."),
    ("shipping", "Shipping takes 5 business days."),
    ("warranty", "The warranty covers the battery for 2 years."),
]
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _numbers_contradict(claim: str, trace: RagTrace) -> Verdict:
    """Contradicted when the claim states a number that no passage has."""
    found = set(_NUMBER.findall(" ".join(c.text for c in trace.contexts)))
    return "contradicted" if set(_NUMBER.findall(claim)) - found else "supported"


class RecordingJudge(FakeJudge):
    """The number-check judge, keeping every RagTrace it was given, by trace id."""

    def __init__(self) -> None:
        super().__init__(verdict_fn=_numbers_contradict)
        self.seen: dict[str, RagTrace] = {}

    def judge_batch(self, traces: Sequence[RagTrace]) -> list[TraceJudgement | JudgeError]:
        for trace in traces:
            self.seen[trace.trace_id] = trace
        return super().judge_batch(traces)


@dataclass
class Service:
    url: str
    runtime: Runtime
    judge: RecordingJudge

    def wait_trace(self, trace_id: str, timeout: float = 15.0) -> RagTrace:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if trace_id in self.judge.seen:
                self.runtime.queue.join(timeout=5.0)
                return self.judge.seen[trace_id]
            time.sleep(0.05)
        raise AssertionError(f"trace {trace_id} was never scored; judged: {list(self.judge.seen)}")

    def contradicted_claims(self, trace_id: str) -> list[str]:
        page = self.runtime.findings.page(limit=100)
        return [f.claim for f in page.items if f.trace_id == trace_id]

    def fallbacks(self, kind: str) -> float:
        value = self.runtime.registry.get_sample_value(
            "groundwatch_otlp_fallbacks_total", {"kind": kind}
        )
        return value or 0.0


@pytest.fixture(scope="module")
def service() -> Iterator[Service]:
    settings = Settings(
        api={"tokens": [TOKEN], "host": "127.0.0.1"},
        otel=OtelSettings(assembly_window_s=1.0),
        state="memory",
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


class Exporting:
    """A TracerProvider exporting to groundwatch the way an assistant would (batch processor +
    OTLPSpanExporter), with an in-memory copy only to learn the trace id of each request."""

    def __init__(self, service: Service, name: str):
        exporter = OTLPSpanExporter(
            endpoint=f"{service.url}/v1/traces",
            headers={"Authorization": f"Bearer {TOKEN}"},
            timeout=10,
        )
        self.provider = TracerProvider(resource=Resource.create({"service.name": name}))
        self.provider.add_span_processor(BatchSpanProcessor(exporter))
        self.memory = InMemorySpanExporter()
        self.provider.add_span_processor(SimpleSpanProcessor(self.memory))

    def run(self, request: Callable[[], Any]) -> tuple[str, Any]:
        """Run one request, flush its spans to groundwatch; return (hex trace id, its result)."""
        self.memory.clear()
        result = request()
        assert self.provider.force_flush(10_000)
        roots = [s for s in self.memory.get_finished_spans() if s.parent is None]
        trace_ids = {_hex(s) for s in roots}
        assert len(trace_ids) == 1, [s.name for s in roots]
        return trace_ids.pop(), result

    def shutdown(self) -> None:
        self.provider.shutdown()


def _hex(span: ReadableSpan) -> str:
    assert span.context is not None
    return format(span.context.trace_id, "032x")


def _assert_scored(
    service: Service,
    trace: RagTrace,
    *,
    texts: list[str],
    ids: list[str],
    scores: list[float],
    model: str,
) -> None:
    assert trace.question == QUESTION
    assert [c.text for c in trace.contexts] == texts
    assert [c.id for c in trace.contexts] == ids
    assert [c.rank for c in trace.contexts] == list(range(1, len(texts) + 1))
    assert [c.score for c in trace.contexts] == pytest.approx(scores)
    assert trace.answer == WRONG_ANSWER
    assert trace.attributes["model"] == model
    assert service.contradicted_claims(trace.trace_id) == [WRONG_ANSWER]


# -- LlamaIndex ------------------------------------------------------------------------------


def _word_vector(text: str, dim: int = 64) -> list[float]:
    """A bag-of-words embedding (hashed words), so that retrieval scores differ by overlap."""
    vec = [0.0] * dim
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        vec[int(hashlib.sha256(word.encode()).hexdigest(), 16) % dim] += 1.0
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


@dataclass
class LlamaApp:
    index: Any
    exporting: Exporting


@pytest.fixture(scope="module")
def llama(service: Service) -> Iterator[LlamaApp]:
    from llama_index.core import Document, Settings, VectorStoreIndex
    from llama_index.core.base.llms.types import (
        CompletionResponse,
        CompletionResponseGen,
        LLMMetadata,
    )
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.core.llms import CustomLLM
    from llama_index.core.llms.callbacks import llm_completion_callback
    from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

    class FakeLLM(CustomLLM):
        """Answers every prompt with WRONG_ANSWER; streams it word by word."""

        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(model_name="fake-llm-1")

        @llm_completion_callback()
        def complete(self, prompt: str, formatted: bool = False, **kw: Any) -> CompletionResponse:
            return CompletionResponse(text=WRONG_ANSWER)

        @llm_completion_callback()
        def stream_complete(
            self, prompt: str, formatted: bool = False, **kw: Any
        ) -> CompletionResponseGen:
            def gen() -> CompletionResponseGen:
                text = ""
                for word in WRONG_ANSWER.split(" "):
                    delta = f" {word}" if text else word
                    text += delta
                    yield CompletionResponse(text=text, delta=delta)

            return gen()

    class WordEmbedding(BaseEmbedding):
        def _get_text_embedding(self, text: str) -> list[float]:
            return _word_vector(text)

        def _get_query_embedding(self, query: str) -> list[float]:
            return _word_vector(query)

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return _word_vector(query)

    saved = (Settings._llm, Settings._embed_model, Settings._tokenizer)
    Settings.llm = FakeLLM()
    Settings.embed_model = WordEmbedding(model_name="words")
    Settings.tokenizer = str.split  # offline: no tiktoken download
    exporting = Exporting(service, "llama-assistant")
    instrumentor = LlamaIndexInstrumentor()
    instrumentor.instrument(tracer_provider=exporting.provider)
    try:
        index = VectorStoreIndex.from_documents(
            [Document(text=text, id_=doc_id) for doc_id, text in KNOWLEDGE]
        )
        yield LlamaApp(index, exporting)
    finally:
        instrumentor.uninstrument()
        exporting.shutdown()
        Settings._llm, Settings._embed_model, Settings._tokenizer = saved


def _nodes(response: Any) -> dict[str, list[Any]]:
    nodes = response.source_nodes
    return {
        "texts": [n.node.get_content() for n in nodes],
        "ids": [n.node.node_id for n in nodes],
        "scores": [n.score for n in nodes],
    }


def test_llama_index_query(service: Service, llama: LlamaApp) -> None:
    engine = llama.index.as_query_engine(similarity_top_k=2)
    trace_id, response = llama.exporting.run(lambda: engine.query(QUESTION))
    assert str(response) == WRONG_ANSWER
    trace = service.wait_trace(trace_id)
    nodes = _nodes(response)
    assert nodes["texts"][0] == "The refund window is 30 days."
    assert nodes["scores"][0] > nodes["scores"][1]
    _assert_scored(service, trace, **nodes, model="fake-llm-1")


def test_llama_index_streaming_query_scores_the_streamed_answer(
    service: Service, llama: LlamaApp
) -> None:
    engine = llama.index.as_query_engine(similarity_top_k=2, streaming=True)
    before = service.fallbacks("answer_earlier_llm_span")

    def stream() -> Any:
        response = engine.query(QUESTION)
        assert "".join(response.response_gen) == WRONG_ANSWER
        return response

    trace_id, response = llama.exporting.run(stream)
    trace = service.wait_trace(trace_id)
    # The last LLM span (*.stream) has no output; the answer is *.stream_complete's, not the
    # root's JSON {"response_gen": "<generator object>", ...}.
    _assert_scored(service, trace, **_nodes(response), model="fake-llm-1")
    assert service.fallbacks("answer_earlier_llm_span") == before + 1


def test_llama_index_chat_engine(service: Service, llama: LlamaApp) -> None:
    engine = llama.index.as_chat_engine(chat_mode="condense_plus_context", similarity_top_k=2)
    trace_id, response = llama.exporting.run(lambda: engine.chat(QUESTION))
    assert str(response) == WRONG_ANSWER
    trace = service.wait_trace(trace_id)
    _assert_scored(service, trace, **_nodes(response), model="fake-llm-1")


# -- LangChain -------------------------------------------------------------------------------


def _lcel_chain() -> tuple[Any, list[Any]]:
    """retriever -> prompt -> chat model -> parser; the retriever puts id and score in metadata,
    as vector-store retrievers do. Returns the chain and the documents it will retrieve."""
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.outputs import ChatResult
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnablePassthrough

    def overlap(query: str, text: str) -> float:
        q, t = (set(re.findall(r"[a-z0-9]+", s.lower())) for s in (query, text))
        return round(len(q & t) / len(q | t), 4)

    class KeywordRetriever(BaseRetriever):
        k: int = 2

        def _get_relevant_documents(
            self, query: str, *, run_manager: CallbackManagerForRetrieverRun
        ) -> list[Document]:
            docs = [
                Document(
                    page_content=text,
                    metadata={"doc_id": doc_id, "score": overlap(query, text), "source": "kb"},
                )
                for doc_id, text in KNOWLEDGE
            ]
            return sorted(docs, key=lambda d: -d.metadata["score"])[: self.k]

    class FakeChatModel(FakeListChatModel):
        """Names its model as provider chat models do: invocation params + response metadata."""

        model_name: str = "fake-chat-1"

        @property
        def _identifying_params(self) -> dict[str, Any]:
            return {**super()._identifying_params, "model_name": self.model_name}

        def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
            result = super()._generate(*args, **kwargs)
            for generation in result.generations:
                generation.message.response_metadata["model_name"] = self.model_name
            return result

    retriever = KeywordRetriever()
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer from the context only.\n{context}"), ("human", "{question}")]
    )
    model = FakeChatModel(responses=[WRONG_ANSWER])
    chain = (
        {
            "context": retriever | (lambda docs: "\n\n".join(d.page_content for d in docs)),
            "question": RunnablePassthrough(),
        }
        | prompt
        | model
        | StrOutputParser()
    )
    return chain, retriever.invoke(QUESTION)


def _run_langchain(service: Service, instrumentor: Any, name: str) -> tuple[RagTrace, list[Any]]:
    exporting = Exporting(service, name)
    instrumentor.instrument(tracer_provider=exporting.provider)
    try:
        chain, docs = _lcel_chain()  # the retriever call here is not exported: cleared below
        trace_id, answer = exporting.run(lambda: chain.invoke(QUESTION))
    finally:
        instrumentor.uninstrument()
        exporting.shutdown()
    assert answer == WRONG_ANSWER
    return service.wait_trace(trace_id), docs


def _doc_fields(docs: list[Any]) -> dict[str, list[Any]]:
    return {
        "texts": [d.page_content for d in docs],
        "ids": [d.metadata["doc_id"] for d in docs],
        "scores": [d.metadata["score"] for d in docs],
    }


def test_langchain_lcel_openinference(service: Service) -> None:
    from openinference.instrumentation.langchain import LangChainInstrumentor

    before = service.fallbacks("score_from_metadata")
    trace, docs = _run_langchain(service, LangChainInstrumentor(), "lc-openinference")
    assert docs[0].page_content == "The refund window is 30 days."
    assert docs[0].metadata["score"] > docs[1].metadata["score"]
    _assert_scored(service, trace, **_doc_fields(docs), model="fake-chat-1")
    assert service.fallbacks("score_from_metadata") == before + 1
    assert service.fallbacks("id_from_metadata") >= 1


def test_langchain_lcel_openllmetry(service: Service) -> None:
    from opentelemetry.instrumentation.langchain import LangchainInstrumentor

    trace, docs = _run_langchain(service, LangchainInstrumentor(), "lc-openllmetry")
    _assert_scored(service, trace, **_doc_fields(docs), model="fake-chat-1")
