"""Shapes from probe 54's first run, on invented data. Each test fails on the code before its change."""

from __future__ import annotations

from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.printed_rows import printed
from dspy_rlm.profiles.said import WHO

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
