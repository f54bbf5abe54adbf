"""Parse what the model wrote: code blocks, FINAL / FINAL_VAR markers, and the thinking around them."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field

# Every pattern runs in linear time on any text (a model can send megabytes): possessive quantifiers where two
# would split one run of characters, an info string without backticks (CommonMark's rule for ``` fences), and
# markers anchored at a line start by [^\S\n]* (``^\s*`` retried at every line of a blank run is quadratic).
_FENCE = re.compile(r"```[ \t]*+([A-Za-z0-9_+-]*+)[^\n`]*\n(.*?)(?:```|\Z)", re.DOTALL)
_CODE_LANGS = {"python", "py", "python3", "py3", "repl", ""}
_FINAL_VAR = re.compile(r"^[^\S\n]*FINAL_VAR\(\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)['\"]?\s*\)\s*$", re.MULTILINE)
_FINAL_START = re.compile(r"^[^\S\n]*FINAL\(", re.MULTILINE)
_LINE_END_PAREN = re.compile(r"\)(?=[^\S\n]*(?:\n|\Z))")  # a ")" with only blanks after it on its line
_TRAILING_BLANKS = re.compile(r"\s*$", re.MULTILINE)


@dataclass
class ParsedResponse:
    """A model response split into runnable code blocks, a textual final answer (if any) and thinking."""

    code_blocks: list[str] = field(default_factory=list)
    thinking: str = ""
    final_text: str | None = None  # FINAL(...) written as text outside code
    final_var: str | None = None  # FINAL_VAR(name) written as text outside code
    rejected_langs: list[str] = field(default_factory=list)

    @property
    def code(self) -> str:
        return "\n\n".join(self.code_blocks)


def parse_response(text: str | None) -> ParsedResponse:
    """Split a response into code blocks (```python / ```repl / bare fences), markers and thinking.

    Unfenced text that compiles as Python is treated as one code block (what dspy.RLM's models often send).
    Text outside code that holds ``FINAL(...)`` or ``FINAL_VAR(name)`` on its own line is a final answer.
    """
    text = (text or "").strip()
    parsed = ParsedResponse()
    if not text:
        return parsed
    outside: list[str] = []
    pos = 0
    for m in _FENCE.finditer(text):
        outside.append(text[pos : m.start()])
        pos = m.end()
        lang, body = m.group(1).lower(), m.group(2).strip("\n")
        if lang in _CODE_LANGS:
            if body.strip():
                parsed.code_blocks.append(body.rstrip())
        else:
            parsed.rejected_langs.append(lang)
    outside.append(text[pos:])
    if not parsed.code_blocks and not parsed.rejected_langs and _compiles(text):
        parsed.code_blocks.append(text)
        return parsed
    prose = "\n".join(s.strip() for s in outside if s.strip())
    _take_markers(prose, parsed)
    return parsed


def _take_markers(prose: str, parsed: ParsedResponse) -> None:
    m = _FINAL_VAR.search(prose)
    if m:
        parsed.final_var = m.group(1)
        prose = prose[: m.start()] + prose[m.end() :]
    else:
        span = _final_span(prose)
        if span is not None:
            start, value, end = span
            parsed.final_text = _unquote(value.strip())
            prose = prose[:start] + prose[end:]
    parsed.thinking = prose.strip()


def _final_span(prose: str) -> tuple[int, str, int] | None:
    """``FINAL(value)``: from the first line starting with ``FINAL(`` to the last ``)`` that ends a line after
    it (what ``^\\s*FINAL\\((.*)\\)\\s*$`` with DOTALL matches), found in linear time. The regex itself
    retried every ``FINAL(`` line against the rest of the text: 16,000 unclosed ones took 29 s."""
    start = _FINAL_START.search(prose)
    if start is None:
        return None
    close = None
    for match in _LINE_END_PAREN.finditer(prose, start.end()):
        close = match  # the last one
    if close is None:
        return None
    blanks = _TRAILING_BLANKS.match(prose, close.end())  # matches the empty string at least
    end = blanks.end() if blanks is not None else close.end()
    return start.start(), prose[start.end() : close.start()], end


def final_fields(text: str, names: list[str]) -> dict[str, object] | None:
    """The outputs of a multi-output ``FINAL(...)`` written as text: keywords (``FINAL(answer='x', n=2)``),
    values in field order, or one dict (a Python or JSON literal). ``None`` when the text is none of these.
    A keyword value that is not a literal is kept as its source text (the output types coerce it later)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        data = None
    if isinstance(data, dict):
        return {str(k): v for k, v in data.items()}
    try:
        call = ast.parse(f"_({text})", mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if not isinstance(call, ast.Call) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    values = [_literal(a, text) for a in call.args]
    if len(values) == 1 and isinstance(values[0], dict) and not call.keywords:
        return {str(k): v for k, v in values[0].items()}
    if len(values) > len(names) or any(k.arg is None for k in call.keywords):
        return None
    out: dict[str, object] = dict(zip(names, values))
    out.update({str(k.arg): _literal(k.value, text) for k in call.keywords})
    return out or None


def _literal(node: ast.expr, text: str) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        segment = ast.get_source_segment(f"_({text})", node)
        return segment if segment is not None else ""


def _unquote(value: str) -> str:
    try:
        literal = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        # TypeError: an unhashable key ({[1]: 2}); MemoryError / RecursionError: nesting the parser refuses
        return value
    return literal if isinstance(literal, str) else value


def _compiles(text: str) -> bool:
    try:
        compile(text, "<check>", "exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError):  # the last two: nesting too deep to parse
        return False
    return True
