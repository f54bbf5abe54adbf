"""Shapes from probe 67's first run, on invented data: a top-level JSON array of strings lists entries, one record
each (read as lines, its brackets were records too: a count of 697 for 695), and "the very last entry in the array"
asks a record by its place; a manual page's font escape starts a word (``\\fBdeploy\\fR`` is the record keyed
``deploy``, not only the sentences mentioning it); "the last one" names a place, no key; in a record of sentences a
word of the question labels the token after it only as ``word: value`` or ``word is value`` ("While acme v6 had
...": a wrong Submitted "v6"). Each test fails on the code before its change."""

from __future__ import annotations

import json

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.library.wordmatch import matches
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.placed import asked_place
from tests.dspy_rlm.scripted import ask_scripted, read_candidates

TREES = ["Alder", "Birch-2", "Cedar", "Dogwood-1.0", "Elm", "Fir-only", "Ginkgo"]
NAMES = json.dumps(TREES, indent="\t") + "\n"
MANY = json.dumps(
    [*(f"{t}-{k}" for k in range(40) for t in TREES), "Plane-tree", "Tree-fern", "Tree-of-heaven", "Zelkova-final"],
    indent="\t",
)


def test_a_json_array_of_strings_is_one_record_per_entry():
    s = st.detect(NAMES)
    assert s.kind == "json" and [r.key for r in s.records] == ["Alder", "Birch-2", "Cedar", "Dogwood-1.0", "Elm",
                                                               "Fir-only", "Ginkgo"]  # fmt: skip
    assert st.detect(json.dumps([1, "two", 3])).kind == "json"
    assert st.detect(json.dumps([True, False, True])).kind != "json"  # flags are no entries


def test_the_entries_of_a_json_array_are_counted():
    assert ask_scripted("How many tree identifiers are in acme's tree-ids index.json?", MANY, "int") == (
        284,
        "submitted",
    )


def test_the_very_last_entry_in_the_array_is_asked_by_its_place():
    assert asked_place("What is the very last entry in the array in trees.json?") == ("entry", -1)
    q = "What is the very last entry in the array in trees.json?"
    assert ask_scripted(q, MANY) == ("Zelkova-final", "submitted")


MANUAL = r""".TH ACME 7
.SH NAME
acme-hooks \- the hooks acme runs
.SH DESCRIPTION
.SS "Hooks"
.P
\fBbuild\fR (since \fBacme@2.0.0\fR)
.RS 0
.IP \(bu 4
Runs before the package is packed, during \fBacme deploy\fR and \fBacme pack\fR
.IP \(bu 4
Runs after \fBprebuild\fR, but before \fBpostbuild\fR
.RE 0

.P
\fBcleanup\fR
.RS 0
.IP \(bu 4
Runs when the package is removed.
.RE 0
.SS "Removal"
.P
While acme v6 had \fBcleanup\fR lifecycle scripts, acme v7 does not: it checks one last time.
.SS "acme help pack"
.RS 0
.IP \(bu 4
\fBprebuild\fR
.IP \(bu 4
\fBbuild\fR
.RE 0

.SS "acme help deploy"
.RS 0
.IP \(bu 4
\fBprebuild\fR
.IP \(bu 4
\fBbuild\fR
.IP \(bu 4
\fBdeploy\fR
.IP \(bu 4
\fBpostdeploy\fR
.RE 0
"""


def test_a_word_right_after_a_font_escape_is_a_word():
    assert matches("deploy", r"\fBdeploy\fR") and matches("deploy", r"see \fIdeploy")
    assert not matches("ploy", r"\fBdeploy") and not matches("deploy", "redeploy")
    found = lookup.record_of(MANUAL, "deploy")
    assert found.key == "deploy"


def test_the_last_one_names_a_place_not_a_key():
    q = "Which hook script is the last one run during acme deploy?"
    book = MoveBook({"question": q}, {"context": MANUAL}, {"answer": str})
    assert "last" not in [k.text for k in book.keys["context"]]


def test_a_word_of_the_question_labels_no_token_of_a_sentence():
    q = "Which cleanup lifecycle script did acme drop?"
    found = [c for c in read_candidates(q, MANUAL, "record") if c.label == "acme"]
    assert found and not any(c.supported for c in found)  # "acme v6", "acme v7": the program's versions


def test_a_word_linked_to_its_value_in_a_sentence_is_still_read():  # a guard
    text = "Notes\n\nThe vault access code is 31337 and the door stays shut for every guest after nine.\n"
    found = read_candidates("What is the vault access code?", text, "record")
    assert any(c.value == "31337" and c.supported for c in found)
