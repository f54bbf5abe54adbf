"""Shapes of probe 12's remaining misses, each rebuilt as a small made-up text: a manual page (roff) read as its
options and settings, TOML tables keyed by their own name, a lookup that prefers the record holding the asked
field, and hyphens a manual page writes escaped (``\\-``)."""

import sys

import pytest

from dspy_rlm.library.lookup import field_of
from dspy_rlm.library.structure import detect
from dspy_rlm.library.wordmatch import matches
from tests.dspy_rlm.scripted import ask_scripted as _ask

needs_tomllib = pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is new in Python 3.11")

MANUAL = r"""'\" t
.TH "LAKE\-FILL" "1"
.\" a made-up page
.SH "NAME"
lake\-fill \[em] Fill a lake from its springs
.SH "OPTIONS"
.SS "Filling"
.sp
\fB\-\-dry\-run\fR
.RS 4
Shows how much water would flow without opening any sluice.
.RE
.sp
\fB\-s\fR \fIspring\fR, \fB\-\-spring\fR \fIspring\fR
.RS 4
Fill from the named spring only.
.RE
.TP
\fB\-\-slow\fR
Opens the sluices one at a time.
.SS "Shorthands"
.RS 0
.IP \(bu 4
\fB-q\fR: \fB--quiet\fR
.IP \(bu 4
\fB-W\fR: \fB--wait-for-rain\fR
.RE 0
.SH "SETTINGS"
.SS "\fBdepth\fR"
.RS 0
.IP \(bu 4
Default: 12
.IP \(bu 4
Type: Number
.RE 0
.P
How deep the lake may get, in metres.
.SS "\fBcolour\fR"
.RS 0
.IP \(bu 4
Default: "blue"
.IP \(bu 4
Type: "blue", "green" or "grey"
.RE 0
.P
The colour the water is painted on maps.
"""

PANDOC_MANUAL = r""".TH "LAKE" "1"
.SH NAME
lake \- keep a lake
.SH OPTIONS
.TP
\f[CR]\-f\f[R] or \f[CR]\-\-fill\f[R]
Fills the lake.
.TP
\f[CR]\-\-drain\f[R]
Drain the lake slowly.
.TP
\f[CR]\-t\f[R] or \f[CR]\-\-tide\f[R]
Lists the tide tables.
.TP
\f[CR]\-F\f[R]
Floods the meadow.
.TP
\-\-depth=\f[I]metres\f[R]
int, optional.
Water depth in metres [default: 12] kept when the lake is full.
.SH NOTES
The \-\-drain option may be used twice.
"""

SETTINGS_MD = """# Lake settings

## Settings

### `depth`

* Default: 12
* Type: Number

How deep the lake may get, in metres.

### `colour`

* Default: "blue"
* Type: String

The colour of the water on maps.

## Shorthands

* -d: --depth
* -c: --colour
"""

MANIFEST = """manifest-version = "2"
date = "2026-01-02"

[pkg.heron]
version = "1.4.0"

[[pkg.heron.target.north.components]]
pkg = "otter"
target = "north"

[pkg.heron.target.north]
available = true

[pkg.heron.target.south]
available = false

[pkg.otter]
version = "0.3.1"

[pkg.otter.target.north]
available = true
"""


def test_a_manual_page_is_read_as_its_options_and_settings():
    s = detect(MANUAL)
    assert (s.kind, s.detail) == ("markdown_list", "roff")
    by_key = {r.key: r for r in s.records}
    assert by_key["--dry-run"].get("description").startswith("Shows how much water")
    assert by_key["--dry-run"].get("section") == "OPTIONS / Filling"
    assert "-s spring, --spring spring" in by_key  # a cargo-style tag: the line before an indented body
    assert by_key["--slow"].get("description") == "Opens the sluices one at a time."  # a .TP tag
    assert by_key["-W"].get("-W") == "--wait-for-rain"  # a list of its own: a record per item
    assert by_key["depth"].fields == (
        ("Default", "12"),
        ("Type", "Number"),
        ("description", "How deep the lake may get, in metres."),
        ("section", "SETTINGS"),
    )  # subsections whose bullets share their names: a record per subsection


def test_a_manual_pages_questions():
    assert _ask("What does the --dry-run option do?", MANUAL) == (
        "Shows how much water would flow without opening any sluice.",
        "submitted",
    )
    assert _ask("which single-letter shorthand gives you --wait-for-rain?", MANUAL) == ("-W", "submitted")
    assert _ask("What type does the colour setting take?", MANUAL) == ('"blue", "green" or "grey"', "submitted")


def test_escaped_hyphens_match():
    assert matches("dry-run", r"\fB\-\-dry\-run\fR")
    assert matches("dry-run", "--dry-run") and not matches("dry-run", "dry run-time")


@needs_tomllib
def test_toml_tables_are_keyed_by_the_shortest_name_that_is_theirs_alone():
    s = detect(MANIFEST)
    assert s.kind == "toml"
    keys = [(r.key, r.get("block")) for r in s.records]
    assert ("heron", "pkg") in keys and ("otter", "pkg") in keys
    # two packages have a "north" target: its key keeps the path's parts that tell them apart
    assert ("heron.target.north", "pkg") in keys and ("otter.target.north", "pkg") in keys
    assert ("south", "pkg.heron.target") in keys


@needs_tomllib
def test_a_lookup_prefers_the_record_holding_the_asked_field():
    # "otter" keys its package table and an entry listing it as a component: the version is the table's
    assert field_of(MANIFEST, "otter", "version") == "0.3.1"
    assert _ask("What version string is recorded for otter in this manifest?", MANIFEST) == ("0.3.1", "submitted")


def test_an_option_is_named_by_any_of_its_flags():
    assert _ask("what does -t do?", PANDOC_MANUAL) == ("Lists the tide tables.", "submitted")
    assert _ask("What does the -F option do?", PANDOC_MANUAL) == ("Floods the meadow.", "submitted")  # not -f
    assert _ask("What does the -f option do?", PANDOC_MANUAL) == ("Fills the lake.", "submitted")
    # the option's own word in its description ("Drain the lake") is no sign of a wrong field; the notes'
    # sentence that names the option is no option
    assert _ask("What does the --drain option do?", PANDOC_MANUAL) == ("Drain the lake slowly.", "submitted")
    assert _ask("Which option fills the lake?", PANDOC_MANUAL) == ("-f or --fill", "submitted")
    # other words of the question inside the description: a part of it is asked, not all of it
    assert _ask("What is the default water depth in metres used by --depth?", PANDOC_MANUAL) == ("12", "submitted")


def test_markdown_headings_of_setting_items_are_records():
    s = detect(SETTINGS_MD)
    by_key = {r.key: r for r in s.records}
    assert by_key["depth"].fields == (
        ("Default", "12"),
        ("Type", "Number"),
        ("description", "How deep the lake may get, in metres."),
        ("section", "Settings"),
    )
    assert by_key["-c"].fields == (("-c", "--colour"), ("section", "Shorthands"))  # names no other heading uses
    assert _ask("What is the default value of the colour setting?", SETTINGS_MD) == ('"blue"', "submitted")


def _keys(question: str, text: str) -> list[str]:
    from dspy_rlm.profiles.moves import MoveBook

    return [k.text for k in MoveBook({"question": question}, {"context": text}, {"answer": str}).keys["context"]]


def test_an_identifier_keying_one_record_is_a_key_however_many_mention_it():
    # "config" keys one setting and sixty others say it: a word of the question, no key; "otter-pup" keys one
    # and sixty others list it: it names that record
    lines = ["CONFIG='true'", "otter-pup='3.1'"] + [f"opt{i}='config otter-pup {i}'" for i in range(60)]
    text = "\n".join(lines) + "\n"
    assert "config" not in _keys("what is the config value of otter-pup?", text)
    assert "otter-pup" in _keys("what is the config value of otter-pup?", text)


@needs_tomllib
def test_a_lookup_by_a_value_siblings_hold_reads_the_first():
    # siblings under one table share its name in their block: the field of the first, not of whichever has it
    text = '[api.v1]\ndoc = "api_v1.json"\n\n[api.v2]\ndoc = "api_v2.json"\ndefault = true\n'
    assert field_of(text, "api", "default") is None
    assert field_of(text, "v2", "default") == "true"
