"""Values and answer entities, accounted for. Numbers, quantities and units (:mod:`.units`,
:mod:`.spelled`, :mod:`.measures`, :mod:`.quantities`), the slots a sentence fills
(:mod:`.entities`, :mod:`.slots`), whether two of them agree (:mod:`.agreement`), and the account of
a claim's values against the evidence: every value a claim states is aligned to the evidence value
that states the same attribute (:mod:`.stated`, :mod:`.alignment`), a short answer's name to the
name the evidence gives for the question's relation (:mod:`.names`). Values never import claim
construction (:mod:`groundwatch.judges.claims`); the judge that applies the account to every
backend's verdicts is :mod:`groundwatch.judges.checked`."""

from groundwatch.judges.values.alignment import ValueAccount, account_values
from groundwatch.judges.values.stated import StatedValue, stated_values

__all__ = [
    "StatedValue",
    "ValueAccount",
    "account_values",
    "stated_values",
]
