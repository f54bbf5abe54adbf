"""The words of a shell script: its simple commands (split at ``;``, ``&&``, ``|`` and line ends outside quotes and
``$( )``) and their heredoc bodies, a command's words, its one assignment; and whether a text is a shell script
(:func:`looks_shell`). The records are :mod:`~dspy_rlm.library.shellformat`'s. Stdlib only:
:func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re

from dspy_rlm.library.formats import unquote

_SHEBANG = re.compile(r"#!\s*(?:/\S*/)?(?:env\s+(?:-\S+\s+)*)?(?:/\S*/)?(?:ba|da|k|z|a|mk)?sh(?:93)?(?:\s|$)")
_SH_HEREDOC = re.compile(r"<<(-?)[ \t]*(?:'([^'\n]+)'|\"([^\"\n]+)\"|\\?([\w.-]+))")
SH_ASSIGN = re.compile(r"(?:(?:export|readonly|local|typeset|declare(?:[ \t]+-\w+)*)[ \t]+)?([A-Za-z_]\w*)=")
_SH_OTHER = re.compile(
    r"(?:def|class|import|sub|use|my|package|ifeq|ifneq|ifdef|endif|\.PHONY|dnl)\b|[\w.$()/%-]+[ \t]*::?(?:[ \t]|$)"
    r"|A[CMHU]_[A-Z_]+\("
)  # a Python, Perl, Makefile or M4 line (autoconf's macros around shell): no shell script's
_SH_PYTHON = re.compile(r"(?:def|class)\s+\w+.*:\s*$|import\s+\w|from\s+\S+\s+import\s|'''exec'|\"\"\"exec\"")
_SH_BLOCK = re.compile(r"(?:^|;)\s*(if|fi|esac|done|while|until|for|case(?=\s+\S.*?\s+in(?:\s|;|$)))(?=\s|;|$)")
"""A word opening or closing a block, first in a command."""
ShCmd = tuple[int, int, str]  # start, end (stripped) and the separator after it


def sh_commands(text: str, lines: list[str], starts: list[int]) -> tuple[list[ShCmd], dict[int, tuple[int, int]]]:
    """The simple commands of a script, split at ``;``, ``;;``, ``&&``, ``||``, ``|``, ``&`` and line ends outside
    quotes and ``$( )``, comments left out; and the body lines of each command's heredoc (by command index)."""
    cmds: list[ShCmd] = []
    bodies: dict[int, tuple[int, int]] = {}
    quote, depth, begin, i = "", 0, -1, 0
    while i < len(lines):
        line, base, pending, j, cont = lines[i], starts[i], [], 0, False
        while j < len(line):
            c = line[j]
            if quote:
                if c == "\\" and quote != "'":
                    j += 1
                elif c == quote:
                    quote = ""
            elif c == "#" and not depth and (j == 0 or line[j - 1] in " \t;&|()"):
                break
            elif (
                c in ";&|"
                and not depth
                and not (c == "&" and ((j and line[j - 1] in "<>") or line[j + 1 : j + 2] == ">"))
            ):
                two = line[j : j + 2]  # ">&2", "&>file": a redirection, no separator
                sep, width = (two, 2) if two in ("&&", "||", ";;") else (";;", 2) if two == ";&" else (c, 1)
                if begin >= 0 or sep == ";;":
                    cmds.append((begin if begin >= 0 else base + j, base + j, sep))
                begin, j = -1, j + width + (sep == ";;" and line[j + 2 : j + 3] == "&")
                continue
            else:
                begin = base + j if begin < 0 and not c.isspace() else begin
                if c == "\\":
                    cont, j = j == len(line) - 1, j + 1
                elif c in "'\"`":
                    quote = c
                elif line.startswith("$(", j):
                    depth, j = depth + 1, j + 1
                elif depth and c in "()":
                    depth += 1 if c == "(" else -1
                elif line[j - 1 : j] != "<" and not line.startswith("<<<", j) and (m := _SH_HEREDOC.match(line, j)):
                    pending.append((m.group(2) or m.group(3) or m.group(4), bool(m.group(1)), len(cmds)))
                    j = m.end() - 1
            j += 1
        if not (quote or cont or depth) and begin >= 0:
            cmds.append((begin, base + len(line), "\n"))
            begin = -1
        for word, dash, owner in pending:  # the heredoc's body: no commands
            k = i + 1
            while k < len(lines) and (lines[k].strip() if dash else lines[k].rstrip("\r")) != word:
                k += 1
            bodies[min(owner, len(cmds) - 1)] = (i + 1, k - 1)
            i = k
        i += 1
    if begin >= 0:
        cmds.append((begin, len(text), "\n"))
    return [(s, s + len(text[s:e].rstrip()), sep) for s, e, sep in cmds], bodies


def sh_word_end(text: str, j: int, end: int) -> int:
    """Where the shell word at ``j`` ends (quotes, ``$( )`` and backquotes kept whole)."""
    quote, depth = "", 0
    while j < end:
        c = text[j]
        if quote:
            if c == "\\" and quote != "'":
                j += 1
            elif c == quote:
                quote = ""
        elif c == "\\":
            j += 1
        elif c in "'\"`":
            quote = c
        elif text.startswith("$(", j) or (c == "(" and depth):
            depth, j = depth + 1, j + (c == "$")
        elif c == ")" and depth:
            depth -= 1
        elif c.isspace() and not depth:
            return j
        j += 1
    return min(j, end)


def sh_words(text: str, s: int, e: int) -> list[tuple[int, int]]:
    out = []
    while s < e:
        if text[s].isspace():
            s += 1
            continue
        out.append((s, w := max(sh_word_end(text, s, e), s + 1)))
        s = w
    return out


def sh_assignment(text: str, s: int, e: int) -> tuple[str, int, int] | None:
    """(name, value start, value end) of a command that only assigns one variable."""
    m = SH_ASSIGN.match(text, s, e)
    if m is None:
        return None
    w = sh_word_end(text, m.end(), e)
    return (m.group(1), m.end(), w) if not text[w:e].strip() else None


def sh_unquoted(text: str, s: int, e: int) -> tuple[int, int]:
    """The span of ``text[s:e]`` less the quotes around it."""
    return (s + 1, e - 1) if unquote(text[s:e]) != text[s:e] else (s, e)


def looks_shell(sample: list[str]) -> float:
    """1 for a shell's shebang (``#!/bin/sh``, ``#! /bin/bash -e``, ``#!/usr/bin/env bash``); 0.9 for a text no
    shebang opens that is clearly shell: its ``if``/``fi``, ``case``/``esac`` and loops balanced, four or more, two
    of them ``if`` or ``case``, and no Makefile rule, Python or Perl line; else 0."""
    if not sample:
        return 0.0
    python = sum(1 for ln in sample if _SH_PYTHON.match(ln))  # a Python program a sh line starts: '''exec' ...
    if _SHEBANG.match(sample[0]) and python < 3 and not any(_SH_PYTHON.match(ln) for ln in sample[1:3]):
        return 1.0
    if sample[0].startswith("#!") or python:
        return 0.0
    if any(_SH_OTHER.match(ln.strip()) for ln in sample):
        return 0.0
    said = [m.group(1) for ln in sample for m in _SH_BLOCK.finditer(ln.strip())]
    count = {w: said.count(w) for w in ("if", "fi", "case", "esac", "done")}
    count["loop"] = said.count("while") + said.count("until") + said.count("for")
    balanced = count["if"] == count["fi"] and count["case"] == count["esac"] and count["loop"] == count["done"]
    many = count["if"] + count["case"] >= 2 and count["if"] + count["case"] + count["loop"] >= 4
    return 0.9 if balanced and many else 0.0
