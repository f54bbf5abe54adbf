"""The question's key phrases in the data (:func:`question_keys`): each phrase of one to four words, a quoted
phrase, a flag or a glob, found as a record's key, a whole value or a word of a few records; for a yes/no, a
phrase the data lacks. :class:`~dspy_rlm.profiles.moves.MoveBook` asks once per data variable."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup, wordmatch
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.field_words import NAME_NOUNS
from dspy_rlm.profiles.fields_said import field_said, glued_said, initials_said, joined_outside
from dspy_rlm.profiles.id_spellings import code_name, spelled_as, unqualified
from dspy_rlm.profiles.named_document import FILE_NAME, describes_document, document_noun
from dspy_rlm.profiles.number_column import number_spans
from dspy_rlm.profiles.phrases import (
    ID_LIKE,
    QUOTED,
    Key,
    beyond_key,
    found_beyond,
    holding,
    is_stop,
    is_stop_value,
    make_key,
    mark_inner,
    may_be_value,
    one_letter,
    quoted_text,
)
from dspy_rlm.profiles.reads import norm, parts
from dspy_rlm.profiles.spans import container_spans, subject_span
from dspy_rlm.profiles.vocabulary import IDIOMS, PARTICLE_VERBS, RECORD_UNITS, STOP

__all__ = ["MAX_KEYS", "MAX_KEY_RECORDS", "question_keys", "unheld_identifier"]

_TABLE_AFTER = re.compile(r"\s+tables?\b", re.IGNORECASE)

MAX_KEYS = 6
"""At most this many question phrases are offered as keys."""
MAX_KEY_RECORDS = 50
"""A phrase found in more records than this is no key (it is offered for counting only)."""
_GLOB_TAIL = re.compile(r"[/.]?\*+")  # "debian/*", "afs.*"
_GLOB_LEAD = re.compile(r"(?:\*\.?|(?<![\w/])~?/)$")  # "*.conf", and a path's leading slash: "/apps/panel"
_PREFIX = re.compile(
    r"(?<![\w*/.-])(?:([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*_)(?![\w*])|([A-Za-z][\w]*)\*(?![\w*])"
    r"|([A-Za-z][\w.-]*[:/])(?:[A-Z]{2,}|<[\w-]+>|\{[\w-]+\})(?![\w*]))"
)
"""A name's written prefix: "the ARPOP_ ones", "the FILE_ATTRIBUTE_ constants", "RTCF_*", "[testenv:NAME]" (what
the names keying a group of records start with; a placeholder in capitals or brackets stands for the rest)."""
_DASHES = re.compile(r"(?:^|(?<=[\s(\[\"'`]))(?:-{1,2}|\.)$")  # a flag's dashes: --save-exact; a class's dot: .k
_HASH = re.compile(r"(?:^|(?<=[\s(\[\"'`]))#$")  # a hex colour's or an anchor's hash, where the data writes it: #DCDCDC


_FORMULA = re.compile(r"[()\[\]{}?+*|=<>/\\]")
"""A sign of a formula, pattern or code in a value said whole."""


def _said_whole(question: str, s: st.Structure, taken: list[tuple[int, int]]) -> list[tuple[str, tuple[int, int]]]:
    """``(phrase, span)`` of each key or field value of the first records, five words or more, or two and the
    signs of a formula (``(CR? LF)+``: its brackets and operators are no word's), that the question says whole
    ("sspaddmm(Scalar beta, Tensor self, Tensor mat1, Tensor mat2) -> Tensor"), longest first: one key, where its
    words of four make keys of records that only begin alike."""
    asked = question.casefold()
    values = {
        v.strip() for r in s.records[:5000] for v in [r.key, *(v for _, v in r.fields)] if v and 6 <= len(v) <= 300
    }
    said = sorted((v for v in values if v.casefold() in asked), key=len, reverse=True)
    out: list[tuple[str, tuple[int, int]]] = []
    for phrase in said:
        words = len(wordmatch.WORD_TOKEN.findall(phrase))
        if (words < 5 and not (words >= 2 and _FORMULA.search(phrase))) or (len(phrase) < 12 and words >= 5):
            continue
        start = asked.index(phrase.casefold())
        span = (start, start + len(phrase))
        before, after = asked[start - 1 : start], asked[span[1] : span[1] + 1]
        if (before.isalnum() or after.isalnum()) or any(a < span[1] and span[0] < b for a, b in taken):
            continue  # inside a longer word, or overlapping a phrase already taken
        out.append((question[span[0] : span[1]], span))
        taken = [*taken, span]
    return out


_COMMON = 10  # a key phrase more records hold than this is a common word of the data ("python" of its manual)


def _names_file(question: str, phrase: str) -> bool:
    """A file's name the question reads in ("in the Rust error codes book_config.toml"), not a setting it asks of
    ("is there a setting called keymap.bqck?")."""
    if not FILE_NAME.fullmatch(phrase):
        return False
    return re.search(rf"\b(?:in|from|of)\s+(?:the\s+)?(?:[\w'-]+\s+){{0,5}}{re.escape(phrase)}", question) is not None


_SAYS_VALUE = frozenset({"value", "values", "equals", "to", "is"})
"""Words after which a lone digit is a value said ("has the value 6", "set to 3"), though stop words."""


_FLAG = re.compile(r"-[A-Za-z](?![\w-])")
"""A one-letter option at a phrase's start (``-x``, ``-X option``): its case is part of its name."""


def _flag_cased(s: st.Structure, phrase: str, hits: list[Any]) -> list[Any]:
    """The records holding ``phrase`` whose keys write its one-letter option in its case, where a record is keyed
    so ("python's *-x* option" of a manual listing ``-x`` and ``-X option``: not the ``-X`` one); else ``hits``."""
    m = _FLAG.match(phrase)
    if m is None or not hits:
        return hits
    cased = re.compile(rf"(?<![\w-]){re.escape(m.group())}(?![\w-])")
    if not any(cased.search(r.key) for r in s.records[:5000]):
        return hits
    return [r for r in hits if cased.search(r.key)]


_DOTTED = re.compile(r"[^\W\d]\w*(?:\.\w+)+")
"""A dotted name written whole (``mlx_lm.quant``): a key even where its words are fields' names."""


def question_keys(book: Any, var: str) -> list[Key]:
    """The key phrases of the question found in ``var``: longest first, a record's key or a whole value first,
    then what only a huge text's tail holds, then loose words; for a yes/no, a phrase absent from the data."""
    text, s = book.texts[var], book.structs[var]
    # the parsed records hold only a huge text's head: a phrase of them is in the head, folded as they match
    folded = (text if s.parsed_chars is None else text[: s.parsed_chars]).casefold()
    tokens = list(re.finditer(wordmatch.WORD_TOKEN, book.text_q))
    field_stems = {st.stem(w) for f in s.field_names for w in parts(f)}
    named_cf = {f.casefold() for f in s.field_names}
    found: list[Key] = []
    absent: list[Key] = []
    quoted_absent: set[str] = set()  # quoted phrases the data lacks (a yes/no's)
    beyond: list[Key] = []  # found only past the parsed head of a huge text: search() reads it
    spans: list[tuple[int, int]] = []
    firm: set[tuple[int, int]] = set()  # spans of a record's key or a whole value, and quoted phrases
    naming: set[str] = set()  # phrases that key a few records, held by more than MAX_KEY_RECORDS records
    data_spans = container_spans(book.text_q)  # "in this tox config": no key phrase
    data_nouns = {b for _, b in data_spans}
    subject = subject_span(book.text_q)  # "does the stylesheet have ...": what holds the thing asked about
    idioms = [m.span() for m in IDIOMS.finditer(book.text_q)]  # "by default": no key phrase
    idioms += number_spans(book.text_q, s)  # "what port number is it on?": the column asked, no key
    named_fields = field_said(tokens, s)  # "the italic angle": a word of it keys no record lacking that field
    initials = initials_said(tokens, s)
    for m in QUOTED.finditer(book.text_q):  # a quoted phrase is one key, however long
        phrase = quoted_text(m).strip()
        hits = [r for r in s.records if lookup._has(r, phrase)] if wordmatch.in_text(phrase, folded) else []
        made = make_key(phrase, hits)
        if hits and (len(phrase) >= 2 or made.is_value):  # 'g': one character, a field's whole value
            made.quoted = True
            found.append(made)
            spans.append(m.span())
            firm.add(m.span())
        elif len(phrase) >= 2 and "yes_no" in book.cues and not wordmatch.in_text(phrase, folded):
            absent.append(Key(phrase, 0, False, False))  # "does it document a '-X perf' option?": what is asked
            quoted_absent.add(phrase)
    for m in _PREFIX.finditer(book.text_q) if "count" in book.cues else ():  # "how many ... (the ARPOP_ ones)":
        head = m.group(1) or m.group(2) or m.group(3)  # the records whose keys start so, counted as one key
        keyed = [r for r in s.records if r.key.startswith(head) and r.key != head]
        if len(keyed) >= 2:
            found.append(Key(head + "*", len(keyed), False, False))
            spans.append(m.span())
            firm.add(m.span())
    for span, f in named_fields.items():  # "the default log level": the setting a.b.defaultLogLevel is a record
        own = (
            [r for r in s.records if r.key == f and [n for n, _ in r.fields] == [f]] if s.key_counts.get(f) == 1 else []
        )
        if own and not any(a < span[1] and span[0] < b for a, b in spans):
            found.append(make_key(f, own))
            spans.append(span)
            firm.add(span)
    for key, span in glued_said(tokens, s):  # "what view mode does it set?": the keyword viewmode
        if _FLAG.match(key) and not book.text_q[span[0] : span[1]].startswith(key[:2]):
            continue  # "-x option" said, "-X option" keyed: another option
        found.append(make_key(key, [r for r in s.records if r.key == key]))
        spans.append(span)
        firm.add(span)
    for name, span in joined_outside(tokens, s, text):  # "the slf4j version" of a POM: <slf4jVersion>, no record's
        if not any(a < span[1] and span[0] < b for a, b in spans):  # (its records are the dependencies)
            beyond.append(beyond_key(text, name))
            spans.append(span)
            firm.add(span)
    for phrase, span in _said_whole(book.text_q, s, spans):  # a record's key or value of five words or more
        found.append(make_key(phrase, [r for r in s.records if lookup._has(r, phrase)]))
        spans.append(span)
        firm.add(span)
    for n in (4, 3, 2, 1):
        for i in range(len(tokens) - n + 1):
            first, last = tokens[i], tokens[i + n - 1]
            words = [t.group() for t in tokens[i : i + n]]
            before = book.text_q[max(0, first.start() - 3) : first.start()]
            dash = _DASHES.search(before) or _HASH.search(before)
            flag = dash.group() if dash else ""  # "--save-exact", "-A": a command-line flag, its dashes its own
            asked_flag = "yes_no" in book.cues and n == 1 and flag != "#"  # "is there a -q option?": absent: no
            flag = (
                flag
                if flag and (asked_flag or wordmatch.in_text(flag + book.text_q[first.start() : last.end()], folded))
                else ""
            )
            hashed = flag + book.text_q[first.start() : last.end()]  # a hash the records keep, not a marker they
            kept = flag == "#" and any(hashed.casefold() in v.casefold() for r in s.records for _, v in r.fields)
            flag = "" if flag == "#" and not kept else flag  # (#LOC:AT over "section: LOC:AT": the bare code)
            # a stop word alone ("down", "off", "no") is a key only where it is a field's whole value
            stop_word = n == 1 and is_stop(words[0]) and not flag
            if (n == 1 and last.end() in data_nouns) or any(a < last.end() and first.start() < b for a, b in idioms):
                continue
            described = any(a <= first.start() and last.end() <= b for a, b in data_spans)
            # the file's kind, in plain words ("tox"), is no record's key -- unless a record is keyed by it whole
            # and the word after it is "table" (TOML's tables: "of the delzar table"; "this tox file" is the file)
            keyed_by = (
                _TABLE_AFTER.match(book.text_q, last.end()) is not None
                and len(s.records) > 1
                and s.key_counts.get(book.text_q[first.start() : last.end()], 0) > 0
            )
            # an identifier there is still a key, but not the owner's version ("in PostgreSQL *15*'s ... .sql")
            version = n == 1 and _OWNER_VERSION.fullmatch(words[0]) and _POSSESSIVE.match(book.text_q, last.end())
            if described and not keyed_by and (version or not any(ID_LIKE.search(w) for w in words)):
                continue
            if (is_stop(words[0]) or is_stop(words[-1])) and not (stop_word and may_be_value(words[0])) and not flag:
                continue
            only_field_words = all(
                w.casefold() in STOP or all(st.stem(p) in field_stems for p in parts(w)) for w in words
            )
            end = last.end()
            tail = book.text_q[end : end + 1]
            if tail and tail in ")]" and "(["[")]".index(tail)] in book.text_q[first.start() : end]:
                end += 1  # "Central - ND (Mercer)": the bracket belongs to the phrase
            start = first.start()
            glob = _GLOB_TAIL.match(book.text_q, end)  # "debian/*", "*.conf": a glob the data writes is one key
            lead = _GLOB_LEAD.search(book.text_q, max(0, start - 2), start)
            if glob and wordmatch.in_text(book.text_q[start : glob.end()], folded):
                end = glob.end()
            if lead and wordmatch.in_text(book.text_q[lead.start() : end], folded):
                start = lead.start()
            phrase = flag + book.text_q[start:end]
            inside = any(a <= first.start() and last.end() <= b for a, b in spans)
            # inside only phrases that are no key nor whole value ("a Tier 1 platform" of prose): a whole
            # value ("Tier 1" of a table) within is still one
            loose = inside and not any(a <= first.start() and last.end() <= b for a, b in spans if (a, b) in firm)
            exempt = n == 1 and (ID_LIKE.search(words[0]) or flag)  # an identifier or a flag: offered alone
            if inside and not loose and not exempt:
                continue  # inside a longer phrase already found (an ID-like word or a flag is still offered alone)
            head, colon, rest = phrase.partition(":")
            if colon and rest.strip() and head.strip().casefold() in named_cf:
                phrase = rest.strip()  # "Priority: required" names the field and the value: the value is key
            letter = len(phrase) < 2  # "the key J", "to a capital E", "the character ß": a whole key or value
            before_word = tokens[i - 1].group().casefold() if i > 0 else ""  # "section 7", "the value 6"
            numbered = (
                phrase.isdigit() and bool(before_word) and (before_word not in STOP or before_word in _SAYS_VALUE)
            )
            if letter and not (first.start() and (one_letter(phrase) or numbered)):
                continue
            if n == 1 and ID_LIKE.search(phrase) and not wordmatch.in_text(phrase, folded):
                phrase = spelled_as(text, phrase) or phrase  # "quiet-lagoon" asked, "quiet_lagoon" written
                phrase = unqualified(folded, phrase) or phrase  # "HTTPStatus.OK" asked, "OK = 200" written
                unit = re.fullmatch(r"(\d+(?:\.\d+)?)-[a-z]+", phrase)  # "80-bit" asked, bitsize="80" written
                phrase = unit.group(1) if unit and not wordmatch.in_text(phrase, folded) else phrase
            present = wordmatch.in_text(phrase, folded)
            cap = s.parsed_chars
            hits = holding(text, s, phrase) if s.records and present else []
            hits = _flag_cased(s, phrase, hits)
            if flag and not hits and s.records and (bare := phrase[len(flag) :]) and wordmatch.in_text(bare, folded):
                keyed = [r for r in holding(text, s, bare) if r.key.strip().casefold() == bare.casefold()]
                phrase, hits = (bare, keyed) if keyed else (phrase, hits)  # "--output" of a record keyed output
            if stop_word and (
                not is_stop_value(phrase, hits) or before_word in PARTICLE_VERBS.get(phrase.casefold(), ())
            ):
                continue  # (the particle of "leave *out* the .Offline one" is no value)
            if not hits and cap is not None and found_beyond(text, phrase, cap, n):
                beyond.append(beyond_key(text, phrase))
                spans.append((first.start(), last.end()))
                firm.add((first.start(), last.end()))  # no shorter phrase within is offered past the head
                continue
            if not hits:
                holder = subject and subject[0] <= first.start() and last.end() <= subject[1]
                common = phrase.casefold() in NAME_NOUNS | RECORD_UNITS  # "a scripts *key*": what a part is called
                common = common or document_noun(book.text_q, start, phrase)  # "of *the* cbrt validation *csv*"
                common = common or _names_file(book.text_q, phrase)  # "in the ... book_config.toml": the file
                common = common or describes_document(book.text_q, start, phrase)  # "the *cbrt* validation csv"
                if "yes_no" in book.cues and n == 1 and not only_field_words and not holder and not common:
                    absent.append(Key(phrase, 0, False, False))  # "is X listed?": X may be absent
                continue
            made = make_key(phrase, hits)
            valued = made.is_value and not (phrase.isalpha() and phrase.islower())  # "the *strict* JAXP template"
            if not (made.is_key or valued or made.quoted) and describes_document(book.text_q, start, phrase):
                continue  # "the Debian copyright file": a loose word describing the document, no key
            if not (made.is_key or made.is_value or made.quoted) and document_noun(book.text_q, start, phrase):
                continue  # "in speedscope's file format *schema*": the asker's word for the data, in it loosely
            if (letter or (loose and not exempt)) and not (made.is_key or made.is_value):
                continue
            if phrase.casefold() in named_cf and not (made.is_key or made.is_value) and len(hits) > 3:
                continue  # a column's whole name ("SHA1 Fingerprint") names the field, not a record
            if any(a <= first.start() and last.end() <= b for a, b in initials) and not made.is_key:
                continue  # "time zone" says the field TZ by its initials: its words key no record
            # a field's name ("port"), not a key; unless a record is keyed by it (NAME=...), it is an identifier written
            # whole naming no field ("mlx_lm.quant"), or capitals some records hold whole (a manual's section NAME)
            whole_id = _DOTTED.fullmatch(phrase) is not None and phrase.casefold() not in named_cf
            capital = phrase.isupper() and len(hits) > 1 and [r for r in hits if any(v == phrase for _, v in r.fields)]
            if capital and only_field_words and not made.is_key:
                hits, made, whole_id = capital, make_key(phrase, capital), True
            if only_field_words and n == 1 and not made.is_key and len(hits) > 3 and not stop_word and not whole_id:
                continue
            said = [f for (a, b), f in named_fields.items() if a <= start and end <= b and (a, b) != (start, end)]
            if said and not any(r.get(said[0]) is not None for r in hits):
                continue  # "angle" of "italic angle" keys the glyph named angle, which has no ItalicAngle
            found.append(made)
            spans.append((first.start(), last.end()))
            firm |= {(first.start(), last.end())} if made.is_key or made.is_value else set()
            if (
                made.is_key
                and ID_LIKE.search(phrase)
                and len(hits) > MAX_KEY_RECORDS >= sum(norm(r.key) == norm(phrase) for r in hits)
            ):  # an identifier keying few records names them, however many mention it (not a word: "config")
                naming.add(phrase)
    mark_inner(found, text, s)
    usable = [k for k in found if k.records <= MAX_KEY_RECORDS or k.text in naming or "count" in book.cues]
    # a record's key first; one that many records hold too ("python" of a manual page), after those few hold
    usable.sort(key=lambda k: (not k.is_key, k.records > _COMMON, not k.is_value, k.records, -len(k.text)))
    if "count" not in book.cues and any(k.is_key or k.is_value for k in usable):
        # the question names a record (its key or a whole value): common words are no keys beside it
        usable = [k for k in usable if k.is_key or k.is_value or k.records <= 3]
    beyond.sort(key=lambda k: (not ID_LIKE.search(k.text), " " not in k.text))  # IDs, phrases, then words
    strong = [k for k in usable if k.is_key or k.is_value]  # a record named in the head comes first; then
    # what only the tail holds, before loose words (a value many records hold, "C", sorts after a word few hold)
    ordered = strong + beyond[:2] + [k for k in usable if k not in strong]
    if "count" not in book.cues and any(ID_LIKE.search(k.text) for k in beyond):
        ordered = strong + beyond[:2]  # an identifier names a record past the head: loose words are no keys,
        ordered += [k for k in usable if k not in strong and _written_id(book.text_q, k.text, data_spans)]  # but ids
    if absent and absent[0].text in quoted_absent:  # "does it document a '-X perf' option?": the quote is asked
        return (absent[:1] + ordered)[: MAX_KEYS + 1]
    if any(ID_LIKE.search(k.text) for k in absent) and not any(ID_LIKE.search(k.text) for k in strong + beyond):
        return (absent[:1] + ordered)[: MAX_KEYS + 1]  # "did job quiet-lagoon fail?": the identifier is asked
    return (ordered[: MAX_KEYS + len(beyond[:2])] + absent[:2])[: MAX_KEYS + 1]


_VERSION = re.compile(r"\d+\.\d+\.\d+")


def unheld_identifier(book: Any, move: Any, kind: Any, key: Any, text: str) -> str | None:
    """A doubt of a lookup's read of records (:data:`~dspy_rlm.profiles.doubts.DOUBTS`) by another phrase than an
    identifier of the question (eight characters or more, with a digit: a checksum, a serial) that the text holds
    but no record as its key or a whole value ("the file whose MD5 sum is 0bbcf8d0...", the checksum lists of a
    release file being no records, or lines of one field's value): the question is about a part the records do
    not key, so what a read by another phrase finds is no answer."""
    if move.kind not in ("record", "field", "key_of"):
        return None
    memo = ("unheld identifier", move.var)
    if memo not in book.memo:
        s = book.structs[move.var]
        head = (text if s.parsed_chars is None else text[: s.parsed_chars]).casefold()
        ids = [  # a checksum, a serial; or a version of three parts ("locked at ==20.0.18")
            w
            for w in wordmatch.WORD_TOKEN.findall(book.text_q)
            if (len(w) >= 8 and any(c.isdigit() for c in w)) or _VERSION.fullmatch(w)
        ]
        ids = [w for w in ids if wordmatch.in_text(w.casefold(), head) and not _names_file(book.text_q, w)]  # a file
        whole = {norm(v).lstrip("-") for r in s.records for v in (r.key, *(v for _, v in r.fields))} if ids else set()
        # a version inside a record's key ("What's New in Lake 3.9.0") names that record
        keyed = [w for w in ids if _VERSION.fullmatch(w) and any(w in r.key for r in s.records[:5000])]
        book.memo[memo] = next((w for w in ids if norm(w) not in whole and w not in keyed), None)
    unheld = book.memo[memo]
    if not unheld or (key is not None and norm(key.text).lstrip("-") == norm(unheld)):  # a flag: "-ltkstub8.6"
        return None
    return f"the question's {unheld!r} keys no record read, and the read is by {key.text if key else 'none'!r}"


_OWNER_VERSION = re.compile(r"v?\d+(?:\.\d+)*")
_POSSESSIVE = re.compile(r"['’]s\b")


def _written_id(question: str, phrase: str, data_spans: list[tuple[int, int]]) -> bool:
    """Whether the question writes ``phrase`` itself as an identifier ("in *list_merge_tool_candidates*, ..."), not
    the asker's words that a joined spelling found ("merge mode": merge_mode), nor the document's name ("the
    properties of *the maven-resolver 1.6.3 POM*")."""
    if not code_name(phrase):
        return False
    at = re.search(rf"(?<![\w.-]){re.escape(phrase)}(?![\w-])", question)
    return at is not None and not any(a <= at.start() and at.end() <= b for a, b in data_spans)
