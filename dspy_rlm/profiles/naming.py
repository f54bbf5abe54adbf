"""Whether a key phrase of the question names one record (:func:`specific`), and the reason a read by it gives
(:func:`why_specific`): the support of a lookup's value rests on it."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.asked_noun import asked_noun, says_whole
from dspy_rlm.profiles.number_column import number_column
from dspy_rlm.profiles.owners import owner
from dspy_rlm.profiles.phrases import counted_stems, holding, keyed_by
from dspy_rlm.profiles.reads import camel_parts, norm, parts
from dspy_rlm.profiles.vocabulary import HOLDER_VERBS, ID_LIKE, ORDINALS, STOP

__all__ = [
    "asks_holder",
    "column_fields",
    "counted_field",
    "counts_a_field",
    "dated_holder",
    "holder_asked",
    "holds_asked",
    "names_a_record",
    "noted_section",
    "other_field_named",
    "other_than_named",
    "other_than_possessed",
    "possessed",
    "record_keys",
    "rival_field",
    "sole_holder",
    "specific",
    "unparsed_name",
    "why_specific",
]


def specific(key: Any, book: Any = None, var: str = "") -> bool:
    """The key names one record: it is a record's key (one record's, where another key phrase of the question
    could tell several apart: "the RuntimeLibrary whose value is X"), or a phrase of at most three records that
    no record's key beside it names better ("the sidebar (div.sphinxsidebar)": the word *sidebar* is in
    ``div.sidebar``, another record)."""
    if key is None or not (key.is_key or (key.records <= 3 and not key.inner)):
        return False
    plain = not (key.is_key or key.is_value) and re.fullmatch(r"[a-z]+", key.text) and key.records > 1
    # a plain word in two records, and no field named to read ("the .ics *extension*":
    # application/vnd.openofficeorg.extension's oxt) but the word itself ("the *type* of a profile": the type of
    # any record holding one)
    if plain and book is not None and all(st.name_form(f) == st.name_form(key.text) for f in book.named_fields(var)):
        return False
    if book is not None and not (key.is_key or key.is_value) and _keyed_beside(book, var, key):
        return False
    if book is not None and key.is_value and not key.is_key and key.records > 1:
        memo = ("value or key part", var, key.text)  # a scan of the records, asked of every read by this key
        if memo not in book.memo:
            book.memo[memo] = _value_or_key_part(book, var, key)
        if book.memo[memo]:
            return False
    return book is None or not key.is_key or not _shared_key(book, var, key)


def _value_or_key_part(book: Any, var: str, key: Any) -> bool:
    """Whether one record holds the phrase as its whole value and another only as a part of its key ("the font
    given the number 13": ``Ryumin-Light-H=13`` and ``font.13=Ryumin-Light-H findfont``): two readings. Not where
    the question says the key's other part beside the phrase ("the console handler": ``[handler_console]``)."""
    found = holding(book.texts[var], book.structs[var], key.text)[:4]
    said = norm(key.text)
    if not any(norm(v) == said for r in found for _, v in r.fields if norm(r.key) != said):
        return False
    for r in found:
        pieces = parts(r.key)
        if norm(r.key) == said or said not in {norm(p) for p in pieces}:
            continue
        beside = "|".join(re.escape(p) for p in pieces if norm(p) != said)
        phrase = re.escape(key.text)
        if not beside or not re.search(
            rf"\b(?:{beside})s?\W+{phrase}\b|\b{phrase}\W+(?:{beside})s?\b", book.text_q, re.I
        ):
            return True
    return False


def _keyed_beside(book: Any, var: str, key: Any) -> bool:
    return any(k.is_key and k.records and not k.hop for k in book.keys.get(var, []) if k is not key)


def _shared_key(book: Any, var: str, key: Any) -> bool:
    memo = ("shared key", var, key.text)
    if memo not in book.memo:
        named = len(keyed_by(holding(book.texts[var], book.structs[var], key.text)[:50], key.text)) > 1
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
    if says_whole(asked_noun(book.text_q), str(move.args[1])):  # "what date format ...": datefmt, not format
        return None
    record = lookup._best("record_of", text, key.text, str(move.args[1]))  # the record field_of reads
    rival = rival_field(book, move.var, key, str(move.args[1]), record) if isinstance(record, st.Record) else None
    return f"the question names {rival!r}, another field of the record" if rival else None


def leaf_stem(name: str) -> str:
    """The stem of a field name's last dotted part, casefolded (``http.User-Agent``: ``user-agent``; ``spec.replicas``:
    ``replica``): the part of a nested field a question names."""
    return st.stem(name.rsplit(".", 1)[-1].casefold())


def rival_field(book: Any, var: str, key: Any, field: str, record: st.Record) -> str | None:
    """Another field of ``record`` whose name's last part is another phrase of the question ("what version range
    of *esbuild* does corepack list": ``devDependencies.esbuild``, not corepack's ``version``): the one asked,
    not ``field``. A field a phrase was found in names the record ("whose ignore list includes B305"), no rival."""
    leaf = leaf_stem(field)  # User-Agent of http.User-Agent
    read_parts = {st.stem(p.casefold()) for p in parts(field)} | {leaf}
    said = {st.stem(k.text.casefold()) for k in book.keys.get(var, []) if k is not key and not k.hop}
    said -= read_parts | {st.stem(key.text.casefold())}
    for noun in re.finditer(rf"(?<![\w-]){re.escape(key.text)}\s+([A-Za-z][\w-]*)", book.text_q, re.IGNORECASE):
        said.discard(st.stem(noun.group(1).casefold()))  # "the dmix *device*": the asker's noun for the record
    phrases = [k.text for k in book.keys.get(var, []) if not k.hop] + [key.text]
    for name, value in record.fields if said else ():
        named = leaf_stem(name) in said  # the last part of its name, whole
        if named and name != field and not any(st.matches(p, value) for p in phrases):
            return name
    return None


def noted_section(book: Any, var: str, key: Any) -> bool:
    """ "Which release dropped support for Python 3.2?": a phrase of one changelog section's notes names it."""
    noted = book.structs[var].detail == "dated sections" and key is not None and key.records == 1
    noted = noted and not key.is_key and len(key.text.split()) > 1 and not book.named_fields(var)
    return noted and re.match(r"\W*(?:in |from )?(?:which|what)\b", book.text_q, re.I) is not None  # no "who"


_COUNTS = (
    "count",
    "count_where",
    "count_if",
    "count_all",
    "count_flag",
    "count_present",
    "count_empty",
    "size_of",
    "count_items",
)


def counted_field(book: Any, var: str) -> tuple[tuple[str, ...], str] | None:
    """``(keys, field)`` where what a count question counts is a field, the last part of its name, holding a whole
    number in the records the key phrases ``keys`` name: "how many *replicas* does web run" is web's
    ``spec.replicas`` (3), no count of records or entries."""
    memo = ("counted field", var)
    if memo not in book.memo:
        nouns = counted_stems(book)
        named = [f for f in book.structs[var].field_names if leaf_stem(f) in nouns]
        found: dict[str, list[str]] = {}
        for field in named:
            for key in [k for k in book.keys.get(var, []) if (k.is_key or k.is_value) and not k.hop]:
                value = lookup.field_of(book.texts[var], key.text, field)
                if value is not None and re.fullmatch(r"\d+", value.strip()):
                    found.setdefault(field, []).append(key.text)
        field = next(iter(found), None)
        book.memo[memo] = (tuple(found[field]), field) if field is not None else None
    return book.memo[memo]


def counts_a_field(book: Any, move: Any, kind: Any, key: Any, text: str) -> str | None:
    """A doubt of a count or a field read (:data:`~dspy_rlm.profiles.doubts.DOUBTS`): the number a count question
    asks is a field's value where :func:`counted_field` finds one, not a count; elsewhere a field's value is no
    count ("how many sections set workers": not the workers of one)."""
    found = counted_field(book, move.var) if "count" in book.cues else None
    if move.kind in _COUNTS and found:
        return f"the record {found[0][0]!r} states the number asked, in {found[1]!r}"
    asked = found is not None and move.args[0] in found[0] and move.args[1:2] == (found[1],)
    if move.kind == "field" and "count" in book.cues and len(move.args) > 1 and not asked:
        return "a count is asked, not a value of a field"
    if move.kind == "search" and "count" in book.cues and not found:  # "count the records with a salary set":
        return "a count is asked, not a value a line states"  # not the one salary a search finds
    return None


_HOLDER = re.compile(
    rf"\W*(?:which|what)\s+(\w+)\s+(?:\S+\s+){{0,6}}?(?:{'|'.join(HOLDER_VERBS)})"  # "in /a/b is the one with"
    r"\s+(?:both\s+|all\s+)?(?:an?|the)\s+(.+)",
    re.I,
)


def asks_holder(book: Any, move: Any, kind: Any, key: Any, text: str) -> str | None:
    """A doubt of a field read (:data:`~dspy_rlm.profiles.doubts.DOUBTS`): "which *element* has a *unit*
    attribute" asks which record holds the field, not the field's value, where the noun asked is no part of the
    field's name ("which port does it forward to" asks ``targetPort``'s value)."""
    if move.kind != "field" or len(move.args) < 2:
        return None
    field = str(move.args[1])
    noun = holder_asked(book.text_q, field)
    if noun is None or holds_asked(book, move.var, key, [field]):
        return None  # (one that holds it names the record read: the Field kind's evaluation answers with its key)
    return f"the question asks which {noun} has {field!r}, not its value"


def holder_asked(text_q: str, field: str) -> str | None:
    """The noun of "which *N* has a F" where ``field`` is F (the words after the verb say its name: "both a
    uriStartString and a rewritePrefix") and N is none of its name; else None."""
    m = _HOLDER.match(text_q)
    if m is None:
        return None
    leaf = field.rsplit(".", 1)[-1].casefold()
    names = {st.stem(p.casefold()) for p in camel_parts(leaf)} | {st.stem(leaf)}
    after = {st.stem(w) for w in st.words(m.group(2).casefold())}
    return m.group(1) if st.stem(m.group(1).casefold()) not in names and names & after else None


def holds_asked(book: Any, var: str, key: Any, fields: list[str]) -> bool:
    """ "Which program ... is the only one with a *hints* field?": the question names no record, and ``key`` is
    the one record holding a field it names (:func:`~dspy_rlm.profiles.phrases.held_once`), one of ``fields``
    (those of the record read), asked as the holder (:func:`holder_asked`), not for the field's value: the
    record's key is the answer."""
    if key is None or not key.hop or key.via != ("", ""):
        return False
    return any(holder_asked(book.text_q, f) for f in fields if f in book.fields.get(var, []))


COLUMN_AT = re.compile(
    rf"\b(?:(\d{{1,2}})(?:st|nd|rd|th)|({'|'.join(ORDINALS)}))[\s-]+column\b|\bcolumns?\s+(?:no\.?\s*|#\s*)?(\d{{1,2}})\b",
    re.IGNORECASE,
)
"""A column named by its place: "the 4th column", "the second column", "column 3", "column #2"."""


def column_fields(text_q: str, s: st.Structure) -> list[str]:
    """The fields of a table the question names by their place in its rows ("the petal width (4th column)",
    "in the second column"): the Nth of its columns, counted from 1 (a trailing ``# comment`` is no column)."""
    if s.kind != "table":
        return []
    columns = [f for f in s.field_names if f != "comment"]
    out = []
    for m in COLUMN_AT.finditer(text_q):
        n = int(m.group(1) or m.group(3)) if m.group(2) is None else ORDINALS[m.group(2).casefold()]
        if columns and (n == -1 or 1 <= n <= len(columns)):
            out.append(columns[n - 1] if n > 0 else columns[-1])
    return out + [f for f in number_column(text_q, s) if f not in out]  # "which port number": its column


def unparsed_name(book: Any, move: Any, kind: Any, key: Any, text: str) -> str | None:
    """A doubt of a record or field read (:data:`~dspy_rlm.profiles.doubts.DOUBTS`): the question names no field
    but says a word the data writes as an attribute's name (``href="..."``) that no record read holds ("what href
    is included for the inputlib document?", its record holding only its own ``targetdoc`` and its ``dir``): the
    value asked sits where the records were not read, and the record's one other field is no answer."""
    if move.kind not in ("record", "field") or book.named_fields(move.var):
        return None
    memo = ("unparsed name", move.var)
    if memo not in book.memo:
        keyed = " ".join(k.text for k in book.keys.get(move.var, [])).casefold()
        fields = {f.casefold() for f in book.structs[move.var].field_names}
        words = [w for w in parts(book.text_q) if len(w) >= 3 and w.casefold() not in STOP | fields]
        words = [w for w in words if w.casefold() not in keyed]
        head = text[:1_000_000]
        attribute = (re.compile(rf"(?<![\w.:-]){re.escape(w)}[ \t]*=[ \t]*[\"']") for w in words)
        book.memo[memo] = next((w for w, a in zip(words, attribute) if a.search(head)), None)
    word = book.memo[memo]
    return f"the question names {word!r}, an attribute no record read holds" if word else None


def possessed(book: Any, var: str, key: Any) -> str | None:
    """The field the question asks of ``key`` by its position ("go1.x*'s successor*", "the *successor* of go1.x"):
    where another field is asked too ("the deprecation date of the runtime listed as go1.x's successor"), that
    one is asked of the record this field names, not of ``key``'s."""
    if key is None or key.hop or not book.structs[var].field_names:
        return None
    memo = ("possessed", var, key.text)
    if memo not in book.memo:
        k, q, found = re.escape(key.text), book.text_q, None
        names = {leaf_stem(n): n for n in book.structs[var].field_names}
        for rx in (rf"(?<!\w){k}(?:'s|\u2019s)\s+([\w-]+)", rf"\bthe\s+([\w-]+)\s+of\s+{k}(?!\w)"):
            m = re.search(rx, q, re.I)
            found = found or (names.get(st.stem(m.group(1).casefold())) if m else None)
        book.memo[memo] = found
    return book.memo[memo]


def other_than_possessed(book: Any, move: Any, kind: Any, key: Any, text: str) -> str | None:
    """A doubt (:data:`~dspy_rlm.profiles.doubts.DOUBTS`): a field read of ``key`` other than the one the question
    asks of it (:func:`possessed`), where the question names the field read too: a second step's field."""
    if move.kind != "field" or len(move.args) < 2 or (owned := possessed(book, move.var, key)) is None:
        return None
    return f"the question asks the {owned} of {key.text!r}" if str(move.args[1]) != owned else None


def other_than_named(book: Any, move: Any, kind: Any, key: Any, text: str) -> str | None:
    """A doubt: a field read by a key phrase that is the name of another field ("commons.javadoc.java.link is
    defined by pointing at another property. What URL ...": that setting's, not the ``sonar.host.url`` beside)."""
    if move.kind != "field" or len(move.args) < 2 or key is None or key.is_key or key.is_value:
        return None
    form, names = st.name_form(key.text), book.structs[move.var].field_names
    named = form != st.name_form(str(move.args[1])) and any(st.name_form(n) == form for n in names)
    return f"the question names the field {key.text!r}" if named else None


ALIAS = re.compile(r"[\w.@/+-]{1,64}")


def record_keys(book: Any, var: str) -> set[str]:
    """The keys of a text's records, normalized, collected once per text."""
    memo = ("record keys", var)
    if memo not in book.memo:
        book.memo[memo] = {norm(r.key) for r in book.structs[var].records if r.key}
    return book.memo[memo]


def names_a_record(book: Any, move: Any, key: Any, value: Any) -> str | None:
    """A value doubt (:data:`~dspy_rlm.profiles.value_doubts.VALUE_DOUBTS`): a lookup's value that is another record's
    key, read where the question asks what that record holds."""
    # "which PostScript font is used for plain latin1 text of the bookman family?": "bookman=bookman_light" is
    # an alias; the record bookman_light names holds the font. A lookup's value that is another record's key
    # is a reference, and the value it leads to may be the one asked
    if move.kind not in ("record", "field") or not isinstance(value, str) or key is None:
        return None
    if norm(value) not in record_keys(book, move.var) or norm(value) == norm(key.text):
        return None
    record = lookup.record_of(book.texts[move.var], key.text)  # the record read: its own key is its value
    if not isinstance(record, st.Record) or norm(record.key) == norm(value) or owner(book.text_q, record) == value:
        return None  # (the block the record sits in, asked by its kind: "which job ...", is a record's key)
    # an alias leads to a record whose value is a name of its kind; a license's text or a font's index number
    # is what the name stands for, and the name is the answer
    said = norm(value)
    target = next((r for r in book.structs[move.var].records if r.key and norm(r.key) == said), None)
    if target is None or not any(ALIAS.fullmatch(v) and not v.isdigit() for _, v in target.fields):
        return None
    field = str(move.args[1]) if move.kind == "field" and len(move.args) > 1 else None
    chain = field is not None and field in book.fields.get(move.var, []) and target.get(field) is not None
    first = chain and possessed(book, move.var, key) == field and len(book.fields.get(move.var, [])) > 1
    if chain and not first:  # "alpha1's successor" beside another field asked: the first of two steps
        return None  # a link of a chain the question names (a Makefile rule's prerequisites, a preset's inherits)
    if field is not None and book.fields.get(move.var, []) == [field] and target.get(field) is None:
        return None  # "the successor runtime for java8": the one field asked, which the record named lacks
    return f"{value!r} is the key of another record (an alias of it)"


_WHICH_NOUN = re.compile(
    r"\s*(?:(?:in|for|from|per)\s+[^,?]{1,80},\s*)?(?:which|what)\s+[a-z][\w-]*\s+(?!(?:is|are|was|were|of)\b)", re.I
)
"""A question opening "which <noun>", after a phrase naming the document maybe ("In requests' status_codes.py,
which HTTP status code ...")."""


def sole_holder(book: Any, var: str, key: Any) -> bool:
    """ "Which waiter counts a DBClusterSnapshotNotFoundFault error as success?": the question asks which record
    holds an identifier (digits, punctuation or inner capitals) that one record of three or more holds, anywhere
    in it but as a whole value, and names no other record, nor a field but one holding it there."""
    if key is None or key.is_key or key.is_value or key.records != 1 or len(book.structs[var].records) < 3:
        return False
    if named := book.fields.get(var):  # "which function ... runs start-stop-daemon --start?": the field named holds
        holder = lookup.record_of(book.texts[var], key.text)  # the phrase in its one record (a shell function's runs)
        said = key.text.casefold()
        if not isinstance(holder, st.Record) or not all(said in (holder.get(f) or "").casefold() for f in named):
            return False
    if not (ID_LIKE.search(key.text) or re.search(r"[a-z][A-Z]", key.text)) or not _WHICH_NOUN.match(book.text_q):
        return False
    return not any(k.is_key or k.is_value for k in book.keys.get(var, []) if k is not key)


_ASKS_WHEN = re.compile(r"\W*(?:when\b|(?:(?:on|in)\s+)?(?:what|which)\s+(?:date|day|year)\b)", re.I)
"""A question opening by asking when ("When did 1.0 come out?", "On what date ..."), not a clause's "when" ("which
incident was opened *when* job X failed?")."""
_DATE_KEY = re.compile(r"(?:1[89]|2\d)\d\d(?:[01]\d[0-3]\d|-[01]\d-[0-3]\d)")
"""A record's key that is a date: 19980505, 1998-05-05."""


def dated_holder(book: Any, var: str, key: Any, record: st.Record) -> bool:
    """ "When did getopt 1.0 come out?": a question asking when, of the one record holding a phrase that is no key
    where most records are keyed by a date (a changelog's ``19980505: Released version 1.0``): its date answers."""
    if key is None or key.is_key or key.records != 1 or not _ASKS_WHEN.match(book.text_q):
        return False
    if not _DATE_KEY.fullmatch(record.key.strip()):
        return False
    keys = [r.key.strip() for r in book.structs[var].records[:50]]
    return sum(_DATE_KEY.fullmatch(k) is not None for k in keys) * 2 > len(keys)


def mostly_unread(record: Any) -> bool:
    """Whether a record's fields hold little of its text (a JSON object of 200 lines flattened to one scalar,
    ``__default__.max_attempts: 5``, beside nested objects no field keeps): its one field is no value the whole
    record vouches for."""
    held = sum(len(f) + len(v) for f, v in record.fields)
    return len(record.text) > 400 and held < 0.1 * len(record.text)
