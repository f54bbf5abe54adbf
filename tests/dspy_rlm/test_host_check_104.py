"""Shapes from the scripted host check of stop 104, on invented data. In a text whose comment lines open with
``#``, a ``NAME = VALUE  # note`` line's value ends before its trailing comment (stat.py's ``S_ENFMT = S_ISGID #
file locking enforcement`` was read whole, and submitted so). A ranking of the settings that answers with a
setting's name vouches for nothing where many records hold a setting of that name (a numbered list's every
section has a ``number``: "whose period ends earliest?" was answered ``number``). A field read vouches for nothing
where the question names the field with a word before it that the text writes joined to it outside the records
(a POM's ``...originalVersion`` property beside the dependency's ``version``). Each test fails on the code before
its change."""

from __future__ import annotations

from dspy_rlm.library import structure as st
from tests.dspy_rlm.scripted import ask_scripted, read_candidates

CONSTANTS = """# Constants for the kiln controller

# Names for the firing stages

def stage_name(n):
    return STAGES[n]

KILN_SLOW = 0o1000  # ramp slowly
KILN_FAST = 0o2000  # ramp fast
KILN_HOLD = KILN_FAST # hold at the top
KILN_COOL = 0o0400  # let it cool
KILN_VENT = 0o0200 # open the vent
"""

NOTICE = """## kilnlib v2.4

### kilnlib License
<pre>

COPYRIGHT NOTICE
================

Copyright (C) 2001-2025 The Kiln Authors.
Copyright (C) 2012-2025 Mara Quist
Copyright (C) 2003-2011 Olen Brask
Copyright (C) 2002-2004 Ilse Varga, Ember Works

The software is supplied "as is".

 1. The origin of this source code must not be misrepresented; you
    must not claim that you wrote the original code.

 2. Altered versions must be plainly marked as such, and must
    not be misrepresented as being the original code.

 3. This Copyright notice may not be removed or altered from any
    source or altered source distribution.
</pre>
"""


def test_a_trailing_hash_comment_is_no_part_of_a_lines_value():
    s = st.detect(CONSTANTS)
    assert s.kind == "lines"
    assert {r.key: r.fields for r in s.records if r.key}["KILN_HOLD"] == (("KILN_HOLD", "KILN_FAST"),)
    # the value read is the name of another constant, whose own value is then read: a step the question names
    # by no field, so a guess; before, "KILN_FAST # hold at the top" was submitted
    assert ask_scripted("What octal value does KILN_HOLD end up with?", CONSTANTS) == ("0o2000", "extracted")


def test_a_setting_name_every_section_holds_answers_no_ranking():
    s = st.detect(NOTICE)
    assert s.kind == "markdown_list" and "number" in s.field_names
    found = read_candidates("Whose copyright period ends earliest?", NOTICE, "min_field")
    assert found and all(not c.supported for c in found if c.value == "number")


POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
	<modelVersion>4.0.0</modelVersion>
	<groupId>org.example.kiln</groupId>
	<artifactId>kiln-core</artifactId>
	<version>1.2</version>
	<properties>
		<debian.org.example.glaze-utils.originalVersion>4.1.7</debian.org.example.glaze-utils.originalVersion>
		<debian.mavenRules>org.example.glaze-utils * * s/.*/4.x/ * *</debian.mavenRules>
	</properties>
	<dependencies>
		<dependency>
			<groupId>org.example</groupId>
			<artifactId>glaze-utils</artifactId>
			<version>4.x</version>
		</dependency>
		<dependency>
			<groupId>org.example</groupId>
			<artifactId>ember-io</artifactId>
			<version>2.0</version>
		</dependency>
		<dependency>
			<groupId>junit</groupId>
			<artifactId>junit</artifactId>
			<version>4.13</version>
			<scope>test</scope>
		</dependency>
	</dependencies>
</project>
"""


def test_a_field_read_where_the_question_names_a_joined_name_outside_the_records_vouches_for_nothing():
    # the POM's properties hold "...glaze-utils.originalVersion"; the dependency record's version is 4.x
    found = read_candidates("What was the original upstream version of glaze-utils, per the properties?", POM, "field")
    assert {c.value for c in found if c.label == "version"} == {"4.x"}
    assert not any(c.supported for c in found if c.label == "version")
