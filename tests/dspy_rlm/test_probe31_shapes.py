"""Shapes the thirty-first probe read wrong, each made up here: a field named only inside the phrase naming the
file ("the Debian *copyright* file"), a path given for "who", a field read by the phrase it holds, a JSON key
named with the object the question names, JSON keys holding dots, a date after its label, and a YAML list of
block scalars. Each positive test fails before its change; each negative one guards an answer that must not be
``Submitted``."""

from __future__ import annotations

from dspy_rlm.library import lookup, superlatives
from dspy_rlm.library import structure as st
from dspy_rlm.library.items import items_of
from dspy_rlm.profiles.named_document import FILE_NAME
from tests.dspy_rlm.scripted import ask_scripted

_COPYRIGHT = """Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: quill
Source: https://example.org/quill

Files: *
Copyright: 2019-2023 Mara Quill <mara@example.org>
License: MIT

Files: debian/*
Copyright: 2021 Tomas Reed <tomas@example.org>
License: GPL-2+

Files: src/ink.c
Copyright: 2021 Tomas Reed <tomas@example.org>
License: MIT

Files: tools/press.*
Copyright: 1988-1990, Edith Lane.
License: custom-1

Files: tests/blot_test.cc
Copyright: 2022 Ada Byron
License: MIT

Files: docs/*
Copyright: 2021 Tomas Reed <tomas@example.org>
License: CC-BY-4.0
"""

_THEME = """{
  "name": "dawn",
  "colors": {
    "Header": "#004CFF",
    "Title": "ansigreen",
    "Tb.Name": "ansimagenta",
    "Tb.NameEm": "ansired",
    "Prompt": "ansiblue",
    "Prompt.Continuation.L1": "ansiwhite",
    "Prompt.Continuation.L2": "ansiblack"
  },
  "symbols": {"arrow": ">"}
}
"""

_PORT = """- package: quill/quill
  version: 2.3.0
  notes:
    - Rename variables that shadow built-ins, e.g.
      - `max` -> `maximum`
      - `len` -> `length`
    - |
      Convert loops to while loops
      in every module.
    - |
      Options are a plain dictionary.
      Upstream: https://example.org/issues/7, kept for order.
    - Use the native string type
    - Allow a custom renderer
"""


def test_a_field_named_only_in_the_files_own_name_is_not_the_one_ranked():
    q = "Which license appears most often in the Files stanzas of quill's Debian copyright file?"
    assert ask_scripted(q, _COPYRIGHT) == ("MIT", "submitted")  # not the most common Copyright line


def test_a_path_answers_no_who():
    q = "Who holds the oldest copyright (earliest year) mentioned in quill's copyright file?"
    assert ask_scripted(q, _COPYRIGHT)[1] != "submitted"  # not tools/press.*


def test_a_field_read_by_the_phrase_it_holds_gives_the_phrase_back():
    q = "Which file's stanza in quill's copyright lists Ada Byron as copyright holder?"
    answer, ending = ask_scripted(q, _COPYRIGHT)
    assert not (ending == "submitted" and answer == "2022 Ada Byron")


def test_a_json_key_is_answered_without_the_object_the_question_names():
    q = 'Which colors key in the dawn theme is set to "ansigreen"?'
    assert ask_scripted(q, _THEME) == ("Title", "submitted")  # not colors.Title


def test_json_keys_holding_dots_are_one_entry_each():
    assert items_of(_THEME, "colors") == 7  # not 4: Tb.Name and Tb.NameEm are two keys, not one group Tb
    q = "How many entries are there in the colors object of the dawn theme?"
    assert ask_scripted(q, _THEME, "int") == (7, "submitted")


def test_a_date_after_its_label_is_given_whole():
    text = "# Version 2026111700, Last Updated Tue Nov 17 07:07:01 2026 UTC\nAAA\nAARP\nABB\nABBOTT\n"
    q = "According to its header line, when was this list last updated?"
    assert ask_scripted(q, text) == ("Tue Nov 17 07:07:01 2026 UTC", "submitted")  # not 'Tue'


def test_a_yaml_list_of_block_scalars_counts_each_block_once():
    assert items_of(_PORT, "notes") == 5  # a "- |" block is one item; the sub-items belong to their item
    q = "How many notes are listed in quill's port file describing its differences?"
    assert ask_scripted(q, _PORT, "int") == (5, "submitted")


_SAMPLE_RC = """###
### Sample fetchrc: every setting shown commented out is the default
###

## How many times to try a download.
#tries = 20

## How deep to recurse.
#reclevel = 5

#passive = off
#timestamping = off
#robots = on
#dirstruct = off

## Passive mode is on here.
passive = on
"""


def test_a_sample_configs_commented_out_settings_are_read_beside_its_live_one():
    s = st.detect(_SAMPLE_RC)
    assert (s.kind, s.detail) == ("assignments", "commented beside live")
    assert [r.key for r in s.records] == ["tries", "reclevel", "timestamping", "robots", "dirstruct", "passive"]
    assert lookup.field_of(_SAMPLE_RC, "passive", "passive") == "on"  # the live one hides "#passive = off"
    assert ask_scripted("What is reclevel set to in this fetchrc?", _SAMPLE_RC, "int") == (5, "submitted")


def test_a_count_over_live_and_commented_out_settings_is_unsupported():
    q = "How many of the settings in this fetchrc are off?"
    assert ask_scripted(q, _SAMPLE_RC, "int")[1] != "submitted"  # the live or the commented-out ones?


_BENCH = """# Benchmarks

## Commands

The command for the benchmark:

```
tool.bench --model org/repo -p 2048
```

## Models

<details>

 <summary> acme/Tiny-1B </summary>

Precision | Score | Speed tok/sec | Memory GB | Repo
--------- | ----- | ------------- | --------- | ----
bf16      | 41.05 | 52.47         | 2.02      | acme/Tiny-1B
q8 | 40.85 | 86.90 | 1.25 | acme-community/Tiny-1B-8bit
q4 | 39.72 | 134.52 | 0.75 | acme-community/Tiny-1B-4bit

</details>

<details>
<summary> acme/Large-30B </summary>

Precision | Score | Speed tok/sec | Memory GB | Repo
--------- | ----- | ------------- | --------- | ----
bf16 | 72.62 | :skull: | :skull: | acme/Large-30B
q8 | 72.10 | 40.10 | 33.5 | acme-community/Large-30B-8bit
q4 | 71.02 | 80.30 | 17.2 | acme-community/Large-30B-4bit

</details>
"""


def test_tables_without_outer_pipes_under_html_headings_are_records_of_their_section():
    s = st.detect(_BENCH)
    assert s.kind == "markdown_table" and "section" in s.field_names
    q = "In the BENCHMARKS.md table for acme/Tiny-1B, which precision has the highest speed tok/sec?"
    assert ask_scripted(q, _BENCH) == ("q4", "submitted")


def test_a_missing_value_mark_does_not_make_a_row_odd():
    q = "What's the highest Score reported anywhere in BENCHMARKS.md? Answer with the number."
    assert ask_scripted(q, _BENCH) == ("72.62", "submitted")  # its row's ":skull:" cells are no header's words


def test_a_heading_is_named_by_its_last_path_part():
    s = st.detect(_BENCH)
    assert {r.key for r in superlatives.records_within(s, "Large-30B")} == {"bf16", "q8", "q4"}
    q = "Which repo is the Large-30B variant with the lowest memory usage (GB)?"
    answer, ending = ask_scripted(q, _BENCH)
    assert answer == "acme-community/Large-30B-4bit" or ending != "submitted"  # never the Tiny-1B row's


_ROFF = r"""'\" t
.TH "FROB\-NEW" "1"
.SH "NAME"
frob\-new \[em] Create a new Frob package
.SH "OPTIONS"
.SS "New Options"
.sp
\fB\-\-bin\fR
.RS 4
Create a package with a binary target (\fBsrc/main.rs\fR).
This is the default behavior.
.RE
.sp
\fB\-\-lib\fR
.RS 4
Create a package with a library target (\fBsrc/lib.rs\fR).
.RE
.sp
\fB\-\-quiet\fR
.RS 4
Do not print frob log messages.
.RE
.sp
\fB\-\-config\fR \fIKEY=VALUE\fR
.RS 4
Overrides a Frob configuration value.
.RE
.sp
\fB\-\-color\fR \fIwhen\fR
.RS 4
Control when colored output is used. Valid values:
.RS 4
\h'-04'\(bu\h'+03'\fBauto\fR (default): Automatically detect color support.
.RE
.RE
.SH "SEE ALSO"
\fBfrob\fR(1), \fBfrob\-init\fR(1)
"""


def test_the_manual_pages_own_name_states_no_condition():
    assert [m.group(0) for m in FILE_NAME.finditer("according to frob-new.1, in Python 3.11?")] == ["frob-new.1"]
    q = "Is creating a binary target (--bin) the default behavior of frob new, according to frob-new.1?"
    answer, _ending = ask_scripted(q, _ROFF, "bool")  # a guard: "frob" is the page's, no value --bin lacks (on
    # cargo-new.1 itself, where "cargo" is a word of six options' descriptions, it gave False)
    assert answer is True  # Submitted until stop 109 on the page's title being there (FROB-NEW): the evidence that
    # Submitted a wrong yes on probe 62 ("does cargo yank delete the crate's data?"); the title names the document


def test_no_count_is_vouched_for_over_live_and_commented_out_settings():
    from dspy_rlm.profiles.moves import MoveBook
    from dspy_rlm.profiles.oracle import host_reader

    q = {"question": "Count the commented-out settings in this fetchrc whose shown value is exactly off."}
    book = MoveBook(q, {"context": _SAMPLE_RC}, {"answer": int})
    counts = [m for m in book.step_moves([], []) if m.kind.startswith("count")]
    assert counts  # count_records(V, 'off') and count_where(V, '*', 'off') are offered
    for m in counts:
        book.record_read(m.code, host_reader(book.data)(m))
    assert [s.candidate.value for s in book.submit_moves() if s.candidate and s.candidate.supported] == []
