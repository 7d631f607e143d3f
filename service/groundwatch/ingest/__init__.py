"""Ingest: turning what arrives into RagTraces. OTLP/HTTP decoding, assembly of one trace's spans
into a RagTrace, the GenAI / OpenInference semantic conventions read from span attributes, and
deterministic sampling. Depends on ``contract`` and ``settings`` only.

Modules: ``otlp_decode``, ``otlp_assembly``, ``semconv``, ``sampling``. The HTTP route that
receives OTLP lives in ``groundwatch.api.otlp``; the Kafka source in ``groundwatch_consumers``.
"""

__all__ = ["otlp_assembly", "otlp_decode", "sampling", "semconv"]
