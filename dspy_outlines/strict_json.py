"""Reading constrained JSON back strictly: a value cut at ``max_tokens`` or the deadline is a
:class:`TruncatedOutputError`, other bad JSON a parse error, and neither is ever repaired."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from dspy.utils.exceptions import AdapterParseError

if TYPE_CHECKING:
    from dspy import Signature

#: Finish reasons of a generation that was cut before its value was complete.
TRUNCATING_FINISH_REASONS = frozenset({"length", "deadline"})


class TruncatedOutputError(AdapterParseError):
    """Constrained generation was cut (``max_tokens`` or the deadline) before the value was complete.

    A truncated value is never completed or repaired: it is a Tier-3 failure, counted as ``truncated``.
    """


_SCALARS = (str, int, float, bool)


def _json_shaped(annotation: Any) -> bool:
    """Whether a single field's constrained text is JSON (list, dict, model...), not a bare scalar or choice."""
    import enum
    import typing

    if annotation in _SCALARS or typing.get_origin(annotation) is typing.Literal:
        return False
    return not (isinstance(annotation, type) and issubclass(annotation, enum.Enum))


def _strict_json(signature: type[Signature], text: str, advice: str | None = None) -> Any:
    """``json.loads(text)``; JSON that ends early is a truncation, other bad JSON a parse error."""
    try:
        return json.loads(text, strict=False)  # Outlines' JSON strings may hold raw newlines
    except RecursionError as exc:  # '[' * 100_000: nested deeper than the decoder's recursion limit
        raise AdapterParseError(
            adapter_name="OutlinesAdapter",
            signature=signature,
            lm_response=text,
            message="The constrained output nests deeper than the JSON decoder allows; it is not repaired.",
        ) from exc
    except json.JSONDecodeError as exc:
        error = TruncatedOutputError if _ends_early(text, exc.pos) else AdapterParseError
        fix = advice or "raise max_tokens"
        what = (
            f"ends before the value is complete (cut at max_tokens?); it is not repaired: {fix}"
            if error is TruncatedOutputError
            else f"is not valid JSON ({exc.msg} at character {exc.pos}); it is not repaired"
        )
        raise error(
            adapter_name="OutlinesAdapter",
            signature=signature,
            lm_response=text,
            message=f"The constrained output {what}.",
        ) from exc


_LENIENT_JSON = json.JSONDecoder(strict=False)  # like json.loads(..., strict=False): raw newlines in strings


def _ends_early(text: str, pos: int) -> bool:
    """Whether JSON that failed to decode at ``pos`` is cut short: the error is at the end of the text,
    or at a string that never closes."""
    if pos >= len(text.rstrip()):
        return True
    if text[pos] != '"':
        return False
    try:
        _LENIENT_JSON.raw_decode(text, pos)  # the string that starts at pos, alone
    except json.JSONDecodeError:
        return True
    return False


def _load_json_object(signature: type[Signature], text: str, advice: str | None = None) -> dict[str, Any]:
    loaded = _strict_json(signature, text, advice)
    if not isinstance(loaded, dict):
        raise AdapterParseError(
            adapter_name="OutlinesAdapter",
            signature=signature,
            lm_response=text,
            message=f"The constrained output is not a JSON object (got {type(loaded).__name__}).",
        )
    return loaded
