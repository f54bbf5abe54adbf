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


_REGISTRY = """<?xml version="1.0"?>
<registry>
  <modelList>
    <model><configItem><name>std101</name><description>Plain 101-key board</description></configItem></model>
    <model><configItem><name>std104</name><description>Plain 104-key board</description></configItem></model>
  </modelList>
  <layoutList>
    <layout>
      <configItem><name>nl</name><shortDescription>nl</shortDescription><description>Dutch</description></configItem>
      <variantList>
        <variant><configItem><name>mac</name><description>Dutch (Mac)</description></configItem></variant>
        <variant><configItem><name>std</name><description>Dutch (standard)</description></configItem></variant>
        <variant><configItem><name>intl</name><description>Dutch (intl)</description></configItem></variant>
      </variantList>
    </layout>
    <layout>
      <configItem><name>fy</name><shortDescription>fy</shortDescription><description>Frisian</description></configItem>
      <variantList>
        <variant>
          <configItem><name>nlx</name><shortDescription>nl</shortDescription><description>Frisian (x)</description>
          </configItem>
        </variant>
        <variant><configItem><name>alt</name><description>Frisian (alt)</description></configItem></variant>
        <variant><configItem><name>old</name><description>Frisian (old)</description></configItem></variant>
      </variantList>
    </layout>
  </layoutList>
</registry>
"""


def test_elements_of_other_tags_shaped_as_the_records_are_records_too():
    s = detect(_REGISTRY)
    keys = {r.get("configItem.name"): r for r in s.records}
    assert {"std101", "nl", "fy", "mac", "nlx"} <= set(keys)
    assert keys["nl"].get("configItem.description") == "Dutch"
    q = "What short description is given for the Dutch layout nl?"
    answer, kind = ask_scripted(q, _REGISTRY)
    assert answer == "nl" or kind != "submitted", answer
    assert ask_scripted("What's the description of the keyboard model std104?", _REGISTRY) == (
        "Plain 104-key board",
        "submitted",
    )


_MANUAL = """.TH PAGER 1 "2025" "pager 2.0" "User Commands"
.SH NAME
pager \\- page through text
.SH OPTIONS
.TP
.B \\-w \\fIwidth\\fR
Sets the line width in columns. Default: 80.
.TP
.B \\-o \\fIlevel\\fR
Specifies the output format. quiet | normal | loud. Default: normal.
.TP
.B \\-q
Quiet: no bell.
"""


def test_the_default_a_description_states_answers_a_question_of_the_default():
    assert ask_scripted("What is the default output level for the -o option?", _MANUAL) == ("normal", "submitted")


_CARDS = """# Card definitions

Board.pcm.front.0 {
\ttype asym
\tplayback.pcm {
\t\ttype softvol
\t\tslave.pcm { type hw }
\t}
}

Board.pcm.rear.0 {
\ttype hw
\t# if this element is present, skip the rest
\tskip_rest true
}

Board.pcm.side.0 cards.Board.pcm.front.0

Board.pcm.hdmi.0 {
\ttype hw
\tdevice 3
}
"""


def test_a_comment_saying_if_is_no_preprocessor_line_of_a_brace_config():
    s = detect(_CARDS)
    assert (s.kind, s.detail) == ("blocks", "braces")
    front = next(r for r in s.records if r.key == "Board.pcm.front.0")
    assert front.get("playback.pcm.type") == "softvol"


def test_a_later_clause_naming_what_the_first_points_to_asks_a_second_step():
    q = (
        "Board.pcm.side.0 is just an alias for another PCM definition. "
        "What type is the playback PCM of the definition it points to?"
    )
    answer, kind = ask_scripted(q, _CARDS.replace("\t# if this element is present, skip the rest\n", ""))
    assert kind != "submitted" or answer == "softvol", answer


_SCHEMA = """# generated
Point:
  kind: struct
  fields:
    x:
      type: float
    y:
      type: float
Box:
  kind: struct
  fields:
    corner:
      type: Point
    span_offset:
      type: int
      default: 0
Mode:
  kind: enum
  fields:
    OPEN: 1
    SHUT: 2
"""


def test_nested_mappings_keep_their_path_and_line_order():
    s = detect(_SCHEMA)
    assert [r.line for r in s.records] == sorted(r.line for r in s.records)
    offset = next(r for r in s.records if r.key == "span_offset")
    assert (offset.get("type"), offset.get("block"), offset.get("path")) == ("int", "fields", "Box.fields")
    from dspy_rlm.library import lookup

    assert lookup.field_of(_SCHEMA, "span_offset", "type") == "int"


def test_one_of_the_answers_a_question_offers_is_no_repeat_of_it():
    q = "What is the most common kind among the top-level definitions here: struct or enum?"
    assert ask_scripted(q, _SCHEMA) == ("struct", "submitted")


_WORKFLOW = """name: build
on: [push]

jobs:
  build:
    strategy:
      matrix:
        python-version:
          - "3.11"
          - "3.12"
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
      - run: make test
"""


def test_an_identifier_the_field_read_by_a_hop_lacks_vouches_for_no_value():
    answer, kind = ask_scripted("Which version tag of actions/checkout does this workflow pull in?", _WORKFLOW)
    assert kind != "submitted" or answer == "v5", answer


_MIXER = """Mixer.pcm.front.0 {
\tplayback.pcm {
\t\ttype softvol
\t\tsubdevice 0
\t}
}

Mixer.pcm.default {
\tcapture.pcm {
\t\ttype plug
\t\tslave.pcm {
\t\t\ttype softvol
\t\t\tresolution 121
\t\t}
\t}
}

Mixer.pcm.rear.0 {
\ttype hw
}
"""


def test_the_lone_number_of_a_record_lacking_the_field_asked_is_no_answer():
    from dspy_rlm.profiles.moves import MoveBook
    from dspy_rlm.profiles.oracle import host_reader

    q = "What resolution is configured for the capture softvol control of the Mixer default PCM?"
    book = MoveBook({"question": q}, {"context": _MIXER}, {"answer": int})
    move = next(m for m in book.read_moves() if m.code == "print(record_of(context, 'softvol'))")
    book.record_read(move.code, host_reader(book.data)(move))
    assert not [c.value for c in book.reads[move.code] if c.supported]
