"""Shapes met while probing for the twenty-second time (and left over from the twenty-first), on made-up files:
a ranking or a reverse lookup asked among the members of one block (a class, a heading) the question names."""

from __future__ import annotations

from dspy_rlm.library import lookup
from tests.dspy_rlm.scripted import ask_scripted as _ask

STUB = """from enum import IntEnum

class Color(IntEnum):
    RED = 1
    GREEN = 2
    BLUE = 300
    BLACK = 0

class Priority(IntEnum):
    LOW = 10
    NORMAL = 20
    HIGH = 30
    URGENT = 40

class Size(IntEnum):
    SMALL = 5
    MEDIUM = 7
    LARGE = 9
"""


def test_a_ranking_among_one_blocks_members_ranks_within_it():
    assert _ask("Among the Priority levels, which one has the highest number?", STUB, "str") == (
        "URGENT",
        "submitted",
    )
    assert _ask("Of the Size members, which has the smallest value?", STUB, "str") == ("SMALL", "submitted")
    assert lookup.max_of(STUB, "value", within="Color") == ("BLUE", "300")
    assert lookup.min_of(STUB, "value", "number", "Priority") == ("LOW", "10")


CODES = """from enum import Enum

class Shade(Enum):
    LIGHT = "L"
    DARK = "D"
    MIXED = "M"
    NONE = "N"
    PALE = "P"

class Mode(Enum):
    LOOSE = "L"
    DENSE = "D"
    MEDIUM = "M"
    EMPTY = "E"
    FULL = "F"
"""


def test_a_value_several_blocks_hold_is_looked_up_within_the_block_named():
    assert lookup.key_of(CODES, "D", within="Mode") == "DENSE" and lookup.key_of(CODES, "D") == "DARK"
    assert _ask('Which Mode member stands for the code "M"?', CODES, "str") == ("MEDIUM", "submitted")
    assert _ask('Which member stands for the code "M"?', CODES, "str")[1] != "submitted"  # two blocks hold it
