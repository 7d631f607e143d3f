"""Observability: how groundwatch reports. Process-local Prometheus pipeline metrics, the
scrape-time collectors (windows and drift, judge usage, embedding cache), and OpenTelemetry
(groundwatch's own spans and GenAI evaluation-result events).

Modules: ``metrics``, ``windows_collector``, ``judge_collector``, ``cache_collector``,
``telemetry``. It sits above ``judges`` and ``state`` because its collectors read them.
"""

__all__ = ["cache_collector", "judge_collector", "metrics", "telemetry", "windows_collector"]
