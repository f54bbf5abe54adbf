"""The parts of the data a question narrows to: the blocks it names (a class, a section: :func:`places`), and the
doubts and answers they give: a ranking whose top record lacks a path-like phrase a few records hold
(:func:`unkept`), a reverse lookup outside the block the question names (:func:`outside`), a count of a part's
items beside a field's value the question states (:func:`condition`), a name no record of the named block holds
(:func:`block_lacking`). Split from :mod:`~dspy_rlm.profiles.rankings`, :mod:`~dspy_rlm.profiles.kinds`,
:mod:`~dspy_rlm.profiles.sizes` and :mod:`~dspy_rlm.profiles.existence`, which use them."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import structure as st
from dspy_rlm.library import superlatives
from dspy_rlm.profiles.field_words import CONTEXT_FIELDS
from dspy_rlm.profiles.move import Move
from dspy_rlm.profiles.name_scopes import name_scopes
from dspy_rlm.profiles.named_document import names_asked_document, names_document
from dspy_rlm.profiles.phrases import written_as_name
from dspy_rlm.profiles.reads import holders, norm
from dspy_rlm.profiles.vocabulary import ID_LIKE

__all__ = [
    "block_lacking",
    "block_runs",
    "blocks_apart",
    "condition",
    "distinct",
    "outside",
    "places",
    "rank_places",
    "rival_place",
    "unkept",
]


def places(book: Any, var: str) -> list[str]:
    """The question's key phrases that name a block or heading several records sit in ("among the
    AccessPermission flags": a class's members), then the patterns of keys it names (:func:`name_scopes`): a
    ranking asked among them ranks within it (memoized)."""
    memo = ("places", var)
    if memo not in book.memo:
        s = book.structs[var]
        placed = any(f in s.field_names for f in CONTEXT_FIELDS) and s.parsed_chars is None
        keys = [k.text for k in book.keys.get(var, []) if not k.hop] if placed else []
        found = [k for k in dict.fromkeys(keys) if len(superlatives.records_within(s, k)) >= 2]
        # "among the groups on 'g' lines": a value some records hold whole, the rest not, scopes the ranking
        found += [
            k.text
            for k in book.keys.get(var, [])
            if k.quoted and k.is_value and not k.is_key and 2 <= k.records < 0.9 * len(s.records)
        ]
        shared = [k.text for k in book.keys.get(var, []) if not k.hop and _shared_key(s, k.text)]
        found += [k for k in shared if k not in found]  # "the highest WarningLevel value": the WarningLevel records
        book.memo[memo] = found + [p for p in name_scopes(book, var) if p not in found]  # "the ETH_P_ defines"
    return list(book.memo[memo])


def rank_places(book: Any, var: str) -> list[str]:
    """The blocks a ranking ranks within (:func:`places`), and those whose names the question writes whole as the
    data writes them, though no key phrase (:func:`_blocks_written`), the ones written so first (memoized)."""
    memo = ("rank places", var)
    if memo not in book.memo:
        s = book.structs[var]
        found = places(book, var)
        if any(f in s.field_names for f in CONTEXT_FIELDS) and s.parsed_chars is None:
            found += [w for w in _blocks_written(book, var) if w not in found]
        found.sort(key=lambda p: not _written_block(book, var, p))  # "the Event flag class": Event, then Flag
        book.memo[memo] = found
    return list(book.memo[memo])


def _shared_key(s: Any, key: str) -> bool:
    """Whether two or more records, but not all, are keyed ``key`` (among the first 5,000), no field's name (a
    man page's ``Type`` lines name the field ranked)."""
    records = s.records[:5000]
    return key not in s.field_names and 2 <= sum(r.key == key for r in records) < len(records)


def _block_names(book: Any, var: str) -> dict[str, int]:
    """The names the data gives its blocks (a record's context fields, stripped), each with the number of records
    sitting in a block so named (memoized: asked at each step of a ranking)."""
    memo = ("block names", var)
    if memo not in book.memo:
        counts: dict[str, int] = {}
        for r in book.structs[var].records:
            for name in {(r.get(f) or "").strip() for f in CONTEXT_FIELDS} - {""}:
                counts[name] = counts.get(name, 0) + 1
        book.memo[memo] = counts
    return book.memo[memo]


def _blocks_written(book: Any, var: str) -> list[str]:
    """The names of blocks of two records or more that the question writes whole, as the data writes them ("the
    Event flag class": a class many other records mention, so no key phrase of the question)."""
    names = _block_names(book, var)
    said = dict.fromkeys(w for w in re.findall(r"[\w.-]+", book.text_q) if names.get(w, 0) >= 2)
    return list(said)


def _written_block(book: Any, var: str, place: str) -> bool:
    """Whether the question writes ``place`` as the data names a block (case kept), not only in another case."""
    written = re.search(rf"(?<![\w.]){re.escape(place)}(?![\w])", book.text_q) is not None
    return written and place in _block_names(book, var)


def rival_place(book: Any, var: str, place: str) -> str | None:
    """Another block the question names, written as the data names it, where ``place`` is written only in another
    case ("the Event flag class": the class Event, not the class Flag): a ranking within ``place`` is a guess."""
    if _written_block(book, var, place):
        return None
    return next((p for p in rank_places(book, var) if p != place and _written_block(book, var, p)), None)


def unkept(book: Any, move: Move, record: st.Record) -> str | None:
    """A phrase of the question written as no plain word (a path, a dotted or numbered name, a quote) that a few of
    the data's records hold (under a fifth of them), and the top record of a ranking over all of them does not:
    "among the .so libraries inside *torch/lib/*, the smallest" ranks within the records holding it."""
    var = move.var
    s = book.structs[var]
    n = len(s.records)
    held = " ".join([record.key or "", *(v for _, v in record.fields)]).casefold()
    for k in book.keys.get(var, []):
        marked = k.quoted or re.search(r"[^\w\s]|[_\d]", k.text)  # a path, a dotted name: no asker's plain word
        # as the question writes it ("major.h" found as _LINUX_MAJOR_H is the file's name, respelled)
        marked = marked and k.text.casefold() in book.text_q.casefold() and not names_asked_document(book, var, k.text)
        marked = marked and not names_document(s, record, k.text, move)  # a font's name, in its header lines
        if marked and not k.hop and not k.beyond and 0 < k.records <= n / 5 and k.text.casefold() not in held:
            return k.text
    return None


def distinct(records: list[Any]) -> bool:
    """Whether two records or more are keyed, each by a key no other of them has (a class's enum members)."""
    keys = [r.key for r in records if r.key]
    return len(keys) >= 2 and len(set(keys)) == len(keys)


def outside(book: Any, var: str, value: str) -> str | None:
    """A block the question names (:func:`places`) where no record holds ``value``: the record found holding it
    is elsewhere ("take the model type whose config is ASTConfig: which class does MAPPING_B give?")."""
    s, said = book.structs[var], norm(value)
    blocks = [p for p in places(book, var) if norm(p) != said]  # the value itself quoted is no block of it
    return next((p for p in blocks if not holders(superlatives.records_within(s, p), value)), None)


def condition(book: Any, move: Move) -> str | None:
    """A field the question names (not the part counted) and a phrase of it that is that field's whole value in
    two records or more: a condition on records, which counting one part's items does not apply."""
    s = book.structs[move.var]
    fields = [f for f in book.named_fields(move.var) if f != move.args[0]]
    for k in book.keys.get(move.var, []):
        if k.hop or k.records < 2:
            continue
        value = norm(k.text.rpartition("=")[2])
        for f in fields:
            if sum(norm(r.get(f) or "") == value for r in s.records[:2000]) >= 2:
                return f"{f}={k.text.rpartition('=')[2]}"
    return None


def block_lacking(book: Any, var: str, key: Any) -> str | None:
    """A block the question names before ``key`` (:func:`~dspy_rlm.profiles.rankings.places`: a class, a
    section) none of whose records is keyed by ``key`` or holds it whole, where ``key`` is written as a name (an
    identifier, upper case, capitalized) some record holds: "does the DeviceType enum include a PROXY member?"
    (PROXY is in SOCKS_PROXY, of another class)."""
    if key.hop or not key.records or not (ID_LIKE.search(key.text) or written_as_name(book.text_q, key.text)):
        return None
    q, said = book.text_q.casefold(), norm(key.text)
    for place in places(book, var):
        if norm(place) == said or not 0 <= q.find(place.casefold()) < q.find(key.text.casefold()):
            continue
        inside = superlatives.records_within(book.structs[var], place)
        if len(inside) >= 2 and not any(norm(r.key) == said or holders([r], key.text) for r in inside):
            return place
    return None


def block_runs(book: Any, var: str, field: str, name: str) -> int:
    """How many runs of records sit in blocks whose ``field`` is ``name``, apart where another block comes between
    (a changelog's Core heading in every release), once per run; :func:`blocks_apart` tells them by indent."""
    memo = ("runs", var, field, norm(name))
    if memo not in book.memo:
        runs, inside, said = 0, False, norm(name)
        for r in book.structs[var].records:
            value = r.get(field)
            if value:
                runs += norm(value) == said and not inside
                inside = norm(value) == said
        book.memo[memo] = runs
    return int(book.memo[memo])


def blocks_apart(book: Any, var: str, name: str) -> bool:
    """Whether the records in blocks named ``name`` (a block path's part too) sit at different indents: several
    blocks share the name (a YAML schema's nested ``mapping:``s), once per run and name."""
    memo = ("blocks apart", var, name)
    if memo not in book.memo:
        said, s = norm(name), book.structs[var]
        lines = [ln.expandtabs() for ln in book.texts[var].split("\n")]  # a tab among spaces: the same indent
        inside = [r for r in s.records if any(said in map(norm, (r.get(f) or "").split(".")) for f in CONTEXT_FIELDS)]
        indents = {len(lines[r.line - 1]) - len(lines[r.line - 1].lstrip()) for r in inside if 0 < r.line <= len(lines)}
        book.memo[memo] = len(indents) > 1
    return bool(book.memo[memo])
