"""Shapes the twenty-eighth probe read wrong, each made up here: a record whose key no field shows (an INI
section, a man page option's tag line), an option's other spelling, a requirement's lower bound, a field written
once per value, a yes/no that states a bound, a column named by its place that keys the table, a default asked
without the word, the block a nested record sits in, a key word in none of a record's fields, and the whole name a
"who" asks for. Each positive test fails before its change; each
negative one guards an answer that must not be ``Submitted``."""

from __future__ import annotations

from dspy_rlm.library import lookup
from tests.dspy_rlm.scripted import ask_scripted

_UNIT = """[Unit]
Description=Tape drive on %I
After=local-fs.target

[Service]
ExecStart=/usr/sbin/tapectl --serve %I
Restart=on-failure

[Install]
WantedBy=multi-user.target
DefaultInstance=st0
"""


def test_a_records_key_no_field_shows_is_printed_in_brackets():
    shown = str(lookup.record_of(_UNIT, "WantedBy"))
    assert shown.splitlines()[0] == "record 2 (lines 9-11) [Install]:"
    keyed = "name: alpha\nsize: 3\n\nname: beta\nsize: 4\n"
    assert "[" not in str(lookup.record_of(keyed, "beta")).splitlines()[0]  # its key is its name's value: shown


def test_a_default_asked_without_the_word_reads_the_field_called_default():
    q = "If the tape@ template unit is enabled with no explicit instance name, which instance is used?"
    assert ask_scripted(q, _UNIT) == ("st0", "submitted")


_MAN = r""".TH FROB "1" "May 2020" "frob 2.1" "User Commands"
.SH NAME
frob \- frobnicate the input files
.SH OPTIONS
.TP
\fB\-q\fR, \fB\-\-quiet\-mode\fR
print nothing but errors
.TP
\fB\-o\fR, \fB\-\-output\fR \fIFILE\fR
where to write (default: \fIfrob.out\fR)
.TP
\fB\-\-level\fR \fIN\fR
how hard to try
.TP
\fB\-k\fR, \fB\-\-keep\fR
keep the input files
"""


def test_the_long_spelling_of_a_short_option_is_read_off_its_tag_line():
    assert ask_scripted("Which long option corresponds to the short flag -q?", _MAN) == ("--quiet-mode", "submitted")


def test_the_short_spelling_of_a_long_option_is_read_off_its_tag_line():
    assert ask_scripted("What is the short form of --output?", _MAN) == ("-o", "submitted")


def test_an_option_with_one_spelling_has_no_other_submitted():
    _, kind = ask_scripted("What is the short form of --level?", _MAN)
    assert kind != "submitted"


_METADATA = """Metadata-Version: 2.4
Name: frobnicate
Version: 4.2.0
Summary: Frobnicate everything
Requires-Python: >=3.10
Requires-Dist: attrs>=21.3.0
Requires-Dist: idna<4,>=3.4
Requires-Dist: rich>=13.0; extra == "pretty"
Provides-Extra: pretty
"""


def test_field_of_reads_the_value_holding_the_word_of_a_field_written_once_per_value():
    assert lookup.field_of(_METADATA, "idna", "Requires-Dist") == "idna<4,>=3.4"
    assert lookup.field_of(_METADATA, "4.2.0", "Requires-Dist") == "attrs>=21.3.0"  # no value holds it: the first


def test_the_minimum_version_of_a_requirement_is_its_lower_bound():
    q = "What is the minimum idna version that frobnicate 4.2.0 requires?"
    assert ask_scripted(q, _METADATA) == ("3.4", "submitted")


def test_the_upper_bound_of_a_requirement_is_read_where_asked():
    q = "Below which version of idna must frobnicate stay, at most?"
    answer, kind = ask_scripted(q, _METADATA)
    assert answer != "3.4" or kind != "submitted"


_WINE = """12,3,a,b,c
14.23,1.71,2.43,1
13.20,1.78,2.14,1
13.16,2.36,2.67,1
12.37,0.94,1.36,2
12.33,1.10,2.28,2
12.64,1.36,2.02,2
13.71,5.65,2.45,3
13.40,3.91,2.48,3
13.27,4.28,2.26,3
13.17,2.59,2.37,3
14.13,4.10,2.74,3
"""


def test_a_yes_no_that_states_a_bound_counts_the_records_passing_it():
    assert ask_scripted("Is there any sample whose first column value is above 14.2?", _WINE, "bool") == (
        True,
        "submitted",
    )
    assert ask_scripted("Is there any sample whose first column value is above 14.5?", _WINE, "bool") == (
        False,
        "submitted",
    )


def test_a_plain_word_absent_beside_a_bound_is_no_evidence_of_no():
    _, kind = ask_scripted("Is there any specimen whose weight is above 3?", _WINE, "bool")
    assert kind != "submitted"  # no field is called weight; "specimen" is nowhere: nothing read says no


_WORKFLOW = """name: build
on: [push]
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - run: make lint
  linux_build:
    needs: lint
    strategy:
      matrix:
        os:
          - ubuntu-22.04
          - ubuntu-24.04
    runs-on: ${{ matrix.os }}
  mac_build:
    needs: lint
    strategy:
      matrix:
        os:
          - macos-14
    runs-on: ${{ matrix.os }}
"""


def test_the_block_a_nested_record_sits_in_is_asked_by_its_kind():
    assert ask_scripted("Which job builds on an ubuntu-22.04 runner?", _WORKFLOW) == ("linux_build", "submitted")


def test_a_value_several_blocks_hold_names_no_block():
    answer, kind = ask_scripted("Which job needs lint?", _WORKFLOW)
    assert kind != "submitted" or answer not in ("linux_build", "mac_build")


_RESOURCES = """{
  "service": {
    "actions": {
      "MakeWidget": {"request": {"operation": "CreateWidget"}},
      "MakeGadget": {"request": {"operation": "CreateGadget"}},
      "ListAll": {"request": {"operation": "ListThings"}}
    }
  },
  "resources": {
    "Widget": {
      "identifiers": [{"name": "Id"}],
      "shape": "WidgetShape",
      "actions": {"Remove": {"request": {"operation": "DropWidget"}}}
    },
    "Gadget": {
      "identifiers": [{"name": "Serial"}],
      "shape": "GadgetShape",
      "actions": {"Paint": {"request": {"operation": "PaintGadget"}}}
    }
  }
}
"""


def test_a_key_word_in_a_records_text_but_none_of_its_fields_supports_none_of_them():
    answer, kind = ask_scripted("When you call remove() on a Widget, which API operation is invoked?", _RESOURCES)
    assert kind != "submitted" or answer == "DropWidget"


def test_a_ranked_list_answers_with_the_block_its_record_sits_in():
    from dspy_rlm.profiles.kinds import evaluate
    from dspy_rlm.profiles.moves import MoveBook

    book = MoveBook(
        {"question": "Which job has the most OS runners in its build matrix?"}, {"context": _WORKFLOW}, {"answer": str}
    )
    found = [(c.value, c.supported) for m in book.read_moves() if m.kind == "most_items" for c in evaluate(book, m, "")]
    assert ("linux_build", True) in found
    assert all(not ok for v, ok in found if v != "linux_build")


_SCRIPT = """#!/bin/sh
# frobtool: frobnicate the files given
#
#  Author: Jane Q. Public <jane@example.org>
set -e
for f in "$@"; do
    frob "$f"
done
"""


def test_who_is_answered_with_the_whole_name_a_row_states():
    assert ask_scripted("Who is the author?", _SCRIPT)[0] == "Jane Q. Public"


def test_the_word_version_is_no_requirement_of_its_own():
    text = "[senri]\nversion = 0.8\nlicense = MIT\n\n[ostpel]\nversion = 2.28\nlicense = BSD\n"
    assert ask_scripted("senri version", text) == ("0.8", "submitted")
