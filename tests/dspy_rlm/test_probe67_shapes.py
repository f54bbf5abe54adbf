"""Shapes from probe 67's first run, on invented data: a top-level JSON array of strings lists entries, one record
each (read as lines, its brackets were records too: a count of 697 for 695), and "the very last entry in the array"
asks a record by its place; a manual page's font escape starts a word (``\\fBdeploy\\fR`` is the record keyed
``deploy``, not only the sentences mentioning it); "the last one" names a place, no key; in a record of sentences a
word of the question labels the token after it only as ``word: value`` or ``word is value`` ("While acme v6 had
...": a wrong Submitted "v6"); a plain noun right after the file's name names the file ("who created the dc.sed
*calculator*?"); a name before a comma and an address is a person named ("[Armin Bub, Armin.Bub@..., 970904]"); the
heading over a table holds its rows ("which *general option* ...": a row under ``General Options``), and a "topic"
is a document; a list of identifiers lacks one it holds only inside longer ones ("the bare identifier GPL-2.0
(without -only ...)": its aside tests nothing); one-line CSS rules are a style sheet, each keeping the comment closing
its line (pygments.css: read as directives, "color" was no field), a class is named with its dot (".k") and a British
"colour" names ``color``; lines are counted by a quoted start ("labels (lines starting with ':')": 33, not the 8
records holding the file's name). Each test fails on the code before its change, but the two guards marked so."""

from __future__ import annotations

import json

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.library.wordmatch import matches
from dspy_rlm.profiles.line_starts import asked_start_of_lines
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.named_document import after_file_name
from dspy_rlm.profiles.placed import asked_place
from dspy_rlm.profiles.spans import identifier_asides
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


SCRIPT = """#!/bin/sed -nf
#  frob.sed - a tiny reverse-polish calculator
#  Created by Ada Quill <ada@example.org> in the spring of 2001
#
#  Reads numbers, one a line, and prints their sum.
#  Run it as: frob.sed < numbers.txt
#  frob.sed keeps its stack in the hold space; frob.sed never writes files.
#  To debug frob.sed, add an l command where the stack is printed.
""" + "".join(f"/^{k}$/ {{ s/{k}/{k + 1}/; b next\n}}\n" for k in range(30))


def test_a_noun_right_after_the_file_name_names_the_file():
    assert after_file_name("Who created the frob.sed calculator?", "calculator")
    assert not after_file_name("Which calculator does frob.sed use?", "calculator")
    found = read_candidates("Who created the frob.sed calculator?", SCRIPT, "record")
    assert any(c.value == "Ada Quill" and c.supported for c in found)


TODO = """Things to do
============

- faster listing of large archives [Cy Brandt, cy@example.net, 990102]
- extract or skip files on the basis of GID [Bo Lindqvist, bo.l@example.se, 010203]
- a quieter --test mode [Ann Ek, ann@example.org, 020304]
"""


def test_a_name_before_a_comma_and_an_address_is_a_person_named():
    found = read_candidates("Who asked for files to be skipped on the basis of GID?", TODO, "record")
    assert any(c.value == "Bo Lindqvist" and c.supported for c in found)


TOPIC = """:title: Frob Configuration Variables
:description: Configuration Variables for frob
:category: General

Configuration Sources
=====================

Configuration values for frob can come from several sources:

* As a command line option
* As an environment variable
* As a value in the frob config file

Some options are only available in the frob config.  This topic guide covers
all the configuration variables available in frob.

General Options
===============

The frob tool has a few general options:

==================== =========== ============================
Variable             Option      Description
==================== =========== ============================
profile              --profile   Default profile name
fan_mode             N/A         Turns on the fan
color                --color     Colors the output
==================== =========== ============================

The profile option names the section of the config file that is read, and the
color option may be set in the environment as well.

Disk Settings
=============

These settings tune how frob writes to its disks:

==================== =========== ============================
Variable             Option      Description
==================== =========== ============================
spin_down            N/A         Turns off the disk when idle
cache_size           N/A         Size of the write cache
==================== =========== ============================
"""


def test_the_heading_over_a_table_holds_its_rows():
    q = "In the frob config-vars topic, which general option is described as 'Turns on the fan'?"
    assert ask_scripted(q, TOPIC) == ("fan_mode", "submitted")


IDS = json.dumps(
    [*(f"{t}-{k}.0" for k in range(30) for t in TREES), "Fern-2.0-only", "Fern-2.0-or-later", "Fern-3.0-only"],
    indent="\t",
)


def test_a_list_of_identifiers_lacks_one_it_holds_only_inside_longer_ones():
    q = "Does acme's tree-ids index.json list the bare identifier Fern-2.0 (without -only or -or-later)?"
    assert ask_scripted(q, IDS, "bool") == (False, "submitted")


def test_an_identifier_listed_whole_is_listed():  # a guard
    q = "Does acme's tree-ids index.json list the identifier Fern-2.0-only?"
    answer, _kind = ask_scripted(q, IDS, "bool")
    assert answer is True


def test_an_aside_spelling_out_an_identifier_tests_nothing():
    assert identifier_asides("does it list gpl-2.0 (without -only or -or-later)?", {"gpl-2.0"}) == [(21, 49)]
    assert identifier_asides("how many packages are listed (not counting dev ones)?", set()) == []


_TOKENS = [("a", "#101010", "Apple"), ("b", "#202020", "Berry"), ("c", "#8f5902", "Cherry"), ("d", "#000000", "Date")]
_TOKENS += [(f"x{k}", "#000000", f"Extra.Kind{k}") for k in range(8)] + [("q", "#5c35cc", "Quince")]
SHEET = "pre { line-height: 125%; }\n.theme { background: #f8f8f8; }\n" + "".join(
    f".theme .{c} {{ color: {v}{'; font-weight: bold' if c == 'b' else ''} }} /* {n} */\n" for c, v, n in _TOKENS
)


def test_one_line_rules_are_a_style_sheet_and_keep_their_comment():
    s = st.detect(SHEET)
    assert s.kind == "css"
    assert s.records[3].key == ".theme .b" and s.records[3].get("comment") == "Berry"
    assert s.records[3].get("font-weight") == "bold"


def test_a_class_is_named_with_its_dot_and_a_british_colour_names_color():
    q = "In the theme's sheet.css, what colour are berries (the .b class) drawn in?"
    assert ask_scripted(q, SHEET) == ("#202020", "submitted")
    q = "Across the .theme token rules in sheet.css, which text colour is used most often?"
    assert ask_scripted(q, SHEET) == ("#000000", "submitted")


LABELS = "#!/bin/sed -nf\n# frob.sed: labels and jumps\n" + "".join(
    f":step{k}\n/^{k}$/ b step{k + 1}\n s/x/y/\n" for k in range(12)
)


def test_lines_counted_by_a_quoted_start():
    assert asked_start_of_lines("How many labels (lines starting with ':') does frob.sed define?") == ":"
    assert asked_start_of_lines('How many lines begin with a "#"?') == "#"
    assert asked_start_of_lines("How many lines start with a comment?") is None  # nothing quoted: no start said
    answer, _kind = ask_scripted("How many labels (lines starting with ':') does frob.sed define?", LABELS, "int")
    assert answer == 12


def test_an_aside_of_plain_words_is_still_a_condition():  # a guard
    q = "is feature t321 (the feature line itself, not its subfeatures) marked as supported?"
    assert identifier_asides(q, {"t321", "feature", "line", "subfeatures"}) == []


KIN = ".a { color: #111111; background-color: #d9d8d1 }\n.b { color: #111111; border-color: #d9d8d1 }\n" + "".join(
    f".c{k} {{ color: #{k:06d}; background-color: #d9d8d1; border-color: #d9d8d1 }}\n" for k in range(6)
)


def test_a_colour_of_any_property_is_no_ranking_of_color_alone():  # a guard: "colour" names color since this stop
    answer, kind = ask_scripted("What hex colour shows up most often in site.css?", KIN)
    assert not (answer == "#111111" and kind == "submitted")


def test_the_title_heading_holds_no_section():  # a guard: the first heading names the whole text
    text = TOPIC.replace("Configuration Sources\n=====================\n\n", "")
    q = "In the frob config-vars topic, which general option is described as 'Turns on the fan'?"
    assert ask_scripted(q, TOPIC) == ("fan_mode", "submitted")
    assert ask_scripted(q, text)[1] != "submitted"


def test_the_noun_asked_labels_a_value_in_a_sentence():  # a guard: "in version 1.1.0" answers "in which version"
    text = "# Release Note\n\nAll deprecated features listed below will be removed in version 3.2.0. Until then, "
    text += "a warning is shown.\n"
    text += "".join(f"\n- feature {k} is deprecated in favour of a better one" for k in range(6)) + "\n"
    q = "According to the release note, in which version will the deprecated features actually be removed?"
    assert ask_scripted(q, text) == ("3.2.0", "submitted")
