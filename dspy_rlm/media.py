"""Media for sub-LM calls: ``llm_query(prompt, media=[image, ...])`` with ``dspy.Image`` / ``dspy.Audio`` values.

Such inputs are plain objects in the REPL (their summary is their short repr, never the encoded bytes); the
model passes them to a sub-LM with ``llm_query(prompt, media=[...])`` (``llm_query_with_media(prompt, *media)``
too). The call becomes one chat message whose content is the prompt's text followed by each item's content
parts (``item.format()``, as DSPy's adapters send them). An LM that takes text only is refused with a clear
error before any call: an LM object that says ``supports_vision`` / ``supports_media``, else LiteLLM's model
info for ``dspy.LM`` models.
"""

from __future__ import annotations

import functools
from typing import Any


def parts(media: Any) -> list[dict[str, Any]]:
    """The content parts of ``media`` (a list of dspy media values).

    Raises:
        TypeError: an item that is no DSPy media type (says what is accepted).
    """
    items = media if isinstance(media, (list, tuple)) else [media]
    out: list[dict[str, Any]] = []
    for item in items:
        formatted = getattr(item, "format", None)
        content = formatted() if callable(formatted) and _is_media(item) else None
        if not isinstance(content, list):
            raise TypeError(
                f"media items must be dspy.Image or dspy.Audio values (e.g. an input of type dspy.Image), "
                f"not {type(item).__name__}"
            )
        out.extend(content)
    return out


def _is_media(item: Any) -> bool:
    import dspy

    kinds = tuple(t for t in (getattr(dspy, "Image", None), getattr(dspy, "Audio", None)) if t is not None)
    return isinstance(item, kinds)


def messages(prompt: str, media: Any) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"type": "text", "text": prompt}, *parts(media)]}]


def check_lm(lm: Any) -> None:
    """Refuse an LM that takes text only (before any call), naming the fix."""
    if not takes_media(lm):
        name = getattr(lm, "model", None) or type(lm).__name__
        raise ValueError(
            f"the sub-LM {name!r} takes text only, so media cannot be sent to it; route media calls to a vision "
            "model: RLM(..., sub_lms={'vision': dspy.LM('openai/gpt-4o-mini')}) and llm_query(prompt, "
            "model='vision', media=[...])"
        )


def takes_media(lm: Any) -> bool:
    for attr in ("supports_media", "supports_vision"):
        value = getattr(type(lm), attr, None)
        if isinstance(value, bool):
            return value
        value = getattr(lm, attr, None)
        if isinstance(value, bool):
            return value
    model = getattr(lm, "model", None)
    return isinstance(model, str) and _litellm_vision(model)


@functools.lru_cache(maxsize=64)
def _litellm_vision(model: str) -> bool:
    try:
        import litellm

        return bool(litellm.supports_vision(model=model))
    except Exception:  # noqa: BLE001 - an unknown model: text only
        return False
