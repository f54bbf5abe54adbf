"""Probe 40's wrong `Submitted` answers, on invented data: a ranking within the class the question writes as the
data names it ("the Event flag class": the class Event, whose name many other records mention, not the class
Flag), and a value joining names with OR / AND read as one expression, not a list of its words ("MIT OR
Apache-2.0" is the most common licence, not "MIT"). Each test fails before its change."""

from __future__ import annotations

import json

from dspy_rlm.library.items import list_items
from tests.dspy_rlm.scripted import ask_scripted

_CLASSES = {
    "Errno": [(f"E_{i}", str(100 + i)) for i in range(15)],
    "Flag": [("DONTWAIT", "1"), ("SNDMORE", "2")],
    "Event": [(f"EV_{i}", f"0x{1 << i:X}") for i in range(30)] + [("EV_TOP", "0x30000000")],
}
_FLAGS = (
    "from enum import IntEnum, IntFlag\n\n\n"
    + "".join(
        f"class {c}(IntFlag):\n" + "".join(f"    {n} = {v}\n" for n, v in members) + "\n\n"
        for c, members in _CLASSES.items()
    )
    # each member again at the top, its class named: the word Event in more records than a key phrase may hold
    + "".join(f"{n}: {c} = {c}.{n}\n" for c, members in _CLASSES.items() for n, _ in members)
    + "\n__all__ = [\n"
    + "".join(f'    "{c}",\n' for c in _CLASSES)
    + "".join(f'    "{n}",\n' for members in _CLASSES.values() for n, _ in members)
    + "]\n"
)


def test_a_ranking_within_the_class_the_question_writes_as_named():
    assert ask_scripted("Which member of the Event flag class has the largest numeric value?", _FLAGS) == (
        "EV_TOP",
        "submitted",
    )


def test_names_joined_by_or_and_are_one_expression():
    assert list_items("MIT OR Apache-2.0") == ["MIT OR Apache-2.0"]
    assert list_items("MIT AND (MIT AND PSF-2.0)") == ["MIT AND (MIT AND PSF-2.0)"]
    assert list_items("AF_UNIX AF_INET") == ["AF_UNIX", "AF_INET"]  # names between spaces still listed
    licences = ["MIT OR Apache-2.0"] * 5 + ["MIT"] * 3 + ["Apache-2.0 OR MIT"] * 2 + ["Zlib"]
    doc = json.dumps(
        {
            "components": [
                {"name": f"crate{i}", "version": f"1.{i}.0", "licenses": [{"expression": e}]}
                for i, e in enumerate(licences)
            ]
        }
    )
    answer = ask_scripted("Which license expression appears on the most components?", doc)
    assert answer == ("MIT OR Apache-2.0", "submitted")
