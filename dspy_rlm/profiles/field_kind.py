"""The field read: one field of the record a key phrase names (``field_of``), and what its value supports: the
value as written, the part after the key, the item a question asks for, the first line of a description, or no
value where a flag, a binding or a rival field answers instead. Split from :mod:`~dspy_rlm.profiles.kinds`, which
registers it; :func:`as_said` and :func:`in_sentence` are shared with the record read there.
"""

from __future__ import annotations

from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.calibration import IN_SENTENCE
from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.conditions import agree
from dspy_rlm.profiles.field_words import FIRST_LINE
from dspy_rlm.profiles.kind_registry import KindBase
from dspy_rlm.profiles.listed import nth_item, one_of_listed
from dspy_rlm.profiles.move import Move, read
from dspy_rlm.profiles.naming import holds_asked, possessed
from dspy_rlm.profiles.naming import specific as _specific
from dspy_rlm.profiles.naming import why_specific as _why
from dspy_rlm.profiles.owners import holder_of_field
from dspy_rlm.profiles.printed_rows import printed
from dspy_rlm.profiles.reads import _holds_key, _past_key, camel_parts, norm
from dspy_rlm.profiles.said import as_asked, keyed_tail
from dspy_rlm.profiles.stated import binds, flag_answer
from dspy_rlm.profiles.twin_fields import twin_field
from dspy_rlm.profiles.versions import pinned
from dspy_rlm.profiles.which_noun import head_rival, names_block, question_stems

__all__ = ["Field", "as_said", "in_sentence"]


def in_sentence(found: list[Candidate]) -> list[Candidate]:
    """The supported tokens of a field that is a sentence, said so (a class of its own for calibration)."""
    return [Candidate(c.value, c.label, True, IN_SENTENCE) for c in found if c.supported]


class Field(KindBase):
    name = "field"

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        owned = possessed(book, var, key)  # "go1.x's successor" first; a hop's field asked again last
        fields = sorted(book.fields[var], key=lambda f: (f == key.via[1], f != owned))
        if key.hop and book.structs[var].kind == "assignments" and _own_named(book, var, key.text):
            fields = [key.text] + [f for f in fields if f != key.text]  # an alias's target: a setting's value is its
            # one field, named as its key (<COMP> = 135); a Makefile rule's is no setting
        lacks = _one_record_lacks(book, var, key)
        return [
            read("field", f"I will read the {f} of {key.text!r}.", "field_of", var, key.text, f)
            for f in fields
            if not book.field_is_key(var, key, f)  # the key is this field's value: reading it repeats the question
            and not lacks(f)
        ]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        field = str(move.args[1])
        if not isinstance(result, str) or (key is not None and as_said(result) == as_said(key.text)):
            return []
        if flagged := flag_answer(book, move.var, field, result, _specific(key, book, move.var)):
            return flagged  # "is RPATH enabled?": ENABLE_RPATH = NO
        if key is not None and binds(book.text_q, key.text, field, book.structs[move.var].field_names):
            return []  # "whose output is 0x0": the output is given
        if holds_asked(book, move.var, key, [field]):  # "which program is the one with a hints field"
            why = f"the question asks which record holds {field!r}, not its value"
            return [Candidate(key.text, "key", True, "reverse lookup"), Candidate(result, field, False, why)]
        if held := holder_of_field(book, move.var, key, field):  # "X lives under which section?": its holder's key
            return [*held, Candidate(result, field, False, "the question asks where the field sits, not its value")]
        if versions := pinned(book, key, [result], _why(key, book, move.var)):  # Requires-Dist: yarl<2.0,>=1.25.1
            return (
                versions
                if _specific(key, book, move.var)
                else [Candidate(v.value, v.label, False, v.why) for v in versions]
            )
        if key is not None and (tail := keyed_tail(result, key.text)):  # "nodejs:amd64 (20.20.2-1)": the version
            alone = book.fields[move.var] == [field]  # "the run that installed X ... when did it end": End-Date
            own = Candidate(tail, field, alone and _specific(key, book, move.var), _why(key, book, move.var))
            return [own, Candidate(result, field, False, "its name repeats the question's key")]
        if key is not None and _holds_key(result, key.text, False):
            return _past_key(result, key.text, field, False, _why(key))
        named = key is not None and key.is_key and norm(field) == norm(key.text)  # a "name value" line's own value
        loose = (book.structs[move.var].kind in ("lines", "prose") and not named) or len(field.split()) > 2
        parts = in_sentence(printed(book, result, key)) if loose and len(result.split()) > 3 else []
        # "... opened incident INC-4821": the question asks for the part said after its word, not the sentence
        if parts:
            return parts
        whole = Candidate(result, field, _specific(key, book, move.var), _why(key, book, move.var))
        if whole.supported and not agree(book, move.var, key, field, result):
            whole = Candidate(result, field, False, "records of the same key hold other values there")
        if whole.supported and (rival := head_rival(book, move.var, field)):  # "which guardrail *mode* ..."
            whole = Candidate(result, field, False, f"the noun the question asks for names {rival!r}")
        if whole.supported and key is not None and names_block(book, move.var, key.text):
            whole = Candidate(result, field, False, "the question's noun names the records' block: it asks which")
        if whole.supported and (sibling := _unsaid_sibling(book, move.var, field)):  # @args.RATE.default.@func
            whole = Candidate(result, field, False, f"the question says neither its last part nor {sibling!r}'s")
        if whole.supported and (twin := twin_field(book, move.var, key, field)):  # "the .panel box": box-sizing?
            whole = Candidate(result, field, False, f"the question names {twin!r} by the same words")
        if (item := nth_item(book.text_q, result)) is not None:  # "the first font listed under font.fantasy"
            return [Candidate(item, f"{field} (an item)", whole.supported, whole.why), _one_item(whole)]
        if whole.supported and one_of_listed(book.text_q, result):  # "which template variable ...": one of them
            return [_one_item(whole)]
        first = result.strip().split("\n", 1)[0].strip()
        if "\n" not in result.strip() or not first:
            return as_asked(book, move.var, key, whole)  # "${base}/bin": as written, and what it stands for
        line = Candidate(first, f"{field} (first line)", whole.supported, whole.why)  # a package's short description
        return [line, whole] if set(st.words(book.text_q.casefold())) & set(FIRST_LINE) else [whole, line]


def as_said(text: str) -> str:
    """``text`` as a question says it: casefolded, a hyphen read as a space ("cargo yank" for ``CARGO-YANK``), no
    other mark dropped (``en_US.UTF-8`` stays apart from ``en_US.utf8``, one value of another name's)."""
    return norm(text.replace("-", " "))


def _one_item(whole: Candidate) -> Candidate:
    return Candidate(whole.value, whole.label, False, "the question asks for one item of the list")


def _one_record_lacks(book: Any, var: str, key: Any) -> Any:
    """For a key one record holds: whether that record lacks a field (reading it prints None: a grammar's rules,
    each its own field, ``NEWLINE: (CR? LF)+`` holds no field ``CR``); for any other key, never."""
    record = lookup.record_of(book.texts[var], key.text) if key.records == 1 else None
    if not isinstance(record, st.Record):
        return lambda f: False
    return lambda f: record.get(f) is None


def _own_named(book: Any, var: str, key: str) -> bool:
    """Whether the record ``key`` names holds a field named as the key (a setting, not a rule)."""
    record = lookup.record_of(book.texts[var], key)
    return isinstance(record, st.Record) and record.get(key) is not None


def _unsaid_sibling(book: Any, var: str, field: str) -> str | None:
    """Another field under the same parent as ``field``, where the question says the last part of neither
    (``@args.RATE.default.@func`` beside ``@args.RATE.default.name``, asked "which key supplies the default for
    the rate?"): what it names is the parent, and the parent holds two values."""
    parent, _, leaf = field.rpartition(".")
    said = question_stems(book)
    if not parent or _leaf_said(leaf, said):
        return None
    return next(
        (f for f in book.structs[var].field_names if f != field and f.rpartition(".")[0] == parent
         and not _leaf_said(f.rpartition(".")[2], said)),
        None,
    )  # fmt: skip


def _leaf_said(leaf: str, said: frozenset[str]) -> bool:
    words = [w.casefold() for w in camel_parts(leaf)]  # dnsSuffix: dns, suffix
    return bool(words) and all(st.stem(w) in said for w in words)
