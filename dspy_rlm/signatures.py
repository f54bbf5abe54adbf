"""The action and extract signatures of a run, and the predictors of sub-RLMs.

``RLM.__init__`` builds its two predictors from :func:`build_signatures`; a sub-RLM's predictors are built
once per parent configuration and depth by :func:`child_predictors` (building signatures costs ~40 ms, which
a batch of children would otherwise pay one after the other).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional

import dspy
from dspy.primitives.repl_types import REPLHistory

from dspy_rlm import facade, prompts, routing
from dspy_rlm.config import RunConfig
from dspy_rlm.names import hidden_extras

#: The extraction's free-text field: what the model could not determine, and why.
NOTES_FIELD = "extraction_notes"


@dataclass
class Predictors:
    """The two predictors a run calls, and the action instructions they started with (the small profile
    replaces the prompt only while these are unchanged, i.e. not optimized by the user)."""

    action: Callable[..., dspy.Prediction]  # a dspy.Predict, or whatever the user put in its place
    extract: Callable[..., dspy.Prediction]
    default_action_instructions: str


def execution_rules(execution_instructions: str) -> str:
    """The action prompt's description of the runtime (dspy.RLM's ``Execution environment`` fragment)."""
    return f"\nExecution environment:\n{execution_instructions}\n" if execution_instructions else ""


def build_signatures(
    config: RunConfig, execution_instructions: str = ""
) -> tuple[type[dspy.Signature], type[dspy.Signature]]:
    """The action signature (reasoning + code per step) and the extract signature (the outputs, plus
    :data:`NOTES_FIELD`) for ``config``."""
    from dspy_rlm.library.helpers import helper_docs

    sig = config.signature
    hidden = hidden_extras([*config.tool_map, *sig.input_fields])
    helpers = "\n".join(line for line in helper_docs().splitlines() if line.split("(")[0] not in hidden)
    inputs = ", ".join(f"`{n}`" for n in sig.input_fields)
    names = list(sig.output_fields)
    task = f"{sig.instructions}\n\n" if sig.instructions else ""
    instructions = (
        task
        + prompts.ACTION_INSTRUCTIONS.format(
            inputs=inputs,
            output_fields=prompts.format_output_fields(sig),
            interpreter_rules=execution_rules(execution_instructions),
            helper_docs=helpers,
            final_output_names=", ".join(f"{n}=..." for n in names),
            final_help=prompts.FINAL_HELP_SINGLE if len(names) == 1 else prompts.FINAL_HELP_MULTI,
        )
        + tool_docs(config)
        + routing.prompt_docs(config.sub_lms)
        + media_docs(sig)
        + (facade.SUB_AGENT_INSTRUCTIONS if config.sub_agents is not False else "")
        + hidden_note(hidden)
    )
    action = (
        dspy.Signature({}, instructions)
        .append("variables_info", dspy.InputField(desc="Metadata about the variables available in the REPL"), type_=str)
        .append(
            "repl_history", dspy.InputField(desc="Previous REPL code executions and their outputs"), type_=REPLHistory
        )
        .append("iteration", dspy.InputField(desc="Current iteration number (1-indexed) out of max_iters"), type_=str)
        .append("budget", dspy.InputField(desc="What remains of the run's budget"), type_=str)
        .append("reasoning", dspy.OutputField(desc=prompts.REASONING_DESC), type_=str)
        .append("code", dspy.OutputField(desc=prompts.CODE_DESC), type_=str)
    )
    objective = f"The trajectory was generated with the following objective: \n{task}\n" if task else ""
    extract = dspy.Signature(
        {**sig.output_fields},
        objective + prompts.EXTRACT_INSTRUCTIONS.format(fallback_reason="see fallback_reason", notes_field=NOTES_FIELD),
    )
    if NOTES_FIELD not in sig.output_fields:
        # optional (dspy fills a missing one with None): scripts and models that omit it still parse
        extract = extract.append(
            NOTES_FIELD, dspy.OutputField(desc=prompts.NOTES_DESC, default=None), type_=Optional[str]
        )
    extract = extract.prepend("variables", dspy.InputField(desc="Current values of your REPL variables"), type_=str)
    extract = extract.prepend("fallback_reason", dspy.InputField(desc="Why the run stopped"), type_=str)
    extract = extract.prepend("repl_history", dspy.InputField(desc="Your REPL interactions so far"), type_=REPLHistory)
    extract = extract.prepend(
        "variables_info", dspy.InputField(desc="Metadata about the variables available in the REPL"), type_=str
    )
    return action, extract


def hidden_note(hidden: list[str]) -> str:
    """The prompt's line naming our REPL functions that a user tool or input of the same name replaces."""
    if not hidden:
        return ""
    return prompts.HIDDEN_NAMES_NOTE.format(names=", ".join(f"`{n}`" for n in hidden))


def media_docs(sig: type[dspy.Signature]) -> str:
    """The action prompt's line on media inputs (dspy.Image / dspy.Audio), "" when there are none."""
    kinds = tuple(t for t in (getattr(dspy, "Image", None), getattr(dspy, "Audio", None)) if t is not None)
    names = [
        n for n, f in sig.input_fields.items() if isinstance(f.annotation, type) and issubclass(f.annotation, kinds)
    ]
    if not names:
        return ""
    listed = ", ".join(f"`{n}`" for n in names)
    return (
        f"\nMedia inputs ({listed}) are objects in the REPL: send them to a sub-LM with "
        "`llm_query(prompt, media=[...])`."
    )


def tool_docs(config: RunConfig) -> str:
    """The user's tools, one line each, for the action prompt."""
    if not config.tools:
        return ""
    lines = ["\nAdditional tools available (use these instead of standard library equivalents):"]
    for tool in config.tools:
        params = ", ".join(f"{a}: {s.get('type', 'Any')}" for a, s in (tool.args or {}).items())
        desc = (tool.desc or "No description").replace("\n", "  ")
        lines.append(f"- `{tool.name}({params})` - {desc}")
    return "\n".join(lines)


_children: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_children_lock = threading.Lock()


def child_predictors(
    parent: RunConfig, depth: int, with_context: bool, execution_instructions: str = ""
) -> tuple[RunConfig, Predictors]:
    """A sub-RLM's configuration and predictors, its action instructions ending with the sub-RLM rules.

    Cached per parent configuration (frozen: a changed setting is a new configuration), depth and
    signature; predictors keep no state between runs. The budget numbers change per child, so they go in
    the ``budget`` input.
    """
    key = (depth, with_context, execution_instructions)
    with _children_lock:
        cache = _children.setdefault(parent, {})
        hit = cache.get(key)
    if hit is not None:
        return hit
    config = parent.for_child(depth, with_context)
    action_sig, extract_sig = build_signatures(config, execution_instructions)
    rules = prompts.SUB_RLM_RULES.format(depth=depth, max_depth=parent.limits.max_depth)
    action = dspy.Predict(action_sig.with_instructions(action_sig.instructions + "\n" + rules))
    # the instructions it starts with (rules included): a policy may replace them while they are unchanged
    preds = Predictors(action, dspy.Predict(extract_sig), action.signature.instructions)
    with _children_lock:
        return cache.setdefault(key, (config, preds))
