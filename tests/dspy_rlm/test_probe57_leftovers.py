"""Leftovers of probe 57, on invented data: "furthest behind" asks the least value of a ranking (and "furthest
ahead" the greatest), as "lowest" does; the record whose offset is the least is the answer (a record the
question's other words found was a guess). Each test fails on the code before its change."""

from __future__ import annotations

from tests.dspy_rlm.scripted import ask_scripted

KILN_ZONES = """# Kiln studio time zone abbreviations, offsets in seconds from UTC
#
KAT     -14400    # Kiln Atlantic Time
KCT     -21600    # Kiln Central Time
KDT     -18000 D  # Kiln Central Daylight Time
KHT     -36000    # Kiln Harbour Time
KMT     -25200    # Kiln Mountain Time
KNT     -12600    # Kiln Newfoundland Time
KOT     7200      # Kiln Overseas Time
KPT     -28800    # Kiln Pacific Time
"""


def test_furthest_behind_asks_the_least_and_furthest_ahead_the_greatest():
    assert ask_scripted("Which abbreviation in the kiln set is furthest behind UTC?", KILN_ZONES) == (
        "KHT",
        "submitted",
    )
    assert ask_scripted("Which abbreviation here is furthest ahead of UTC?", KILN_ZONES) == ("KOT", "submitted")


KILN_OPTIONS = r""".TH "KILNCTL" "1" "2026" "Kiln Studio" "Kiln Tools"
.SH NAME
kilnctl \- control a studio kiln
.SH DESCRIPTION
.TP
\f[CR]kilnctl serve\f[R]
Starts the kiln control server.
.TP
\f[CR]kilnctl watch\f[R]
Prints the kiln's temperature feed.
.SH OPTIONS FOR THE SERVE MODE
.TP
\f[CR]\-\-control\-port\f[R] \f[I]port\f[R]
Sets the kiln control port.
This option overrides the system property
\(aqkiln.control.port\(aq.
If not specified, the system property is used.
If the system property is not set, the default port 4471 is used.
.TP
\f[CR]\-\-pool\f[R] \f[I]size\f[R]
Sets how many firing jobs may run at once.
"""


def test_a_number_asked_of_a_sentence_is_its_one_number_as_a_guess():
    question = "For kilnctl serve, which control port is used when neither --control-port nor kiln.control.port is set?"
    answer, kind = ask_scripted(question, KILN_OPTIONS, "int")
    assert (answer, kind) == (4471, "extracted")


GLAZE_WORKFLOW = """name: Glaze Release

on:
  release:
    types:
      - published

permissions:
  contents: read

jobs:
  lint:
    name: Lint the glaze recipes
    runs-on: ubuntu-latest
  bake:
    name: Bake test tiles
    runs-on: ubuntu-latest
    needs: lint
  photograph:
    name: Photograph the tiles
    runs-on: ubuntu-latest
    needs: bake
  publish:
    name: Publish the catalogue
    runs-on: ubuntu-latest
    needs: photograph
"""


def test_the_documents_own_title_before_its_noun_is_no_condition_of_a_count():
    question = "How many jobs does the kiln studio's Glaze Release workflow define?"
    assert ask_scripted(question, GLAZE_WORKFLOW, "int") == (4, "submitted")
