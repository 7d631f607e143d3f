"""The conflict rules the embedded and verified judges share: value and slot conflicts
(:mod:`.claim_rules`), conflicting words (:mod:`.word_conflicts`), swapped roles (:mod:`.swap`)
and negated twins (:mod:`.negation_twin`)."""
