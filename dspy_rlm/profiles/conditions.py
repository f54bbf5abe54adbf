"""What a counting or ranking read applies to: the tests a question states ("starting with G", "below 100") and
their operands, the fields a test holds in, the fields any word of the question names, and whether a value is
always held whole (so counting the records that contain it counts the value). Used by
:mod:`dspy_rlm.profiles.kinds`; the words themselves live in :mod:`dspy_rlm.profiles.vocabulary`.
"""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.reads import field_stems, norm
from dspy_rlm.profiles.vocabulary import CUE_WORDS, ENGLISH, TESTS

__all__ = ["SAID", "SCAN", "always_whole", "holders", "loose_fields", "operands"]


SAID = {"starts": "starts with", "ends": "ends with", "contains": "contains", "part": "has the part"}
SAID.update({"<": "is below", ">": "is above"})
_EDGE = "?.,;:!\"'()"
SCAN = 2000
"""Records a counting test is tried on to find the fields it applies to (the count itself reads all)."""


def operands(book: Any, var: str) -> list[tuple[str, str]]:
    """(test, operand) pairs the question states: the word after a test phrase ("starting with G", "below
    100"), and each key phrase found in the data as a part of a field or a word in it."""
    out: list[tuple[str, str]] = []
    for test, phrases in TESTS.items():
        for phrase in phrases:
            for m in re.finditer(rf"(?<!\w){re.escape(phrase)}\s+(\S+)", book.text_q, re.IGNORECASE):
                arg = m.group(1).strip(_EDGE)
                if arg and (test not in ("<", ">") or lookup._number(arg) is not None):
                    out.append((test, arg.rstrip("/") or arg))
    out += [("key", k.text) for k in book.keys.get(var, []) if k.records and not k.beyond]
    return list(dict.fromkeys(out))


def holders(book: Any, var: str, test: str, arg: str) -> list[str]:
    """The fields in which some of the first records pass ``test`` against ``arg``; a number is compared only in
    fields that mostly hold one ("below 100" does not test a name that holds a digit)."""
    memo = ("holders", var, test, arg)
    if memo in book.memo:
        return list(book.memo[memo])
    records = book.structs[var].records[:SCAN]
    out = []
    for f in book.structs[var].field_names[:12]:
        values = [v for v in (r.get(f) for r in records) if v and v.strip()]
        if test in ("<", ">") and sum(lookup._number(v) is not None for v in values) < 0.5 * max(1, len(values)):
            continue
        if any(lookup.passes(v, test, arg) for v in values):
            out.append(f)
    book.memo[memo] = out
    return list(out)


def loose_fields(book: Any, var: str) -> set[str]:
    """Fields named by any content word of the question, the counted noun included ("how many countries have
    a name ..." names the field "name of country")."""
    if ("loose", var) not in book.memo:
        said = {st.stem(w) for w in st.words(book.text_q.casefold()) if w not in ENGLISH and w not in CUE_WORDS}
        book.memo[("loose", var)] = {f for f in book.structs[var].field_names if field_stems(f) & said}
    return set(book.memo[("loose", var)])


def always_whole(book: Any, var: str, phrase: str) -> bool:
    """Whether every record holding ``phrase`` holds it as a whole value or a whole part of one (``US`` in
    ``CA,US``), so counting the records that contain it counts the value."""
    said = norm(phrase)
    for r in book.structs[var].records:
        if lookup._has(r, phrase) and not any(
            norm(v) == said or any(norm(p) == said for p in lookup.parts_of(v)) for _, v in r.fields
        ):
            return False
    return True
