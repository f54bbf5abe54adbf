"""Regressions for parse bugs of tiers 1 and 2 found by fuzzing (issue 12 item 3), fixed in
dspy_outlines/adapter.py (``_checked_parse``):

- tier 1 (DSPy's ChatAdapter.parse): a ``list[int]`` section holding ``'[' * 5000`` let DSPy's ``parse_value``
  raise RecursionError (json.loads) instead of AdapterParseError.
- tier 2 (DSPy's JSONAdapter.parse): ``'[' * 100_000`` raised RecursionError, ``'x' + '{' * 2000 + 'a'``
  ValueError from json-repair, and 100,000 braces took 90 s (json-repair, then a quadratic recursive regex).

Either escaped OutlinesAdapter's router as "not a parse error", so tier 3 was never tried. Now both tiers
turn ValueError / RecursionError into AdapterParseError and refuse nesting deeper than ``MAX_NESTING`` after
one linear scan.
"""

from __future__ import annotations

import dspy
import pytest
from dspy.utils.exceptions import AdapterParseError

from dspy_outlines.adapter import OutlinesAdapter, _JSONTier

XS = dspy.Signature("question -> xs: list[int]")
ANSWER = dspy.Signature("question -> answer")


def test_tier1_deeply_nested_list_is_a_parse_error():
    with pytest.raises(AdapterParseError):
        OutlinesAdapter().parse(XS, "[[ ## xs ## ]]\n" + "[" * 5000 + "\n\n[[ ## completed ## ]]")


@pytest.mark.parametrize(
    "text", ["[" * 100_000, "x" + "{" * 2000 + "a", '{"a":' * 5000], ids=["brackets", "braces", "objects"]
)
def test_tier2_deep_nesting_is_a_parse_error(text):
    with pytest.raises(AdapterParseError):
        _JSONTier().parse(ANSWER, text)
