"""Settings written commented out (sample configs) and ``NAME = VALUE;`` statements: two line formats of
:mod:`dspy_rlm.library.structure`, each a ``looks_*`` score and a ``parse_*`` reading into raw records. Stdlib only:
:func:`dspy_rlm.library.helpers.standalone_source` inlines it after formats.py."""

import re

from dspy_rlm.library.formats import ASSIGN, STANZA_KEY, Raw, _share, is_comment, meaningful, unquote

# -- settings written commented out (sample configs: ``#figure.figsize: 6.4, 4.8  # in inches``) ------------
_SETTING = re.compile(r"[ \t]*#([A-Za-z_][\w.-]*)[ \t]*[:=][ \t]*(\S.*?)?[ \t]*$")
_TRAILING_COMMENT = re.compile(r"(\S)\s+#.*$")


def _setting(line: str) -> tuple[str, str] | None:
    """A ``#key: value`` / ``#key = value`` line (no space after the mark: a commented-out setting, not prose)
    or the same line uncommented; the value without its trailing ``# comment``."""
    m = _SETTING.match(line) or ASSIGN.match(line.strip()) or STANZA_KEY.match(line.strip())
    if not m or not (m.group(2) or "").strip() or (line.lstrip()[:1] != "#" and " " in m.group(1)):
        return None
    return m.group(1), unquote(_TRAILING_COMMENT.sub(r"\1", m.group(2).strip()))


def looks_commented_settings(sample: list[str]) -> float:
    """The share of the non-blank lines that are settings, commented out or not, where at least a fifth of all
    lines are commented-out settings (a file of prose comments and a few settings is not one)."""
    rows = [ln for ln in sample if ln.strip()]
    matches = [_SETTING.match(ln) for ln in rows]
    commented = sum(1 for m in matches if m is not None and (m.group(2) or "").strip())
    if len(rows) < 5 or _share(commented, len(rows)) < 0.2:
        return 0.0
    prose = sum(1 for ln, m in zip(rows, matches) if m is None and is_comment(ln))
    return _share(len(rows) - prose, len(rows)) + _share(commented, len(rows))


def commented_outnumber(sample: list[str]) -> bool:
    """Whether a config's commented-out settings outnumber its live ones three to one (five or more): a shipped
    sample (wgetrc) documents its defaults there, beside the one or two it sets."""
    rows = [ln for ln in sample if ln.strip()]
    commented = sum(1 for ln in rows if (m := _SETTING.match(ln)) and (m.group(2) or "").strip())
    live = sum(1 for ln in rows if not is_comment(ln) and _setting(ln))
    return commented >= 5 and commented >= 3 * live


def parse_commented_settings(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """One record per setting, commented out or live; a live one hides the commented-out lines of its name."""
    pairs = [(i, pair, line.lstrip()[:1] != "#") for i, line in enumerate(lines) if (pair := _setting(line))]
    live = {pair[0] for _, pair, on in pairs if on}
    return [(i, i, [pair], pair[0], None) for i, pair, on in pairs if on or pair[0] not in live], []


# -- statements ``NAME = VALUE;`` (XKB keycodes, C-like declarations), with ``//`` comments --------------------
_STATEMENT = re.compile(r"\s*([^\s=;/{}][^=;{}]*?)\s*=\s*([^;]*?)\s*;\s*(?://\s*(.*))?$")
_FRAME = re.compile(r"\s*(?://|/\*|\*|[{}]|$)|.*\{\s*$")  # a comment line, a brace, a block's opening line


def looks_statements(sample: list[str]) -> float:
    """The share of the lines that are not comments or braces that are ``name = value;`` statements."""
    rows = [ln for ln in meaningful(sample) if not _FRAME.match(ln)]
    return _share(sum(1 for ln in rows if _STATEMENT.match(ln)), len(rows)) if len(rows) >= 3 else 0.0


_DEFINE_LINE = re.compile(r"\s*#\s*define\s+\w+\s+\S")


def defines_outnumber(sample: list[str]) -> bool:
    """Whether a C header's ``#define NAME value`` lines (comments to :func:`looks_statements`) outnumber its
    ``name = value;`` statements, five or more: ``arpa/ftp.h``'s four name arrays amid its forty codes."""
    statements = sum(1 for ln in meaningful(sample) if not _FRAME.match(ln) and _STATEMENT.match(ln))
    return sum(1 for ln in sample if _DEFINE_LINE.match(ln)) > max(statements, 4)


def parse_statements(lines: list[str]) -> tuple[list[Raw], list[str]]:
    out = []
    for i, line in enumerate(lines):
        m = _STATEMENT.match(line) if not _FRAME.match(line) else None
        if m:
            name = " ".join(m.group(1).split())  # "indicator 3", "alias <MENU>", "<LVL3>"
            fields = [(name, unquote(m.group(2)))] + ([("comment", m.group(3).strip())] if m.group(3) else [])
            out.append((i, i, fields, name, None))
    return out, []
