"""Makefiles as records: one per variable assignment (``NAME = value``, ``NAME := value``, ``NAME ?= value``,
``NAME += value``, a backslash continuing a value onto the next line), keyed by the variable's name, its value
the field of that name (as the ``assignments`` kind); one per rule (``target: prerequisites`` and its
tab-indented recipe), keyed by its targets, with the fields ``prerequisites`` and ``recipe`` (one command a
line). The conditionals (``ifeq`` .. ``endif``) are no records. Read as lines, a variable was no field.
Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re

from dspy_rlm.library.formats import Raw
from dspy_rlm.library.kvformats import logical_lines

_MAKE_ASSIGN = re.compile(r"(?:export[ \t]+|override[ \t]+)?([A-Za-z_][\w.-]*)[ \t]*(?:::|[:?+!])?=[ \t]*(.*)$")
_MAKE_RULE = re.compile(r"[^\s#=:][^=#]*?:(?!=)")
_TARGET_VARIABLE = re.compile(
    r"\$\([\w.-]+\)[ \t]*:[ \t]*(?:export[ \t]+|override[ \t]+)?[A-Za-z_][\w.-]*[ \t]*[:?+!]?="
)
_MAKE_DIRECTIVE = re.compile(
    r"-?(?:s?include|ifeq|ifneq|ifdef|ifndef|else|endif|define|endef|export|unexport|vpath)\b"
    r"|![ \t]*(?i:if|ifdef|ifndef|else|elseif|endif|include|message|error|undef)\b"  # NMAKE's: "!IF ...", "!ENDIF"
)


def looks_makefile(sample: list[str]) -> float:
    """The share of the statements (comments and blanks left out) that assign a variable, open a rule, run a
    recipe (a tab-indented line) or are a directive; 0 unless at least three assign and one is a rule,
    a recipe or a directive (else a plain ``NAME=value`` file: the ``assignments`` kind)."""
    rows = [t for _, _, t in logical_lines(sample) if t.strip() and not t.lstrip().startswith("#")]
    assigns = sum(1 for t in rows if not t.startswith("\t") and _MAKE_ASSIGN.match(t))
    other = sum(
        1
        for t in rows
        if t.startswith("\t")
        or _MAKE_DIRECTIVE.match(t)
        or (_MAKE_RULE.match(t) and "=" not in t)
        or _TARGET_VARIABLE.match(t)  # "$(TARGETS): GNU = ...": a variable set for some targets
    )
    if assigns < 3 or other < 1:
        return 0.0
    return (assigns + other) / len(rows)


def parse_makefile(lines: list[str]) -> tuple[list[Raw], list[str]]:
    out: list[Raw] = []
    names: dict[str, None] = {}
    define = False  # inside "define NAME" .. "endef": the lines are a value, no statements
    rule: list | None = None  # the rule being read: [first, last, targets, prerequisites, recipe lines]
    for a, b, text in logical_lines(lines):
        if rule is not None and text.startswith("\t") and not define:
            rule[1] = b
            rule[4].append(_squeezed(text, text))
            continue
        if rule is not None and text.strip() and not text.lstrip().startswith("#"):
            out.append(_rule(rule))
            rule = None
        if define or text.startswith("\t") or not text.strip() or text.lstrip().startswith("#"):
            define = define and not text.strip().startswith("endef")
            continue
        if re.match(r"(?:override\s+)?define\b", text) and not _MAKE_ASSIGN.match(text):  # not "defines = x"
            define = True
            continue
        m = _MAKE_ASSIGN.match(text)
        if m:
            name, value = m.group(1), _squeezed(re.split(r"\s#", m.group(2), maxsplit=1)[0], text)  # "# ..." ends it
            names[name] = None
            out.append((a, b, [(name, value)], name, None))
        elif (r := _MAKE_RULE_LINE.match(text)) and not _MAKE_DIRECTIVE.match(text):
            targets, deps = _squeezed(r.group(1), text), r.group(2).split(";", 1)
            rule = [a, b, targets, _squeezed(re.split(r"\s#", deps[0], maxsplit=1)[0], text), []]
            if len(deps) > 1 and deps[1].strip():  # "target: deps ; command"
                rule[4].append(_squeezed(deps[1], text))
    if rule is not None:
        out.append(_rule(rule))
    if any(r[2] and r[2][0][0] in _RULE_FIELDS for r in out):
        names.update(dict.fromkeys(_RULE_FIELDS))
    return out, list(names)


def _squeezed(part: str, line: str) -> str:
    """``part`` with its runs of blanks as one space where the line writes it so, else as written: a value is a
    span of the text (``0\r0`` stays, not ``0 0``)."""
    squeezed = " ".join(part.split())
    return squeezed if squeezed in line else part.strip()


_MAKE_RULE_LINE = re.compile(r"([^\s#=:][^=#:]*?)\s*::?(?!=)(.*)$")
_RULE_FIELDS = ("prerequisites", "recipe")


def _rule(rule: list) -> Raw:
    """A rule as a record: keyed by its targets, its prerequisites and its recipe (one command a line) fields."""
    first, last, targets, deps, recipe = rule
    fields = [("prerequisites", deps)] if deps else []
    fields += [("recipe", "\n".join(recipe))] if recipe else []
    return (first, last, fields, targets, None)
