"""Length bounds from the token budget, so a Tier-3 value closes within ``max_tokens`` (pure, no model needed).

A small model asked for a ``list[str]`` opens a string and never closes it (``["]\\n\\nThe output is ...``),
or adds items until ``max_tokens`` cuts the JSON; a cut value is a failure, never repaired. So Tier 3 bounds
what it can from the budget alone:

* each free-text ``str`` field gets a length (one field alone: a bounded regex; in a JSON object: ``maxLength``);
* each list of scalars (``list[str]``, ``list[int]``, ``list[bool]``, ``list[Literal[...]]``, ``set[str]``...)
  gets ``maxItems`` and a bound per item: ``maxLength`` for strings, ``maxDigits`` (outlines_core) with
  ``minimum`` / ``maximum`` (llguidance, servers) for integers; choices and booleans have their own width.

The longest value the constraint then allows fits the budget. A bound the field already has
(``Annotated[list[str], Field(max_length=3)]``, ``list[Annotated[str, Field(max_length=8)]]``) is kept where it
is tighter, and the room it leaves goes to the other bound. Several bounded fields share the budget equally.

The accounting is a worst case: every token a constraint allows carries at least one character, so a value of at
most ``max_tokens - 1`` characters ends, end-of-text token included, inside the budget; JSON punctuation counts
the optional spaces of outlines_core's regexes. One exception keeps the budgets of signatures without lists as
they were: a JSON object of free-text fields alone is counted compactly, its ``", "`` separators and the end
token left out (a few characters that only one-character tokens throughout could overrun).

Not bounded (each is reserved :data:`OTHER_FIELD_CHARS`, may still be cut, and the error then names it): numbers
outside lists, ``float`` items, nested models, dicts, a ``str`` field carrying a CFG; nor characters that take
more than one token (escapes such as ``\\n``, non-ASCII text in byte-level tokens).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Annotated, Any

import pydantic

from dspy_outlines.constraints import (
    OUTPUT_REGEX_ATTR,
    OutputConstraint,
    build_constraint,
    field_output_type,
    is_free_text,
)

if TYPE_CHECKING:
    from dspy import Signature

__all__ = [
    "OTHER_FIELD_CHARS",
    "Budget",
    "ListBound",
    "bound_list_schema",
    "bounded_constraint",
    "bounded_output_type",
    "budget",
]

#: Characters reserved for an output field Tier 3 cannot bound (a number, a nested model...) in a JSON object.
OTHER_FIELD_CHARS = 16
#: The most digits an integer list item is given: an int64 has 19, and more is never a list's point.
INT_DIGITS = 18


@dataclass(frozen=True)
class ListBound:
    """At most ``max_items`` items, each at most ``width`` characters (digits for an integer; for choices and
    booleans their own widest JSON text)."""

    max_items: int
    width: int


@dataclass(frozen=True)
class Budget:
    """How the output fields of a signature share ``max_tokens``.

    Attributes:
        max_tokens: The budget.
        text_chars: Characters of each free-text ``str`` field; ``None``: the signature has none.
        lists: ``(field name, bound)`` of each list of scalars.
        needed: The least ``max_tokens`` with which the longest value the bounds allow still fits.
        unbounded: The output fields with no bound (see the module); they may still be cut.
    """

    max_tokens: int
    text_chars: int | None
    lists: tuple[tuple[str, ListBound], ...] = ()
    needed: int = 1
    unbounded: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Item:
    """The JSON text of a list item: ``overhead`` (quotes, a sign) plus at most ``cap`` characters."""

    overhead: int
    cap: int | None  # the field's own bound on the item, if any
    fixed: bool = False  # choices, booleans: the width is the item's own
    min_width: int = 1
    ceiling: int | None = None  # never more than this, even when the budget has room (integer digits)
    per_list_item: int = 2  # the split keeps an item at least per_list_item * items + base wide
    base: int = 2


@dataclass(frozen=True)
class _List:
    item: _Item
    max_items: int | None
    min_items: int


def _resolve(schema: Any, defs: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref", "") if isinstance(schema, dict) else ""
    return defs.get(ref.rsplit("/", 1)[-1], {}) if ref.startswith("#/$defs/") else schema


def _item_of(schema: dict[str, Any]) -> _Item | None:
    """How wide a list item of this (resolved) schema can be, or ``None`` when Tier 3 cannot bound it."""
    if "enum" in schema or "const" in schema:
        values = schema.get("enum", [schema.get("const")])
        return _Item(0, max(len(json.dumps(v)) for v in values), fixed=True) if values else None
    kind = schema.get("type")
    if kind == "boolean":
        return _Item(0, 5, fixed=True)
    if kind == "string" and not {"pattern", "format"} & schema.keys():
        return _Item(2, schema.get("maxLength"), min_width=max(schema.get("minLength", 1), 1))
    if kind == "integer":
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        high = schema.get("maximum", schema.get("exclusiveMaximum"))
        cap = schema.get("maxDigits")
        if low is not None and high is not None:
            digits = max(len(str(abs(int(low)))), len(str(abs(int(high)))))
            cap = digits if cap is None else min(cap, digits)
        sign = 0 if low is not None and low >= 0 else 1
        return _Item(sign, cap, ceiling=INT_DIGITS, per_list_item=1, base=0)
    return None


def _list_of(schema: dict[str, Any], defs: dict[str, Any]) -> _List | None:
    """The shape of a list of scalars, or ``None`` for any other schema."""
    schema = _resolve(schema, defs)
    items = schema.get("items")
    if schema.get("type") != "array" or "prefixItems" in schema or not isinstance(items, dict):
        return None
    item = _item_of(_resolve(items, defs))
    return None if item is None else _List(item, schema.get("maxItems"), schema.get("minItems", 0))


def _array_chars(items: int, item_chars: int) -> int:
    """The longest array of ``items`` items of ``item_chars`` characters: ``[ a, b ]`` (outlines_core's optional
    spaces after ``[``, after each comma and before ``]``)."""
    return 4 if items == 0 else 2 + items * (item_chars + 2)


def _min_chars(shape: _List) -> int:
    item = shape.item
    width = item.cap if item.fixed and item.cap is not None else item.min_width
    return _array_chars(shape.min_items, item.overhead + width)


def _split(chars: int, shape: _List) -> ListBound:
    """Items and item width whose longest array fits ``chars`` characters.

    Balanced: more items only while each stays wider than the list is long (strings: ``2 * items + 2``
    characters, so 2 of 6 at 24 tokens, 3 of 11 at 48, 9 of 24 at 256). A tighter bound of the field's own (its
    ``maxItems``, its items' ``maxLength``) wins, and the room it leaves goes to the other bound.
    """
    item = shape.item
    if item.fixed and item.cap is not None:
        most = max((chars - 2) // (item.cap + 2), 0)
        items = most if shape.max_items is None else min(most, shape.max_items)
        return ListBound(max(items, shape.min_items), item.cap)

    def width(items: int) -> int:
        room = (chars - 2) // items - 2 - item.overhead
        return room if item.ceiling is None else min(room, item.ceiling)

    most = max((chars - 2) // (item.min_width + item.overhead + 2), 0)
    if shape.max_items is not None:
        most = min(most, shape.max_items)
    items = 0
    if most >= 1:
        fits = [k for k in range(1, most + 1) if width(k) >= item.per_list_item * k + item.base]
        items = max(fits, default=1)
        if item.cap is not None and item.cap < width(items):  # the items' own bound is tighter: more of them
            items = min(most, max((chars - 2) // (item.cap + item.overhead + 2), 1))
    items = max(items, shape.min_items)
    caps = [width(max(items, 1)), *([item.cap] if item.cap is not None else [])]
    return ListBound(items, max(min(caps), item.min_width))


def bound_list_schema(schema: dict[str, Any], bound: ListBound, defs: dict[str, Any] | None = None) -> dict[str, Any]:
    """A copy of a list-of-scalars schema with ``bound`` applied, the tighter bound winning where it has one."""
    out = json.loads(json.dumps(schema))
    out["maxItems"] = min(out.get("maxItems", bound.max_items), bound.max_items)
    if out["maxItems"] >= 1:  # at least one item, as Outlines' own list constraint; Field(min_length=0) allows []
        out.setdefault("minItems", 1)
    items = out["items"]
    if "$ref" in items or "enum" in items or "const" in items or items.get("type") == "boolean":
        return out  # choices and booleans: their own width
    if items.get("type") == "string":
        items["maxLength"] = min(items.get("maxLength", bound.width), bound.width)
    elif items.get("type") == "integer":
        top = 10**bound.width - 1
        items["maxDigits"] = min(items.get("maxDigits", bound.width), bound.width)
        items["maximum"] = min(items.get("maximum", top), top)
        items["minimum"] = max(items.get("minimum", -top), -top)
    return out


def _field_schema(info: Any) -> dict[str, Any] | None:
    """The JSON schema of an output field, its own constraints (``Field(max_length=...)``) included."""
    # Any: a runtime-built Annotated[...] is a type form mypy cannot see through (TypeAdapter takes any form)
    annotation: Any = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
    try:
        return pydantic.TypeAdapter(annotation).json_schema()
    except (pydantic.PydanticSchemaGenerationError, pydantic.PydanticInvalidForJsonSchema, TypeError):
        return None


def _lists_of(signature: type[Signature]) -> dict[str, tuple[dict[str, Any], _List]]:
    shapes = {}
    for name, info in signature.output_fields.items():
        schema = _field_schema(info)
        shape = None if schema is None or is_free_text(info) else _list_of(schema, schema.get("$defs", {}))
        if shape is not None and schema is not None:
            shapes[name] = (schema, shape)
    return shapes


def budget(signature: type[Signature], max_tokens: int | None) -> Budget | None:
    """How the output fields of ``signature`` share ``max_tokens`` (see the module); ``None``: no budget."""
    if not max_tokens:
        return None
    fields, max_tokens = signature.output_fields, int(max_tokens)
    texts = [name for name, info in fields.items() if is_free_text(info)]
    lists = {name: shape for name, (_, shape) in _lists_of(signature).items()}
    others = tuple(name for name in fields if name not in texts and name not in lists)
    chars = max_tokens - 1  # one token for the end of text
    if len(fields) == 1:  # the text is the value itself
        if texts:
            return Budget(max_tokens, max(chars, 1), needed=2)
        if lists:
            ((name, shape),) = lists.items()
            return Budget(max_tokens, None, ((name, _split(chars, shape)),), 1 + _min_chars(shape))
        return Budget(max_tokens, None, unbounded=others)
    # {"a": "x", "b": 1}, counted as the free-text budget always counted it, so a signature without lists keeps
    # its budget; with lists, the fields also leave room for what that count leaves out (", " and " : " spaces,
    # quotes, the end token), so the widest object fits.
    structure = 2 + sum(len(name) + 6 for name in fields)
    slack = 2 * len(fields) + 2 * len(texts) if lists else 0
    needed = 2 + sum(len(name) + 8 for name in fields) + 3 * len(texts) + OTHER_FIELD_CHARS * len(others)
    needed += sum(map(_min_chars, lists.values()))
    bounded = len(texts) + len(lists)
    share = (max_tokens - structure - OTHER_FIELD_CHARS * len(others) - slack) // bounded if bounded else 0
    return Budget(
        max_tokens,
        max(share, 1) if texts else None,
        tuple((name, _split(max(share, 0), shape)) for name, shape in lists.items()),
        needed,
        others,
    )


def _advice(plan: Budget) -> str:
    """What helps when a value bounded by ``plan`` is still cut at ``max_tokens``."""
    if plan.max_tokens < plan.needed:
        return (
            f"this signature's output needs max_tokens >= {plan.needed} to close even with its free text and lists "
            f"bounded (got {plan.max_tokens}); raise max_tokens to at least {plan.needed}"
        )
    if plan.unbounded:
        return (
            f"the output fields {', '.join(plan.unbounded)} have no length bound Tier 3 can set (it bounds free "
            "text and lists of str / int / bool / choices); raise max_tokens, or bound those fields "
            "(Literal choices, Field(max_length=...), fewer nested fields)"
        )
    return (
        "every field was bounded to fit at one character per token, but characters that take several tokens "
        "(escapes such as \\n, non-ASCII text) overran the budget; raise max_tokens"
    )


@functools.lru_cache(maxsize=512)
def bounded_constraint(signature: Any, max_tokens: int | None) -> OutputConstraint:
    """The Tier-3 constraint of ``signature`` bounded to close within ``max_tokens`` (memoized).

    Free-text fields get their length, lists of scalars their items and item length (:func:`budget`); the
    constraint's ``advice`` says what helps if the value is cut all the same. ``max_tokens=None``: unbounded.
    """
    plan = budget(signature, max_tokens)
    constraint = build_constraint(signature, plan.text_chars if plan else None)
    if plan is None:
        return constraint
    advice = _advice(plan)
    joint = getattr(signature, OUTPUT_REGEX_ATTR, None) is not None and len(signature.output_fields) > 1
    if not plan.lists or joint:
        return replace(constraint, advice=advice)
    from outlines.types import JsonSchema

    bounds, shapes = dict(plan.lists), _lists_of(signature)
    if constraint.field is not None:  # a single list field: its own schema, bounded
        schema, _ = shapes[constraint.field]
        bounded = bound_list_schema(schema, bounds[constraint.field])
    else:
        bounded = constraint.output_type.model_json_schema()
        for name, bound in bounds.items():
            schema, _ = shapes[name]
            field = bound_list_schema({k: v for k, v in schema.items() if k != "$defs"}, bound)
            bounded["properties"][name] = {**field, "title": bounded["properties"][name].get("title", name)}
            bounded.setdefault("$defs", {}).update(schema.get("$defs", {}))
    return replace(constraint, output_type=JsonSchema(json.dumps(bounded)), advice=advice)


def _output_type_schema(output_type: Any) -> dict[str, Any] | None:
    """The JSON schema of an output type given to ``OutlinesLM.generate``, or ``None`` (Regex, CFG, choices...)."""
    from outlines.types.dsl import JsonSchema

    if isinstance(output_type, JsonSchema):
        schema = json.loads(output_type.schema)
        return schema if isinstance(schema, dict) else None
    if isinstance(output_type, dict):
        return output_type
    if isinstance(output_type, str) or not hasattr(output_type, "__origin__"):
        return None  # only list[...] / set[...] forms can be lists of scalars
    try:
        return pydantic.TypeAdapter(output_type).json_schema()
    except (pydantic.PydanticSchemaGenerationError, pydantic.PydanticInvalidForJsonSchema, TypeError):
        return None


def bounded_output_type(output_type: Any, max_tokens: int) -> tuple[Any, str]:
    """``output_type`` bounded to close within ``max_tokens`` as Tier 3 bounds a list field, and the advice for a
    value cut all the same (for :meth:`dspy_outlines.OutlinesLM.generate`).

    A list of scalars (``list[str]``, ``set[int]``, a JSON schema of one) gets ``maxItems`` and a bound per item
    (:func:`bound_list_schema`) and comes back as an Outlines ``JsonSchema``; ``int`` and ``float`` become their
    19-digit regex (:func:`dspy_outlines.constraints.field_output_type`); any other type comes back as it is.
    """
    if output_type is int or output_type is float:
        return field_output_type(output_type), "raise max_tokens"
    schema = _output_type_schema(output_type)
    shape = None if schema is None else _list_of(schema, schema.get("$defs", {}))
    if schema is None or shape is None:
        return output_type, "raise max_tokens, or give the output type a length bound"
    from outlines.types import JsonSchema

    bound = _split(max(max_tokens - 1, 0), shape)
    plan = Budget(max_tokens, None, (("output", bound),), 1 + _min_chars(shape))
    return JsonSchema(json.dumps(bound_list_schema(schema, bound, schema.get("$defs")))), _advice(plan)
