"""KNOWN BUGS found by fuzzing tiers 1 and 2 (issue 12 item 3); the fix belongs in dspy_outlines/adapter.py.

Each test is a strict xfail: it fails today as described, and XPASS (a failure, ``strict=True``) tells whoever
fixes adapter.py to drop the marker. The concrete failing inputs:

- tier 1 (DSPy's ChatAdapter.parse, inherited by OutlinesAdapter): a ``list[int]`` section holding
  ``'[' * 5000`` lets DSPy's ``parse_value`` raise RecursionError (json.loads) instead of AdapterParseError.
- tier 2 (DSPy's JSONAdapter.parse, the JSON tier): ``'[' * 100_000`` raises RecursionError, and
  ``'x' + '{' * 2000 + 'a'`` raises ValueError("Input nesting exceeds the supported parser recursion depth")
  from json-repair; the same shape at 100,000 braces takes 90 s first (json-repair, then the recursive
  regex ``\\{(?:[^{}]|(?R))*\\}``, quadratic: 0.06 s at 1,000 braces, 0.84 s at 3,000).

Either escapes OutlinesAdapter._route as "not a parse error", so tier 3 is never tried and the call fails.
The fix: ``OutlinesAdapter.parse`` and ``_JSONTier.parse`` call ``super().parse`` and turn ValueError /
RecursionError into ``AdapterParseError(adapter_name="OutlinesAdapter", ...) from exc``; ``_JSONTier.parse``
also refuses (AdapterParseError) a completion nested deeper than a bound, e.g. 512 brackets, checked by one
linear scan before json-repair and the regex run.
"""

from __future__ import annotations

import dspy
import pytest
from dspy.utils.exceptions import AdapterParseError

from dspy_outlines.adapter import OutlinesAdapter, _JSONTier

BUG = pytest.mark.xfail(
    strict=True,
    reason="known bug: tiers 1/2 let RecursionError/ValueError out of parse; "
    "fix in dspy_outlines/adapter.py (see the module docstring)",
)
XS = dspy.Signature("question -> xs: list[int]")
ANSWER = dspy.Signature("question -> answer")


@BUG
def test_tier1_deeply_nested_list_is_a_parse_error():
    with pytest.raises(AdapterParseError):
        OutlinesAdapter().parse(XS, "[[ ## xs ## ]]\n" + "[" * 5000 + "\n\n[[ ## completed ## ]]")


@BUG
@pytest.mark.parametrize(
    "text", ["[" * 100_000, "x" + "{" * 2000 + "a", '{"a":' * 5000], ids=["brackets", "braces", "objects"]
)
def test_tier2_deep_nesting_is_a_parse_error(text):
    with pytest.raises(AdapterParseError):
        _JSONTier().parse(ANSWER, text)
