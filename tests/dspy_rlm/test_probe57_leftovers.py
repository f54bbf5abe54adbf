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
