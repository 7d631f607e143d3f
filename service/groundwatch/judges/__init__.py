"""Judges: a RagTrace in, verdicts per claim out. The judge protocol (``base``); the concepts
as floors, kept by the ``judges-floors`` import contract: ``text`` (words, grammar, sentences,
negation cues) < ``values`` (quantities, units, slots, the values account) < ``claims`` (claim
construction, short answers read with their question) < ``rules`` (the conflict rules) and
``remote`` (the ``openai``, ``nli`` and ``tei`` backends). Above them the local backends
(``embedded``, ``verified`` with ``verifier``), the values check every backend is wrapped in
(``checked``), the sentence embedding model (``embedding``) and ``factory.build_judge``.
Judges import only ``contract``, the settings sections and each other: never state, the API or
the CLI.
"""

from groundwatch.judges.base import ClaimJudgement, Judge, JudgeError, TraceJudgement

__all__ = ["ClaimJudgement", "Judge", "JudgeError", "TraceJudgement"]
