"""The ``RLM`` module: a drop-in for ``dspy.RLM`` (dspy 3.4.1) whose runs always end typed.

The iteration loop itself lives in :mod:`dspy_rlm.loop`; this file holds the public API: constructor
arguments of every dspy generation (3.1-3.2 ``max_iterations=`` / ``interpreter=``, 3.3's interpreter as
first positional argument, 3.4's ``interpreter_factory=``), validation, the ``generate_action`` and
``extract`` predictors, and where a run's REPL comes from.
"""

from __future__ import annotations

import functools
import keyword
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import dspy
from dspy.adapters.types.tool import Tool
from dspy.signatures.signature import ensure_signature

from dspy_rlm import facade
from dspy_rlm.budget import Budget, Limits
from dspy_rlm.calls import run_sync
from dspy_rlm.config import SETTINGS, build_config, replace_path
from dspy_rlm.loop import Run
from dspy_rlm.names import RUNTIME_ARGS, is_protocol_name, protocol_names, result_names
from dspy_rlm.profiles import Profile
from dspy_rlm.profiles.base import StepPolicy
from dspy_rlm.profiles.resolve import check_policy
from dspy_rlm.repl import backends
from dspy_rlm.session import Session, conversation, refused
from dspy_rlm.signatures import Predictors, build_signatures

__all__ = ["RLM", "run_sync"]

logger = logging.getLogger(__name__)


def _with_outputs(signature: type[dspy.Signature]) -> type[dspy.Signature]:
    if not signature.output_fields:
        inputs = ", ".join(signature.input_fields) or "context, query"
        raise ValueError(
            f"The signature has no output fields, so a run could never submit. Name what it should produce, "
            f'e.g. RLM("{inputs} -> answer")'
        )
    return signature


_DEFAULTS = {name: default for name, (_, default) in SETTINGS.items()}


class _setting:
    """A public RLM attribute that reads a field of ``rlm.config`` and, when set, replaces the config."""

    def __init__(self, *path: str):
        self.path = path

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        return self if obj is None else functools.reduce(getattr, self.path, obj.config)

    def __set__(self, obj: Any, value: Any) -> None:
        obj.config = replace_path(obj.config, self.path, value)


class RLM(dspy.Module):
    """Recursive Language Model: the model explores its inputs with code in a sandboxed REPL.

    Args:
        signature: ``"context, query -> answer"`` or a Signature class (at least one output).

    Every setting below is a field of :class:`~dspy_rlm.config.RunConfig` (``config.SETTINGS`` maps the
    arguments to them, with their defaults) and an attribute of the module.
        max_iters: Maximum REPL iterations (``max_iterations`` is accepted as the dspy 3.1-3.2 name).
        max_llm_calls: Maximum sub-LM calls (``llm_query`` & co.) per run, sub-RLM steps included; as in
            dspy.RLM the call over it fails inside the REPL and the run goes on.
        max_output_chars: Characters of REPL output shown to the model per iteration.
        verbose: Log each iteration and its REPL output at INFO level (what dspy.RLM logs).
        tools: A list of functions or ``dspy.Tool`` objects callable from the REPL.
        sub_lm: LM for ``llm_query`` and sub-RLMs (defaults to the configured LM).
        sub_lms: Named sub-LMs, ``{"fast": lm1, "strong": lm2}``: the model calls
            ``llm_query(prompt, model="fast")``; calls, tokens and cost per model are in
            ``pred.trace.totals()["by_model"]`` (see :mod:`dspy_rlm.routing`).
        sub_lm_by_depth: The sub-LM of a call made at each depth, e.g. ``["strong", "fast"]`` (names of
            ``sub_lms`` or LMs; the last one holds for deeper calls). Sub-RLMs inherit the routing.
        sub_agents: dspy's sandbox facade: the model's code may ``import dspy`` and build ``dspy.Predict``,
            ``ChainOfThought``, ``ReActV2`` or ``RLM`` sub-agents that run on the host on the sub-LM, charged
            to the budget and traced (see :mod:`dspy_rlm.facade`). ``None``: as the profile says (on in
            ``default``, off in ``small``).
        interpreter_factory: Zero-argument callable returning a REPL backend (our ``SubprocessREPL`` when
            unset, or ``dspy.settings.interpreter_factory``). Anything with DSPy's CodeInterpreter shape works.
        interpreter: A REPL instance owned by the caller (dspy 3.1-3.2); never shut down by us.
        max_time: Wall-time limit in seconds for a run (fallback extraction when reached).
        max_tokens: Limit on prompt + completion tokens of every LM call in the run.
        max_cost: USD limit, from the LMs' reported usage.
        max_depth: Maximum recursion depth of ``rlm_query`` (the root is depth 0).
        sub_max_iters: Iteration cap of each sub-RLM.
        child_share: Share of the remaining budget a sub-RLM (or a batch of them) gets.
        max_concurrency: Parallel sub-calls in ``llm_query_batched`` / ``batch_rlm_query``.
        downgrade_threshold: Below this many sub-LM calls left, ``rlm_query`` becomes ``llm_query``.
        size_config: Per-variable and total size thresholds for warnings.
        auto_chunk: Split inputs over the chunk threshold into lists of chunks on natural boundaries (text on
            paragraphs / lines, a dict of files into groups of whole files, a list into sub-lists).
        repl_timeout: Wall-time limit per code block (seconds).
        repl_memory_mb: Extra memory the sandbox worker may map.
        extract_adapter: Adapter for the ``extract`` step: ``"auto"`` (dspy_outlines' tiered adapter when
            installed), ``None`` (the configured adapter) or an adapter instance.
        action_adapter: Adapter for the action step (``None`` = the configured adapter).
        recovery: Give the model targeted fix steps for failing code (``False``: dspy.RLM's bare error text).
        max_fix_attempts: Fix attempts per failing step; then the step is given up and the model is told to
            change its approach (the run goes on, as dspy.RLM's does).
        end_on_failed_fixes: End the run through fallback extraction when a step's fix attempts run out
            (off by default: errors never end a run before ``max_iters``).
        profile: ``"auto"`` (default: ``"small"`` when the LM says it is local or small, like ``OutlinesLM``),
            ``"small"`` (compact prompt, constrained code, shipped demos, grounded SUBMIT, line-style search
            output; see :mod:`dspy_rlm.profiles`) or ``"default"`` (the behaviour for API models).
        grounded_submit: Give a submitted value that appears in no output, input or variable one verification
            step before accepting it (a second identical SUBMIT is accepted). ``None``: as the profile says
            (on in ``small``, off in ``default``).
        policy: The step policy (:mod:`dspy_rlm.profiles.base`): a profile name or
            :class:`~dspy_rlm.profiles.Profile` as for ``profile`` (its earlier name), or your own
            ``StepPolicy`` object. Sub-RLMs run under the same policy.
        task_field: The input that states the task (the question). Default: an input named like one
            (``query``, ``question``, ``task`` ...), else the shortest text input.
        checkpoint: A file path: after every iteration the run's history, budget, trace and picklable REPL
            variables are written there atomically, and a run started again with the same path (same program
            and inputs) resumes without repeating LM calls already answered (see :mod:`dspy_rlm.checkpoint`).
            Also accepted per call: ``rlm(..., checkpoint=path)``.
        history_processor: ``fn(REPLHistory) -> REPLHistory``, applied to the history each action prompt
            shows (the run keeps the whole history); one that raises or returns something else is skipped with
            a trace warning (see :mod:`dspy_rlm.compaction`).
        context_window: The LM's context window in tokens (None: a local model's ``n_ctx``, else LiteLLM's).
        compact_at: Past this share of the window (0.85), old steps are summarised in the prompt.

    ``rlm.session(...)`` runs several calls in one REPL (:mod:`dspy_rlm.session`).
    """

    def __init__(
        self,
        signature: type[dspy.Signature] | str,
        max_iters: int | None = _DEFAULTS["max_iters"],
        max_llm_calls: int | None = _DEFAULTS["max_llm_calls"],
        max_output_chars: int = _DEFAULTS["max_output_chars"],
        verbose: bool = _DEFAULTS["verbose"],
        tools: list[Callable] | None = None,
        sub_lm: dspy.LM | None = _DEFAULTS["sub_lm"],
        interpreter_factory: Callable[[], Any] | None = _DEFAULTS["interpreter_factory"],
        *,
        max_iterations: int | None = None,
        profile: str | Profile | StepPolicy | None = None,
        **settings: Any,
    ):
        super().__init__()
        if max_iterations is not None:
            if max_iters not in (_DEFAULTS["max_iters"], max_iterations):
                raise ValueError(
                    f"Got max_iters={max_iters} and max_iterations={max_iterations}; pass one "
                    "(max_iterations is the dspy 3.1-3.2 name of max_iters)"
                )
            max_iters = max_iterations
        settings.update(max_iters=max_iters, max_llm_calls=max_llm_calls, max_output_chars=max_output_chars)
        settings.update(verbose=verbose, sub_lm=sub_lm, interpreter_factory=interpreter_factory)
        if profile is not None:  # the earlier name of policy
            if settings.get("policy") not in (None, profile):
                raise ValueError("Pass one of policy= and profile= (profile= is the earlier name of policy=), not both")
            settings["policy"] = profile
        for name in ("policy", "size_config"):  # None: the default
            if settings.get(name, _DEFAULTS[name]) is None:
                del settings[name]
        self._check_repl_source(settings)
        tool_map = self._normalize_tools(tools)
        self.config = build_config(_with_outputs(ensure_signature(signature)), tuple(tool_map.values()), settings)
        check_policy(self.config.policy)  # an unknown profile name or a policy of the wrong shape
        self._validate_namespace(tool_map)
        self._execution_instructions = backends.execution_instructions(backends.default_source(self.config.repl))
        action_sig, extract_sig = build_signatures(self.config, self._execution_instructions)
        self.generate_action = dspy.Predict(action_sig)
        self._default_action_instructions = action_sig.instructions
        self.extract = dspy.Predict(extract_sig)

    if TYPE_CHECKING:  # the settings are attributes (see the end of this module)

        def __getattr__(self, name: str) -> Any: ...

    @staticmethod
    def _check_repl_source(settings: dict[str, Any]) -> None:
        interpreter, factory, repl = (settings.get(k) for k in ("interpreter", "interpreter_factory", "repl"))
        if sum(x is not None for x in (interpreter, factory, repl)) > 1:
            raise ValueError(
                "Pass one of interpreter= (an instance you own), interpreter_factory= (a zero-argument "
                "callable) or repl= (a backend name), not several"
            )
        backends.check_factory(factory)
        backends.check_interpreter(interpreter)
        if repl is not None:
            backends.backend_factory(repl)  # an unknown name is an error now, not at the first call

    @property
    def max_iterations(self) -> int | None:
        """dspy 3.1-3.2's name of ``max_iters``."""
        return self.max_iters

    @property
    def extract_adapter_instance(self) -> Any:
        """The adapter ``extract_adapter="auto"`` resolved to at the first extraction (read its ``metrics``)."""
        return self.config.slots.extract

    # -- validation -------------------------------------------------------------------------------
    @staticmethod
    def _normalize_tools(tools: Any) -> dict[str, Tool]:
        if not tools:
            return {}
        if isinstance(tools, dict):
            raise TypeError(
                "tools must be a list, not a dict. Change tools={'name': func} to tools=[func] "
                "(tool names are inferred from function names, or use dspy.Tool(func, name='custom_name'))"
            )
        out: dict[str, Tool] = {}
        for value in tools:
            if not isinstance(value, Tool) and not callable(value):
                raise TypeError(f"Tool {value!r} must be callable, got {type(value).__name__}")
            tool = value if isinstance(value, Tool) else Tool(value)
            if tool.name in out:
                raise ValueError(f"Duplicate tool name '{tool.name}'")
            out[tool.name] = tool
        return out

    def _validate_namespace(self, tools: dict[str, Tool]) -> None:
        """dspy.RLM's rules: tools and inputs may take any name but the protocol's (``SUBMIT``, ``llm_query``,
        ...; see :mod:`dspy_rlm.names`); our extras (helpers, ``rlm_query``, ``FINAL`` ...) give way to them."""
        reserved = sorted(protocol_names())
        for name in tools:
            if not name.isidentifier() or keyword.iskeyword(name):
                raise ValueError(f"Invalid tool name '{name}': must be a valid Python identifier and not a keyword")
            if is_protocol_name(name):
                raise ValueError(
                    f"Tool name '{name}' conflicts with built-in sandbox function. Reserved names: {reserved}. "
                    f"Give the tool another name, e.g. dspy.Tool(func, name='{name}_tool')"
                )
        inputs = set(self.signature.input_fields)
        runtime = sorted(inputs & RUNTIME_ARGS)
        if runtime:
            raise ValueError(f"{runtime} are reserved for RLM runtime configuration, not signature inputs.")
        clash = sorted(name for name in inputs if is_protocol_name(name))
        if clash:
            raise ValueError(
                f"Input fields conflict with built-in sandbox functions: {clash}. Rename them (reserved: {reserved})."
            )
        clash = sorted(inputs & tools.keys())
        if clash:
            raise ValueError(f"Input fields conflict with user tools: {clash}")
        clash = sorted(set(self.signature.output_fields) & result_names())
        if clash:
            raise ValueError(f"Output fields conflict with RLM result metadata: {clash}")

    def _validate_inputs(self, inputs: dict[str, Any]) -> None:
        names = set(self.signature.input_fields)
        unexpected = set(inputs) - names
        if unexpected:
            raise ValueError(
                f"Unexpected inputs not declared in the signature: {sorted(unexpected)}. "
                f"Declared inputs: {sorted(names)}"
            )
        missing = names - set(inputs)
        if missing:
            raise ValueError(f"Missing required inputs: {sorted(missing)}")

    def _check_lm(self) -> None:
        """No LM configured is a setup mistake: raised before the run, with dspy's message (dspy.RLM's first
        action step raises it). A replaced ``generate_action`` brings its own LM handling."""
        action = self.generate_action
        if isinstance(action, dspy.Predict) and action.lm is None and dspy.settings.lm is None:
            raise ValueError(
                "No LM is loaded. Please configure the LM using `dspy.configure(lm=dspy.LM(...))`. e.g, "
                "`dspy.configure(lm=dspy.LM('openai/gpt-4o-mini'))`"
            )

    @property
    def tools(self) -> dict[str, Tool]:
        """User-provided tools (excludes the built-in llm_query & co.)."""
        return self.config.tool_map

    def limits(self) -> Limits:
        return self.config.limits

    def run_predictors(self) -> Predictors:
        """The predictors a run calls now (``generate_action`` / ``extract`` may have been replaced)."""
        return Predictors(self.generate_action, self.extract, self._default_action_instructions)

    # -- public interface -------------------------------------------------------------------------
    def forward(
        self, *args: Any, interpreter_factory: Callable[[], Any] | None = None, **inputs: Any
    ) -> dspy.Prediction:
        """Run the RLM. Inputs by keyword; an interpreter instance may come first (dspy 3.3 form).

        ``checkpoint=path`` sets this call's checkpoint, unless the signature has an input named
        ``checkpoint`` (then that keyword is the input, and the constructor's ``checkpoint`` applies)."""
        interpreter = self._positional_interpreter(args)
        checkpoint = self._call_checkpoint(inputs)
        return run_sync(self._start(inputs, interpreter, interpreter_factory, checkpoint, use_async=False))

    async def aforward(
        self, *args: Any, interpreter_factory: Callable[[], Any] | None = None, **inputs: Any
    ) -> dspy.Prediction:
        """Async ``forward``: LM calls with native async support are awaited, async tools run on this loop."""
        interpreter = self._positional_interpreter(args)
        checkpoint = self._call_checkpoint(inputs)
        return await self._start(inputs, interpreter, interpreter_factory, checkpoint, use_async=True)

    def _call_checkpoint(self, inputs: dict[str, Any]) -> str | os.PathLike | None:
        """Take the call-time ``checkpoint=`` keyword out of ``inputs`` (an input of that name keeps it)."""
        if "checkpoint" in self.signature.input_fields:
            return None
        return inputs.pop("checkpoint", None)

    @staticmethod
    def _positional_interpreter(args: tuple) -> Any:
        if not args:
            return None
        if len(args) == 1 and hasattr(args[0], "execute"):
            return args[0]
        raise TypeError(
            "RLM takes its inputs as keyword arguments, e.g. rlm(context=..., query=...); the only "
            "positional argument allowed is an interpreter instance (dspy 3.3 form)"
        )

    async def _start(
        self, inputs: dict[str, Any], interpreter: Any, factory: Any, checkpoint: Any, use_async: bool
    ) -> dspy.Prediction:
        self._validate_inputs(inputs)
        self._check_lm()
        backends.check_factory(factory)
        backends.check_interpreter(interpreter)
        config = self.config
        inputs, notes = conversation(config.signature, inputs)  # dspy.History inputs (session.py)
        return await Run(
            config,
            self.run_predictors(),
            inputs,
            Budget(config.limits),
            use_async=use_async,
            interpreter=interpreter,
            factory=factory,
            checkpoint=checkpoint if checkpoint is not None else config.checkpoint,
            execution_instructions=self._execution_instructions,
            notes=notes,
        ).execute()

    # -- sessions ---------------------------------------------------------------------------------
    def session(self, *, checkpoint: str | os.PathLike | None = None, **limits: Any) -> Session:
        """A multi-turn session: ``with rlm.session(max_cost=1.0) as s: s(query=...); s(query=...)``. Its calls
        share one REPL (the model's variables persist; each prompt gives the earlier turns); ``limits``
        (``max_iters``, ``max_llm_calls``, ``max_tokens``, ``max_cost``, ``max_time``) hold over all its calls,
        on top of each call's own. See :mod:`dspy_rlm.session`."""
        return Session(self, limits, checkpoint)

    async def run_turn(self, session: Session, inputs: dict[str, Any], use_async: bool = True) -> dspy.Prediction:
        """One call of ``session`` (``Session.__call__`` / ``acall`` call this)."""
        self._validate_inputs(inputs)
        self._check_lm()
        config = self.config
        limits = session.call_limits(config.limits)
        if isinstance(limits, str):  # the session's budget is spent: typed, no LM call
            return refused(config, inputs, limits)
        inputs, notes = conversation(config.signature, inputs)
        return await Run(
            config,
            self.run_predictors(),
            inputs,
            Budget(limits),
            use_async=use_async,
            execution_instructions=self._execution_instructions,
            session=session,
            notes=notes,
        ).execute()


# Every setting is an attribute of the module reading (and written through to) the frozen configuration.
for _name, (_path, _) in SETTINGS.items():
    setattr(RLM, _name, _setting(*_path))
setattr(RLM, "signature", _setting("signature"))  # noqa: B010 - set like the settings above
setattr(RLM, "profile", _setting("policy"))  # noqa: B010 - the earlier name of ``policy``


facade.use_rlm_class(RLM)  # dspy.RLM built by the model's code in the REPL is this one (facade.py)
