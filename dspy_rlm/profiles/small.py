"""The small-model profile's prompt pieces: compact instructions, compact variable summaries, the code
constraint (a regex for a small Python subset) and the shipped demos.

The instructions are about a fifth of the default profile's (count them with
``benchmarks/small_model.py --prompt-tokens``): a 135M model follows two worked steps far better than a page
of rules, so most of the teaching is in the demos compiled by ``benchmarks/compile_small.py``.
"""

from __future__ import annotations

import json
import logging
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any

import dspy

from dspy_rlm import prompts
from dspy_rlm.names import hidden_extras

logger = logging.getLogger(__name__)

__all__ = ["DEMOS_PATH", "code_pattern", "compact_variables_info", "load_demos", "small_action_signature"]

DEMOS_PATH = Path(__file__).with_name("small_program.json")
"""The RLM program compiled for the small profile (``dspy.Module.save`` JSON); its action demos ship."""

INSTRUCTIONS = """Answer the query by writing Python in a REPL. The inputs {inputs} are already variables there; \
you see only a summary of each. Each step, write one line of code; its printed output comes back in the history.
Functions (var is a text input; word is a word or phrase of the query; field is a field name of the data):
- search(var, 'text'): the lines of var that contain 'text', printed as 'line N: ...'.
- record_of(var, word): the record (row, stanza, section) holding word, one 'Field: value' per line.
- field_of(var, word, field): the value of field in that record.
- count_records(var, word), count_where(var, field, value), count_if(var, field, test, value): how many \
records match (test: 'starts', 'ends', 'contains', 'part', '<', '>').
- most_common(var, field), max_of(var, field), min_of(var, field): rank a field's values.
- exists(var, word): True or False. key_of(var, value): the key of the record holding value.
- peek(var, start, end): the slice var[start:end]. llm_query('prompt'): ask a helper model.
- SUBMIT({outputs}): finish with the answer.{tools}
How to find a fact: 1) read the record or field the query names, by the rarest word of the query (a name, key \
or ID); count, rank or check existence when the query asks how many, which is most common or largest, or yes/no. \
2) SUBMIT the value exactly as printed. If nothing was found, try another word of the query."""


def _tools_text(tools: dict[str, Any]) -> str:
    return "".join(
        f"\n- {name}(...): {(getattr(t, 'desc', '') or '').splitlines()[0][:100]}" for name, t in tools.items()
    )


def instructions(signature: type[dspy.Signature], tools: dict[str, Any]) -> str:
    """The compact action instructions for ``signature`` (with the task's own instructions first)."""
    inputs = ", ".join(signature.input_fields)
    outputs = ", ".join(f"{n}=..." for n in signature.output_fields)
    text = INSTRUCTIONS.format(inputs=inputs, outputs=outputs, tools=_tools_text(tools))
    hidden = hidden_extras([*tools, *signature.input_fields])  # our helpers a tool or input of that name hides
    if hidden:
        text += prompts.HIDDEN_NAMES_NOTE.format(names=", ".join(f"`{n}`" for n in hidden))
    task = (
        signature.instructions
        if signature.instructions and not signature.instructions.startswith("Given the fields")
        else ""
    )
    return f"{task}\n\n{text}" if task else text


TERSE_INSTRUCTIONS = (
    "Answer the query with one line of Python a step over the REPL variables {inputs}; then SUBMIT({outputs})."
)
"""The one-line action instructions of ``Profile.terse_prompt`` (a model whose weights learned the moves)."""


def terse_instructions(signature: type[dspy.Signature]) -> str:
    """:data:`TERSE_INSTRUCTIONS` for ``signature`` (with the task's own instructions first)."""
    inputs = ", ".join(signature.input_fields)
    outputs = ", ".join(f"{n}=..." for n in signature.output_fields)
    text = TERSE_INSTRUCTIONS.format(inputs=inputs, outputs=outputs)
    own = signature.instructions or ""
    task = own if own and not own.startswith("Given the") else ""
    return f"{task}\n\n{text}" if task else text


# -- the code constraint ------------------------------------------------------------------------------------
# A JSON-string-safe Python subset on one line: it starts with a name followed by `(` (a call: print(...),
# SUBMIT(...), search(...)) or ` = ` (an assignment); more statements follow after `; `. No double quote,
# backslash, control character, backtick or `#`, so the JSON text and the Python text are the same characters
# (the pattern holds for both) and neither code fences nor comment-only "code" can be written. Kept small on
# purpose: nested counted repetitions blow up the regex and the token index built over the vocabulary.
_ID = r"[A-Za-z_][A-Za-z0-9_]*"
CODE_PATTERN = rf"{_ID}(\(| = )[^\"\\\x00-\x1f#`]*[)'0-9A-Za-z\]]"
"""A call or an assignment, then anything on the same line (``; `` separates statements)."""


def code_pattern() -> str:
    """The regex the ``code`` field is held to, over the JSON string's raw characters."""
    return CODE_PATTERN


REASONING_PATTERN = r"[A-Za-z0-9 ,.:;'()_-]{1,120}"
"""One short sentence: small models ramble inside free text until max_tokens."""


@lru_cache(maxsize=64)
def small_action_signature(
    signature: type[dspy.Signature], tool_names: tuple[str, ...] = (), constrained: bool = True, terse: bool = False
) -> type[dspy.Signature]:
    """The action signature of the small profile: the same fields as the default one (so demos, traces and
    optimizers see the same program), compact instructions (with ``terse``, :data:`TERSE_INSTRUCTIONS`), and
    with ``constrained`` the ``reasoning`` and ``code`` fields held to :data:`REASONING_PATTERN` /
    :data:`CODE_PATTERN` at Tier 3."""
    from dspy.primitives.repl_types import REPLHistory

    text = terse_instructions(signature) if terse else instructions(signature, dict.fromkeys(tool_names))
    if constrained:
        from outlines.types import Regex

        reasoning_type: Any = Annotated[str, Regex(REASONING_PATTERN)]
        code_type: Any = Annotated[str, Regex(CODE_PATTERN)]
    else:
        reasoning_type = code_type = str
    return (
        dspy.Signature({}, text)
        .append("variables_info", dspy.InputField(desc="The REPL variables"), type_=str)
        .append("repl_history", dspy.InputField(desc="Your code so far and its output"), type_=REPLHistory)
        .append("iteration", dspy.InputField(desc="Step number out of the maximum"), type_=str)
        .append("budget", dspy.InputField(desc="What is left"), type_=str)
        .append("reasoning", dspy.OutputField(desc="One short sentence: what to do now"), type_=reasoning_type)
        .append("code", dspy.OutputField(desc="Python code, one statement per line"), type_=code_type)
    )


# -- compact variable summaries -----------------------------------------------------------------------------
def _first_line(text: str, limit: int = 100) -> str:
    line = text[: limit + 1].split("\n", 1)[0]
    return line if len(line) <= limit else line[:limit] + "..."


def _shape(text: str) -> str:
    """``a table (tsv) of 318 records, fields: a, b, c; `` -- the detected structure, in a few words."""
    from dspy_rlm.library.structure import detect

    s = detect(text)
    if s.kind == "lines" or not s.records:
        return ""
    detail = f" ({s.detail})" if s.detail else ""
    names = ", ".join(s.field_names[:8]) + (" ..." if len(s.field_names) > 8 else "")
    return f"{s.kind}{detail} of {len(s.records):,} records" + (f", fields: {names}" if names else "") + "; "


def compact_variables_info(inputs: dict[str, Any], task: dict[str, str] | None = None) -> str:
    """One line per input: the task's text in full, short text in full, long text as size and first line,
    containers as their size.

    Args:
        inputs: The run's inputs.
        task: The inputs that state the task (:func:`dspy_rlm.profiles.base.task_split`), shown in full
            whatever their length (up to 2,000 characters).
    """
    task = task or {}
    lines = []
    for name, value in inputs.items():
        if name in task:
            lines.append(f"- {name}: {str(value)[:2000]!r}")
        elif isinstance(value, str) and len(value) <= 300 and not task:
            lines.append(f"- {name}: {value!r}")
        elif isinstance(value, str):
            n_lines = value.count("\n") + (not value.endswith("\n"))  # as wc -l, plus an unended last line
            lines.append(
                f"- {name}: text, {len(value):,} chars, {n_lines:,} lines, {_shape(value)}starts {_first_line(value)!r}"
            )
        elif isinstance(value, dict) and value and all(isinstance(v, str) for v in value.values()):
            shown = ", ".join(f"{k!r} ({len(v):,} chars)" for k, v in list(value.items())[:8])  # a directory
            lines.append(f"- {name}: dict of {len(value):,} texts: {shown}{' ...' if len(value) > 8 else ''}")
        elif isinstance(value, (list, tuple, dict)):
            lines.append(f"- {name}: {type(value).__name__} of {len(value):,} items")
        else:
            lines.append(f"- {name}: {type(value).__name__} {str(value)[:100]!r}")
    return "\n".join(lines)


# -- demos --------------------------------------------------------------------------------------------------
@lru_cache(maxsize=4)
def _kind_demos(path: str) -> dict[str, tuple[dspy.Example, ...]]:
    file = Path(path)
    if not file.is_file():
        return {}
    state = json.loads(file.read_text())
    return {
        kind: tuple(dspy.Example(**{k: v for k, v in d.items() if k != "source_question"}) for d in demos)
        for kind, demos in (state.get("kind_demos") or {}).items()
    }


def kind_demos(kind: str, path: str = str(DEMOS_PATH)) -> tuple[dspy.Example, ...]:
    """The shipped demos for one kind of question (``benchmarks/kind_demos.py``); empty when there are none."""
    return _kind_demos(path).get(kind, ())


@lru_cache(maxsize=4)
def load_demos(path: str = str(DEMOS_PATH)) -> tuple[dspy.Example, ...]:
    """The ``generate_action`` demos of the compiled small program (empty when the file is missing)."""
    file = Path(path)
    if not file.is_file():
        logger.warning("small-profile demos not found at %s; running without demos", file)
        return ()
    state = json.loads(file.read_text())
    demos = (state.get("generate_action") or {}).get("demos") or []
    return tuple(dspy.Example(**d) for d in demos)
