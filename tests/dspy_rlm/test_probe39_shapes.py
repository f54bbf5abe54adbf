"""Shapes the thirty-ninth probe's first contact showed, written as general cases: a hex literal read for a whole
number, a Python dict whose last entry closes it on its own line, a one-line ``CREATE FUNCTION`` whose clauses
follow its name, and a dotted name that is a key though its words are settings' names. Each test fails before its
change."""

from __future__ import annotations

from dspy_rlm.library.structure import detect
from tests.dspy_rlm.scripted import ask_scripted

_CODES = (
    "NAMES = {\n"
    + "".join(
        f"    '{n}': 0x{c:04x},  # {n} mark\n"
        for n, c in [
            ("anchor", 0x2693),
            ("wave", 0x1F30A),
            ("gull", 0x1F426),
            ("knot", 0x2318),
            ("tide", 0x2652),
            ("keel", 0x2693 + 7),
            ("mast", 0x2020),
            ("hull", 0x25E1),
            ("reef", 0x1FAB8),
            ("buoy", 0x26B2),
        ]
    )
    + "}\n"
)
_TWO_DICTS = (
    "HARBOURS = {\n"
    + "".join(f"    'h{i}': '#{i:06x}',\n" for i in range(12))
    + "    'last': '#abcdef'}\n\n# rename\nHARBOURS = {'x:' + k: v for k, v in HARBOURS.items()}\n\nDOCKS = {\n"
    + "".join(f"    'd{i}': '#{i + 40:06x}',\n" for i in range(5))
    + "}\n"
)
_SQL = "".join(
    f"CREATE OR REPLACE FUNCTION pg_catalog.tide_{n}({a}) RETURNS {r} AS '$libdir/tide', 'tide_{n}' LANGUAGE C{f};\n"
    for n, a, r, f in [
        ("ebb", "", "text", ""),
        ("flow", "text", "bool", ""),
        ("level", "text", "int4", " STRICT"),
        ("chart", "text", "text", " STRICT"),
        ("moor", "int4", "bool", ""),
    ]
)


def test_a_hex_literal_read_for_a_whole_number():
    assert ask_scripted("What code point does NAMES give for 'knot'?", _CODES, "int") == (0x2318, "submitted")


def test_a_dict_closed_on_its_last_entry_ends_there():
    s = detect(_TWO_DICTS)
    last = next(r for r in s.records if r.key == "last")
    assert last.get("value") == "#abcdef"
    assert [r.get("block") for r in s.records if r.key.startswith("d")] == ["DOCKS"] * 5  # not HARBOURS.DOCKS
    assert sum(1 for r in s.records if r.get("block") == "HARBOURS") == 13  # the rename line is no entry of it


def test_the_clauses_of_a_one_line_create_function_are_fields():
    s = detect(_SQL)
    level = next(r for r in s.records if r.key == "pg_catalog.tide_level")
    assert (level.get("RETURNS"), level.get("LANGUAGE"), level.get("flags")) == ("int4", "C", "STRICT")
    assert ask_scripted("What does tide_level return?", _SQL) == ("int4", "submitted")
