"""The move kinds' protocol and registry: :class:`MoveKind` (what one kind of read is), :data:`KINDS` (the kinds
registered, in offering order), :func:`register` and :class:`KindBase` (a kind's defaults). The kinds themselves
live in :mod:`dspy_rlm.profiles.kinds` (lookups, existence, counts) and :mod:`dspy_rlm.profiles.rankings`."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.move import Move

__all__ = ["KINDS", "KindBase", "MoveKind", "register"]


@runtime_checkable
class MoveKind(Protocol):
    """One kind of read.

    Attributes:
        name: The move's kind (``Move.kind``).
        per_key: Offered for each key phrase of the question (else once per variable).

    A kind may also set ``every_record = True`` (optional): its result depends on every record (a count, a
    ranking), so over a huge text parsed only in its head it supports nothing unless its helper streams
    (:func:`dspy_rlm.library.tail.reads_whole`); and ``streams = True`` (optional): its helper reads the whole
    text however large, so it is offered for a key found only past a huge text's head (``search``, ``exists``,
    ``count_records``).
    """

    name: str
    per_key: bool

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        """This kind's moves for ``key`` (a question phrase found in ``var``; None for a per-variable kind)."""
        ...

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        """What the move's ``result`` (the helper's return value; ``stdout`` as printed) supports."""
        ...


KINDS: dict[str, MoveKind] = {}


def register(kind: MoveKind) -> MoveKind:
    """Add ``kind`` to the registry (offered after the kinds registered before it)."""
    if not isinstance(kind, MoveKind):
        raise TypeError(f"a move kind needs name, per_key, offer() and evaluate(), got {kind!r}")
    KINDS[kind.name] = kind
    return kind


class KindBase:
    """Defaults for a move kind: offered per key phrase, depending on the record it finds, not streaming."""

    name = ""
    per_key = True
    every_record = False  # its result depends on every record (a count, a ranking), not on one record found
    streams = False  # reads the whole text however large: offered for a key found only past a huge text's head

    def __repr__(self) -> str:
        return f"<move kind {self.name}>"
