"""Instruction lines: each logical line (continued by a trailing backslash) opens with an upper-case word and
holds its arguments (``FROM ruby:3.2``, ``RUN apt-get update && ...``, ``ENV RAILS_ENV=production``: a
Dockerfile or Containerfile, and any file of that shape). A record per instruction, keyed by its word, with the
fields ``instruction`` (the word) and ``arguments`` (the rest, its lines joined), and one field per
``NAME=value`` pair where the arguments are such pairs alone (``ENV``, ``ARG``, ``LABEL``; quotes removed).
Read as lines, a continued RUN was a record per line and a pair no field.
Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re

from dspy_rlm.library.formats import Raw, continued_lines, unquote

_INSTRUCTION = re.compile(r"([A-Z]{2,})(?:\s+(.*))?$")
_NAME_VALUE = re.compile(r"([A-Za-z_][\w.-]*)=(.*)", re.DOTALL)


def _instruction_lines(lines: list[str]) -> list[tuple[int, int, str]]:
    """The logical lines that are no comment (a comment inside a continuation is skipped, as Docker does)."""
    return continued_lines(lines, lambda s, _: not s or s.startswith("#"))


def looks_instructions(sample: list[str]) -> float:
    """The share of the logical lines that open with an upper-case word; 0 under four such lines, or where no
    word opens two of them (a file of instructions repeats some: RUN, COPY, ENV)."""
    rows = [t for _, _, t in _instruction_lines(sample)]
    words = [m.group(1) for r in rows if (m := _INSTRUCTION.match(r))]
    if len(words) < 4 or len(set(words)) == len(words):
        return 0.0
    return len(words) / len(rows)


_WORD = re.compile(r"""(?:[^\s"']+|"[^"]*"|'[^']*')+""")
"""A shell word: quoted parts keep their spaces (``--without="development test"``)."""


def _instruction_pairs(arguments: str) -> list[tuple[str, str]]:
    """The ``NAME=value`` pairs of arguments made of them alone (quotes around a value removed), else none."""
    if "=" not in arguments:
        return []
    words = _WORD.findall(arguments)
    found = [(m.group(1), unquote(m.group(2))) for w in words if (m := _NAME_VALUE.fullmatch(w))]
    return found if words and len(found) == len(words) else []


def parse_instructions(lines: list[str]) -> tuple[list[Raw], list[str]]:
    out: list[Raw] = []
    names: dict[str, None] = dict.fromkeys(["instruction", "arguments"])
    for a, b, text in _instruction_lines(lines):
        m = _INSTRUCTION.match(text)
        if m is None:
            out.append((a, b, [], "", None))
            continue
        arguments = m.group(2) or ""
        pairs = _instruction_pairs(arguments)
        names.update(dict.fromkeys(n for n, _ in pairs))
        fields = [("instruction", m.group(1)), *([("arguments", arguments)] if arguments else []), *pairs]
        out.append((a, b, fields, m.group(1), None))
    return out, list(names)
