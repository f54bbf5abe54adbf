"""Key-value formats behind :func:`dspy_rlm.library.structure.detect`: ``Key: value`` stanzas, INI sections
and ``NAME=value`` assignments (YAML-like indentation: :mod:`dspy_rlm.library.yamltree`). Same conventions as
:mod:`dspy_rlm.library.formats` (stdlib-only, raw records ``(first, last, fields, key, text)``, values are
stripped spans of the text).
"""

import re
from collections import Counter

from dspy_rlm.library.formats import (  # standalone_source() inlines formats.py before this file
    ASSIGN,
    INI_KV,
    SECTION,
    STANZA_KEY,
    Raw,
    _line_kv,
    _share,
    is_comment,
    meaningful,
    spaced_kv,
    unquote,
)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(first, last) 0-based line ranges of the blank-line-separated blocks."""
    out, start = [], None
    for i, line in enumerate(lines):
        if line.strip():
            start = i if start is None else start
        elif start is not None:
            out.append((start, i - 1))
            start = None
    if start is not None:
        out.append((start, len(lines) - 1))
    return out


# -- Key: value stanzas (Debian control files, DEP-5 copyright, METADATA / e-mail headers) -----------------
def _stanza_blocks(lines: list[str]) -> list[tuple[int, int]]:
    """:func:`blocks`, a block joined to the one before where it goes on indented after lines of blanks only (a
    folded value's empty lines: a wheel's ``License:`` text in METADATA), not after an empty line."""
    out: list[tuple[int, int]] = []
    for a, b in blocks(lines):
        gap = lines[out[-1][1] + 1 : a] if out else []
        if gap and lines[a][:1] in (" ", "\t") and all(ln.rstrip("\r\n") and not ln.strip() for ln in gap):
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def _stanza_block(lines: list[str], a: int, b: int) -> list[tuple[int, int, str, str]] | None:
    """(first, last, name, value) per field when the block is a stanza (continuations start with a space)."""
    fields: list[tuple[int, int, str, str]] = []
    for i in range(a, b + 1):
        line = lines[i]
        if (line[:1] in (" ", "\t") or not line.strip()) and fields:
            f = fields[-1]
            fields[-1] = (f[0], i, f[2], f[3])
            continue
        if line.startswith("#"):
            continue  # a comment line of its own ("# Not world readable ..." above a debconf.conf stanza)
        m = STANZA_KEY.match(line.rstrip("\r"))
        if not m:
            return None
        fields.append((i, i, m.group(1), (m.group(2) or "").strip()))
    return fields


def _field_value(lines: list[str], first: int, last: int) -> str:
    head = lines[first]
    value = head[head.index(":") + 1 :]
    return "\n".join([value, *lines[first + 1 : last + 1]]).strip()


def _yamlish(lines: list[str], fields: list[tuple[int, int, str, str]]) -> bool:
    """Are most continuation lines of a block ``key: value`` or ``- item`` lines (YAML, not a stanza)?"""
    indented = [lines[i] for f in fields for i in range(f[0] + 1, f[1] + 1)]
    return sum(1 for ln in indented if re.match(r"\s+(- |[\w.-]+:(\s|$))", ln)) > len(indented) / 2


def looks_stanzas(sample: list[str]) -> float:
    spans = _stanza_blocks(sample)
    parsed = [_stanza_block(sample, a, b) for a, b in spans]
    kv = [p for p in parsed if p and not _yamlish(sample, p) and 2 * sum(1 for f in p if f[3]) >= len(p)]
    if not kv or (parsed[0] and _yamlish(sample, parsed[0])):
        return 0.0
    held = sum(b - a + 1 for (a, b), p in zip(spans, parsed, strict=True) if p)
    if all(len(p) == 1 for p in kv) and held < sum(b - a + 1 for a, b in spans) / 2:
        return 0.0  # one "Section: X" line over each block of other lines: section marks, not records
    names = [f[2] for f in kv[0]]
    capitalized = _share(sum(1 for n in names if n[:1].isupper()), len(names))
    firsts = [p[0][2] for p in kv]
    common = max(firsts, key=firsts.count)  # a one-line header block ("ChangelogURI: ...") may open the file
    repeated = len(kv) >= 2 and (firsts.count(firsts[0]) >= 2 or firsts.count(common) >= max(2, len(kv) / 2))
    if repeated or (len(kv[0]) >= 3 and parsed[0] and capitalized >= 0.8):
        return max(0.7, _share(len(kv), len(spans)))
    return 0.0


def parse_stanzas(lines: list[str]) -> tuple[list[Raw], list[str]]:
    out: list[Raw] = []
    names: dict[str, None] = {}
    for a, b in _stanza_blocks(lines):
        parsed = _stanza_block(lines, a, b)
        if not parsed:
            out.append((a, b, [], "", None))
            continue
        fields = [(name, _field_value(lines, f, last)) for f, last, name, _ in parsed]
        names.update(dict.fromkeys(n for n, _ in fields))
        out.append((a, b, fields, fields[0][1].split("\n")[0].strip(), None))
    if len(out) > 1 and out[0][2] and not any(r[2] for r in out[1:]):
        # a message: one header block over a free-text body (a wheel's METADATA and its README), one record
        # keyed by its name; the body's paragraphs are no records (search() still reads them)
        a, b, fields, key, _ = out[0]
        named = [v for n, v in fields if n.casefold() in _ID_NAMES]
        return [(a, b, fields, named[0].split("\n")[0].strip() if named else key, None)], list(names)
    return out, list(names)


# -- commented stanzas: "# Key: value" header lines over a body (certificate bundles, annotated dumps) --------
_COMMENT_KV = re.compile(r"[ \t]*#[ \t]*(.*)$")
_ID_NAMES = ("name", "label", "title", "id", "key")


def _commented_fields(lines: list[str], a: int, b: int) -> list[tuple[str, str]]:
    """The leading ``# Key: value`` lines of a block, as fields (none when fewer than two)."""
    fields = []
    for i in range(a, b + 1):
        m = _COMMENT_KV.match(lines[i])
        kv = STANZA_KEY.match(m.group(1).rstrip("\r")) if m else None
        if not kv or not (kv.group(2) or "").strip():
            break
        name, value = kv.group(1), unquote((kv.group(2) or "").strip())
        fields += [(name, value), *inline_pairs(name, value)]
    return fields if len(fields) >= 2 else []


_PAIR = re.compile(r"(?:^|\s)([A-Z]{1,3})=")


def inline_pairs(name: str, value: str) -> list[tuple[str, str]]:
    """A value written as short upper-case ``KEY=value`` pairs (a distinguished name: ``CN=Root CA O=Acme``)
    as fields of their own, ``Issuer CN`` and ``Issuer O``; none for any other value."""
    marks = list(_PAIR.finditer(value))
    if len(marks) < 2 or marks[0].start() != 0:
        return []
    ends = [m.start() for m in marks[1:]] + [len(value)]
    return [(f"{name} {m.group(1)}", value[m.end() : end].strip()) for m, end in zip(marks, ends)]


def looks_commented_stanzas(sample: list[str]) -> float:
    """Blocks that each open with two or more ``# Key: value`` lines, most of them with a body after."""
    spans = blocks(sample)
    headed = [(a, b, n) for a, b in spans if (n := len(_commented_fields(sample, a, b)))]
    if len(headed) < 2:
        return 0.0
    bodies = sum(1 for a, b, n in headed if b - a + 1 > n)
    return _share(len(headed), len(spans)) if bodies * 2 >= len(headed) else 0.0


def parse_commented_stanzas(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """One record per block: its ``# Key: value`` lines as fields, the block's text whole. The key is the field
    that names each record: an identifier-like name (``Label``, ``Name``) whose values are all distinct, else
    the first field whose values are, else the first field."""
    parsed = [(a, b, _commented_fields(lines, a, b)) for a, b in blocks(lines)]
    names: dict[str, None] = {}
    for _, _, fields in parsed:
        names.update(dict.fromkeys(n for n, _ in fields))
    headed = [dict(f) for _, _, f in parsed if f]

    def distinct(name: str) -> bool:
        values = [f.get(name) for f in headed]
        return None not in values and len(set(values)) == len(values)

    unique = [n for n in names if distinct(n)]
    ids = [n for n in unique if n.casefold() in _ID_NAMES]
    key = (ids or unique or list(names) or [""])[0]
    out: list[Raw] = [
        (a, b, fields, dict(fields).get(key, fields[0][1] if fields else ""), None) for a, b, fields in parsed
    ]
    return out, list(names)


# -- INI sections: one record per section, its keys as fields ----------------------------------------------
_SEPARATOR_LINE = re.compile(r"([-=*_~])\1{2,}\s*$")
"""A line of one repeated mark ("-----"): a separator drawn between sections, no setting."""


def looks_ini(sample: list[str]) -> float:
    """Share of the unindented lines that are ``[section]`` or ``key = value`` (indented lines continue a
    value and are not counted: a Python file, mostly indented, does not pass on them)."""
    rows = [r for r in meaningful(sample) if r[:1] not in (" ", "\t") and not _SEPARATOR_LINE.match(r)]
    if not any(SECTION.match(r) for r in rows):
        return 0.0
    return _share(sum(1 for r in rows if SECTION.match(r) or _ini_pair(r)), len(rows))


def _ini_pair(line: str) -> bool:
    m = INI_KV.match(line.strip())
    if not m or "(" in m.group(1):
        return False
    return bool(m.group(2).strip()) or " " not in m.group(1)


_COMMENTED_SETTING = re.compile(r"[#;]([A-Za-z_][\w.-]*)=(.*)$")
"""``#Name=value``: a setting commented out with no space after the mark, as a shipped config documents its
defaults (systemd's ``#DefaultTimeoutStartSec=90s``); prose comments have a space after the mark."""


def parse_ini(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """One record per section, its ``key = value`` lines as fields. A section with no live setting reads its
    commented-out ``#Name=value`` lines instead: a shipped config whose every setting is commented documents
    its defaults there, and they are all it says."""
    out: list[Raw] = []
    names: dict[str, None] = {}
    section, first = "", -1
    fields: list[list] = []  # [name, first line, last line]
    commented: list[tuple[str, str]] = []  # the section's #Name=value lines

    live: list[list[tuple[str, int, int, str]]] = []  # each record's live settings: name, lines, value

    def close(last: int) -> None:
        if first >= 0 or fields:
            pairs = [(n, unquote(_ini_value(lines, a, b))) for n, a, b in fields] or commented
            names.update(dict.fromkeys(n for n, _ in pairs))
            out.append((max(first, 0) if first >= 0 else fields[0][1], last, pairs, section, None))
            live.append([(n, a, b, v) for (n, a, b), (_, v) in zip(fields, pairs, strict=False)] if fields else [])

    last, going = -1, False
    for i, line in enumerate(lines):
        if is_comment(line) and (c := _COMMENTED_SETTING.match(line.strip())):
            commented.append((c.group(1), unquote(c.group(2).strip())))
            last = last if fields else i  # the record spans them where they are its settings
        going = going and not is_comment(line)  # a comment line ends a value (as configparser reads it)
        if not line.strip() or is_comment(line):
            continue
        m = SECTION.match(line)
        if m:
            close(last)
            section, first, fields, commented = m.group(1).strip(), i, [], []
        elif going and fields and _indent(line) > _indent(lines[fields[-1][1]]):  # deeper than its key: continues it
            fields[-1][2] = i
        elif _SEPARATOR_LINE.match(line.strip()):
            continue
        elif kv := INI_KV.match(line.strip()):
            fields.append([kv.group(1).strip(), i, i])
            going = True
        last = i
    close(last)
    if len(out) == 1 and _lone_settings(live[0]):  # one section of many settings (an entry_points.txt): each
        # setting is a record of its own, as in a file of NAME = value lines ("which console script runs X?",
        # "how many scripts live in package P?" ask of its settings, not of the one section)
        return [(a, b, [(n, v)], n, None) for n, a, b, v in live[0]], list(dict.fromkeys(n for n, *_ in live[0]))
    return out, list(names)


_LONE_SECTION = 8
"""A lone section with this many live settings or more is read one record per setting."""


def _lone_settings(settings: list[tuple[str, int, int, str]]) -> bool:
    """Whether a lone section's settings are records of their own: :data:`_LONE_SECTION` or more, each name once
    and each value on its own line (a section whose names repeat or whose values go on below lists items: its
    lists are read as the section's)."""
    names = [n for n, *_ in settings]
    return len(settings) >= _LONE_SECTION and len(set(names)) == len(names) and all(a == b for _, a, b, _ in settings)


def _ini_value(lines: list[str], a: int, b: int) -> str:
    head = lines[a]
    eq, colon = head.find("="), head.find(":")
    cut = eq if colon < 0 or 0 <= eq < colon else colon
    value = head[cut + 1 :] if a == b else "\n".join([head[cut + 1 :], *lines[a + 1 : b + 1]])
    return value.strip()


# -- NAME=value assignments (os-release, shell config, adduser.conf) ----------------------------------------
def logical_lines(lines: list[str]) -> list[tuple[int, int, str]]:
    """(first, last, text) per logical line: a line ending in a backslash goes on on the next (Java properties,
    shell), the backslash and the next line's indent joined as one space."""
    out: list[tuple[int, int, str]] = []
    i = 0
    while i < len(lines):
        first, text = i, lines[i]
        while text.rstrip().endswith("\\") and i + 1 < len(lines) and not is_comment(lines[first]):
            i += 1
            text = text.rstrip()[:-1].rstrip() + " " + lines[i].strip()
        out.append((first, i, text))
        i += 1
    return out


def looks_assignments(sample: list[str]) -> float:
    rows = meaningful([text for _, _, text in logical_lines(sample)])
    return _share(sum(1 for r in rows if ASSIGN.match(r.strip())), len(rows)) if rows else 0.0


def assignment_value(raw: str) -> str:
    value = raw.strip()
    if value[:1] and value[:1] in "\"'" and value.find(value[0], 1) > 0:  # "KEY=" is an empty value
        return value[1 : value.find(value[0], 1)]
    return unquote(re.split(r"\s+#", value, maxsplit=1)[0].strip())


def parse_assignments(lines: list[str]) -> tuple[list[Raw], list[str]]:
    out: list[Raw] = []
    names: dict[str, None] = {}
    for i, last, line in logical_lines(lines):
        if not line.strip() or is_comment(line):
            continue
        m = ASSIGN.match(line.strip())
        if m:
            name, value = m.group(1), assignment_value(m.group(2))
            names[name] = None
            out.append((i, last, [(name, value)], name, None))
        else:
            out.append((i, last, [], "", None))
    return out, list(names)


_TRAILING_HASH = re.compile(r"\s+#\s")
"""Where a value's trailing comment starts: a ``#`` with a space on each side."""


def parse_lines(lines: list[str]) -> list[Raw]:
    """One record per line; a ``key: value`` / ``key=value`` line is keyed by its name (a list's ``"R2019a=9.6"``
    names R2019a), as an assignment is, and so is a ``name  "value"`` line whose name no other line opens with. In a
    text whose comment lines open with ``#``, a value's trailing ``# comment`` is no part of it (stat.py's
    ``S_ENFMT = S_ISGID # file locking enforcement``)."""
    spaced = {i: pair for i, ln in enumerate(lines) if ln.strip() and (pair := spaced_kv(ln))}
    said = Counter(name for name, _ in spaced.values())
    hashed = any(ln.lstrip().startswith("# ") for ln in lines[:5000])
    out: list[Raw] = []
    for i, ln in enumerate(lines):
        if ln.strip():
            kv = _line_kv(ln) or ([spaced[i]] if i in spaced and said[spaced[i][0]] == 1 else [])
            if hashed and len(kv) == 1 and (cut := _TRAILING_HASH.split(kv[0][1], maxsplit=1)[0]):
                kv = [(kv[0][0], cut)]
            out.append((i, i, kv, kv[0][0] if len(kv) == 1 else "", None))
    return out
