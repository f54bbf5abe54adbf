"""CSS style sheets as records: one per rule (``selector { property: value; ... }``), its key the selector as
written (whitespace collapsed), a field per declaration, ``/* comments */`` left out; the rules inside an
``@media`` / ``@supports`` block are records of their own. Read as lines, a value kept its ``;`` and a
property was no field. Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import bisect
import re

from dspy_rlm.library.formats import Raw

_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_CSS_DECL = re.compile(r"^\s*(--[\w-]+|[a-zA-Z-]+)\s*:\s*[^;{}]+;?\s*$")


def _opens_rule(line: str) -> bool:
    """A line that ends with ``{`` after something with no ``{};`` (a selector, an ``@media`` query). String
    checks: the pattern this was had three overlapping repeats (1.8 s on a line of 16,000 spaces)."""
    s = line.rstrip()
    return s.endswith("{") and s[:-1].strip() != "" and not any(c in s[:-1] for c in "{};")


def _one_line_rule(line: str) -> bool:
    """A whole rule on one line: a selector with no ``;``, then declarations in braces (``.highlight .k { color:
    #204a87 }``, a generated style sheet's; ``a:hover { color: red }``). A head that ends with ``:`` or ``=`` labels
    an object (``"key": { "a": 1 }``, ``x = { a: 1 }``), no selector."""
    s = line.rstrip()
    if not (s.endswith("}") and s.count("{") == 1 and s.count("}") == 1):
        return False
    head, _, body = s[:-1].partition("{")
    head = head.strip()
    return head != "" and ";" not in head and not head.endswith((":", "=", "(", ",")) and ":" in body


def looks_css(sample: list[str]) -> float:
    """The share of the lines (comments, blanks and ``}`` left out) that open a rule or declare a property,
    where at least three open one."""
    if sum(ln.count("{") for ln in sample) < 3:  # no comment stripping for the texts with no rules
        return 0.0
    text = _CSS_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), "\n".join(sample))
    rows = [ln for ln in text.split("\n") if ln.strip() and ln.strip() != "}"]
    opens = sum(1 for ln in rows if _opens_rule(ln) or _one_line_rule(ln))
    if opens < 3:
        return 0.0
    return sum(1 for ln in rows if _opens_rule(ln) or _one_line_rule(ln) or _CSS_DECL.match(ln)) / len(rows)


_CSS_TRAILING = re.compile(r"\}[ \t]*/\*[ \t]*([^\n]*?)[ \t]*\*/[ \t]*$")


def parse_css(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """One record per rule; a rule whose line closes with a comment (``.k { ... } /* Keyword */``: a generated
    style sheet naming each class) has it as the field ``comment``."""
    trailing = {k: m.group(1) for k, ln in enumerate(lines) if "*/" in ln and (m := _CSS_TRAILING.search(ln))}
    text = "\n".join(lines)
    text = _CSS_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)  # keep every offset
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    out: list[Raw] = []
    stack: list[tuple[str, int]] = []  # open blocks: (selector, offset of its text)
    mark = 0  # where the text since the last brace starts
    for m in re.finditer(r"[{}]", text):
        if m.group(0) == "{":
            stack.append((" ".join(text[mark : m.start()].split()), m.end()))
        elif stack:
            selector, begin = stack.pop()
            body = text[begin : m.start()]
            fields = []
            for decl in body.split(";"):
                name, colon, value = decl.partition(":")
                if colon and "{" not in decl and name.strip() and value.strip():
                    fields.append((name.strip(), " ".join(value.split())))
            if fields and not selector.startswith("@"):
                a = bisect.bisect_right(starts, begin - 1) - 1  # the line of its "{"
                b = max(a, bisect.bisect_right(starts, m.start()) - 1)
                fields += [("comment", trailing[b])] if trailing.get(b) else []
                out.append((a, b, fields, selector, None))
        mark = m.end()
    out.sort(key=lambda r: r[0])
    return out, []
