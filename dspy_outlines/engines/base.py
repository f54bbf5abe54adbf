"""The engine protocol: a generation request, its completion, and what an engine provides.

Kept apart from :mod:`dspy_outlines.engines` (which picks and loads engines) so that engine modules import
these types without importing the module that imports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypeAlias, runtime_checkable

from dspy import lm15

if TYPE_CHECKING:
    from outlines.models.base import Model as OutlinesModel

__all__ = ["Completion", "Engine", "EngineState", "GenerationRequest", "JSONValue", "OutputType", "PromptTooLong"]


class PromptTooLong(lm15.ContextLengthError, ValueError):
    """The prompt has more tokens than the engine's context (``n_ctx``) holds.

    DSPy's engine contract error for it (``dspy.lm15.ContextLengthError``, which ``dspy.LM`` turns into
    ``dspy.ContextWindowExceededError``), and a ``ValueError`` as it was before.
    """

    def __init__(self, message: str, *, tokens: int, window: int):
        super().__init__(message)
        self.tokens, self.window = tokens, window


#: What Outlines accepts as an output type: a Python type (``int``, a pydantic model, an ``Enum``), a typing
#: form (``Literal["a", "b"]``, which the type system sees as a plain object), an Outlines term (``Regex``,
#: ``CFG``, ``JsonSchema``). Checked where it is used (:func:`dspy_outlines.constraints.constraint_key` raises
#: ``TypeError`` for anything else), so the static type can say no more than ``object``.
OutputType: TypeAlias = object

#: A JSON-serializable value (what ``dump_state`` returns, for ``OutlinesLM.dump_state``).
JSONValue: TypeAlias = "str | int | float | bool | list[JSONValue] | dict[str, JSONValue] | None"

#: The options needed to rebuild an engine.
EngineState: TypeAlias = "dict[str, JSONValue]"


@dataclass(frozen=True)
class GenerationRequest:
    """What to generate for one prompt.

    Attributes:
        max_tokens: Completion budget.
        temperature: Sampling temperature (0.0 is greedy).
        top_p: Nucleus sampling mass (``None`` or 0: off).
        stop: Strings that end generation (not included in the text).
        constraint: An Outlines output type (``Literal``, pydantic model, ``Regex``, ``CFG``...), the
            :class:`~dspy_outlines.constraints.ConstraintKey` a request carried (taken as it is), or ``None``.
        seed: Sampling seed.
        deadline: A ``time.monotonic()`` instant; generation stops there with ``finish_reason="deadline"``.
    """

    max_tokens: int
    temperature: float = 0.0
    top_p: float | None = None
    stop: tuple[str, ...] = ()
    constraint: OutputType | None = None
    seed: int | None = None
    deadline: float | None = None


@dataclass(frozen=True)
class Completion:
    """One generated completion.

    Attributes:
        text: The generated text.
        completion_tokens: Tokens generated.
        finish_reason: ``"stop"`` (end of sequence, stop string, or a complete constrained value),
            ``"length"`` (``max_tokens`` reached) or ``"deadline"`` (the request's deadline passed).
        prompt_tokens: Tokens in the prompt.
        cached_tokens: Prompt tokens served from the engine's prefix cache (not computed again).
        timings: Seconds spent in ``prefill`` and ``decode`` (and ``restore``: loading a saved prefix state).
        forced_tokens: Of ``completion_tokens``, those the constraint forced and the engine took without
            sampling (jump-forward); the rest were sampled.
    """

    text: str
    completion_tokens: int
    finish_reason: str
    prompt_tokens: int
    cached_tokens: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    forced_tokens: int = 0


@runtime_checkable
class Engine(Protocol):
    """What ``OutlinesLM`` needs of an engine."""

    name: str
    """``"mlx"`` or ``"llamacpp"``."""

    model_name: str
    """A readable model name (reported as ``response.model``)."""

    outlines_model: OutlinesModel
    """The Outlines model (``lm.model``): ``lm.model(prompt, output_type)`` works directly."""

    def render_prompt(self, messages: list[dict[str, str]]) -> str:
        """Messages (string contents) rendered with the model's chat template, ending at the assistant turn."""
        ...

    def encode(self, text: str) -> list[int]:
        """Token ids of an already templated prompt (no special tokens added)."""
        ...

    def generate(self, prompt_ids: list[int], request: GenerationRequest) -> Completion:
        """One completion. Thread-safe: concurrent callers are serialized by the engine."""
        ...

    def stats(self) -> dict[str, float]:
        """Counters (prefix-cache hits, cached tokens, seconds, ...), for benchmarks and metrics."""
        ...

    def dump_state(self) -> EngineState:
        """The options needed to rebuild the engine (``OutlinesLM.dump_state``)."""
        ...
