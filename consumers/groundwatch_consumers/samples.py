"""Sample traces for ``groundwatch produce-sample``: the bundled file if present, else
generated ones (deterministic for a seed). Trace ids are made unique per call.

Usage::

    produce_samples("127.0.0.1:9092", "rag.traces", 100)        # -> 100 (traces sent)
    traces = sample_traces(10, seed=1)                           # list of dicts
"""

from __future__ import annotations

import itertools
import json
import random
import uuid
from collections.abc import Iterator
from importlib import resources
from typing import Any

from groundwatch_consumers.publisher import TracePublisher

__all__ = ["produce_samples", "sample_traces"]

_FACTS = [
    (
        "How long is the warranty on the X200?",
        "The X200 comes with a 2-year warranty.",
        "The X200 has a 2-year warranty.",
        "warranty",
    ),
    (
        "Can I cancel my plan at any time?",
        "Plans can be cancelled at any time from settings.",
        "Yes, you can cancel at any time from the settings page.",
        "billing",
    ),
    (
        "What is the refund window?",
        "Refunds are accepted within 30 days of purchase.",
        "Refunds are accepted within 14 days of purchase.",
        "billing",
    ),  # contradicted
    (
        "Which regions is the service available in?",
        "The service runs in EU and US regions.",
        "I'm sorry, I don't have that information.",
        "support",
    ),  # false refusal
    (
        "Does the API support webhooks?",
        "Webhooks are available on the Pro plan.",
        "Yes, webhooks are available on the Pro plan.",
        "api",
    ),
]


def _bundled() -> list[dict[str, Any]]:
    try:
        text = (
            resources.files("groundwatch")
            .joinpath("data/sample_traces.jsonl")
            .read_text(encoding="utf-8")
        )
    except (FileNotFoundError, ModuleNotFoundError, OSError):
        return []
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _generated(rng: random.Random) -> Iterator[dict[str, Any]]:
    while True:
        question, passage, answer, intent = rng.choice(_FACTS)
        noise = rng.choice(_FACTS)[1]
        yield {
            "question": question,
            "contexts": [
                {"text": passage, "id": "p1", "score": round(rng.uniform(0.6, 0.95), 3)},
                {"text": noise, "id": "p2", "score": round(rng.uniform(0.2, 0.6), 3)},
            ],
            "answer": answer,
            "attributes": {
                "intent": intent,
                "tenant": rng.choice(["acme", "globex"]),
                "model": "assistant-v1",
            },
        }


def sample_traces(n: int, *, seed: int = 0, bundled: bool = True) -> list[dict[str, Any]]:
    """``n`` traces with fresh trace ids (bundled samples cycled, or generated)."""
    rng = random.Random(seed)
    base = _bundled() if bundled else []
    source: Iterator[dict[str, Any]] = itertools.cycle(base) if base else _generated(rng)
    run = uuid.UUID(int=rng.getrandbits(128)).hex[:8] if seed else uuid.uuid4().hex[:8]
    out = []
    for i, trace in enumerate(itertools.islice(source, n)):
        item = dict(trace)
        item["trace_id"] = f"sample-{run}-{i}"
        out.append(item)
    return out


def produce_samples(
    bootstrap: str, topic: str, n: int, *, seed: int = 0, **producer_config: Any
) -> int:
    """Publish ``n`` sample traces; returns how many were acknowledged."""
    with TracePublisher(bootstrap, topic, propagate_current_span=False, **producer_config) as pub:
        futures = [pub.publish(trace) for trace in sample_traces(n, seed=seed)]
        pub.flush()
    return sum(1 for f in futures if f.succeeded())
