"""Two fields the question names alike: "how tall can the .panel *box* grow?" says ``box`` of ``box-sizing`` and of
``box-shadow`` and the rest of neither, so it asks neither (the field it asks, ``max-height``, it does not name).
A field said whole ("the height") is named more than one said in part ("max-height") and has no twin."""

from __future__ import annotations

from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.reads import camel_parts, field_stems, placed_fields

__all__ = ["compound_kin", "twin_field"]


def twin_field(book: Any, var: str, key: Any, field: str) -> str | None:
    """Another field of the record ``key`` names that the question names by the very words it names ``field`` by,
    each said only in part, else None."""
    mine = _stems(field)
    said = mine & book.q_stems
    if key is None or not said or mine <= book.q_stems:
        return None
    record = lookup.record_of(book.texts[var], key.text)
    if not isinstance(record, st.Record):
        return None
    placed = placed_fields(book.text_q, book.structs[var])  # "where does it say boto lives": the path, named
    for name in book.fields[var]:  # by its value too, is no twin of a field of no paths (boto_update)
        if field in placed and name not in placed:
            continue
        its = _stems(name)
        if name != field and its & book.q_stems == said and not its <= book.q_stems and record.get(name) is not None:
            return name
    return None


def _stems(name: str) -> set[str]:
    """The stems of a field's own name, the last part of its path, camel-case words apart (``spec.ports.targetPort``:
    target, port, and targetport)."""
    leaf = name.rpartition(".")[2] or name
    return field_stems(leaf) | {st.stem(w.casefold()) for w in camel_parts(leaf)}


def compound_kin(book: Any, var: str, field: str) -> list[str]:
    """The fields named ``field`` after another word (``background-color``, ``border-color`` beside ``color``), where
    two or more are and the question says none of those other words: a value of the sort ``field`` names ("what hex
    colour shows up most often?") is in them too, so ranking ``field`` alone may not be what is asked."""
    tail = field.casefold()
    kin = [f for f in book.structs[var].field_names if f.casefold().endswith(("-" + tail, "_" + tail))]
    said = {st.stem(w) for w in st.words(book.text_q.casefold())}
    heads = {st.stem(p.casefold()) for f in kin for p in camel_parts(f[: -len(tail) - 1])}
    return kin if len(kin) >= 2 and not heads & said else []
