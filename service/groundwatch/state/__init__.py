"""State: what the pipeline remembers across traces and replicas. The store interfaces, the
time-bucketed window stores (memory and Redis), findings kept for triage, the pinned drift
baseline, bounded slice labels and the drift statistics computed from windows.

Modules: ``stores`` (interfaces), ``buckets`` (bucket layout and summaries), ``bucket_reader``
(the read side shared by every window store), ``windows`` (in-memory window store),
``findings`` (in-memory finding store), ``redis_store``, ``redis_findings`` (the Redis finding
store), ``baseline``, ``slices``, ``drift``.
"""

__all__ = [
    "baseline",
    "bucket_reader",
    "buckets",
    "drift",
    "findings",
    "redis_findings",
    "redis_store",
    "slices",
    "stores",
    "windows",
]
