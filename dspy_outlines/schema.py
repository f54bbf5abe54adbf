"""JSON-schema closing: every object of a schema gets ``additionalProperties: false`` (pure, no model).

Used for the schemas Tier 3 hands to API providers (strict structured outputs) and to serving engines.
"""

from __future__ import annotations

from typing import Any

__all__ = ["close_schema"]

# Keywords whose value is one subschema / a list of subschemas / a map of name -> subschema.
_SUBSCHEMA = (
    "items",
    "additionalItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
)
_SUBSCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")


def close_schema(schema: Any, *, require_all: bool = False) -> Any:
    """Close every object of a JSON schema in place: ``additionalProperties: false`` unless it says otherwise.

    Walks only schema positions (``properties``, ``$defs``, ``items``, ``anyOf``...), so a property
    named ``type`` or a ``default`` value shaped like a schema is left alone.

    Args:
        schema: A JSON schema (a dict), e.g. from ``model_json_schema()``; changed in place.
        require_all: Also list every property in ``required``, as OpenAI's strict structured
            outputs demand of every object, nested ``$defs`` included.

    Returns:
        ``schema``, for chaining.
    """
    if not isinstance(schema, dict):
        return schema
    if "properties" in schema and schema.get("type", "object") == "object":
        schema.setdefault("additionalProperties", False)
        if require_all:
            schema["required"] = list(schema["properties"])
    for key in _SUBSCHEMA:
        close_schema(schema.get(key), require_all=require_all)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        close_schema(extra, require_all=require_all)
    for key in _SUBSCHEMA_LISTS:
        for sub in schema.get(key) or ():
            close_schema(sub, require_all=require_all)
    for key in _SUBSCHEMA_MAPS:
        for sub in (schema.get(key) or {}).values():
            close_schema(sub, require_all=require_all)
    return schema
