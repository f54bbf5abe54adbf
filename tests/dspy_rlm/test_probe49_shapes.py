"""Shapes from probe 49's first run and from the scripted host check of the mends before it, on invented data: a
plain word two records hold inside longer names is no key naming one ("the .glz *extension*"); "what does the
Status line say?" asks the whole statement after the colon; a page's name before "manpage" names the document,
whose title record states nothing; a length ranking where every value has one length has no winner; ", then tell
me ... at that index" is a second step; a C header's #defines beside a few name arrays are its records; the items of
a top-level YAML list of mappings are counted under its key; a ranking of records none of which holds the name the
question gives (a function's calls, ranked by the assignments beside them) is no answer. Each test fails on the code
before its change."""

from __future__ import annotations

from tests.dspy_rlm.scripted import ask_scripted

TYPES = """# This file maps media types to filename extensions.
# MIME type (lowercased)\t\t\tExtensions
# ============================================\t==========
application/vnd.kiln.extension\t\t\tkxt
application/vnd.kiln.extension-pack\t\tkxp
application/vnd.kiln.glaze-set\t\t\tkgs
application/vnd.shelf-glz\t\t\tshg
image/x-kiln-photo\t\t\t\tkph kpj
text/glaze\t\t\t\t\tglz gzl
text/cone-chart\t\t\t\tcone
audio/x-kiln-hum\t\t\t\thum
video/x-firing\t\t\t\tfir firv
"""

POSTINST = """#! /bin/sh
# postinst ---
# Author           : Ada Potter ( ada@kiln.example )
# Created On       : Fri Nov 14 11:25:07 2003
# Last Modified By : Ada Potter
# Update Count     : 9
# Status           : Unknown, Handle with oven mitts!
# HISTORY          :
#
set -e
case "$1" in
  configure) kilnctl reload ;;
  abort-upgrade|abort-remove) : ;;
  *) echo "postinst called with unknown argument" >&2; exit 1 ;;
esac
exit 0
"""

TAB = "# ISO-like codes of the kiln regions\n# code\tname of region, shelf, or kiln\n" + "".join(
    f"{c}\t{n}\n"
    for c, n in [
        ("AK", "Ash Kiln"),
        ("BW", "Blue Ware"),
        ("CG", "Cone Glaze and the Seven Shelf Islands"),
        ("DR", "Door"),
        ("EF", "Ember Field"),
        ("GL", "Glaze Lake"),
    ]
)

HEADER = """#define TYPE_A 1 /* ASCII */
#define TYPE_K 2 /* kiln */
#define FORM_N 1 /* non-print */
#define FORM_T 2 /* telnet format effectors */
#define FORM_C 3 /* carriage control (ASA) */
#ifdef FORM_NAMES
char *formnames[] = {"0", "Nonprint", "Telnet", "Carriage-control" };
#endif
#define STRU_F 1 /* file (no record structure) */
#define STRU_R 2 /* record structure */
"""


MAN = r""".TH "KILNSCAN" "1" "2026" "Kiln 4.2.0" "Kiln Commands"
.SH NAME
kilnscan \- static analysis tool that scans a shelf file for uses of
retired glaze recipes
.SH SYNOPSIS
\f[CR]kilnscan\f[R] [\f[I]options\f[R]] {\f[I]dir\f[R]|\f[I]shelf\f[R]}
.SH DESCRIPTION
The \f[CR]kilnscan\f[R] tool is a static analysis tool provided by the
kiln kit that scans a shelf file for uses of retired glaze recipes.
The retired recipes identified by the \f[CR]kilnscan\f[R] tool are only
those that the kit itself defines.
.PP
To scan a shelf file, you must first ensure that all of the recipes the
scanned ones depend upon are present in the shelf path.
.SH OPTIONS FOR THE KILNSCAN COMMAND
The following options are available:
.TP
\f[CR]\-\-shelf\-path\f[R] \f[I]path\f[R]
Provides a search path for resolution of dependent recipes.
.RS
\f[I]path\f[R] can be a search path that consists of one or more
directories separated by the system\-specific path separator.
For example:
.IP \(bu 2
\f[B]Linux and macOS:\f[R]
.RS 2
\f[CR]\-\-shelf\-path /some/directory:/another/dir\f[R]
.RE
\f[B]Note:\f[R]
On Windows, use a semicolon (\f[CR];\f[R]) as the separator instead of a
colon (\f[CR]:\f[R]).
.RE
.TP
\f[CR]\-\-for\-removal\f[R]
Limits scanning or listing to recipes that are retired for removal.
.TP
\f[CR]\-\-release\f[R] \f[I]4\f[R]|\f[I]5\f[R]|\f[I]6\f[R]
Specifies the kit release that provides the set of retired recipes to scan.
.TP
\f[CR]\-\-verbose\f[R] or \f[CR]\-v\f[R]
Enables additional message output during processing.
.SH EXAMPLE OF KILNSCAN OUTPUT
The \f[CR]kilnscan\f[R] tool prints one line per use of a retired recipe.
"""


def test_a_plain_word_two_records_hold_inside_names_is_no_key_of_one():
    # "which media type is the .ics extension mapped to?": 'oxt' of application/vnd.openofficeorg.extension
    answer, kind = ask_scripted("In /etc/kiln.types, which media type is the .glz extension mapped to?", TYPES)
    assert kind != "submitted" or answer == "text/glaze", answer


def test_what_a_line_says_is_its_whole_statement():
    # "What does the Status line in the header of ucf.postinst say?": 'Unknown', cut at the comma
    q = "What does the Status line in the header of /var/lib/dpkg/info/kiln.postinst say?"
    assert ask_scripted(q, POSTINST) == ("Unknown, Handle with oven mitts!", "submitted")


def test_a_length_ranking_every_value_ties_has_no_winner():
    # "Which code in iso3166.tab has the longest country/territory name?": AD, the first of 2-letter codes
    answer, kind = ask_scripted("Which code in regions.tab has the longest region/shelf name?", TAB)
    assert kind != "submitted" or answer == "CG", answer


def test_then_tell_me_at_that_index_is_a_second_step():
    # "In arpa/ftp.h, look up the value of FORM_C, then tell me which string sits at that index in the formnames
    # array.": the whole array was Submitted, read as one step
    from types import SimpleNamespace

    from dspy_rlm.profiles.chains import chained

    q = "In kiln/ftp.h, look up the value of FORM_C, then tell me which string sits at that index in the forms array."
    assert chained(SimpleNamespace(text_q=q, memo={})) == "that index"
    assert chained(SimpleNamespace(text_q="Look up FORM_C in kiln/ftp.h and tell me its comment.", memo={})) is None


def test_the_name_of_the_page_asked_of_is_no_evidence_of_what_it_says():
    # "does the jdeprscan manpage say to use a semicolon as the class path separatr on Windows?": Submitted False,
    # from what the title record of JDEPRSCAN lacks; the page's own name being there says neither
    q = "does the kilnscan manpage say to use a tab as the shelf path separator on Windows?"
    answer, kind = ask_scripted(q, MAN, "bool")
    assert kind != "submitted" or answer is False, answer


KILN_H = """/*
 * Copyright (c) 2026 The Kiln Makers.  All rights reserved.
 *
 * Redistribution and use in source and binary forms, with or without
 * modification, are permitted provided that the notice above is kept.
 */

#ifndef _KILN_H
#define _KILN_H 1

/*
 * Reply codes.
 */
#define FIRED\t\t1\t/* positive firing */
#define COOLED\t\t2\t/* positive cooling */
#define CRACKED\t\t5\t/* permanent negative firing */

/*
 * Glaze codes
 */
#define GLAZE_M\t\t1\t/* matte */
#define GLAZE_G\t\t2\t/* gloss */
#define GLAZE_S\t\t3\t/* satin */

#ifdef KILN_NAMES
char *glazenames[] =  {"0", "Matte", "Gloss", "Satin" };
#endif

/*
 * Shelf codes
 */
#define SHELF_LOW\t1\t/* bottom shelf */
#define SHELF_MID\t2\t/* middle shelf */
#define SHELF_TOP\t3\t/* top shelf */

#ifdef KILN_NAMES
char *shelfnames[] =  {"0", "Low", "Middle", "Top" };
#endif

/*
 * Cone codes
 */
#define CONE_06\t\t1\t/* low fire */
#define CONE_6\t\t2\t/* mid fire */
#define CONE_10\t\t3\t/* high fire */

#ifdef KILN_NAMES
char *conenames[] =  {"0", "Low fire", "Mid fire", "High fire" };
#endif

/*
 * Door states
 */
#define DOOR_SHUT\t1\t/* shut and latched */
#define DOOR_AJAR\t2\t/* open a crack to vent */
#define DOOR_OPEN\t3\t/* open for loading */

#ifdef KILN_NAMES
char *doornames[] =  {"0", "Shut", "Ajar", "Open" };
#endif

#endif /* kiln.h */
"""


def test_a_header_of_defines_beside_a_few_arrays_keeps_its_defines():
    # arpa/ftp.h: four "char *typenames[] = {...};" arrays amid forty #defines were read as four statements
    assert ask_scripted("What number is GLAZE_G defined as in kiln.h?", KILN_H, "int") == (2, "submitted")
    q = "which reply code macro in the kiln header stands for 'permanent negative firing'?"
    assert ask_scripted(q, KILN_H) == ("CRACKED", "submitted")


KILNS_YAML = """kiln_list:
  - kiln_name: front
    kiln_params:
      fuel: gas
      cone: os.environ/FRONT_CONE
  - kiln_name: back
    kiln_params:
      fuel: wood
  - kiln_name: side
    kiln_params:
      fuel: electric
  - kiln_name: little
    kiln_params:
      fuel: electric
kiln_settings:
  vent: true
  shelves: 4
studio:
  - name: north
  - name: south
"""


def test_the_items_of_a_top_level_list_are_counted_under_its_key():
    # "How many models are defined under model_list in oai_misc_config.yaml?": 100, a number of a printed row; the
    # items of a top-level list of mappings carried no field naming the list
    assert ask_scripted("How many kilns are defined under kiln_list in kilns.yaml?", KILNS_YAML, "int") == (
        4,
        "submitted",
    )


KILN_BATS = r"""#!/usr/bin/env bats

load test_helper

@test "outputs path to glaze" {
  make_glaze_in_kiln "6.1" "celadon"
  make_glaze_in_kiln "7.2" "tenmoku"

  OVEN_VERSION=6.1 run oven-which celadon
  assert_success "${OVEN_ROOT}/kilns/6.1/glazes/celadon"

  OVEN_VERSION=7.2 run oven-which tenmoku
  assert_success "${OVEN_ROOT}/kilns/7.2/glazes/tenmoku"

  OVEN_VERSION=7.2:6.1 run oven-which tenmoku
  assert_success "${OVEN_ROOT}/kilns/7.2/glazes/tenmoku"
}

@test "searches PATH for system version" {
  make_path_glaze "raku-all-the-pots"
  make_glaze "${OVEN_ROOT}/shims" "raku-all-the-pots"

  OVEN_VERSION=system run oven-which raku-all-the-pots
  assert_success "${OVEN_TEST_DIR}/bin/raku-all-the-pots"
}

@test "searches PATH for system version (shims prepended)" {
  make_path_glaze "raku-all-the-pots"
  make_glaze "${OVEN_ROOT}/shims" "raku-all-the-pots"

  PATH="${OVEN_ROOT}/shims:$PATH" OVEN_VERSION=system run oven-which raku-all-the-pots
  assert_success "${OVEN_TEST_DIR}/bin/raku-all-the-pots"
}

@test "searches PATH for system version (shims appended)" {
  make_path_glaze "raku-all-the-pots"
  make_glaze "${OVEN_ROOT}/shims" "raku-all-the-pots"

  PATH="$PATH:${OVEN_ROOT}/shims" OVEN_VERSION=system run oven-which raku-all-the-pots
  assert_success "${OVEN_TEST_DIR}/bin/raku-all-the-pots"
}

@test "searches PATH for system version (shims spread)" {
  make_path_glaze "raku-all-the-pots"
  make_glaze "${OVEN_ROOT}/shims" "raku-all-the-pots"

  PATH="${OVEN_ROOT}/shims:${OVEN_ROOT}/shims:/tmp/non-existent:$PATH:${OVEN_ROOT}/shims" \
    OVEN_VERSION=system run oven-which raku-all-the-pots
  assert_success "${OVEN_TEST_DIR}/bin/raku-all-the-pots"
}

@test "doesn't include current directory in PATH search" {
  bats_require_minimum_version 1.5.0
  make_glaze "$OVEN_TEST_DIR" raku-all-the-pots
  cd "$OVEN_TEST_DIR"
  PATH="$(path_without "raku-all-the-pots")" OVEN_VERSION=system run -127 oven-which raku-all-the-pots
  assert_failure "oven: raku-all-the-pots: command not found"
}

@test "version not installed" {
  bats_require_minimum_version 1.5.0
  make_glaze_in_kiln "7.2" "tenmoku"
  OVEN_VERSION=5.0 run -127 oven-which tenmoku
  assert_failure <<OUT
oven: version \`5.0' is not installed (set by OVEN_VERSION environment variable)
oven: tenmoku: command not found

The \`tenmoku' command exists in these kilns:
  7.2

Note: See 'oven help global' for tips on allowing multiple
      kilns to be found at the same time.
OUT
}

@test "kilns not installed" {
  bats_require_minimum_version 1.5.0
  make_glaze_in_kiln "7.2" "tenmoku"
  OVEN_VERSION=6.1:5.0 run -127 oven-which tenmoku
  assert_failure <<OUT
oven: version \`6.1' is not installed (set by OVEN_VERSION environment variable)
oven: version \`5.0' is not installed (set by OVEN_VERSION environment variable)
oven: tenmoku: command not found

The \`tenmoku' command exists in these kilns:
  7.2

Note: See 'oven help global' for tips on allowing multiple
      kilns to be found at the same time.
OUT
"""


def test_a_ranking_of_records_none_of_which_holds_the_name_asked_is_no_answer():
    # "which python version gets passed to create_alt_executable_in_version most often?": most_common of the
    # PYENV_VERSION assignments Submitted their most common value, none of them a call of the function named
    q = "In glaze.bats, which kiln version gets passed to make_glaze_in_kiln most often?"
    answer, kind = ask_scripted(q, KILN_BATS)
    assert kind != "submitted" or answer == "7.2", answer
