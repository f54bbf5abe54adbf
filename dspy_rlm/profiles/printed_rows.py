"""The values a printed row states: :func:`printed` reads the tokens of a read's printed output (search rows, a
record's text) stated after a word of the question, each a submit
:class:`~dspy_rlm.profiles.candidates.Candidate` supported where the row holds the question's key and the token
is a whole value, a field asked, or what the key phrase is said to be. Split from
:mod:`~dspy_rlm.profiles.reads`."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles import guided
from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.reads import field_stems, norm
from dspy_rlm.profiles.said import SAYS, WHEN, WHO, addressed_names, whole_date, whole_name, whole_rest
from dspy_rlm.profiles.vocabulary import FUNCTION_WORDS, ID_LIKE, PRONOUNS, STOP

__all__ = ["printed"]


def printed(book: Any, stdout: str, key: Any = None, var: str | None = None, held: Any = None) -> list[Candidate]:
    """Tokens of printed rows (search output, a record's text): supported when stated after a word of the
    question on a row that holds the question's key. After a word of the key itself, a value is supported only
    in a field the question names (not the next column: "freeciv 5556/tcp"), or, in lines of text, right
    after the whole key phrase ("the vault access code is 31337", not "CA Disig Root R2 O=Disig a.s."). ``held``:
    the record of no fields whose text is printed, where its sentences are what a word of the question is read in."""
    values = guided.output_values([stdout], book.question, book.data)
    pairs = guided.focus_pairs(guided.stated_pairs([stdout], book.question, values), book.question)
    specific = key is not None and (key.is_key or (key.records <= 3 and not key.inner))
    s = book.structs[var] if var is not None else None
    fielded = s is not None and s.kind not in ("lines", "prose") and bool(s.field_names)
    own = set(st.words(key.text.casefold())) if key is not None else set()  # "CA Disig ... O=Disig a.s."
    noun = {w.casefold() for m in _WHICH_NOUN.finditer(book.text_q) for w in _asked_nouns(m)}  # "in which *version*"
    record = lookup.record_of(book.texts[var], key.text) if own and var is not None and key is not None else None
    named = book.named_fields(var) if own and var is not None else []
    # a table's row amid prose or lines (a reStructuredText table in a README) has its columns too
    fielded = fielded or (isinstance(record, st.Record) and len(record.fields) >= 2)

    def asked(value: str) -> bool:  # the column after the key is asked for only when the question names it
        fields = record.fields if isinstance(record, st.Record) else ()
        return any(f in named and value in v.split() for f, v in fields)

    def follows_key(value: str) -> bool:  # a sentence: "the vault access code is 31337"
        # after an identifier a bare space starts its description ("gh-103314 Support sys.last_exc ..."), not a value
        # nor is a bare lower-case word after a plain one a value: prose goes on ("... of Negotiator class")
        bare = not (ID_LIKE.search(key.text) or re.fullmatch(r"[a-z]+", value))
        return not fielded and key is not None and _linked(stdout, key.text, value, bare)

    def said_of(value: str) -> bool:  # in a sentence, "the code of X is 3213324": the key phrase states it
        return key is not None and _linked(stdout, key.text, value)

    def verb(word: str, value: str) -> bool:  # "files are stored in ~/.npm": a verb, the place after it the value
        if re.search(rf"\b(?:is|are|was|were|be|been)\s+{re.escape(value)}{_PLACED}", stdout, re.I):
            return True
        # in prose a bare lower-case word right after a word is its verb ("npm installs things"), unless linked
        return not fielded and re.fullmatch(r"[a-z]+", value) is not None and not _linked(stdout, word, value)

    def whole(value: str) -> bool:  # the token is a field's whole value, not a word of a longer one
        fields = record.fields if isinstance(record, st.Record) else ()
        return any(norm(v) == norm(value) for _, v in fields)

    def labelled(word: str, value: str) -> bool:  # "codename stone-stone-64.": a question word labels the token
        fields = record.fields if isinstance(record, st.Record) else ()  # inside one value, not a column's name
        said = re.compile(rf"(?<!\w){re.escape(word)}\W+{re.escape(value)}(?!\w)", re.IGNORECASE)
        return word.casefold() not in own and any(
            said.search(v) and st.stem(word.casefold()) not in field_stems(f) for f, v in fields
        )

    # in fielded data a token is supported as a whole value ("Dapper Drake", not "Drake"), or labelled
    out = [
        Candidate(
            v,
            w,
            specific
            and not (v.casefold() in PRONOUNS and not v.isupper())  # "(errors external to PostgreSQL itself)"
            and (w.casefold() not in own or asked(v) or follows_key(v))
            and (not fielded or not isinstance(record, st.Record) or whole(v) or labelled(w, v))
            and (not _sentences(held or record) or w.casefold() in own | noun or _linked(stdout, w, v) or said_of(v))
            and not verb(w, v),
            "stated after the key, a whole value" if whole(v) else "stated after the key",
        )
        for w, v in pairs
    ]
    headers = _header_rows(stdout)  # "Status      Pending   Awaited   Satisfies  Remedy": names, no value
    out = [Candidate(c.value, c.label, False, _HEADER) if _in_header(c, headers) else c for c in out]
    if key is not None:  # "which key types the capital letter Ж?": the question says what follows "letter" (the
        said = _said_before(book.text_q, key.text)  # key itself); the data's "LETTER ZHE" names it again
        out = [Candidate(c.value, c.label, False, _SAID) if str(c.label).casefold() in said else c for c in out]
    if WHO.search(book.text_q):  # "who is credited as the author?": "Author: Darrick J. Wong <...>", the whole name
        out = [n for c in out for n in whole_name(c, stdout)]
    elif WHEN.search(book.text_q):  # "when was it last updated?": "Last Updated Tue Nov 17 07:07:01 2026 UTC"
        out = [n for c in out for n in whole_date(c, stdout)]
    elif SAYS.search(book.text_q):  # "what does the Status line say?": "Status : Unknown, Use with caution!"
        out = [n for c in out for n in whole_rest(c, stdout)]
    else:  # "description: Check for outdated packages" opening its line (a front matter, a header): the whole rest
        out = [n for c in out for n in (whole_rest(c, stdout) if _labels_line(c, stdout) else [c])]
    if len({norm(str(c.value)) for c in out if c.supported}) > 2:  # a listing (operation: A, operation: B, ...)
        out = [Candidate(c.value, c.label, False, "one of several values stated after the word") for c in out]
    out[:0] = addressed_names(book, stdout, specific)  # "Arkadiusz Miśkiewicz <misiek@pld.org.pl>": the whole name
    out[:0] = _element_text(stdout, key) if key is not None and key.beyond else []  # <slf4jVersion>1.7.30</...>
    out += [Candidate(v, "answer", False, "a token of a printed row") for v in values]
    return out


def _element_text(stdout: str, key: Any) -> list[Candidate]:
    """The text of the element a key found outside the parsed records names (``<slf4jVersion>1.7.30</slf4jVersion>``
    of a POM's properties, its records the dependencies): one value, however often printed, is stated after it."""
    rx = re.compile(rf"<{re.escape(key.text)}(?:\s[^<>]*)?>([^<>\n]{{1,200}})</{re.escape(key.text)}>")
    found = {m.group(1).strip() for m in rx.finditer(stdout)} - {""}
    return [Candidate(v, key.text, len(found) == 1, "stated after the key") for v in sorted(found)]


_HEADER = "a column's name in a table's header row"
_SAID = "the question states what follows the word: the key it asks by"


def _said_before(question: str, key: str) -> set[str]:
    """The one or two words the question writes right before its key phrase ("the *capital letter* Ж"): what
    follows them is the key, so a token the data states after one ("CAPITAL LETTER ZHE") is no answer."""
    found = re.finditer(rf"((?:[A-Za-z]{{3,}}\s+){{1,2}}){re.escape(key)}(?!\w)", question)
    return {w.casefold() for m in found for w in m.group(1).split() if w.casefold() not in STOP}


_HEADER_ROW = re.compile(r"(?m)^[ \t]*[A-Z][\w-]*(?:[ \t]{2,}[A-Z][\w-]*(?:[ \t][A-Z][\w-]*)?){2,}[ \t]*$")
"""A line of three or more capitalized names set apart by runs of spaces: a text table's header row."""


def _header_rows(stdout: str) -> list[set[str]]:
    return [set(m.group().split()) for m in _HEADER_ROW.finditer(stdout)]


def _in_header(found: Candidate, headers: list[set[str]]) -> bool:
    """Whether the token and its word are both names of one header row: the word states no value there."""
    return any(str(found.label) in row and str(found.value) in row for row in headers)


def _linked(text: str, word: str, value: str, bare: bool = False) -> bool:
    """Whether ``text`` states ``value`` as ``word``'s: ``word: value``, ``word = value``, ``word is value`` (or,
    ``bare``, ``word value``)."""
    loose = r"|\s+" if bare else ""
    link = rf"(?:\s*[:=]\s*|\s+(?:is|are|was|were)\s+{loose})"
    return re.search(re.escape(word) + link + re.escape(value), text, re.IGNORECASE) is not None


_WHICH_NOUN = re.compile(r"\b(?:which|what)\s+([A-Za-z][\w-]*)(?:\s+([A-Za-z][\w-]*))?", re.IGNORECASE)
"""The noun a question asks for, right after its "which" or "what", or the word after that where the first one
describes it ("which *major version*", "what *default port*"), up to a function word."""


def _asked_nouns(m: re.Match[str]) -> list[str]:
    """The words of a :data:`_WHICH_NOUN` match up to the first function word ("which version *does*")."""
    out = []
    for w in (m.group(1), m.group(2)):
        if w is None or w.casefold() in FUNCTION_WORDS:
            break
        out.append(w)
    return out


def _sentences(record: Any) -> bool:
    """Whether the key's record is sentences (no fields, a dozen words or more, a full stop): there a word of the
    question labels the token after it only as ``word: value`` or ``word is value``, or where it is the noun asked
    ("in which *version* ...": "removed in version 1.1.0"; "While npm v6 had uninstall lifecycle scripts": "npm"
    names the program, "v6" is no value the question asks)."""
    if not isinstance(record, st.Record) or record.fields:
        return False
    return len(st.words(record.text)) >= 12 and re.search(r"\w[.!?](?:\s|$)", record.text) is not None


def _labels_line(found: Candidate, stdout: str) -> bool:
    """Whether the token's word opens a line with a colon (``description: Check for outdated packages``): the line
    is that label's, its value the whole rest, not the token after the colon."""
    word, v = re.escape(str(found.label)), re.escape(str(found.value))
    return re.search(rf"(?m)^[ \t]*{word}[ \t]*:[ \t]*{v}[ \t]+\S", stdout, re.IGNORECASE) is not None


_PLACED = r"\s+(?:in|into|at|under|inside|within|to)\b"
"""After "are stored", "is written": a place follows the verb, which is no value."""
