"""Which LM a sub-call uses: ``llm_query(prompt, model="fast")`` by name, else per depth, else ``sub_lm``.

``RLM(sub_lms={"fast": lm1, "strong": lm2}, sub_lm_by_depth=["strong", "fast"])``: a call that names a model
uses it; one that names none uses ``sub_lm_by_depth[d]`` for a call made at depth ``d`` (the root is 0; past
the end of the list, its last entry; an entry is a name of ``sub_lms`` or an LM), else ``sub_lm``, else the
configured LM. Sub-RLMs inherit the routing, and their own steps run on the LM of the depth that spawned
them. Each sub-call's trace node names its model, and ``trace.totals()["by_model"]`` adds up calls, tokens
and cost per model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def check(sub_lms: Any, by_depth: Any) -> None:
    """Raise with the fix for a routing that cannot work (before any run)."""
    if sub_lms is not None:
        if not isinstance(sub_lms, Mapping) or not sub_lms:
            raise TypeError(
                "sub_lms must be a non-empty dict {name: LM}, e.g. sub_lms={'fast': dspy.LM('...'), "
                f"'strong': dspy.LM('...')}}; got {type(sub_lms).__name__}"
            )
        for name, lm in sub_lms.items():
            if not isinstance(name, str) or not name.isidentifier() or not callable(lm):
                raise TypeError(f"sub_lms maps identifier names to LMs; got {name!r}: {type(lm).__name__}")
    if by_depth is None:
        return
    if isinstance(by_depth, (str, bytes)) or not isinstance(by_depth, Sequence) or not by_depth:
        raise TypeError("sub_lm_by_depth must be a non-empty list of sub_lms names or LMs, one per depth")
    for entry in by_depth:
        if isinstance(entry, str):
            if entry not in (sub_lms or {}):
                raise ValueError(f"sub_lm_by_depth names {entry!r}, which is not in sub_lms: {names(sub_lms)}")
        elif not callable(entry):
            raise TypeError(f"sub_lm_by_depth entries are sub_lms names or LMs; got {type(entry).__name__}")


def names(sub_lms: Mapping[str, Any] | None) -> list[str]:
    return sorted(sub_lms or {})


def pick(
    sub_lms: Mapping[str, Any] | None, by_depth: Sequence[Any] | None, default: Any, depth: int, model: str | None
) -> tuple[Any, str | None]:
    """``(lm, label)`` for a sub-call made at ``depth``; ``lm`` None means the configured LM.

    Raises:
        ValueError: ``model`` names no entry of ``sub_lms`` (the message lists them, for the model to read).
    """
    if model is not None:
        if not isinstance(model, str) or model not in (sub_lms or {}):
            known = names(sub_lms)
            raise ValueError(
                f"no sub-LM named {model!r}; "
                + (f"the names are {known}" if known else "this run has no sub_lms: call without model=")
            )
        return sub_lms[model], model  # type: ignore[index]
    if by_depth:
        entry = by_depth[min(depth, len(by_depth) - 1)]
        if isinstance(entry, str):
            return sub_lms[entry], entry  # type: ignore[index]
        return entry, label(entry)
    return default, label(default) if default is not None else None


def label(lm: Any) -> str:
    """How the trace names an LM: its model string, else its class."""
    return str(getattr(lm, "model", None) or getattr(lm, "model_name", None) or type(lm).__name__)


def prompt_docs(sub_lms: Mapping[str, Any] | None) -> str:
    """The action prompt's line on the named sub-LMs ("" when there are none)."""
    if not sub_lms:
        return ""
    return (
        f"\nSub-LMs by name: `llm_query(prompt, model=NAME)` and `llm_query_batched(prompts, model=NAME)` with "
        f"NAME one of {', '.join(repr(n) for n in names(sub_lms))} (without model=, the default sub-LM)."
    )
