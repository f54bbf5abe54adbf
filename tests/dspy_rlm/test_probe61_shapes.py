"""Shapes from probe 61's first run, on invented data: a record asked by its place in the text ("which action is
defined last?"), answered where every record is said to be one, and not where the records are not (a script whose
last record is an assignment, asked for its last function). A value written with its hash ("#C0FFEE") is keyed
with it. Two fields named alike by a word said of the record ("the .panel box": box-sizing, box-shadow) are neither
the one asked. Each test fails on the code before its change."""

from __future__ import annotations

from dspy_rlm.library.items import record_at
from dspy_rlm.profiles.placed import asked_place
from tests.dspy_rlm.scripted import ask_scripted

POLICY = """<?xml version="1.0" encoding="UTF-8"?>
<policyconfig>
  <vendor>Harbor Tools</vendor>
  <action id="org.harbor.dock.open">
    <description>Open a dock</description>
    <defaults><allow_any>no</allow_any><allow_active>auth_admin</allow_active></defaults>
  </action>
  <action id="org.harbor.dock.close">
    <description>Close a dock</description>
    <defaults><allow_any>no</allow_any><allow_active>yes</allow_active></defaults>
  </action>
  <action id="org.harbor.crane.lift">
    <description>Lift a container</description>
    <defaults><allow_any>no</allow_any><allow_active>auth_admin_keep</allow_active></defaults>
  </action>
  <action id="org.harbor.crane.park">
    <description>Park the crane</description>
    <defaults><allow_any>no</allow_any><allow_active>auth_self</allow_active></defaults>
  </action>
</policyconfig>
"""

SCRIPT = """#!/bin/sh
set -e
progname=$(basename "$0")

greet() {
    echo "hello from $progname"
}

leave() {
    echo "bye"
    exit 3
}

mode=fast
retries=4
"""


def test_the_place_asked_is_read_with_its_noun():
    assert asked_place("Which polkit action is defined last in the harbor policy?") == ("action", -1)
    assert asked_place("What is the first entry listed in the file?") == ("entry", 1)
    assert asked_place("Which file was last modified?") is None
    assert asked_place("Which release was first introduced in 2.0?") is None
    assert str(record_at(POLICY, -1)) == "org.harbor.crane.park: 4"
    assert str(record_at(POLICY, 1, "crane")) == "org.harbor.crane.lift: 1"


def test_a_record_asked_by_its_place_is_the_first_or_last_where_every_record_is_one():
    assert ask_scripted("Which action is defined last in the harbor policy?", POLICY) == (
        "org.harbor.crane.park",
        "submitted",
    )
    first = ask_scripted("Which polkit action comes first in this file?", POLICY)
    assert first == ("org.harbor.dock.open", "submitted")


def test_a_script_whose_records_are_not_all_functions_gives_no_last_function():
    answer, ending = ask_scripted("Which function is defined last in the script?", SCRIPT)
    assert not (ending == "submitted" and answer == "retries")


STYLES = """.panel {
    width: 100%;
    max-height: 300px;
    background: #FAFAFA;
}
.left-cell {
    background: #C0FFEE;
    border: 1px solid #C0FFEE;
}
.right-cell {
    background: #BADA55;
}
"""


def test_a_value_written_with_its_hash_is_keyed_whole():
    q = "Which cell class gets the pale #C0FFEE background in this stylesheet?"
    assert ask_scripted(q, STYLES) == (".left-cell", "submitted")


def test_two_fields_named_alike_by_one_word_are_neither_asked():
    styles = STYLES.replace(
        "    max-height: 300px;\n",
        "    max-height: 300px;\n    box-sizing: border-box;\n    box-shadow: 1px 1px 2px grey;\n",
    )
    answer, ending = ask_scripted("How tall can the .panel box grow before it scrolls?", styles)
    assert ending != "submitted" or answer == "300px"  # Submitted '1px 1px 2px grey' before
    assert ask_scripted("What box-sizing does .panel use?", styles) == ("border-box", "submitted")
    assert ask_scripted("What is the box shadow of .panel?", styles) == ("1px 1px 2px grey", "submitted")


def test_a_hash_the_records_do_not_keep_is_no_part_of_the_key():
    from dspy_rlm.profiles.moves import MoveBook

    mirrors = "#LOC:NZ\nhttp://mirror.kiwi.example.nz/debian/\nhttp://ftp.nz.example.org/debian/\n#LOC:PE\n"
    mirrors += "http://mirror.lima.example.pe/debian/\n#LOC:PT\nhttp://ftp.pt.example.org/debian/\n"
    book = MoveBook({"question": "How many mirrors are listed for New Zealand (#LOC:NZ)?"}, {"context": mirrors}, {})
    assert "#LOC:NZ" not in [k.text for k in book.keys["context"]]  # a section marker: its records say LOC:NZ
    styled = MoveBook({"question": "Which rule sets #C0FFEE?"}, {"context": STYLES}, {})
    assert "#C0FFEE" in [k.text for k in styled.keys["context"]]
