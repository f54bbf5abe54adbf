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
from dspy.primitives.repl_types import REPLEntry, REPLHistory

from dspy_rlm import prompts
from dspy_rlm.bridges import RunState, make_bridges
from dspy_rlm.budget import Budget, Spent, StopReason
from dspy_rlm.calls import call_predictor, deadline_config
from dspy_rlm.checkpoint import Checkpoint, RunSnapshot, fingerprint
from dspy_rlm.config import RunConfig
from dspy_rlm.context import ExternalizedContext
from dspy_rlm.errors import SubRLMFailed, UserPredictorError, model_error
from dspy_rlm.extract import run_extraction
from dspy_rlm.names import FINAL, FINAL_VAR
from dspy_rlm.outputs import coerce_outputs
from dspy_rlm.prediction import result_prediction, run_info
from dspy_rlm.profiles.base import PolicyRun, RunView, StepView
from dspy_rlm.profiles.resolve import resolve_policy
from dspy_rlm.protocol import final_fields, parse_response
from dspy_rlm.recovery import RecoveryTracker
from dspy_rlm.repl import backends
from dspy_rlm.repl.base import HELPER_STYLE, VARIABLES, ExecResult, FinalAnswer
from dspy_rlm.results import Extracted, Failed, Submitted
from dspy_rlm.signatures import Predictors, child_predictors, execution_rules
from dspy_rlm.trace import CodeExecution, IterationRecord, TraceNode
from dspy_rlm.usage import BudgetUsageTracker

logger = logging.getLogger(__name__)
T = TypeVar("T")
MAX_CONSECUTIVE_LM_FAILURES = 3


class Run:
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

    # -- the run ----------------------------------------------------------------------------------
    async def execute(self) -> dspy.Prediction:
        t0 = time.perf_counter()
        tracker = BudgetUsageTracker(self.budget, dspy.settings.usage_tracker)
        owned = False
        if self.ckpt is not None:  # a mismatching checkpoint is the caller's error: raised, not swallowed
            self.resumed = await asyncio.to_thread(self.ckpt.load)
            if self.resumed is not None:
                self._restore(self.resumed)
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
                )
                self.repl, owned = backends.make_repl(
                    self.config.repl, self.output_names, make_bridges(state), self.interpreter, self.factory
                )
                if HELPER_STYLE in self.repl.capabilities:  # the policy picks how helpers print
                    self.repl.helper_style = policy.helper_style
                self.variables_info = self._prepare_context() + self._resume_note()
                # The REPL starts while the first action call runs (a sandbox start can take 10-200 ms).
                self._repl_ready = asyncio.ensure_future(self._on_repl_thread(self._start_repl))
                result = await self._loop()
                if self.ckpt is not None and not isinstance(result, Failed):
                    await self._on_repl_thread(self._save_checkpoint, result)
        except UserPredictorError as exc:  # the caller's own code: propagates, as in dspy.RLM
            raise exc.original from None
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
                    await self._ready()
            if owned and self.repl is not None:
                with contextlib.suppress(Exception):
                    await self._on_repl_thread(self.repl.shutdown)
            if self._repl_pool is not None:
                self._repl_pool.shutdown(wait=False)
        return self._prediction(result, tracker, time.perf_counter() - t0)

    def _start_policy(self) -> PolicyRun:
        lm = getattr(self.predictors.action, "lm", None) or dspy.settings.lm
        policy = resolve_policy(self.config.policy, lm)
        self.policy = policy.start(RunView(self.config, self.predictors, self.inputs, self.trace, lm))
        if self.policy.name != "default":
            self.trace.warn(f"profile: {self.policy.name}")
        return self.policy

    async def _on_repl_thread(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a blocking REPL operation on this run's own thread, never the event loop's default executor:
        a block waiting in ``llm_query`` holds its thread, and an async LM's call may need the default
        executor, so many concurrent ``acall`` runs sharing it would deadlock (found by tests/dspy_rlm/test_load)."""
        if self._repl_pool is None:
            self._repl_pool = ThreadPoolExecutor(1, thread_name_prefix="dspy-rlm-repl")
        ctx = contextvars.copy_context()
        return await asyncio.get_running_loop().run_in_executor(self._repl_pool, functools.partial(ctx.run, fn, *args))

    async def _ready(self) -> None:
        """Wait until the REPL has started (it starts beside the first action call)."""
        if self._repl_ready is not None:
            await self._repl_ready

    def _start_repl(self) -> None:
        self.repl.load_inputs(self.repl_inputs)
        self.repl.start()
        if self.resumed is not None and self.resumed.variables and VARIABLES in self.repl.capabilities:
            reply = self.repl.load_variables(self.resumed.variables)
            for name, why in reply.get("failed", {}).items():
                self.trace.warn(f"Checkpoint variable {name} {why}")

    # -- checkpoints ------------------------------------------------------------------------------
    def _restore(self, snap: RunSnapshot) -> None:
        """Continue where the checkpointed run stopped: history, budget, trace, fix state."""
        assert self.ckpt is not None  # only a run with a checkpoint resumes
        self.history = REPLHistory(
            entries=[REPLEntry(**e) for e in snap.history], max_output_chars=self.config.repl.max_output_chars
        )
        self.budget.spent = Spent(**snap.spent)
        self.budget.started = time.monotonic() - snap.elapsed_s
        self.trace = TraceNode.from_dict(snap.trace)
        if self.recovery is not None and snap.recovery is not None:
            self.recovery = snap.recovery
        self.last_submit, self.told_rebound = snap.last_submit, set(snap.told_rebound)
        if snap.result is None:
            self.trace.warn(f"Resumed from checkpoint {self.ckpt.path} after iteration {snap.iterations_done}")

    def _resume_note(self) -> str:
        snap = self.resumed
        if snap is None:
            return ""
        note = (
            f"\n\nThis run was resumed from a checkpoint after iteration {snap.iterations_done}. Restored "
            f"variables: {', '.join(snap.variables) or 'none'}."
        )
        if VARIABLES not in self.repl.capabilities and snap.variables:
            note = (
                f"\n\nThis run was resumed from a checkpoint after iteration {snap.iterations_done}; this REPL "
                f"cannot restore variables, recompute what you need: {', '.join(snap.variables)}."
            )
        if snap.unsaved_variables:
            note += (
                " Not restorable (recompute them if you need them): "
                + "; ".join(f"{n} ({why})" for n, why in snap.unsaved_variables.items())
                + "."
            )
        return note

    def _save_checkpoint(self, result: Any = None) -> None:
        """Write the checkpoint after an iteration (or with the final result). A failed write is a warning:
        the run goes on."""
        assert self.ckpt is not None  # only called for a run with a checkpoint
        try:
            dumped = (
                self.repl.dump_variables()
                if result is None and VARIABLES in self.repl.capabilities
                else {"blobs": {}, "skipped": {}}
            )
            spent = self.budget.spent
            snap = RunSnapshot(
                fingerprint=self.ckpt.fingerprint,
                iterations_done=spent.iterations,
                history=[e.model_dump() for e in self.history],
                spent=dict(spent.__dict__),
                elapsed_s=self.budget.elapsed(),
                trace=self.trace.to_dict(),
                recovery=self.recovery,
                last_submit=self.last_submit,
                told_rebound=sorted(self.told_rebound),
                variables=dumped["blobs"],
                unsaved_variables=dumped["skipped"],
                result=result,
            )
            self.ckpt.save(snap)
        except Exception as exc:  # noqa: BLE001 - e.g. disk full: the run itself is not at fault
            logger.warning("could not write the checkpoint %s: %s", self.ckpt.path, exc)
            self.trace.warn(f"Checkpoint not written: {type(exc).__name__}: {exc}")

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
            outcome = await self._run_code(record, reasoning, code_text)
            record.duration_s = time.perf_counter() - t_iter
            record.budget = self.budget.snapshot()
            if outcome is not None:
                return outcome
            await self._checkpoint_iteration()

    async def _checkpoint_iteration(self) -> None:
        if self.ckpt is not None:
            with contextlib.suppress(Exception):
                await self._ready()
            await self._on_repl_thread(self._save_checkpoint)

    async def _act(self, record: IterationRecord) -> tuple[str, str]:
        cfg, action_predictor = self.config, self.predictors.action
        kwargs: dict[str, Any] = {
            "variables_info": self.variables_info,
            "repl_history": self.history,
            "iteration": f"{record.index}/{cfg.limits.max_iters}",
            "budget": self.budget.describe(),
        }
        self._runtime_rules(kwargs)
        policy = self.policy or self._start_policy()
        executions = [e for r in self.trace.iterations for e in r.code_executions]
        step = StepView(
            index=record.index,
            steps_left=self.budget.remaining().get("iterations"),
            kwargs=kwargs,
            stdouts=[e.stdout for e in executions],
            codes=[e.code for e in executions],
        )
        policy.prepare(step)
        key = f"action {record.index}"
        replayed = self.ckpt.replay("action", key) if self.ckpt is not None else None
        decided = policy.decide(step) if replayed is None else None
        t0 = time.perf_counter()
        if replayed is not None:  # the crashed process had this answer already
            reasoning, code = replayed["reasoning"], replayed["code"]
        elif decided is not None:  # the policy took this step itself (a scripted policy)
            reasoning, code = decided
        else:
            # the user's adapter, else the policy's (Tier 3 alone under the small policy)
            adapter = self.config.action_adapter if self.config.action_adapter is not None else policy.adapter()
            ctx = dspy.context(adapter=adapter) if adapter is not None else contextlib.nullcontext()
            deadline = deadline_config(action_predictor, self.budget.step_deadline())  # max_time holds
            with ctx:
                if isinstance(action_predictor, dspy.Predict):
                    action = await call_predictor(action_predictor, self.use_async, **kwargs, **deadline)
                else:  # the user's own predictor: its exceptions are the caller's (errors.py)
                    try:
                        action = await call_predictor(action_predictor, self.use_async, **kwargs, **deadline)
                    except Exception as exc:
                        raise UserPredictorError(exc) from exc
            reasoning = getattr(action, "reasoning", "") or ""
            code = getattr(action, "code", None)
        if replayed is None:
            record.lm_duration_s = time.perf_counter() - t0
            if self.ckpt is not None:
                self.ckpt.record("action", key, {"reasoning": str(reasoning), "code": code}, record.index)
        record.reasoning = str(reasoning)
        if cfg.verbose:
            logger.info(
                "RLM iteration %s/%s\nReasoning: %s\nCode:\n%s", record.index, cfg.limits.max_iters, reasoning, code
            )
        return str(reasoning), "" if code is None else str(code)

    def _runtime_rules(self, kwargs: dict[str, Any]) -> None:
        """When this run's REPL describes itself differently from the one the prompt was built for (a call-time
        interpreter or factory), the action prompt gets this REPL's ``Execution environment`` text."""
        source = self.interpreter if self.interpreter is not None else self.factory  # given at call time
        now = self.execution_instructions if source is None else backends.execution_instructions(source)
        sig = getattr(self.predictors.action, "signature", None)
        if now == self.execution_instructions or sig is None:
            return
        old, new = execution_rules(self.execution_instructions), execution_rules(now)
        text = sig.instructions.replace(old, new, 1) if old and old in sig.instructions else sig.instructions + new
        kwargs["signature"] = sig.with_instructions(text)

    # -- code -------------------------------------------------------------------------------------
    async def _run_code(self, record: IterationRecord, reasoning: str, code_text: str):
        parsed = parse_response(code_text)
        record.thinking = parsed.thinking
        outputs: list[str] = []
        final: FinalAnswer | None = None
        if parsed.rejected_langs and not parsed.code_blocks:
            outputs.append(
                model_error(
                    f"Expected Python code but got ```{parsed.rejected_langs[0]} fences. "
                    "Write Python in ```python blocks."
                )
            )
        for i, block in enumerate(parsed.code_blocks, start=1):
            await self._ready()
            res: ExecResult = await self._on_repl_thread(self.repl.run, block)
            record.code_executions.append(
                CodeExecution(block, res.stdout, res.error.to_dict() if res.error else None, res.duration_s)
            )
            outputs.append(self._describe(res, record, i, len(parsed.code_blocks)))
            if res.final is not None:
                final = res.final
                break
            if res.error is not None and not res.error.recoverable:
                return await self._end_with(
                    record,
                    reasoning,
                    parsed.code or code_text,
                    outputs,
                    StopReason.SANDBOX,
                    f"the sandbox failed: {res.error.message}",
                )
            if self.recovery is not None and self.recovery.exhausted:
                return await self._end_with(
                    record, reasoning, parsed.code, outputs, StopReason.FIX_ATTEMPTS, self.recovery.exhausted
                )
        if final is None:
            final = await self._text_final(parsed, record, outputs)
        if not parsed.code_blocks and final is None and not outputs:
            outputs.append(prompts.NO_CODE_MESSAGE)
        if final is not None:
            if isinstance(final.value, dict):  # kept for the extraction, even when a value is invalid
                self.last_submit = {k: v for k, v in final.value.items() if k in self.output_names} or self.last_submit
            values, error = coerce_outputs(self.config.signature, final.value)
            if error is None:
                error = await self._check_submit(values, outputs)
            if error is None:
                self.history = self.history.append(
                    reasoning=reasoning, code=parsed.code or code_text, output=f"FINAL: {values}"
                )
                record.output = "\n".join(outputs)
                self.trace.answer_source = final.kind
                return self._settle(
                    Submitted(
                        values,
                        self.budget.spent.iterations,
                        self.budget.spent.llm_calls,
                        final.kind,
                        self.budget.spent.lm_calls_total,
                    )
                )
            outputs.append(error)
        record.output = "\n".join(o for o in outputs if o) or "(no output - did you forget to print?)"
        if self.config.verbose:  # what dspy.RLM logs after each step that did not finish
            logger.info(REPLEntry.format_output(record.output, self.config.repl.max_output_chars))
        self.history = self.history.append(reasoning=reasoning, code=parsed.code or code_text, output=record.output)
        return None

    async def _check_submit(self, values: dict[str, Any], outputs: list[str]) -> str | None:
        """The policy's check of a SUBMIT (e.g. grounded SUBMIT): a message for the model, or None to accept."""
        assert self.policy is not None

        async def variables() -> dict[str, str]:
            return await self._on_repl_thread(self._snapshot)

        return await self.policy.check_submit(values, [e.output for e in self.history] + outputs, variables)

    def _settle(self, result: Submitted) -> Submitted | Extracted:
        """The policy decides whether an accepted SUBMIT stands (a guess ends ``Extracted``)."""
        assert self.policy is not None
        executions = [e for r in self.trace.iterations for e in r.code_executions]
        settled = self.policy.settle(result, [e.code for e in executions], [e.stdout for e in executions])
        if isinstance(settled, Extracted):
            self.trace.answer_source = "guess"
            self.trace.warn(f"submitted value not supported: {settled.notes}")
        return settled

    async def _text_final(self, parsed: Any, record: IterationRecord, outputs: list[str]) -> FinalAnswer | None:
        """FINAL(...) / FINAL_VAR(name) written as text outside code (not when a user tool or input has the name)."""
        if parsed.final_var and FINAL_VAR not in self.user_names:
            await self._ready()
            res = await self._on_repl_thread(self.repl.run, f"FINAL_VAR({parsed.final_var!r})")
            record.code_executions.append(
                CodeExecution(
                    f"FINAL_VAR({parsed.final_var!r})",
                    res.stdout,
                    res.error.to_dict() if res.error else None,
                    res.duration_s,
                )
            )
            if res.final is None:
                outputs.append(self._describe(res, record, 0, 0))
            return res.final
        if parsed.final_text is None or FINAL in self.user_names:
            return None
        if len(self.output_names) == 1:
            return FinalAnswer("final_direct", {self.output_names[0]: parsed.final_text})
        values = final_fields(parsed.final_text, self.output_names)
        if values is None:  # prose in FINAL(...): say how to name the outputs
            outputs.append(model_error(f"FINAL(...) needs the outputs by name: SUBMIT({', '.join(self.output_names)})"))
        return None if values is None else FinalAnswer("final_direct", values)

    def _describe(self, res: ExecResult, record: IterationRecord, block: int, n_blocks: int) -> str:
        parts = []
        if n_blocks > 1:
            parts.append(f"[block {block}/{n_blocks}]")
        if res.stdout:
            parts.append(res.stdout.rstrip("\n"))
        if res.error is not None:
            if self.recovery is not None and res.error.recoverable:
                code = record.code_executions[-1].code if record.code_executions else ""
                parts.append(self.recovery.on_failure(record.index, max(block, 1), res.error, code))
                record.fix = self.recovery.open.to_dict() if self.recovery.open else None
                if res.restarted:  # the fix step clips long messages: the lost names are said in full
                    parts.append(
                        "[note] The REPL worker was restarted and the inputs loaded again. Your variables "
                        f"that were lost: {', '.join(res.lost_variables) or 'none'}"
                    )
            else:
                parts.append(model_error(res.error.format_for_model()))
        elif self.recovery is not None:
            self.recovery.on_success(record.index)
        for name in res.rebound_inputs:
            if name not in self.told_rebound:
                self.told_rebound.add(name)
                parts.append(f"[note] You rebound the input `{name}`; the original is still in inputs[{name!r}].")
        return "\n".join(parts)

    # -- endings ---------------------------------------------------------------------------------
    async def _end_with(
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
            await self._ready()
        snapshot = await self._on_repl_thread(self._snapshot)
        result = await run_extraction(
            self.config,
            self.predictors.extract,
            history=self.history,
            variables_info=self.variables_info,
            snapshot=snapshot,
            reason=reason,
            use_async=self.use_async,
            last_submit=self.last_submit,
            budget=self.budget,
        )
        self.trace.answer_source = "forced" if isinstance(result, Extracted) else "error"
        return result

    def _snapshot(self) -> dict[str, str]:
        try:
            return self.repl.snapshot() if self.repl is not None else {}
        except Exception:  # noqa: BLE001 - extraction goes on without variables
            return {}

    # -- sub-RLMs ---------------------------------------------------------------------------------
    async def _run_child(self, task: str, context: Any, n_siblings: int = 1) -> str:
        """One sub-RLM for ``rlm_query``: its own REPL, a share of the budget, depth + 1 (the bridges call
        this through ``RunState.spawn``)."""
        cfg = self.config
        budget = self.budget.child(cfg.child.child_share, n_siblings, cfg.child.sub_max_iters)
        child_cfg, preds = child_predictors(cfg, budget.depth, context is not None, self.execution_instructions)
        node = TraceNode(task=task, depth=budget.depth)
        self.trace.add_subcall(node)
        inputs = {"task": task} if context is None else {"context": context, "task": task}
        lm_ctx = dspy.context(lm=cfg.sub_lm) if cfg.sub_lm is not None else contextlib.nullcontext()
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
