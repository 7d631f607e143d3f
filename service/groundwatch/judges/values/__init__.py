"""Values and answer entities, accounted for: every value a claim states is aligned to the
evidence value that states the same attribute (:mod:`.stated`, :mod:`.alignment`), a short
answer's name to the name the evidence gives for the question's relation (:mod:`.names`), and
every judge backend's verdicts are checked against that account (:mod:`.checked`)."""

from groundwatch.judges.values.alignment import ValueAccount, account_values
from groundwatch.judges.values.checked import VALUES_VERSION, ValueCheckedJudge
from groundwatch.judges.values.stated import StatedValue, stated_values

__all__ = [
    "VALUES_VERSION",
    "StatedValue",
    "ValueAccount",
    "ValueCheckedJudge",
    "account_values",
    "stated_values",
]
