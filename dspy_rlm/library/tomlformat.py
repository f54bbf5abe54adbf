"""TOML documents (``pyproject.toml``, ``Cargo.toml``) as records, parsed by the standard library's ``tomllib``
(Python 3.11+; without it, a TOML text is read as INI). A record per table that holds values, keyed by its own
name with ``block`` the dotted name of the table around it (``[project.urls]``: key ``urls``, block ``project``;
as :mod:`dspy_rlm.library.yamltree` reads nested YAML; where other tables share that name, as many of the path's
last parts as name it alone), and one per table inside an array (``[[bin]]``,
``maintainers = [{name = ...}]``, its key the table's name / id field). Keyed by the whole dotted name,
"which package is at version 0.1.95" was answered ``pkg.clippy-preview``. Read as INI, a value spread over lines
(``maintainers = [``) was cut to its first line. Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source`
inlines it."""

import re
from typing import Any

from dspy_rlm.library.formats import Raw
from dspy_rlm.library.jsonformats import json_key

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
    """(dotted name or key, table, fields) of each table holding values, outer first; a table in an array keyed by
    its name."""
    fields = []
    for name, value in table.items():
        at = f"{path}.{name}" if path else str(name)
        if isinstance(value, dict):
            _walk(value, at, found)
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            keys = []
            for item in value:
                own = [(str(k), s) for k, v in item.items() if (s := _joined(v)) is not None]
                keys.append(json_key(item, own))
                found.append((keys[-1], item, [*own, ("in", at)]))
                _walk({k: v for k, v in item.items() if isinstance(v, dict)}, at, found)
            if any(keys):  # the table names its items too
                fields.append((str(name), ", ".join(k for k in keys if k)))
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


def _short_names(paths: list[str]) -> dict[str, tuple[str, str]]:
    """Each table's dotted path parted into (block, name): the name its shortest last parts that no other table's
    path ends with (``[pkg.cargo]``: ``cargo``; ``[pkg.cargo.target.x86_64]``: ``cargo.target.x86_64`` where
    other packages have an ``x86_64`` target too), so a table's key names it alone."""
    ends: dict[str, int] = {}
    split = {p: p.split(".") for p in paths}
    for parts in split.values():
        for k in range(1, len(parts) + 1):
            end = ".".join(parts[-k:])
            ends[end] = ends.get(end, 0) + 1
    out = {}
    for path, parts in split.items():
        k = next((k for k in range(1, len(parts)) if ends[".".join(parts[-k:])] == 1), len(parts))
        out[path] = (".".join(parts[:-k]), ".".join(parts[-k:]))
    return out


def parse_toml(lines: list[str]) -> tuple[list[Raw], list[str]]:
    doc = _load("\n".join(lines))
    if doc is None:
        return [], []
    found: list[tuple[str, dict, list[tuple[str, str]]]] = []
    _walk(doc, "", found)
    heads = {m.group(1).replace(" ", ""): i for i, ln in enumerate(lines) if (m := _TOML_HEADER.match(ln))}
    starts: list[tuple[int, str, str, list[tuple[str, str]]]] = []
    cursor = 0
    names = _short_names([key for key, _, _ in found if key.replace(" ", "") in heads])
    for key, _table, fields in found:
        start = heads.get(key.replace(" ", ""))
        outer, own = names[key] if start is not None else ("", key)  # a [table]'s header: its path, parted
        if start is None:  # a table in an array, or the top level: the first line from here holding a value of it
            probe = next((v for _, v in fields if v and "\n" not in v), key)
            start = next((i for i in range(cursor, len(lines)) if probe in lines[i]), cursor)
        cursor = max(cursor, start)
        starts.append((start, own, outer, fields))
    starts.sort(key=lambda r: r[0])
    bounds = [*sorted(set(heads.values()) | {r[0] for r in starts}), len(lines)]
    out: list[Raw] = []
    for start, key, outer, fields in starts:
        end = next(b for b in bounds if b > start) - 1  # to the next table or record
        out.append(
            (start, max(start, min(end, start + 200)), [*fields, ("block", outer)] if outer else fields, key, None)
        )
    return out, []
