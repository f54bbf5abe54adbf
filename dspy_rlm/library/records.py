"""The records of a text and its detected structure: :class:`Record` (a row, a stanza, a section, a line, with its
ordered fields and key) and :class:`Structure` (the format's kind, its records and field names), which
:func:`dspy_rlm.library.structure.detect` builds and the lookups read; :func:`name_form`, how a field's name is
compared. Split from :mod:`~dspy_rlm.library.structure`, which re-exports them.

Stdlib-only at import; :func:`dspy_rlm.library.helpers.standalone_source` inlines it into foreign interpreters.
"""

import functools
import re
from dataclasses import dataclass

RECORD_TEXT_CHARS = 4_000  # a record's text is cut here (a huge record keeps its fields whole)
_SHOW_VALUE_CHARS = 300


_NAME_GAPS = re.compile(r"[\s_-]+")


@functools.lru_cache(maxsize=2048)
def name_form(name: str) -> str:  # memoized: Record.get normalizes every field name it passes, millions of times
    """A field name as :meth:`Record.get` compares it: casefolded, without spaces, ``_`` or ``-``."""
    return _NAME_GAPS.sub("", name.casefold())


@dataclass(frozen=True, repr=False, slots=True)
class Record:
    """One record of a text: a row, a stanza, a section, an assignment, a sentence or a line."""

    index: int
    line: int
    end_line: int
    text: str
    fields: tuple[tuple[str, str], ...]
    key: str

    def get(self, name: str) -> str | None:
        """The value of field ``name`` (case-insensitive; ``-``, ``_`` and spaces ignored), else None."""
        want = name_form(name)
        return next((v for n, v in self.fields if name_form(n) == want), None)

    def show(self) -> str:
        """``record N (line L):`` then one ``  Name: value`` line per field (or the text, indented). A key that no
        field's name or value shows (an INI section's name, a man page option's tag line) is written after the
        place, in brackets: ``record 3 (lines 9-12) [Service]:``."""
        where = f"line {self.line}" if self.end_line == self.line else f"lines {self.line}-{self.end_line}"
        key = " ".join(self.key.split())
        shown = (
            not key or not self.fields or any(key in (" ".join(n.split()), " ".join(v.split())) for n, v in self.fields)
        )
        rows = [f"record {self.index} ({where}){'' if shown else f' [{key[:_SHOW_VALUE_CHARS]}]'}:"]
        for name, value in self.fields:
            cut = value if len(value) <= _SHOW_VALUE_CHARS else value[:_SHOW_VALUE_CHARS] + " ..."
            rows.append(f"  {name}: " + cut.replace("\n", "\n    "))
        if not self.fields:
            body = self.text if len(self.text) <= 2 * _SHOW_VALUE_CHARS else self.text[: 2 * _SHOW_VALUE_CHARS]
            rows.append("  " + body.strip().replace("\n", "\n  ") + (" ..." if body is not self.text else ""))
        return "\n".join(rows)

    __str__ = show
    __repr__ = show


@dataclass(frozen=True, repr=False)
class Structure:
    """The detected format of a text (``kind``, one of :data:`~dspy_rlm.library.structure.KINDS`), its records and
    field names."""

    kind: str
    records: tuple[Record, ...]
    field_names: tuple[str, ...]
    detail: str = ""
    parsed_chars: int | None = None  # set when only the text's head (MAX_PARSE_CHARS) was parsed

    @functools.cached_property
    def key_counts(self) -> dict[str, int]:
        """How many records have each key, as written (computed once: a move asks it of every value it reads)."""
        counts: dict[str, int] = {}
        for r in self.records:
            counts[r.key] = counts.get(r.key, 0) + 1
        return counts

    def field_values(self, name: str) -> list[str]:
        """The values of field ``name`` over all records that have it (case-insensitive), in order."""
        values = (r.get(name) for r in self.records)
        return [v for v in values if v is not None]

    def __repr__(self) -> str:
        kind = f"{self.kind} ({self.detail})" if self.detail else self.kind
        names = ", ".join(self.field_names[:25]) + (" ..." if len(self.field_names) > 25 else "")
        head = f" (of the first {self.parsed_chars:,} chars only)" if self.parsed_chars is not None else ""
        return f"{kind}, {len(self.records)} records{head}" + (f"\nfields: {names}" if names else "")

    __str__ = __repr__
