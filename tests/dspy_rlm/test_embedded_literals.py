"""Data written inside a program (probe 36: rich's ``SPINNERS = {...}``, moto's policies in a triple-quoted JSON
string), made up here: the one literal is read as a JSON document, each entry a record with its own lines. Each
positive test fails before the change; each guard fails without its check."""

from __future__ import annotations

from dspy_rlm.library import lookup
from dspy_rlm.library.embedded import embedded_json
from dspy_rlm.library.structure import detect
from tests.dspy_rlm.scripted import ask_scripted

_LIGHTS = '''"""Harbour lights, made up for a test."""

LIGHTS = {
    "north_pier": {
        "period": 4,
        "colour": 'red',  # the old lamp
        "sectors": ("sea", "channel"),
        "manned": True,
    },
    "south_pier": {"period": 6, "colour": "green", "sectors": ["sea"], "manned": False},
    "breakwater": {
        "period": 10,
        "colour": "white",
        "sectors": ("sea",),
        "note": "lit from dusk "
        "to dawn",
        "manned": None,
    },
    "outer_buoy": {"period": 3, "colour": "red", "sectors": [], "manned": False,},
}
'''

_TIDES = '''# generated, do not edit
tide_tables = """
{
 "Kestrel Sound": {
  "HighWater": "06:12",
  "Range": "4.1"
 },
 "Osprey Reach": {
  "HighWater": "07:40",
  "Range": "3.2"
 },
 "Tern Bay": {
  "HighWater": "05:55",
  "Range": "5.0"
 }
}"""
'''

_FLAGS = '''"""Flags of a tool."""

import os

DEFAULTS = {
    "verbose": False,
    "retries": 3,
}


def main():
    for name, value in DEFAULTS.items():
        print(name, value)
    print(os.getcwd())
    return 0


def other():
    return 1


if __name__ == "__main__":
    main()
'''


def test_a_dict_of_dicts_literal_is_read_as_records():
    s = detect(_LIGHTS)
    assert (s.kind, s.detail, len(s.records)) == ("json", "embedded", 4)
    breakwater = lookup.record_of(_LIGHTS, "breakwater")
    assert breakwater.get("note") == "lit from dusk to dawn"  # two strings in a row: one
    assert breakwater.get("manned") is None  # None: no value
    assert lookup.record_of(_LIGHTS, "north_pier").get("sectors") == "sea, channel"  # a tuple lists
    assert (breakwater.line, breakwater.end_line) == (11, 18)  # its own lines, as written


def test_the_literal_keeps_its_length():
    assert len(embedded_json(_LIGHTS)) == len(_LIGHTS)
    assert len(embedded_json(_TIDES)) == len(_TIDES)


def test_a_json_document_in_a_triple_quoted_string_is_read_as_records():
    s = detect(_TIDES)
    assert (s.kind, len(s.records)) == ("json", 3)
    assert ask_scripted("What is the HighWater time at Osprey Reach?", _TIDES) == ("07:40", "submitted")


def test_questions_over_a_literal_table():
    assert ask_scripted("Which light has a period of 10?", _LIGHTS) == ("breakwater", "submitted")
    assert ask_scripted("How many lights are red?", _LIGHTS, "int") == (2, "submitted")


def test_a_literal_of_few_lines_in_a_program_is_no_document():
    assert embedded_json(_FLAGS) is None  # DEFAULTS spans 4 of 24 lines: the program is mostly code
    assert detect(_FLAGS).detail != "embedded"
