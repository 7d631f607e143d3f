"""Generate the bundled demo traces (service/groundwatch/data/sample_traces.jsonl).

Deterministic (seeded). The first half is a healthy assistant; the second half is the same
assistant after a bad deploy: weaker retrieval (lower scores, off-topic passages), more answers
that contradict their passages, more refusals. Run: python scripts/make_sample_traces.py
"""

from __future__ import annotations

import json
import random
import zlib
from pathlib import Path

# (intent, question, supporting passage, correct answer, contradicting answer)
FACTS = [
    (
        "billing",
        "How long is the refund window for annual plans?",
        "Annual plans can be refunded within 30 days of purchase. After 30 days, refunds are not available.",
        "Annual plans can be refunded within 30 days of purchase.",
        "Annual plans can be refunded within 90 days of purchase.",
    ),
    (
        "billing",
        "Is the upgrade charge prorated?",
        "When you upgrade mid-cycle, the price difference is prorated to the day.",
        "Yes, the upgrade charge is prorated to the day.",
        "No, the upgrade charge is not prorated.",
    ),
    (
        "billing",
        "What does the Pro plan cost per month?",
        "The Pro plan costs $49 per month, billed monthly, or $470 per year.",
        "The Pro plan costs $49 per month.",
        "The Pro plan costs $59 per month.",
    ),
    (
        "account",
        "How many users can the Team plan have?",
        "The Team plan supports up to 25 users. Larger teams need the Enterprise plan.",
        "The Team plan supports up to 25 users.",
        "The Team plan supports up to 50 users.",
    ),
    (
        "account",
        "How long are deleted projects kept?",
        "Deleted projects are kept for 14 days and can be restored by an owner during that time.",
        "Deleted projects are kept for 14 days and an owner can restore them.",
        "Deleted projects are kept for 60 days.",
    ),
    (
        "security",
        "Is two-factor authentication mandatory for admins?",
        "Two-factor authentication is mandatory for all admin accounts since March 2024.",
        "Yes, two-factor authentication is mandatory for admin accounts since March 2024.",
        "Two-factor authentication is optional for admin accounts.",
    ),
    (
        "security",
        "Where is customer data stored for EU customers?",
        "Data of EU customers is stored in the Frankfurt region and never leaves the EU.",
        "EU customer data is stored in the Frankfurt region.",
        "EU customer data is stored in the Virginia region.",
    ),
    (
        "api",
        "What is the API rate limit on the Free plan?",
        "The Free plan allows 60 API requests per minute per token.",
        "The Free plan allows 60 API requests per minute per token.",
        "The Free plan allows 600 API requests per minute per token.",
    ),
    (
        "api",
        "Which API version is deprecated?",
        "API v1 was deprecated in January 2025 and will be removed in July 2025.",
        "API v1 was deprecated in January 2025.",
        "API v2 was deprecated in January 2025.",
    ),
    (
        "shipping",
        "How long does standard shipping take within Germany?",
        "Standard shipping within Germany takes 2 to 3 business days.",
        "Standard shipping within Germany takes 2 to 3 business days.",
        "Standard shipping within Germany takes 7 to 10 business days.",
    ),
    (
        "shipping",
        "Is express shipping available to Switzerland?",
        "Express shipping is not available to Switzerland; standard shipping takes 5 business days.",
        "Express shipping is not available to Switzerland.",
        "Express shipping is available to Switzerland.",
    ),
    (
        "hr",
        "How many vacation days do new employees get?",
        "New employees receive 28 vacation days per year, rising to 30 after five years.",
        "New employees get 28 vacation days per year.",
        "New employees get 20 vacation days per year.",
    ),
]

DISTRACTORS = [
    "Our office in Lisbon opened in 2019 and hosts the design team.",
    "The mobile app supports dark mode on iOS and Android.",
    "Webinars are recorded and published on the community forum.",
    "The status page lists incidents of the last 90 days.",
    "Gift cards cannot be exchanged for cash.",
    "The keyboard shortcut for search is Ctrl+K.",
]
REFUSAL = "I'm sorry, I couldn't find that information in the documentation."
TENANTS = ["acme", "globex", "initech", "umbrella"]


def make(n: int = 240, seed: int = 7) -> list[dict[str, object]]:
    rng = random.Random(seed)
    traces = []
    for i in range(n):
        shifted = i >= n // 2
        intent, question, passage, good, bad = rng.choice(FACTS)
        others = rng.sample([f[2] for f in FACTS if f[2] != passage], 2) + rng.sample(
            DISTRACTORS, 2
        )
        if shifted and rng.random() < 0.4:
            # Bad retrieval: the supporting passage is missing or ranked last.
            contexts = others if rng.random() < 0.5 else [*others, passage]
            top = rng.uniform(0.35, 0.6)
        else:
            contexts = [passage, *others[:3]]
            top = rng.uniform(0.75, 0.95)
        scores = sorted(
            (round(top - 0.08 * k - rng.uniform(0, 0.03), 3) for k in range(len(contexts))),
            reverse=True,
        )
        r = rng.random()
        if shifted:
            answer = bad if r < 0.45 else (REFUSAL if r < 0.6 else good)
        else:
            answer = bad if r < 0.06 else (REFUSAL if r < 0.09 else good)
        traces.append(
            {
                "trace_id": f"demo-{i:04d}",
                "question": question,
                "contexts": [
                    {
                        "id": f"kb-{zlib.crc32(c.encode()) % 10000:04d}",
                        "text": c,
                        "score": s,
                        "rank": k + 1,
                    }
                    for k, (c, s) in enumerate(zip(contexts, scores, strict=True))
                ],
                "answer": answer,
                "attributes": {
                    "intent": intent,
                    "tenant": rng.choice(TENANTS),
                    "model": "assistant-large",
                    "prompt_version": "v8" if shifted else "v7",
                },
            }
        )
    return traces


def main() -> None:
    out = (
        Path(__file__).resolve().parents[1]
        / "service"
        / "groundwatch"
        / "data"
        / "sample_traces.jsonl"
    )
    with out.open("w", encoding="utf-8") as fh:
        for trace in make():
            fh.write(json.dumps(trace, ensure_ascii=False) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
