"""The action step of a run: the step policy it starts, and the action LM call that gives each iteration's
``reasoning`` and ``code`` (a checkpoint's replay, the policy's own step, or the LM, with the prompt compacted
harder when the LM refuses it as too long). :class:`ActionStep` is a base class of :class:`dspy_rlm.loop.Run`."""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Any

import dspy
from dspy.primitives.repl_types import REPLHistory

from dspy_outlines import seen
from dspy_rlm import compaction
from dspy_rlm.budget import Budget
from dspy_rlm.calls import call_predictor, deadline_config
from dspy_rlm.checkpoint import Checkpoint
from dspy_rlm.config import RunConfig
from dspy_rlm.errors import UserPredictorError
from dspy_rlm.profiles.base import PolicyRun, RunView, StepView
from dspy_rlm.profiles.resolve import resolve_policy
from dspy_rlm.repl import backends
from dspy_rlm.signatures import Predictors, execution_rules
from dspy_rlm.trace import IterationRecord, TraceNode

logger = logging.getLogger("dspy_rlm.loop")  # one log for the run, as dspy.RLM has


class ActionStep:
    """The action step's methods; the attributes below are set by :class:`dspy_rlm.loop.Run`."""

    config: RunConfig
    predictors: Predictors
    inputs: dict[str, Any]
    budget: Budget
    use_async: bool
    interpreter: Any
    factory: Any
    execution_instructions: str
    trace: TraceNode
    history: REPLHistory
    ckpt: Checkpoint | None
    policy: PolicyRun | None
    fit: compaction.RunFit
    variables_info: str

    def _start_policy(self) -> PolicyRun:
        lm = getattr(self.predictors.action, "lm", None) or dspy.settings.lm
        policy = resolve_policy(self.config.policy, lm)
        self.policy = policy.start(RunView(self.config, self.predictors, self.inputs, self.trace, lm))
        if self.policy.name != "default":
            self.trace.warn(f"profile: {self.policy.name}")
        return self.policy

    async def _act(self, record: IterationRecord) -> tuple[str, str]:
        cfg = self.config
        kwargs: dict[str, Any] = {
            "variables_info": self.variables_info,
            "repl_history": self.history,
            "iteration": f"{record.index}/{self.budget.limits.max_iters}",
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
        kwargs["repl_history"] = self.fit.action(kwargs)
        key = f"action {record.index}"
        replayed = self.ckpt.replay("action", key) if self.ckpt is not None else None
        decided = policy.decide(step) if replayed is None else None
        t0 = time.perf_counter()
        if replayed is not None:  # the crashed process had this answer already
            reasoning, code = replayed["reasoning"], replayed["code"]
        elif decided is not None:  # the policy took this step itself (a scripted policy)
            reasoning, code = decided
        else:
            action = await self._call_action(policy, kwargs)
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

    async def _call_action(self, policy: PolicyRun, kwargs: dict[str, Any]) -> Any:
        """The action LM call; a prompt the LM refuses as too long is compacted harder and tried again."""
        action_predictor = self.predictors.action
        # the user's adapter, else the policy's (Tier 3 alone under the small profile)
        adapter = self.config.action_adapter if self.config.action_adapter is not None else policy.adapter()
        while True:
            ctx = dspy.context(adapter=adapter) if adapter is not None else contextlib.nullcontext()
            deadline = deadline_config(action_predictor, self.budget.step_deadline())  # max_time holds
            counted, before = self.fit.counted(kwargs), self.budget.spent.prompt_tokens
            try:
                with ctx, seen.recording() as calls:
                    action = await call_predictor(action_predictor, self.use_async, **kwargs, **deadline)
                seen.attach(action, calls)  # BootstrapFinetune(adapter=OutlinesAdapter()) trains on what it saw
                self.fit.compactor.observe(counted, self.budget.spent.prompt_tokens - before)
                return action
            except Exception as exc:
                if compaction.is_context_overflow(exc) and self.fit.compactor.refused():
                    kwargs["repl_history"] = self.fit.action(kwargs)
                    continue
                if isinstance(action_predictor, dspy.Predict):
                    raise
                raise UserPredictorError(exc) from exc  # the user's own predictor: its exceptions are the caller's

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
