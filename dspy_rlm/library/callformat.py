"""Call tables: texts whose lines each call a function or macro with data as its arguments (LLVM's X-macro tables,
``HANDLE_DW_LANG(0x001c, Rust, 0, 5, DWARF)``; a CMake list of ``set(NAME value)``; a C table of
``ENTRY("name", 3, flags)`` lines). Each call is a record with the fields ``call`` (the callee) and one per
argument, named by the parameters of a ``#define CALLEE(ID, NAME, ...)`` the text holds, else ``arg1`` ..
``argN`` (quotes removed); its key is the argument named ``NAME`` (any case), else the first argument that is a
name or a quoted string rather than a number. A call whose parentheses close on a later line takes those lines
(at most eight). Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re

from dspy_rlm.library.formats import Raw, unquote
from dspy_rlm.library.textkit import split_outside

_CALL = re.compile(r"\s*(?P<callee>[A-Za-z_][\w.:]*)\s*\((?P<args>.*)\)\s*[;,]?\s*(?:(?://|#).*|/\*.*\*/)?$")
_OPEN_CALL = re.compile(r"\s*[A-Za-z_][\w.:]*\s*\(")
_DEFINE = re.compile(r"\s*#\s*define\s+(?P<callee>[A-Za-z_]\w*)\((?P<params>[^)]*)\)")
_COMMENT_LINE = re.compile(r"\s*(?://|/\*|\*|#)")  # comments, and the preprocessor lines around a table
_NUMERIC_ARG = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F]+|\d[\d_.]*[a-zA-Z]*)$")
_MAX_LINES = 8


_QUOTED = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'")


def _balance(text: str) -> int:
    """Opening parentheses less closing ones, outside quotes."""
    bare = _QUOTED.sub("", text)
    return bare.count("(") - bare.count(")")


def _closed_once(args: str) -> bool:
    """Whether no parenthesis in ``args`` closes the call early (``f(a) + g(b)`` is no call of f)."""
    depth = 0
    for ch in _QUOTED.sub("", args):
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


def _calls(lines: list[str]) -> list[tuple[int, int, str, list[str]]]:
    """(first line, last line, callee, arguments) of each line that is one call (with its continuation lines)."""
    out = []
    i = 0
    while i < len(lines):
        first, text = i, lines[i]
        if _OPEN_CALL.match(text) and not _COMMENT_LINE.match(text):
            while _balance(text) > 0 and i + 1 < len(lines) and i - first < _MAX_LINES:
                i += 1
                text += " " + lines[i].strip()
            m = _CALL.match(text)
            if m and _closed_once(m.group("args")):
                out.append((first, i, m.group("callee"), split_outside(m.group("args"))))
            else:
                i = first
        i += 1
    return out


def looks_calls(sample: list[str]) -> float:
    """The share of the code lines (not blank, not comments or preprocessor lines) that are calls of two
    arguments or more, where there are ten such calls and a tenth as many callees or fewer; 0 otherwise."""
    code = sum(1 for ln in sample if ln.strip() and not _COMMENT_LINE.match(ln))
    calls = [c for c in _calls(sample) if len(c[3]) >= 2]
    if len(calls) < 10 or not code:
        return 0.0
    if len({c[2] for c in calls}) * 10 > max(len(calls), 30):
        return 0.0  # a program calling many functions, not a table written as calls
    return min(1.0, sum(b - a + 1 for a, b, _, _ in calls) / code)


def parse_calls(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """One record per call: fields ``call`` and the arguments (see the module doc)."""
    params = {}
    for ln in lines:
        if (d := _DEFINE.match(ln)) is not None:
            params[d.group("callee")] = [p.strip() for p in d.group("params").split(",") if p.strip()]
    out: list[Raw] = []
    names: dict[str, None] = {"call": None}
    for a, b, callee, args in _calls(lines):
        known = params.get(callee, [])
        fields = [("call", callee)]
        for n, arg in enumerate(args):
            name = known[n] if n < len(known) and known[n].isidentifier() else f"arg{n + 1}"
            fields.append((name, unquote(arg)))
            names[name] = None
        key = next((v for f, v in fields[1:] if f.casefold() == "name"), None)
        if key is None:
            key = next((v for _, v in fields[1:] if v and not _NUMERIC_ARG.match(v)), "")
        out.append((a, b, fields, key, None))
    return out, list(names)
