"""Checks a ranking's winner must pass: a row unlike its column (a header or a summary line read as a row), a tie
for the top count (the first seen would win: a toss), and a column whose values are each two signed numbers (which
one ranks is a guess)."""

from __future__ import annotations

import re

from dspy_rlm.library import structure as st
from dspy_rlm.library import superlatives
from dspy_rlm.profiles.candidates import FLOAT_RX

__all__ = ["odd_row", "several_numbers", "tied"]

_MISSING = re.compile(r":\w+:|[-\u2013\u2014?*]+|n/?a|none|null|tbd|unknown", re.IGNORECASE)


def odd_row(s: st.Structure, record: st.Record) -> bool:
    """Whether two or more of the record's values are not of their column's kind -- a number where nine in ten
    of the column's values are none, or the reverse: a header or summary line read as a row (iris.csv's first
    line of counts and class names outranks every measurement)."""
    rows = s.records[:2000]
    odd = 0
    for f, v in record.fields:
        values = [x.strip() for x in (r.get(f) for r in rows) if x and x.strip()]
        if len(values) < 10 or not v.strip() or _MISSING.fullmatch(v.strip()):  # ":skull:", "n/a": no value
            continue
        share = sum(bool(FLOAT_RX.match(x)) for x in values) / len(values)
        number = bool(FLOAT_RX.match(v.strip()))
        odd += (share >= 0.9 and not number) or (share <= 0.1 and number)
    return odd >= 2


def tied(s: st.Structure, field: str, within: str | None = None) -> bool:
    """Whether two values of ``field`` share the highest count (as :func:`superlatives.most_common` counts them, in
    the block ``within`` names where given): the first seen wins there, so the answer is a toss."""
    records = superlatives.records_within(s, within) if within is not None else None
    top = superlatives.value_counts(s, field, records).most_common(2)
    return len(top) == 2 and top[0][1] == top[1][1]


_TWO_NUMBERS = re.compile(r"[+-]\d+(?:\.\d+)?[+-]\d+(?:\.\d+)?")
"""Two signed numbers glued in one value: a coordinate's latitude and longitude (ISO 6709's ``+394421-1045903``)."""


def several_numbers(s: st.Structure, field: str) -> bool:
    """Whether half or more of ``field``'s values are two signed numbers (:data:`_TWO_NUMBERS`): ranked by the
    first, a coordinate's latitude beside its longitude, written to two precisions, is no answer."""
    values = [v.strip() for r in s.records[:500] if (v := r.get(field))]
    return bool(values) and sum(bool(_TWO_NUMBERS.fullmatch(v)) for v in values) * 2 >= len(values)
