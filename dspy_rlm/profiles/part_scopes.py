"""Whether a count of a part's items (``items_of``) counts the part the question means: another record the
question names that lacks the part (:func:`other_record`: "how many packages are locked in the develop
section?" is no count of develop's ``packaging.*`` fields), or a block written right before the part's name
(:func:`block_before`: "the %feature hash"). Split from :mod:`~dspy_rlm.profiles.sizes`, which uses them."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.field_words import CONTEXT_FIELDS
from dspy_rlm.profiles.move import Move
from dspy_rlm.profiles.reads import norm

__all__ = ["block_before", "other_record"]


def other_record(book: Any, move: Move) -> str | None:
    """A key phrase of the question keying a few records (not the part counted, nor the record it is read in):
    the question counts within that record, not the part its counted noun happens to name."""
    args = {norm(str(a)) for a in move.args}
    name, text = str(move.args[0]), book.texts[move.var]
    if re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", book.text_q, re.IGNORECASE):
        return None  # "the colors object of the dawn theme": the part written whole, in the record named
    for k in book.keys.get(move.var, []):
        if k.is_key and k.records <= 3 and norm(k.text) not in args:
            record = lookup.record_of(text, k.text)  # "the service": the [Service] section holding the field
            if not (isinstance(record, st.Record) and record.get(name) is not None):
                return k.text  # "packages ... in the develop section": develop's packaging.* is no list of them
    return None


def block_before(book: Any, move: Move) -> str | None:
    """The name of a block the question writes right before the part's name ("the %feature hash", sigils
    aside): the part's name is the asker's word for that block, not the part counted."""
    name = str(move.args[0])
    m = re.search(rf"([%@$]?[\w.-]+)\s+{re.escape(name)}\b", book.text_q, re.IGNORECASE)
    if m is None:
        return None
    said = norm(m.group(1).lstrip("%@$"))
    s = book.structs[move.var]
    inside = [
        r for r in s.records[:5000] if any(said in map(norm, (r.get(f) or "").split(".")) for f in CONTEXT_FIELDS)
    ]
    if said == norm(name) or any(_holds_part(r, name) for r in inside):
        return None  # "the mode enum": the block mode holds the part enum
    keyed = lookup.record_of(book.texts[move.var], m.group(1).lstrip("%@$"))
    return m.group(1) if inside and not (isinstance(keyed, st.Record) and _holds_part(keyed, name)) else None


def _holds_part(record: st.Record, name: str) -> bool:
    """Whether ``record`` has the field ``name`` or a group of fields under it (``colors.Header``, ...)."""
    lead = name.casefold() + "."
    return record.get(name) is not None or any(f.casefold().startswith(lead) for f, _ in record.fields)
