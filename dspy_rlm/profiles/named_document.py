"""How a question names the document it asks of, not a record of it: a path or file name
(:data:`FILE_NAME`: "/etc/xattr.conf", "mypy.xsd"), a name before a document noun ("the *Debian* copyright file"),
a value of the text's header (its first record, a header line, its own opening lines). A phrase that names the
document is no key that a record read must hold. Split from :mod:`~dspy_rlm.profiles.naming`."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.vocabulary import DOCUMENT_NOUNS, ID_LIKE

__all__ = [
    "FILE_NAME",
    "after_file_name",
    "before_document_noun",
    "before_file_name",
    "describes_document",
    "document_noun",
    "names_asked_document",
    "names_document",
    "names_file",
    "page_title",
    "titles",
    "untitled",
]


def names_document(s: st.Structure, record: st.Record, phrase: str, move: Any) -> bool:
    """Whether ``phrase``, which the ``record`` read lacks, names the whole document: a value of its first record
    (a copyright file's "the Debian packaging of *GNU ed*", a manual page's title) that lacks the field read; for
    a read of no field, a first record whose fields no other record has (its header, no table's first row); or a
    value of a header line before the record's peers (:func:`_names_header`)."""
    head = s.records[0] if s.records else None
    if head is None or head is record:
        return False
    if not any(lookup._same(v, phrase) for _, v in head.fields):
        return _names_header(s, record, phrase)
    field = str(move.args[1]) if move.kind == "field" and len(move.args) > 1 else None
    if field is not None:  # a field the header lacks (a pom's property, not its artifactId's record)
        return head.get(field) is None
    names = {f for f, _ in head.fields}  # any other read: where the header is no table's first row among peers
    return not any(names & {f for f, _ in r.fields} for r in s.records[1:200])


FILE_NAME = re.compile(r"(?:[\w.-]*/)+[\w.@-]+|[\w@-]+\.[A-Za-z]\w{0,5}|[\w@-]*[A-Za-z][\w@-]*\.\d(?![\w.])")
"""A path or a file's name with an extension (a manual page's section: ``cargo-new.1``): how a question names the
document it asks of."""


def names_asked_document(book: Any, var: str, phrase: str) -> bool:
    """Whether ``phrase``, absent from the data, is how the question names the document it asks of: a path or
    file name (``/etc/xattr.conf``, ``mypy.xsd``) or a name one or two words before a document noun ("the
    *libboost-regex1.74.0* copyright file")."""
    memo = ("asked document", var, phrase)  # asked per key at each step: the text is casefolded once a phrase
    if memo not in book.memo:
        text = book.texts[var]
        if "folded head" not in book.memo:
            book.memo["folded head"] = {}
        folded = book.memo["folded head"].setdefault(var, text[:2_000_000].casefold())
        if titles(text, phrase):  # "does the Node.js 5 changelog include ...?" of "# Node.js 5 ChangeLog"
            book.memo[memo] = True
        elif phrase.casefold() in folded and not names_file(book.structs[var], text, phrase):
            book.memo[memo] = False  # the text holds it past its own header comment ("# /etc/xattr.conf")
        else:
            book.memo[memo] = bool(FILE_NAME.fullmatch(phrase)) or before_document_noun(book.text_q, phrase)
    return bool(book.memo[memo])


_TITLE_MARKS = re.compile(r"^[\s#=*_]+|[\s#=*_]+$")


def titles(text: str, phrase: str) -> bool:
    """Whether ``phrase`` (of two words or more) is said once in the text, in its first line, a heading that says
    little else (``# Node.js 5 ChangeLog``): the document's title, the asker's name for the document."""
    if len(phrase.split()) < 2:
        return False
    head = text.lstrip()[:300].split("\n", 1)[0]
    title = _TITLE_MARKS.sub("", head)
    if not head.lstrip().startswith("#") or phrase.casefold() not in title.casefold():
        return False
    return len(phrase) >= 0.6 * len(title) and text.casefold().count(phrase.casefold()) == 1


def page_title(text: str, phrase: str) -> bool:
    """Whether ``phrase`` is a manual page's title, spaced or joined as it may be (``.TH "CARGO\\-YANK"`` for "does
    cargo yank delete the crate?"): the command the page documents, named wherever it is asked of."""
    if not text.lstrip().startswith((".", "'")):
        return False
    s = st.detect(text)
    title = s.records[0].get("title") if s.detail == "roff" and s.records else None
    return isinstance(title, str) and st.name_form(title) == st.name_form(phrase)


def untitled(book: Any, var: str) -> str:
    """The question with each key phrase that titles ``var`` (:func:`titles`) blanked: what it asks of the
    document, not its name ("does the Node.js 5 changelog include a 5.6.0 release?" asks of 5.6.0)."""
    memo = ("untitled", var)
    if memo not in book.memo:
        asked = book.text_q
        for k in book.keys.get(var, []):
            if k.records and titles(book.texts[var], k.text):
                asked = re.sub(re.escape(k.text), " ", asked, flags=re.IGNORECASE)
        book.memo[memo] = asked
    return str(book.memo[memo])


def before_document_noun(question: str, phrase: str) -> bool:
    """Whether the question writes ``phrase`` one or two words before a document noun ("the *Debian* copyright
    file", "*mypy*'s schema"): a word describing the document, whether or not the data holds it too."""
    at = question.find(phrase)
    after = st.words(question[at + len(phrase) :].casefold())[:2] if at >= 0 else []
    return any(w in DOCUMENT_NOUNS for w in after)


def before_file_name(question: str, phrase: str) -> bool:
    """Whether the question writes ``phrase`` right before a file's name ("ray's *vsphere* defaults.yaml", "the
    *gnome* mimeapps.list"), or as its owner ("*boto*'s copybot.cfg", "*boto*'s pyami copybot.cfg": a possessive,
    then at most one plain word): a word telling which of several such files is asked of, whether or not the data
    holds it too (a provider's ``type: vsphere``, a section ``[Boto]``), so no condition a record read must meet."""
    at = question.find(phrase)
    if at < 0 or ID_LIKE.search(phrase):
        return False
    rest = question[at + len(phrase) :]
    owner = rest.startswith(("'s ", "\u2019s "))  # "boto's pyami copybot.cfg": its one plain word, then the name
    after = rest[2:].split(None, 2) if owner else rest.split(None, 1)
    if owner and len(after) > 1 and re.fullmatch(r"[a-z]+", after[0]):
        after = after[1:]
    name = after[0].rstrip("?,;:!)").removesuffix("'s") if after else ""
    return bool(after) and "/" not in name and FILE_NAME.fullmatch(name) is not None


def after_file_name(question: str, phrase: str) -> bool:
    """Whether the question writes ``phrase``, one plain word, right after a file's name that follows "the", "this"
    or a possessive ("who created *the dc.sed calculator*?", "in *this* Makefile.am *fragment*"): the asker's noun
    for the file, no condition a record read must meet."""
    if not re.fullmatch(r"[a-z]+", phrase):
        return False
    m = re.search(rf"(?:\bthe|\bthis|'s)\s+(\S+)\s+{re.escape(phrase)}\b", question, re.IGNORECASE)
    return m is not None and "/" not in m.group(1) and FILE_NAME.fullmatch(m.group(1)) is not None


def describes_document(question: str, start: int, phrase: str) -> bool:
    """Whether ``phrase`` (at ``start``) is a plain word after "the", "this" or a possessive (and at most one plain
    word: "the cbrt *validation* csv") and before a document noun ("the *Debian* copyright file"), not an
    identifier ("a *py.typed* marker file": the file asked about):
    the narrower form of :func:`before_document_noun` that a key phrase must pass to be set aside as no key. A
    count's narrowing phrases take the wider one: an identifier before the document noun narrows no count either."""
    definite = re.search(r"(?:\bthe|\bthis|'s)(?:\s+[a-z]+)?$", question[:start].rstrip(), re.IGNORECASE) is not None
    return definite and not ID_LIKE.search(phrase) and before_document_noun(question[start:], phrase)


def document_noun(question: str, start: int, phrase: str) -> bool:
    """Whether ``phrase`` (at ``start``) is a document noun closing a definite phrase ("of *the* cbrt validation
    *csv*"): the asker's word for the data; not where it says a value ("can --output be set to *yaml*?")."""
    before = question[:start].rstrip()
    definite = re.search(r"(?:\bthe|\bthis|'s)(?:\s+[\w.-]+){0,3}$", before, re.IGNORECASE) is not None
    return phrase.casefold() in DOCUMENT_NOUNS and definite


def names_file(s: st.Structure, text: str, phrase: str) -> bool:
    """Whether ``phrase`` is a path or file name ("/etc/sysctl.conf") that the text states only in its first
    lines (its own header comment), in no record's fields: the question names the document, no record of it."""
    if not FILE_NAME.fullmatch(phrase) or any(lookup._has(r, phrase) for r in s.records[:200]):
        return False
    at = [m.start() for m in re.finditer(re.escape(phrase), text, re.IGNORECASE)]
    head = sum(len(line) + 1 for line in text.split("\n", 10)[:10])
    return bool(at) and all(i < head for i in at)


def _names_header(s: st.Structure, record: st.Record, phrase: str) -> bool:
    """Whether ``phrase`` is a value of one of the header lines before the first of the ``record``'s peers (records
    sharing a field with it), a line whose fields the record lacks: a font's ``FontName Symbol-Slanted`` above
    its glyphs' rows."""
    names = {n for n, _ in record.fields}
    for r in s.records[:50]:
        fields = {n for n, _ in r.fields}
        if r is record or fields & names:
            return False
        if any(lookup._same(v, phrase) for _, v in r.fields):
            return True
    return False
