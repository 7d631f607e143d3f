"""Claim construction: an answer split into self-contained claims (:mod:`.extract`,
:mod:`.split`), a short answer read with its question (:mod:`.short_answers`), what a claim is
about (:mod:`.target`) and the claims prepared against the evidence (:mod:`.preparation`).
Every backend judges the claims built here."""
