"""A unified diff (a ``.patch`` or ``.diff`` file, ``git diff`` or ``diff -u`` output): one record per changed
line, keyed by its text (without the ``+`` / ``-``), with the fields ``change`` (``added`` or ``removed``),
``file`` (the path it changes, past git's ``a/`` / ``b/``), ``heading`` (what the ``@@ -l,n +l,n @@`` header says
after its ranges: the function or class the hunk sits in, as the diff tool cut it), ``hunk`` (the name that
heading declares, ``class HTTPConnection(http.cli``: ``HTTPConnection``, else the heading) and ``line`` (its
number in the new file, or in the old one for a removed line). Context lines, file headers and ``\\ No newline``
marks are no records. Read as lines, a changed line kept neither its hunk nor its file, and ``+`` / ``-`` were
part of its words. Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import itertools
import re

from dspy_rlm.library.formats import Raw

_HUNK = re.compile(r"^@@+ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@+ ?(.*)$")
_FILE_NEW = re.compile(r"^\+\+\+ (?:b/)?(\S+)")
_FILE_OLD = re.compile(r"^--- (?:a/)?(\S+)")
_DIFF_HEAD = re.compile(r"^(?:diff |index |Index: |new file mode|deleted file mode|similarity index|rename |={5,})")
_DECLARES_NAME = re.compile(
    r"(?:^|\s)(?:class|def|function|func|fn|sub|struct|enum|interface|module|procedure|method)\s+([A-Za-z_$][\w$]*)"
)
_C_NAMED = re.compile(r"([A-Za-z_]\w*)\s*\(")  # "static int parse_args(int argc": C's function, before its "("


_STATEMENTS = frozenset({"if", "for", "while", "switch", "return", "sizeof", "catch", "elif", "with"})
"""Words before a ``(`` that open a statement, no function a hunk sits in (``if (x) {``)."""


def looks_diff(sample: list[str]) -> float:
    """The share of non-blank lines a unified diff writes (headers, hunk headers, changed and context lines),
    where it has a ``---`` / ``+++`` pair and a hunk header; else 0."""
    rows = [ln for ln in sample if ln.strip()]
    hunks = sum(1 for ln in rows if _HUNK.match(ln))
    paired = any(_FILE_OLD.match(a) and _FILE_NEW.match(b) for a, b in itertools.pairwise(rows))
    if not hunks or not paired:
        return 0.0
    start = next(i for i, ln in enumerate(rows) if _DIFF_HEAD.match(ln) or _FILE_OLD.match(ln))
    if start * 2 > len(rows):  # a mail's headers and message above the diff (git format-patch): half at most
        return 0.0
    fits = sum(1 for ln in rows[start:] if ln[:1] in "+- \\@" or _DIFF_HEAD.match(ln))
    return fits / len(rows[start:])


def _within(heading: str) -> str:
    """The name a hunk's heading declares (``class X(``, ``def f(``, ``int main(void)``), else ""."""
    m = _DECLARES_NAME.search(heading) or _C_NAMED.search(heading)
    return m.group(1) if m and m.group(1) not in _STATEMENTS else ""


def parse_diff(lines: list[str]) -> tuple[list[Raw], list[str]]:
    raws: list[Raw] = []
    path, heading, old, new, old_left, new_left = "", "", 0, 0, 0, 0  # a hunk's lines left, as its header counts
    for i, line in enumerate(lines):
        if old_left > 0 or new_left > 0:
            mark, text = line[:1], line[1:]
            if mark == "+":
                raws.append((i, i, _fields("added", path, heading, new), text.strip(), None))
                new, new_left = new + 1, new_left - 1
            elif mark == "-":
                raws.append((i, i, _fields("removed", path, heading, old), text.strip(), None))
                old, old_left = old + 1, old_left - 1
            elif mark == " " or not line:
                old, new, old_left, new_left = old + 1, new + 1, old_left - 1, new_left - 1
            if mark in "+- \\":  # ("\\ No newline at end of file" belongs to the hunk)
                continue
            old_left = new_left = 0  # a hunk cut short: this line is no part of it
        if hunk := _HUNK.match(line):
            old, new, heading = int(hunk.group(1)), int(hunk.group(3)), hunk.group(5).strip()
            old_left, new_left = int(hunk.group(2) or 1), int(hunk.group(4) or 1)
        elif m := _FILE_NEW.match(line):
            path = "" if m.group(1) == "/dev/null" else m.group(1)
        elif (m := _FILE_OLD.match(line)) and m.group(1) != "/dev/null":
            path = m.group(1)
    return raws, ["change", "file", "hunk", "heading", "line"]


def _fields(change: str, path: str, heading: str, number: int) -> list[tuple[str, str]]:
    return [
        ("change", change),
        ("file", path),
        ("hunk", _within(heading) or heading),
        ("heading", heading),
        ("line", str(number)),
    ]
