"""Regenerate the captured OTLP payloads of tests/otel_payloads/*.json from the real libraries.

Each scenario runs a small offline RAG app (fake LLM, five questions, one answer contradicting its
passage) instrumented by one library at a pinned version, and exports through that library's own
OTLP/HTTP exporter to a loopback capture server, which writes what it received (path, content type,
body as base64) to ``tests/otel_payloads/<scenario>.json``. The libraries conflict with each
other's pins (and with the dev environment), so each scenario runs in a scratch virtual
environment built from the requirement lines in :data:`SCENARIOS`::

    python3.11 -m venv /tmp/v && /tmp/v/bin/pip install <the scenario's requirements>
    /tmp/v/bin/python tests/otel_payloads/capture.py <scenario>

``python tests/otel_payloads/capture.py --list`` prints the scenarios and their requirements;
``capture.py <scenario> --to http://127.0.0.1:8080`` exports to a running groundwatch instead
(tests/test_otel_libraries_live.py drives the libraries installed in the dev environment so).
Nothing here is imported by the service or the tests; the tests read the JSON files.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import hashlib
import json
import math
import os
import re
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

OTEL_45 = "opentelemetry-sdk==1.45.2 opentelemetry-exporter-otlp-proto-http==1.45.2"
OTEL_39 = (
    "opentelemetry-sdk==1.39.1 opentelemetry-exporter-otlp-proto-http==1.39.1 "
    "opentelemetry-instrumentation==0.60b1 opentelemetry-semantic-conventions==0.60b1 wrapt<2"
)
OTEL_37 = (
    "opentelemetry-sdk==1.37.0 opentelemetry-exporter-otlp-proto-http==1.37.0 "
    "opentelemetry-instrumentation==0.58b0 opentelemetry-semantic-conventions==0.58b0 wrapt<2"
)
_TL62 = (
    "opentelemetry-instrumentation-llamaindex==0.62.4 opentelemetry-instrumentation-langchain==0.62.4 "
    "opentelemetry-instrumentation-openai==0.62.4 llama-index-core==0.14.25 "
    f"llama-index-llms-openai==0.8.3 openai==2.54.0 langchain-core==1.8.3 {OTEL_45}"
)
_OPENAI_V2_24 = (
    "opentelemetry-instrumentation-openai-v2==2.4b0 opentelemetry-util-genai==0.4b0 "
    f"openai==3.63.0 httpx==0.29.0 {OTEL_39}"
)
# The requirements each scenario was captured with (one scratch environment per line).
SCENARIOS: dict[str, str] = {
    "openllmetry-0.62-llamaindex": _TL62,
    "openllmetry-0.62-llamaindex-openai": _TL62,
    "openllmetry-0.62-langchain": _TL62,
    "openllmetry-0.47-langchain": (
        f"opentelemetry-instrumentation-langchain==0.47.5 langchain-core==0.3.86 {OTEL_37}"
    ),
    "langfuse-3": "langfuse==3.15.0",
    "langfuse-5": "langfuse==5.2.0",
    "genai-openai-v2-span": _OPENAI_V2_24,
    "genai-openai-v2-system": _OPENAI_V2_24,
    "genai-openai-v2-logs": (
        f"opentelemetry-instrumentation-openai-v2==2.3b0 openai==3.63.0 httpx==0.29.0 {OTEL_37}"
    ),
}

KNOWLEDGE = [
    ("refund", "The refund window is 30 days."),
    ("shipping", "Shipping takes 5 business days."),
    ("warranty", "The warranty covers the battery for 2 years."),
    ("support", "Support is open from 9 to 17 on weekdays."),
    ("returns", "Returns need the original receipt and 2 signed forms."),
]
# question -> the fake LLM's answer; the first contradicts its passage (90 days, not 30).
ANSWERS = {
    "How long is the refund window?": "The refund window is 90 days.",
    "How long does shipping take?": "Shipping takes 5 business days.",
    "How long does the battery warranty last?": "The warranty covers the battery for 2 years.",
    "When is support open?": "Support is open from 9 to 17 on weekdays.",
    "What do returns need?": "Returns need the original receipt and 2 signed forms.",
}
MODEL = "fake-llm-1"


def answer_for(prompt: str) -> str:
    """The fake LLM: the answer of the (last) question found in the prompt."""
    found = [(prompt.rfind(q), a) for q, a in ANSWERS.items() if q in prompt]
    return max(found)[1] if found else "I do not know."


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def overlap(query: str, text: str) -> float:
    q, t = words(query), words(text)
    return round(len(q & t) / len(q | t), 4)


def top_passages(query: str, k: int = 2) -> list[tuple[str, str, float]]:
    ranked = sorted(((i, t, overlap(query, t)) for i, t in KNOWLEDGE), key=lambda x: -x[2])
    return ranked[:k]


def word_vector(text: str, dim: int = 64) -> list[float]:
    vec = [0.0] * dim
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        vec[int(hashlib.sha256(word.encode()).hexdigest(), 16) % dim] += 1.0
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


# -- capture server -------------------------------------------------------------------------


class Capture:
    """A loopback HTTP server that keeps every POST body (OTLP exports) and answers 200; it
    also plays a fake OpenAI chat-completions endpoint for the openai-v2 scenarios."""

    def __init__(self) -> None:
        self.requests: list[dict[str, str]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                if self.headers.get("content-encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path.endswith("/chat/completions"):
                    self._chat(json.loads(body))
                    return
                owner.requests.append(
                    {
                        "path": self.path,
                        "content_type": self.headers.get("content-type", ""),
                        "body_b64": base64.b64encode(body).decode(),
                    }
                )
                self.send_response(200)
                self.send_header("content-type", self.headers.get("content-type", ""))
                self.send_header("content-length", "0")
                self.end_headers()

            def _chat(self, request: dict[str, Any]) -> None:
                prompt = "\n".join(str(m.get("content")) for m in request["messages"])
                reply = {
                    "id": "chatcmpl-1",
                    "object": "chat.completion",
                    "created": 1_700_000_000,
                    "model": request["model"],
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": answer_for(prompt)},
                        }
                    ],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                }
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.export_url = self.url  # where the OTLP exporters send (main's --to)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _versions(names: list[str]) -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in names:
        with contextlib.suppress(PackageNotFoundError):
            out[name] = version(name)
    return out


def _provider(capture: Capture, service: str) -> Any:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    exporter = OTLPSpanExporter(endpoint=f"{capture.export_url}/v1/traces", timeout=10)
    provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


# -- scenarios ------------------------------------------------------------------------------


def openllmetry_llamaindex(capture: Capture, openai_llm: bool = False) -> dict[str, str]:
    from llama_index.core import Document, Settings, VectorStoreIndex
    from llama_index.core.base.llms.types import CompletionResponse, LLMMetadata
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.core.llms import CustomLLM
    from llama_index.core.llms.callbacks import llm_completion_callback
    from opentelemetry.instrumentation.llamaindex import LlamaIndexInstrumentor

    class FakeLLM(CustomLLM):
        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(model_name=MODEL)

        @llm_completion_callback()
        def complete(self, prompt: str, formatted: bool = False, **kw: Any) -> CompletionResponse:
            return CompletionResponse(text=answer_for(prompt))

        @llm_completion_callback()
        def stream_complete(self, prompt: str, formatted: bool = False, **kw: Any) -> Any:
            raise NotImplementedError

    class WordEmbedding(BaseEmbedding):
        def _get_text_embedding(self, text: str) -> list[float]:
            return word_vector(text)

        def _get_query_embedding(self, query: str) -> list[float]:
            return word_vector(query)

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return word_vector(query)

    Settings.llm = FakeLLM()
    if openai_llm:  # LlamaIndex's OpenAI class against the capture server's fake endpoint
        from llama_index.llms.openai import OpenAI

        Settings.llm = OpenAI(model="gpt-4o-mini", api_base=f"{capture.url}/v1", api_key="sk-t")
    Settings.embed_model = WordEmbedding(model_name="words")
    Settings.tokenizer = str.split
    index = VectorStoreIndex.from_documents([Document(text=t, id_=i) for i, t in KNOWLEDGE])
    provider = _provider(capture, "llama-openllmetry")
    LlamaIndexInstrumentor().instrument(tracer_provider=provider)
    if openai_llm:  # as traceloop-sdk does: its OpenAI instrumentation beside LlamaIndex's
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor

        OpenAIInstrumentor().instrument(tracer_provider=provider)
    engine = index.as_query_engine(similarity_top_k=2)
    for question in ANSWERS:
        engine.query(question)
    provider.shutdown()
    names = ["opentelemetry-instrumentation-llamaindex", "llama-index-core"]
    extra = ["llama-index-llms-openai", "opentelemetry-instrumentation-openai", "openai"]
    return _versions(names + (extra if openai_llm else []))


def _lcel_chain() -> Any:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnablePassthrough

    class KeywordRetriever(BaseRetriever):
        def _get_relevant_documents(
            self, query: str, *, run_manager: CallbackManagerForRetrieverRun
        ) -> list[Document]:
            return [
                Document(page_content=t, metadata={"doc_id": i, "score": s, "source": "kb"})
                for i, t, s in top_passages(query)
            ]

    class FakeChatModel(FakeListChatModel):
        model_name: str = MODEL
        responses: list[str] = ["unused"]  # noqa: RUF012 (a pydantic field, copied per model)

        def _generate(self, messages: Any, *args: Any, **kwargs: Any) -> ChatResult:
            prompt = "\n".join(str(m.content) for m in messages)
            message = AIMessage(content=answer_for(prompt))
            message.response_metadata["model_name"] = self.model_name
            return ChatResult(generations=[ChatGeneration(message=message)])

    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer from the context only.\n{context}"), ("human", "{question}")]
    )
    return (
        {
            "context": KeywordRetriever() | (lambda d: "\n\n".join(x.page_content for x in d)),
            "question": RunnablePassthrough(),
        }
        | prompt
        | FakeChatModel()
        | StrOutputParser()
    )


def openllmetry_langchain(capture: Capture) -> dict[str, str]:
    from opentelemetry.instrumentation.langchain import LangchainInstrumentor

    provider = _provider(capture, "lc-openllmetry")
    LangchainInstrumentor().instrument(tracer_provider=provider)
    chain = _lcel_chain()
    for question in ANSWERS:
        chain.invoke(question)
    provider.shutdown()
    return _versions(["opentelemetry-instrumentation-langchain", "langchain-core"])


def langfuse_app(capture: Capture) -> dict[str, str]:
    os.environ.update(
        LANGFUSE_PUBLIC_KEY="pk-lf-test",
        LANGFUSE_SECRET_KEY="sk-lf-test",
        LANGFUSE_HOST=capture.export_url,
        LANGFUSE_BASE_URL=capture.export_url,
        LANGFUSE_TRACING_ENVIRONMENT="test",
    )
    from langfuse import get_client, observe

    @observe(as_type="retriever")
    def retrieve(query: str) -> list[dict[str, Any]]:
        return [{"id": i, "text": t, "score": s} for i, t, s in top_passages(query)]

    @observe(as_type="generation")
    def generate(messages: list[dict[str, str]]) -> dict[str, str]:
        get_client().update_current_generation(model=MODEL)
        prompt = "\n".join(m["content"] for m in messages)
        return {"role": "assistant", "content": answer_for(prompt)}

    @observe()
    def rag(question: str) -> str:
        docs = retrieve(question)
        context = "\n".join(d["text"] for d in docs)
        message = generate(
            [
                {"role": "system", "content": f"Answer from the context only.\n{context}"},
                {"role": "user", "content": question},
            ]
        )
        return message["content"]

    for question in ANSWERS:
        rag(question)
    get_client().flush()
    get_client().shutdown()
    return _versions(["langfuse"])


def _openai_v2(capture: Capture, *, logs: bool, system_only: bool) -> dict[str, str]:
    from openai import OpenAI
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    provider = _provider(capture, "openai-v2-rag")
    kwargs: dict[str, Any] = {"tracer_provider": provider}
    logger_provider = None
    if logs:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor

        logger_provider = LoggerProvider()
        exporter = OTLPLogExporter(endpoint=f"{capture.export_url}/v1/logs", timeout=10)
        logger_provider.add_log_record_processor(BatchLogRecordProcessor(exporter))
        kwargs["logger_provider"] = logger_provider
    OpenAIInstrumentor().instrument(**kwargs)
    client = OpenAI(base_url=f"{capture.url}/v1", api_key="sk-test")
    tracer = provider.get_tracer("rag-app")
    for question in ANSWERS:
        with tracer.start_as_current_span("rag.request"):
            passages = top_passages(question)
            with tracer.start_as_current_span("retrieval kb") as span:
                # The GenAI retrieval span: operation, data source, query, documents.
                span.set_attribute("gen_ai.operation.name", "retrieval")
                span.set_attribute("gen_ai.data_source.id", "kb")
                span.set_attribute("gen_ai.retrieval.query.text", question)
                docs = [
                    {"id": i, "score": s} if system_only else {"id": i, "score": s, "content": t}
                    for i, t, s in passages
                ]
                span.set_attribute("gen_ai.retrieval.documents", json.dumps(docs))
            context = "\n\n".join(t for _, t, _ in passages)
            client.chat.completions.create(
                model=MODEL,
                messages=[
                    {"role": "system", "content": f"Answer from the context only.\n\n{context}"},
                    {"role": "user", "content": question},
                ],
            )
    provider.shutdown()
    if logger_provider is not None:
        logger_provider.shutdown()
    return _versions(
        ["opentelemetry-instrumentation-openai-v2", "opentelemetry-util-genai", "openai"]
    )


RUNNERS: dict[str, tuple[Callable[[Capture], dict[str, str]], dict[str, str]]] = {
    "openllmetry-0.62-llamaindex": (openllmetry_llamaindex, {}),
    "openllmetry-0.62-llamaindex-openai": (lambda c: openllmetry_llamaindex(c, True), {}),
    "openllmetry-0.62-langchain": (openllmetry_langchain, {}),
    "openllmetry-0.47-langchain": (openllmetry_langchain, {}),
    "langfuse-3": (langfuse_app, {}),
    "langfuse-5": (langfuse_app, {}),
    "genai-openai-v2-span": (
        lambda c: _openai_v2(c, logs=False, system_only=False),
        {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "span_only"},
    ),
    "genai-openai-v2-system": (
        lambda c: _openai_v2(c, logs=False, system_only=True),
        {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "span_only"},
    ),
    "genai-openai-v2-logs": (
        lambda c: _openai_v2(c, logs=True, system_only=False),
        {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"},
    ),
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] == "--list":
        for name, requirements in SCENARIOS.items():
            print(f"{name}: {requirements}")
        return 0
    name = argv[0]
    runner, env = RUNNERS[name]
    os.environ.update(env)
    os.environ.setdefault("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    capture = Capture()
    if argv[1:2] == ["--to"]:  # live: export to a running groundwatch instead of capturing
        capture.export_url = argv[2].rstrip("/")
    try:
        versions = runner(capture)
        time.sleep(0.5)
    finally:
        capture.close()
    if capture.export_url != capture.url:
        print(f"{name}: exported to {capture.export_url}")
        return 0
    out = {
        "scenario": name,
        "versions": versions,
        "settings": env,
        "questions": list(ANSWERS),
        "requests": capture.requests,
    }
    path = HERE / f"{name}.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"{path}: {len(capture.requests)} requests")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
