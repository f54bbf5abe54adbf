"""One step's code: run its blocks in the REPL, describe what happened for the model, and judge a final
answer (the output types, the step policy's check, whether the answer stands or is a guess)."""

from __future__ import annotations

import logging
from typing import Any

from dspy.primitives.repl_types import REPLEntry

from dspy_rlm import prompts
from dspy_rlm.budget import StopReason
from dspy_rlm.errors import model_error
from dspy_rlm.loop_state import LoopState
from dspy_rlm.names import FINAL, FINAL_VAR
from dspy_rlm.outputs import coerce_outputs
from dspy_rlm.protocol import final_fields, parse_response
from dspy_rlm.repl.base import ExecResult, FinalAnswer
from dspy_rlm.results import Extracted, Failed, Submitted
from dspy_rlm.trace import CodeExecution, IterationRecord

logger = logging.getLogger("dspy_rlm.loop")  # one log for the run, as dspy.RLM has


async def run_code(run: LoopState, record: IterationRecord, reasoning: str, code_text: str):
    parsed = parse_response(code_text)
    record.thinking = parsed.thinking
    outputs: list[str] = []
    final: FinalAnswer | None = None
    if parsed.rejected_langs and not parsed.code_blocks:
        outputs.append(
            model_error(
                f"Expected Python code but got ```{parsed.rejected_langs[0]} fences. Write Python in ```python blocks."
            )
        )
    for i, block in enumerate(parsed.code_blocks, start=1):
        await run.ready()
        res: ExecResult = await run.on_repl_thread(run.repl.run, block)
        record.code_executions.append(
            CodeExecution(block, res.stdout, res.error.to_dict() if res.error else None, res.duration_s)
        )
        outputs.append(describe(run, res, record, i, len(parsed.code_blocks)))
        if res.final is not None:
            final = res.final
            break
        if res.error is not None and not res.error.recoverable:
            return await run.end_with(
                record,
                reasoning,
                parsed.code or code_text,
                outputs,
                StopReason.SANDBOX,
                f"the sandbox failed: {res.error.message}",
            )
        if run.recovery is not None and run.recovery.exhausted:
            return await run.end_with(
                record, reasoning, parsed.code, outputs, StopReason.FIX_ATTEMPTS, run.recovery.exhausted
            )
    if final is None:
        final = await text_final(run, parsed, record, outputs)
    if not parsed.code_blocks and final is None and not outputs:
        outputs.append(prompts.NO_CODE_MESSAGE)
    if final is not None:
        if isinstance(final.value, dict):  # kept for the extraction, even when a value is invalid
            run.last_submit = {k: v for k, v in final.value.items() if k in run.output_names} or run.last_submit
        values, error = coerce_outputs(run.config.signature, final.value)
        if error is None:
            error = await check_submit(run, values, outputs)
        if error is None:
            run.history = run.history.append(
                reasoning=reasoning, code=parsed.code or code_text, output=f"FINAL: {values}"
            )
            record.output = "\n".join(outputs)
            run.trace.answer_source = final.kind
            return settle(
                run,
                Submitted(
                    values,
                    run.budget.spent.iterations,
                    run.budget.spent.llm_calls,
                    final.kind,
                    run.budget.spent.lm_calls_total,
                ),
            )
        outputs.append(error)
    record.output = "\n".join(o for o in outputs if o) or "(no output - did you forget to print?)"
    if run.config.verbose:  # what dspy.RLM logs after each step that did not finish
        logger.info(REPLEntry.format_output(record.output, run.config.repl.max_output_chars))
    run.history = run.history.append(reasoning=reasoning, code=parsed.code or code_text, output=record.output)
    return None


async def check_submit(run: LoopState, values: dict[str, Any], outputs: list[str]) -> str | None:
    """The policy's check of a SUBMIT (e.g. grounded SUBMIT): a message for the model, or None to accept."""
    assert run.policy is not None

    async def variables() -> dict[str, str]:
        return await run.on_repl_thread(run.snapshot)

    return await run.policy.check_submit(values, [e.output for e in run.history] + outputs, variables)


def settle(run: LoopState, result: Submitted) -> Submitted | Extracted:
    """The policy decides whether an accepted SUBMIT stands (a guess ends ``Extracted``)."""
    assert run.policy is not None
    executions = [e for r in run.trace.iterations for e in r.code_executions]
    settled = run.policy.settle(result, [e.code for e in executions], [e.stdout for e in executions])
    if isinstance(settled, Extracted):
        run.trace.answer_source = "guess"
        run.trace.warn(f"submitted value not supported: {settled.notes}")
    return settled


def rescore(run: LoopState, result: Extracted | Failed) -> Extracted | Failed:
    """A forced ending on the policy's confidence scale, where the policy has one (its optional ``rescore``). A
    failed extraction becomes ``Extracted`` when the policy finds a value its reads support."""
    rescore_fn = getattr(run.policy, "rescore", None)
    if rescore_fn is None:
        return result
    executions = [e for r in run.trace.iterations for e in r.code_executions]
    codes, stdouts = [e.code for e in executions], [e.stdout for e in executions]
    if isinstance(result, Extracted):
        return rescore_fn(result, codes, stdouts)
    names = list(run.config.signature.output_fields)
    empty = Extracted(dict.fromkeys(names), 0.0, result.reason, limit=result.limit, fallback=result.fallback)
    found = rescore_fn(empty, codes, stdouts)
    return found if any(v is not None for v in found.outputs.values()) else result


async def text_final(run: LoopState, parsed: Any, record: IterationRecord, outputs: list[str]) -> FinalAnswer | None:
    """FINAL(...) / FINAL_VAR(name) written as text outside code (not when a user tool or input has the name)."""
    if parsed.final_var and FINAL_VAR not in run.user_names:
        await run.ready()
        res = await run.on_repl_thread(run.repl.run, f"FINAL_VAR({parsed.final_var!r})")
        record.code_executions.append(
            CodeExecution(
                f"FINAL_VAR({parsed.final_var!r})",
                res.stdout,
                res.error.to_dict() if res.error else None,
                res.duration_s,
            )
        )
        if res.final is None:
            outputs.append(describe(run, res, record, 0, 0))
        return res.final
    if parsed.final_text is None or FINAL in run.user_names:
        return None
    if len(run.output_names) == 1:
        return FinalAnswer("final_direct", {run.output_names[0]: parsed.final_text})
    values = final_fields(parsed.final_text, run.output_names)
    if values is None:  # prose in FINAL(...): say how to name the outputs
        outputs.append(model_error(f"FINAL(...) needs the outputs by name: SUBMIT({', '.join(run.output_names)})"))
    return None if values is None else FinalAnswer("final_direct", values)


def describe(run: LoopState, res: ExecResult, record: IterationRecord, block: int, n_blocks: int) -> str:
    parts = []
    if n_blocks > 1:
        parts.append(f"[block {block}/{n_blocks}]")
    if res.stdout:
        parts.append(res.stdout.rstrip("\n"))
    if res.error is not None:
        if run.recovery is not None and res.error.recoverable:
            code = record.code_executions[-1].code if record.code_executions else ""
            parts.append(run.recovery.on_failure(record.index, max(block, 1), res.error, code))
            record.fix = run.recovery.open.to_dict() if run.recovery.open else None
            if res.restarted:  # the fix step clips long messages: the lost names are said in full
                parts.append(
                    "[note] The REPL worker was restarted and the inputs loaded again. Your variables "
                    f"that were lost: {', '.join(res.lost_variables) or 'none'}"
                )
        else:
            parts.append(model_error(res.error.format_for_model()))
    elif run.recovery is not None:
        run.recovery.on_success(record.index)
    for name in res.rebound_inputs:
        if name not in run.told_rebound:
            run.told_rebound.add(name)
            parts.append(f"[note] You rebound the input `{name}`; the original is still in inputs[{name!r}].")
    return "\n".join(parts)
