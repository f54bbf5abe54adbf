"""Whether a key phrase of the question names one record (:func:`specific`), and the reason a read by it gives
(:func:`why_specific`): the support of a lookup's value rests on it."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.phrases import holding
from dspy_rlm.profiles.reads import norm, parts

__all__ = ["names_document", "noted_section", "other_field_named", "rival_field", "specific", "why_specific"]


def specific(key: Any, book: Any = None, var: str = "") -> bool:
    """The key names one record: it is a record's key (one record's, where another key phrase of the question
    could tell several apart: "the RuntimeLibrary whose value is X"), or a phrase of at most three records that
    no record's key beside it names better ("the sidebar (div.sphinxsidebar)": the word *sidebar* is in
    ``div.sidebar``, another record)."""
    if key is None or not (key.is_key or (key.records <= 3 and not key.inner)):
        return False
    if book is not None and not (key.is_key or key.is_value) and _keyed_beside(book, var, key):
        return False
    return book is None or not key.is_key or not _shared_key(book, var, key)


def _keyed_beside(book: Any, var: str, key: Any) -> bool:
    return any(k.is_key and k.records and not k.hop for k in book.keys.get(var, []) if k is not key)


def _shared_key(book: Any, var: str, key: Any) -> bool:
    memo = ("shared key", var, key.text)
    if memo not in book.memo:
        said = norm(key.text)
        named = sum(norm(r.key) == said for r in holding(book.texts[var], book.structs[var], key.text)[:50]) > 1
        others = any(k.is_key or k.is_value for k in book.keys.get(var, []) if k is not key and k.records)
        book.memo[memo] = named and others
    return bool(book.memo[memo])


def why_specific(key: Any, book: Any = None, var: str = "") -> str:
    """Why a read by ``key`` is vouched for, or not."""
    return "the record matches the question's key" if specific(key, book, var) else "the key matches several records"


def other_field_named(book: Any, move: Any, kind: Any, key: Any, text: str) -> str | None:
    """A doubt of a field read (:data:`~dspy_rlm.profiles.doubts.DOUBTS`): :func:`rival_field` of the field read."""
    if move.kind != "field" or key is None or len(move.args) < 2:
        return None
    record = lookup.record_of(text, key.text)
    rival = rival_field(book, move.var, key, str(move.args[1]), record) if isinstance(record, st.Record) else None
    return f"the question names {rival!r}, another field of the record" if rival else None


def rival_field(book: Any, var: str, key: Any, field: str, record: st.Record) -> str | None:
    """Another field of ``record`` whose name's last part is another phrase of the question ("what version range
    of *esbuild* does corepack list": ``devDependencies.esbuild``, not corepack's ``version``): the one asked,
    not ``field``. A field a phrase was found in names the record ("whose ignore list includes B305"), no rival."""
    leaf = st.stem(field.rsplit(".", 1)[-1].casefold())  # User-Agent of http.User-Agent
    read_parts = {st.stem(p.casefold()) for p in parts(field)} | {leaf}
    said = {st.stem(k.text.casefold()) for k in book.keys.get(var, []) if k is not key and not k.hop}
    said -= read_parts | {st.stem(key.text.casefold())}
    phrases = [k.text for k in book.keys.get(var, []) if not k.hop] + [key.text]
    for name, value in record.fields if said else ():
        named = st.stem(name.rsplit(".", 1)[-1].casefold()) in said  # the last part of its name, whole
        if named and name != field and not any(st.matches(p, value) for p in phrases):
            return name
    return None


def names_document(s: st.Structure, record: st.Record, phrase: str, move: Any) -> bool:
    """Whether ``phrase``, which the ``record`` read lacks, names the whole document: a value of its first record
    when that record is its header, whose fields no other record has (a copyright file's "the Debian packaging of
    *GNU ed*", a manual page's title), and which lacks the field read."""
    head = s.records[0] if s.records else None
    if head is None or head is record or not any(lookup._same(v, phrase) for _, v in head.fields):
        return False
    names = {f for f, _ in head.fields}
    if any(names & {f for f, _ in r.fields} for r in s.records[1:200]):
        return False  # a table's first row: one record among its peers
    field = str(move.args[1]) if move.kind == "field" and len(move.args) > 1 else None
    return field is None or head.get(field) is None


def noted_section(book: Any, var: str, key: Any) -> bool:
    """ "Which release dropped support for Python 3.2?": a phrase of one changelog section's notes names it."""
    noted = book.structs[var].detail == "dated sections" and key is not None and key.records == 1
    noted = noted and not key.is_key and len(key.text.split()) > 1 and not book.named_fields(var)
    return noted and re.match(r"\W*(?:in |from )?(?:which|what)\b", book.text_q, re.I) is not None  # no "who"
