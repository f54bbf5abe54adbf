"""Signature / annotation -> Outlines output type, and back (no model needed)."""

from __future__ import annotations

import enum
import json
import re
from typing import Annotated, Literal

import dspy
import pydantic
import pytest
from dspy.utils.exceptions import AdapterParseError
from outlines.types import CFG, Regex

from dspy_outlines.constraints import (
    PLAIN_TEXT_PATTERN,
    TruncatedOutputError,
    build_constraint,
    close_schema,
    constraint_key,
    output_model,
    response_format,
)


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Address(pydantic.BaseModel):
    city: str
    zip: int


class Person(pydantic.BaseModel):
    name: str
    address: Address


ARITHMETIC = '?start: expr\n?expr: NUMBER | expr "+" expr\nNUMBER: /[0-9]+/\n'


def single(annotation):
    return dspy.Signature({"q": (str, dspy.InputField()), "out": (annotation, dspy.OutputField())})


class RawRegex(dspy.Signature):
    q: str = dspy.InputField()
    out: Regex(r"[0-9]{2}") = dspy.OutputField()


# annotation, expected (kind, definition-check), constrained text, parsed value
CASES = [
    (str, ("regex", lambda d: d == PLAIN_TEXT_PATTERN), "  Paris \n", "Paris"),
    (Literal["positive", "negative"], ("regex", lambda d: d == "(positive|negative)"), "negative", "negative"),
    (Literal[1, 2], ("regex", lambda d: re.fullmatch(d, "2")), "2", 2),
    (Color, ("regex", lambda d: d == "(red|blue)"), "blue", Color.BLUE),
    (int, ("regex", lambda d: re.fullmatch(d, "-42")), "-42", -42),
    (float, ("regex", lambda d: re.fullmatch(d, "3.5")), "3.5", 3.5),
    (bool, ("regex", lambda d: d == "(True|False)"), "False", False),
    (list[int], ("regex", lambda d: re.fullmatch(d, "[1, 2]")), "[1, 2]", [1, 2]),
    (
        Person,
        ("json", lambda d: '"city"' in d),
        '{"name": "A", "address": {"city": "B", "zip": 1}}',
        Person(name="A", address=Address(city="B", zip=1)),
    ),
    (Annotated[str, Regex(r"[A-Z]{3}-[0-9]{3}")], ("regex", lambda d: d == "[A-Z]{3}-[0-9]{3}"), "ABC-123", "ABC-123"),
    (Annotated[str, CFG(ARITHMETIC)], ("cfg", lambda d: d == ARITHMETIC), "1+2", "1+2"),
]


@pytest.mark.parametrize(("annotation", "key", "text", "value"), CASES, ids=lambda c: getattr(c, "__name__", None))
def test_single_field_keeps_raw_annotation(annotation, key, text, value):
    constraint = build_constraint(single(annotation))
    assert constraint.field == "out"
    kind, check = key
    got_kind, definition = constraint_key(constraint.output_type)
    assert got_kind == kind and check(definition)
    assert constraint.parse(text) == {"out": value}


def test_raw_regex_annotation_in_class_signature():
    constraint = build_constraint(RawRegex)
    assert constraint_key(constraint.output_type) == ("regex", "[0-9]{2}")
    assert constraint.parse("12") == {"out": "12"}
    with pytest.raises(AdapterParseError):
        constraint.parse("1x")


def test_multi_field_is_one_json_object_in_field_order():
    sig = dspy.Signature(
        "q -> sentiment: Literal['pos', 'neg'], stars: int, person: Person", custom_types={"Person": Person}
    )
    constraint = build_constraint(sig)
    assert constraint.field is None
    kind, _ = constraint_key(constraint.output_type)
    assert kind == "json"
    model = constraint.output_type
    assert list(model.model_fields) == ["sentiment", "stars", "person"]
    text = '{"sentiment": "pos", "stars": 4, "person": {"name": "A", "address": {"city": "B", "zip": 1}}}'
    parsed = constraint.parse(text)
    assert parsed["sentiment"] == "pos" and parsed["stars"] == 4 and parsed["person"].address.zip == 1


def test_multi_field_regex_becomes_json_pattern():
    sig = single(Annotated[str, Regex(r"[0-9]+")]).append("n", dspy.OutputField(), type_=int)
    schema = output_model(sig).model_json_schema()
    assert schema["properties"]["out"]["pattern"] == "^(?:[0-9]+)$"
    assert build_constraint(sig).parse('{"out": "12", "n": 3}') == {"out": "12", "n": 3}
    with pytest.raises(AdapterParseError, match="must match the regex"):
        build_constraint(sig).parse('{"out": "a", "n": 3}')


@pytest.mark.parametrize(
    "text",
    ['{"sentiment": "pos", "sta', '{"sentiment": "maybe", "stars": 4}', '{"stars": 4}', "not json", "[1]"],
)
def test_invalid_constrained_text_raises_adapter_parse_error(text):
    sig = dspy.Signature("q -> sentiment: Literal['pos', 'neg'], stars: int")
    with pytest.raises(AdapterParseError):
        build_constraint(sig).parse(text)


@pytest.mark.parametrize(
    ("annotation", "text"),
    [
        (list[str], '["red", "white", "bl'),  # issue 15: json-repair made this ['red', 'white', 'bl']
        (list[int], "[1, 2, "),
        (Person, '{"name": "A", "address": {"city": "B"'),
        (dict[str, int], '{"a": 1'),
    ],
)
def test_cut_json_is_truncated_never_repaired(annotation, text):
    with pytest.raises(TruncatedOutputError, match="not repaired"):
        build_constraint(single(annotation)).parse(text)


def test_cut_multi_field_object_is_truncated():
    sig = dspy.Signature("q -> sentiment: Literal['pos', 'neg'], stars: int")
    with pytest.raises(TruncatedOutputError):
        build_constraint(sig).parse('{"sentiment": "pos", "sta')
    with pytest.raises(AdapterParseError) as bad:  # broken in the middle: invalid, not truncated
        build_constraint(sig).parse('{"sentiment": pos, "stars": 4}')
    assert not isinstance(bad.value, TruncatedOutputError)


@pytest.mark.parametrize("reason", ["length", "deadline"])
@pytest.mark.parametrize(("annotation", "text"), [(int, "12"), (str, "Par"), (list[int], "[1, 2]")])
def test_length_or_deadline_finish_is_truncated_even_when_it_parses(annotation, text, reason):
    constraint = build_constraint(single(annotation))
    with pytest.raises(TruncatedOutputError, match="truncated at"):
        constraint.parse(text, finish_reason=reason)
    assert constraint.parse(text, finish_reason="stop")["out"] is not None


def test_json_strings_with_raw_newlines_parse():
    text = '["a' + "\n" + 'b", "c"]'  # a raw newline inside a JSON string, as Outlines may generate
    assert build_constraint(single(list[str])).parse(text) == {"out": ["a\nb", "c"]}


def test_invalid_single_value_raises():
    with pytest.raises(AdapterParseError):
        build_constraint(single(int)).parse("four")


def test_same_signature_gives_same_key():
    a = build_constraint(dspy.Signature("q -> a: int, b: str")).output_type
    b = build_constraint(dspy.Signature("q -> a: int, b: str")).output_type
    assert a is not b and constraint_key(a) == constraint_key(b)
    assert constraint_key(build_constraint(dspy.Signature("q -> b: str, a: int")).output_type) != constraint_key(a)


def test_response_format_is_strict_json_schema():
    fmt = response_format(dspy.Signature("q -> a: int, b: list[str]"))
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    assert schema["required"] == ["a", "b"] and schema["additionalProperties"] is False


class City(pydantic.BaseModel):
    name: str
    country: str = "unknown"  # a default: pydantic leaves it out of "required"


class Trip(pydantic.BaseModel):
    cities: list[City]
    home: City | None = None


def _objects(node, path="#"):
    """Every schema object that has properties, with its path."""
    if isinstance(node, dict):
        if "properties" in node:
            yield path, node
        for key, value in node.items():
            if key not in ("default", "examples", "const", "enum"):
                yield from _objects(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _objects(value, f"{path}/{i}")


def test_response_format_closes_nested_models_for_openai_strict_mode():
    sig = dspy.Signature("q -> trip: Trip, owner: Person", custom_types={"Trip": Trip, "Person": Person})
    schema = response_format(sig)["json_schema"]["schema"]
    objects = dict(_objects(schema))
    assert {"#/$defs/City", "#/$defs/Trip", "#/$defs/Person", "#/$defs/Address"} <= set(objects)
    for path, node in objects.items():  # OpenAI strict: closed, and every property required
        assert node["additionalProperties"] is False, path
        assert sorted(node["required"]) == sorted(node["properties"]), path
    assert objects["#/$defs/City"]["required"] == ["name", "country"]


def test_close_schema_leaves_non_schema_positions_alone():
    schema = {
        "type": "object",
        "properties": {"type": {"type": "string"}, "properties": {"type": "integer"}},
        "default": {"type": "object", "properties": {}},
        "$defs": {"M": {"type": "object", "properties": {"x": {"type": "integer"}}, "additionalProperties": True}},
    }
    close_schema(schema)
    assert schema["additionalProperties"] is False and "required" not in schema
    assert schema["properties"]["properties"] == {"type": "integer"}
    assert schema["default"] == {"type": "object", "properties": {}}
    assert schema["$defs"]["M"]["additionalProperties"] is True  # an explicit choice is kept


def test_no_output_fields_is_a_clear_error():
    with pytest.raises(ValueError, match="no output fields"):
        build_constraint(dspy.Signature({"q": (str, dspy.InputField())}))


@pytest.mark.parametrize("annotation", [int, float])
def test_a_number_closes_after_19_digits(annotation):
    """An unbounded ``[0-9]*`` let the embedded model write digits until max_tokens (8 s, then an error)."""
    _, pattern = constraint_key(build_constraint(single(annotation)).output_type)
    assert re.fullmatch(pattern, "-" + "9" * 19) and not re.fullmatch(pattern, "1" * 20)
    assert build_constraint(single(annotation)).parse("1" * 19) == {"out": annotation("1" * 19)}
    assert not re.fullmatch(pattern, "01")  # the number as Outlines writes it: no leading zero


def test_an_integer_field_of_a_json_object_has_max_digits():
    sig = dspy.Signature("q -> sentiment: Literal['pos', 'neg'], stars: int")
    _, schema = constraint_key(build_constraint(sig).output_type)
    assert json.loads(schema)["properties"]["stars"]["maxDigits"] == 19
    assert build_constraint(sig).parse('{"sentiment": "pos", "stars": 4}') == {"sentiment": "pos", "stars": 4}
