"""The move kinds: each kind of read is one object that says how it is offered (for which key phrases, fields
and questions), what sentence demonstrates it, and what its result supports. Adding a kind is one class and one
:func:`register` call (the protocol and registry: :mod:`~dspy_rlm.profiles.kind_registry`; the ranking kinds:
:mod:`~dspy_rlm.profiles.rankings`; the counting kinds: :mod:`~dspy_rlm.profiles.counts`; the existence read:
:mod:`~dspy_rlm.profiles.existence`; the reverse lookup: :mod:`~dspy_rlm.profiles.key_of`; the field read:
:mod:`~dspy_rlm.profiles.field_kind`);
:class:`~dspy_rlm.profiles.moves.MoveBook` offers the registered kinds in registration order and :func:`evaluate`
dispatches on a move's kind.

Every read runs the REPL's own helper (:mod:`dspy_rlm.library.lookup`) on the host, so values are exact. A value
is *supported* when the record it came from matches the question's key phrase and the field holding it is the
one asked for, or when it is the result of the count / ranking / existence the question asks for.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from dspy_rlm.library import items, superlatives
from dspy_rlm.library import structure as st
from dspy_rlm.library.formats import unquote
from dspy_rlm.library.search import count_matches
from dspy_rlm.profiles.candidates import INT_RX, Candidate
from dspy_rlm.profiles.conditions import agree, loose_fields
from dspy_rlm.profiles.counts import AnyIf, Count, CountAll, CountFlag, CountIf, CountPresent, CountWhere
from dspy_rlm.profiles.definitions import DefinitionsCounted
from dspy_rlm.profiles.doubts import DOUBTS
from dspy_rlm.profiles.existence import Exists
from dspy_rlm.profiles.field_kind import Field, as_said, in_sentence
from dspy_rlm.profiles.field_words import CONTEXT_FIELDS, NAME_ASKED, PROSE_FIELDS
from dspy_rlm.profiles.key_of import KeyOf, identifier_elsewhere, keyed_by_name, record_named, subject_keyed
from dspy_rlm.profiles.kind_registry import KINDS, KindBase, MoveKind, register
from dspy_rlm.profiles.line_starts import LinesStarting
from dspy_rlm.profiles.listed import one_of_listed
from dspy_rlm.profiles.members import HasItem
from dspy_rlm.profiles.move import Move, read
from dspy_rlm.profiles.naming import (
    dated_holder,
    holds_asked,
    mostly_unread,
    noted_section,
    rival_field,
    sole_holder,
)
from dspy_rlm.profiles.naming import specific as _specific
from dspy_rlm.profiles.naming import why_specific as _why
from dspy_rlm.profiles.owners import path_owner
from dspy_rlm.profiles.placed import Placed
from dspy_rlm.profiles.printed_rows import printed
from dspy_rlm.profiles.rankings import ByLength, Extreme, MostCommon
from dspy_rlm.profiles.reads import (
    _holds_key,
    _other_asked,
    _past_key,
    as_written,
    assigns,
    field_holding_key,
    holders,
    keys_identify,
    norm,
    own_setting,
    ranked_names,
    states_pair,
    unnamed,
    values_in,
    words_inside,
)
from dspy_rlm.profiles.rewrites import rewrite
from dspy_rlm.profiles.said import (
    WHO,
    addressed_names,
    alias_values,
    asks_part,
    default_said,
    option_form,
    shaped_field,
    spelling_asked,
    stated_after_mark,
)
from dspy_rlm.profiles.scopes import outside
from dspy_rlm.profiles.setting_rank import FieldExtreme, SettingCommon, SettingCount, SettingExtreme
from dspy_rlm.profiles.size_of import SizeOf
from dspy_rlm.profiles.size_ranks import FieldsExtreme, ItemsExtreme
from dspy_rlm.profiles.sizes import CountItems
from dspy_rlm.profiles.stated import binds
from dspy_rlm.profiles.twin_fields import twin_field
from dspy_rlm.profiles.value_doubts import VALUE_DOUBTS
from dspy_rlm.profiles.versions import pinned
from dspy_rlm.profiles.vocabulary import ID_LIKE

__all__ = ["KINDS", "MoveKind", "evaluate", "register"]

_COMPOUND = re.compile(r"[(\[].*,.*[)\]]", re.DOTALL)
"""A value written as a tuple or list of several items (``('pygments.lexers.q', 'K', ('k',))``)."""


_HOST_HELPERS: dict[str, Callable[..., Any]] = {
    **superlatives.STRUCTURE_HELPERS,
    **items.SIZE_HELPERS,
    "count_matches": count_matches,
}
"""The structure helpers a read runs again on the host, by name, for the values it reads."""


def evaluate(book: Any, move: Move, stdout: str) -> list[Candidate]:
    """What the read ``move`` produced, each value with whether it is supported."""
    kind = KINDS.get(move.kind)
    var, key = book.key_of(move)
    text = book.texts.get(var)
    if kind is None or text is None:
        return []
    within = {"within": move.within} if move.within is not None else {}
    within |= {"but": move.but} if move.but is not None else {}
    result = None if move.kind == "search" else _HOST_HELPERS[move.helper](text, *move.args, **within)
    found = rewrite(book, key, kind.evaluate(book, move, stdout, key, result))
    why = next((w for w in (check(book, move, kind, key, text) for check in DOUBTS) if w), None) if found else None
    if why:
        return [Candidate(c.value, c.label, False, why) for c in found]
    return [_doubted(book, move, key, c) if c.supported else c for c in found]


def _doubted(book: Any, move: Move, key: Any, found: Candidate) -> Candidate:
    """The candidate, unsupported when a check of :data:`VALUE_DOUBTS` says why."""
    why = next((w for w in (check(book, move, key, found.value) for check in VALUE_DOUBTS) if w), None)
    return Candidate(found.value, found.label, False, why) if why else found


class Search(KindBase):
    name = "search"
    streams = True

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        return [read("search", f"I will search for {key.text!r}.", "search", var, key.text, ignore_case=True)]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        return printed(book, stdout, key, move.var)


class Record(KindBase):
    name = "record"

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        return [read("record", f"I will read the record of {key.text!r}.", "record_of", var, key.text)]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if not isinstance(result, st.Record):
            return []
        var = move.var
        specific, why_rec = _specific(key, book, var), _why(key, book, var)
        out = []
        said = as_said(key.text) if key is not None else None
        # a record's own values: not where it sits (a literal's block)
        own = [(f, v) for f, v in result.fields if f not in CONTEXT_FIELDS] or list(result.fields)
        numeric = [f for f, v in own if INT_RX.match(v.strip())]
        if any(f in book.fields.get(var, []) for f, _ in result.fields if f in CONTEXT_FIELDS):
            own = list(result.fields)  # the question names the block: it is one of the values asked among
        apart = bool(result.key) and all(norm(v) != norm(result.key) for _, v in own)
        # the question names a field of the data this record lacks ("the @deprecated note" of an entry with no
        # comment): what it holds is not what is asked
        elsewhere = bool(book.fields.get(var)) and not {f for f, _ in result.fields} & set(book.fields[var])
        # no doubt which field is meant (unless a count is asked: a field's number is no count)
        one_number = book.answer_type in (int, float) and len(numeric) == 1 and "count" not in book.cues
        one_number = one_number and not elsewhere  # "the resolution": a record without one has no number asked
        flag = key is not None and key.is_key and key.text.startswith("-")  # "--validate": "Validate the ..."
        shaped = shaped_field(book.text_q, own) if not elsewhere else None  # "what hex value": 0x0200
        names = book.structs[var].field_names
        unread = mostly_unread(result)  # the record's fields hold little of its text
        for fname, value in result.fields:
            if said is not None and as_said(value) == said:
                continue  # the question's own key, spaced or joined as it may be ("CARGO-YANK"): no answer
            if key is not None and (binds(book.text_q, key.text, fname, names) or states_pair(key.text, fname, value)):
                continue  # the field the question gives the key as ("whose output is X", "profile = black")
            asked = fname in book.fields.get(var, [])
            # "which attribute pattern carries the comment ...": the key's own column, named in its own words, read by
            # another column's phrase ("when" names a log's date column, which keys the line: no such naming)
            asked = asked or (
                value == result.key
                and key is not None
                and not key.is_key
                and fname == field_holding_key(book.structs[var])  # a table's key column, not a document's one record
                and len(book.structs[var].records) > 1
                and fname in book.named_fields(var)
                and bool(ranked_names(book.field_q, [fname]))
            )
            # col2, KEY=value (no name the question could say), or a name a word of the question says; a field
            nameless = unnamed(fname) or fname == result.key or fname in loose_fields(book, var)
            whole = key is not None and (key.is_key or key.is_value)  # the record named whole, not "#syn@" in a ref
            # else a field no question word names is none; a line of one field holding the key inside a sentence
            # (a key apart from the fields, a JSON object's name or a section's, is a value of its own: of two
            # fields beside it neither is the one left over)
            few = (len(own) == 2 and (nameless or whole) and not apart) or (len(own) == 1 and whole)
            few = few and not unread  # one scalar of a JSON object of nested ones
            few = few and fname not in CONTEXT_FIELDS  # a bullet holding only its heading: where it is, no answer
            # a tuple's parts are no one value: "the module of the lexer" asks for one of them
            few = few and (fname, value) in own and not _COMPOUND.fullmatch(value.strip()) and not elsewhere
            ok = specific and (asked or few or (one_number and fname in numeric) or (whole and fname == shaped))
            ok = ok and not (asked and rival_field(book, var, key, fname, result))  # esbuild's, not corepack's version
            ok = ok and not (asked and twin_field(book, var, key, fname))  # "the .panel box": box-sizing? box-shadow?
            # "meuligoe": a release's record, or its CD-ROM's? a field written once per value: one of several
            ok = ok and agree(book, var, key, fname, value) and len(values_in(result, fname)) == 1
            # the field the key phrase was found in ("MIME" inside "application/pkcs7-mime") is no answer to it
            ok = ok and (asked or key is None or flag or not words_inside(key.text, value))
            if key is not None and _holds_key(value, key.text, value == result.key):  # "ENCRYPT_METHOD SHA512"
                # 'let b:keymap_name = "pho"': a setting the question names as an identifier (not "a gui background")
                sets_key = specific and len(own) == 1 and bool(ID_LIKE.search(key.text)) and assigns(value, key.text)
                out += _past_key(value, key.text, fname, (ok and few) or sets_key, why_rec)
                continue
            # a sentence after a line's "key:" (a log line, not a field): the question asks for a part of it
            sentence_field = book.structs[var].kind in ("lines", "prose") or len(fname.split()) > 2 or unnamed(fname)
            sentence_field = sentence_field or (fname in PROSE_FIELDS and not asked)  # an option's description
            loose = sentence_field and len(value.split()) > 3
            parts = in_sentence(printed(book, value, key)) if loose else []
            if fname in PROSE_FIELDS:  # a description states a value after a mark ("[default: 256]"), not in its
                parts = [c for c in parts if stated_after_mark(c.value, value)]  # examples ("gzip -l file.Z")
                parts = parts or default_said(book, value, fname, ok or (specific and loose))
            if parts:  # "... opened incident INC-4821": the question asks for the part said after its word
                out += parts
                continue
            ok = ok and not (loose and fname in PROSE_FIELDS and asks_part(book, value, key))  # "removed in 3.12"
            ok = ok and not one_of_listed(book.text_q, value)  # "which template variable ...": one of them
            bare = unquote(value.strip())  # 'title "Harbour locale"': one quoted string answers unquoted
            value = bare if bare != value.strip() and value.strip()[0] not in bare else value
            out.append(Candidate(value, fname, ok, why_rec if ok else "a field the question does not name"))
        out[:0] = _field_named(book, var, key, result, specific)  # first: a record of many fields cuts the tail
        out[:0] = (
            pinned(book, key, [v for _, v in result.fields], why_rec) if specific else []
        )  # "which version of X is pinned"
        if spelling_asked(book, key, result):  # "the long option for -L": its other spelling, or none
            out = [Candidate(c.value, c.label, False, "another spelling of the option is asked") for c in out]
            out[:0] = option_form(book, key, result, why_rec) if specific else []
        out[:0] = alias_values(
            book, var, key, result, specific, why_rec
        )  # "an alias of another flag: what does it end up"
        out[:0] = path_owner(book, var, key, result, why_rec)  # "which job builds on X": the job it sits in
        if WHO.search(book.text_q):  # "who ...?": "They are written by A. B <a@b>" in a long field value
            prose = "\n".join(v for _, v in result.fields if len(v.split()) > 3)
            out[:0] = addressed_names(book, prose, specific) if prose else []
        if result.key:
            reverse = key is not None and key.is_value and not key.is_key and not _other_asked(book, var, key)
            reverse = reverse and keys_identify(book, var)
            reverse = reverse and holders(book.structs[var].records[:5000], key.text) <= 1  # "M": MIXED, MEDIUM
            reverse = reverse or noted_section(book, var, key) or sole_holder(book, var, key)
            reverse = reverse or dated_holder(book, var, key, result)  # "when did 1.0 come out?": its date
            held = holds_asked(book, var, key, [f for f, _ in result.fields])  # the one record with the field asked
            reverse = reverse or held
            setting = own_setting(book, var, key) if reverse and specific else None
            why = f"the value is the record's own setting {setting!r}" if setting else None
            block = outside(book, var, key.text) if reverse and not why else None  # the first hop of two
            why = why or (f"the question names the block {block!r}, which does not hold the value" if block else None)
            first_words = reverse and not why and not keyed_by_name(book, var, result.key)  # a list item's first words
            why = why or ("the record's key is its item's first words, no name" if first_words else None)
            other = record_named(book, var, result.key) if reverse and not why else None  # "what currency symbol"
            why = why or (f"the question names the record {other!r}: its value is asked, not a key" if other else None)
            ident = identifier_elsewhere(book, var, key, result) if reverse and not why else None  # "the MT-2ST type"
            why = why or (f"the question names {ident!r}, which this record lacks: it asks of that" if ident else None)
            subject = reverse and not why and key is not None and subject_keyed(book.text_q, key.text)
            why = why or (
                "the question names the record by this key in its subject: something of it is asked"
                if subject
                else None
            )
            why = why or ("reverse lookup" if reverse else "key")
            ok = reverse and specific and not (setting or block or first_words or other or ident or subject)
            out.append(Candidate(result.key, "key", ok, why))
        if not result.fields:
            out += printed(book, result.text, key, held=result)
        return out


def _field_named(book: Any, var: str, key: Any, result: st.Record, specific: bool) -> list[Candidate]:
    """ "Which setting in section S is set to V?": the name of the one field of the record read whose value is a
    value the question names, where it asks for a field by what fields are called (the record read by S or by V)."""
    if key is None or book.structs[var].kind in ("table", "lines", "prose"):
        return []
    if not (asked := NAME_ASKED.search(book.text_q)):
        return []
    # "which D-Bus *property* is typed 'as'?" where the text writes <property> elements: an <arg>'s field is none
    noun = re.sub(r"s$", "", asked.group(0).split()[-1].casefold())
    if ("tag", var, noun) not in book.memo:  # one scan of the text per run, not one per record read
        book.memo[("tag", var, noun)] = re.search(rf"<{noun}\b", book.texts.get(var, ""), re.I) is not None
    elements = book.memo[("tag", var, noun)] and re.match(rf"\s*<{noun}\b", result.text, re.I) is None
    # a number as the question writes it, with its percent sign ("defaults to 10%": not a setting of 10)
    values = {norm(as_written(book.text_q, k.text)) for k in book.keys.get(var, []) if k.is_value and not k.is_key}
    named = [f for f, v in result.fields if norm(v) in values and f != result.key and f not in CONTEXT_FIELDS]
    if len(named) != 1:
        return []
    heads = [  # "which extra_style key is set to X?": Prompt, not extra_style.Prompt
        h
        for i in range(1, named[0].count(".") + 1)
        if re.search(rf"(?<![\w.]){re.escape(h := named[0].rsplit('.', i)[0])}(?![\w.])", book.text_q, re.I)
    ]
    name = named[0][len(heads[0]) + 1 :] if heads else named[0]
    if elements:
        return [Candidate(name, "field name", False, f"the text's <{noun}> elements are what it calls a {noun}")]
    return [Candidate(name, "field name", specific, _why(key, book, var))]


for _kind in (
    Search(),
    Record(),
    Field(),
    HasItem(),
    Exists(),
    Count(),
    CountWhere(),
    CountIf(),
    CountAll(),
    CountFlag(),
    CountPresent(),
    CountPresent("count_empty", "empty"),
    KeyOf(),
    MostCommon(),
):
    register(_kind)
register(Extreme("max", "max_of", "largest"))
register(Extreme("min", "min_of", "smallest"))
register(SettingExtreme("max_setting", "max_of", "max", "largest"))
register(SettingExtreme("min_setting", "min_of", "min", "smallest"))
register(FieldExtreme("max_field", "max_field", "max", "largest"))
register(FieldExtreme("min_field", "min_field", "min", "smallest"))
register(SettingCount())
register(SettingCommon())
register(ByLength("max_length", "max_of", "longest", "max"))
register(ByLength("min_length", "min_of", "shortest", "min"))
register(SizeOf())
register(CountItems())
register(ItemsExtreme("most_items", "most_items", ("max", "most_common"), "most"))
register(ItemsExtreme("fewest_items", "fewest_items", ("min",), "fewest"))
register(FieldsExtreme("most_fields", "most_fields", ("max", "most_common"), "most"))
register(FieldsExtreme("fewest_fields", "fewest_fields", ("min",), "fewest"))
register(AnyIf())
register(Placed())
register(LinesStarting())
register(DefinitionsCounted())
