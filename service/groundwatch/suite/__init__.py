"""The offline evaluation suite: labelled cases, stage metrics, baseline vs candidate, gate.

Modules: ``cases`` (eval case contract v1, loading with line numbers), ``matching`` (gold
evidence against retrieved passages), ``retrieval`` (rank metrics), ``generation`` (judge-decided
correctness, nuggets, abstention, the 2×2), ``record`` (the eval record), ``runner``
(``suite run``), ``compare`` (paired bootstrap, flips), ``gate``, ``report`` (terminal and
Markdown), ``html_report``, ``hygiene`` (evidence still in the corpus), ``calibration`` (judge
against human labels), ``findings_export`` (findings as draft cases).

Imports nothing heavy: each module is imported where it is used.
"""

__all__ = [
    "calibration",
    "cases",
    "compare",
    "findings_export",
    "gate",
    "generation",
    "html_report",
    "hygiene",
    "matching",
    "record",
    "report",
    "retrieval",
    "runner",
]
