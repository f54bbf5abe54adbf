"""The constraint key: what a constraint is, as the processors build it (:class:`ConstraintKey`), computed
once from an Outlines output type (:func:`constraint_key`). Outlines is imported only when a key is computed."""

from __future__ import annotations

import functools
from typing import Any, NamedTuple


class ConstraintKey(NamedTuple):
    """What a constraint is, as the processors build it: ``kind`` is ``"json"`` (``definition``: the JSON schema
    string), ``"regex"`` (the regex) or ``"cfg"`` (the grammar). Computed once from an output type
    (:func:`constraint_key`); a request carries it (as JSON, :mod:`dspy_outlines.contract`) to the engine, which
    builds its processor from it as it is."""

    kind: str
    definition: str


#: The kinds of a :class:`ConstraintKey`.
CONSTRAINT_KINDS = ("regex", "json", "cfg")


def constraint_key(output_type: Any) -> ConstraintKey:
    """A stable, hashable key for an output type: ``(kind, definition)`` (a :class:`ConstraintKey` is its own).

    Equal keys mean the same logits processor can be reused. Keys of hashable types (classes, ``Literal[...]``)
    are memoized: a JSON schema is computed once.

    Raises:
        TypeError: Outlines does not support the type.
    """
    if isinstance(output_type, ConstraintKey):
        return output_type
    from outlines.types.dsl import CFG, Regex

    if isinstance(output_type, Regex):
        return ConstraintKey("regex", output_type.pattern)
    if isinstance(output_type, CFG):
        return ConstraintKey("cfg", output_type.definition)
    try:
        return _memo_key(output_type)
    except TypeError:  # unhashable (e.g. an outlines Term other than Regex/CFG)
        return _key(output_type)


@functools.lru_cache(maxsize=1024)
def _memo_key(output_type: Any) -> ConstraintKey:
    return _key(output_type)


def _key(output_type: Any) -> ConstraintKey:
    from outlines.types.dsl import CFG, JsonSchema, Regex, python_types_to_terms, to_regex

    term = python_types_to_terms(output_type)
    if isinstance(term, CFG):
        return ConstraintKey("cfg", term.definition)
    if isinstance(term, JsonSchema):
        return ConstraintKey("json", term.schema)
    if isinstance(term, Regex):
        return ConstraintKey("regex", term.pattern)
    return ConstraintKey("regex", to_regex(term))
