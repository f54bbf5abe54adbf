"""Tables whose columns are declared before the rows: ARFF (``@attribute NAME TYPE`` lines, then ``@data`` and
comma-separated rows; ``%`` comments). Without this the rows are read as unnamed cells (``col1``..) and the
questions that name a column ("the smallest sepalwidth") find no field."""

import re

from dspy_rlm.library.formats import Raw, _cells, _table_records

_ATTRIBUTE = re.compile(r"\s*@attribute\s+('[^']*'|\"[^\"]*\"|\S+)", re.IGNORECASE)
_DATA = re.compile(r"\s*@data\s*$", re.IGNORECASE)


def _declared(lines: list[str]) -> tuple[list[str], int] | None:
    """(column names, the index of the ``@data`` line) where at least two columns are declared before it."""
    names: list[str] = []
    for i, line in enumerate(lines):
        if line.lstrip()[:1] != "@":  # no regex on the rows: most texts have no "@" line at all
            continue
        if _DATA.match(line):
            return (names, i) if len(names) >= 2 else None
        m = _ATTRIBUTE.match(line)
        if m:
            names.append(m.group(1).strip("'\""))
    return None


def looks_declared_table(sample: list[str]) -> bool:
    return _declared(sample) is not None


def parse_declared_table(lines: list[str]) -> tuple[list[Raw], list[str]]:
    found = _declared(lines)
    if found is None:
        return [], []
    names, at = found
    rows = [(i, lines[i]) for i in range(at + 1, len(lines)) if lines[i].strip() and lines[i].lstrip()[:1] != "%"]
    return _table_records(rows, names, len(names), lambda s: _cells(s, ","))
