"""The tiers of :class:`~dspy_outlines.OutlinesAdapter` by name: one protocol, an open registry.

A tier is a way to get a signature's outputs out of an LM: ``"tier1"`` (DSPy's ChatAdapter pipeline), ``"tier2"``
(JSON prompting, parsed with json-repair, no ``response_format``), ``"tier3"`` (constrained generation,
:mod:`dspy_outlines.tier3`). :func:`register_tier` adds more; ``OutlinesAdapter(tiers=(...))`` names them, and
tries them in registration order. A tier is made per call by its :data:`TierFactory` and called as DSPy calls an
adapter, ``call(lm, lm_kwargs, signature, demos, inputs)``; on the async path the call returns an awaitable.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, runtime_checkable

from dspy.adapters.base import Adapter
from dspy.adapters.chat_adapter import ChatAdapter
from dspy.adapters.json_adapter import JSONAdapter
from dspy.clients.base_lm import BaseLM
from dspy.signatures.signature import Signature
from dspy.utils.exceptions import AdapterParseError

from dspy_outlines import truncation

__all__ = ["MAX_NESTING", "JSONTier", "Tier", "TierCall", "checked_parse", "get_tier", "register_tier", "tier_names"]

Outputs = list[dict[str, Any]]


@runtime_checkable
class TierCall(Protocol):
    """One tier's adapter pipeline for one call: DSPy's adapter signature."""

    def __call__(
        self,
        lm: BaseLM,
        lm_kwargs: dict[str, Any],
        signature: type[Signature],
        demos: list[Any],
        inputs: dict[str, Any],
    ) -> Outputs | Awaitable[Outputs]: ...


#: ``factory(adapter, lm, is_async) -> TierCall``: the tier's pipeline for one call of ``adapter`` on ``lm``.
#: (the adapter is an ``OutlinesAdapter``, typed as the ChatAdapter it is, so this module never imports adapter.py)
TierFactory = Callable[[ChatAdapter, BaseLM, bool], TierCall]


@dataclass(frozen=True)
class Tier:
    """A registered tier.

    Attributes:
        name: Its name in ``OutlinesAdapter(tiers=...)`` and in the metrics.
        factory: Makes its pipeline for one call.
        constrained: It needs an LM that takes a constraint (an Outlines LM or structured outputs); it is left
            out for signatures with ``dspy.ToolCalls`` outputs.
    """

    name: str
    factory: TierFactory
    constrained: bool = False


_TIERS: dict[str, Tier] = {}


def register_tier(name: str, factory: TierFactory, *, constrained: bool = False) -> None:
    """Make ``OutlinesAdapter(tiers=(..., name))`` try ``factory``'s pipeline (after the tiers registered before).

    Raises:
        ValueError: ``name`` is empty or not a string.
        TypeError: ``factory`` is not callable.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"a tier name must be a non-empty string, got {name!r}")
    if not callable(factory):
        raise TypeError(f"a tier factory must be callable (adapter, lm, is_async) -> call, got {factory!r}")
    _TIERS[name] = Tier(name, factory, constrained)


def tier_names() -> tuple[str, ...]:
    """The registered tiers, in the order the adapter tries them."""
    return tuple(_TIERS)


def get_tier(name: str) -> Tier:
    """The tier registered as ``name``.

    Raises:
        ValueError: No tier is registered as ``name`` (the message lists those that are).
    """
    tier = _TIERS.get(name)
    if tier is None:
        raise ValueError(f"unknown tier {name!r}; known: {list(_TIERS)} (or register_tier())")
    return tier


#: A tier-1/2 completion whose brackets nest deeper than this is a parse error (one linear scan), before DSPy's
#: parsers and json-repair recurse into it (found by fuzzing: '[' * 100_000 escaped as RecursionError, and
#: 100,000 braces took 90 s in json-repair and a recursive regex).
MAX_NESTING = 512


def _nesting(text: str) -> int:
    depth = deepest = 0
    for char in text:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(depth - 1, 0)
    return deepest


def checked_parse(parse: Any, signature: type[Signature], completion: str) -> dict[str, Any]:
    """``parse(signature, completion)`` where anything but a result is an :class:`AdapterParseError`, so the
    next tier is tried (a ValueError / RecursionError out of DSPy's parsers or json-repair is not a bug)."""
    if _nesting(completion) > MAX_NESTING:
        raise AdapterParseError(
            adapter_name="OutlinesAdapter",
            signature=signature,
            lm_response=completion,
            message=f"The completion nests brackets deeper than {MAX_NESTING}; it is not parsed.",
        )
    try:
        return parse(signature, completion)
    except AdapterParseError:
        raise
    except (ValueError, RecursionError) as exc:
        raise AdapterParseError(
            adapter_name="OutlinesAdapter",
            signature=signature,
            lm_response=completion,
            message=f"The completion could not be parsed ({type(exc).__name__}: {exc}).",
        ) from exc


# -- the three built-in tiers --------------------------------------------------------------------------------


class JSONTier(JSONAdapter):
    """Tier 2: JSONAdapter's prompt and json-repair parsing; called without ``response_format``."""

    def parse(self, signature, completion):
        return checked_parse(super().parse, signature, completion)

    def _call_postprocess(self, processed_signature, original_signature, outputs, lm, lm_kwargs):
        truncation.note(lm, outputs)  # counted in the tier's metrics, parsed or not
        return super()._call_postprocess(processed_signature, original_signature, outputs, lm, lm_kwargs)


def _options(adapter: ChatAdapter) -> dict[str, Any]:
    return {
        "callbacks": adapter.callbacks,
        "use_native_function_calling": adapter.use_native_function_calling,
        "parallel_tool_calls": adapter.parallel_tool_calls,
    }


def _tier1(adapter: ChatAdapter, lm: BaseLM, is_async: bool) -> TierCall:
    """ChatAdapter's own pipeline, run on the adapter (its parse; DSPy's JSON fallback switched off)."""
    return partial(ChatAdapter.acall if is_async else ChatAdapter.__call__, adapter)


def _tier2(adapter: ChatAdapter, lm: BaseLM, is_async: bool) -> TierCall:
    return partial(Adapter.acall if is_async else Adapter.__call__, JSONTier(**_options(adapter)))


def _tier3(adapter: ChatAdapter, lm: BaseLM, is_async: bool) -> TierCall:
    from dspy_outlines.tier3 import ConstrainedTier, constraint_mode

    constrained = ConstrainedTier(constraint_mode(lm), **_options(adapter))
    if constrained.mode == "request":  # DSPy 3.5's contract: a Request in, a Response out
        return constrained.acall_request if is_async else constrained.call_request
    # Adapter's base pipeline: JSONAdapter.__call__ would add response_format (a constraint).
    return partial(Adapter.acall if is_async else Adapter.__call__, constrained)


register_tier("tier1", _tier1)
register_tier("tier2", _tier2)
register_tier("tier3", _tier3, constrained=True)
