"""Shapes met while probing for the twenty-second time (and left over from the twenty-first), on made-up files:
a ranking or a reverse lookup asked among the members of one block (a class, a heading) the question names."""

from __future__ import annotations

from dspy_rlm.library import structure as st
from dspy_rlm.library import superlatives
from tests.dspy_rlm.scripted import ask_scripted as _ask

STUB = """from enum import IntEnum

class Color(IntEnum):
    RED = 1
    GREEN = 2
    BLUE = 300
    BLACK = 0

class Priority(IntEnum):
    LOW = 10
    NORMAL = 20
    HIGH = 30
    URGENT = 40

class Size(IntEnum):
    SMALL = 5
    MEDIUM = 7
    LARGE = 9
"""


def test_a_ranking_among_one_blocks_members_ranks_within_it():
    assert _ask("Among the Priority levels, which one has the highest number?", STUB, "str") == (
        "URGENT",
        "submitted",
    )
    assert _ask("Of the Size members, which has the smallest value?", STUB, "str") == ("SMALL", "submitted")
    assert superlatives.max_of(STUB, "value", within="Color") == ("BLUE", "300")
    assert superlatives.min_of(STUB, "value", "number", "Priority") == ("LOW", "10")


CODES = """from enum import Enum

class Shade(Enum):
    LIGHT = "L"
    DARK = "D"
    MIXED = "M"
    NONE = "N"
    PALE = "P"

class Mode(Enum):
    LOOSE = "L"
    DENSE = "D"
    MEDIUM = "M"
    EMPTY = "E"
    FULL = "F"
"""


def test_a_value_several_blocks_hold_is_looked_up_within_the_block_named():
    assert superlatives.key_of(CODES, "D", within="Mode") == "DENSE" and superlatives.key_of(CODES, "D") == "DARK"
    assert _ask('Which Mode member stands for the code "M"?', CODES, "str") == ("MEDIUM", "submitted")
    assert _ask('Which member stands for the code "M"?', CODES, "str")[1] != "submitted"  # two blocks hold it


MANIFEST = """{
  "name": "widgetkit",
  "version": "2.4.1",
  "license": "MIT",
  "scripts": {
    "build": "tsc -p .",
    "check": "prettier --check src",
    "test": "mocha"
  },
  "devDependencies": {
    "mocha": "^10.2.0",
    "prettier": "^3.1.0",
    "typescript": "^5.3.2",
    "which": "^4.0.0"
  }
}
"""


def test_a_phrase_naming_another_field_of_the_document_leaves_the_field_read_unvouched():
    asked = "What version range of prettier does widgetkit list among its development dependencies?"
    assert _ask(asked, MANIFEST, "str") != ("2.4.1", "submitted")  # widgetkit's own version: no
    # "Which" names no field: devDependencies.which is not read for it
    assert _ask("Which of the package's scripts runs mocha?", MANIFEST, "str") != ("^4.0.0", "submitted")


RULES = """# Client rules of an example server.
#
# Put your actual configuration here
# ----------------------------------

# Administrative login
local   all             admin                                   peer

# TYPE  DATABASE        USER            ADDRESS                 METHOD

local   all             all                                     peer
host    all             all             127.0.0.1/32            md5
host    all             all             ::1/128                 md5
local   replication     all                                     peer
host    replication     all             10.0.0.0/8              md5
host    replication     backup          10.1.0.0/16             trust
host    sales           all             10.2.0.0/16             md5
"""


def test_a_header_comment_among_the_rows_names_the_columns_its_words_stand_over():
    s = st.detect(RULES)
    assert s.field_names[:5] == ("TYPE", "DATABASE", "USER", "ADDRESS", "METHOD")
    local = s.records[0]
    assert local.get("METHOD") == "peer" and local.get("ADDRESS") is None  # no address: the method stays put
    assert _ask("Which authentication method is used by the most rules?", RULES, "str") == ("md5", "submitted")


ORDERS = """# Examples of an order format
---
- Kettle
- Toaster
---
count: 2 # items
--- !<tag:example.com,2024:order>
invoice: 1201
date   : 2024-03-01
bill-to: &id001
    given  : Ada
    address:
        lines: |
            1 Main St.
        city    : Springfield
ship-to: *id001
product:
    - sku         : A1
      quantity    : 2
      description : Kettle
      price       : 30.00
    - sku         : B7
      quantity    : 1
      description : Toaster
      price       : 45.50
total: 105.50
comments:
    deliver after noon
"""


def test_a_line_keyed_by_the_ranked_fields_own_name_answers_no_which():
    assert st.detect(ORDERS).kind == "lines"  # "price: 45.50" lines, each keyed "price"
    assert _ask("Which product has the highest price?", ORDERS, "str") != ("price", "submitted")


COPYRIGHT = """Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: GNU frob
Source: https://example.org/frob/

Files: *
Copyright: 2001-2020 Example Authors
License: GPL-2+

Files: debian/*
Copyright: 2019 Jane Packager <jane@example.org>
License: GPL-3+

Files: lib/*.c
Copyright: 2010 Someone Else
License: BSD-2-Clause
"""


def test_a_value_of_the_documents_header_names_the_document_not_another_record():
    asked = "Under which license is the Debian packaging of GNU frob (the debian/* files) distributed?"
    assert _ask(asked, COPYRIGHT, "str") == ("GPL-3+", "submitted")
    asked = "How many Files: paragraphs (stanzas beginning with a Files: field) does this copyright file contain?"
    assert _ask(asked, COPYRIGHT, "int") == (3, "submitted")  # "a" is no operand; beginning with a field: has it


MDOC = """.Dd March 3, 2021
.Dt FROBNICATE 1
.Os
.Sh NAME
.Nm frobnicate
.Nd adjust the frob level of a widget
.Sh SYNOPSIS
.Nm
.Op Fl q
.Op Fl v
.Ar file
.Sh DESCRIPTION
The
.Nm
utility adjusts a widget's frob level.
"""

MAN = """.TH WIDGETD 8 "2 May 2019" "widgetd 1.4" "System Manager's Manual"
.SH NAME
widgetd \\- the widget daemon
.SH OPTIONS
.TP
.B \\-f
Stay in the foreground.
"""


def test_a_manual_pages_header_macros_are_its_title_record():
    page = st.detect(MDOC)
    assert page.records[0].key == "FROBNICATE" and page.records[0].get("date") == "March 3, 2021"
    assert st.detect(MAN).records[0].fields[:3] == (
        ("title", "WIDGETD"),
        ("manual section", "8"),
        ("date", "2 May 2019"),
    )
    assert _ask("What date is the widgetd man page stamped with?", MAN, "str") == ("2 May 2019", "submitted")


NEWS = """=============
NEWS for frob
=============

2.1.0 (2022-05-01)
==================

- Drop support for Python 3.6 and 3.7.
- Faster frobbing of large widgets.

2.0.1 (2021-11-12)
==================

- Fix a crash on empty widgets.  [bug=1201]

2.0.0 (2021-03-30)
==================

- Rewrite the frob engine.
- Add the --quiet flag.
"""


def test_a_phrase_of_one_changelog_sections_notes_names_that_release():
    assert st.detect(NEWS).detail == "dated sections"
    assert _ask("Which release dropped support for Python 3.6 and 3.7?", NEWS, "str") == ("2.1.0", "submitted")
    assert _ask("When was 2.0.1 released?", NEWS, "str") != ("2.0.1", "submitted")
    assert _ask("Who is credited with the fix for the crash on empty widgets?", NEWS, "str")[1] != "submitted"
