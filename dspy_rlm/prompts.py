"""Instructions for the root RLM, sub-RLMs and fallback extraction.

The action step keeps dspy.RLM's shape (inputs ``variables_info``, ``repl_history``, ``iteration``; outputs
``reasoning`` and ``code``) and adds a ``budget`` input, so scripted LMs written for dspy.RLM drive ours and
optimizers can rewrite the instructions.
"""

from __future__ import annotations

ACTION_INSTRUCTIONS = """You are tasked with producing the following outputs given the inputs {inputs}:
{output_fields}

You have a persistent Python REPL. The inputs are ALREADY loaded as variables ({inputs}); you see only a short \
summary of each. Write Python code, see its output, then decide the next step. State persists between steps.
{interpreter_rules}
Functions in the REPL:
{helper_docs}
- `llm_query(prompt)` - one sub-LM call on text you pass (~1 call, seconds, cheap). For meaning, not for search.
- `llm_query_batched(prompts)` - many independent sub-LM calls at once (one call each, about the time of one call); a failed item comes back as '[ERROR] ...'.
- `rlm_query(task, context=None)` - a sub-RLM with its own REPL for a sub-problem too big for one prompt \
(several calls, slower, costs a share of your budget; becomes llm_query when the budget is low).
- `batch_rlm_query(tasks)` - several sub-RLMs concurrently (about the time of one, each costs its share); tasks are strings or (task, context) pairs; a failed item comes back as '[ERROR] ...'.
- `SUBMIT({final_output_names})` - end with typed outputs.{final_help}
- `print()` - print what you need to see. A trailing expression is echoed, like in a notebook.

Rules:
1. EXPLORE FIRST: check types, lengths and a few samples (peek, search) before processing. Never print a \
huge variable whole.
2. ITERATE in small steps. Several ```python blocks in one answer run in order, which saves iterations:
```python
hits = search(context, "invoice", max_results=5)
print(hits)
```
```python
print(count_matches(context, "OVERDUE"))
```
3. USE CODE for counting, filtering and exact values; use llm_query only for semantics.
4. SUBMIT ONLY AFTER SEEING the values you submit. Failed code shows the error and line: fix it and go on.
5. Watch the budget shown each step; when it runs low, SUBMIT your best answer."""

HIDDEN_NAMES_NOTE = (
    "\nIn this run these names are your tools or inputs, not the built-in functions described above: {names}."
)

FINAL_HELP_SINGLE = (
    '\n- `FINAL(value)` / `FINAL_VAR("name")` - end with a value, or with the value of a variable by name.'
)
FINAL_HELP_MULTI = '\n- `FINAL_VAR("name")` - end with a variable holding a dict of all outputs.'

SUB_RLM_RULES = """
You are a sub-RLM at depth {depth} of max {max_depth}, solving one sub-task for a parent run. Your allocated \
budget and what the parent has left are shown in `budget` at every step; you cannot spend more than you were \
allocated.
Be efficient: prefer llm_query over rlm_query (a sub-RLM costs several calls), finish within 2-5 iterations, \
and return FINAL(...) or SUBMIT(...) as soon as you have the answer."""

EXTRACT_INSTRUCTIONS = """The REPL run reached its limit ({fallback_reason}) before submitting.
Extract the final outputs from the REPL history and the current variable values.
1. Review the history to see what was computed. 2. Look at the current variables.
3. Extract or infer each required output. Prefer values that were computed over guesses.
If a value cannot be determined, use null where the output type allows it (else your best estimate
consistent with the type) and say in `{notes_field}` which outputs you could not determine and why."""
NOTES_DESC = "Which outputs could not be determined from the history and variables, and why (empty if none)"

REASONING_DESC = "Think step-by-step: what do you know? What remains? Plan your next action."
CODE_DESC = "Python code to execute. Use markdown code block format: ```python\\n<code>\\n```"

NO_CODE_MESSAGE = (
    "[No code] Your answer contained no Python code, so nothing ran. Reply with Python in a ```python block; "
    "the inputs are variables in the REPL. When you know the answer, call SUBMIT(...) inside the code."
)


def format_output_fields(signature) -> str:
    from dspy.adapters.utils import translate_field_type

    return "\n".join(f"- {translate_field_type(n, f)}" for n, f in signature.output_fields.items())
