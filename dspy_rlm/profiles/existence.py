"""The existence read (``exists(V, PHRASE)``) and what its result says of a yes/no question: a phrase that names
a record (its key or a whole value) and what the question states of it, or an identifier the data lacks. Split
from :mod:`~dspy_rlm.profiles.kinds`, which registers it."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.absent_phrase import Absent, absence_answers, holds_flag
from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.entry_rows import commented_row, inside_entries
from dspy_rlm.profiles.id_spellings import near_spelled
from dspy_rlm.profiles.kind_registry import KindBase
from dspy_rlm.profiles.members import asks_membership, item_phrase, member_parts
from dspy_rlm.profiles.move import Move, read
from dspy_rlm.profiles.named_document import (
    before_file_name,
    describes_document,
    names_asked_document,
    page_title,
    titles,
)
from dspy_rlm.profiles.phrases import ID_LIKE, QUOTED, holding, is_stop, quoted_text
from dspy_rlm.profiles.reads import norm
from dspy_rlm.profiles.reads import parts as name_parts
from dspy_rlm.profiles.scopes import block_lacking
from dspy_rlm.profiles.stated import absent_value, flag_answer, keyed_records, negated_word, stated
from dspy_rlm.profiles.vocabulary import ADJECTIVE_HEADS, CUE_WORDS, HOLDING_VERBS, STOP, THERE_WORDS, WHOLE_SET
from dspy_rlm.profiles.which_noun import field_part_stems
from dspy_rlm.profiles.yes_no_words import LEFT_OUT, MANY

__all__ = ["Exists"]


class Exists(KindBase):
    name = "exists"
    streams = True

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if "yes_no" not in book.offered or key.hop:  # a key no phrase of the question says: it exists
            return []
        if _own_flag_named(book, var):  # "is limi a team?": its record's "is_team": false answers, not whether
            return []  # a phrase is there (the field read is offered)
        if key.records and titles(book.texts[var], key.text):  # "the Node.js 5 changelog": the document is there
            return []
        if page_title(book.texts[var], key.text):  # "does cargo yank delete ...?": the command its page documents
            return []
        return [read("exists", f"I will check whether {key.text!r} exists.", "exists", var, key.text)]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if key is not None and (block := block_lacking(book, move.var, key)):  # "the DeviceType enum: PROXY?"
            return [Candidate(False, "answer", True, f"no record of the block {block!r} is {key.text!r}")]
        parts = member_parts(book, move.var)
        phrase = item_phrase(book, move.var, parts[0][0]) if len(parts) == 1 else None
        if phrase is not None and asks_membership(book, parts[0][0], phrase):  # "is X one of Y's deps?"
            return [Candidate(bool(result), "answer", False, "the question asks whether a part's list holds it")]
        # present: the phrase names a record (its key or a whole value), not a word inside one; absent: only
        # when no other phrase of the question names a record ("wheezy: is it among ..." asks about wheezy)
        others = [  # phrases of the question, but the text's title: it names the document ("the Node.js 5 changelog")
            k
            for k in book.keys.get(move.var, [])
            if k is not key and not k.hop and not (k.records and titles(book.texts[move.var], k.text))
        ]
        quoted = {quoted_text(m).casefold() for m in QUOTED.finditer(book.text_q)}  # an identifier or a quote absent
        missing = any(k.records == 0 and (ID_LIKE.search(k.text) or k.text.casefold() in quoted) for k in others)
        missing = missing and not all(  # the document's own name absent ("does /etc/xattr.conf skip afs.*?")
            names_asked_document(book, move.var, k.text) for k in others if k.records == 0
        )
        # -- unless the key and another phrase both name records: the statement is one between them ("does
        # rt_dsfield map 0x40 to CS3?"), and the absent name is the asker's for the data as a whole
        missing = missing and not (key is not None and key.records and _pair_named(key, others))
        if (
            result and key is not None and (many := _asks_many(book, move.var, key)) is not None
        ):  # "more than one version of X?"
            return many
        if result and LEFT_OUT.search(book.text_q):  # "may the user leave off the final argument?"
            return [
                Candidate(True, "answer", False, "the question asks whether it may be left out, not if it is there")
            ]
        if result and key is not None and commented_row(book, move.var, key):  # "is en_US.UTF-8 switched on?"
            return [Candidate(True, "answer", False, f"{key.text!r} is listed in a row commented out")]
        if result and (unheld := absent_value(book, move.var, key)):  # "can --output be set to yaml?": no yaml
            return [Candidate(False, "answer", True, f"the value {unheld!r} is nowhere in the data")]
        if result and (flag := _own_flag(book, move.var, key)):  # "declared fixed-pitch?": IsFixedPitch true
            return flag
        if result and key is not None and _premise(book.text_q, key.text, others):  # "If I install X 0.28.1, is Y?"
            return [Candidate(True, "answer", False, f"{key.text!r} is said in the question's premise, not asked")]
        # (in any case: "per the jdb man page, does JDB keep track of ...?": the program the document is of)
        spots = [m.start() for m in re.finditer(re.escape(key.text), book.text_q, re.I)] if key is not None else []
        named_document = any(describes_document(book.text_q, at, book.text_q[at : at + len(key.text)]) for at in spots)
        if result and key is not None and others and named_document:
            # "does the jdeprscan manpage say to use a semicolon?": the asker's name for the document is there
            return [Candidate(True, "answer", False, f"{key.text!r} names the document, not what it says")]
        if result and key is not None and (inside := _inside_whole(book, move.var, key, others)):
            # "does pytest's METADATA make tomli a requirement on Python 3.11?": the one record is the document
            return [Candidate(True, "answer", False, f"{key.text!r} names the whole text; {inside!r} is asked of it")]
        if result and key is not None and (longer := inside_entries(book, move.var, key)):
            # "does index.json list the bare identifier GPL-2.0?": a list of identifiers holds GPL-2.0-only
            return [Candidate(False, "answer", True, f"no entry is {key.text!r}; {longer!r} holds it inside")]
        if result and key is not None and (held := _held_elsewhere(book, move.var, key, others)):
            # "is gh-104719 listed in the section for 3.11.0?": the section is there, the issue is in another one
            return [Candidate(False, "answer", True, f"the record {key.text!r} keys lacks {held!r}, another holds it")]
        if result:  # "did job amber-7 fail?": "job" is there, amber-7 is not
            ok = key is not None and (key.is_key or key.is_value) and not missing
            met, differs = stated(book, move.var, key) if ok else (True, False)
            if not met:  # "did job X fail?": X is listed, and its record says "ok" where others say "failed"
                # -- unless the statement holds of the record another key phrase names ("is gold 255 215 0?")
                differs = differs and not any(stated(book, move.var, k)[0] for k in others if k.is_key or k.is_value)
                # -- nor where the phrase the question quotes is in the data ("does Pod::Escapes know the 'hellip'
                # entity?": the module's name is everywhere; what it asks about is the quoted entity, found)
                differs = differs and not any(k.records and k.text.casefold() in quoted for k in others)
                return [Candidate(False, "answer", differs, "its record holds another value")]
            if ok and (word := negated_word(book, move.var, key)):  # "in a container?": "!container"
                return [Candidate(True, "answer", False, f"{key.text!r} holds {word!r} only negated")]
            if ok and (owner := _elsewhere(book, move.var, key, others)):  # "is Yu Gothic UI given sans-serif?"
                return [Candidate(True, "answer", False, f"the record {owner!r} names does not hold it")]
            if ok and (beside := _named_beside(book, move.var, key)):  # "SQLITE_DB_PATH ... marked as a secret?"
                return [Candidate(True, "answer", False, f"its line names {beside!r}, whose value was not read")]
            if ok and (held := _held_unread(book, others) or _said_of_key(book, move.var, key, others)):
                # "does ypbind have any aliases?", "does the 2.7 section give an actual day?": ypbind, 2.7 are there
                return [
                    Candidate(True, "answer", False, f"the question asks whether it has {held!r}, no word of the data")
                ]
            if ok and (sibling := _sibling_holds(book, move.var, key, others)):  # "does the realclean target
                # remove core files?": realclean's rule lacks "core", which the extraclean rule beside it holds
                return [Candidate(True, "answer", False, f"{sibling}, not the record {key.text!r} keys, says it")]
        elif key is not None and _describing(key.text):  # "does the stylesheet have print-specific rules?"
            return [Candidate(False, "answer", False, "the word absent describes what is asked")]
        else:  # an identifier absent from the whole text, where no other identifier names a record
            absent = Absent(book, move.var, key, others, quoted) if key is not None else None
            ok = absent is not None and absence_answers(absent)
            asked_id = absent is not None and absent.asked_id
            if ok and asked_id and near_spelled(book.texts[move.var], key.text):  # quiet_lagoon is there
                return [Candidate(False, "answer", False, "the identifier is in the data, spelled otherwise")]
        return [Candidate(bool(result), "answer", ok, "checked" if ok else "the word checked is not specific")]


def _inside_whole(book: Any, var: str, key: Any, others: list[Any]) -> str | None:
    """A word inside a value of the text's one record (no whole value, no part of a field's name) that the question
    also says, where ``key`` names that record, the document (a wheel's METADATA: its Name, or a whole value
    beside it, its Version): the key's presence says nothing of what the question asks of the word."""
    s = book.structs[var]
    if len(s.records) != 1 or not (key.is_key or (key.is_value and any(k.is_key for k in others))):
        return None
    named = {p.casefold() for f in s.field_names for p in name_parts(f)}
    inside = [k for k in others if k.records and not (k.is_key or k.is_value) and not is_stop(k.text)]
    return next((k.text for k in inside if k.text.casefold() not in named), None)


def _pair_named(key: Any, others: list[Any]) -> bool:
    """Whether ``key`` and another phrase of the question each name one record, by its key or a whole value."""
    return (key.is_key or key.is_value) and any(k.records == 1 and (k.is_key or k.is_value) for k in others)


def _describing(word: str) -> bool:
    """A compound adjective ("print-specific", "top-level"): lower-case letters joined by a hyphen, the last part
    one of :data:`~dspy_rlm.profiles.vocabulary.ADJECTIVE_HEADS`."""
    parts = word.split("-")
    return len(parts) == 2 and all(p.isalpha() and p.islower() for p in parts) and parts[1] in ADJECTIVE_HEADS


def _own_flag(book: Any, var: str, key: Any) -> list[Candidate]:
    """A setting the question names by its name, whose one value is a flag ("is Courier Bold declared as a
    fixed-pitch font?": ``IsFixedPitch true``): the flag answers, as a read of that field would."""
    if key is None or not key.is_key or key.records != 1:
        return []
    record = lookup.record_of(book.texts[var], key.text)
    if not isinstance(record, st.Record) or len(record.fields) != 1:
        return []
    field, value = record.fields[0]
    return [c for c in flag_answer(book, var, field, value, True) if c.supported]  # a field the question names


_ISSUE_LIKE = re.compile(r"[^\W\d_]{1,10}[-#]\d+(?:-\d+)*")  # gh-104719, bpo-1234, CVE-2024-1234
_LISTED = re.compile(
    r"\b(?:listed|mentioned|included|named|noted|in\s+the\s+(?:section|notes|entry)\s+(?:for|of))\b", re.IGNORECASE
)


def _held_elsewhere(book: Any, var: str, key: Any, others: list[Any]) -> str | None:
    """An issue-like identifier that a question asking what a record lists says ("is gh-104719 listed in the
    section for 3.11.0?"), which some record holds but no record keyed as the key (it is under 3.11.z): that
    identifier; else None. Not a flag ("--with-lz4") nor a name with digits ("model100")."""
    if not key.is_key or not _LISTED.search(book.text_q):  # "is X listed / mentioned in the section for Y?"
        return None
    record = lookup.record_of(book.texts[var], key.text)
    if not isinstance(record, st.Record) or norm(record.key) != norm(key.text):
        return None
    same = [r for r in book.structs[var].records[:5000] if norm(r.key) == norm(key.text)]  # keyed as the key
    for k in others:
        if k.is_key or not k.records or not _ISSUE_LIKE.fullmatch(k.text) or norm(key.text) in norm(k.text):
            continue  # an issue-like token (gh-104719, CVE-2024-1234), no number said of the record ("up to 3.13")
        if not any(lookup._has(r, k.text) for r in same):  # no record keyed as the key holds it
            return str(k.text)
    return None


def _elsewhere(book: Any, var: str, key: Any, others: list[Any]) -> str | None:
    """A value many records hold, asked of the one record another phrase of the question names by its key ("is Yu
    Gothic UI given sans-serif?"), that record lacking it: the key of that record; else None."""
    if not key.is_value or key.is_key or key.records < 2:
        return None
    for k in others:
        if k.is_key and k.records == 1:
            record = lookup.record_of(book.texts[var], k.text)
            if isinstance(record, st.Record) and not lookup._has(record, key.text):
                return str(k.text)
    return None


_HAS_ANY = re.compile(
    r"\b(?:have|has|had|list|lists|carry|carries|define|defines|declare|declares)\s+any\s+"
    r"([\w-]+)(?:\s+([\w-]+))?",
    re.IGNORECASE,
)


def _held_unread(book: Any, others: list[Any]) -> str | None:
    """The thing a yes/no question asks a record to have ("does ypbind have any *aliases*?"), where the data holds
    that word nowhere: the record exists, and whether it has such a thing is not what was read."""
    m = _HAS_ANY.search(book.text_q)
    nouns = {w.casefold() for w in (m.groups() if m else ()) if w}
    return next((k.text for k in others if k.records == 0 and k.text.casefold() in nouns), None)


_AUX_OPENS = re.compile(r"^\s*(?:does|do|did|will|would|can|could)\s", re.IGNORECASE)


def _said_of_key(book: Any, var: str, key: Any, others: list[Any]) -> str | None:
    """A word the question says of the record its key names, past the key and the noun after it, that the data holds
    nowhere ("does *the IDLE 2.7 section* of NEWS give an *actual* day and month?"): the record is there, and the
    statement is asked of it, in words no read checked. Only where an auxiliary opens the question, and no phrase
    after the key is one the data holds or quotes (a value or a field's name the statement checks)."""
    if not _AUX_OPENS.match(book.text_q):
        return None
    at = book.text_q.casefold().find(key.text.casefold())
    if at < 0:
        return None
    end = at + len(key.text)
    fields = field_part_stems(book, var)
    checked = [  # a whole value, a key, a field's name: what the statement is checked by
        k
        for k in others
        if k.records
        and (k.is_key or k.is_value or {st.stem(w) for w in re.findall(r"[^\W_]+", k.text.casefold())} & fields)
    ]
    if any(book.text_q.find(k.text, end) >= 0 for k in checked) or QUOTED.search(book.text_q, end):
        return None  # "... an interval of 180?", "... the end-of-line binding?": a phrase the data holds is asked
    after = [w.casefold() for w in st.words(book.text_q[end:])][1:]  # "the 2.7 *section*": its noun
    absent = {
        k.text.casefold()
        for k in others
        if k.records == 0 and not k.hop and not names_asked_document(book, var, k.text)
    }
    plain = STOP | CUE_WORDS | WHOLE_SET | THERE_WORDS | set(HOLDING_VERBS)
    glued = " ".join(re.sub(r"[\W_]+", "", f).casefold() for f in book.structs[var].field_names)  # "stem": stemlength
    return next((w for w in after if w in absent and w not in plain and w.isalpha() and w not in glued), None)


def _named_beside(book: Any, var: str, key: Any) -> str | None:
    """A word of the question, besides its key phrase, that a line holding the key (or one beside it at the same
    indent) gives as a setting's name with a value of its own (``{"name": "SQLITE_DB_PATH", "secret": false}`` for
    "is SQLITE_DB_PATH marked as a secret?"): the question asks what that setting says, not whether the key is
    there. Else None."""
    mine = {w.casefold() for w in st.words(key.text)}
    asked = [
        w
        for w in dict.fromkeys(w.casefold() for w in st.words(book.text_q))
        if len(w) > 2 and w not in mine and w not in STOP and w not in CUE_WORDS and not w.isdigit()
    ]
    if not asked:
        return None
    said = {w.casefold() for w in st.words(book.text_q)} - mine - STOP
    text = book.texts[var].split("\n")
    lines = []
    for i in [i for i, ln in enumerate(text) if key.text in ln][:20]:  # and, nested, its siblings: the same
        nested = _indent(text[i]) > 0  # object's lines (a stanza's lines at the margin are the record's own fields)
        lines += [ln for ln in text[max(0, i - 3) : i + 4] if _indent(ln) == _indent(text[i])] if nested else [text[i]]
    for w in asked:
        rx = re.compile(  # "is limi a team?": "is_team": false
            rf"(?<![\w.-])[\"']?(?:is[_-]|has[_-])?{re.escape(w)}s?[\"']?\s*[:=]\s*(?![:=])(\S.*)", re.IGNORECASE
        )
        for line in lines:
            m = rx.search(line)
            # "name": "X" names the key itself, "Depends: libc, X" lists it: no other setting; and a value the
            # question states ("an interval of 180": "interval": 180) is checked where it is stated; a JSON
            # object on one line: the value ends where the next "name": begins
            rest = _NEXT_NAME.split(m.group(1), maxsplit=1)[0].casefold() if m else ""
            if m and key.text.casefold() not in rest and not said & set(st.words(rest)):
                return w
    return None


_NEXT_NAME = re.compile(r",\s*\"[^\"]*\"\s*:")
"""Where a JSON value ends on a line that goes on with the object's next ``"name":``."""


def _indent(line: str) -> int:
    """Where a line's content starts, past spaces and a list's dash (``- name: X`` and ``  secret: no`` align)."""
    return len(line) - len(line.lstrip(" -"))


def _own_flag_named(book: Any, var: str) -> bool:
    """Whether a record the question names by its key holds a flag in a field the question names ("is limi a
    team?": ``"is_team": false``; "is the search 'expand' option enabled?": ``[search] expand = true``), the
    field no phrase the record was found by (a stated ``Terminal=true`` is checked as a presence), once per run."""
    memo = ("own flag named", var)
    if memo not in book.memo:
        found = False
        for key in [k for k in book.keys.get(var, []) if k.is_key and not k.hop] if book.fields.get(var) else []:
            record = lookup.record_of(book.texts[var], key.text)
            if not isinstance(record, st.Record) or norm(record.key) != norm(key.text):
                continue
            named = [f for f in book.fields[var] if norm(f) != norm(key.text)]
            found = found or holds_flag(record, named)
        book.memo[memo] = found
    return bool(book.memo[memo])


def _asks_many(book: Any, var: str, key: Any) -> list[Candidate] | None:
    """ "Does the SBOM list more than one version of the itertools crate?": a count of the records the key names
    by their key (two components named itertools: yes), where the question says one of :data:`MANY` a few words
    before the key and ``of`` / ``for`` joins them; None where it does not ask so."""
    q = book.text_q.casefold()
    at = q.find(key.text.casefold())
    said = [(q.rfind(m, 0, at), m) for m in MANY] if at > 0 else []
    many, phrase = max(said, default=(-1, ""))
    between = st.words(q[many + len(phrase) : at]) if many >= 0 else []
    if many < 0 or len(between) > 5 or not {"of", "for"} & set(between):
        return None
    keyed = [r for r in keyed_records(book, var, key) if norm(r.key) == norm(key.text)]
    if not keyed:
        return [Candidate(True, "answer", False, "the question counts records its key names by no key")]
    return [Candidate(len(keyed) > 1, "answer", True, f"{len(keyed)} records have the key {key.text!r}")]


_PREMISE = re.compile(r"\s*(?:if|when|assuming|given|suppose)\b[^,?]*,", re.IGNORECASE)


def _premise(question: str, phrase: str, others: list[Any]) -> bool:
    """Whether ``phrase`` is said in the question's opening condition ("*If I pip install httpx 0.28.1*, is rich 14
    allowed?") and another phrase of the question after it: the condition is granted, what follows is asked."""
    m = _PREMISE.match(question)
    if m is None or phrase.casefold() not in m.group(0).casefold():
        return False
    rest = question[m.end() :].casefold()
    return any(k.text.casefold() in rest and k.text.casefold() not in m.group(0).casefold() for k in others)


def _sibling_holds(book: Any, var: str, key: Any, others: list[Any]) -> str | None:
    """Another phrase of the question (plain words, not the document's name nor the key's own) that no record the
    key keys holds, where a record keyed otherwise at the same indent holds it and names the key (``extraclean:
    realclean`` then ``$(RM) core``): that record's key; else None. What the question states is the other's. Once
    per key phrase: each existence read by the key asks it."""
    if not key.is_key:
        return None
    memo = ("sibling holds", var, key.text)
    if memo not in book.memo:
        book.memo[memo] = _sibling_record(book, var, key, others)
    return book.memo[memo]


def _sibling_record(book: Any, var: str, key: Any, others: list[Any]) -> str | None:
    held = [r for r in keyed_records(book, var, key) if norm(r.key) == norm(key.text)]
    if not held:
        return None
    indents = {_indent(r.text.split("\n", 1)[0]) for r in held}
    named = re.compile(rf"(?<![\w.-]){re.escape(key.text)}(?![\w-])", re.IGNORECASE)
    for other in others:
        if other.inner or not 1 <= other.records <= 3 or is_stop(other.text) or ID_LIKE.search(other.text):
            continue
        if norm(key.text) in norm(other.text) or before_file_name(book.text_q, other.text):
            continue
        if names_asked_document(book, var, other.text) or any(lookup._has(r, other.text) for r in held):
            continue
        for r in holding(book.texts[var], book.structs[var], other.text)[:3]:
            if not r.key or norm(r.key) == norm(key.text) or _indent(r.text.split("\n", 1)[0]) not in indents:
                continue
            if named.search(r.text):
                return str(r.key)
    return None
