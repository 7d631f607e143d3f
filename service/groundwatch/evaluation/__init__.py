"""Evaluation: a trace in, an evaluation record out, recorded durably. The evaluator (judge
verdicts to metrics), the trace processor shared by every ingest path (observe, sample,
evaluate, redact, record), the in-process evaluation queue of the sidecar paths, batch scoring
(``groundwatch evaluate``) and PII redaction.

Modules: ``evaluator``, ``processing``, ``queue``, ``batch``, ``redaction`` and its detectors
(``pii_detectors``).
"""

__all__ = ["batch", "evaluator", "pii_detectors", "processing", "queue", "redaction"]
