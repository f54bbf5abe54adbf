"""POSIX locale definition sources (``localedef`` input: glibc's ``/usr/share/i18n/locales/*``, charmaps): a file
that declares its own comment and escape characters (``comment_char %``, ``escape_char /``) and holds
categories opened by a bare name (``LC_TIME``) and closed by ``END LC_TIME``, each a run of ``keyword value``
lines (a value continued onto the next line by the escape character at its end). Each keyword line is a record
keyed by its keyword, as an assignment is: the field of that name holds its value (its quoted strings unquoted
and joined by ``;``, each ``<U00E4>`` written as the character it names), and ``section`` the category. Read as
lines, the ``%`` comments outnumbered the settings and no value was a field.
Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re

from dspy_rlm.library.formats import Raw

_LOCALE_DECLARED = re.compile(r"(comment_char|escape_char)[ \t]+(\S)[ \t]*$")
_LOCALE_SECTION = re.compile(r"([A-Z][A-Z0-9_]*)[ \t]*$")
_LOCALE_KEYWORD = re.compile(r"([A-Za-z_][\w-]*)(?:[ \t]+(.*?))?[ \t]*$")
_LOCALE_UCS = re.compile(r"<U([0-9A-Fa-f]{4,8})>")
_LOCALE_QUOTED = re.compile(r'"((?:[^"]|"")*)"')


def _locale_chars(lines: list[str]) -> dict[str, str]:
    """The comment and escape characters the first settings declare (``%`` and ``/`` in glibc's locales)."""
    out = {"comment_char": "#", "escape_char": "\\"}
    for line in lines[:40]:
        m = _LOCALE_DECLARED.match(line.strip())
        if m:
            out[m.group(1)] = m.group(2)
    return out


def looks_locale(sample: list[str]) -> bool:
    """Whether the text declares ``comment_char`` or ``escape_char`` among its first lines and closes a category
    it opens (``LC_CTYPE`` .. ``END LC_CTYPE``)."""
    if not any(_LOCALE_DECLARED.match(line.strip()) for line in sample[:40]):
        return False
    opened = {m.group(1) for line in sample if (m := _LOCALE_SECTION.match(line.strip()))}
    return any(line.strip().startswith("END ") and line.strip()[4:].strip() in opened for line in sample)


def _locale_value(raw: str, escape: str) -> str:
    """A keyword's value as read: quoted strings unquoted and joined by ``;``, ``<UXXXX>`` as its character."""
    strings = _LOCALE_QUOTED.findall(raw)
    text = ";".join(strings) if strings and not _LOCALE_QUOTED.sub("", raw).replace(";", "").strip() else raw
    text = _LOCALE_UCS.sub(lambda m: chr(int(m.group(1), 16)) if int(m.group(1), 16) <= 0x10FFFF else m.group(0), text)
    return text.replace(escape + escape, escape)


def parse_locale(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """One record per keyword line, keyed by the keyword: its field of that name and ``section`` (its category)."""
    chars = _locale_chars(lines)
    comment, escape = chars["comment_char"], chars["escape_char"]
    out: list[Raw] = []
    section, i = "", 0
    names: dict[str, None] = {}
    while i < len(lines):
        start, text = i, lines[i].strip()
        while text.endswith(escape) and not text.endswith(escape + escape) and i + 1 < len(lines):
            i += 1  # "abmon "tammi";/" goes on below
            text = text[:-1].rstrip() + lines[i].strip()
        i += 1
        if not text or text.startswith(comment) or _LOCALE_DECLARED.match(text):
            continue
        if text.startswith("END ") or text == "END":
            section = ""
            continue
        if _LOCALE_SECTION.fullmatch(text) and not section:
            section = text
            continue
        m = _LOCALE_KEYWORD.match(text)
        if m and (value := _locale_value(m.group(2) or "", escape)):  # 'contact ""': nothing to read
            out.append(
                (start, i - 1, [(m.group(1), value)] + ([("section", section)] if section else []), m.group(1), None)
            )
            names[m.group(1)] = None
    return out, [*names, "section"]
