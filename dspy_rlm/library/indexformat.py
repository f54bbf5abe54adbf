"""Indexed settings as records: ``NAME[INDEX] = VALUE`` lines (adduser.local.conf's ``user[www] = www``, an awk
or shell array's ``opts[debug]=1``), one record per index, keyed by it, each name a field of it; a plain
``name = value`` line beside them is a record of its own keyed by its name, as an assignment is. Read as a
whitespace table, ``subdir[ftp_r]`` was a key and ``= "doc/users"`` its value. Stdlib only:
:func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re

from dspy_rlm.library.formats import ASSIGN, Raw, is_comment
from dspy_rlm.library.kvformats import assignment_value

_INDEXED = re.compile(r"""([A-Za-z_][\w.-]*)\[[ \t]*["']?([^\]"'\s][^\]"']*?)["']?[ \t]*\][ \t]*=(?!=)[ \t]*(.*?);?$""")


def looks_indexed(sample: list[str]) -> float:
    """The share of statements that set a name at an index or a plain name, where at least half set an index:
    four or more, of two or more names and two or more indexes."""
    rows = [ln.strip() for ln in sample if ln.strip() and not is_comment(ln)]
    found = [m for r in rows if (m := _INDEXED.match(r))]
    if len(found) < 4 or len(found) * 2 < len(rows):
        return 0.0
    if len({m.group(1) for m in found}) < 2 or len({m.group(2).strip() for m in found}) < 2:
        return 0.0
    plain = sum(1 for r in rows if not _INDEXED.match(r) and ASSIGN.match(r))
    return (len(found) + plain) / len(rows)


def parse_indexed(lines: list[str]) -> tuple[list[Raw], list[str]]:
    indexes = {m.group(2).strip() for ln in lines if (m := _INDEXED.match(ln.strip())) and not is_comment(ln)}
    out: list[list] = []  # [first, last, fields, key]: an index's record grows as its lines come
    by_index: dict[str, list] = {}
    names: dict[str, None] = {}
    for i, line in enumerate(lines):
        text = line.strip()
        if not text or is_comment(line):
            continue
        m, a = _INDEXED.match(text), ASSIGN.match(text)
        if m:
            name, index, value = m.group(1), m.group(2).strip(), assignment_value(m.group(3))
        elif a and assignment_value(a.group(2)) in indexes:  # "service = www" opens the index www: a field of it
            name, index, value = a.group(1), assignment_value(a.group(2)), assignment_value(a.group(2))
        elif a:
            names[a.group(1)] = None
            out.append([i, i, [(a.group(1), assignment_value(a.group(2)))], a.group(1)])
            continue
        else:
            out.append([i, i, [], ""])
            continue
        record = by_index.get(index)
        if record is None:
            record = by_index[index] = [i, i, [], index]
            out.append(record)
        record[1] = i
        record[2].append((name, value))
        names[name] = None
    return [(a, b, fields, key, None) for a, b, fields, key in out], list(names)
