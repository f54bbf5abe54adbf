"""Shapes from probe 54's first run, on invented data: a text table's header row states no value after a column's
name, and a relative "whose" asks no "who"; "the highest *number*" names a field called number (a ranking word,
not "the number of"); "the auth timeout" spells the key auth_timeout joined, though a loose match of the words
finds it too, but not a setting whose name is a field (a locale's currency_symbol: its existence answered "is the
currency symbol placed before positive amounts?"). Each test fails on the code before its change."""

from __future__ import annotations

from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.printed_rows import printed
from dspy_rlm.profiles.said import WHO
from tests.dspy_rlm.scripted import ask_scripted

SPEC = """Kiln firing states
==================

1. Introduction
---------------

A kiln moves through a small set of states while it fires. Each state
says whether the lid may open and what the operator should do next.

2. Overview table
-----------------

  State       Lid       Vent      Heating    Action
              lock      open      allowed

  idle        never     maybe     No         load the kiln
  ramping     always    never     Yes        wait for the cone
  holding     always    maybe     Yes        watch the cone
  cooling     sometimes always    No         keep the lid shut
  done        never     never     No         unload the kiln

3. Commands
-----------

The command line tool accepts --fire, --hold and --vent.
"""


def test_a_header_row_states_no_value_after_a_column_name():
    # dpkg's triggers spec: "Status  Pending  Awaited  Satisfies  Remedy" gave 'Satisfies  Remedy', Submitted at 0.996
    book = MoveBook(
        {"question": "For the state whose lid-lock column says 'never', what action is listed?"},
        {"context": SPEC},
        {"answer": str},
    )
    key = next(k for k in book.keys["context"] if k.text == "action")
    row = "record 9 (line 14):\n  State       Lid       Vent      Heating    Action\n"
    stated = [(c.value, c.supported, c.why) for c in printed(book, row, key, "context") if c.label == "State"]
    assert stated == [("Lid", False, "a column's name in a table's header row")]


def test_a_relative_whose_asks_no_who():
    assert WHO.search("For the state whose lid-lock column says 'never', what action is listed?") is None
    assert WHO.search("Whose copyright period ends earliest?") and WHO.search("Who wrote the kiln tool?")
    assert WHO.search("The tool was rewritten once; whose name is on the rewrite?")


SYSCALLS = """<?xml version="1.0"?>
<!DOCTYPE feature SYSTEM "kiln-calls.dtd">
<calls_info>
  <call name="open" number="5"/>
  <call name="close" number="6"/>
  <call name="fire" number="12"/>
  <call name="vent" number="131"/>
  <call name="cool" number="40"/>
  <call name="load" number="7"/>
</calls_info>
"""


def test_a_ranking_word_a_field_is_named_names_that_field():
    # "the highest *number*": a field named number, not the "number of" a count
    assert ask_scripted("Name the call with the highest number in this list.", SYSCALLS) == ("vent", "submitted")


LIMITS = """<busconfig>
  <type>kiln</type>
  <limit name="max_incoming_bytes">1000000000</limit>
  <limit name="service_start_timeout">120000</limit>
  <limit name="auth_timeout">240000</limit>
  <limit name="pending_fd_timeout">150000</limit>
  <limit name="max_connections_per_user">100000</limit>
</busconfig>
"""


def test_plain_words_that_spell_a_key_joined_find_it_though_the_key_matches_them_loosely():
    assert ask_scripted("What's the auth timeout on the kiln bus?", LIMITS, "int") == (240000, "submitted")
    assert ask_scripted("what is the pending fd timeout?", LIMITS, "int") == (150000, "submitted")


LC = """comment_char %
escape_char /

LC_MONETARY
int_curr_symbol     "KLN "
currency_symbol     "kl"
mon_decimal_point   ","
mon_thousands_sep   " "
positive_sign       ""
negative_sign       "-"
p_cs_precedes       0
n_cs_precedes       0
p_sep_by_space      1
END LC_MONETARY

LC_NUMERIC
decimal_point       ","
thousands_sep       " "
grouping            3;3
END LC_NUMERIC
"""


def test_a_setting_the_words_spell_is_no_glued_key_where_it_is_a_field_the_question_names():
    # a setting's own name is a field too: "the currency symbol" finds it as one, and its existence answers no
    # "is it placed before positive amounts?" (the glued key gave True by existence, Submitted at 1.0)
    q = "Is the currency symbol placed before positive amounts in this locale?"
    assert ask_scripted(q, LC, "bool")[1] == "extracted"  # (what it extracts is no read's)
    assert ask_scripted("Does this locale use a period as the decimal point?", LC, "bool")[1] == "extracted"
    assert ask_scripted("What currency symbol does the kiln locale use?", LC) == ("kl", "submitted")
