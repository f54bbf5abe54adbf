"""Shapes from probe 66's first run, on invented data: an owner's possessive and one plain word before a file's name
("how many sections are in *acme's billing* invoices.cfg?") name the file, not the sections ``[Acme]`` and
``[Billing]`` (a wrong Submitted 1 was the section's size); release headings dated by a month alone ("Version 2.4.1 -
March 2019", underlined) are releases, and a release that lists no items keeps its sentences as ``body``, so its date
is no answer to what it says; a one-letter option keeps its case ("-x" is not the "-X option" record: a wrong
Submitted); a C struct's pointer members are members however the star is spaced ("void * dxferp;": a count of 18 for
22 was Submitted); a question asking *where* names the fields whose values are paths ("where does copybot.cfg say
boto lives on disk?": ``boto_location = /usr/local/boto``, not ``boto_update``). Each test fails on the code before
its change, but the two guards marked so."""

from __future__ import annotations

from dspy_rlm.library import structure as st
from dspy_rlm.library.literalformat import parse_literals
from dspy_rlm.profiles.named_document import before_file_name
from dspy_rlm.profiles.reads import placed_fields
from tests.dspy_rlm.scripted import ask_scripted, read_candidates

CFG = """#
# Who pays
#
[Acme]
account = 4411
owner = Dana Whit

[Billing]
currency = EUR
rounding = half-up
terms = net30

[Mailer]
host = mail.example.org

[Archive]
keep_days = 90
"""


def test_an_owner_and_a_word_before_the_file_name_count_every_section():
    q = "How many sections are in acme's billing invoices.cfg?"
    assert ask_scripted(q, CFG, "int") == (4, "submitted")


def test_the_size_of_a_section_that_names_the_file_is_no_answer():
    q = "How many sections does acme's billing invoices.cfg have?"  # (an owner's phrase, but after no "in")
    found = read_candidates(q, CFG, "size_of", int)
    assert found and not any(c.supported for c in found)


def test_an_owner_names_the_file_not_a_record():
    assert before_file_name("How many sections are in acme's billing invoices.cfg?", "acme")
    assert before_file_name("How many sections are in acme's billing invoices.cfg?", "billing")
    assert before_file_name("What is in acme's invoices.cfg?", "acme")
    assert not before_file_name("What is acme's rounding in invoices.cfg?", "acme")  # a setting, then "in"
    assert not before_file_name("Which value of billing in invoices.cfg is net30?", "billing")


NOTES = """Gizmo SDK - Release Notes

Version 2.4.1 - March 2019
==========================
This release is built with Zig 0.4.0.

Version 2.4.0 - January 2019
============================
No changes.

Version 2.3.9 - Sept 2018
=========================
Tools:
  - The linter runs twice as fast.
  - A new fmt flag, -w.

Version 2.3.8 - July 2018
=========================
This release is built with Zig 0.3.0.
"""


def test_release_headings_dated_by_a_month_alone_are_releases():
    s = st.detect(NOTES)
    assert s.detail == "dated sections"
    assert [r.key for r in s.records] == ["2.4.1", "2.4.0", "2.3.9", "2.3.8"]
    assert s.records[0].get("date") == "March 2019"
    assert s.records[0].get("body") == "This release is built with Zig 0.4.0."
    assert s.records[2].get("body") is None and "linter" in (s.records[2].get("changelog") or "")


def test_a_month_name_is_no_word_that_starts_like_one():  # a guard
    text = "Marketing 2016\n==============\nA plan.\n\nDecimal 1000\n============\nDigits.\n"
    assert st.detect(text).detail != "dated sections"


def test_a_release_date_is_no_answer_to_what_the_release_says():  # a guard: with a body, and with none
    answer, kind = ask_scripted("Which Zig release was Gizmo SDK 2.3.8 built with?", NOTES)
    assert not (answer == "July 2018" and kind == "submitted")


MANUAL = """.TH WIDGET 1
.SH NAME
widget \\- a frobnicator
.SH COMMAND LINE OPTIONS
.TP
.B \\-q
Quiet: print nothing but errors.
.TP
.BI "\\-Q " option
Set a vendor specific queue option.
.TP
.B \\-z
Zero the counters first. This exists for an old serial console only.
.TP
.BI "\\-Z " level
Compress at the given level.
"""


def test_a_one_letter_option_keeps_its_case():
    answer, _kind = ask_scripted("What is widget's -q option for, according to the manual?", MANUAL)
    assert answer != "Set a vendor specific queue option."


HEADER = """#ifndef _WIDGET_H
#define _WIDGET_H 1

/* Requests to the widget driver. */

typedef struct widget_vec
{
  void * base;                /* start of the buffer */
  unsigned int count;         /* its length */
} widget_vec_t;

typedef struct widget_req
{
  int req_id;                 /* [i] caller's id */
  void * bufp;                /* [i] points to the buffer
                                 or a list of buffers */
  unsigned char * namep;      /* [i] points to the name */
  unsigned int len;           /* [i] byte count */
  void *userp;                /* [i->o] unused */
  char* tagp;                 /* [o] the tag */
  int status;                 /* [o] how it went */
} widget_req_t;

#define WIDGET_IO 0x2285      /* run a request */
#define WIDGET_GET 0x2286     /* read the state */
#define WIDGET_SET 0x2287     /* change the state */

#endif
"""


def test_pointer_members_are_members_however_spaced():
    raws, _ = parse_literals(HEADER.split("\n"))
    assert [key for _, _, fields, key, _ in raws if dict(fields).get("block") == "widget_req"] == [
        "req_id", "bufp", "namep", "len", "userp", "tagp", "status"
    ]  # fmt: skip


INI = """# Where things go
[Tool]
tool_home = /opt/tool
tool_mode = fast

[Cache]
cache_dir = ~/.cache/tool
max_mb = 200

[Log]
level = info
"""


def test_where_names_the_field_of_paths():
    assert ask_scripted("Where does tools.ini say the tool lives on disk?", INI) == ("/opt/tool", "submitted")


def test_a_relative_where_names_no_field_of_paths():
    s = st.detect(INI)
    assert placed_fields("Where is the tool installed?", s) == ["tool_home", "cache_dir"]
    assert placed_fields("How many sections are there where the level is info?", s) == []
