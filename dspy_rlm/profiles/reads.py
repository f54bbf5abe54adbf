"""What a grounded read produced: each value a read of the small policy's moves printed, as a submit
:class:`~dspy_rlm.profiles.candidates.Candidate` that knows whether it is supported.

The host computes each read's result itself with the REPL's own helpers (:mod:`dspy_rlm.library.lookup`), so the
values are exact. A value is *supported* when the record it came from matches the question's key phrase and
the field holding it is the one the question asks for, or when it is the result of the count / ranking /
existence the question asks for. The helpers at the end are shared with :mod:`dspy_rlm.profiles.moves`.
"""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles import guided
from dspy_rlm.profiles.candidates import INT_RX, Candidate

__all__ = [
    "evaluate",
    "field_holding_key",
    "field_stems",
    "literal",
    "norm",
    "parts",
    "printed",
]


def evaluate(book: Any, move: Any, stdout: str) -> list[Candidate]:
    """What the grammar's read ``move`` produced, each value with whether it is supported (computed on the
    host with the same helpers the REPL runs)."""
    var, key = book.key_of(move)
    text = book.texts.get(var)
    if text is None:
        return []
    specific = key is not None and (key.is_key or key.records <= 3)
    why_rec = "the record matches the question's key" if specific else "the key matches several records"
    if move.kind == "search":
        return printed(book, stdout, key, var)
    args = (var, *move.args)  # the move's data: its variable, then the helper's arguments
    result = getattr(lookup, move.helper)(text, *move.args)
    if move.kind == "record":
        if not isinstance(result, st.Record):
            return []
        out = []
        said = " ".join(key.text.casefold().split()) if key is not None else None
        numeric = [f for f, v in result.fields if INT_RX.match(v.strip())]
        one_number = book.answer_type in (int, float) and len(numeric) == 1  # no doubt which field is meant
        for fname, value in result.fields:
            if said is not None and " ".join(value.casefold().split()) == said:
                continue  # the question's own key: no answer
            asked = fname in book.fields.get(var, [])
            ok = specific and (asked or len(result.fields) <= 2 or (one_number and fname in numeric))
            if key is not None and _holds_key(value, key.text, value == result.key):  # "ENCRYPT_METHOD SHA512"
                out += _past_key(value, key.text, fname, ok and len(result.fields) <= 2, why_rec)
                continue
            # a sentence after a line's "key:" (a log line, not a field): the question asks for a part of it
            loose = (book.structs[var].kind in ("lines", "prose") or len(fname.split()) > 2) and len(value.split()) > 3
            parts = [c for c in printed(book, value, key) if c.supported] if loose else []
            if parts:  # "... opened incident INC-4821": the question asks for the part said after its word
                out += parts
                continue
            out.append(Candidate(value, fname, ok, why_rec if ok else "a field the question does not name"))
        if result.key:
            reverse = key is not None and key.is_value and not key.is_key and not _other_asked(book, var, key)
            out.append(Candidate(result.key, "key", reverse and specific, "reverse lookup" if reverse else "key"))
        if not result.fields:
            out += printed(book, result.text, key)
        return out
    if move.kind == "field":
        same = isinstance(result, str) and key is not None and norm(result) == norm(key.text)
        if not isinstance(result, str) or same:
            return []
        if key is not None and _holds_key(result, key.text, False):
            return _past_key(result, key.text, str(args[2]), False, why_rec)
        loose = book.structs[var].kind in ("lines", "prose") or len(str(args[2]).split()) > 2
        parts = [c for c in printed(book, result, key) if c.supported] if loose and len(result.split()) > 3 else []
        # "... opened incident INC-4821": the question asks for the part said after its word, not the sentence
        return parts or [Candidate(result, args[2], specific, why_rec)]
    asked_field = len(args) > 1 and args[1] in book.fields.get(var, [])
    if move.kind in ("most_common", "max", "min"):
        asked_field = args[1] in book.named_fields(var)  # ranking the key's own field is asked too
    if move.kind == "count_where":
        ok = (asked_field or (key is not None and key.is_value)) and bool(result)
        why = "counted" if ok else "no record has that value there" if not result else "a field not named"
        return [Candidate(str(result), "count", ok, why)]
    if move.kind == "count":
        ok = key is not None and key.is_value
        return [Candidate(str(result), "count", ok, "counted" if ok else "counted a word, not a field value")]
    if move.kind == "exists":
        # present: the phrase names a record (its key or a whole value), not a word inside one; absent: only
        # when no other phrase of the question names a record ("wheezy: is it among ..." asks about wheezy)
        named = any(k.is_key or k.is_value for k in book.keys.get(var, []) if k is not key)
        if result:
            ok = key is not None and (key.is_key or key.is_value)
        else:
            ok = key is not None and key.records == 0 and not named
        return [Candidate(bool(result), "answer", ok, "checked" if ok else "the word checked is not specific")]
    if move.kind == "key_of":
        key_field = field_holding_key(book.structs[var])
        named = key_field is None or key_field in book.named_fields(var)
        other = _other_asked(book, var, key)
        ok = specific and named and not other
        why = why_rec if ok else f"the question asks for {other[0]!r}" if other else f"{key_field!r} is not named"
        return [Candidate(result, "key", ok, why)] if isinstance(result, str) else []
    why_rank = "ranked" if asked_field else "ranked a field the question does not name"
    if move.kind == "most_common":
        found = [Candidate(result, f"most common {args[1]}", asked_field, why_rank)]
        return found if isinstance(result, str) else []
    if move.kind in ("max", "min") and isinstance(result, tuple):
        label = ("largest" if move.kind == "max" else "smallest") + f" {args[1]}"
        names = book.named_fields(var)
        record = getattr(result, "record", None)
        others = [  # the winning record's other fields: "which time zone (TZ) has the highest latitude"
            Candidate(
                v, f, asked_field and f in names, why_rank if f in names else "a field the question does not name"
            )
            for f, v in (record.fields if isinstance(record, st.Record) else ())
            if f != args[1] and v != result[0]
        ]
        number = book.answer_type in (int, float)  # a number asks for the ranked value, a text for the record
        ranked = [
            Candidate(result[0], "key", asked_field and not number, why_rank),
            Candidate(result[1], label, asked_field and number, why_rank),
        ]
        return [c for c in others if c.label in names] + ranked + [c for c in others if c.label not in names]
    return []


def printed(book: Any, stdout: str, key: Any = None, var: str | None = None) -> list[Candidate]:
    """Tokens of printed rows (search output, a record's text): supported when stated after a word of the
    question on a row that holds the question's key. After a word of the key itself, a value is supported only
    in a field the question names (not the next column: "freeciv 5556/tcp"), or, in lines of text, right
    after the whole key phrase ("the vault access code is 31337", not "CA Disig Root R2 O=Disig a.s.")."""
    values = guided.output_values([stdout], book.question, book.data)
    pairs = guided.focus_pairs(guided.stated_pairs([stdout], book.question, values), book.question)
    specific = key is not None and (key.is_key or key.records <= 3)
    s = book.structs[var] if var is not None else None
    fielded = s is not None and s.kind not in ("lines", "prose") and bool(s.field_names)
    own = set(st.words(key.text.casefold())) if key is not None else set()  # "CA Disig ... O=Disig a.s."
    record = lookup.record_of(book.texts[var], key.text) if own and var is not None and key is not None else None
    named = book.named_fields(var) if own and var is not None else []

    def asked(value: str) -> bool:  # the column after the key is asked for only when the question names it
        fields = record.fields if isinstance(record, st.Record) else ()
        return any(f in named and value in v.split() for f, v in fields)

    def follows_key(value: str) -> bool:  # a sentence: "the vault access code is 31337"
        linked = re.escape(key.text) + r"[\s:=]*(?:(?:is|are|was|were)\s+)?" + re.escape(value)
        return not fielded and key is not None and re.search(linked, stdout, re.IGNORECASE) is not None

    def whole(value: str) -> bool:  # the token is a field's whole value, not a word of a longer one
        fields = record.fields if isinstance(record, st.Record) else ()
        return any(norm(v) == norm(value) for _, v in fields)

    out = [
        Candidate(
            v,
            w,
            specific and (w.casefold() not in own or asked(v) or follows_key(v)),
            "stated after the key, a whole value" if whole(v) else "stated after the key",
        )
        for w, v in pairs
    ]
    out += [Candidate(v, "answer", False, "a token of a printed row") for v in values]
    return out


def _other_asked(book: Any, var: str, key: Any) -> list[str]:
    """The fields the question asks for besides the one holding its key value ("the package whose description
    is X: give its Version" asks for the Version, not the package)."""
    record = lookup.record_of(book.texts[var], key.text) if key is not None else None
    if not isinstance(record, st.Record):
        return list(book.fields.get(var, []))
    said = norm(key.text)
    holders = {f for f, v in record.fields if said in (norm(v), norm(v.split("\n", 1)[0]))}
    return [f for f in book.fields.get(var, []) if f not in holders]


def _holds_key(value: str, key: str, is_record_key: bool) -> bool:
    """Does the value only repeat the question's key (``/nonexistent`` for ``nonexistent``) or, as a record's
    key, start with it (``ENCRYPT_METHOD SHA512``: a ``NAME value`` line read as one field)?"""
    words = st.words(key.casefold())
    found = st.words(value.casefold())
    starts = found[: len(words)] == words and value[len(key) : len(key) + 1] in (" ", "\t", "=", ":")
    return found == words or (is_record_key and starts)


def _past_key(value: str, key: str, label: str, ok: bool, why: str) -> list[Candidate]:
    """A value that holds the question's own key: what follows the key (``ENCRYPT_METHOD SHA512`` read for
    ``ENCRYPT_METHOD``: ``SHA512``, supported when ``ok``); the whole value only repeats the question."""
    whole = Candidate(value, label, False, "the value repeats the question's key")
    folded, k = value.casefold(), " ".join(key.casefold().split())
    if not folded.startswith(k) or value[len(k) : len(k) + 1] not in (" ", "\t", "=", ":"):
        return [whole]
    rest = value[len(k) :].strip(" \t=:")
    return (
        [Candidate(rest, label, ok, why if ok else "after the key, in a field not named"), whole] if rest else [whole]
    )


def norm(text: str) -> str:
    return " ".join(text.casefold().split())


def parts(text: str) -> list[str]:
    """The alphanumeric parts of a text (``Installed-Size`` -> ``Installed``, ``Size``), for stems."""
    return re.findall(r"[^\W_]+", text)


def field_stems(name: str) -> set[str]:
    """The stems of a field's name; an upper-case initialism (``TZ``) also as ``=TZ``, which the question's
    consecutive content words (``time zone``) give."""
    stems = {st.stem(w) for w in parts(name)}
    if name.isalpha() and name.isupper() and 2 <= len(name) <= 3:
        stems.add("=" + name)
    return stems


def field_holding_key(s: st.Structure) -> str | None:
    """The field that holds each record's key (``Package`` of a stanza), when one does."""
    for r in s.records[:5]:
        for name, value in r.fields:
            if r.key and value == r.key:
                return name
    return None


def literal(value: Any) -> str:
    return repr(value)
