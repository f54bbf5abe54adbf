"""The functions a script defines, counted: "how many shell functions does the helper define?" counts the lines
that open a definition in the script's own language (``name() {`` in a shell script, ``def name`` in Python,
``function name(`` in awk, ``proc name`` in Tcl, ``sub name`` in Perl): ``count_matches(V, PATTERN, True)``. A
count of records answered something else (a shell script's records are its functions and its top-level
assignments: 25 for 18). The language is the script's (:func:`script_language`); in no known one nothing is
offered."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library.shellwords import looks_shell
from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.kind_registry import KindBase
from dspy_rlm.profiles.move import Move, read

__all__ = ["DefinitionsCounted", "asks_definitions", "definition_pattern", "script_language"]

DEFINITIONS = {
    "shell": r"(?m)^[ \t]*(?:function[ \t]+[A-Za-z_][\w.:-]*(?:[ \t]*\([ \t]*\))?|[A-Za-z_][\w.:-]*[ \t]*\([ \t]*\))"
    r"[ \t]*(?:\{|\(|$)",
    "python": r"(?m)^[ \t]*(?:async[ \t]+)?def[ \t]+[A-Za-z_]\w*[ \t]*\(",
    "awk": r"(?m)^[ \t]*func(?:tion)?[ \t]+[A-Za-z_]\w*[ \t]*\(",
    "tcl": r"(?m)^[ \t]*proc[ \t]+\S+[ \t]+\{",
    "perl": r"(?m)^[ \t]*sub[ \t]+[A-Za-z_]\w*[ \t]*(?:\{|$)",
}
"""Per language, the lines that open a function's definition."""

_LANGUAGES = r"(?:shell|sh|bash|awk|python|tcl|perl)"
_COUNTED_NOUN = re.compile(
    rf"\bhow\s+many\s+(?:{_LANGUAGES}\s+)?(?:functions|procedures|procs|subroutines|function\s+definitions)\b"
    r"|\bcount(?:ing)?\s+(?:every|all|each|the)\s+function\s+definitions?\b",
    re.IGNORECASE,
)
"""The functions counted, qualified by no word but a language's name ("how many *test* functions": some only)."""
_OTHER_VERBS = re.compile(r"\b(?:call|calls|called|calling|invokes?|invoked|uses?|used|exports?|exported)\b", re.I)
"""Functions a script calls or exports: no count of its definitions."""


_QUALIFIED = re.compile(
    r"\b(?:whose|that|which|named|called|with|beginning|begins?|starting|starts?|ending|ends?|containing|contains?"
    r"|matching|top[- ]level|nested|local|global|inside|within|under|in\s+the\s+\w+\s+(?:block|section|branch))\b",
    re.IGNORECASE,
)
"""Words after the noun counted that narrow it to some functions ("whose names begin with open_", "at top level")."""


def asks_definitions(question: str) -> bool:
    """Whether the question counts every function (procedure, subroutine) a text defines: no other verb, no word
    after the noun narrowing it to some."""
    m = _COUNTED_NOUN.search(question)
    return m is not None and _OTHER_VERBS.search(question) is None and not _QUALIFIED.search(question, m.end())


_SHEBANG = re.compile(r"#!\s*(?:\S*/)?(?:env\s+(?:-\S+\s+)*)?(?:\S*/)?([a-z]+)")
_INTERPRETERS = {"sh": "shell", "bash": "shell", "dash": "shell", "ksh": "shell", "zsh": "shell", "python": "python",
                 "python3": "python", "awk": "awk", "gawk": "awk", "mawk": "awk", "nawk": "awk", "tclsh": "tcl",
                 "wish": "tcl", "perl": "perl"}  # fmt: skip


def script_language(text: str) -> str | None:
    """The language a script is written in: its shebang's interpreter (``#!/usr/bin/awk -f``), else shell where the
    text is clearly a shell script (:func:`~dspy_rlm.library.shellwords.looks_shell`), else the one language whose
    definitions the text holds where no braces open blocks (a Tcl library: ``proc name {``; Python's ``def``)."""
    m = _SHEBANG.match(text)
    if m is not None:
        return _INTERPRETERS.get(re.sub(r"[\d.]+$", "", m.group(1)))
    if looks_shell(text.split("\n")[:400]):
        return "shell"
    found = [lang for lang in ("python", "tcl") if re.search(DEFINITIONS[lang], text)]
    return found[0] if len(found) == 1 else None


def definition_pattern(text: str) -> str | None:
    """The pattern of the lines opening a function's definition in the text's language; None where it is unknown."""
    lang = script_language(text)
    return DEFINITIONS[lang] if lang is not None else None


class DefinitionsCounted(KindBase):
    """``count_matches(V, PATTERN, True)``: how many functions the text defines, in its own language."""

    name = "count_defs"
    per_key = False
    every_record = True

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if "count" not in book.cues or book.answer_type is not int or not asks_definitions(book.text_q):
            return []
        memo = ("definition pattern", var)
        if memo not in book.memo:
            book.memo[memo] = definition_pattern(book.texts[var])
        pattern = book.memo[memo]
        if pattern is None:
            return []
        return [read(self.name, "I will count the function definitions.", "count_matches", var, pattern, True)]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if not isinstance(result, int) or isinstance(result, bool):
            return []
        return [Candidate(str(result), "count", result > 0, "counted the lines opening a function's definition")]
