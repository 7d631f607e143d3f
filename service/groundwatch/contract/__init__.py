"""The contract: what a RAG assistant sends (trace contract v1), what groundwatch emits per scored
trace (evaluation record v1), and the JSON Schemas generated from both. The bottom layer: it
imports nothing else from groundwatch.

Modules: ``trace`` (RagTrace, decoding and limits), ``record`` (EvaluationRecord),
``schemas`` (``groundwatch schema``), ``text`` (normalisation applied on ingest).
"""

__all__ = ["record", "schemas", "text", "trace"]
