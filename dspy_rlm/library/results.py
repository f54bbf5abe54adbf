"""What the REPL's structure helpers return (:mod:`dspy_rlm.library.lookup`): values whose printed form is what
the model reads. :class:`Nothing` (a falsy "no record contains ..."), :class:`Records` (``record N (line L):``
blocks), :class:`Counts` (``name (N records)`` lines) and :class:`KeyValue` (``KEY: VALUE``, with its record).

Stdlib-only; :func:`dspy_rlm.library.helpers.standalone_source` inlines it into foreign interpreters.
"""

from dspy_rlm.library.records import Record  # standalone_source() inlines records.py before this file


class Nothing:
    """What a lookup returns when nothing is found: falsy, ``== None``, and printed as the reason."""

    def __init__(self, message: str):
        self.message = message

    def __bool__(self) -> bool:
        return False

    def __eq__(self, other: object) -> bool:
        return other is None or isinstance(other, Nothing)

    __hash__ = None  # type: ignore[assignment]

    def get(self, name: str) -> None:
        return None

    def __repr__(self) -> str:
        return self.message

    __str__ = __repr__


class Records(list):
    """A list of :class:`Record`, printed one ``record N (line L):`` block per record."""

    def __init__(self, items: list[Record], note: str = "", empty: str = "no records"):
        super().__init__(items)
        self.note, self.empty = note, empty

    def __repr__(self) -> str:
        if not self:
            return self.empty
        return "\n".join([*(r.show() for r in self), *([self.note] if self.note else [])])

    __str__ = __repr__


class Counts(dict):
    """field name -> number of records having it, printed one ``name (N records)`` per line."""

    def __repr__(self) -> str:
        return "\n".join(f"{name} ({n} records)" for name, n in self.items()) or "no fields"

    __str__ = __repr__


class KeyValue(tuple):
    """(key, value) of a record, printed ``KEY: VALUE``; ``.record`` is the whole record."""

    record: Record

    def __new__(cls, key: str, value: str, record: Record) -> "KeyValue":
        self = super().__new__(cls, (key, value))
        self.record = record
        return self

    def __getnewargs__(self) -> tuple[str, str, Record]:
        return (self[0], self[1], self.record)  # a SUBMITted value is pickled back to the host

    @property
    def key(self) -> str:
        return self[0]

    @property
    def value(self) -> str:
        return self[1]

    def __repr__(self) -> str:
        return f"{self[0]}: {self[1]}"

    __str__ = __repr__
