"""How a field's values are written, for the rankings: fields that list items (``"tags": ["security",
"release"]``: "which tag is on the most posts?" ranks the items the records list, each once a record,
``most_common(V, F, None, 'item')``, not the lists whole, which rarely repeat and are no one tag), and numbers
written under one prefix (``v1`` ... ``v86``: a version numbered, ranked by its number); and a field the question
names only by words of the field ranked (:func:`said_within`); and one item of a list asked by its place
(:func:`nth_item`: "the *first* font listed under font.fantasy")."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import structure as st
from dspy_rlm.library.items import list_items
from dspy_rlm.library.superlatives import item_counts, value_counts
from dspy_rlm.profiles.move import Move, read
from dspy_rlm.profiles.reads import camel_parts, parts
from dspy_rlm.profiles.vocabulary import ORDINALS, leading_words

__all__ = ["WHOLE_LISTS", "item_reads", "lists_items", "nth_item", "numbered_share", "one_of_listed", "said_within"]

WHOLE_LISTS = re.compile(r"\b(?:combinations?|sets?\s+of|lists?\s+of|pairs?\s+of|together)\b", re.IGNORECASE)
"""Words asking for a list as a whole ("which combination of tags is most common"), not one item of it."""
_PLURAL = re.compile(r"[a-z]{2,}(?<![su])s", re.IGNORECASE)
"""A plural noun's last part ("tags", "categories", "keywords"; not "status", "class", "alias")."""


_PREFIXED = re.compile(r"([A-Za-z]{1,2})-?(\d+)")


def numbered_share(values: list[str]) -> float:
    """The share of ``values`` that are one number under one prefix of a letter or two, the same for all
    (``v2``, ``v86``; not ``AF11`` beside ``CS3``: names)."""
    found = [m.group(1) for v in values if (m := _PREFIXED.fullmatch(v))]
    return len(found) / len(values) if values and len(set(found)) == 1 else 0.0


def lists_items(book: Any, var: str, field: str) -> bool:
    """Whether ``field`` holds lists: named in the plural, a fifth of its values (two at least) list two items or
    more, else (a nested field's: ``value.nick``) four fifths of them; and some item is listed by more records than
    any whole value is (memoized per question)."""
    memo = book.memo.setdefault(("lists_items", var), {})
    if field not in memo:
        memo[field] = _lists(book.structs[var], field)
    return bool(memo[field])


def _lists(s: st.Structure, field: str) -> bool:
    words = [p for w in parts(field.rsplit(".", 1)[-1]) for p in camel_parts(w)]
    if not words:
        return False
    values = [v for v in s.field_values(field) if v.strip()]
    listing = sum(len(list_items(v)) >= 2 for v in values[:2000])
    # named in the singular, a nested field lists items where nearly all its values do (an XML element's repeated
    # children: each enum's <value nick=...> joined as value.nick); a top-level one never ("Moreau, Ines")
    if listing < max(2, min(len(values), 2000) / 5) or (
        not _PLURAL.fullmatch(words[-1]) and ("." not in field or listing < 0.8 * min(len(values), 2000))
    ):
        return False
    items, whole = item_counts(s, field), value_counts(s, field)
    return bool(items) and max(items.values()) > max(whole.values(), default=0)


def item_reads(book: Any, var: str, ranked: list[str]) -> list[Move]:
    """``most_common(V, F, None, 'item')`` for each field the question names (or a field ranked) that lists
    items, where the question asks no list whole."""
    if WHOLE_LISTS.search(book.text_q):
        return []
    fields = dict.fromkeys([*book.named_fields(var), *ranked])
    return [
        read("most_common", f"I will find the item the most {f} list.", "most_common", var, f, None, "item")
        for f in fields
        if lists_items(book, var, f)
    ]


def _word_stems(name: str) -> set[str]:
    return {st.stem(p.casefold()) for w in parts(name) for p in camel_parts(w)}


def said_within(book: Any, other: str, field: str) -> bool:
    """Whether the words of ``other`` the question says are all words of ``field``, which it says more of ("the
    highest default version number" says ``Document.Version`` only by a word of ``DefaultVersionId``, the field
    ranked; "the earliest post" says ``posted_on`` and ``posted_by`` alike)."""
    mine, its = _word_stems(field) & book.q_stems, _word_stems(other) & book.q_stems
    return its <= mine and len(its) < len(mine)


_NTH_ITEM = re.compile(
    rf"\b({'|'.join(ORDINALS)})\s+(?!(?:column|line|row|field|word|character|letter|part)s?\b)[A-Za-z][\w-]*"
    r"(?:\s+[A-Za-z][\w-]*)?\s+(?:listed|named|given|mentioned|in\s+the\s+list)\b",
    re.IGNORECASE,
)
"""An item asked by its place in a list: "the *first font listed* under font.fantasy", "the *second alias
named*" (a column, a line or a word by its place is asked elsewhere)."""


def nth_item(question: str, value: str) -> str | None:
    """The item of ``value`` (a list of two items or more, :func:`list_items`) the question asks by its place, else
    None."""
    m = _NTH_ITEM.search(question)
    listed = list_items(value) if m else []
    if m is None or len(listed) < 2:
        return None
    n = ORDINALS[m.group(1).casefold()]
    return listed[n - 1] if 0 < n <= len(listed) else listed[-1] if n == -1 else None


_WHICH = re.compile(r"\bwhich\s+((?:[A-Za-z][\w-]*\s+){1,4})", re.IGNORECASE)


def one_of_listed(question: str, value: str) -> bool:
    """Whether the question asks "which <noun>" of one thing (the noun singular, no :data:`WHOLE_LISTS` word) and
    ``value`` lists three names or more (``datasource, window, SessionName, ...``): the list to choose from, not
    the one asked ("which template variable filters by node type?")."""
    m = _WHICH.search(question)
    if m is None or WHOLE_LISTS.search(question):
        return False
    words = leading_words(m.group(1))
    if not words or _PLURAL.fullmatch(words[-1]):
        return False
    listed = list_items(value)
    return len(listed) >= 3 and all(len(item.split()) == 1 for item in listed)
