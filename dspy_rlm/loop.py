"""The iteration loop of one RLM run (the root or a sub-RLM), written once, async at the core.

Each iteration: check the budget, ask the action predictor for ``reasoning`` + ``code``, run every code
block in order until one gives a final answer, validate that answer against the output types, and record
everything in the history and the trace. Limits, repeated LM failures, a dead sandbox (and exhausted fix
attempts, with ``end_on_failed_fixes``) end the run through fallback extraction; failing code alone never
does. The run always returns a Prediction with a typed result (:func:`dspy_rlm.prediction.run_info`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import dspy
from dspy.primitives.repl_types import REPLHistory

from dspy_rlm import code_step, compaction, routing, serializable
from dspy_rlm.bridges import RunState, make_bridges
from dspy_rlm.budget import Budget, StopReason
from dspy_rlm.calls import is_configuration_error
from dspy_rlm.checkpoint import Checkpoint, RunSnapshot, fingerprint
from dspy_rlm.code_step import run_code
from dspy_rlm.config import RunConfig
from dspy_rlm.context import ExternalizedContext
from dspy_rlm.errors import RunInterrupted, SubRLMFailed, UserPredictorError, model_error
from dspy_rlm.extract import run_extraction
from dspy_rlm.facade import CONSTRUCT_TOOL
from dspy_rlm.facade import setup_code as facade_setup
from dspy_rlm.loop_action import ActionStep
from dspy_rlm.prediction import result_prediction, run_info
from dspy_rlm.profiles.base import PolicyRun
from dspy_rlm.recovery import RecoveryTracker
from dspy_rlm.repl import backends
from dspy_rlm.repl.base import HELPER_STYLE, VARIABLES
from dspy_rlm.results import Extracted, Failed, Submitted
from dspy_rlm.resume import restore, resume_note, save_checkpoint
from dspy_rlm.signatures import Predictors, child_predictors
from dspy_rlm.trace import IterationRecord, TraceNode
from dspy_rlm.usage import BudgetUsageTracker

logger = logging.getLogger(__name__)
T = TypeVar("T")
MAX_CONSECUTIVE_LM_FAILURES = 3


class Run(ActionStep):
    """State and steps of one run. Create, then ``await execute()``."""

    def __init__(
        self,
        config: RunConfig,
        predictors: Predictors,
        inputs: dict[str, Any],
        budget: Budget,
        *,
        use_async: bool,
        interpreter: Any = None,
        factory: Any = None,
        trace: TraceNode | None = None,
        checkpoint: Any = None,
        execution_instructions: str = "",
        session: Any = None,
        notes: str = "",
    ):
        self.config, self.predictors, self.inputs, self.budget = config, predictors, inputs, budget
        self.use_async = use_async
        self.interpreter, self.factory = interpreter, factory
        self.execution_instructions = execution_instructions  # what the action prompt says of the runtime
        self.trace = trace or TraceNode(task=_task_text(inputs), depth=budget.depth)
        self.history = REPLHistory(max_output_chars=config.repl.max_output_chars)
        self.recovery = (
            RecoveryTracker(config.max_fix_attempts, config.end_on_failed_fixes) if config.recovery else None
        )
        self.output_names = config.output_names
        self.user_names = {*config.tool_map, *config.signature.input_fields}  # they hide our extras (names.py)
        self.last_submit: dict[str, Any] | None = None
        self.told_rebound: set[str] = set()
        self.repl: Any = None
        self._repl_ready: asyncio.Future | None = None
        self._repl_pool: ThreadPoolExecutor | None = None  # this run's thread for blocking REPL operations
        self.ckpt = Checkpoint(checkpoint, fingerprint(config.signature, inputs)) if checkpoint is not None else None
        self.resumed: RunSnapshot | None = None
        self.policy: PolicyRun | None = None  # the step policy's state for this run (profiles.base)
        self.session, self.notes = session, notes  # a session.Session's REPL; the prompt's conversation text
        self.reused = False  # the session's REPL ran an earlier call
        self.fit = compaction.RunFit(self)  # what the prompts show of the history

    # -- the run ----------------------------------------------------------------------------------
    async def execute(self) -> dspy.Prediction:
        t0 = time.perf_counter()
        tracker = BudgetUsageTracker(self.budget, dspy.settings.usage_tracker)
        owned = False
        interrupted: BaseException | None = None
        if self.ckpt is not None:  # a mismatching checkpoint is the caller's error: raised, not swallowed
            self.resumed = await asyncio.to_thread(self.ckpt.load)
            if self.resumed is not None:
                restore(self, self.resumed)
                if self.resumed.result is not None:  # the run had finished: no LM call at all
                    return self._prediction(self.resumed.result, tracker, self.resumed.elapsed_s)
        try:
            with dspy.context(usage_tracker=tracker):
                policy = self._start_policy()
                state = RunState(
                    self.config,
                    self.budget,
                    self.trace,
                    loop=asyncio.get_running_loop(),
                    checkpoint=self.ckpt,
                    spawn=self._run_child,
                    sub_agents=self._sub_agents(policy),
                    factory=self.factory,
                )
                bridges = make_bridges(state)
                make = functools.partial(
                    backends.make_repl, self.config.repl, self.output_names, bridges, self.interpreter, self.factory
                )
                if self.session is not None:  # the session owns (and shuts down) its REPL
                    self.reused, owned = self.session.acquire(make, bridges), False
                    self.repl = self.session.repl
                else:
                    self.repl, owned = make()
                if HELPER_STYLE in self.repl.capabilities:  # the policy picks how helpers print
                    self.repl.helper_style = policy.helper_style
                self.variables_info = self._prepare_context() + resume_note(self) + self.notes
                if self.session is not None:  # earlier turns and the variables they left
                    self.variables_info += await self.on_repl_thread(self.session.note)
                # The REPL starts while the first action call runs (a sandbox start can take 10-200 ms).
                self._repl_ready = asyncio.ensure_future(self.on_repl_thread(self._start_repl))
                result = await self._loop()
                if self.ckpt is not None and not isinstance(result, Failed):
                    await self.on_repl_thread(save_checkpoint, self, result)
        except UserPredictorError as exc:  # the caller's own code: propagates, as in dspy.RLM
            raise exc.original from None
        except (asyncio.CancelledError, KeyboardInterrupt) as exc:  # Ctrl-C: the run so far, Failed
            interrupted = exc
            result = Failed(
                reason="interrupted",
                partial_outputs=self.last_submit,
                history=[e.model_dump() for e in self.history],
                limit=StopReason.INTERRUPTED,
            )
            self.trace.answer_source = "interrupted"
        except Exception as exc:
            logger.exception("RLM run failed")
            result = Failed(
                reason=f"{type(exc).__name__}: {exc}",
                partial_outputs=self.last_submit,
                history=[e.model_dump() for e in self.history],
            )
            self.trace.answer_source = "error"
        finally:
            if self._repl_ready is not None:
                with contextlib.suppress(Exception):
                    await self.ready()
            if owned and self.repl is not None:
                with contextlib.suppress(Exception):
                    await self.on_repl_thread(self.repl.shutdown)
            if self._repl_pool is not None:
                self._repl_pool.shutdown(wait=False)
        prediction = self._prediction(result, tracker, time.perf_counter() - t0)
        if interrupted is not None:
            self._reraise(interrupted, prediction)
        return prediction

    def _reraise(self, interrupted: BaseException, prediction: dspy.Prediction) -> None:
        """An interrupt goes on up once the run has ended ``Failed`` (reason ``interrupted``): a synchronous
        root run raises :class:`RunInterrupted` (a ``KeyboardInterrupt``) carrying that prediction, so a caller
        such as the CLI still writes the trace; an async run's cancellation stays a ``CancelledError``."""
        if self.use_async or self.budget.depth > 0:
            raise interrupted
        raise RunInterrupted(prediction) from interrupted

    def _sub_agents(self, policy: PolicyRun) -> bool:
        """dspy's sandbox facade: as ``sub_agents=`` says, else offered by the default profile only."""
        wanted = self.config.sub_agents
        return policy.name == "default" if wanted is None else wanted

    async def on_repl_thread(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a blocking REPL operation on this run's own thread, never the event loop's default executor:
        a block waiting in ``llm_query`` holds its thread, and an async LM's call may need the default
        executor, so many concurrent ``acall`` runs sharing it would deadlock (found by tests/dspy_rlm/test_load)."""
        if self._repl_pool is None:
            self._repl_pool = ThreadPoolExecutor(1, thread_name_prefix="dspy-rlm-repl")
        ctx = contextvars.copy_context()
        return await asyncio.get_running_loop().run_in_executor(self._repl_pool, functools.partial(ctx.run, fn, *args))

    async def ready(self) -> None:
        """Wait until the REPL has started (it starts beside the first action call)."""
        if self._repl_ready is not None:
            await self._repl_ready

    def _start_repl(self) -> None:
        bound, rebuild = serializable.split(self.repl_inputs)  # SandboxSerializable inputs: serializable.py
        if self.reused:  # a session's later call: new inputs, the model's variables kept
            self.session.bind(bound)
        else:
            self.repl.load_inputs(bound)
            self.repl.start()
            for warning in self.session.restore() if self.session is not None else ():
                self.trace.warn(warning)
        if rebuild:
            result = self.repl.run(rebuild)
            if not result.ok:
                raise RuntimeError(f"a SandboxSerializable input could not be rebuilt in the REPL: {result.error}")
        if CONSTRUCT_TOOL in self.repl.tools and not self.reused:  # dspy's sandbox facade (facade.py)
            result = self.repl.run(facade_setup())
            if not result.ok:
                self.trace.warn(f"dspy sub-agents unavailable in this REPL: {result.error}")
        if self.resumed is not None and self.resumed.variables and VARIABLES in self.repl.capabilities:
            reply = self.repl.load_variables(self.resumed.variables)
            for name, why in reply.get("failed", {}).items():
                self.trace.warn(f"Checkpoint variable {name} {why}")

    def _prepare_context(self) -> str:
        cfg = self.config
        descs = {n: (f.json_schema_extra or {}).get("desc", "") for n, f in cfg.signature.input_fields.items()}
        descs = {n: d for n, d in descs.items() if d and not d.startswith("${")}
        ctx = ExternalizedContext.from_inputs(self.inputs, descs=descs, config=cfg.repl.size_config)
        self.repl_inputs = ctx.auto_chunk(self.inputs) if cfg.repl.auto_chunk else self.inputs
        warnings = ctx.check_size_limits()
        for w in warnings:
            self.trace.warn(f"{w.kind}: {w.message}")
        info = (self.policy or self._start_policy()).variables_info(ctx)
        if warnings:
            info += "\n\nSize warnings:\n" + "\n".join(f"- {w.message}" for w in warnings)
        return info

    async def _loop(self) -> Submitted | Extracted | Failed:
        lm_failures = 0
        while True:
            limit = self.budget.start_iteration()  # checks every limit and counts the step, atomically
            if limit is not None:
                return await self._fallback(limit)
            record = IterationRecord(index=self.budget.spent.iterations)
            self.trace.iterations.append(record)
            if self.ckpt is not None:
                self.ckpt.begin_iteration(record.index)
            t_iter = time.perf_counter()
            try:
                reasoning, code_text = await self._act(record)
                lm_failures = 0
            except UserPredictorError:
                raise
            except Exception as exc:  # noqa: BLE001 - LM / adapter errors: tell the model, go on
                if is_configuration_error(exc):  # no retry mends a missing key or a mistyped model
                    return self._misconfigured(exc)
                lm_failures += 1
                record.output = model_error(
                    f"The previous answer could not be used ({type(exc).__name__}: "
                    f"{str(exc)[:300]}). Answer with the fields `reasoning` and `code`."
                )
                self.history = self.history.append(reasoning="", code="", output=record.output)
                record.duration_s = time.perf_counter() - t_iter
                if lm_failures >= MAX_CONSECUTIVE_LM_FAILURES:
                    return await self._fallback(
                        StopReason.LM_ERRORS, f"the LM failed {lm_failures} times in a row: {exc}"
                    )
                await self._checkpoint_iteration()
                continue
            outcome = await run_code(self, record, reasoning, code_text)
            record.duration_s = time.perf_counter() - t_iter
            record.budget = self.budget.snapshot()
            if outcome is not None:
                return outcome
            await self._checkpoint_iteration()

    def _misconfigured(self, exc: Exception) -> Failed:
        """The LM is not set up: the run ends ``Failed`` at once, without the extraction that would call the
        same LM (the CLI exits 2, a configuration error, printing the reason once)."""
        self.trace.answer_source = "error"
        return Failed(
            reason=f"the LM is not configured: {exc}",
            partial_outputs=self.last_submit,
            history=[e.model_dump() for e in self.history],
            limit=StopReason.LM_CONFIG,
        )

    async def _checkpoint_iteration(self) -> None:
        if self.ckpt is not None:
            with contextlib.suppress(Exception):
                await self.ready()
            await self.on_repl_thread(save_checkpoint, self)

    # -- endings ---------------------------------------------------------------------------------
    async def end_with(
        self, record: IterationRecord, reasoning: str, code: str, outputs: list[str], stop: StopReason, detail: str
    ) -> Extracted | Failed:
        record.output = "\n".join(o for o in outputs if o)
        self.history = self.history.append(reasoning=reasoning, code=code, output=record.output)
        return await self._fallback(stop, detail)

    async def _fallback(self, stop: StopReason, detail: str = "") -> Extracted | Failed:
        reason = self.budget.fallback_reason(stop, detail)
        # dspy.RLM warns "RLM reached max iterations, using extract ..."; ours with verbose (quiet otherwise)
        logger.log(
            logging.WARNING if self.config.verbose else logging.DEBUG,
            "RLM %s, using extract to get final output",
            reason,
        )
        self.trace.warn("Budget exhausted, answer was forced" if stop.is_budget else f"Run stopped: {reason}")
        with contextlib.suppress(Exception):
            await self.ready()
        snapshot = await self.on_repl_thread(self.snapshot)
        result = await run_extraction(
            self.config,
            self.predictors.extract,
            history=self.history,
            shown=self.fit.extraction(),
            variables_info=self.variables_info,
            snapshot=snapshot,
            reason=reason,
            use_async=self.use_async,
            last_submit=self.last_submit,
            budget=self.budget,
        )
        result = code_step.rescore(self, result)  # on the policy's confidence scale
        self.trace.answer_source = "forced" if isinstance(result, Extracted) else "error"
        return result

    def snapshot(self) -> dict[str, str]:
        try:
            return self.repl.snapshot() if self.repl is not None else {}
        except Exception:  # noqa: BLE001 - extraction goes on without variables
            return {}

    # -- sub-RLMs ---------------------------------------------------------------------------------
    async def _run_child(self, task: str, context: Any, n_siblings: int = 1) -> str:
        """One sub-RLM for ``rlm_query``: its own REPL, a share of the budget, depth + 1 (the bridges call
        this through ``RunState.spawn``)."""
        cfg = self.config
        budget = self.budget.child(cfg.child.child_share, n_siblings, cfg.child.iters(cfg.limits.max_iters))
        child_cfg, preds = child_predictors(cfg, budget.depth, context is not None, self.execution_instructions)
        lm, label = cfg.lm_for(self.budget.depth)  # the child's steps run on the LM of the depth that spawns it
        node = TraceNode(task=task, depth=budget.depth, model=label or routing.label(dspy.settings.lm))
        self.trace.add_subcall(node)
        inputs = {"task": task} if context is None else {"context": context, "task": task}
        lm_ctx = dspy.context(lm=lm) if lm is not None else contextlib.nullcontext()
        with lm_ctx:  # children use the parent's backend kind (a call-time factory included)
            pred = await Run(
                child_cfg,
                preds,
                inputs,
                budget,
                use_async=True,
                trace=node,
                factory=self.factory,
                execution_instructions=self.execution_instructions,
            ).execute()
        info = run_info(pred)
        assert info is not None  # a Run's own prediction
        result = info.result
        if isinstance(result, Failed):
            raise SubRLMFailed(result.reason)
        return str(result.outputs.get("answer"))

    def _prediction(self, result: Any, tracker: BudgetUsageTracker, elapsed: float) -> dspy.Prediction:
        trace = self.trace
        trace.duration_s = elapsed
        trace.result_kind = result.kind
        trace.usage = self.budget.to_dict()
        if self.recovery is not None:
            trace.fix_history = self.recovery.to_dict()
        pred = result_prediction(result, self.history, self.output_names, trace)
        with contextlib.suppress(Exception):
            pred.set_lm_usage(tracker.get_total_tokens())
        return pred


def _task_text(inputs: dict[str, Any]) -> str:
    short = {k: v for k, v in inputs.items() if isinstance(v, str) and len(v) <= 500}
    text = "; ".join(f"{k}={v}" for k, v in short.items()) or ", ".join(inputs)
    return text[:500]
