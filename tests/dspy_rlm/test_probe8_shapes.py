"""Shapes the eighth probe (``benchmarks/asked/probe8.json``) met on its first run, each rebuilt as a small
made-up file: rules of comma-separated ``KEY op value`` pairs (udev), ``name: definition`` lines with
continuations (an EBNF grammar), a DEP-5 copyright file asked "per this copyright file", a key asked for by what
an INI file calls its fields, a section name the question says, "the largest number of", a comment asked for
beside a field whose name starts with "not", and a second clause that points back with "that"."""

from __future__ import annotations

from dspy_rlm.library.structure import detect
from tests.dspy_rlm.scripted import ask_scripted as _ask

RULES = """# made-up device rules
ACTION=="remove", GOTO="lake_end"
SUBSYSTEM=="usb", ENV{ID_LAKE_READER}=="?*", TAG+="lakeaccess"
SUBSYSTEM=="usb", ENV{ID_BOAT}=="1", TAG+="lakeaccess"
SUBSYSTEM=="block", ENV{ID_CDROM}=="1", TAG+="lakeaccess"
SUBSYSTEM=="usb", ENV{ID_OAR}=="1", TAG+="lakeaccess"
SUBSYSTEM=="sound", TAG+="lakeaccess"
SUBSYSTEM=="block", ENV{ID_DOCK}=="1", TAG+="seat"
LABEL="lake_end"
"""


def test_comma_separated_operator_pairs_are_fields():
    s = detect(RULES)
    assert s.kind == "logfmt"  # before: lines
    assert len(s.records) == 8  # the comment is no record (nor was it a field before)
    assert s.records[2].get("ENV{ID_BOAT}") == "1" and s.records[2].get("TAG") == "lakeaccess"
    assert _ask("How many rules in this file add the lakeaccess tag?", RULES, "int") == (5, "submitted")


def test_the_largest_number_of_records_is_a_most_common_read():
    # before: "largest" asked for a maximum, and SUBSYSTEM holds no numbers: no read
    assert _ask("Which SUBSYSTEM value is matched by the largest number of rules here?", RULES) == ("usb", "submitted")


GRAMMAR = """# A made-up grammar
# lake_input is a whole lake read from a file
lake_input: shore* ENDLAKE
shore: pier | beach | cove NEWLINE
pier: 'pier' NAME
beach: 'beach'
cove: ('cove' NAME
       | 'bay' NAME)
dock_stmt: 'dock' | pier
      | beach
not_shore: 'not' shore
flow: stop_stmt | pier
stop_stmt: 'stop'
"""


def test_name_definition_lines_are_assignments_with_their_continuations():
    s = detect(GRAMMAR)
    assert (s.kind, s.detail) == ("assignments", "definitions")  # before: lines
    values = {r.key: r.fields[0][1] for r in s.records}
    assert values["cove"] == "('cove' NAME | 'bay' NAME)" and values["dock_stmt"] == "'dock' | pier | beach"
    assert _ask("what is the pier rule defined as in this grammar?", GRAMMAR) == ("'pier' NAME", "submitted")


def test_a_comment_asked_for_is_not_a_field_whose_name_starts_like_note():
    # "note" stems to "not": not_shore had counted as a comment field, and the rule's definition was Submitted
    assert _ask("What does the comment at the top say lake_input is?", GRAMMAR)[1] == "extracted"


def test_that_in_a_second_clause_points_back_to_the_first():
    asked = "Look at the last alternative listed in shore; which keyword does that rule start with?"
    assert _ask(asked, GRAMMAR)[1] == "extracted"  # before: the whole definition of shore was Submitted


COPYRIGHT = """Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: lakeview

Files: *
Copyright: 2001-2020 Ada Brook <ada@example.org>
License: GPL-2.0+

Files: tests/shore_tester.c
Copyright: 1999-2003, Lake Software Foundation, Inc
License: LGPL-2.1+

Files: tools/boat.c
Copyright: 2010 Cy Dock
License: BSD-3-Clause

License: GPL-2.0+
 This program is free software.
"""


def test_a_container_after_per_this_names_no_field():
    # "per this Debian copyright file" named the Copyright field, and the copyright line was Submitted
    assert _ask(
        "Under which license is tests/shore_tester.c distributed, per this Debian copyright file?", COPYRIGHT
    ) == ("LGPL-2.1+", "submitted")


THEME = """[Lake Theme]
Name=Lake
Comment=A made-up theme
Inherits=hicolor
LinkOverlay=link
ZipOverlay=zip_overlay
Directories=8x8/a,16x16/b

[8x8/a]
Size=8
Type=Fixed

[16x16/b]
Size=16
Type=Scalable
"""


def test_a_key_asked_for_by_what_fields_are_called_is_the_field_name():
    # before: the section the question itself names ("Lake Theme") was Submitted
    assert _ask("Which key in the [Lake Theme] section is set to zip_overlay?", THEME) == ("ZipOverlay", "submitted")


def test_a_quoted_whole_value_is_the_value_a_reverse_lookup_finds():
    # 'stop' is the whole value of stop_stmt (in quotes); flow, above it, says stop_stmt: it was the record found
    assert _ask("In this grammar file, which rule is defined as nothing but the 'stop' keyword?", GRAMMAR) == (
        "stop_stmt",
        "submitted",
    )


PACKAGES = """Package: lake
Version: 1.2
Description: GNU version of the lake archiving utility

Package: shore
Version: 0.9
Description: Shore line tools

Package: boat
Version: 3.0
Description: Boat builder
"""


def test_a_record_key_said_inside_the_phrase_read_by_is_no_repeat_of_the_question():
    # the repeat check must not refuse 'lake': the question says it only inside the description it reads by
    assert _ask('"GNU version of the lake archiving utility" is the description of which package?', PACKAGES) == (
        "lake",
        "submitted",
    )
