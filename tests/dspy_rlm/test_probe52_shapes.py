"""Shapes from probe 52's first run, on invented data: an element's repeated children joined in one field (each
enum's ``<value nick=...>``) list items though the field's name is singular; a phrase the question quotes is one
the record read must hold ("the abbreviation 'ago'"); a part's items are no count of the lines keyed by its name
where several records are; a number the question writes with its percent sign is no setting of the bare number;
a constant defined as another constant is no value of it; the asker's word for the data ("speedscope's file
format *schema*") keys no record where the data holds it only loosely; and the program a document is of, named
in another case ("per the kiln man page, does KILN ...?"), is no existence check of what is asked. Each test
fails on the code before its change."""

from __future__ import annotations

from tests.dspy_rlm.scripted import ask_scripted

ENUMS = """<schemalist>
  <enum id="org.kiln.Glaze">
    <value nick="none" value="0"/>
    <value nick="matte" value="1"/>
    <value nick="gloss" value="2"/>
  </enum>
  <enum id="org.kiln.Firing">
    <value nick="none" value="0"/>
    <value nick="bisque" value="1"/>
    <value nick="raku" value="2"/>
  </enum>
  <enum id="org.kiln.Shelf">
    <value nick="none" value="0"/>
    <value nick="low" value="1"/>
    <value nick="high" value="2"/>
  </enum>
  <enum id="org.kiln.Cone">
    <value nick="low" value="0"/>
    <value nick="mid" value="1"/>
    <value nick="high" value="2"/>
  </enum>
</schemalist>
"""


def test_repeated_children_joined_in_a_singular_field_list_items():
    q = "Which nick is shared by the largest number of enums in the kiln enums file?"
    assert ask_scripted(q, ENUMS, "str") == ("none", "submitted")


LOCALE = """comment_char %
escape_char /

LC_IDENTIFICATION
title      "Kilnish locale for Kilnland"
language   "Kilnish"
territory  "Kilnland"
category "i18n:2012";LC_IDENTIFICATION
category "i18n:2012";LC_CTYPE
category "i18n:2012";LC_TIME
category "i18n:2012";LC_NUMERIC
category "i18n:2012";LC_MONETARY
END LC_IDENTIFICATION

LC_TIME
abmon "kla";"klb";"klc";"kld";"kle";"klf"
mon "klamora";"klabora";"klacora";"kladora";"klaeora";"klafora"
END LC_TIME
"""


def test_a_quoted_phrase_is_one_the_record_read_must_hold():
    q = "what month does the Kilnish abbreviation 'kld' stand for, going by the kiln locale?"
    assert ask_scripted(q, LOCALE, "str")[1] != "submitted"  # not 'language', the record 'Kilnish' keys


def test_the_items_of_the_first_of_several_records_keyed_so_are_no_count_of_them():
    q = "How many `category` lines does the kiln locale file declare?"
    assert ask_scripted(q, LOCALE, "int") != (2, "submitted")  # the first category line's two parts


LOGIND = """[Kiln]
#FireDelaySec=10
#ShelfCount=6
#IdleAction=ignore
#IdleActionSec=30min
#SpoolSize=10%
#GlazeLimit=4096
"""


def test_a_number_written_with_its_percent_sign_is_no_setting_of_the_bare_number():
    q = "Which setting in the kiln.conf defaults to 10%?"
    assert ask_scripted(q, LOGIND, "str") == ("SpoolSize", "submitted")


CONSTANTS = """# Kiln modes
K_ISUID = 0o4000  # set UID bit
K_ISGID = 0o2000  # set GID bit
K_ISVTX = 0o1000  # sticky bit
K_ENFMT = K_ISGID  # lock enforcement
K_IREAD = 0o0400  # Unix V7 synonym
"""


def test_a_constant_defined_as_another_constant_is_no_value_of_it():
    q = "kiln.py defines K_ENFMT in terms of another constant. What octal value does K_ENFMT end up with?"
    assert ask_scripted(q, CONSTANTS, "str") != ("K_ISGID", "submitted")  # its own value (0o2000) is


SCHEMA = """{
    "$schema": "http://json-schema.org/draft-07/schema#",
    "definitions": {
        "Kiln.Profile": {
            "anyOf": [{"$ref": "#/definitions/Kiln.FiredProfile"}, {"$ref": "#/definitions/Kiln.GlazedProfile"}]
        },
        "Kiln.File": {
            "type": "object",
            "properties": {
                "$schema": {"type": "string", "enum": ["https://kiln.example/file-format-schema.json"]},
                "profiles": {"type": "array", "items": {"$ref": "#/definitions/Kiln.Profile"}},
                "name": {"type": "string"}
            },
            "required": ["profiles", "$schema"]
        },
        "Kiln.FiredProfile": {
            "type": "object",
            "properties": {"type": {"type": "string", "enum": ["fired"]}, "cone": {"type": "number"}},
            "required": ["type", "cone"]
        },
        "Kiln.GlazedProfile": {
            "type": "object",
            "properties": {"type": {"type": "string", "enum": ["glazed"]}, "coats": {"type": "number"}},
            "required": ["type", "coats"]
        }
    },
    "$ref": "#/definitions/Kiln.File"
}
"""


def test_the_askers_word_for_the_data_keys_no_record_it_holds_loosely():
    q = "Which two values can the type of a profile take in kiln's file format schema?"
    assert ask_scripted(q, SCHEMA, "str") != ("object", "submitted")  # the schema's own type


MANUAL = r""".TH "KILN" "1" "2026" "Kiln 2.0" "Kiln Commands"
.SH NAME
kiln \- fire a batch of pots
.SH SYNOPSIS
\f[CR]kiln\f[R] [\f[I]options\f[R]] [\f[I]batch\f[R]]
.SH DESCRIPTION
The Kiln Controller (KILN) is a simple command\-line firing tool.
The \f[CR]kiln\f[R] command and its options call the KILN.
.SH OPTIONS FOR THE KILN COMMAND
.TP
\f[CR]\-cone\f[R] \f[I]n\f[R]
Fire to cone n.
.TP
\f[CR]\-trackallshelves\f[R]
Track all shelves as they are loaded, including spare shelves.
See \f[B]Working With Spare Shelves\f[R] below.
.SH WORKING WITH SPARE SHELVES
For this reason by default KILN does not keep track of spare shelves as
they are loaded.
It will only keep track of spare shelves that a pot has been placed on.
The \f[CR]\-trackallshelves\f[R] option can be used to make KILN track
all spare shelves as they are loaded.
"""


def test_the_program_a_document_is_of_named_in_another_case_is_no_existence_check():
    q = "Per the kiln man page, does KILN keep track of every spare shelf as it is loaded, by default?"
    assert ask_scripted(q, MANUAL, "bool") != (True, "submitted")


MODULE = '''"""Constants and functions for reading kiln logs.

Suggested usage: from kilnlog import *
"""

# Indices of the log tuple

KL_TEMP = 0
KL_CONE = 1
KL_TIME = 2


def KL_ISHOT(temp):
    """Return True if the temperature is above red heat."""
    return temp > 600


def KL_ISCOOL(temp):
    """Return True if the kiln may be opened."""
    return temp < 60


# Shelf GLAZE_FLAG constants for reading a shelf's state
# (see the firing manual)

GLAZE_FLAG_MATTE = 1
GLAZE_FLAG_GLOSS = 2
GLAZE_FLAG_SATIN = 16
GLAZE_FLAG_CRACKLE_FINE = 4096
GLAZE_FLAG_RAKU = 512
GLAZE_FLAG_CELADON = 64


def glaze_names(flags):
    """The names of the flags set."""
    return [n for n, v in globals().items() if n.startswith("GLAZE_FLAG_") and flags & v]
'''


def test_a_prefix_of_several_parts_names_the_records_counted():
    q = "Number of GLAZE_FLAG_ constants defined in kilnlog.py?"
    assert ask_scripted(q, MODULE, "int") == (6, "submitted")


def test_a_pattern_of_names_ranks_its_settings_in_a_text_of_other_lines_too():
    q = "Of the shelf GLAZE_FLAG_* constants in kilnlog.py, which one has the largest value?"
    assert ask_scripted(q, MODULE, "str") == ("GLAZE_FLAG_CRACKLE_FINE", "submitted")


WORKFLOW = """name: kiln-ci
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        glaze-version:
          - "1.7"
          - "1.8"
          - "1.9"
  lint:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        glaze-version:
          - "1.8"
          - "1.9"
"""


def test_a_ranking_of_listed_items_tied_at_the_top_is_unsure():
    q = "Which glaze version string shows up most often across this workflow?"
    assert ask_scripted(q, WORKFLOW, "str")[1] != "submitted"  # 1.8 and 1.9: each listed twice


RELEASES = """kiln-4.2.0 - 14 March 2026
 + 101 Glaze rule editor
 + 102 Faster cooling, lower power according to the new tables

kiln-4.1.0 - 02 November 2025
 + 103 Door seal fix
 + 104 Cone 06 preset
 + 105 Damper control
 + 106 Vent timing

kiln-4.0.0 - 21 June 2025
 + 100 First release of the 4 line, a long first entry that runs on and on about everything it brought along
"""


def test_according_to_names_no_record_and_the_longest_list_has_the_most_items():
    q = "When was kiln 4.1.0 released, according to the RELEASES.txt shipped with kiln?"
    assert ask_scripted(q, RELEASES, "str") == ("02 November 2025", "submitted")  # not the record 'according' is in
    q = "Which kiln release has the longest list of changes in RELEASES.txt? Give the full version string."
    assert ask_scripted(q, RELEASES, "str") == ("kiln-4.1.0", "submitted")  # four entries, not the longest text
