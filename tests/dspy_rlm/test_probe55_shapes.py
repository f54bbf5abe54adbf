"""Shapes from probe 55's first run, on invented data: "who" asks for the person a read shows written with an
address (``Name <user@host>``), the whole name in any Latin script and with its particles ("de", "van"), not the
record's key nor the first word; two such names vouch for neither. A setting of 0 or 1 is a flag where the question
states no number ("is expand-check turned on?": ``expand-check=0`` says no). A dotted number is no part of a
longer one ("1.0" is not in "1.1.0"), and "when" asks the date that keys the one record holding it. A record's
heading (``! model`` above an indented block) holds the phrase it says. A line of plain text holds the rest of
the prose sentence it is part of. Each test fails on the code before its
change."""

from __future__ import annotations

from dspy_rlm.library.wordmatch import matches
from dspy_rlm.profiles.header_comment import names_heading, sentence_says
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.printed_rows import printed
from dspy_rlm.profiles.said import addressed_names
from tests.dspy_rlm.scripted import ask_scripted, read_candidates

NOTES = """20020301: Bumped up version number to 1.0.4
20010517: Bumped up version number to 0.4
20010517: Fixed the build on big-endian hosts
20010203: Moved the build to autoconf
20010203: Renamed the sample recipes
19991201: Bumped up version number to 0.3.1
19991120: Bumped up version number to 0.3
19990830: Added the viscosity table of the base glazes
          It was measured by Øyvind Sælebakk <oyvind@glaze.example>
19990830: A few typos in the manual
19990412: Bumped up version number to 0.2
19990412: First public snapshot of the mixer
"""

HEADER = """# Maintainers: Renée van der Berg <renee@kiln.example>
#
# Copyright (C) 2011 Kiln Works Ltd
#
# kiln.conf -- settings of the kiln daemon
ramp-rate=120
hold-minutes=15
"""

CONF = HEADER + "hold-check=0\nvent-check=1\n"


def test_who_reads_the_name_written_with_an_address_in_a_record():
    # getopt's changelog: "They are written by Arkadiusz Miśkiewicz <...>" gave the record's key 20000630
    found = read_candidates("Who measured the viscosity table?", NOTES, "record")
    named = {(c.value, c.supported) for c in found if c.why == "a person's name written with an address"}
    assert named == {("Øyvind Sælebakk", True)}  # by either key of the record, the same name


def test_a_line_naming_the_role_vouches_for_a_name_in_a_peek():
    # semanage.conf: "# Authors: Jason Tang <jtang@tresys.com>" gave 'Authors', a token of the row
    book = MoveBook({"question": "Who is listed as a maintainer of kiln.conf?"}, {"context": HEADER}, {"answer": str})
    found = [(c.value, c.supported) for c in printed(book, HEADER) if c.why.startswith("a person's name")]
    assert found == [("Renée van der Berg", True)]


def test_two_addressed_names_vouch_for_neither():
    book = MoveBook({"question": "Who wrote the mixer?"}, {"context": NOTES}, {"answer": str})
    two = "Written by Ada Lovelace <ada@a.example> and Charles Babbage <cb@b.example>"
    assert [(c.value, c.supported) for c in addressed_names(book, two, True)] == [
        ("Ada Lovelace", False),
        ("Charles Babbage", False),
    ]


def test_only_a_who_question_reads_addressed_names():
    book = MoveBook({"question": "What does the viscosity table hold?"}, {"context": NOTES}, {"answer": str})
    assert addressed_names(book, NOTES, True) == []


def test_a_zero_or_one_setting_answers_whether_it_is_on():
    # semanage.conf: "expand-check=0" for "Is expand-check turned on?" was True, by the existence of the setting
    assert ask_scripted("Is hold-check turned on in kiln.conf?", CONF, "bool") == (
        False,
        "submitted",
    )
    assert ask_scripted("Is vent-check switched off in kiln.conf?", CONF, "bool") == (
        False,
        "submitted",
    )


def test_a_question_stating_a_number_compares_it_not_a_flag():
    found = read_candidates("Is hold-check set to 1 in kiln.conf?", CONF, "field", bool)
    assert not any(c.why == "the setting's flag says so" for c in found)


def test_a_dotted_number_is_no_part_of_a_longer_one():
    # getopt's changelog: record_of(context, '1.0') read "Bumped up version number to 1.1.0"
    assert not matches("1.0", "version number to 1.1.0") and not matches("1.0", "version number to 1.0.6")
    assert matches("1.0", "Released version 1.0") and matches("1.0", "Released version 1.0.")
    assert matches("2.1", "gcc-2.1 (>= 4)")


def test_when_asks_the_date_keying_the_one_record_holding_the_phrase():
    # "When did getopt 1.0 come out?": the key 19980505 of "19980505: Released version 1.0" was left a guess
    assert ask_scripted("When did the mixer 0.4 come out?", NOTES) == ("20010517", "submitted")
    assert ask_scripted("When was version 0.3 of the mixer released?", NOTES) == ("19991120", "submitted")


GLAZES = """! finish
  gloss           Shiny, glass-like surface
  satin           Soft sheen between gloss and matte
  matte           No shine at all
! colour
  teal7           Deep teal with a blue cast
  ochre2          Warm yellow-brown earth tone
  slate4          Cool blue-grey
"""


def test_a_record_s_heading_holds_the_phrase_it_says():
    # evdev.lst: "the xkb model dellm65" doubted the record "dellm65  Dell Precision M65 laptop" under "! model"
    found = read_candidates("What shade is the colour teal7?", GLAZES, "record")
    assert ("Deep teal with a blue cast", True) in {(c.value, c.supported) for c in found}
    other = read_candidates("What shade is the finish teal7?", GLAZES, "record")  # another block's heading
    assert not any(c.supported for c in other)


MANUAL = '''"""Mix glaze batches from recipe files."""

import os
import sys

__all__ = ["mix", "weigh"]


def mix(recipes, strict=False):
    """mix(recipes[, strict]) -> batches

    Each recipe is weighed in grams and written to a batch sheet
    next to it. The mixer never changes a recipe file.

    If the first line of a recipe starts with a plus sign, or if the
    environment variable GLAZE_STRICT is set, then the batch
    halts as soon as an unknown ingredient is found.

    """
    strict = strict or bool(os.environ.get("GLAZE_STRICT"))
    return [weigh(r, strict) for r in recipes]


def weigh(recipe, strict):
    return sum(recipe.values())
'''


def test_a_line_of_plain_text_holds_the_rest_of_its_sentence():
    # getopt.py: "environment variable POSIXLY_CORRECT is set, then option" lacked 'stop' of the next line
    question = "Which environment variable makes it halt at an unknown ingredient?"
    assert ask_scripted(question, MANUAL) == ("GLAZE_STRICT", "submitted")
    found = read_candidates("Which environment variable makes the mixer weigh in ounces?", MANUAL, "record")
    assert not any(c.supported for c in found)  # 'ounces' is in no sentence of the line read


TCL = """namespace eval ttk::theme::kiln {
    ttk::style theme settings kiln {
        ttk::style configure TSpinbox -arrowsize 10 -padding {2 0 10 0}
        ttk::style configure TCombobox -padding 1
    }
}
"""


def test_code_is_no_heading_and_no_sentence():
    # the host check: the Tcl line under "ttk::style theme settings clam {" read 'clam' and Submitted -arrowsize
    book = MoveBook({"question": "What padding does the kiln theme give TSpinbox?"}, {"context": TCL}, {})
    assert not names_heading(book, "context", 3, "kiln") and not sentence_says(book, "context", 3, "kiln")
    lines = MoveBook({"question": "q"}, {"context": MANUAL}, {})
    at = MANUAL.split("\n").index("    environment variable GLAZE_STRICT is set, then the batch") + 1
    assert sentence_says(lines, "context", at, "unknown ingredient") and not sentence_says(
        lines, "context", at, "grams"
    )
