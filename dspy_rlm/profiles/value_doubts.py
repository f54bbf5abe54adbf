"""Value doubts: what makes one value of a read unsupported, whatever its kind vouched for (a phrase of the question
given back, a word cut from a quoted value, a flag where the question asks which, a reference left unexpanded, a
count of one record, a label or a layout mark). Each check takes the book, the move, the question's key phrase it
reads by and the value, and says why, or None; :func:`dspy_rlm.profiles.kinds.evaluate` gives the first reason of
:data:`VALUE_DOUBTS`. The doubts of every value of a read are :data:`dspy_rlm.profiles.doubts.DOUBTS`."""

from __future__ import annotations

import re
import string
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.doubts import LOOKUPS
from dspy_rlm.profiles.grounding import said_in
from dspy_rlm.profiles.id_spellings import WRITTEN_ID
from dspy_rlm.profiles.move import Move
from dspy_rlm.profiles.named_document import FILE_NAME
from dspy_rlm.profiles.naming import holder_asked, names_a_record, record_keys
from dspy_rlm.profiles.owners import unfielded_key
from dspy_rlm.profiles.reads import norm, values_in
from dspy_rlm.profiles.said import asks_start, path_for_who
from dspy_rlm.profiles.spans import offered
from dspy_rlm.profiles.versions import version_unread
from dspy_rlm.profiles.vocabulary import STOP
from dspy_rlm.profiles.yes_no_words import FALSE_FLAGS, NO_VALUE, TRUE_FLAGS

__all__ = ["VALUE_DOUBTS"]


_ASKING_WORD = re.compile(r"^\W*(?:which|what|who|whom|whose|where|when|how)\b", re.IGNORECASE)


def _repeats_question(book: Any, move: Move, key: Any, value: Any) -> str | None:
    # "which key in the [Icon Theme] section is set to zip_overlay?": the section's name the question says is
    # no answer to it (a key read by a value gives the record's key, here the section asked *in*); inside the
    # phrase read by it is no repeat ("'GNU version of the tar archiving utility' describes which package?": tar),
    # but a value the question says whole is, where the phrase read by is a part of it ("which book has Cid Rask1
    # as its author?", read by 'Rask1': 'Cid Rask1')
    whole = _ASKING_WORD.sub(" ", book.text_q, count=1)  # "Which command is described as ...?": not 'which'
    asked = whole.replace(key.text, " ") if key is not None else whole
    if not isinstance(value, str) or len(value.strip()) < 2 or norm(value) in {norm(w) for w in offered(book.text_q)}:
        return None
    if not said_in(value, asked) and not (key is not None and said_in(value, whole) and not said_in(value, key.text)):
        return None
    return f"{value!r} repeats a phrase of the question"


def _holds_phrase_read(book: Any, move: Move, key: Any, value: Any) -> str | None:
    # "which locale is mapped to the tatar-cyr compose table?": the record 'tatar-cyr' finds is keyed by the
    # table itself ("tatar-cyr/Compose  tt_RU.TATAR-CYR"); a record's key that holds the phrase read by names
    # the thing the question gave, not the one it asks for
    # the same of a field or record read where the phrase is in no key: "which file's stanza lists Yuan Tong as
    # copyright holder?" read by 'Yuan Tong' in the field Copyright gives back '2022 Yuan Tong'
    if move.kind not in ("record", "key_of", "field") or key is None or not isinstance(value, str):
        return None
    if norm(value) == norm(key.text) or not said_in(key.text, value):
        return None
    record = lookup.record_of(book.texts[move.var], key.text)  # its key, not a field ("the United Kingdom of ...")
    if not isinstance(record, st.Record) or not record.key:
        return None
    if norm(record.key) != norm(value) and said_in(key.text, record.key):
        return None
    return f"{value!r} holds the phrase read by ({key.text!r}): it names what the question gave"


def _phrase_of_field(book: Any, move: Move, key: Any, value: Any) -> str | None:
    # "according to the NAME section, what does jwebserver do?": NAME is a value of the field section (a man
    # page's heading), which the question states to say where to read; field_of(V, 'NAME', 'section') reads the
    # section of another record that holds the word, no answer (of every phrase the question gives as such a
    # value, tried at stop 81, dev lost a right answer)
    if move.kind != "field" or key is None or len(move.args) < 2 or not isinstance(value, str):
        return None
    field, phrase, records = str(move.args[1]), norm(key.text), book.structs[move.var].records[:2000]
    if norm(value) == phrase or any(norm(r.key) == phrase for r in records):  # a record keyed so: its own field
        return None
    if not any(norm(r.get(field) or "") == phrase for r in records):
        return None
    return f"{key.text!r} is itself a value of {field!r}: the question says where to read, not which {field!r}"


_QUOTED = re.compile(r"\"([^\"\n]{2,})\"|'([^'\n]{2,})'")


def _cut_from_quote(book: Any, move: Move, key: Any, value: Any) -> str | None:
    # "what's the locale's title?" over 'title "Swedish locale for Sweden"': a quoted value is one value, and a
    # word of it is no answer
    if move.kind not in LOOKUPS or key is None or not isinstance(value, str) or not value.strip():
        return None
    memo = ("quotes", move.var, key.text)  # once per record read: every value of every lookup asks it
    if memo not in book.memo:
        record = lookup.record_of(book.texts[move.var], key.text)
        book.memo[memo] = (
            (
                [norm(m.group(1) or m.group(2)) for m in _QUOTED.finditer(record.text)],
                {norm(record.key)} | {norm(f) for _, f in record.fields},
            )
            if isinstance(record, st.Record)
            else ([], set())
        )
    quotes, own = book.memo[memo]
    v = norm(value)
    if v in quotes or v in own:  # a quoted value of its own ("scaleway": {"base_url": ...}), or a field's whole
        return None
    for quoted in quotes:
        if v != quoted and re.search(rf"(?<!\w){re.escape(v)}(?!\w)", quoted):
            return f"{value!r} is a part of the quoted value {quoted!r}"
    return None


def _flag_for_which(book: Any, move: Move, key: Any, value: Any) -> str | None:
    # "for the binaryauthorization API, which version is flagged as the default one?": the record's flag
    # (default: true) says which one is meant; "which" asks for the one it marks, and the flag is no answer
    flag = isinstance(value, str) and value.strip().casefold() in TRUE_FLAGS | FALSE_FLAGS | NO_VALUE
    if move.kind not in LOOKUPS or not flag:
        return None
    # ("for the setting LOG_OK_LOGINS, which value is listed?": "which value" asks for the flag itself)
    said = st.words(book.text_q.casefold())
    after = [*said[1:], ""]
    asked = [w for w, a in zip(said, after) if w in ("who", "whose") or (w == "which" and a not in STOP)]
    return f"{value!r} is a flag; the question asks {asked[0]!r}" if asked else None


_REFERENCE = re.compile(r"\$\{(\w+)\}|\$\((\w+)\)|%\((\w+)\)s")
_CONSTANT = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]+")  # a constant's name (S_ISGID, MAX_LEN)
_COMMENT = re.compile(r"\s+#.*$")


def _refers(book: Any, move: Move, key: Any, value: Any) -> str | None:
    # "systemd_system_unit_dir=${rootprefix}/lib/systemd/system": the value names another setting of the same
    # text, which a reader expands; as written it is no answer (nor is it sure the question wants it expanded)
    names = {n for m in _REFERENCE.finditer(value) for n in m.groups() if n} if isinstance(value, str) else set()
    s = book.structs.get(move.var)
    # "S_ENFMT = S_ISGID  # file locking": a constant defined as another one the text keys, a comment aside
    bare = _COMMENT.sub("", value).strip() if isinstance(value, str) else ""
    other = move.kind == "field" and (key is None or norm(bare) != norm(key.text))  # (a key read's name is asked)
    if not names and other and _CONSTANT.fullmatch(bare) and norm(bare) in record_keys(book, move.var):
        return f"{value!r} refers to another setting ({bare}), not expanded"
    if not names or s is None:
        return None
    fields = {st.name_form(f) for f in s.field_names}
    if not any(norm(n) in record_keys(book, move.var) or st.name_form(n) in fields for n in names):
        return None
    return f"{value!r} refers to other settings ({', '.join(sorted(names))}), not expanded"


def _lone_count(book: Any, move: Move, key: Any, value: Any) -> str | None:
    # "how many services does the aws-cn partition define?": count_where(context, 'partition', 'aws-cn') is 1,
    # the record the phrase names. A count of one record tells which record the question is about, seldom how
    # many: on first contact with the fourteen probes' files every count of 1 submitted was wrong (5 of 5)
    if not move.kind.startswith("count") or str(value).strip() != "1":
        return None
    return "a count of one record: the phrase it tests may name the record the question is about"


def _label_or_mark(book: Any, move: Move, key: Any, value: Any) -> str | None:
    # "what's the default window geometry?": 'Editres.Geometry:' is the line's label, not its value; '[' or '|'
    # is a mark of the text's layout (a table's rule, a section's bracket), no value at all
    if not isinstance(value, str) or not value.strip():
        return None
    if all(ch in string.punctuation or ch.isspace() for ch in value) and not (book and asks_start(book.text_q)):
        # an emoji or a sign ('±') is a value; and a symbol that starts one ("what token does X start with?")
        return f"{value!r} is only ASCII punctuation"
    return f"{value!r} is a label (it ends with {value.rstrip()[-1]!r})" if value.rstrip()[-1] in ":=" else None


def _one_of_several(book: Any, move: Move, key: Any, value: Any) -> str | None:
    # "which extra would pull in bcrypt?": a wheel's METADATA writes Provides-Extra once per extra; field_of reads
    # the first, one of several values the record holds there, and no answer to which of them is meant
    if move.kind != "field" or len(move.args) < 2:
        return None
    record = lookup.record_of(book.texts[move.var], move.args[0])
    if not isinstance(record, st.Record):
        return None
    values = values_in(record, str(move.args[1]))
    if sum(st.matches(str(move.args[0]), v) for v in values) == 1:  # field_of read the one holding the word:
        return None  # "Requires-Dist: yarl<2.0,>=1.25.1" of the record's 13
    return f"the record holds {len(values)} values of {move.args[1]!r}" if len(values) > 1 else None


_ITEMS = re.compile(r"[^\s,;]*[A-Za-z][^\s,;]*(?:\s*[,;]\s*[^\s,;]*[A-Za-z][^\s,;]*)+")
"""A value that is a list of names (``S24_LE,S16_LE``)."""
_WHOLE_LIST = re.compile(r"\b(?:combinations?|sets?|lists?|pairs?|groups?|tuples?|together)\b", re.IGNORECASE)


def _ranked_list(book: Any, move: Move, key: Any, value: Any) -> str | None:
    # "which sample format is used most often?": a capabilities field's "S24_LE,S16_LE", ranked whole, is a list
    # of formats, the most common *set* of them, no format; the one asked is elsewhere (each entry's format)
    if move.helper != "most_common" or not isinstance(value, str) or not _ITEMS.fullmatch(value.strip()):
        return None
    if len(re.split(r"[,;]", value)) < 3 and re.search(r"\s", value.strip()):  # a name "Moreau, Ines": no list
        return None
    if book is None or _WHOLE_LIST.search(book.text_q):
        return None
    return f"{value!r} is a list of items, ranked whole, where one is asked"


def _holder_value(book: Any, move: Move, key: Any, value: Any) -> str | None:
    # "which program is the one with a hints field?": a record read holds the field; its value is no answer to
    # which record holds it (a field read of it is doubted whole: asks_holder)
    if move.kind != "record" or not isinstance(value, str):
        return None
    fields = [f for f in book.fields.get(move.var, []) if holder_asked(book.text_q, f)]
    record = lookup.record_of(book.texts[move.var], move.args[0]) if fields else None
    if not isinstance(record, st.Record):
        return None
    held = next((f for f in fields if any(norm(v) == norm(value) for v in values_in(record, f))), None)
    return f"the question asks which record has {held!r}, not its value" if held else None


def _quotes_one(book: Any, move: Move, key: Any, value: Any) -> str | None:
    # "which instruction flag does SDNPMayStore set?" over its comment "May write to memory, sets 'mayStore'.":
    # the sentence quotes the one word asked, and the whole sentence is no answer to which
    if move.kind not in LOOKUPS or not isinstance(value, str) or len(value.split()) < 4:
        return None
    quoted = [m.group(1) or m.group(2) for m in _QUOTED.finditer(value)]
    said = st.words(book.text_q.casefold())
    at = next((i for i, w in enumerate(said) if _ASKING_WORD.match(w)), len(said))  # the question's asking word
    asked = said[at : at + 1] == ["which"] and at + 1 < len(said) and said[at + 1] not in STOP
    if not asked or len(quoted) != 1 or len(quoted[0].split()) != 1:
        return None
    return f"{value!r} quotes {quoted[0]!r}, and the question asks which one"


def _not_offered(book: Any, move: Move, key: Any, value: Any) -> str | None:
    # "set to yes or no, which of the two values comes up more often?": the most common value of all the
    # settings answers only where it is one of the two the question offers
    if not move.kind.startswith("most_common") or not isinstance(value, str):
        return None
    choices = {norm(w) for w in offered(book.text_q)}
    return f"{value!r} is none of the answers the question offers" if choices and norm(value) not in choices else None


def _beside_named(book: Any, move: Move, key: Any, value: Any) -> str | None:
    # "what dpkg-parsechangelog option computes DEB_DISTRIBUTION?" over "$(call dpkg_late_eval,DEB_DISTRIBUTION,
    # dpkg-parsechangelog -SDistribution)": the value holds an identifier the question names beside the key, so
    # the question asks of a part of the value (what stands beside it), not the whole
    if move.kind not in ("field", "record") or key is None or not isinstance(value, str) or len(value) > 400:
        return None
    if not re.search(r"\b(?:which|what)\b", book.text_q, re.IGNORECASE):
        return None
    read = {norm(key.text), *(norm(str(a)) for a in move.args[1:2])}
    files = {norm(m.group(0)) for m in FILE_NAME.finditer(book.text_q)}  # the file's own name: "pkg-info.mk"
    for m in WRITTEN_ID.finditer(book.text_q):
        said = m.group(0).rstrip(".")
        if norm(said) in read | files or norm(said) == norm(value) or said_in(said, key.text):
            continue
        if re.search(rf"(?<![\w.-]){re.escape(said)}(?![\w-])", value, re.IGNORECASE):
            return f"{value!r} holds {said!r}, which the question names: it asks of a part beside it"
    return None


VALUE_DOUBTS = (
    names_a_record,
    _repeats_question,
    _not_offered,
    _holds_phrase_read,
    _phrase_of_field,
    _cut_from_quote,
    _quotes_one,
    _refers,
    _flag_for_which,
    _lone_count,
    _label_or_mark,
    path_for_who,
    _one_of_several,
    _ranked_list,
    _holder_value,
    _beside_named,
    version_unread,
    unfielded_key,
)
"""What makes one value of a read unsupported: each check takes the book, the move, the key phrase and the value,
and says why, or None."""
