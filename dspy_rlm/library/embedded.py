"""Data written inside a program: a module whose lines are mostly one assignment of a bracketed literal (Python's
``SPINNERS = {"dots": {"interval": 80, ...}, ...}``, a JavaScript ``const TABLE = [...]``) or of a triple-quoted
string holding a JSON document (``policies = \"\"\"{...}\"\"\"``). :func:`embedded_json` returns the text with every
character outside that literal blanked (line breaks kept, so each record keeps its lines) and the literal written
as JSON (Python's ``True`` / ``None``, single quotes, tuples, trailing commas and comments, each rewritten in the
same number of characters), for the JSON document reader. Stdlib only: inlined by
:func:`dspy_rlm.library.helpers.standalone_source`."""

import json
import re

_DATA_ASSIGN = re.compile(
    r"^(?:(?:export\s+)?(?:const|let|var)\s+)?[A-Za-z_$][\w.$]*\s*(?::[^=\n]*)?=\s*"
    r"(?P<open>[\[{]|[rbuRBU]{0,2}(?:\"\"\"|'''))[ \t]*\r?$",
    re.MULTILINE,
)
_BARE_OPEN = re.compile(r"(?:[ \t]*(?:(?:#|//)[^\n]*)?\r?\n)*[ \t]*[\[{]")
"""Blank and comment lines, then the bracket opening the text's one literal."""
_LITERAL_TOKEN = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|#[^\n]*|//[^\n]*|[\[\]{}()]")
_PY_TO_JSON = {"True": "true", "False": "false", "None": "null"}
_PY_WORD = re.compile(r"\b(?:True|False|None)\b")
_COMMA_BEFORE_CLOSE = re.compile(r",(\s*[\]}])")
_OPENERS = {"[": "]", "{": "}", "(": ")"}
_ADJACENT_STRINGS = re.compile(r"\"((?:[^\"\\\n]|\\.)*)\"(\s+)\"((?:[^\"\\\n]|\\.)*)\"")
"""Two strings with only white space between them: one string in Python and JavaScript ("ab" "cd")."""


def _one_string(m: re.Match[str]) -> str:
    """The two strings as one, then the white space between them, line breaks last (the same length)."""
    ws = m.group(2)
    return f'"{m.group(1)}{m.group(3)}"' + " " * (len(ws) - ws.count("\n") + 2) + "\n" * ws.count("\n")


def _blanked(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def _closing(text: str, start: int) -> int | None:
    """The offset of the bracket closing the one at ``start`` (strings and comments skipped), else None."""
    depth = 0
    for m in _LITERAL_TOKEN.finditer(text, start):
        t = m.group()
        if t in _OPENERS:
            depth += 1
        elif t in ")]}":
            depth -= 1
            if depth == 0:
                return m.start()
    return None


def _literal_as_json(literal: str) -> str:
    """``literal`` written as JSON, character for character where it can be (unconvertible input stays, and the
    JSON reader refuses it)."""
    out, at = [], 0
    for m in _LITERAL_TOKEN.finditer(literal):
        out.append(_PY_WORD.sub(lambda w: _PY_TO_JSON[w.group()], literal[at : m.start()]))
        t = m.group()
        if t[0] == "'" and '"' not in t:
            t = '"' + t[1:-1] + '"'
        elif t[0] in "#/":
            t = " " * len(t)
        elif t == "(":
            t = "["
        elif t == ")":
            t = "]"
        out.append(t)
        at = m.end()
    out.append(_PY_WORD.sub(lambda w: _PY_TO_JSON[w.group()], literal[at:]))
    text = "".join(out)
    while True:  # "a" "b" "c": one join a pass
        joined = _ADJACENT_STRINGS.sub(_one_string, text)
        if joined == text:
            break
        text = joined
    return _COMMA_BEFORE_CLOSE.sub(lambda m: " " + m.group(1), text)


def embedded_json(text: str) -> str | None:
    """``text`` with everything but its one data literal blanked and that literal as JSON, where the literal spans
    half its lines or more and reads as a JSON object or array; else None."""
    lines = text.count("\n") + 1
    bare = _BARE_OPEN.match(text)  # a file that is one literal under its comments (a .gypi's dict)
    if bare and (end := _closing(text, bare.end() - 1)) is not None:
        body = _literal_as_json(text[bare.end() - 1 : end + 1])
        if body.count("\n") * 2 >= lines and (padded := _as_json(text, bare.end() - 1, end, body)) is not None:
            return padded
    line, at = 0, 0  # the line of ``at``, counted on as the matches go (once over the text)
    for m in _DATA_ASSIGN.finditer(text):
        line, at = line + text.count("\n", at, m.end()), m.end()
        if (lines - line) * 2 < lines:  # no literal this late spans half the lines
            break
        opening = m.group("open")
        if opening in "[{":
            start = m.end("open") - 1
            end = _closing(text, start)
            if end is None:
                continue
            body = _literal_as_json(text[start : end + 1])
        else:
            start = m.end()
            close = text.find(opening[-3:], start)
            if close < 0:
                continue
            body, end = text[start:close], close - 1
            if body.strip()[:1] not in ("{", "["):
                continue
        if body.count("\n") * 2 < lines:
            continue
        if (padded := _as_json(text, start, end, body)) is not None:
            return padded
    return None


def _as_json(text: str, start: int, end: int, body: str) -> str | None:
    """``text`` blanked but for ``body`` (the literal from ``start`` to ``end`` as JSON), where it loads."""
    padded = _blanked(text[:start]) + body + _blanked(text[end + 1 :])
    try:
        json.loads(padded)
    except ValueError:
        return None
    return padded
