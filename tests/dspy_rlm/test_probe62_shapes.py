"""Shapes from probe 62's first run, on invented data: a manual page's title spelled with a hyphen (``.TH
"HARBOR\\-DOCK"``) is the question's "harbor dock", no answer and no thing whose existence says yes; its NAME line
joined by an em dash is its description. A list of names is no answer to "which <one thing>". A ranking of every
setting answers only a question whose noun names the setting. A reverse lookup's record lacking an identifier the
question names is not the one asked of. A list whose item refers to another definition (``#/$defs/SailMode``, kept
in another file here) counts no values. Each test fails on the code before its change."""

from __future__ import annotations

import json

from tests.dspy_rlm.scripted import ask_scripted

PAGE = r"""'\" t
.TH "HARBOR\-DOCK" "1"
.nh
.ad l
.SH "NAME"
harbor\-dock \[em] Moor a boat at the nearest free berth
.SH "SYNOPSIS"
\fBharbor dock\fR [\fIoptions\fR] \fIboat\fR
.SH "DESCRIPTION"
The dock command reserves a berth for a boat and records its arrival.
It never charges the harbor fee; that is done by \fBharbor\-bill\fR(1).
.SH "OPTIONS"
.sp
\fB\-\-berth\fR \fInumber\fR
.RS 4
The berth to use instead of the nearest free one.
.RE
.sp
\fB\-\-leave\fR
.RS 4
Free the berth again, putting the boat back on the waiting list.
.RE
"""


def test_a_manual_pages_hyphenated_title_is_no_answer_and_its_name_line_is_its_description():
    answer, ending = ask_scripted("Which harbor dock option puts a boat back on the waiting list?", PAGE)
    assert ending != "submitted" or answer == "--leave"  # Submitted the title HARBOR-DOCK before
    q = "How does the harbor-dock man page's NAME line describe the command?"
    assert ask_scripted(q, PAGE) == ("Moor a boat at the nearest free berth", "submitted")


def test_the_command_a_page_documents_is_no_thing_whose_presence_says_yes():
    answer, ending = ask_scripted("Does harbor dock charge the harbor fee?", PAGE, "bool")
    assert ending != "submitted" or answer is False  # Submitted True (the title is there) before


DASHBOARD = json.dumps(
    {
        "title": "Fleet Board",
        "version": 4,
        "graphTooltip": 1,
        "schemaVersion": 31,
        "refresh": "10s",
        "templating": {
            "list": [
                {"name": "source", "description": "Where the metrics come from."},
                {"name": "span", "description": "The averaging span.", "options": ["1m", "5m", "30m"]},
                {"name": "BoatName", "description": "Filter by boat."},
                {"name": "DockKind", "description": "Filter by dock kind (dry or wet)."},
            ]
        },
    },
    indent=2,
)


def test_a_list_of_names_is_no_answer_to_which_one():
    answer, ending = ask_scripted("Which template variable of the Fleet Board filters by dock kind?", DASHBOARD)
    assert ending != "submitted" or answer == "DockKind"  # Submitted the whole list before


def test_a_ranking_of_every_setting_answers_only_a_noun_that_names_it():
    answer, ending = ask_scripted("What is the longest averaging span the Fleet Board offers?", DASHBOARD)
    assert ending != "submitted" or answer in ("30m", "span")  # Submitted schemaVersion before


HEADER = """#ifndef _BOATS_H
#define _BOATS_H 1

/* Structure for BOATOP - a boat operation.  */
struct boatop
  {
    short int b_op;\t\t/* Operations defined below.  */
    int b_count;\t\t/* How many of them.  */
  };

/* Boat operations.  */
#define BRESET 0\t/* Reset the winch.  */
#define BMOOR\t1\t/* Moor at the berth.  */
#define BCAST\t2\t/* Cast off.  */
#define BREEF\t3\t/* Reef the main sail.  */
#define BHOIST\t4\t/* Hoist the jib.  */

/* Structure for BOATGET - the boat's state.  */
struct boatget
  {
    long int b_kind;\t\t/* Kind of boat.  */
    long int b_berth;\t\t/* Berth number.  */
    long int b_crew;\t\t/* Crew on board.  */
    long int b_fuel;\t\t/* Fuel left.  */
    long int b_speed;\t\t/* Speed in knots.  */
  };

/* Constants for b_kind.  */
#define BK_SLOOP\t0x01\t/* Harbor ST-12 sloop */
#define BK_KETCH\t0x02\t/* Harbor KT-27 ketch */

#define BOAT_NAMES { \\
\t{BK_SLOOP,\t"Harbor ST-12 twelve foot sloop"}, \\
\t{BK_KETCH,\t"Harbor KT-27 seven metre ketch"}, \\
\t{0, NULL}}

struct boatinfo
  {
    long int t_kind;\t\t/* Boat kind id (b_kind).  */
    char *t_name;\t\t/* Descriptive name.  */
  };

struct boatconfig
  {
    long int b_kind;\t\t/* Hull type.  */
    long int b_port;\t\t/* Port number.  */
    long int b_mast;\t\t/* Mast count.  */
    long int b_keel;\t\t/* Keel depth.  */
  };

#endif
"""


def test_a_reverse_lookup_lacking_an_identifier_the_question_names_is_not_asked():
    q = "What descriptive name does the boat table give the Harbor KT-27 hull type?"
    answer, ending = ask_scripted(q, HEADER)
    assert ending != "submitted" or answer == "Harbor KT-27 seven metre ketch"  # Submitted b_kind before


SCHEMA = json.dumps(
    {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "BoatSpec",
        "type": "object",
        "properties": {
            "sail-mode": {"anyOf": [{"$ref": "#/$defs/SailMode"}, {"type": "null"}]},
            "crew": {"type": "integer"},
            "hull": {"type": "string"},
            "mast-count": {"type": "integer", "format": "uint32"},
            "keel-depth": {"type": "number"},
            "flag": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "port-of-call": {"type": "array", "items": {"type": "string"}},
        },
        "additionalProperties": False,
        "required": ["hull"],
    },
    indent=2,
)


def test_a_list_whose_item_refers_to_another_definition_counts_no_values():
    _answer, ending = ask_scripted("How many values can the sail-mode property take?", SCHEMA, "int")
    assert ending != "submitted"  # Submitted 2 (the anyOf's two items) before; SailMode's values are not here


BERTHS = """# This file lists the berths you wish to have opened. You can find the list
# of known berths in the harbor guide; uncomment a line to open its berth.

# A1 SAIL
# A2 SAIL
# A3 MOTOR
# B1 SAIL
# B2 ROW
# B3 MOTOR
# C1 SAIL
# C2 FERRY
# C3 MOTOR
# D1 SAIL
"""


def test_a_table_whose_rows_are_commented_out_is_read_as_its_rows():
    assert ask_scripted("Which berth is listed for the FERRY kind?", BERTHS) == ("C2", "submitted")
    assert ask_scripted("How many berths are listed with the MOTOR kind?", BERTHS, "int") == (3, "submitted")
    assert ask_scripted("Which kind is listed for the most berths?", BERTHS) == ("SAIL", "submitted")


def test_a_row_commented_out_is_listed_not_on():
    _answer, ending = ask_scripted("Is berth B2 switched on (uncommented) in this file?", BERTHS, "bool")
    assert ending != "submitted"  # listed, but whether it is on is what its "#" says


SHELL = """#!/bin/sh
# harbor control
is_ready() {
\ttest -e /run/harbor.ready
}

do_open_cmd() {
\tberth-ctl --open --quiet \\
\t    ${BERTH:+--berth "$BERTH"}
}

do_open() {
\tcall do_open_cmd
\tretval=$?
}

do_close_cmd() {
\tberth-ctl --close --quiet
\tRETVAL="$?"
}

do_status() {
\tberth-ctl --status
}
"""


def test_the_one_function_whose_commands_hold_a_phrase_is_which_function_runs_it():
    from tests.dspy_rlm.scripted import read_candidates

    q = "Which function in this script is the one that actually runs berth-ctl --open?"
    keys = [c for c in read_candidates(q, SHELL, "record") if c.label == "key" and c.supported]
    assert [c.value for c in keys] == ["do_open_cmd"]  # the word "runs" named the field holding it: no reverse read


ALIASES = """# locale aliases
en_US.utf8:     en_US.UTF-8
de_DE.utf8:     de_DE.UTF-8
fr_FR.iso88591: fr_FR.ISO-8859-1
pt_BR.utf8:     pt_BR.UTF-8
es_ES.utf8:     es_ES.UTF-8
it_IT.utf8:     it_IT.UTF-8
nl_NL.utf8:     nl_NL.UTF-8
"""


def test_a_value_spelled_near_its_key_is_still_an_answer():
    # the hyphen of CARGO-YANK read as a space, no other mark dropped: en_US.UTF-8 is no spelling of en_US.utf8
    assert ask_scripted("Which locale does the alias de_DE.utf8 map to?", ALIASES) == ("de_DE.UTF-8", "submitted")
