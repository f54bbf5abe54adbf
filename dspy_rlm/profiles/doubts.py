"""Doubts: what makes every value of a read unsupported, whatever its kind vouched for (a second condition the
read does not test, a ranking asked of a lookup, a second step, a huge text read only at its head). Each check
takes the book, the move, its kind, the question's key phrase it reads by and the text, and says why, or None;
:func:`dspy_rlm.profiles.kinds.evaluate` gives the first reason of :data:`DOUBTS`. Adding a doubt is one
function in that tuple; the doubts of one value are :data:`dspy_rlm.profiles.value_doubts.VALUE_DOUBTS`."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup, superlatives
from dspy_rlm.library import structure as st
from dspy_rlm.library.items import list_items
from dspy_rlm.library.tail import reads_whole
from dspy_rlm.profiles.asked_noun import asked_unnamed
from dspy_rlm.profiles.chains import chained
from dspy_rlm.profiles.comment_doubts import comment_qualifier, in_comments, key_in_comments
from dspy_rlm.profiles.commented_names import commented_setting
from dspy_rlm.profiles.conditions import BOUNDS, operands, unread_test
from dspy_rlm.profiles.count_doubts import (
    blocks_alike,
    lacking_unread,
    mixed_count,
    named_apart,
    names_tested,
    parts_uncounted,
    swallowing_record,
    unit_unapplied,
)
from dspy_rlm.profiles.header_comment import names_heading, names_opening_comment, sentence_says, under_heading
from dspy_rlm.profiles.joined_names import joined_unparsed
from dspy_rlm.profiles.keyfinder import unheld_identifier
from dspy_rlm.profiles.move import Move
from dspy_rlm.profiles.name_scopes import name_patterns
from dspy_rlm.profiles.named_document import (
    FILE_NAME,
    after_file_name,
    before_document_noun,
    before_file_name,
    names_document,
    names_file,
)
from dspy_rlm.profiles.naming import (
    asks_holder,
    counts_a_field,
    other_field_named,
    other_than_named,
    other_than_possessed,
    unparsed_name,
)
from dspy_rlm.profiles.phrases import holds_field, is_stop
from dspy_rlm.profiles.repeats import repeats_counted
from dspy_rlm.profiles.second_condition import conditioned_key, other_condition
from dspy_rlm.profiles.spellings import spells_field
from dspy_rlm.profiles.vocabulary import ID_LIKE, RANKED

ONE_CONDITION = ("count", "count_where", "count_if")
"""The counts that test one condition of the records."""
LOOKUPS = ("record", "field", "search", "key_of")
"""The reads of one record."""


def _outside_keys(book: Any) -> str:
    """The question without its key phrases: a value of the data is no word of the question's own ("the zone
    whose comment is 'Labrador (most areas)'" ranks nothing)."""
    memo = ("outside keys",)
    if memo not in book.memo:
        said = book.text_q
        for k in sorted({k.text for keys in book.keys.values() for k in keys}, key=len, reverse=True):
            said = said.replace(k, " ")
        book.memo[memo] = said
    return str(book.memo[memo])


def _unread(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "how many packages do not have priority optional": count_where counts those that do
    if move.helper == "most_common" and len(move.args) == 2:  # "other than X": most_common(V, F, X) leaves X out
        return None
    unread = unread_test(book)
    if move.kind == "count_empty" and unread in ("not", "never", "n't", "without"):  # "do not have a Homepage"
        return None
    return f"no read tests the question's {unread!r}" if unread else None


def _test_unapplied(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "how many emoji names start with family_?": a count of the records in the EMOJI block counts them all
    if not move.kind.startswith("count"):
        return None
    stated = [(t, a) for t, a in operands(book, move.var) if (t != "key" and t not in BOUNDS) or _NUMBER.fullmatch(a)]
    stated = [(t, a) for t, a in stated if t != "key"]  # "under v1.2.5" is a section, no bound
    applied = move.kind == "count_if" and any(t in move.args and a in map(str, move.args) for t, a in stated)
    applied = applied or (move.kind == "count" and any(_as_pattern(t, a) in move.args for t, a in stated))
    applied = applied or (move.kind == "count_lines" and all(t == "starts" for t, _ in stated))  # its quoted start
    field = str(move.args[0]).casefold() if move.helper == "count_if" and "present" in move.args else None
    stated = [(t, a) for t, a in stated if not (t == "starts" and a.rstrip(":").casefold() == field)]  # a stanza
    # "beginning with a Files: field" has the field
    if not stated:  # "how many module lines have a cost of 2?", "how many of the enable_* switches ...?"
        args = {str(a).casefold() for a in move.args}
        stated = [(t, a) for t, a in _stated_terms(_outside_keys(book)) if a.casefold() not in args]
    return (
        f"the question tests {stated[0][0]!r} {stated[0][1]!r}; this count does not" if stated and not applied else None
    )


def _as_pattern(test: str, arg: str) -> str | None:
    """A test written as the wildcard name a count of records by key applies (``starts`` ``open_``: ``open_*``)."""
    return {"starts": f"{arg}*", "ends": f"*{arg}", "contains": f"*{arg}*"}.get(test)


_PLAIN_NUMBER = re.compile(r"(?<![\w.\-/:#$%])\d+(?:\.\d+)?(?![\w\-/:%]|\.\d)")


def _stated_terms(said: str) -> list[tuple[str, str]]:
    """A plain number and a wildcard name (``enable_*``, ``*.conf``) the question states outside its key phrases:
    each narrows what a count counts."""
    return [("number", m.group(0)) for m in _PLAIN_NUMBER.finditer(said)] + [
        ("pattern", p) for p in name_patterns(said)
    ]


def _other_condition(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "how many packages are essential and required": count_where counts the required ones
    tested = key.text if key is not None else move.args[-1] if move.kind == "count_if" else None
    if move.kind not in ONE_CONDITION or not tested:
        return None
    counted = str(move.args[0]) if move.kind in ("count_where", "count_if") and move.args else None
    other = other_condition(book, move.var, str(tested), counted)
    return f"the question also says {other!r}" if other else None


def _ranking_asked(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    ranked = move.kind in LOOKUPS and (
        book.cues & {"most_common", "max", "min"} or RANKED.search(_outside_keys(book))
    )  # one record ranks nothing
    return "a ranking is asked; one record's value is none" if ranked else None


def _other_number_asked(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "find the attribute with the highest Max and tell me its SD": max_of('Max') gives the largest Max, a number
    # of the field ranked; the question names another field of numbers, whose value it asks
    if move.kind not in ("max", "min") or book.answer_type not in (int, float) or not move.args:
        return None
    memo = ("numeric named", move.var)  # the named fields that mostly hold numbers: once per run
    if memo not in book.memo:
        records = book.structs[move.var].records[:200]
        numeric = []
        for f in book.named_fields(move.var):
            values = [v for r in records if (v := r.get(f)) is not None]
            if values and sum(lookup._number(v) is not None for v in values) * 2 > len(values):
                numeric.append(f)
        book.memo[memo] = numeric
    ranked = str(move.args[0])
    other = next((f for f in book.memo[memo] if f != ranked), None)
    return f"the question names {other!r} too: a value of {ranked!r} is not it" if other else None


def _across_blocks(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # a program's literal tables: "which year had the most releases in %released?" ranks one block's entries;
    # most_common over every entry of the text ranks the other tables' too
    s = book.structs.get(move.var)
    if not getattr(kind, "every_record", False) or s is None or "block" not in s.field_names:
        return None
    field = str(move.args[0]) if move.args else ""
    if field == "block" or move.within is not None:
        return None  # the records of one block counted or ranked by it, or ranked within it
    memo = ("blocks", move.var, field)
    if memo not in book.memo:  # once per text and field: every ranking and count move asks it
        book.memo[memo] = len({r.get("block") for r in s.records[:5000] if not field or r.get(field) is not None})
    n = book.memo[memo]
    return f"the records read are in {n} blocks" if n > 1 else None


_TIMES = re.compile(
    r"\b(?:more\s+than\s+once|(?:more|fewer|less)\s+than\s+\w+\s+times|(?:at\s+least|at\s+most|exactly)\s+(?:once|twice"
    r"|\w+\s+times)|twice|several\s+times|multiple\s+times)\b",
    re.IGNORECASE,
)


def _times_asked(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "is the key visual-bell-type listed more than once?": whether it is there at all answers nothing
    if move.kind not in ("exists", "has_item"):
        return None
    m = _TIMES.search(book.text_q)
    return f"the question asks how often ({m.group(0)!r}); the check says whether at all" if m else None


def _second_step(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "...belongs to; how many entries does that setting have?": one read answers one step of two
    back = chained(book) if move.but is None else None  # a read of another record holding the value is that step
    return f"the question asks a second step ({back!r})" if back else None


def _head_only(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # a count or a ranking of a huge text's head is no answer for it all
    if not getattr(kind, "every_record", False) or reads_whole(text, move.helper, move.args):
        return None
    return f"read only the first {book.structs[move.var].parsed_chars:,} characters of the text"


def _apart(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "which character is assigned code 163 in the TR font?": record_of('name') reads the font's name line; a
    # phrase the question also names that few records hold, as a whole value or a number, is in the record
    # that answers it (the record read by another phrase of the question that lacks it answers something else)
    if move.kind not in ("record", "field", "key_of", "search") or key is None:
        return None
    field = str(move.args[1]) if move.kind == "field" and len(move.args) > 1 else None
    record = lookup._best("record_of", text, key.text, field)  # a field's read: the first record keyed so holding it
    if not isinstance(record, st.Record):
        return None
    # (in a text of lines no phrase is a key or a whole value: any phrase the question names beside the one read)
    plain = book.structs[move.var].kind in ("lines", "prose")
    for other in book.keys.get(move.var, []):
        held = (other.is_key or other.is_value or plain) and not is_stop(other.text)
        joined = move.kind == "field" and key.hop and re.search(r"\w[_./:@]\w", other.text) is not None  # a/b
        sure = bool(held or joined or _NUMBER.fullmatch(other.text))  # an identifier ("actions/checkout") vs a hop
        sure = sure or other.quoted  # "the abbreviation 'ago'": quoted, a value of some record, whole or listed
        few = sure and 1 <= other.records <= 3 and not other.inner
        if other is key or not few or other.hop or other.text == key.via[0]:  # hop: no phrase; its record's key
            continue
        if before_file_name(book.text_q, other.text) or after_file_name(book.text_q, other.text):
            continue  # "ray's *vsphere* defaults.yaml": which file is asked of; "the dc.sed *calculator*": its noun
        if field is not None and key.hop and not holds_field(book.structs[move.var], other.text, [field]):
            continue  # "the getty@ template *unit*": the [Unit] section, without the field asked, answers nothing
        if field is not None and st.name_form(other.text) == st.name_form(field):
            continue  # the field read, named ("the one-line description of tqdm"), no phrase of a record
        held = lookup._has(record, other.text) or spells_field(record, other.text, book.text_q)
        held = held or names_heading(book, move.var, record.line, other.text)  # "! model" above its records
        held = held or under_heading(book, move.var, record.line, other.text)  # "General Options" over its table
        held = held or (plain and sentence_says(book, move.var, record.line, other.text))  # a line of a sentence
        s = book.structs[move.var]
        document = names_document(s, record, other.text, move) or names_file(s, text, other.text)
        # -- not a value the question states as one ("which setting has the value 1.5?", "set to 1.5")
        document = document and not re.search(rf"\b(?:value|equals|to)\s+{re.escape(other.text)}\b", book.text_q)
        if not held and not (document or names_opening_comment(text, other.text)):
            return f"the question also names {other.text!r}, which the record read does not hold"
    return None


def _value_stated(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "which feature is the only one with 'override' => 1?": the question states the value of the setting read
    # by; a record holding it is asked (its owner), not a field of the first record the setting keys
    if move.kind not in ("record", "field") or key is None:
        return None
    written = re.search(rf"['\"]?{re.escape(key.text)}['\"]?\s*(?:=>|=)\s*['\"]?[\w.-]+", book.text_q)
    return f"the question states the value of {key.text!r}: the record holding it is asked" if written else None


def _document_read(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "according to Vim's version9.txt help file, to whom is Vim 9.0 dedicated?": the file's name before a document
    # noun names the document asked of; the record holding it (its title line, "*version9.txt*") answers nothing
    if move.kind not in ("record", "field") or key is None or not move.args:
        return None
    if str(move.args[0]).casefold() != key.text.casefold() or not FILE_NAME.fullmatch(key.text):
        return None
    source = re.search(rf"\b(?:according\s+to|per)\s+(?:the\s+)?{re.escape(key.text)}(?![\w.-])", book.text_q, re.I)
    return (
        f"{key.text!r} names the document asked of, not a record"
        if before_document_noun(book.text_q, key.text) or source  # "according to the VERSION.txt shipped with X"
        else None
    )


def _longest_list(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "which release has the longest list of bullet points?": the most items, not the longest text of the list
    if move.helper not in ("max_of", "min_of") or move.args[1:2] != ("length",):
        return None
    if not re.search(r"\b(?:list|number) of\b", book.text_q, re.IGNORECASE):
        return None
    values = [v for r in book.structs[move.var].records[:2000] if (v := r.get(str(move.args[0])))]
    listing = sum(len(list_items(v)) >= 2 for v in values)
    return "the field lists items: the longest list has the most of them" if listing * 2 >= len(values) > 0 else None


def _one_ranked(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "which extra has the longest list of requirements?" over a wheel's METADATA, one record: max_of ranks that
    # record alone, and its key is no answer to which of several is largest
    if move.helper not in ("max_of", "min_of") or not move.args or move.args[0] == superlatives.OWN:
        return None  # (each setting's own value: one per record)
    field = str(move.args[0])
    having = sum(1 for r in book.structs[move.var].records[:2000] if (r.get(field) or "").strip())
    return f"only {having} record has {field!r}: nothing is ranked" if having < 2 else None


_ASKED_NAME = re.compile(
    r"(?<!\w)(?:what|which)\s+([A-Za-z][\w.-]*[_.][\w.-]*\w)\s+(?:is|are|was|were|does|do)\b", re.IGNORECASE
)
"""An identifier asked for whole ("what *ui_name* is shown"), not one qualifying a noun ("which ETH_P_ constant")."""


def _asks_named_part(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "look up the integration whose displayName is 'New Relic': what ui_name is shown for its region?": the
    # question asks for a part the data names (ui_name) that the records' fields leave out (nested deeper), and
    # no value of a record read (its key: newrelic) is it, nor another field's ("in the Lite preset, what
    # reasoning_effort is set for the model that handles COMPLEX queries?": tiers.COMPLEX names the model)
    if move.kind not in ("key_of", "record", "field"):
        return None
    m = _ASKED_NAME.search(book.text_q)
    if m is None or m.group(1) not in text:
        return None
    asked = st.name_form(m.group(1))
    if any(asked in (st.name_form(f), st.name_form(f.rsplit(".", 1)[-1])) for f in book.structs[move.var].field_names):
        return None  # a field of the records: read it
    return f"the question asks for {m.group(1)!r}, a part the data names that no field holds"


def _ranked_elsewhere(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "what is the minimum of the allowed range for resources.memory_gb?": the question names one record by an
    # identifier few records hold; min_of over every record ranks another ('runtimeConfig.pythonVersion: 3')
    if move.helper not in ("max_of", "min_of") or not move.args:
        return None
    memo = ("ranked", move.code)  # the move's own ranking, once per book however often its reads are doubted
    if memo not in book.memo:
        book.memo[memo] = getattr(superlatives, move.helper)(text, *move.args, within=move.within)
    record = getattr(book.memo[memo], "record", None)
    if not isinstance(record, st.Record):
        return None
    s = book.structs[move.var]
    for other in book.keys.get(move.var, []):
        named = (other.is_key or other.is_value) and ID_LIKE.search(other.text) and 1 <= other.records <= 3
        if not named or other.hop or lookup._has(record, other.text):
            continue
        if not (names_document(s, record, other.text, move) or names_file(s, text, other.text)):  # a font's name
            return f"the question names {other.text!r}, which the record ranked first does not hold"
    return None


_NUMBER = re.compile(r"\d+(?:\.\d+)?")
DOUBTS = (
    _times_asked,
    blocks_alike,
    key_in_comments,
    _value_stated,
    _head_only,
    mixed_count,
    names_tested,
    parts_uncounted,
    repeats_counted,
    _document_read,
    _one_ranked,
    _longest_list,
    _ranked_elsewhere,
    _asks_named_part,
    unit_unapplied,
    _across_blocks,
    named_apart,
    swallowing_record,
    _second_step,
    _ranking_asked,
    _other_number_asked,
    other_field_named,
    joined_unparsed,
    commented_setting,
    asked_unnamed,
    other_than_possessed,
    other_than_named,
    counts_a_field,
    asks_holder,
    unparsed_name,
    unheld_identifier,
    lacking_unread,
    _test_unapplied,
    comment_qualifier,
    _other_condition,
    conditioned_key,
    _unread,
    _apart,
    in_comments,
)
"""What makes every value of a read unsupported, whatever its kind vouched for: each check says why, or None.
The first that says why is the reason given."""
