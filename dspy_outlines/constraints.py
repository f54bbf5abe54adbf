"""Signature / annotation -> Outlines output type, and constrained text -> field values.

Pure functions: no model is needed. Outlines is imported lazily (only to build its ``Regex`` terms for a
local model and to compute cache keys), so importing this module needs neither MLX nor Outlines, and an
API model's calls never import Outlines: a value can only be an Outlines ``Regex``/``CFG`` once Outlines is
loaded, so the checks for them look in ``sys.modules`` instead of importing it.

A signature with several output fields becomes one pydantic model (a JSON object in field order).
A single output field keeps its own annotation, so the constraint is as tight as the type:

=====================================  ==========================================  ===================
annotation of the single output field  Outlines output type                        constrained text
=====================================  ==========================================  ===================
``str``                                :data:`PLAIN_TEXT` (any non-blank text)      ``Paris``
``Literal[...]`` / ``Enum``            the annotation (a choice)                   ``positive``
``int`` / ``float``                    a number of at most 19 digits               ``42``
``bool``                               the annotation (``True|False``)              ``True``
``outlines.types.Regex``               the regex (also as ``Annotated[str, ...]``)  ``ABC-123``
``outlines.types.CFG``                 the grammar (also as ``Annotated[str, ...]``)  ``1+2*3``
pydantic model, ``list``, ``dict``...  the annotation (JSON)                       ``{"a": 1}``
=====================================  ==========================================  ===================
"""

from __future__ import annotations

import functools
import json
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import pydantic
from dspy.adapters.utils import parse_value
from dspy.utils.exceptions import AdapterParseError

from dspy_outlines.constraint_keys import (  # noqa: F401 - the names it held before the split stay here
    CONSTRAINT_KINDS,
    ConstraintKey,
    _key,
    _memo_key,
    constraint_key,
)
from dspy_outlines.schema import close_schema
from dspy_outlines.strict_json import (  # noqa: F401 - the names it held before the split stay here
    _LENIENT_JSON,
    _SCALARS,
    TRUNCATING_FINISH_REASONS,
    TruncatedOutputError,
    _ends_early,
    _json_shaped,
    _load_json_object,
    _strict_json,
)

if TYPE_CHECKING:
    from dspy import Signature
    from outlines.types.dsl import CFG, Regex

__all__ = [
    "OUTPUT_REGEX_ATTR",
    "TRUNCATING_FINISH_REASONS",
    "ConstraintKey",
    "OutputConstraint",
    "TruncatedOutputError",
    "build_constraint",
    "check_term_constraints",
    "close_schema",
    "constraint_key",
    "field_output_type",
    "is_free_text",
    "output_model",
    "parse_fields",
    "plain_text",
    "response_format",
    "with_output_regex",
]

#: A signature class attribute: a regex over the whole JSON object of a multi-field signature, which ties the
#: fields' values to each other (``{"reasoning": "The id is (X)...", "code": "SUBMIT(id='(X)')"}``, with X
#: the same). Local constrained generation (Tier 3) uses it instead of the fields' JSON schema; the text
#: is still read back as the JSON object of the fields. Set it with :func:`with_output_regex`.
OUTPUT_REGEX_ATTR = "__outlines_output_regex__"


# Any text with at least one non-blank character: the constraint for a single free-text field.
PLAIN_TEXT_PATTERN = r"\s*\S[\s\S]*"


#: A number as Outlines writes it, with at most 19 digits before the point (an int64's width): an unbounded
#: ``[0-9]*`` let a small model write digits until ``max_tokens`` (the embedded 135M model did, 8 s a call).
INT_PATTERN = r"[+-]?(0|[1-9][0-9]{0,18})"
FLOAT_PATTERN = INT_PATTERN + r"(\.[0-9]{1,17})?([eE][+-]?[0-9]{1,3})?"
#: The most digits an integer field of a JSON object is given (``maxDigits``, as :data:`INT_PATTERN`).
INT_FIELD_DIGITS = 19


def plain_text(max_chars: int | None = None) -> Any:
    """The Outlines constraint for one free-text ``str`` field: any non-blank text (at most ``max_chars``
    characters, starting at a non-blank one, when given)."""
    from outlines.types import Regex

    if max_chars is None:
        return Regex(PLAIN_TEXT_PATTERN)
    return Regex(rf"\S[\s\S]{{0,{max(max_chars, 1) - 1}}}")


def _outlines_terms() -> tuple[type[Regex], type[CFG]] | None:
    """Outlines' ``(Regex, CFG)`` classes when Outlines is loaded, else ``None``.

    No value can be one of these terms before their module is imported, so ``None`` means "no term here"
    and Outlines (which imports all its model modules and transformers) is never imported to find out.
    """
    dsl = sys.modules.get("outlines.types.dsl")
    return None if dsl is None else (dsl.Regex, dsl.CFG)


def _term_of(annotation: Any, metadata: Any = ()) -> Any | None:
    """The Outlines ``Regex``/``CFG`` term carried by an annotation or its metadata, if any."""
    terms = _outlines_terms()
    if terms is None:
        return None
    candidates = [annotation, *getattr(annotation, "__metadata__", ()), *(metadata or ())]
    for candidate in candidates:
        if isinstance(candidate, terms):
            return candidate
    return None


def field_output_type(annotation: Any, metadata: Any = (), max_chars: int | None = None) -> Any:
    """The Outlines output type for one output field's annotation.

    Args:
        annotation: The field's annotation (``field.annotation``).
        metadata: The field's pydantic metadata (``field.metadata``); ``Annotated[str, Regex(...)]``
            puts the Regex there.
        max_chars: Bound a free-text ``str`` to this many characters (see :func:`dspy_outlines.bounds.budget`).

    Returns:
        A Regex/CFG term, :func:`plain_text` for ``str``, or the annotation itself (Literal, Enum,
        int, float, bool, pydantic model, list, dict, ...), which Outlines turns into a choice,
        a regex or a JSON schema.
    """
    term = _term_of(annotation, metadata)
    if term is not None:
        return term
    if annotation is str:
        return plain_text(max_chars)
    if annotation is int or annotation is float:
        from outlines.types import Regex

        return Regex(INT_PATTERN if annotation is int else FLOAT_PATTERN)
    return annotation


def is_free_text(info: Any) -> bool:
    """Whether an output field (its pydantic ``FieldInfo``) is free text: a ``str`` with no Regex/CFG term."""
    return info.annotation is str and _term_of(info.annotation, info.metadata) is None


def _json_annotation(annotation: Any, metadata: Any = (), max_chars: int | None = None) -> Any:
    """The annotation to use for a field inside the multi-field JSON object."""
    term = _term_of(annotation, metadata)
    if annotation is str and max_chars is not None and term is None:
        return Annotated[str, pydantic.Field(max_length=max(max_chars, 1))]
    if annotation is int and term is None:
        return Annotated[int, pydantic.Field(json_schema_extra={"maxDigits": INT_FIELD_DIGITS})]
    if term is None:
        return annotation
    from outlines.types.dsl import Regex  # already loaded: ``term`` is one of its terms

    if isinstance(term, Regex):
        return Annotated[str, pydantic.Field(pattern=f"^(?:{term.pattern})$")]
    return str  # a CFG cannot be embedded in a JSON schema: the value stays a free string


def output_model(
    signature: type[Signature], name: str = "Outputs", max_chars: int | None = None
) -> type[pydantic.BaseModel]:
    """A pydantic model of all output fields of ``signature``, in field order, all required.

    Args:
        signature: The DSPy signature.
        name: The model's class name (it appears in the JSON schema's ``title``).
        max_chars: ``maxLength`` of each free-text ``str`` field (see :func:`dspy_outlines.bounds.budget`).

    Returns:
        A pydantic model class that forbids extra fields.
    """
    fields: dict[str, Any] = {
        field_name: (_json_annotation(field.annotation, field.metadata, max_chars), ...)
        for field_name, field in signature.output_fields.items()
    }
    return pydantic.create_model(name, __config__=pydantic.ConfigDict(extra="forbid"), **fields)


def response_format(signature: type[Signature]) -> dict[str, Any]:
    """An OpenAI-style ``response_format`` asking a provider for the signature's JSON object.

    The schema is strict: every object, nested models in ``$defs`` included, is closed and lists
    all its properties as required (OpenAI's strict mode rejects the schema otherwise).
    """
    schema = close_schema(output_model(signature).model_json_schema(), require_all=True)
    return {"type": "json_schema", "json_schema": {"name": "Outputs", "schema": schema, "strict": True}}


@dataclass(frozen=True)
class OutputConstraint:
    """The constraint for one signature, and how to read the constrained text back.

    Attributes:
        signature: The signature whose output fields are constrained.
        output_type: What Outlines receives as ``output_type``.
        field: The single output field the text is the raw value of, or ``None`` when the text is a
            JSON object of all output fields.
        advice: What helps when the value is cut at ``max_tokens`` (:func:`dspy_outlines.bounds.bounded_constraint`
            computes it from the budget); ``None``: raise ``max_tokens``.
    """

    signature: Any
    output_type: Any
    field: str | None
    advice: str | None = None

    def parse(self, text: str, finish_reason: str | None = None) -> dict[str, Any]:
        """Turn the constrained text into ``{field name: value}``.

        JSON values (the multi-field object, lists, dicts, models) are read with a strict ``json.loads``:
        constrained text is valid JSON unless generation was cut, and a cut value is never repaired.

        Args:
            text: The generated text.
            finish_reason: The LM's finish reason, when known; ``"length"`` or ``"deadline"`` means the
                value may be incomplete even where it parses (``12`` cut from ``123``).

        Raises:
            TruncatedOutputError: Generation stopped at ``max_tokens`` / the deadline, or the JSON ends early.
            AdapterParseError: The text does not validate.
        """
        if finish_reason in TRUNCATING_FINISH_REASONS:
            limit = "max_tokens" if finish_reason == "length" else "the deadline"
            fix = "raise the time budget" if finish_reason == "deadline" else self.advice or "raise max_tokens"
            raise TruncatedOutputError(
                adapter_name="OutlinesAdapter",
                signature=self.signature,
                lm_response=text,
                message=f"The constrained output was truncated at {limit} (finish_reason={finish_reason!r}); {fix}.",
            )
        if self.field is None:
            values = _load_json_object(self.signature, text, self.advice)
        elif _term_of(self.output_type) is not None:  # Regex, CFG or plain text: the text is the value
            plain = is_free_text(self.signature.output_fields[self.field])
            values = {self.field: text.strip() if plain else text}
        elif _json_shaped(self.signature.output_fields[self.field].annotation):
            values = {self.field: _strict_json(self.signature, text, self.advice)}
        else:
            values = {self.field: text}
        return parse_fields(self.signature, values, text)


def parse_fields(signature: type[Signature], values: dict[str, Any], lm_response: str) -> dict[str, Any]:
    """Validate raw values against the signature's output fields, like DSPy's ``parse_value``.

    Fields carrying an Outlines ``Regex``/``CFG`` are strings (checked against a Regex); all other
    fields go through ``dspy.adapters.utils.parse_value``.

    Raises:
        AdapterParseError: A field is missing or a value does not validate.
    """
    fields: dict[str, Any] = {}
    for name, info in signature.output_fields.items():
        if name not in values:
            raise AdapterParseError(
                adapter_name="OutlinesAdapter",
                signature=signature,
                lm_response=lm_response,
                message=f"Field {name!r} is missing from the output.",
                parsed_result=fields,
            )
        value = values[name]
        try:
            fields[name] = (
                str(value) if _term_of(info.annotation, info.metadata) else parse_value(value, info.annotation)
            )
        except (ValueError, RecursionError) as exc:  # pydantic.ValidationError is a ValueError; RecursionError:
            # DSPy's parse_value decodes a text like '[' * 100_000 for an int field before it validates
            raise AdapterParseError(
                adapter_name="OutlinesAdapter",
                signature=signature,
                lm_response=lm_response,
                message=f"Field {name!r} does not validate: {exc}",
                parsed_result=fields,
            ) from exc
    check_term_constraints(signature, fields)
    return fields


@functools.lru_cache(maxsize=512)
def build_constraint(signature: type[Signature], max_chars: int | None = None) -> OutputConstraint:
    """The Outlines constraint for all output fields of ``signature`` (memoized per signature and budget).

    Args:
        signature: A DSPy signature with at least one output field.
        max_chars: Bound free-text ``str`` fields to this many characters (:func:`dspy_outlines.bounds.budget`);
            ``None``: unbounded.

    Returns:
        An :class:`OutputConstraint`: the raw annotation's type for a single field, a pydantic model
        of all fields otherwise.

    Raises:
        ValueError: The signature has no output fields.
    """
    fields = signature.output_fields
    if not fields:
        raise ValueError(f"Signature {signature.__name__} has no output fields: nothing to constrain.")
    joint = getattr(signature, OUTPUT_REGEX_ATTR, None)
    if joint is not None and len(fields) > 1:
        from outlines.types import Regex

        return OutputConstraint(signature, Regex(joint), None)
    if len(fields) == 1:
        ((name, info),) = fields.items()
        return OutputConstraint(signature, field_output_type(info.annotation, info.metadata, max_chars), name)
    return OutputConstraint(signature, output_model(signature, max_chars=max_chars), None)


def with_output_regex(signature: type[Signature], pattern: str) -> type[Signature]:
    """A copy of a multi-field ``signature`` whose local Tier-3 generation is held to ``pattern``, a regex
    over the whole JSON object (compact separators: ``{"a": "x", "b": "y"}``) -- see :data:`OUTPUT_REGEX_ATTR`.

    Raises:
        ValueError: The signature has fewer than two output fields (a single field takes a ``Regex`` type).
    """
    if len(signature.output_fields) < 2:
        raise ValueError(
            "with_output_regex needs a signature with two or more output fields; annotate a single "
            "field with Annotated[str, outlines.types.Regex(...)] instead"
        )
    copy = signature.with_instructions(signature.instructions)
    setattr(copy, OUTPUT_REGEX_ATTR, pattern)
    return copy


def check_term_constraints(signature: type[Signature], fields: dict[str, Any]) -> None:
    """Check values of fields annotated with an Outlines ``Regex`` against that regex.

    DSPy parses such fields as plain strings, so without this check a Tier 1/2 answer that breaks
    the pattern would be accepted. (A ``CFG`` cannot be checked without a tokenizer; it is enforced
    at Tier 3 only.)

    Raises:
        AdapterParseError: A value does not match its field's regex.
    """
    import re

    terms = _outlines_terms()
    if terms is None:  # Outlines not loaded: no field can carry a Regex
        return
    regex_type = terms[0]
    for name, value in fields.items():
        info = signature.output_fields.get(name)
        term = _term_of(info.annotation, info.metadata) if info is not None else None
        if isinstance(term, regex_type) and not (isinstance(value, str) and re.fullmatch(term.pattern, value)):
            raise AdapterParseError(
                adapter_name="OutlinesAdapter",
                signature=signature,
                lm_response=json.dumps(fields, default=str),
                message=f"Field {name!r} must match the regex {term.pattern!r}; got {value!r}.",
                parsed_result=fields,
            )
