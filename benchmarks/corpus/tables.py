"""Files read as tables by the corpus's own parsers (never ``dspy_rlm``'s): rows of named fields with a key.

A :class:`Table` says what a row is called (``noun``), which field names it (``key``), and how a user might say
each field (``words``). Every parser here is small and strict: a row it cannot read is left out, so the gold
computed from the rows is the file's own.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Row = dict[str, str]


@dataclass(frozen=True)
class Table:
    """Rows of one file.

    Attributes:
        noun: What a row is, singular and plural (``("currency", "currencies")``).
        key: The field naming a row.
        rows: The rows, every value a string (missing fields are absent, not empty).
        words: How a user says each field (several wordings, the first the most natural); a field missing
            here is said as its name with ``_`` turned to spaces.
        numeric: Fields to rank (largest / smallest); found from the values when not given.
        skip: Fields no question asks about (free text, URLs, bounding boxes).
    """

    noun: tuple[str, str]
    key: str
    rows: list[Row]
    words: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    numeric: tuple[str, ...] | None = None
    skip: tuple[str, ...] = ()

    def fields(self) -> list[str]:
        seen: dict[str, None] = {}
        for row in self.rows:
            seen.update(dict.fromkeys(row))
        return [f for f in seen if f != self.key and f not in self.skip]

    def said(self, name: str) -> tuple[str, ...]:
        return self.words.get(name) or (name.replace("_", " ").strip(),)


NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def number(value: str) -> float | None:
    return float(value) if NUMBER.match(value.strip()) else None


# -- parsers ------------------------------------------------------------------------------------------------
def csv_rows(text: str, delimiter: str = ",") -> list[Row]:
    """Rows of a CSV/TSV file with a header line; blank cells are left out."""
    reader = csv.DictReader(io.StringIO(text), delimiter=delimiter)
    return [{str(k).strip(): str(v).strip() for k, v in r.items() if k and v and str(v).strip()} for r in reader]


def json_records(text: str, path: Sequence[str] = ()) -> list[Row]:
    """A JSON list of objects (found under ``path``), or an object of objects (its keys as the ``_key`` field).
    Scalar values only; lists are joined with ``, ``; nested objects are left out."""
    data: Any = json.loads(text)
    for step in path:
        data = data[step]
    items = list(data.items()) if isinstance(data, dict) else [(None, d) for d in data]
    rows = []
    for name, obj in items:
        if not isinstance(obj, dict):
            continue
        row = {str(k): s for k, v in obj.items() if (s := _scalar(v)) is not None}
        if name is not None:
            row["_key"] = str(name)
        rows.append(row)
    return rows


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    if isinstance(value, list) and value and all(isinstance(v, (int, str)) for v in value):
        return ", ".join(map(str, value))
    return None


def afm_glyphs(text: str) -> list[Row]:
    """The character metrics of an Adobe font metrics file: ``C 32 ; WX 250 ; N space ; B 0 0 0 0 ;``."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("C "):
            continue
        parts = dict(p.strip().split(" ", 1) for p in line.split(";") if p.strip() and " " in p.strip())
        if "N" in parts and "WX" in parts and "C" in parts:
            rows.append({"N": parts["N"], "C": parts["C"], "WX": parts["WX"]})
    return rows


def line_table(text: str, names: Sequence[str], rest: str | None = None) -> list[Row]:
    """A whitespace table with ``#`` comments: the first words are ``names``; the remaining words go to
    ``rest`` (joined by a space) when given."""
    rows = []
    for line in text.splitlines():
        body, _, comment = line.partition("#")
        words = body.split()
        if len(words) < len(names):
            continue
        row = dict(zip(names, words, strict=False))
        if rest and len(words) > len(names):
            row[rest] = " ".join(words[len(names) :])
        if comment.strip():
            row["comment"] = " ".join(comment.split())
        rows.append(row)
    return rows


def colon_pairs(text: str, key_name: str, value_name: str, sep: str = ":") -> list[Row]:
    """``name<sep> value`` lines (``#`` comments and blank lines skipped), one row per line."""
    rows = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].rstrip()
        if sep not in line or line.startswith((" ", "\t")):
            continue
        name, _, value = line.partition(sep)
        if name.strip() and value.strip():
            rows.append({key_name: name.strip(), value_name: value.strip()})
    return rows


def python_dict(text: str, name: str, columns: Sequence[str]) -> list[Row]:
    """A module-level ``name = {key: (a, b, ...)}`` literal of Python source, each tuple named by ``columns``
    (the first column is the dict key); tuple items that are tuples are joined with ``, ``."""
    tree = ast.parse(text)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            data = ast.literal_eval(node.value)
            rows = []
            for key, values in data.items():
                row = {columns[0]: str(key)}
                for col, v in zip(columns[1:], values, strict=False):
                    text_v = ", ".join(map(str, v)) if isinstance(v, tuple) else str(v)
                    if text_v:
                        row[col] = text_v
                rows.append(row)
            return rows
    raise ValueError(f"no assignment to {name!r}")


Parser = Callable[[str], Table]
