"""What a grounded read produced: each value a read of the small policy's moves printed, as a submit
:class:`~dspy_rlm.profiles.candidates.Candidate` that knows whether it is supported.

Each move kind says what its result supports (:mod:`dspy_rlm.profiles.kinds`); the pieces they share are here:
a value that only repeats the key, the fields a question asks for besides its key's, and the field-name stems the
moves match on. The tokens a printed row states after a word of the question are
:func:`dspy_rlm.profiles.printed_rows.printed`.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.field_words import DATE_VALUE, DATE_WORDS, PATH_VALUE, PLACE_ASKED, UNIT_PARTS
from dspy_rlm.profiles.vocabulary import RECORD_UNITS, STOP

__all__ = [
    "agent_stems",
    "as_written",
    "camel_parts",
    "field_holding_key",
    "field_stems",
    "flag_fields",
    "holders",
    "joined_name",
    "norm",
    "parts",
    "values_in",
]


def _other_asked(book: Any, var: str, key: Any) -> list[str]:
    """The fields the question asks for besides the one holding its key value ("the package whose description
    is X: give its Version" asks for the Version, not the package)."""
    record = lookup.record_of(book.texts[var], key.text) if key is not None else None
    if not isinstance(record, st.Record):
        return list(book.fields.get(var, []))
    said = norm(key.text)
    holders = {f for f, v in record.fields if said in (norm(v), norm(v.split("\n", 1)[0]))}
    # a field the record lacks is asked only where the question says its name whole ("API key" is not
    # headers.api-subscription-key, which scaleway's record does not have), not by initials only ("character
    # code" says CC, which a record of C, WX and N lacks)
    # nor is the list the record sits in ("which maintainer ...": a TOML table's ``maintainers`` names the record
    # found, whose ``in`` is ``project.maintainers``)
    places = {norm(str(v).rsplit(".", 1)[-1]) for f, v in record.fields if f in ("in", "block")}
    named = [
        f
        for f in book.fields.get(var, [])
        if f not in holders and norm(f) not in places and (record.get(f) is not None or _said_whole(book.q_stems, f))
    ]
    # a field of the record the question names with two letters swapped ("the aPges of the book"): asked too
    typed = {w.casefold() for w in st.words(book.text_q) if len(w) >= 5}
    return named + [f for f, _ in record.fields if f not in holders and f not in named and _swapped(typed, f)]


def own_setting(book: Any, var: str, key: Any) -> str | None:
    """The field holding the key value where it is a setting of that record's own (no other record has the
    field; the record has three or more) and the question does not name it: a TOML table's
    ``register-python-argcomplete = "argcomplete...:main"``, or any setting of a text of one record (an
    ``entry_points.txt`` of one section). "Which console command runs X?" may ask for that name, not the table's
    (memoized)."""
    memo = ("own setting", var, key.text if key is not None else None)
    if memo not in book.memo:
        book.memo[memo] = _own_setting(book, var, key)
    found: str | None = book.memo[memo]
    return found


def as_written(question: str, phrase: str) -> str:
    """A key phrase as the question writes it: a number with the percent sign after it ("defaults to 10%": no
    setting of 10 is meant)."""
    return phrase + "%" if re.search(rf"(?<![\w.]){re.escape(phrase)}%", question) else phrase


def _own_setting(book: Any, var: str, key: Any) -> str | None:
    s = book.structs[var]
    record = lookup.record_of(book.texts[var], key.text) if key is not None else None
    if not isinstance(record, st.Record) or len(record.fields) < 3:  # one record: every field is its own
        return None
    said = norm(as_written(book.text_q, key.text))
    holders = [f for f, v in record.fields if norm(v) == said]
    if len(holders) != 1 or holders[0] in book.fields.get(var, []):
        return None
    want = st.name_form(holders[0])
    shared = sum(1 for r in s.records[:5000] if any(st.name_form(f) == want for f, _ in r.fields))
    return holders[0] if shared == 1 else None


def _swapped(said: set[str], name: str) -> bool:
    """Whether a word of ``said`` is a word of the field name ``name`` (five letters or more) with two
    neighbouring letters swapped."""
    for part in parts(name):
        part = part.casefold()
        if len(part) < 5 or part in said:
            continue
        for i in range(len(part) - 1):
            if part[i] != part[i + 1] and part[:i] + part[i + 1] + part[i] + part[i + 2 :] in said:
                return True
    return False


def _said_whole(q_stems: set[str], name: str) -> bool:
    initials = "=" + name in q_stems and st.stem(name) not in q_stems
    said = [p for p in _named_parts(q_stems, name) if not p.startswith("~")]  # a part said but its last word: not
    return not initials and len(said) == len(parts(name))


def only_the_record_asked(book: Any, var: str, key: Any) -> bool:
    """Whether the question names nothing but the record: past its stop words, the key's own words and the
    name of the field holding the key, at most one word is left (the record's noun: "Name the certificate
    whose Serial is N"). Then the record's key is what it asks, though its field is not named."""
    record = lookup.record_of(book.texts[var], key.text) if key is not None else None
    if not isinstance(record, st.Record):
        return False
    said = norm(key.text)
    holders = {st.stem(w) for f, v in record.fields if said == norm(v) for w in parts(f)}
    keyed = {st.stem(w) for w in parts(key.text)}
    rest = {st.stem(w) for w in parts(book.text_q) if w.casefold() not in STOP} - keyed - holders
    return len(rest) <= 1


_SETTER = re.compile(r"(?:let|set|export|declare|local|readonly|var|const)[ \t]+(?=\S)", re.IGNORECASE)
"""A word that sets the name after it (``let b:keymap_name = "pho"``, ``export PATH=...``): no part of the name."""


def _unset(value: str, key: str) -> str:
    """The value past a setting word before the key (``let b:keymap_name = "pho"`` for ``b:keymap_name``)."""
    m = _SETTER.match(value)
    return value[m.end() :] if m and value[m.end() :].casefold().startswith(key.casefold()) else value


def assigns(value: str, key: str) -> bool:
    """Whether a line sets the key itself (``let b:keymap_name = "pho"``, ``PORT=8080``): the value after it is the
    key's, wherever the line sits (a one-cell row above a keymap's table)."""
    rest = _unset(value, key)
    return rest.casefold().startswith(key.casefold()) and re.match(r"[ \t]*[=:]", rest[len(key) :]) is not None


def _holds_key(value: str, key: str, is_record_key: bool) -> bool:
    """Does the value only repeat the question's key (``/nonexistent`` for ``nonexistent``) or, as a record's
    key, start with it (``ENCRYPT_METHOD SHA512``: a ``NAME value`` line read as one field; also after a word that
    sets it: ``let b:keymap_name = "pho"``)?"""
    value = _unset(value, key)
    words = st.words(key.casefold())
    found = st.words(value.casefold())
    starts = found[: len(words)] == words and value[len(key) : len(key) + 1] in (" ", "\t", "=", ":")
    if not words:  # a key of symbols only ("+/-"): only itself repeats it ("±" holds no word either)
        return " ".join(value.split()) == " ".join(key.split())
    return found == words or (is_record_key and starts)


def _past_key(value: str, key: str, label: str, ok: bool, why: str) -> list[Candidate]:
    """A value that holds the question's own key: what follows the key (``ENCRYPT_METHOD SHA512`` read for
    ``ENCRYPT_METHOD``: ``SHA512``, supported when ``ok``); the whole value only repeats the question."""
    whole = Candidate(value, label, False, "the value repeats the question's key")
    value = _unset(value, key)
    folded, k = value.casefold(), " ".join(key.casefold().split())
    if not folded.startswith(k) or value[len(k) : len(k) + 1] not in (" ", "\t", "=", ":"):
        return [whole]
    rest = value[len(k) :].strip(" \t=:")
    if len(rest) >= 2 and rest[0] == rest[-1] and rest[0] in "\"'" and rest[0] not in rest[1:-1]:
        rest = rest[1:-1]  # 'b:keymap_name = "pho"': one quoted string answers unquoted
    return (
        [Candidate(rest, label, ok, why if ok else "after the key, in a field not named"), whole] if rest else [whole]
    )


def norm(text: str) -> str:
    return " ".join(text.casefold().split())


def values_in(record: st.Record, field: str) -> set[str]:
    """The distinct values a record writes for a field (a wheel's METADATA writes Provides-Extra once per extra):
    more than one, and reading the field gives one of several, no answer to which is meant."""
    want = st.name_form(field)
    return {norm(v) for n, v in record.fields if st.name_form(n) == want}


def parts(text: str) -> list[str]:
    """The alphanumeric parts of a text (``Installed-Size`` -> ``Installed``, ``Size``), for stems."""
    return re.findall(r"[^\W_]+", text)


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def camel_parts(text: str) -> list[str]:
    """:func:`parts`, a camel-case part split into its words (``FullName`` -> ``Full``, ``Name``; ``HTTPServer``
    -> ``HTTP``, ``Server``)."""
    return [w for p in parts(text) for w in _CAMEL.sub(" ", p).split()]


def agent_stems(stems: set[str]) -> set[str]:
    """The agent nouns of a question's verbs ("who *maintains* X" names ``Maintainer``, "which package *owns* Q"
    names ``Owners``): each stem with ``er`` and ``or``. The caller leaves out participles ("owned *by* X" says
    the owner: the record is asked)."""
    return {s + end for s in stems if len(s) >= 3 and s.isalpha() for end in ("er", "or")}


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


def keys_identify(book: Any, var: str) -> bool:
    """Whether the records' keys name them: at least half of them distinct. A log read as a table is keyed by
    its first column, a date most lines share, and "the record holding X" is then no answer; nor is it in a text
    of one record (a package's METADATA: its name holds every value) (memoized)."""
    if ("keys_identify", var) not in book.memo:
        keys = [r.key for r in book.structs[var].records if r.key]
        lone = len(book.structs[var].records) == 1
        book.memo[("keys_identify", var)] = not lone and (len(keys) < 5 or len(set(keys)) * 2 >= len(keys))
    return bool(book.memo[("keys_identify", var)])


def holders(records: list[st.Record], value: str) -> int:
    """How many of ``records`` hold ``value`` as a whole field value."""
    said = norm(value)
    return sum(1 for r in records if any(norm(v) == said for _, v in r.fields))


def unnamed(name: str) -> bool:
    """A column the parser named (``col7`` of a table with no header): a log line's message, not a field."""
    return re.fullmatch(r"col\d+", name) is not None


def names_no_column(names: Any) -> bool:
    """Whether the data names none of these fields: every one is a column the parser named (``col1``) or the
    line's trailing ``# comment`` (``comment``, also the parser's name: /etc/services)."""
    names = list(names)
    return bool(names) and any(unnamed(n) for n in names) and all(unnamed(n) or n == "comment" for n in names)


def words_inside(phrase: str, value: str) -> bool:
    """Whether the words of ``phrase`` run, in order, inside the longer ``value`` (``mime`` in ``pkcs7-mime``)."""
    said, found = st.words(phrase.casefold()), st.words(value.casefold())
    n = len(said)
    return 0 < n < len(found) and any(found[i : i + n] == said for i in range(len(found) - n + 1))


def ranked_names(q_stems: set[str], names: Any) -> list[str]:
    """The field names a question (its word stems ``q_stems``) says, best first, less one whose said words all
    lie inside those of a field said whole ("MD5 Fingerprint" beside "SHA1 Fingerprint", "Issuer" beside "Issuer O")."""
    scored = []
    for name in names:
        raw = _named_parts(q_stems, name)
        partly = [p[1:] for p in raw if p.startswith("~")]  # a camel part said but for its last word
        said = {st.stem(p.lstrip("~")) for p in raw}
        marks = frozenset("".join(camel_parts(p)[:-1]).casefold() for p in partly)
        if said:
            scored.append((-len(said) / len(parts(name) or [name]), -len(said), name, said, marks))
    whole = [r[3] for r in scored if r[0] == -1.0]  # "label" of "label in0", "label in1", ...: a family
    family = Counter(frozenset(r[3]) for r in scored if r[0] > -1.0)  # of fields, none of them named
    alike = Counter(p for r in scored for p in r[4])  # fields said alike but for their last word
    kept = [
        r
        for r in scored
        if not any(r[3] < w or (r[3] == w and r[0] > -1.0) for w in whole)  # "the name": not display_name
        and family[frozenset(r[3])] < 3
        and not any(alike[p] > 1 for p in r[4])
    ]
    return [r[2] for r in sorted(kept, key=lambda r: r[:3])]


def flag_fields(question: str, q_stems: set[str], names: Any) -> list[str]:
    """The flags a yes/no question opening with "is" or "has" names whole: ``is_team`` for "is limi a team?"
    (``is`` / ``has`` then the parts it says, each of them)."""
    verb = st.words(question.casefold())[:1]
    if verb not in (["is"], ["has"]):
        return []
    out = []
    for name in names:
        words = parts(name)
        if (
            len(words) >= 2
            and words[0].casefold() == verb[0]
            and all(st.stem(p.casefold()) in q_stems for p in words[1:])
        ):
            out.append(name)
    return out


def _named_parts(q_stems: set[str], name: str) -> set[str]:
    """The parts of a field's name the question says: by stem, by the initials of consecutive words (``TZ``
    for "time zone"), by two consecutive words joined (``guibg`` for "gui bg", counted as two) or, for a short
    capital part of a longer name, by a word's initial (``O`` of ``Issuer O`` for "organization")."""
    words = parts(name) or [name]
    if "=" + name in field_stems(name) and "=" + name in q_stems:
        return {name}
    if "+" + joined_name(name) in q_stems:  # words said as one name ("gui bg": guibg): better named than "gui"
        return {name, "+" + name}
    short = len(words) > 1
    said = {p for p in words if st.stem(p) in q_stems or (short and p.isupper() and len(p) <= 3 and "=" + p in q_stems)}
    for p in words:  # a camel-case part is said where each of its words is ("full name" says FullName),
        inner = camel_parts(p)
        # a short function word between two said ("ForwardToSyslog" for "forward ... to syslog") need not be
        inner = [
            w for i, w in enumerate(inner) if not (0 < i < len(inner) - 1 and len(w) <= 3 and w.casefold() in STOP)
        ]
        if p not in said and len(inner) > 1 and all(st.stem(w) in q_stems for w in inner):
            said.add(p)
        elif (
            p not in said
            and len(inner) > 1
            and inner[-1].casefold() in UNIT_PARTS
            and all(st.stem(w) in q_stems for w in inner[:-1])
        ):  # "the watchdog timeout": WatchdogSec, its unit unsaid
            said.add(p)
        elif p not in said and len(inner) > 2 and all(st.stem(w) in q_stems for w in inner[:-1]):
            said.add("~" + p)  # all but the last of three or more ("release manager" says releaseManagerName),
            # marked: two fields said so alike (releaseManagerKey beside it) name neither, and it is no whole name
    return said


def dated_fields(text_q: str, s: st.Structure) -> list[str]:
    """The fields a question's date word names by their values ("which *date* is written next to entry N?"
    names a trailing comment that holds ``1 Jan 1991``): those of mostly date values, where the question says
    a date word and no field's name says it."""
    said = {w for w in st.words(text_q.casefold()) if w in DATE_WORDS}
    if not said or any(field_stems(f) & {st.stem(w) for w in said} for f in s.field_names):
        return []
    out = []
    for name in s.field_names[:30]:
        values = [v.strip() for v in (r.get(name) for r in s.records[:200]) if v and v.strip()]
        if len(values) >= 2 and sum(bool(DATE_VALUE.fullmatch(v)) for v in values) >= 0.8 * len(values):
            out.append(name)
    stems = {st.stem(w) for w in st.words(text_q.casefold())}  # "the *deprecation* date": that field's, no other
    return [] if any(field_stems(f) & stems for f in out) else out


def placed_fields(text_q: str, s: st.Structure) -> list[str]:
    """The fields a question asking where names by their values ("*where* does it say boto lives on disk?" names
    ``boto_location = /usr/local/boto``): those whose values are all paths, where the question asks where
    (:data:`~dspy_rlm.profiles.field_words.PLACE_ASKED`)."""
    if not PLACE_ASKED.search(text_q):
        return []
    out = []
    for name in s.field_names[:30]:
        values = [v.strip() for v in (r.get(name) for r in s.records[:200]) if v and v.strip()]
        if values and all(PATH_VALUE.fullmatch(v) for v in values):
            out.append(name)
    return out


def joined_name(name: str) -> str:
    return re.sub(r"[\W_]+", "", name.casefold())


def unit_after(question: str, field: str) -> bool:
    """Whether the question counts the field's records: it names the field right after its count words and
    before a word for records ("how many *Files:* paragraphs", "the number of Provides stanzas"), not the items
    the field lists ("how many loggers are declared in the [loggers] section" counts the loggers)."""
    said = st.words(question.casefold())
    name = [p.casefold() for p in parts(field)]
    n = len(name)
    for i in range(len(said)):
        j = i - 1 if said[i - 1 : i] == ["the"] else i  # "count the Files stanzas"
        counting = said[max(0, j - 2) : j] in (["how", "many"], ["number", "of"]) or said[j - 1 : j] == ["count"]
        if counting and said[i : i + n] == name and said[i + n : i + n + 1] and said[i + n] in RECORD_UNITS:
            return True
    return False


def states_pair(key: str, field: str, value: str) -> bool:
    """Whether the key phrase is the field and its value as written ("profile = black", "Section: perl"): that
    field of the record it finds only repeats the question."""
    said = re.split(r"\s*[=:]\s*", key.strip(), maxsplit=1)
    return len(said) == 2 and norm(said[0]) == norm(field) and norm(said[1]) == norm(value)
