"""Lines that each name one setting, in a text read as lines (the fourteenth probe's glibc locale and CMake
list, rebuilt as small made-up files): ``name  "value"`` and ``name_joined  value`` lines are fields keyed by
their name, a quoted ``"R2019a=9.6"`` list item is keyed by R2019a, and a question naming one of them gets its
whole value ``Submitted``; a plain word before blanks (a log line's level) names nothing."""

from __future__ import annotations

from dspy_rlm.library.formats import spaced_kv
from dspy_rlm.library.structure import detect
from tests.dspy_rlm.scripted import ask_scripted as _ask

LOCALE = """comment_char %
escape_char /

% A made-up locale for the harbour town of Lumen, written in the layout
% of glibc's locale sources: a section per category, each closed by END.
%
% The port office keeps it.  Questions about it go to the office; the
% telephone section follows the usual international layout, and the
% monetary one the town's own coin, the lumen mark.
%
% This is a 2 step version: the first step reads the sections, the
% second one checks that every category named is closed again.
%
% Changes:
%   2024-03-01  first version
%   2024-09-12  the telephone section added

LC_CTYPE
copy "i18n"

translit_start
include  "translit_combining";""

% LATIN SMALL LETTER O WITH STROKE -> "oe"
<U00F8> "<U006F><U0338>";"<U006F><U0065>"
% LATIN CAPITAL LETTER O WITH STROKE -> "OE"
<U00D8> "<U004F><U0338>";"<U004F><U0045>"
% LATIN SMALL LETTER A WITH RING ABOVE -> "aa"
<U00E5> "<U0061><U030A>";"<U0061><U0061>"

translit_end
END LC_CTYPE

LC_IDENTIFICATION
title      "Harbour locale for Lumen"
source     "Lumen port office"
contact    ""
language   "Lumenish"
territory  "Lumen"
END LC_IDENTIFICATION

LC_MONETARY
int_curr_symbol         "LMC "
currency_symbol         "lm"
mon_decimal_point       ","
int_frac_digits         2
frac_digits             2
END LC_MONETARY

LC_TELEPHONE
tel_int_fmt    "+%c %a %l"
int_prefix     "77"
int_select     "00"
END LC_TELEPHONE
"""

CMAKE = """# Made-up CMake module: the tide tables it knows.
# Each tide table release maps to a version number.

set(TIDE_VERSIONS_MAPPING
  "T2024b=4.2"
  "T2024a=4.1"
  "T2023b=4.0"
  "T2023a=3.9"
  )

foreach(_var IN LISTS TIDE_VERSIONS_MAPPING)
  message(STATUS "known: ${_var}")
endforeach()
# Before T2024a the table had no version check.
# T2024a goes to the cache as well.
"""


def test_name_value_lines_are_fields_keyed_by_their_name():
    s = detect(LOCALE)
    assert (s.kind, s.detail) == ("assignments", "locale")  # a POSIX locale source (lines before stop 90)
    by_key = {r.key: r for r in s.records if r.key}
    assert by_key["title"].get("title") == "Harbour locale for Lumen"
    assert by_key["int_frac_digits"].get("int_frac_digits") == "2"
    assert by_key["int_prefix"].get("int_prefix") == "77"
    assert "contact" not in by_key  # an empty quoted value: nothing to read
    assert {r.key for r in detect(CMAKE).records if r.key} >= {"T2024b", "T2023a"}


def test_a_plain_word_before_blanks_names_nothing():
    assert spaced_kv("ERROR  disk full on node7") is None and spaced_kv("Note   see below") is None
    assert spaced_kv('title   "Harbour locale"') == ("title", "Harbour locale")
    assert spaced_kv("int_frac_digits 2") == ("int_frac_digits", "2")


def test_a_named_setting_is_read_whole_and_vouched_for_where_the_question_names_nothing_else():
    assert _ask("What's the locale's title?", LOCALE) == ("Harbour locale for Lumen", "submitted")
    # beside a phrase of the question the line lacks ("harbour locale"), read right but not vouched for
    assert _ask("What currency symbol does the harbour locale use?", LOCALE)[0] == "lm"
    assert _ask("what's the international telephone prefix?", LOCALE)[0] == "77"


def test_a_list_item_is_read_by_its_name_and_by_its_value():
    assert _ask("Which tide version number goes with release T2024a?", CMAKE)[0] == "4.1"  # "goes": a comment's
    assert _ask("what release name maps to tide version 3.9?", CMAKE)[0] == "T2023a"
