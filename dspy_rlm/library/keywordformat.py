"""Keyword lines: each line opens with a keyword and holds its value (``FontName AvantGarde-Demi``), or holds
several ``KEY value`` pairs split by semicolons (``C 38 ; WX 680 ; N ampersand ; B 0 0 0 0 ;``: Adobe font
metrics, and any file of the same shape). A keyword line is a record with one field, the keyword, keyed by it;
a line of pairs is a record with a field per pair, keyed by the value of the pair name whose values tell the
records apart best (most distinct values that are no numbers). Read as lines, a pair was no field.
Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re

from dspy_rlm.library.formats import Raw, _share, meaningful
from dspy_rlm.library.kvformats import blocks  # inlined before this file

_KEYWORD_LINE = re.compile(r"([A-Za-z][\w.-]*)(?:[ \t]+(\S.*?))?[ \t]*$")
_SEMI_PAIR = re.compile(r"([A-Za-z][\w-]{0,15})[ \t]+([^=:;]+?)$")
_NUMERIC_VALUE = re.compile(r"[-+]?\d[\d.]*$")


def _semi_pairs(line: str) -> list[tuple[str, str]] | None:
    """The ``KEY value`` pairs of a line of two or more split by ``;``, else None."""
    if ";" not in line:
        return None
    parts = [p.strip() for p in line.split(";")]
    if parts and not parts[-1]:
        parts.pop()  # the line's closing ";"
    if len(parts) < 2:
        return None
    out = []
    for part in parts:
        m = _SEMI_PAIR.match(part)
        if m is None:
            return None
        out.append((m.group(1), m.group(2)))
    return out


def looks_keyword_lines(sample: list[str]) -> float:
    """The share of the meaningful lines that are keyword lines or lines of pairs; 0 unless at least a fifth
    of them are lines of pairs and their pair names repeat (a file of such lines, not a sentence with a
    semicolon)."""
    rows = meaningful(sample)
    if len(rows) < 5:
        return 0.0
    split = [_semi_pairs(ln) for ln in rows]
    pairs = [p for p in split if p]
    names = {n for p in pairs for n, _ in p}
    if len(pairs) < max(3, len(rows) // 5) or len(names) * 2 > len(pairs) + 2:
        return 0.0
    keyword = sum(1 for ln, p in zip(rows, split) if not p and _KEYWORD_LINE.match(ln.strip()))
    return (len(pairs) + keyword) / len(rows)


def _key_name(rows: list[list[tuple[str, str]]]) -> str:
    """The pair name whose values are most often distinct and no numbers (a name, not a size)."""
    values: dict[str, list[str]] = {}
    for pairs in rows:
        for name, value in pairs:
            values.setdefault(name, []).append(value)

    def score(item: tuple[int, str]) -> tuple[int, int]:
        vals = values[item[1]]
        wordy = sum(1 for v in vals if not _NUMERIC_VALUE.match(v))
        return (len(set(vals)) if wordy * 2 > len(vals) else 0, -item[0])  # ties: the first name

    return max(enumerate(values), key=score)[1] if values else ""


def parse_keyword_lines(lines: list[str]) -> tuple[list[Raw], list[str]]:
    parsed: list[tuple[int, list[tuple[str, str]], bool]] = []
    for i, line in enumerate(lines):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        pairs = _semi_pairs(s)
        if pairs:
            seen: dict[str, str] = {}
            for name, value in pairs:
                seen.setdefault(name, value)  # a name said twice on a line: its first value
            parsed.append((i, list(seen.items()), True))
            continue
        m = _KEYWORD_LINE.match(s)
        if m and m.group(2):
            parsed.append((i, [(m.group(1), m.group(2))], False))
    pair_rows = [fields for _, fields, is_pairs in parsed if is_pairs]
    key = _key_name(pair_rows)
    names = dict.fromkeys(n for fields in pair_rows for n, _ in fields)  # the pairs' names first: most records
    names.update(dict.fromkeys(fields[0][0] for _, fields, is_pairs in parsed if not is_pairs))
    out: list[Raw] = []
    for i, fields, is_pairs in parsed:
        record_key = dict(fields).get(key, fields[0][1]) if is_pairs else fields[0][0]
        out.append((i, i, fields, record_key, None))
    return out, list(names)


# -- definitions: ``name: value`` at the line's start, indented or bracket/bar lines continuing it -------------
_DEFINITION = re.compile(r"([A-Za-z_*?][\w.*?-]*)[ \t]*:[ \t]+(\S.*?)[ \t]*$")  # X resources: *Box.commands.Label
_DEF_COMMENT = re.compile(r"[ \t]+#(?:[ \t]+|$)")  # " # a comment" after the value
_GOES_ON = re.compile(r"[ \t]|[|)\]}]")  # an indented line, or one opening with a bar or a closing bracket


def looks_definitions(sample: list[str]) -> float:
    """The share of the meaningful lines that define a name (``file_input: stmt* ENDMARKER``: an EBNF grammar,
    mail aliases, X resources' ``*label13: Welcome``) or continue a definition; 0 unless at least five names are
    defined and almost none twice (a name said twice is a record's field: stanzas or YAML)."""
    rows = [r for r in meaningful(sample) if not r.lstrip().startswith(("!", "//"))]  # comments left out (X
    # resources' "!", a grammar's "//" too)
    names = [m.group(1) for m in map(_DEFINITION.match, rows) if m]
    goes_on = sum(1 for ln in rows if _GOES_ON.match(ln))
    if len(names) < 5 or len(set(names)) < 0.95 * len(names):
        return 0.0
    return (len(names) + goes_on) / len(rows)


def parse_definitions(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """A record per defined name, its one field the name and its value; a `` # comment`` closing the value is
    the field ``comment`` (matplotlib's ``lines.linewidth : 1.0  # line width in points``); where half the values
    or more end with ``;`` (a grammar's rules), it is left out."""
    out: list[Raw] = []
    for i, line in enumerate(lines):
        m = _DEFINITION.match(line)
        if m:
            value, comment = m.group(2), ""
            c = _DEF_COMMENT.search(value)
            if c and value[: c.start()].strip():
                value, comment = value[: c.start()].rstrip(), value[c.end() :].strip()
            fields = [(m.group(1), value)] + ([("comment", comment)] if comment else [])
            out.append((i, i, fields, m.group(1), None))
        elif (
            out and line.strip() and not line.lstrip().startswith("#") and _GOES_ON.match(line) and out[-1][1] == i - 1
        ):
            a, _, fields, key, _ = out[-1]
            out[-1] = (a, i, [(fields[0][0], fields[0][1] + " " + line.strip()), *fields[1:]], key, None)
    if sum(1 for *_, fields, _, _ in out if fields[0][1].endswith(";")) * 2 >= len(out):  # "math: relation;"
        out = [(a, b, [(f[0][0], f[0][1].removesuffix(";").rstrip()), *f[1:]], k, t) for a, b, f, k, t in out]
    return out, []


# -- keyword stanzas: blank-line-separated blocks of ``keyword value`` lines (gettext's .po entries) ----------
_STANZA_LINE = re.compile(r"([A-Za-z_][\w.-]*(?:\[\d+\])?)[ \t]+(\S.*?)[ \t]*$")  # msgstr[0] "le club"
_QUOTED_PIECE = re.compile(r'"((?:[^"\\]|\\.)*)"$')


def _goes_on(line: str) -> bool:
    """A line that continues the keyword line above it: indented, or only a quoted string (a .po's ``"..."``)."""
    return line[:1] in (" ", "\t") or _QUOTED_PIECE.match(line.strip()) is not None


def _stanzas(lines: list[str]) -> list[list[int]]:
    """The indices of each blank-line-separated block's lines that are no comments."""
    spans = ([i for i in range(a, b + 1) if not lines[i].lstrip().startswith("#")] for a, b in blocks(lines))
    return [b for b in spans if b]


def looks_keyword_stanzas(sample: list[str]) -> float:
    """The share of the blocks' lines that are keyword lines or continue one, where three blocks or more hold
    two keyword lines or more, the keywords repeat from block to block (each name in two blocks on average)
    and most values are quoted (prose, whose lines open with words too, quotes few); 0 otherwise."""
    spans = _stanzas(sample)
    found = [m for b in spans for i in b if not _goes_on(sample[i]) and (m := _STANZA_LINE.match(sample[i]))]
    heads = [[m.group(1) for i in b if not _goes_on(sample[i]) and (m := _STANZA_LINE.match(sample[i]))] for b in spans]
    full = [h for h in heads if len(h) >= 2]
    quoted = sum(1 for m in found if _QUOTED_PIECE.match(m.group(2)))
    if len(full) < 3 or len({m.group(1) for m in found}) * 2 > len(found) or quoted * 5 < len(found) * 3:
        return 0.0
    fitting = sum(1 for b in spans for i in b if _goes_on(sample[i]) or _STANZA_LINE.match(sample[i]))
    return _share(fitting, sum(len(b) for b in spans))


def _value(parts: list[str]) -> str:
    """A value written over lines: quoted pieces joined as one string (their ``\\n`` and ``\\"`` escapes read),
    anything else joined by spaces."""
    quoted = [_QUOTED_PIECE.match(p) for p in parts]
    if all(quoted):
        return "".join(q.group(1) for q in quoted if q).replace("\\n", "\n").replace('\\"', '"').strip()
    return " ".join(parts)


def parse_keyword_stanzas(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """A record per block, a field per keyword (its first value where it repeats in the block), keyed by the
    value of the keyword the most blocks hold, of those the one with the most distinct values (a .po's
    ``msgid``)."""
    parsed: list[tuple[int, int, list[tuple[str, str]]]] = []
    for block in _stanzas(lines):
        fields: dict[str, list[str]] = {}
        going = ""  # the keyword whose value the next continuation line goes on
        for i in block:
            s = lines[i].strip()
            m = None if _goes_on(lines[i]) else _STANZA_LINE.match(s)
            if m and m.group(1) not in fields:
                fields[m.group(1)], going = [m.group(2)], m.group(1)
            elif m:  # a keyword said again in its block: its first value kept
                going = ""
            elif going:
                fields[going].append(s)
        parsed.append((block[0], block[-1], [(n, _value(v)) for n, v in fields.items()]))
    counts: dict[str, list[str]] = {}
    for _, _, pairs in parsed:
        for n, v in pairs:
            counts.setdefault(n, []).append(v)
    order = list(counts)
    key = max(order, key=lambda n: (len(counts[n]), len({v for v in counts[n] if v}), -order.index(n)), default="")
    out: list[Raw] = [(a, b, pairs, dict(pairs).get(key, ""), None) for a, b, pairs in parsed]
    return out, list(counts)
