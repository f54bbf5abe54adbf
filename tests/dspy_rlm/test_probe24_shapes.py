"""Shapes the twenty-fourth probe read wrong, each made up here: a drawn tree of classes, font metrics whose rows
of ``KEY value ;`` pairs outnumber the header lines, a Tcl catalogue whose namespace separators are no colon
cells, a quoted name with escaped quotes, a field named by its words in a row ("the italic angle") beside a record
keyed by one of them, a key the data tells apart from another by case, and a header line naming the file.
Each positive test fails before its change; each negative one guards an answer that must not be ``Submitted``."""

from __future__ import annotations

from dspy_rlm.library.structure import detect
from tests.dspy_rlm.scripted import ask_scripted

_TREE = """Vehicle
 ├── Bicycle
 ├── Cart [Wagon]
 └── MotorVehicle
      ├── Car
      │    ├── Sedan
      │    └── Coupe
      ├── Truck
      │    └── DumpTruck
      └── Bus
"""


def test_a_drawn_tree_is_read_as_nodes_with_their_parents_and_counts():
    s = detect(_TREE)
    assert (s.kind, s.detail) == ("blocks", "tree")
    coupe = next(r for r in s.records if r.key == "Coupe")
    assert (coupe.get("parent"), coupe.get("depth")) == ("Car", "3")
    motor = next(r for r in s.records if r.key == "MotorVehicle")
    assert (motor.get("children"), motor.get("descendants")) == ("3", "6")
    cart = next(r for r in s.records if r.key == "Cart")
    assert (cart.get("parent"), cart.get("note")) == ("Vehicle", "[Wagon]")
    root = s.records[0]
    assert (root.key, root.get("parent"), root.get("descendants")) == ("Vehicle", "", "9")


def test_the_tree_command_output_is_a_tree_too():
    text = ".\n├── src\n│   ├── main.c\n│   └── util.c\n├── docs\n│   └── index.md\n└── Makefile\n"
    s = detect(text)
    assert s.detail == "tree"
    assert {r.key: r.get("parent") for r in s.records}["util.c"] == "src"
    assert {r.key: r.get("parent") for r in s.records}["Makefile"] == "."


def test_a_parent_in_a_drawn_tree_is_answered():
    assert ask_scripted("What is the direct parent of DumpTruck in this hierarchy?", _TREE) == ("Truck", "submitted")


def test_prose_with_a_dash_list_is_no_tree():
    text = "Notes\n\nSome text here.\n- one item\n- two items\nMore text after.\n"
    assert detect(text).detail != "tree"


_METRICS = "\n".join(
    [
        "StartFontMetrics 2.0",
        "FontName Ornament-Tilted",
        "ItalicAngle -12.5",
        "StartCharMetrics 12",
        *(
            f"C {code} ; WX {wx} ; N {name} ; B 10 0 {wx} 600 ;"
            for code, wx, name in [
                (65, 610, "Alpha"),
                (66, 590, "Beta"),
                (67, 540, "Gamma"),
                (68, 620, "Delta"),
                (71, 650, "Omega"),
                (97, 630, "alpha"),
                (98, 550, "beta"),
                (100, 490, "delta"),
                (103, 520, "gamma"),
                (119, 690, "omega"),
                (120, 300, "angle"),
                (121, 330, "slash"),
            ]
        ),
        *(f"C {200 + n} ; WX {700 + n} ; N glyph{n} ; B 10 0 {700 + n} 600 ;" for n in range(40)),
        "EndCharMetrics",
        "EndFontMetrics",
    ]
)


def test_rows_of_pairs_split_by_semicolons_are_pairs_not_a_semicolon_table():
    s = detect(_METRICS)
    assert s.kind == "keywords"
    assert next(r for r in s.records if r.key == "Gamma").get("WX") == "540"


def test_a_field_said_in_words_is_no_key_of_the_record_named_by_one_of_them():
    assert ask_scripted("Give the italic angle of this font.", _METRICS) == ("-12.5", "submitted")


def test_a_key_told_apart_by_case_and_the_font_named_by_its_header_line():
    q = "What is the advance width (WX) of the Omega glyph in these Ornament-Tilted font metrics?"
    assert ask_scripted(q, _METRICS, "int") == (650, "submitted")


_CATALOG = """namespace eval ::ui {
    ::msgcat::mcset de "&Open" "&Oeffnen"
    ::msgcat::mcset de "Close" "Schliessen"
    ::msgcat::mcset de "Print" "Drucken"
    ::msgcat::mcset de "Save As" "Speichern unter"
    ::msgcat::mcset de "Cannot open \\"%1\\$s\\"." "Kann \\"%1\\$s\\" nicht oeffnen."
    ::msgcat::mcset de "Hello" "Hallo"
    ::msgcat::mcset de "Help"
    ::msgcat::mcset de "Quit" "Beenden"
}
"""


def test_a_namespaced_command_is_no_colon_table_and_an_escaped_quote_stays_in_its_name():
    s = detect(_CATALOG)
    assert s.kind == "keywords"
    keys = {r.key for r in s.records}
    assert 'Cannot open \\"%1\\$s\\".' in keys
    assert ask_scripted('How is "Save As" translated into German in this catalog?', _CATALOG) == (
        "Speichern unter",
        "submitted",
    )
