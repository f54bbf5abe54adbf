"""Rankings scoped to the names a question writes: a wildcard (``SIG*``, ``net.*``) or a name prefix (``the FOO_
constants``) that some records' keys start with, and values written in hex. Each text is made up here. Each
positive test fails before its change; each negative one guards an answer that must not be ``Submitted``."""

from __future__ import annotations

from dspy_rlm.library import structure as st
from dspy_rlm.library import superlatives
from dspy_rlm.library.valueforms import _number
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.name_scopes import name_patterns, name_scopes
from dspy_rlm.profiles.oracle import host_reader
from tests.dspy_rlm.scripted import ask_scripted

_HEADER = """/* Tone numbers for the widget bus. */
#ifndef _WIDGET_TONES_H
#define _WIDGET_TONES_H 1

#define TONE_LOW\t\t 4\t/* A low hum.  */
#define TONE_MID\t\t12\t/* The middle one.  */
#define TONE_HIGH\t\t9\t/* Not the highest, oddly.  */
#define TONE_ALIAS\tTONE_MID
#define BUS_WIDTH\t\t64
#define BUS_LANES\t\t40

#endif
"""

_HEX = """#define PKT_ECHO\t0x0060\t/* echo */
#define PKT_DATA\t0x0800\t/* data */
#define PKT_WIDE\t0xFBFB\t/* wide */
#define PKT_NONE\t0x0000
#define LEN_MAX\t\t1514
"""

_SETTINGS = """# widget settings
net.retries = 3
net.timeout = 45
net.backoff = 2
ui.columns = 80
ui.rows = 24
"""


def test_a_name_prefix_scopes_the_ranking():
    q = "Of the TONE_ constants, which one has the largest value?"
    assert ask_scripted(q, _HEADER) == ("TONE_MID", "submitted")  # not BUS_WIDTH (64)


def test_a_wildcard_scopes_the_ranking_and_the_guard_stays_out():
    q = "Of the TONE* tones that get a literal number, which one has the lowest number?"
    assert ask_scripted(q, _HEADER) == ("TONE_LOW", "submitted")  # not _WIDGET_TONES_H (1)


def test_an_unscoped_ranking_is_unsupported_where_the_question_names_a_scope():
    q = {"question": "Of the TONE_ constants, which one has the largest value?"}
    book = MoveBook(q, {"context": _HEADER}, {"answer": str})
    assert name_scopes(book, "context") == ["TONE_*"]
    moves = {m.within: m for m in book.step_moves([], []) if m.kind == "max"}
    assert list(moves) == ["TONE_*", None]  # the scoped ranking first
    book.record_read(moves[None].code, host_reader(book.data)(moves[None]))
    assert [s.candidate.value for s in book.submit_moves() if s.candidate and s.candidate.supported] == []


def test_a_hex_value_ranks_by_its_value():
    assert _number("0x0060") == 96 and _number("0xFBFB") == 64507 and _number(" 0x80000000UL") == 2**31
    assert _number("0x") == 0 and _number("12 items") == 12
    q = "Which PKT_ define has the largest numeric value?"
    assert ask_scripted(q, _HEX) == ("PKT_WIDE", "submitted")


def test_a_settings_files_ranking_keeps_to_the_named_settings():
    q = "Of the net.* settings, which one has the largest value?"
    assert ask_scripted(q, _SETTINGS) == ("net.timeout", "submitted")  # not ui.columns (80)


def test_records_within_a_pattern_fits_keys_then_ignores_case():
    s = st.detect(_HEADER)
    tones = {"TONE_LOW", "TONE_MID", "TONE_HIGH", "TONE_ALIAS"}
    assert {r.key for r in superlatives.records_within(s, "TONE_*")} == tones
    assert {r.key for r in superlatives.records_within(s, "bus_*")} == {"BUS_WIDTH", "BUS_LANES"}


def test_a_wildcard_in_brackets_is_a_pattern_and_a_plain_word_is_no_scope():
    assert name_patterns("the ratio thresholds (commons.jacoco.*Ratio), which is set highest?") == [
        "commons.jacoco.*Ratio"
    ]
    book = MoveBook({"question": "Which tone has the largest value?"}, {"context": _HEADER}, {})
    assert name_scopes(book, "context") == []
    book = MoveBook({"question": "Which of the TONE_HIGH ones is largest?"}, {"context": _HEADER}, {})
    assert name_scopes(book, "context") == []  # a whole key fits one record: no scope
