"""The run configuration: every setting of an RLM run, typed and frozen, built once by ``RLM.__init__``.

The run (:class:`~dspy_rlm.loop.Run`, the bridges, sub-RLMs) reads a :class:`RunConfig`, never the
``RLM`` module. A sub-RLM's configuration is :meth:`RunConfig.for_child`: the parent's with the child's
signature and iteration cap, so a new setting is declared once (a field here) and children inherit it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Union

from dspy_rlm import routing
from dspy_rlm.budget import Limits
from dspy_rlm.context import SizeConfig
from dspy_rlm.defaults import MAX_OUTPUT_CHARS, REPL_MEMORY_MB, REPL_TIMEOUT_S

if TYPE_CHECKING:
    import dspy
    from dspy.adapters.types.tool import Tool
    from dspy.primitives.code_interpreter import CodeInterpreter

    from dspy_rlm.profiles import Profile
    from dspy_rlm.repl.base import REPL

#: What can run the model's code: one of our REPLs, or anything with DSPy's CodeInterpreter shape.
REPLLike = Union["REPL", "CodeInterpreter"]


@dataclass(frozen=True)
class ChildPolicy:
    """How ``rlm_query`` / ``batch_rlm_query`` children are run (see :mod:`dspy_rlm.budget`)."""

    sub_max_iters: int = 5
    child_share: float = 0.5
    max_concurrency: int = 8
    downgrade_threshold: int = 3

    def iters(self, parent_max_iters: int | None) -> int:
        """A child's iteration limit, the one number its prompt and its budget both use: ``sub_max_iters``,
        never more than its parent's own limit."""
        return self.sub_max_iters if parent_max_iters is None else min(self.sub_max_iters, parent_max_iters)

    def __post_init__(self) -> None:
        if not 0 < self.child_share <= 1:
            raise ValueError(f"child_share must be a number in (0, 1]; got {self.child_share!r}")
        for name in ("sub_max_iters", "max_concurrency", "downgrade_threshold"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1; got {value!r}")


@dataclass(frozen=True)
class REPLSettings:
    """Where code runs and what the model sees of it.

    ``backend`` is a registered name (:func:`dspy_rlm.repl.backends.backend_names`), ``factory`` a zero-argument
    callable and ``interpreter`` an instance the caller owns; at most one is set (None: our SubprocessREPL, or
    ``dspy.settings.interpreter_factory``).
    """

    timeout_s: float | None = field(default=REPL_TIMEOUT_S, metadata={"arg": "repl_timeout"})
    memory_mb: int | None = field(default=REPL_MEMORY_MB, metadata={"arg": "repl_memory_mb"})
    max_output_chars: int = MAX_OUTPUT_CHARS
    backend: str | None = field(default=None, metadata={"arg": "repl"})
    factory: Callable[[], REPLLike] | None = field(default=None, metadata={"arg": "interpreter_factory"})
    interpreter: REPLLike | None = None
    size_config: SizeConfig = field(default_factory=SizeConfig)
    auto_chunk: bool = False


class AdapterSlots:
    """Adapters a run creates on first use and keeps for later runs (and for reading their metrics):
    ``extract`` for ``extract_adapter="auto"``, ``action`` for the small profile's Tier 3 action step."""

    def __init__(self) -> None:
        self.extract: dspy.Adapter | None = None
        self.action: dspy.Adapter | None = None


@dataclass(frozen=True, eq=False)
class RunConfig:
    """Everything a run needs besides its inputs, predictors and budget. Build with ``RLM(...)``; read
    ``rlm.config``; derive with :func:`dataclasses.replace` or :meth:`for_child`."""

    signature: type[dspy.Signature] = field(metadata={"arg": None})
    limits: Limits = field(default_factory=Limits)
    child: ChildPolicy = field(default_factory=ChildPolicy)
    repl: REPLSettings = field(default_factory=REPLSettings)
    tools: tuple[Tool, ...] = field(default=(), metadata={"arg": None})
    sub_lm: dspy.LM | None = None
    sub_lms: Mapping[str, Any] | None = None  # named sub-LMs for llm_query(prompt, model=name): routing.py
    sub_lm_by_depth: Sequence[Any] | None = None  # the sub-LM of a call made at depth d: routing.py
    sub_agents: bool | None = None  # dspy's sandbox facade in the REPL (None: as the profile says): facade.py
    action_adapter: dspy.Adapter | None = None
    extract_adapter: dspy.Adapter | Literal["auto"] | None = "auto"
    recovery: bool = True
    max_fix_attempts: int = 3
    end_on_failed_fixes: bool = False
    policy: str | Profile | Any = "auto"  # or a profiles.base.StepPolicy object (not imported: no import circle)
    task_field: str | None = None
    grounded_submit: bool | None = None
    verbose: bool = False
    checkpoint: str | os.PathLike | None = None
    history_processor: Callable[[Any], Any] | None = None  # REPLHistory -> REPLHistory shown: compaction.py
    context_window: int | None = None  # the LM's window in tokens (None: read from the LM): compaction.py
    compact_at: float = 0.85  # the share of the window past which old steps are summarised
    depth: int = field(default=0, metadata={"arg": None})
    slots: AdapterSlots = field(default_factory=AdapterSlots, repr=False, metadata={"arg": None})

    def __post_init__(self) -> None:
        if self.task_field is not None and self.task_field not in self.signature.input_fields:
            raise ValueError(
                f"task_field={self.task_field!r} is not an input of the signature; "
                f"inputs: {list(self.signature.input_fields)}"
            )
        if not isinstance(self.max_fix_attempts, int) or self.max_fix_attempts < 1:
            raise ValueError(f"max_fix_attempts must be an integer >= 1; got {self.max_fix_attempts!r}")
        if not isinstance(self.repl.max_output_chars, int) or self.repl.max_output_chars < 1:
            raise ValueError(f"max_output_chars must be an integer >= 1; got {self.repl.max_output_chars!r}")
        routing.check(self.sub_lms, self.sub_lm_by_depth)
        if self.history_processor is not None and not callable(self.history_processor):
            raise TypeError(
                f"history_processor must be a callable taking a REPLHistory and returning one; got "
                f"{type(self.history_processor).__name__}"
            )
        window = self.context_window
        if window is not None and (isinstance(window, bool) or not isinstance(window, int) or window < 256):
            raise ValueError(f"context_window must be an integer >= 256 (tokens), or None to read it; got {window!r}")
        if (
            isinstance(self.compact_at, bool)
            or not isinstance(self.compact_at, (int, float))
            or not 0 < self.compact_at <= 1
        ):
            raise ValueError(
                f"compact_at must be a share of the context window in (0, 1], e.g. 0.85; got {self.compact_at!r}"
            )

    def lm_for(self, depth: int, model: str | None = None) -> tuple[Any, str | None]:
        """``(lm, label)`` of a sub-call made at ``depth`` (``lm`` None: the configured LM); see routing.py."""
        return routing.pick(self.sub_lms, self.sub_lm_by_depth, self.sub_lm, depth, model)

    @property
    def tool_map(self) -> dict[str, Tool]:
        """The user's tools by name (built-ins such as ``llm_query`` excluded)."""
        return {tool.name: tool for tool in self.tools}

    @property
    def output_names(self) -> list[str]:
        return list(self.signature.output_fields)

    def for_child(self, depth: int, with_context: bool) -> RunConfig:
        """The configuration of a sub-RLM at ``depth``: signature ``[context,] task -> answer``, at most
        ``sub_max_iters`` iterations, the same backend kind (never the caller's interpreter instance), no
        checkpoint of its own (the root's journal covers its sub-LM calls). Adapter slots are shared."""
        from dspy.signatures.signature import ensure_signature

        sig = ensure_signature("context, task -> answer" if with_context else "task -> answer")
        return dataclasses.replace(
            self,
            signature=sig,
            task_field="task",
            limits=dataclasses.replace(self.limits, max_iters=self.child.iters(self.limits.max_iters)),
            repl=dataclasses.replace(self.repl, interpreter=None),
            checkpoint=None,
            depth=depth,
        )


#: The nested groups of :class:`RunConfig`: their fields are settings too.
_GROUPS: dict[str, type] = {"limits": Limits, "child": ChildPolicy, "repl": REPLSettings}


def _settings_of(cls: type, prefix: tuple[str, ...] = ()) -> dict[str, tuple[tuple[str, ...], Any]]:
    out: dict[str, tuple[tuple[str, ...], Any]] = {}
    for f in dataclasses.fields(cls):
        path = (*prefix, f.name)
        if not prefix and f.name in _GROUPS:
            out.update(_settings_of(_GROUPS[f.name], path))
            continue
        arg = f.metadata.get("arg", f.name)
        if arg is not None:
            default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
            out[arg] = (path, default)
    return out


#: Every setting of ``RLM(...)``: its argument name -> (the field path in :class:`RunConfig`, its default).
#: Derived from the fields above (``metadata={"arg": ...}`` names an argument that differs from its field), so
#: a setting is declared once: its field, with its type, default and (in ``__post_init__``) validation.
SETTINGS: dict[str, tuple[tuple[str, ...], Any]] = _settings_of(RunConfig)


def build_config(signature: type[dspy.Signature], tools: tuple[Tool, ...], settings: dict[str, Any]) -> RunConfig:
    """The :class:`RunConfig` for ``RLM(signature, tools=..., **settings)``; validated by the fields' classes.

    Raises:
        TypeError: An argument that is no setting (naming the closest ones).
    """
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        import difflib

        near = difflib.get_close_matches(unknown[0], SETTINGS, n=3)
        hint = f"; did you mean {', '.join(near)}?" if near else f"; settings: {sorted(SETTINGS)}"
        raise TypeError(f"RLM() got an unexpected keyword argument {unknown[0]!r}{hint}")
    groups: dict[str, dict[str, Any]] = {name: {} for name in _GROUPS}
    top: dict[str, Any] = {"signature": signature, "tools": tools}
    for arg, value in settings.items():
        path = SETTINGS[arg][0]
        (groups[path[0]] if len(path) == 2 else top)[path[-1]] = value
    return RunConfig(**top, **{name: _GROUPS[name](**values) for name, values in groups.items()})


def replace_path(config: Any, path: tuple[str, ...], value: Any) -> Any:
    """``config`` with the field at ``path`` (e.g. ``("limits", "max_iters")``) set to ``value``, validated."""
    if len(path) == 1:
        return dataclasses.replace(config, **{path[0]: value})
    inner = getattr(config, path[0])
    return dataclasses.replace(config, **{path[0]: replace_path(inner, path[1:], value)})
