"""Keyword lines (``Keyword value`` headers over lines of ``KEY value ; KEY value`` pairs: the shape of Adobe
font metrics), a field named in camel case (``FullName`` for "full name"), a field only one record holds (the
question names no record: that record is meant) and a ranked field past a file's twelfth field name. Each file
is made up; each test failed before."""

from __future__ import annotations

from dspy_rlm.library.structure import detect, stem
from dspy_rlm.profiles.reads import camel_parts, ranked_names
from tests.dspy_rlm.scripted import ask_scripted as _ask

HEADER = [
    "StartGlyphTable 1.0",
    "Comment Made up for a test",
    "TableName LakeSans-Bold",
    "FullName Lake Sans Bold Display",
    "FamilyName Lake Sans",
    "Weight Bold",
    "IsFixedPitch false",
    "ItalicAngle 0",
    "CapHeight 700",
    "XHeight 500",
    "Ascender 720",
    "Descender -210",
    "StartGlyphs 8",
]
GLYPHS = [
    "G 32 ; W 250 ; N space ; Box 0 0 0 0 ;",
    "G 38 ; W 680 ; N ampersand ; Box 10 -5 660 700 ;",
    "G 65 ; W 740 ; N A ; Box 5 0 735 700 ;",
    "G 66 ; W 575 ; N B ; Box 60 0 540 700 ;",
    "G 97 ; W 660 ; N a ; Box 40 -10 610 510 ;",
    "G 164 ; W 160 ; N fraction ; Box -120 0 280 700 ;",
    "G 189 ; W 1280 ; N perthousand ; Box 20 -20 1260 720 ;",
    "G -1 ; W 600 ; N brokenbar ; Box 230 -100 370 720 ;",
]
METRICS = "\n".join(HEADER + GLYPHS + ["EndGlyphs", "EndGlyphTable", ""])


def test_keyword_lines_are_records_with_a_field_per_pair():
    s = detect(METRICS)
    assert s.kind == "keywords"  # before: lines, one field ("Comment Made up for a test" read as key: value)
    by_key = {r.key: r for r in s.records}
    assert by_key["ampersand"].get("W") == "680" and by_key["ampersand"].get("G") == "38"  # keyed by the names
    assert by_key["fraction"].get("Box") == "-120 0 280 700"
    assert by_key["FullName"].get("FullName") == "Lake Sans Bold Display"
    assert s.field_names[:4] == ("G", "W", "N", "Box")  # the pairs' names first: most records hold them
    assert "EndGlyphs" not in by_key  # a keyword with no value is no record


def test_prose_with_semicolons_and_a_log_are_no_keyword_lines():
    prose = "\n".join(["We met at noon; it rained all day; nobody came."] * 3 + ["The lake was calm."] * 4)
    assert detect(prose).kind != "keywords"
    log = "\n".join(f"Nov {i:2d} 10:00:0{i % 9} lake kernel: [{i}.5] usb 1-1: new device; id {i}" for i in range(1, 12))
    assert detect(log).kind != "keywords"


def test_a_pair_field_is_looked_up_and_ranked():
    assert _ask("What is the advance width (W) of the glyph named ampersand?", METRICS, "int") == (680, "submitted")
    assert _ask("Which glyph has the largest W?", METRICS) == ("perthousand", "submitted")


def test_a_named_field_past_the_twelfth_is_ranked():
    names = ["lake"] + [f"c{i}" for i in range(1, 13)] + ["depth"]
    rows = [",".join(names)] + [
        ",".join([lake] + [str(i * 7 % 5) for i in range(1, 13)] + [depth])
        for lake, depth in (("Ohrid", "288"), ("Baikal", "1642"), ("Tahoe", "501"), ("Crater", "594"))
    ]
    table = "\n".join(rows) + "\n"
    assert detect(table).field_names.index("depth") == 13
    assert _ask("Which lake has the largest depth?", table) == ("Baikal", "submitted")  # before: depth unranked


def test_a_camel_case_field_is_named_by_its_words():
    assert camel_parts("FullName") == ["Full", "Name"] and camel_parts("HTTPServer") == ["HTTP", "Server"]
    stems = {stem("full"), stem("name")}
    assert ranked_names(stems, ["FullName", "CompDescription"]) == ["FullName"]
    assert ranked_names({stem("description")}, ["CompDescription"]) == []  # "Comp" is not said: not named


def test_the_one_record_holding_a_named_field_is_read():
    # "full name" and "name of the font ... table": FullName's words are said together, TableName's are not
    assert _ask("Give me the full name of the typeface in this table.", METRICS) == (
        "Lake Sans Bold Display",
        "submitted",
    )


def test_a_field_said_by_initials_only_and_missing_from_the_record_is_not_asked():
    # "glyph code" says GC by its initials; the record of 164 holds G, W, N and Box, no GC: its key is asked
    composites = METRICS + "GC Aacute 2 ; PGC A 0 0 ; PGC acute 170 150 ;\nGC Eacute 2 ; PGC E 0 0 ;\n"
    assert _ask("Which glyph name sits at glyph code 164?", composites) == ("fraction", "submitted")
