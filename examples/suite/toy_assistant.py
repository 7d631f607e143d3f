"""A deterministic toy RAG assistant over ``kb.jsonl``, for the suite's worked example.

Usage::

    python examples/suite/toy_assistant.py --config baseline.json  -o traces-base.jsonl
    python examples/suite/toy_assistant.py --config candidate.json -o traces-cand.jsonl

Retrieval: one passage per knowledge-base sentence, scored by the share of the question's content
words it holds (ties broken by document order), optionally filtered on the document's
``updated`` year (``min_updated``), top ``top_k`` kept. Generation: the best-scoring retrieved
sentence, verbatim; a refusal when no passage shares at least ``min_overlap`` content words with
the question. No randomness, no model: the same config always gives the same traces.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
STOP = {
    "a",
    "an",
    "the",
    "is",
    "are",
    "was",
    "were",
    "be",
    "do",
    "does",
    "did",
    "can",
    "i",
    "my",
    "you",
    "your",
    "we",
    "our",
    "of",
    "to",
    "for",
    "in",
    "on",
    "at",
    "by",
    "with",
    "and",
    "or",
    "how",
    "what",
    "when",
    "where",
    "which",
    "who",
    "whom",
    "why",
    "it",
    "its",
    "this",
    "that",
    "there",
    "much",
    "many",
    "long",
    "per",
    "if",
    "after",
    "from",
    "as",
    "any",
}
REFUSAL = "I'm sorry, I don't have information about that."


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9$]+", text.lower()) if w not in STOP}


def passages() -> list[dict[str, Any]]:
    out = []
    for line in (HERE / "kb.jsonl").read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        for i, sentence in enumerate(re.split(r"(?<=\.)\s+", doc["text"])):
            out.append(
                {
                    "id": f"{doc['doc_id']}#{i}",
                    "doc_id": doc["doc_id"],
                    "text": sentence,
                    "source": doc["source"],
                    "updated": doc["updated"],
                }
            )
    return out


def answer(question: str, config: dict[str, Any], kb: list[dict[str, Any]]) -> dict[str, Any]:
    q = words(question)
    pool = [p for p in kb if p["updated"] >= int(config.get("min_updated", 0))]
    scored = sorted(
        ((len(q & words(p["text"])) / max(1, len(q)), -i, p) for i, p in enumerate(pool)),
        key=lambda t: (t[0], t[1]),
        reverse=True,
    )[: int(config.get("top_k", 3))]
    contexts = [
        {
            "id": p["id"],
            "doc_id": p["doc_id"],
            "text": p["text"],
            "score": round(s, 4),
            "rank": r,
            "source": p["source"],
        }
        for r, (s, _, p) in enumerate(scored, start=1)
    ]
    best = max(scored, key=lambda t: len(q & words(t[2]["text"])), default=None)
    overlap = len(q & words(best[2]["text"])) if best else 0
    text = best[2]["text"] if best and overlap >= int(config.get("min_overlap", 2)) else REFUSAL
    return {"question": question, "contexts": contexts, "answer": text}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", required=True, help="JSON file with top_k, min_updated...")
    parser.add_argument("--cases", default=str(HERE / "cases.jsonl"))
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    config = json.loads(Path(args.config).read_text(encoding="utf-8"))
    kb = passages()
    with open(args.output, "w", encoding="utf-8") as out:
        for line in Path(args.cases).read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            trace = {"trace_id": case["id"], **answer(case["question"], config, kb)}
            out.write(json.dumps(trace) + "\n")


if __name__ == "__main__":
    main()
