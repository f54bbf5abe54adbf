"""The noun a "which" / "what" question asks for: the last word of the noun phrase the asking word opens ("which
guardrail *mode* is used most", "which *guardrail* runs after the call"). A field the question names only by a word
before that noun is no field asked where another field is named by the noun itself (:func:`head_rival`); a field
named as the block that holds the records is the asker's word for the records, not that field (:func:`names_block`).
(:mod:`~dspy_rlm.profiles.asked_noun` doubts a field naming no word of a "what" noun, and leaves "which" alone.)
"""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.naming import leaf_stem
from dspy_rlm.profiles.reads import camel_parts
from dspy_rlm.profiles.vocabulary import AUXILIARIES, HOLDING_VERBS, leading_words

__all__ = ["field_part_stems", "head_rival", "names_block", "question_stems", "which_noun"]

_WHICH = re.compile(
    r"\b(?:which|what)\s+(?:(?:one\s+)?of\s+(?:the|these|those|its|their|all\s+the)\s+)?(.*)", re.IGNORECASE | re.DOTALL
)  # "which *of the* example relays ...": the noun after the partitive


def which_noun(question: str) -> tuple[list[str], str] | None:
    """The stems of the words before the noun the asking word opens, and the noun's own stem ("which guardrail
    mode is ...": (['guardrail'], 'mode'); "which of the example relays": (['example'], 'relai')); None where no
    "which" / "what" opens a noun."""
    m = _WHICH.search(question)
    words = [w.strip("?,.;:!()\"'`") for w in leading_words(m.group(1))] if m else []
    words = [w for w in words if w]
    words = words[: next((i for i, w in enumerate(words) if w.casefold() in AUXILIARIES), len(words))]
    if not words:
        return None
    return [st.stem(w.casefold()) for w in words[:-1]], st.stem(words[-1].casefold())


def question_stems(book: Any) -> frozenset[str]:
    """The stems of the question's runs of letters and digits (``engines_node``: engine, node), once per question."""
    if "question stems" not in book.memo:
        book.memo["question stems"] = frozenset(st.stem(w) for w in re.findall(r"[^\W_]+", book.text_q.casefold()))
    return book.memo["question stems"]


def _asked(book: Any) -> tuple[list[str], str] | None:
    if "which noun" not in book.memo:
        book.memo["which noun"] = which_noun(book.text_q)
    return book.memo["which noun"]


def head_rival(book: Any, var: str, field: str) -> str | None:
    """Another field the question names by the noun it asks for, where ``field`` is named only by a word before it
    ("which guardrail *mode* ...": ``mode``, not ``guardrail``), or only by the noun of the block holding the
    records ("which mode do most of the *guardrails* run in?" of records under ``guardrails:``): the one asked."""
    said = _asked(book)
    if said is None:
        return None
    before, head = said
    leaf = leaf_stem(field)
    if leaf == head or (leaf not in before and leaf not in _block_stems(book, var)):
        return None
    stems = question_stems(book)
    if sum(st.stem(p.casefold()) in stems for p in camel_parts(field)) > 1:
        return None  # "which node versions does npm support (engines)?": engines.node, named whole, is asked
    return next((f for f in book.named_fields(var) if f != field and leaf_stem(f) == head), None)


_VERB_STEMS = frozenset(st.stem(v) for v in HOLDING_VERBS)
_PARTITIVE = re.compile(r"\b(?:which|what)\s+(?:one\s+)?of\s+", re.IGNORECASE)


def names_block(book: Any, var: str, key: str) -> bool:
    """Whether the noun the question asks for names the block holding the record ``key`` reads ("which *guardrail*
    runs after the call?", "which of the example *relays* talks to the hub?" of records under ``guardrails:``,
    ``relays:``): it asks which record, by the block's word for its records, not for a field's value."""
    said = _asked(book)
    if said is None:
        return False
    words = [*said[0], said[1]]
    blocks = _block_stems(book, var)
    last = len(words) - 1
    partitive = _PARTITIVE.search(book.text_q) is not None  # "which of the example relays talks": its noun, a verb
    fields = field_part_stems(book, var)  # "which guard *uses*": a verb after it, no field's word
    heads = [
        w
        for i, w in enumerate(words)
        if w in blocks and (i == last or ((partitive or words[i + 1] in _VERB_STEMS) and words[i + 1] not in fields))
    ]
    if not heads:  # "which guardrail *mode*", "what *release* date": the word after the block's is the noun
        return False
    record = lookup.record_of(book.texts[var], key)  # only where the noun names a block: a search of the text
    block = record.get("block") if isinstance(record, st.Record) else None
    return block is not None and st.stem(block.rsplit(".", 1)[-1].casefold()) in heads


def _block_stems(book: Any, var: str) -> set[str]:
    """The stems of the last parts of the blocks holding records (``guardrails``: guardrail), once per text."""
    memo = ("block stems", var)
    if memo not in book.memo:
        held = {r.get("block") for r in book.structs[var].records[:5000]}
        book.memo[memo] = {st.stem(b.rsplit(".", 1)[-1].casefold()) for b in held if b}
    return book.memo[memo]


def field_part_stems(book: Any, var: str) -> set[str]:
    """The stems of the parts of every field's name (``skip_install``: skip, install; ``dnsSuffix``: dns, suffix),
    once per text."""
    memo = ("field part stems", var)
    if memo not in book.memo:
        words = [w for f in book.structs[var].field_names for p in camel_parts(f) for w in re.findall(r"[^\W_]+", p)]
        book.memo[memo] = {st.stem(w.casefold()) for w in words}
    return book.memo[memo]
