"""Shapes from probe 48's first run, on an invented C header of ``#define`` constants with trailing comments: a
phrase that spells a constant's name in words ("kiln version") keys it; a file the question says it reads in ("in
the system kiln3.h") is no identifier the records leave unkeyed; and "commented" points to the comments the
records keep as a field. Each test fails on the code before its change."""

from __future__ import annotations

from tests.dspy_rlm.scripted import ask_scripted

HEADER = (
    "/*\n** kiln3.h: the interface to the kiln library; include kiln3.h in every program that fires.\n"
    "** The kiln version of this header is in KILN_VERSION below.\n*/\n"
    '#define KILN_VERSION        "4.12.2"\n'
    "#define KILN_VERSION_NUMBER 4012002\n"
    '#define KILN_SOURCE_ID      "2026-11-02 glaze-7f3a"\n'
    + "".join(
        f"#define KILN_{name:<12} {n:>3}   /* {comment} */\n"
        for n, (name, comment) in enumerate(
            [
                ("OK", "Successful result"),
                ("ERROR", "Generic error"),
                ("BUSY", "The kiln is firing another load"),
                ("CRACKED", "The kiln wall is cracked"),
                ("COLD", "The kiln did not reach its cone"),
                ("VENT", "A vent failed to open"),
                ("DOOR", "The loading door is open"),
            ]
        )
    )
)


def test_a_constant_spelled_in_words_is_its_key():
    # "what sqlite version string does sqlite3.h define?": SQLITE_VERSION was read, its value not vouched for
    assert ask_scripted("what kiln version string does /usr/include/kiln3.h define?", HEADER) == ("4.12.2", "submitted")


def test_the_constant_commented_with_a_phrase_in_the_header_the_question_reads_in():
    # "Which SQLite result code is commented 'The database disk image is malformed' in the system sqlite3.h?"
    q = "Which kiln result code is commented 'The kiln wall is cracked' in the system kiln3.h?"
    assert ask_scripted(q, HEADER) == ("KILN_CRACKED", "submitted")
