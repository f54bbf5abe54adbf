"""TOML documents (``pyproject.toml``, ``Cargo.toml``) as records, parsed by the standard library's ``tomllib``
(Python 3.11+; without it, a TOML text is read as INI). A record per table that holds values (its key the table's
dotted name, ``project.urls``), and one per table inside an array (``[[bin]]``, ``maintainers = [{name = ...}]``,
its key the table's name / id field). Read as INI, a value spread over lines (``maintainers = [``) was cut to its
first line. Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re
from typing import Any

from dspy_rlm.library.formats import Raw, json_key

_TOML_HEADER = re.compile(r"\s*\[\[?\s*([^\[\]]+?)\s*\]\]?\s*(?:#.*)?$")
_TOML_VALUE = re.compile(r"""\s*[A-Za-z0-9_."'-]+\s*=\s*["'\[{]""")


def _load(text: str) -> dict | None:
    try:
        import tomllib  # here, not at the top: Python 3.10 has none
    except ImportError:
        return None
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):
        return None


def looks_toml(sample: list[str]) -> bool:
    """A text with a ``[table]`` line and quoted, array or inline-table values that parses as TOML (an INI file's
    bare values do not)."""
    if not any(_TOML_HEADER.match(ln) for ln in sample) or sum(1 for ln in sample if _TOML_VALUE.match(ln)) < 2:
        return False
    return _load("\n".join(sample)) is not None


def _toml_scalar(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)) or hasattr(value, "isoformat"):
        return str(value)
    return None


def _walk(table: dict, path: str, found: list[tuple[str, dict, list[tuple[str, str]]]]) -> None:
    """(key, table, fields) of each table holding values, outer first; a table in an array keyed by its name."""
    fields = []
    for name, value in table.items():
        at = f"{path}.{name}" if path else str(name)
        if isinstance(value, dict):
            _walk(value, at, found)
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for item in value:
                own = [(str(k), s) for k, v in item.items() if (s := _joined(v)) is not None]
                found.append((json_key(item, own), item, [*own, ("in", at)]))
                _walk({k: v for k, v in item.items() if isinstance(v, dict)}, at, found)
        elif (s := _joined(value)) is not None:
            fields.append((str(name), s))
    if fields and not path:
        found.insert(0, (path, table, fields))  # the top-level values come first
    elif fields:
        found.append((path, table, fields))


def _joined(value: Any) -> str | None:
    if isinstance(value, list):
        items = [s for s in map(_toml_scalar, value) if s is not None]
        return ", ".join(items) if items or not value else None
    return _toml_scalar(value)


def parse_toml(lines: list[str]) -> tuple[list[Raw], list[str]]:
    doc = _load("\n".join(lines))
    if doc is None:
        return [], []
    found: list[tuple[str, dict, list[tuple[str, str]]]] = []
    _walk(doc, "", found)
    heads = {m.group(1).replace(" ", ""): i for i, ln in enumerate(lines) if (m := _TOML_HEADER.match(ln))}
    starts: list[tuple[int, str, list[tuple[str, str]]]] = []
    cursor = 0
    for key, _table, fields in found:
        start = heads.get(key.replace(" ", ""))
        if start is None:  # a table in an array, or the top level: the first line from here holding a value of it
            probe = next((v for _, v in fields if v and "\n" not in v), key)
            start = next((i for i in range(cursor, len(lines)) if probe in lines[i]), cursor)
        cursor = max(cursor, start)
        starts.append((start, key, fields))
    starts.sort(key=lambda r: r[0])
    bounds = [*sorted(set(heads.values()) | {r[0] for r in starts}), len(lines)]
    out: list[Raw] = []
    for start, key, fields in starts:
        end = next(b for b in bounds if b > start) - 1  # to the next table or record
        out.append((start, max(start, min(end, start + 200)), fields, key, None))
    return out, []
