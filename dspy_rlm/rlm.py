"""The ``RLM`` module: a drop-in for ``dspy.RLM`` (dspy 3.4.1) whose runs always end typed.

The iteration loop itself lives in :mod:`dspy_rlm.loop`; this file holds the public API: constructor
arguments of every dspy generation (3.1-3.2 ``max_iterations=`` / ``interpreter=``, 3.3's interpreter as
first positional argument, 3.4's ``interpreter_factory=``), validation, the ``generate_action`` and
``extract`` predictors, and where a run's REPL comes from.
"""

from __future__ import annotations

import keyword
import logging
import os
import weakref
from typing import TYPE_CHECKING, Any, Callable

import dspy
from dspy.adapters.types.tool import Tool
from dspy.primitives.repl_types import REPLHistory
from dspy.signatures.signature import ensure_signature

from dspy_rlm import prompts
from dspy_rlm.budget import Budget, Limits
from dspy_rlm.context import SizeConfig
from dspy_rlm.profiles import Profile, resolve_profile
from dspy_rlm.repl.helpers import HELPER_NAMES
from dspy_rlm.runtime import run_sync

if TYPE_CHECKING:
    from dspy_rlm.bridges import RunState

logger = logging.getLogger(__name__)

RESERVED_SANDBOX_NAMES = frozenset({
    "llm_query", "llm_query_batched", "rlm_query", "batch_rlm_query", "SUBMIT", "FINAL", "FINAL_VAR", "print",
    "inputs", *HELPER_NAMES,
})
RESERVED_RESULT_NAMES = frozenset({"trajectory", "final_reasoning"})
RUNTIME_ARGS = frozenset({"interpreter_factory", "interpreter", "checkpoint"})


class RLM(dspy.Module):
    """Recursive Language Model: the model explores its inputs with code in a sandboxed REPL.

    Args:
        signature: ``"context, query -> answer"`` or a Signature class.
        max_iters: Maximum REPL iterations (``max_iterations`` is accepted as the dspy 3.1-3.2 name).
        max_llm_calls: Maximum sub-LM calls (``llm_query`` & co.) per run, sub-RLMs included.
        max_output_chars: Characters of REPL output shown to the model per iteration.
        verbose: Log each iteration at INFO level.
        tools: A list of functions or ``dspy.Tool`` objects callable from the REPL.
        sub_lm: LM for ``llm_query`` and sub-RLMs (defaults to the configured LM).
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
        recovery: Give the model targeted fix steps for failing code (``False`` behaves like dspy.RLM).
        max_fix_attempts: Fix attempts per failing step before the run goes to fallback extraction.
        profile: ``"auto"`` (default: ``"small"`` when the LM says it is local or small, like ``OutlinesLM``),
            ``"small"`` (compact prompt, constrained code, shipped demos, grounded SUBMIT, line-style search
            output; see :mod:`dspy_rlm.profiles`) or ``"default"`` (the behaviour for API models).
        grounded_submit: Give a submitted value that appears in no output, input or variable one verification
            step before accepting it (a second identical SUBMIT is accepted). ``None``: as the profile says
            (on in ``small``, off in ``default``).
        checkpoint: A file path: after every iteration the run's history, budget, trace and picklable REPL
            variables are written there atomically, and a run started again with the same path (same program
            and inputs) resumes without repeating LM calls already answered (see :mod:`dspy_rlm.checkpoint`).
            Also accepted per call: ``rlm(..., checkpoint=path)``.
    """

    def __init__(
        self,
        signature: type[dspy.Signature] | str,
        max_iters: int = 20,
        max_llm_calls: int = 50,
        max_output_chars: int = 10_000,
        verbose: bool = False,
        tools: list[Callable] | None = None,
        sub_lm: dspy.LM | None = None,
        interpreter_factory: Callable[[], Any] | None = None,
        *,
        max_iterations: int | None = None,
        interpreter: Any = None,
        max_time: float | None = None,
        max_tokens: int | None = None,
        max_cost: float | None = None,
        max_depth: int = 1,
        sub_max_iters: int = 5,
        child_share: float = 0.5,
        max_concurrency: int = 8,
        downgrade_threshold: int = 3,
        size_config: SizeConfig | None = None,
        auto_chunk: bool = False,
        repl_timeout: float | None = 30.0,
        repl_memory_mb: int | None = 4096,
        extract_adapter: Any = "auto",
        action_adapter: Any = None,
        recovery: bool = True,
        max_fix_attempts: int = 3,
        profile: str | Profile = "auto",
        grounded_submit: bool | None = None,
        checkpoint: str | os.PathLike | None = None,
    ):
        super().__init__()
        if max_iterations is not None:
            if max_iters not in (20, max_iterations):
                raise ValueError(f"Got max_iters={max_iters} and max_iterations={max_iterations}; pass one "
                                 "(max_iterations is the dspy 3.1-3.2 name of max_iters)")
            max_iters = max_iterations
        if interpreter is not None and interpreter_factory is not None:
            raise ValueError("Pass either interpreter= (an instance you own) or interpreter_factory= "
                             "(a zero-argument callable), not both")
        _check_factory(interpreter_factory)
        _check_interpreter(interpreter)
        self.signature = ensure_signature(signature)
        self.max_iters = max_iters
        self.max_llm_calls = max_llm_calls
        self.max_output_chars = max_output_chars
        self.verbose = verbose
        self.sub_lm = sub_lm
        self.max_time, self.max_tokens, self.max_cost, self.max_depth = max_time, max_tokens, max_cost, max_depth
        self.sub_max_iters, self.child_share, self.max_concurrency = sub_max_iters, child_share, max_concurrency
        self.downgrade_threshold = downgrade_threshold
        self.size_config = size_config or SizeConfig()
        self.auto_chunk = auto_chunk
        self.repl_timeout, self.repl_memory_mb = repl_timeout, repl_memory_mb
        self.extract_adapter, self.action_adapter = extract_adapter, action_adapter
        self.recovery, self.max_fix_attempts = recovery, max_fix_attempts
        self.checkpoint = checkpoint
        resolve_profile(profile, None)  # an unknown name is an error now, not at the first call
        self.profile, self.grounded_submit = profile, grounded_submit
        self._interpreter_factory = interpreter_factory
        self._interpreter = interpreter
        self._user_tools = self._normalize_tools(tools)
        self._validate_namespace(self._user_tools)
        self.limits()  # validates the numbers now, not at the first call
        action_sig, extract_sig = self._build_signatures()
        self.generate_action = dspy.Predict(action_sig)
        self._default_action_instructions = action_sig.instructions
        self.extract = dspy.Predict(extract_sig)

    # -- validation -------------------------------------------------------------------------------
    @staticmethod
    def _normalize_tools(tools: Any) -> dict[str, Tool]:
        if not tools:
            return {}
        if isinstance(tools, dict):
            raise TypeError("tools must be a list, not a dict. Change tools={'name': func} to tools=[func] "
                            "(tool names are inferred from function names, or use dspy.Tool(func, name='custom_name'))")
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
        for name in tools:
            if not name.isidentifier() or keyword.iskeyword(name):
                raise ValueError(f"Invalid tool name '{name}': must be a valid Python identifier and not a keyword")
            if name in RESERVED_SANDBOX_NAMES:
                raise ValueError(f"Tool name '{name}' conflicts with built-in sandbox function. "
                                 f"Reserved names: {sorted(RESERVED_SANDBOX_NAMES)}")
        inputs = set(self.signature.input_fields)
        runtime = sorted(inputs & RUNTIME_ARGS)
        if runtime:
            raise ValueError(f"{runtime} are reserved for RLM runtime configuration, not signature inputs.")
        clash = sorted(inputs & RESERVED_SANDBOX_NAMES)
        if clash:
            raise ValueError(f"Input fields conflict with built-in sandbox functions: {clash}. Rename them.")
        clash = sorted(inputs & tools.keys())
        if clash:
            raise ValueError(f"Input fields conflict with user tools: {clash}")
        clash = sorted(set(self.signature.output_fields) & RESERVED_RESULT_NAMES)
        if clash:
            raise ValueError(f"Output fields conflict with RLM result metadata: {clash}")

    def _validate_inputs(self, inputs: dict[str, Any]) -> None:
        names = set(self.signature.input_fields)
        unexpected = set(inputs) - names
        if unexpected:
            raise ValueError(f"Unexpected inputs not declared in the signature: {sorted(unexpected)}. "
                             f"Declared inputs: {sorted(names)}")
        missing = names - set(inputs)
        if missing:
            raise ValueError(f"Missing required inputs: {sorted(missing)}")

    @property
    def tools(self) -> dict[str, Tool]:
        """User-provided tools (excludes the built-in llm_query & co.)."""
        return dict(self._user_tools)

    def limits(self) -> Limits:
        return Limits(max_iters=self.max_iters, max_llm_calls=self.max_llm_calls, max_tokens=self.max_tokens,
                      max_cost=self.max_cost, max_time=self.max_time, max_depth=self.max_depth)

    # -- signatures -------------------------------------------------------------------------------
    def _build_signatures(self) -> tuple[type[dspy.Signature], type[dspy.Signature]]:
        from dspy_rlm.repl.helpers import helper_docs

        sig = self.signature
        inputs = ", ".join(f"`{n}`" for n in sig.input_fields)
        names = list(sig.output_fields)
        task = f"{sig.instructions}\n\n" if sig.instructions else ""
        instructions = task + prompts.ACTION_INSTRUCTIONS.format(
            inputs=inputs, output_fields=prompts.format_output_fields(sig), interpreter_rules="",
            helper_docs=helper_docs(), final_output_names=", ".join(f"{n}=..." for n in names),
            final_help=prompts.FINAL_HELP_SINGLE if len(names) == 1 else prompts.FINAL_HELP_MULTI,
        ) + self._tool_docs()
        action = (
            dspy.Signature({}, instructions)
            .append("variables_info", dspy.InputField(desc="Metadata about the variables available in the REPL"), type_=str)
            .append("repl_history", dspy.InputField(desc="Previous REPL code executions and their outputs"), type_=REPLHistory)
            .append("iteration", dspy.InputField(desc="Current iteration number (1-indexed) out of max_iters"), type_=str)
            .append("budget", dspy.InputField(desc="What remains of the run's budget"), type_=str)
            .append("reasoning", dspy.OutputField(desc=prompts.REASONING_DESC), type_=str)
            .append("code", dspy.OutputField(desc=prompts.CODE_DESC), type_=str)
        )
        objective = f"The trajectory was generated with the following objective: \n{task}\n" if task else ""
        extract = dspy.Signature({**sig.output_fields}, objective + prompts.EXTRACT_INSTRUCTIONS.format(
            fallback_reason="see fallback_reason"))
        extract = extract.prepend("variables", dspy.InputField(desc="Current values of your REPL variables"), type_=str)
        extract = extract.prepend("fallback_reason", dspy.InputField(desc="Why the run stopped"), type_=str)
        extract = extract.prepend("repl_history", dspy.InputField(desc="Your REPL interactions so far"), type_=REPLHistory)
        extract = extract.prepend("variables_info", dspy.InputField(desc="Metadata about the variables available in the REPL"), type_=str)
        return action, extract

    def _tool_docs(self) -> str:
        if not self._user_tools:
            return ""
        lines = ["\nAdditional tools available (use these instead of standard library equivalents):"]
        for tool in self._user_tools.values():
            params = ", ".join(f"{a}: {s.get('type', 'Any')}" for a, s in (tool.args or {}).items())
            desc = (tool.desc or "No description").replace("\n", "  ")
            lines.append(f"- `{tool.name}({params})` - {desc}")
        return "\n".join(lines)

    # -- public interface -------------------------------------------------------------------------
    def forward(self, *args: Any, interpreter_factory: Callable[[], Any] | None = None,
                checkpoint: str | os.PathLike | None = None, **inputs: Any) -> dspy.Prediction:
        """Run the RLM. Inputs by keyword; an interpreter instance may come first (dspy 3.3 form)."""
        interpreter = self._positional_interpreter(args)
        return run_sync(self._start(inputs, interpreter, interpreter_factory, checkpoint, use_async=False))

    async def aforward(self, *args: Any, interpreter_factory: Callable[[], Any] | None = None,
                       checkpoint: str | os.PathLike | None = None, **inputs: Any) -> dspy.Prediction:
        """Async ``forward``: LM calls with native async support are awaited, async tools run on this loop."""
        interpreter = self._positional_interpreter(args)
        return await self._start(inputs, interpreter, interpreter_factory, checkpoint, use_async=True)

    @staticmethod
    def _positional_interpreter(args: tuple) -> Any:
        if not args:
            return None
        if len(args) == 1 and hasattr(args[0], "execute"):
            return args[0]
        raise TypeError("RLM takes its inputs as keyword arguments, e.g. rlm(context=..., query=...); the only "
                        "positional argument allowed is an interpreter instance (dspy 3.3 form)")

    async def _start(self, inputs: dict[str, Any], interpreter: Any, factory: Any, checkpoint: Any,
                     use_async: bool) -> dspy.Prediction:
        from dspy_rlm.loop import Run

        self._validate_inputs(inputs)
        _check_factory(factory)
        _check_interpreter(interpreter)
        budget = Budget(self.limits())
        return await Run(self, inputs, budget, use_async=use_async, interpreter=interpreter, factory=factory,
                         checkpoint=checkpoint if checkpoint is not None else self.checkpoint).execute()

    # -- REPL resolution --------------------------------------------------------------------------
    def make_repl(self, bridges: dict[str, Callable[..., Any]], interpreter: Any = None,
                  factory: Callable[[], Any] | None = None) -> tuple[Any, bool]:
        """The run's REPL and whether the run owns it: call-time instance > call-time factory >
        constructor instance > constructor factory > ``dspy.settings.interpreter_factory`` > SubprocessREPL."""
        owned = False
        repl = interpreter if interpreter is not None else None
        if repl is None and factory is not None:
            repl, owned = factory(), True
        if repl is None and self._interpreter is not None:
            repl = self._interpreter
        if repl is None:
            factory = self._interpreter_factory or _configured_factory()
            if factory is not None:
                repl, owned = factory(), True
        if repl is None:
            from dspy_rlm.repl.sandbox import SubprocessREPL

            repl, owned = SubprocessREPL(timeout_s=self.repl_timeout, memory_mb=self.repl_memory_mb,
                                         max_output_chars=self.max_output_chars), True
        return self._adopt(repl, bridges), owned

    def _adopt(self, repl: Any, bridges: dict[str, Callable[..., Any]]) -> Any:
        names = list(self.signature.output_fields)
        if hasattr(repl, "run") and hasattr(repl, "load_inputs"):  # one of ours
            repl.tools.update(bridges)
            repl.output_fields = names
            return repl
        from dspy_rlm.repl.foreign import ForeignREPL

        _check_interpreter(repl)
        repl.tools.update(bridges)
        return ForeignREPL(repl, names)


def _configured_factory() -> Callable[[], Any] | None:
    from dspy.primitives.python_interpreter import PythonInterpreter

    configured = dspy.settings.get("interpreter_factory") if hasattr(dspy.settings, "get") else None
    return None if configured in (None, PythonInterpreter) else configured


def _check_factory(factory: Any) -> None:
    if factory is None:
        return
    if not isinstance(factory, type) and hasattr(factory, "execute"):
        raise TypeError("interpreter_factory received an interpreter instance; pass a zero-argument callable "
                        "that creates one (e.g. interpreter_factory=LocalInterpreter), or pass the instance as "
                        "interpreter=... (you keep ownership)")
    if not callable(factory):
        raise TypeError(f"interpreter_factory must be a zero-argument callable, not {type(factory).__name__}")


def _check_interpreter(interpreter: Any) -> None:
    if interpreter is None:
        return
    missing = [m for m in ("tools", "start", "execute", "shutdown") if not hasattr(interpreter, m)]
    if missing:
        raise TypeError(f"interpreter must have DSPy's CodeInterpreter shape (tools, start, execute, shutdown); "
                        f"{type(interpreter).__name__} lacks {missing}")


_CHILD_CONFIG = ("sub_max_iters", "max_llm_calls", "max_output_chars", "sub_lm", "max_depth", "child_share",
                 "max_concurrency", "downgrade_threshold", "repl_timeout", "repl_memory_mb", "extract_adapter",
                 "action_adapter", "recovery", "max_fix_attempts", "_interpreter_factory", "size_config",
                 "auto_chunk", "profile", "grounded_submit")
_child_modules: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _child_module(parent: RLM, with_context: bool, depth: int) -> RLM:
    """The sub-RLM module for ``parent`` at ``depth``, its instructions ending with the sub-RLM rules.

    Built once per parent configuration and depth (building signatures costs ~40 ms, which a batch of
    children would otherwise pay one after the other); modules keep no state between runs. The budget
    numbers (allocation, parent's remaining) change per child, so they go in the ``budget`` input.
    """
    key = (with_context, depth, tuple(id(getattr(parent, name)) if name.endswith("adapter") or name == "sub_lm"
                               else repr(getattr(parent, name)) for name in _CHILD_CONFIG), tuple(parent._user_tools))
    cache = _child_modules.setdefault(parent, {})
    child = cache.get(key)
    if child is None:
        sig = "context, task -> answer" if with_context else "task -> answer"
        child = RLM(sig, max_iters=parent.sub_max_iters, max_llm_calls=parent.max_llm_calls,
                    max_output_chars=parent.max_output_chars, tools=list(parent._user_tools.values()),
                    sub_lm=parent.sub_lm, max_depth=parent.max_depth, sub_max_iters=parent.sub_max_iters,
                    child_share=parent.child_share, max_concurrency=parent.max_concurrency,
                    downgrade_threshold=parent.downgrade_threshold, repl_timeout=parent.repl_timeout,
                    repl_memory_mb=parent.repl_memory_mb, extract_adapter=parent.extract_adapter,
                    action_adapter=parent.action_adapter, recovery=parent.recovery,
                    max_fix_attempts=parent.max_fix_attempts, size_config=parent.size_config,
                    auto_chunk=parent.auto_chunk, profile=parent.profile, grounded_submit=parent.grounded_submit,
                    interpreter_factory=parent._interpreter_factory)  # children use the parent's backend kind
        rules = prompts.SUB_RLM_RULES.format(depth=depth, max_depth=parent.max_depth)
        action = child.generate_action
        action.signature = action.signature.with_instructions(action.signature.instructions + "\n" + rules)
        cache[key] = child
    return child


async def run_child(state: RunState, task: str, context: Any, n_siblings: int = 1) -> str:
    """Run one sub-RLM for ``rlm_query``: its own REPL, a share of the budget, depth + 1."""
    from dspy_rlm.loop import Run
    from dspy_rlm.trace import TraceNode

    parent = state.rlm
    budget = state.budget.child(parent.child_share, n_siblings, parent.sub_max_iters)
    child = _child_module(parent, context is not None, budget.depth)
    node = TraceNode(task=task, depth=budget.depth)
    state.trace.add_subcall(node)
    inputs = {"task": task} if context is None else {"context": context, "task": task}
    lm_ctx = dspy.context(lm=parent.sub_lm) if parent.sub_lm is not None else _null()
    with lm_ctx:
        pred = await Run(child, inputs, budget, use_async=True, trace=node).execute()
    result = pred.rlm_result
    if result.kind == "failed":
        return f"[ERROR] sub-RLM failed: {result.reason}"
    return str(result.outputs.get("answer"))


def _null():
    import contextlib

    return contextlib.nullcontext()
