"""Manual pages (roff with the ``man`` macros: ``.TH``, ``.SH``, ``.TP``..., or mdoc's: ``.Sh``, ``.It Fl v``)
as records. Read as lines, every
record was a macro or a line of escapes (``\\fB\\-\\-save\\-exact\\fR``), and an option's tag and its description
were two records. Here:

- an option or term (``.TP`` and its tag line, ``.IP "tag"``, or a tag line followed by an indented ``.RS``
  body, as cargo's pages write them) is a record keyed by its tag, with ``description`` (the body) and
  ``section`` (the ``.SH`` / ``.SS`` heading it is under);
- a bulleted item (``.IP \\(bu``) is a record as a Markdown list item is: ``name: value`` gives that field;
- a subsection whose bullets are all ``name: value`` (npm's ``.SS "access"`` with ``Default:`` and ``Type:``)
  is one record keyed by its heading, holding those fields and ``description``;
- the page's header (``.TH`` / ``.Dt``) is its first record, keyed by its title, with ``manual section``, ``date``
  ..., and the one-line ``description`` of the NAME section right below it (``isympy \\- interactive shell for
  SymPy``, mdoc's ``.Nd``) with that ``section``;
- any other line of text is a record with no fields, as a Markdown page's.

A macro package (groff's ``tmac`` files: ``papersize.tmac``, a language's ``de.tmac``) is no manual page: no
title, and its requests define strings and number registers (``.  ds paper-b5-width 17.6c``, ``.nr PS 10``).
Each such definition is a record keyed by its name, the field of that name holding its value, as an assignment
is; read as a table of whitespace columns, the ``.`` was a column and the name and value one cell.

Font and character escapes are decoded in keys and values (``\\-`` is ``-``, ``\\(bu`` a bullet, ``\\[u2026]``
its character); records keep the text as written. Stdlib only:
:func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re

from dspy_rlm.library.formats import Raw, repeated_names

_ROFF_MACRO = re.compile(r"[.'][ \t]*([A-Za-z][A-Za-z0-9]?)\b[ \t]*(.*)$")
_ROFF_TITLE = re.compile(r"[.'][ \t]*(?:TH|SH|Dd|Sh)\b")
_ROFF_CHARS = {
    "bu": "\u2022", "em": "\u2014", "en": "\u2013", "aq": "'", "dq": '"', "lq": "\u201c", "rq": "\u201d",
    "oq": "\u2018", "cq": "\u2019", "la": "<", "ra": ">", "hy": "-", "mi": "-", "ti": "~", "rs": "\\",
    "ga": "`", "ha": "^", "co": "\u00a9", "rg": "\u00ae", "tm": "\u2122", "de": "\u00b0", "mu": "\u00d7",
    "at": "@", "sh": "#", "Do": "$", "sl": "/", "ba": "|", "eq": "=", "pl": "+", "lB": "[", "rB": "]", "lC": "{",
    "rC": "}",
}  # fmt: skip
_ROFF_ESCAPE = re.compile(
    r"\\(?:f(?:\[[^\]]*\]|\(..|.)|\((..)|\[([^\]]*)\]|[hvwoDlLNkbxsz]'[^']*'|s[-+]?\d|\*(?:\[[^\]]*\]|\(..|.)"
    r"|n(?:\[[^\]]*\]|\(..|.)|(.))"
)
_ROFF_FONTS = {"B", "I", "R", "BR", "RB", "BI", "IB", "IR", "RI", "SB", "SM"}
_ROFF_ENDS = {"SH", "SS", "TP", "IP", "PP", "P", "LP", "HP", "TQ", "Pp", "Lp", "It", "El"}  # end an item or paragraph
_ROFF_BULLETS = {"", "\u2022", "-", "*", "o", "\u2013", "\u2014"}
_ROFF_FIELD = re.compile(r"([^:]{1,40}?):[ \t]+(\S.*)$")


_MDOC_TEXT = frozenset(
    {"Ad", "An", "Aq", "Ar", "At", "Bq", "Brq", "Bsx", "Bx", "Cd", "Cm", "Dl", "Dq", "Dv", "Em", "Er", "Ev", "Fa",
     "Fl", "Fn", "Fo", "Ft", "Fx", "Ic", "Li", "Lk", "Ms", "Mt", "Nd", "Nm", "No", "Ns", "Nx", "Op", "Ox", "Pa", "Pq",
     "Ql", "Qq", "Sq", "Sx", "Sy", "Tn", "Ux", "Va", "Vt", "Xr"}
)  # fmt: skip
"""mdoc's macros that carry text (``.Fl v`` is ``-v``, ``.Ar file`` is ``file``); the others are layout."""
_MDOC_PUNCT = re.compile(r"[.,:;)\]?!]+|[(\[]")


def _mdoc_text(rest: str) -> str:
    """The text of mdoc macros and their arguments (``Fl t Ar table`` is ``-t table``, ``Xr ls 1`` ``ls(1)``,
    ``Ns`` joins its neighbours)."""
    out, glue, flag = "", False, False
    words = _args(re.sub(r"(?<!\S)Xr\s+(\S+)\s+(\d+)(?!\S)", r"\1(\2)", rest))  # a manual and its section
    for k, w in enumerate(words):
        if w in _MDOC_TEXT:
            glue, flag = glue or w == "Ns", w == "Fl"
            if flag and (k + 1 == len(words) or words[k + 1] in _MDOC_TEXT):
                out, glue, flag = out + (" " if out and not glue else "") + "-", True, False
            continue
        w = ("-" + w) if flag else w
        closing = _MDOC_PUNCT.fullmatch(w) is not None and w not in ("(", "[", "...")
        out += w if (glue or closing or not out or out.endswith(("(", "["))) else " " + w
        glue = flag = False
    return out


def _char(m: re.Match) -> str:
    two, named, other = m.group(1), m.group(2), m.group(3)
    if two is not None:
        return _ROFF_CHARS.get(two, "")
    if named is not None:
        if re.fullmatch(r"u[0-9A-Fa-f]{4,6}", named):
            return chr(int(named[1:], 16))
        return _ROFF_CHARS.get(named, "")
    if other is not None:
        return {"-": "-", "e": "\\", "\\": "\\", " ": " ", "~": " ", "0": " ", "t": "\t"}.get(other, "")
    return ""


def roff_text(text: str) -> str:
    """``text`` with its escapes decoded (fonts dropped, ``\\-`` a hyphen) and its spaces collapsed."""
    return " ".join(_ROFF_ESCAPE.sub(_char, text.split('\\"', 1)[0]).split())


def _args(rest: str) -> list[str]:
    return [a[1:-1] if a.startswith('"') else a for a in re.findall(r'"[^"]*"?|\S+', rest.split('\\"', 1)[0])]


def looks_roff(sample: list[str]) -> float:
    """The share of non-blank lines that are macros, where a ``.TH`` / ``.SH`` line says it is a manual page."""
    rows = [ln for ln in sample if ln.strip()]
    if not rows or not any(_ROFF_TITLE.match(ln) for ln in rows):
        return 0.0
    return sum(1 for ln in rows if _ROFF_MACRO.match(ln) or ln.startswith(("'\\\"", '.\\"'))) / len(rows)


class _Unit:
    """An item or paragraph being read: its first and last line, tag, body lines and headings."""

    def __init__(self, kind: str, first: int, tag: str, section: str, sub: str) -> None:
        self.kind, self.first, self.last, self.tag = kind, first, first, tag
        self.body: list[str] = []
        self.rows: list[int] = []  # the line of each body line
        self.section, self.sub = section, sub


_ROFF_DEFINE = re.compile(r"[.'][ \t]*(ds1?|as1?|nr)[ \t]+(\S+)(?:[ \t]+(.*))?$")
_ROFF_REQUEST = re.compile(r"[.'][ \t]*(?:[A-Za-z][\w-]*\b|\\\"|$)")


def looks_roff_definitions(sample: list[str]) -> float:
    """The share of the requests (comments aside) that define a string or number register, where nine lines in
    ten are requests and no title says it is a manual page; 0.0 below twenty definitions."""
    rows = [ln for ln in sample if ln.strip()]
    if not rows or any(_ROFF_TITLE.match(ln) for ln in rows):
        return 0.0
    requests = [ln for ln in rows if _ROFF_REQUEST.match(ln)]
    if len(requests) < 0.9 * len(rows):
        return 0.0
    said = [ln for ln in requests if not ln.lstrip(".' \t").startswith('\\"') and ln.strip(".' \t")]
    defined = sum(1 for ln in said if _ROFF_DEFINE.match(ln))
    return defined / len(said) if defined >= 20 else 0.0


def parse_roff_definitions(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """A record per ``.ds`` / ``.as`` / ``.nr`` request, keyed by the name it defines: the field of that name
    holds the string (its leading ``"`` dropped, escapes decoded) or the register's value."""
    out: list[Raw] = []
    names: dict[str, None] = {}
    for i, line in enumerate(lines):
        m = _ROFF_DEFINE.match(line)
        if not m:
            continue
        rest = m.group(3) or ""
        value = (rest.split() or [""])[0] if m.group(1) == "nr" else roff_text(rest[1:] if rest[:1] == '"' else rest)
        if value:
            out.append((i, i, [(m.group(2), value)], m.group(2), None))
            names[m.group(2)] = None
    return out, [*names]


def _units(lines: list[str]) -> list[_Unit]:
    out: list[_Unit] = []
    section = sub = ""
    unit: _Unit | None = None
    want_tag = False  # after .TP: the next text line is the tag
    depth = 0
    owner: _Unit | None = None  # an option whose description goes on in an indented block (.RS ... .RE)
    for i, line in enumerate(lines):
        m = _ROFF_MACRO.match(line)
        if line.startswith(("'\\\"", '.\\"')) or (line.strip() in (".", "'")):
            continue
        name, rest = (m.group(1), m.group(2)) if m else ("", line)
        if name in ("SH", "Sh", "SS", "Ss"):
            heading = roff_text(" ".join(_args(rest)))
            if name in ("SH", "Sh"):
                section, sub = heading, ""
            else:
                sub = heading
            unit, want_tag = None, False
            continue
        if name in ("RS", "RE"):
            depth += 1 if name == "RS" else -1
            if name == "RS" and depth == 1 and unit is not None and unit.kind == "para" and _tag_like(unit.body):
                unit.kind, unit.tag = "tag", roff_text(" ".join(unit.body))  # cargo: a tag line, then .RS
                unit.body, unit.rows = [], []
            if name == "RS" and owner is None and unit is not None and unit.kind == "tag":
                owner, owner_depth = unit, depth  # its bullets, examples and paragraphs are its description
            elif name == "RE" and owner is not None and depth < owner_depth:
                unit, owner = owner, None  # back in the option's own body
            continue
        if owner is not None and name in ("IP", "PP", "P", "LP", "Pp", "Lp", "sp"):
            unit, want_tag = owner, False  # jmod's --exclude: ".IP \(bu 2" pattern forms inside .RS were options
            continue
        if name in _ROFF_ENDS:
            owner = None  # a nested list of terms (.TP inside .RS), or a heading: records of their own
        if name in _ROFF_ENDS or (name == "sp" and depth == 0):
            unit, want_tag = None, name in ("TP", "TQ")
            if name in ("IP", "It"):  # mdoc's .It: an item of a list, its tag from its macros (.It Fl v)
                tag = roff_text(_mdoc_text(rest) if name == "It" else " ".join(_args(rest)[:1]))
                unit = _Unit("bullet" if tag in _ROFF_BULLETS else "tag", i, tag, section, sub)
                out.append(unit)
            continue
        if name and name not in _ROFF_FONTS and name not in _MDOC_TEXT:
            continue  # layout (.br, .nf, .in, .ad, mdoc's .Bl...): no text
        text = rest
        if name in _MDOC_TEXT:
            text = _mdoc_text(line[1:])
        elif name in ("B", "I", "SB", "SM"):
            text = " ".join(_args(rest))
        elif name in _ROFF_FONTS:
            text = "".join(_args(rest))  # .BR alternates fonts with no space between
        if want_tag:
            unit, want_tag = _Unit("tag", i, roff_text(text), section, sub), False
            out.append(unit)
            continue
        if unit is None:
            unit = _Unit("para", i, "", section, sub)
            out.append(unit)
        unit.body.append(text)
        unit.rows.append(i)
        unit.last = i
    return out


def _tag_like(body: list[str]) -> bool:
    """Whether a paragraph of a line or two, indented text after it, is a term and its description (no
    sentence or lead-in: "For example:")."""
    text = roff_text(" ".join(body))
    return 0 < len(body) <= 2 and 0 < len(text) <= 80 and not text.endswith((":", ".", ","))


def _bullet(unit: _Unit) -> tuple[str, str] | None:
    m = _ROFF_FIELD.match(roff_text(" ".join(unit.body)))
    return (m.group(1).strip(), m.group(2).strip()) if m and len(m.group(1).split()) <= 4 else None


_TITLE_FIELDS = {"TH": ("title", "manual section", "date", "source", "manual"), "Dt": ("title", "manual section")}


def _title(lines: list[str]) -> Raw | None:
    """The page's title record, from its header macros before the first heading: ``.TH title section date
    source manual``, or mdoc's ``.Dd date`` and ``.Dt title section`` ("what date is the page stamped with?")."""
    fields: list[tuple[str, str]] = []
    first = last = -1
    for i, line in enumerate(lines[:40]):
        m = _ROFF_MACRO.match(line)
        if m is None:
            continue
        name = m.group(1)
        if name in ("SH", "Sh"):
            break
        if name == "Dd":
            fields.append(("date", roff_text(m.group(2).strip())))
        elif name in _TITLE_FIELDS:
            fields += [(f, roff_text(a)) for f, a in zip(_TITLE_FIELDS[name], _args(m.group(2))) if a.strip()]
        else:
            continue
        first, last = (i if first < 0 else first), i
    fields = [(f, v) for f, v in fields if v]
    title = next((v for f, v in fields if f == "title"), "")
    if title and (said := _name_line(lines, last)) is not None:
        last = said[0]  # its NAME section's line: the page's own description ("what is isympy?")
        fields += [("description", said[1]), ("section", said[2])]
    return (first, last, fields, title, None) if title else None


_NAME_DASH = re.compile(r"\S.*?\s(?:\\?-|\\\[e[mn]\]|\\\(e[mn]|[\u2013\u2014])\s+(\S.*)$")
"""``isympy \\- interactive shell for SymPy``; cargo's ``cargo\\-yank \\[em] Remove a pushed crate``."""


def _name_line(lines: list[str], after: int) -> tuple[int, str, str] | None:
    """The line and text of the one-line description the NAME section right after the header gives (``isympy
    \\- interactive shell for SymPy``, mdoc's ``.Nd``), and the section's heading, if it does."""
    heads = [(i, m) for i in range(after + 1, min(after + 6, len(lines))) if (m := _ROFF_MACRO.match(lines[i]))]
    at = next((i for i, m in heads if m.group(1) in ("SH", "Sh")), None)
    heading = roff_text(lines[at][3:]).strip('" ') if at is not None else ""
    if at is None or heading.upper() != "NAME":
        return None
    for i in range(at + 1, min(at + 6, len(lines))):
        m = _ROFF_MACRO.match(lines[i])
        if m is not None and m.group(1) in ("SH", "Sh"):
            return None
        if m is not None and m.group(1) == "Nd":
            return i, roff_text(m.group(2)).strip(), heading
        if m is None and (dash := _NAME_DASH.match(lines[i].strip())):
            return i, roff_text(dash.group(1)).strip(), heading
    return None


def parse_roff(lines: list[str]) -> tuple[list[Raw], list[str]]:
    units = _units(lines)
    head = _title(lines)
    out: list[Raw] = [head] if head else []
    by_sub: dict[tuple[str, str], list[_Unit]] = {}
    for u in units:
        if u.sub:
            by_sub.setdefault((u.section, u.sub), []).append(u)
    merged: set[int] = set()
    paired: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for place, group in by_sub.items():
        bullets = [u for u in group if u.kind == "bullet"]
        pairs = [p for p in map(_bullet, bullets) if p]
        if bullets and len(pairs) == len(bullets) and not any(u.kind == "tag" for u in group):
            paired[place] = pairs
    for section, sub in repeated_names(paired):  # else a list of its own ("-E: --save-exact"): items are records
        group, pairs = by_sub[(section, sub)], paired[(section, sub)]
        text = " ".join(roff_text(" ".join(u.body)) for u in group if u.kind == "para")
        fields = [*pairs, *([("description", text)] if text else []), ("section", section)]
        first = max(0, min(u.first for u in group) - 1)
        out.append((first, max(u.last for u in group), fields, sub, None))
        merged.update(id(u) for u in group)
    for u in units:
        if id(u) in merged:
            continue
        where = " / ".join(h for h in (u.section, u.sub) if h)
        body = roff_text(" ".join(u.body))
        if u.kind == "tag":
            fields = [("description", body)] if body else []
            out.append((u.first, max(u.first, u.last), [*fields, ("section", where)], u.tag, None))
        elif u.kind == "bullet":
            pair = _bullet(u)
            key = pair[0] if pair else " ".join(body.split()[:3])
            out.append((u.first, u.last, [*([pair] if pair else []), ("section", where)], key, None))
        else:  # a paragraph: a record per line, as a Markdown page's (a sentence's parts are read on its line)
            out.extend((i, i, [], "", None) for i, text in zip(u.rows, u.body, strict=True) if roff_text(text))
    out.sort(key=lambda r: r[0])
    return out, []
