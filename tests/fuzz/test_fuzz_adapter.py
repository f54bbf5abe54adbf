"""Fuzz each tier's parser of dspy_outlines' OutlinesAdapter: random strings and structured near-misses.

The contract (dspy_outlines/adapter.py): a tier's parse returns every output field, or raises
``AdapterParseError`` (``TruncatedOutputError`` is one), which moves the call to the next tier. Any other
exception skips the remaining tiers, so it must never come out of a parse. And a valid answer in the tier's own
format must parse to its values: the random-text and near-miss properties mix such answers in, so a parser that
always raised AdapterParseError would fail them.

- tier1: ``OutlinesAdapter().parse`` (DSPy's ChatAdapter parse, ``[[ ## field ## ]]`` sections);
- tier2: the JSON tier's parse (DSPy's JSONAdapter parse: json-repair, then the field types);
- tier3: ``build_constraint(signature).parse`` (strict JSON / the raw value; a cut value is never repaired).

Deep nesting (over ~50 levels) is covered by test_fuzz_adapter_regressions.py (tiers 1 and 2 let
RecursionError / ValueError out on it until adapter.py's ``_checked_parse``).
"""

from __future__ import annotations

import enum
import json
from typing import Literal, Optional

import dspy
import pydantic
import pytest
from dspy.utils.exceptions import AdapterParseError
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dspy_outlines.adapter import OutlinesAdapter, _JSONTier
from dspy_outlines.constraints import TruncatedOutputError, build_constraint
from tests.fuzz.conftest import count, examples


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Inner(pydantic.BaseModel):
    a: int
    tags: list[str]


class Outer(pydantic.BaseModel):
    inner: Inner
    note: Optional[str] = None


class Everything(dspy.Signature):
    """Answer with every kind of field."""

    question: str = dspy.InputField()
    answer: str = dspy.OutputField()
    count: int = dspy.OutputField()
    ratio: float = dspy.OutputField()
    flag: bool = dspy.OutputField()
    color: Color = dspy.OutputField()
    choice: Literal["yes", "no"] = dspy.OutputField()
    maybe: Optional[int] = dspy.OutputField()
    items: list[int] = dspy.OutputField()
    table: dict[str, float] = dspy.OutputField()
    outer: Outer = dspy.OutputField()


class OneModel(dspy.Signature):
    question: str = dspy.InputField()
    outer: Outer = dspy.OutputField()


class OneEnum(dspy.Signature):
    question: str = dspy.InputField()
    color: Color = dspy.OutputField()


SIGNATURES = [
    Everything,
    dspy.Signature("question -> answer"),
    dspy.Signature("question -> n: int"),
    dspy.Signature("question -> xs: list[int]"),
    OneModel,
    OneEnum,
    dspy.Signature("question -> reasoning, code"),
]


_TIER1, _TIER2 = OutlinesAdapter(), _JSONTier()  # parse keeps no state: one of each serves every example


def tier1(sig, text):
    return _TIER1.parse(sig, text)


def tier2(sig, text):
    return _TIER2.parse(sig, text)


def tier3(sig, text, finish_reason=None):
    return build_constraint(sig).parse(text, finish_reason)


TIERS = {"tier1": tier1, "tier2": tier2, "tier3": tier3}

# -- values of each annotation ----------------------------------------------------------------------
# No line breaks of str.splitlines inside a value: ChatAdapter reads sections line by line ('0\x1e0' comes back
# as '0\n0'), which is DSPy's format, not a parse failure.
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
text_value = st.text(st.characters(blacklist_characters=LINE_BREAKS), max_size=30).map(str.strip).filter(bool)
VALUES = {
    str: text_value,
    int: st.integers(-(10**12), 10**12),
    float: st.floats(allow_nan=False, allow_infinity=False, width=32),
    bool: st.booleans(),
    Color: st.sampled_from(list(Color)),
    Literal["yes", "no"]: st.sampled_from(["yes", "no"]),
    Optional[int]: st.none() | st.integers(-1000, 1000),
    list[int]: st.lists(st.integers(-1000, 1000), max_size=5),
    dict[str, float]: st.dictionaries(text_value, st.floats(-1e6, 1e6, width=32), max_size=3),
    Outer: st.builds(
        Outer,
        inner=st.builds(Inner, a=st.integers(-99, 99), tags=st.lists(text_value, max_size=3)),
        note=st.none() | text_value,
    ),
}


def values_for(sig) -> st.SearchStrategy[dict]:
    return st.fixed_dictionaries({name: VALUES[f.annotation] for name, f in sig.output_fields.items()})


def to_json(values: dict) -> dict:
    return json.loads(json.dumps(values, default=lambda v: v.value if isinstance(v, enum.Enum) else v.model_dump()))


def chat_text(sig, values: dict) -> str:
    body = "\n\n".join(
        f"[[ ## {k} ## ]]\n{json.dumps(v) if not isinstance(v, str) else v}" for k, v in to_json(values).items()
    )
    return body + "\n\n[[ ## completed ## ]]"


def json_text(sig, values: dict) -> str:
    return json.dumps(to_json(values))


def tier3_text(sig, values: dict) -> str:
    """What constrained generation emits: a JSON object of several fields, or one field's raw value."""
    if len(values) > 1:
        return json_text(sig, values)
    (value,) = to_json(values).values()
    return value if isinstance(value, str) else json.dumps(value)


# -- near-misses: a valid answer, then cut, spliced or padded --------------------------------------
NOISE = [
    "[[ ## ",
    " ## ]]",
    "{",
    "}",
    "[",
    "]",
    '"',
    ",",
    ":",
    "\\",
    "\n",
    "null",
    "NaN",
    "1e999",
    "```json\n",
    "[[ ## completed ## ]]",
    "\x00",
    "é",
    "\ud800",
    "  ",
    "true",
    "-",
    "0x1F",
    "'",
]


@st.composite
def near_miss(draw, fmt):
    """``(sig, text, values)``: a valid answer in format ``fmt`` after 0-4 edits; ``values`` when unedited."""
    sig = draw(st.sampled_from(SIGNATURES))
    values = draw(values_for(sig))
    text = fmt(sig, values)
    edits = draw(st.integers(0, 4))
    for _ in range(edits):
        op = draw(st.sampled_from(["cut", "insert", "delete", "dup"]))
        i = draw(st.integers(0, len(text)))
        if op == "cut":
            text = text[:i]
        elif op == "insert":
            text = text[:i] + draw(st.sampled_from(NOISE) | st.text(max_size=5)) + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 8)) :]
        else:
            text = text[:i] + text[i : i + draw(st.integers(1, 40))] + text[i:]
    return sig, text, (values if edits == 0 else None), fmt


random_text = st.one_of(
    st.text(),
    st.lists(st.sampled_from(NOISE), max_size=50).map("".join),
    st.text(st.characters(blacklist_categories=()), max_size=50),
)
#: Each tier's own answer format: an unedited answer in it must parse to its values.
OWN_FORMAT = {"tier1": chat_text, "tier2": json_text, "tier3": tier3_text}


def _parse_or_documented_error(tier: str, sig, text: str, values: dict | None = None) -> None:
    """The tier returns every field or raises AdapterParseError; given ``values`` (``text`` is a valid answer
    in the tier's own format) it must return them, so a parser that always raised would fail."""
    count(f"adapter.{tier}")
    try:
        fields = TIERS[tier](sig, text)
    except AdapterParseError as exc:
        assert values is None, f"{tier} refused a valid answer {text!r}: {exc}"
        return
    assert set(fields) == set(sig.output_fields), (tier, fields)
    if values is not None:
        assert to_json(fields) == to_json(values), (tier, text)


@st.composite
def tier_and_text(draw):
    """``(tier, sig, text, values)``: random text, or (``values`` set) a valid answer in the tier's format."""
    tier = draw(st.sampled_from(list(TIERS)))
    sig = draw(st.sampled_from(SIGNATURES))
    if draw(st.booleans()):
        values = draw(values_for(sig))
        return tier, sig, OWN_FORMAT[tier](sig, values), values
    return tier, sig, draw(random_text), None


@given(tier_and_text())
@example(("tier3", SIGNATURES[3], "[" * 100_000, None))  # json.loads raised RecursionError out of tier 3
@example(("tier3", SIGNATURES[0], '{"outer": {"inner": {"a": 1, "tags": ' + "[" * 3000 + "]" * 3000 + "}}}", None))
def test_random_text(case):
    _parse_or_documented_error(*case)


@settings(max_examples=examples(300))
@given(st.sampled_from(list(TIERS)), st.one_of(near_miss(chat_text), near_miss(json_text)))
def test_near_misses(tier, case):
    sig, text, values, fmt = case
    _parse_or_documented_error(tier, sig, text, values if fmt is OWN_FORMAT[tier] else None)


@settings(max_examples=examples(100))
@given(st.sampled_from(SIGNATURES).flatmap(lambda s: st.tuples(st.just(s), values_for(s))))
def test_valid_answers_round_trip(sig_values):
    """A well-formed answer parses back to its values at every tier (tier 1 from sections, 2 and 3 from JSON)."""
    sig, values = sig_values
    count("adapter.round_trip")
    as_json = to_json(values)
    for parsed in (
        tier1(sig, chat_text(sig, values)),
        tier2(sig, json_text(sig, values)),
        tier3(sig, tier3_text(sig, values)),
    ):
        assert to_json(parsed) == as_json


@given(st.sampled_from(SIGNATURES), random_text | near_miss(json_text).map(lambda case: case[1]))
def test_cut_tier3_output_is_always_truncated(sig, text):
    """A value cut at max_tokens / the deadline is a TruncatedOutputError, however good its text looks."""
    count("adapter.tier3")
    for reason in ("length", "deadline"):
        try:
            tier3(sig, text, reason)
        except TruncatedOutputError:
            continue
        raise AssertionError(f"finish_reason={reason!r} parsed as a value")


def test_deep_nesting_is_a_parse_error_at_tier3():
    """Regression: '[' * 100_000 raised RecursionError out of json.loads; now an AdapterParseError."""
    for text in ("[" * 100_000, "[" * 100_000 + "]" * 100_000, '{"a":' * 50_000):
        for sig in SIGNATURES:
            if next(iter(sig.output_fields.values())).annotation is str and len(sig.output_fields) == 1:
                assert tier3(sig, text) == {"answer": text}  # one free-text field: the text is the value
                continue
            with pytest.raises(AdapterParseError):
                tier3(sig, text)
