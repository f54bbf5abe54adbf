"""Shapes from probe 57's first run, on invented data. A setting's name asked as "under which section" asks for
the section that holds it, not its value. "How many lines *tall*" asks a measure in its unit (the window's height
setting), not a count of the window's settings. "Which of the two values comes up *more often*" asks a ranking
as "most often" does, between the two values it names (the value's one holder was submitted). An aligned table's
number with a short flag one space after it in some rows (``KDT    -7200 D``) is two columns. A count whose
data is the subject of a holding verb longer than three words ("does the kiln-studio polkit policy file
*define*?") states no condition. Each test fails on the code before its change."""

from __future__ import annotations

from dspy_rlm.library import structure as st
from tests.dspy_rlm.scripted import ask_scripted

STUDIO = """# Kiln studio defaults
# Edit a copy in your home directory, not this file.

[Startup]
open-last-project= 1
autosave= 0
splash-screen= 1

[Canvas]
width= 120
height= 36
grid-visible= 1
font= Mono
font-size= 11

[Console]
scroll-back-max-rows= 400

[Palette]
default= 1
name= Ember Dark
"""

TEMPLATE = """# Makefile variables for the kiln glaze catalogue.

# Usually the catalogue is built into the current directory.
subdir = glazes
top_builddir = ..

# Whether to keep the intermediate files.
KEEP_INTERMEDIATE = no

# Whether the catalogue depends on the price list.
CATALOGUE_DEPENDS_ON_PRICES = yes

# Whether a distribution rebuilds the catalogue.
DIST_REBUILDS_CATALOGUE = yes

# Extra flags for the glaze compiler.
GLAZE_FLAGS = --strict
"""


def test_a_setting_asked_under_which_section_is_answered_by_its_section():
    # before: '400', the setting's value
    assert ask_scripted("scroll-back-max-rows sits under which section of this file?", STUDIO) == (
        "Console",
        "submitted",
    )


def test_how_many_lines_tall_asks_the_height_not_a_count():
    # before: 5, the Canvas section's settings counted
    assert ask_scripted("How many lines tall is the canvas by default?", STUDIO, "int") == (36, "submitted")


def test_more_often_asks_a_ranking_between_the_two_values_named():
    # before: 'KEEP_INTERMEDIATE', the one holder of "no" read by its value
    question = "Of the variables set to yes or no here, which of the two values comes up more often?"
    assert ask_scripted(question, TEMPLATE) == ("yes", "submitted")
    # where another value is the most common of all the settings, the ranking of them all answers nothing
    others = TEMPLATE + "".join(f"LEVEL_{i} = 2\n" for i in range(4))
    assert ask_scripted(question, others)[1] == "extracted"


KILNS = """# Kiln clock abbreviations
#
# NOTE: a template; nothing loads this file.

KST    -10800    # Kiln Standard Time
KDT    -7200 D   # Kiln Daylight Time
LST    -14400    # Lodge Standard Time
LDT    -10800 D  # Lodge Daylight Time
MST    -18000    # Moor Standard Time
MDT    -14400 D  # Moor Daylight Time
OKT    Kiln/Old_Town  # Old Kiln Time (obsolete)
NST    -10800    # Nook Standard Time
PST    -21600    # Pike Standard Time
"""


def test_a_flag_after_a_number_in_an_aligned_table_is_a_column_of_its_own():
    s = st.detect(KILNS)
    assert s.kind == "table" and s.field_names == ("col1", "col2", "col3", "comment")
    rows = {r.key: dict(r.fields) for r in s.records}
    assert rows["KDT"]["col2"] == "-7200" and rows["KDT"]["col3"] == "D" and "col3" not in rows["KST"]
    assert rows["OKT"]["col2"] == "Kiln/Old_Town"
    # before: 1, the cells holding a whole 'D' (none; '-7200 D' holds it as a part)
    assert ask_scripted("How many of the abbreviations are flagged with D as daylight time?", KILNS, "int") == (
        3,
        "submitted",
    )
    # the flag column, one value throughout, is no rival of the offsets for the most common value (before this
    # check: -10800 Extracted, "ranked a field the question does not name")
    assert ask_scripted("What offset value appears most often in this file?", KILNS, "int") == (-10800, "submitted")


POLICY = (
    """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE policyconfig PUBLIC "-//freedesktop//DTD PolicyKit Policy Configuration 1.0//EN"
        "http://www.freedesktop.org/standards/PolicyKit/1/policyconfig.dtd">
<policyconfig>
        <vendor>The Kiln Project</vendor>
"""
    + "".join(
        f"""
        <action id="org.example.kiln1.{verb}">
                <description>{verb.title()} the kiln</description>
                <message>Authentication is required to {verb} the kiln.</message>
                <defaults>
                        <allow_any>auth_admin</allow_any>
                        <allow_inactive>auth_admin</allow_inactive>
                        <allow_active>auth_admin_keep</allow_active>
                </defaults>
        </action>
"""
        for verb in ("fire", "cool", "vent", "glaze", "load", "unload", "lock")
    )
    + "\n</policyconfig>\n"
)


def test_a_count_of_what_a_long_named_file_defines_counts_every_record():
    # before: no read offered (the verb "define" was left as a condition of the count)
    question = "How many separate actions does the kiln-studio polkit policy file define?"
    assert ask_scripted(question, POLICY, "int") == (7, "submitted")
