"""What a value says beside its main text: a default a description states ("... Default: info."), a part after a
``:`` or ``=`` mark, the bracketed detail of an item the question's key names ("nodejs:amd64 (20.20.2-1)"), and
what its references to other settings stand for (``${base}/bin``)."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.library.formats import unquote
from dspy_rlm.profiles.calibration import IN_SENTENCE
from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.vocabulary import NAME_PARTICLES, RESOLVING

__all__ = [
    "WHO",
    "addressed_names",
    "alias_values",
    "aliased",
    "as_asked",
    "asks_part",
    "asks_start",
    "default_said",
    "expanded",
    "expansions",
    "keyed_tail",
    "option_form",
    "shaped_field",
    "spelling_asked",
    "stated_after_mark",
    "whole_name",
]

_DEFAULT_SAID = re.compile(r"\bdefaults?(?:\s+(?:value\s+)?is|\s+to|:)\s+(\S.*?)(?:\.(?:\s|$)|[;)]|$)", re.I)
_ITEM = re.compile(r"(?:[^,()\[\]]|\([^()]*\)|\[[^\[\]]*\])+")  # a comma list's items, brackets whole
_NAMED_TAIL = re.compile(r"([^()\[\]]+?)\s*[(\[]([^()\[\]]+)[)\]]")


def default_said(book: Any, value: str, fname: str, ok: bool) -> list[Candidate]:
    """ "The default output level of -o": what a description says its default is ("... Default: info.")."""
    if "default" not in {st.stem(w) for w in st.words(book.text_q.casefold())}:
        return []
    m = _DEFAULT_SAID.search(value)
    said = unquote(m.group(1).strip(" '\"`")) if m else ""
    return [Candidate(said, fname, ok, IN_SENTENCE)] if said and len(said.split()) <= 6 else []


def stated_after_mark(part: str, sentence: str) -> bool:
    """Whether ``part`` follows a ``:`` or ``=`` in ``sentence`` (``[default: 256]``, ``unit=B``)."""
    return re.search(rf"[:=]\s*{re.escape(part)}(?!\w)", sentence) is not None


def keyed_tail(value: str, key: str) -> str | None:
    """The bracketed detail of the item whose name is the question's key, the value whole or one item of its
    comma-separated list ("which version of nodejs": ``nodejs:amd64 (20.20.2-1nodesource1), libc6:amd64 (...)``
    gives ``20.20.2-1nodesource1``; the name only repeats the key), else None. The name is the key, or the key
    and a qualifier after ``:``, ``/`` or ``@`` (an architecture)."""
    k = " ".join(key.casefold().split())
    if not k:
        return None
    for item in _ITEM.findall(value):
        m = _NAMED_TAIL.fullmatch(item.strip())
        name = m.group(1).casefold() if m else ""
        if m and (name == k or (name.startswith(k) and name[len(k) : len(k) + 1] in (":", "/", "@"))):
            return m.group(2).strip() or None
    return None


_REF = re.compile(r"\$\{([\w.:-]+)\}|\$\(([\w.:-]+)\)|@([\w.-]+)@|\{(\[[^\]\n]+\][\w.-]+)\}")
"""A reference to another setting by its name: ``${name}`` (shell, Maven, CMake), ``$(NAME)`` (make), ``@NAME@``
(autoconf), ``{[section]name}`` (tox); ``${section:name}`` (Python's ExtendedInterpolation) where no setting is
named ``section:name``."""
_SECTIONED = re.compile(r"\[([^\]\n]+)\]([\w.-]+)|([^:]+):([\w.-]+)")


def expanded(value: str, record: st.Record | None, records: list[st.Record], rounds: int = 4) -> str | None:
    """``value`` with each reference to a setting the data defines replaced by that setting's value, again for
    the references those values hold (up to ``rounds`` times), else None where it holds none the data defines. A
    name is looked up first among ``record``'s fields, then as the key of a record whose one field it names (a
    setting)."""

    def value_of(m: re.Match[str]) -> str:
        name = next(g for g in m.groups() if g)
        own = record.get(name) if record is not None else None
        if own is None:
            keyed = [r for r in records if r.key == name and len(r.fields) == 1]
            own = keyed[0].fields[0][1] if len(keyed) == 1 else None
        part = _SECTIONED.fullmatch(name) if own is None else None
        if part is not None and rounds > 0:  # a field of another section, its own references read there
            section, field = (part.group(1), part.group(2)) if part.group(1) else (part.group(3), part.group(4))
            held = [(r, v) for r in records if r.key.strip() == section.strip() and (v := r.get(field)) is not None]
            own = (expanded(held[0][1], held[0][0], records, rounds - 1) or held[0][1]) if len(held) == 1 else None
        return m.group(0) if own is None else own

    out = value
    for _ in range(rounds):
        nxt = _REF.sub(value_of, out)
        if nxt == out:
            break
        out = nxt
    return out if out != value else None


def expansions(book: Any, var: str, key: Any, whole: Candidate) -> list[Candidate]:
    """A field's value as written and with its references expanded (:func:`expanded`), the one the question asks
    for first (:data:`RESOLVING`: "what URL does it end up as?"), the other unsupported; ``[whole]`` where it holds
    no reference the data defines."""
    record = lookup.record_of(book.texts[var], key.text) if key is not None else None
    full = expanded(str(whole.value), record if isinstance(record, st.Record) else None, book.structs[var].records)
    if full is None:
        return [whole]
    if RESOLVING.search(book.text_q):
        return [
            Candidate(full, f"{whole.label} (expanded)", whole.supported, whole.why),
            Candidate(whole.value, whole.label, False, "the question asks what its references stand for"),
        ]
    return [whole, Candidate(full, f"{whole.label} (expanded)", False, "its references expanded")]


_STARTS = re.compile(
    r"\b(?:starts?|begins?|opens?)\s+with\b|\b(?:first|leading|initial)\s+(?:token|word|symbol)\b", re.I
)
_FIRST_TOKEN = re.compile(r"""\s*(?:'([^'\s]+)'|"([^"\s]+)"|([^\s'"]+))""")


def asks_start(question: str) -> bool:
    """Whether the question asks what a value starts with ("what token does a decorator start with?")."""
    return _STARTS.search(question) is not None


def as_asked(book: Any, var: str, key: Any, whole: Candidate) -> list[Candidate]:
    """A field's value as the question asks for it: its first token where it asks what the value starts with
    ("what token does a decorator start with?": ``'@' dotted_name ...`` gives ``@``), the whole unsupported;
    else as written and expanded (:func:`expansions`)."""
    value = str(whole.value)
    m = _FIRST_TOKEN.match(value) if _STARTS.search(book.text_q) and len(value.split()) > 1 else None
    if m is None:
        return expansions(book, var, key, whole)
    first = next(g for g in m.groups() if g)
    return [
        Candidate(first, f"{whole.label} (first token)", whole.supported, whole.why),
        Candidate(value, whole.label, False, "the question asks how it starts"),
    ]


def aliased(value: str, field: str, records: list[st.Record], rounds: int = 4) -> str | None:
    """The value a name stands for, where ``value`` is wholly the key of one other record (``#define RTF_MSS
    RTF_MTU``): that record's ``field``, followed again where it is a name too (up to ``rounds`` times); else
    None."""
    out, seen = value.strip(), {value.strip()}
    for _ in range(rounds):
        target = [r for r in records if r.key == out]
        nxt = target[0].get(field) if len(target) == 1 else None
        if nxt is None or nxt.strip() in seen:
            break
        out = nxt.strip()
        seen.add(out)
    return out if out != value.strip() else None


def alias_values(book: Any, var: str, key: Any, result: st.Record, specific: bool, why: str) -> list[Candidate]:
    """Where the question asks what a name ends up as (:data:`RESOLVING`: "RTF_MSS is an alias of another flag -
    what value does it end up with?"), the value the record's one field naming another record stands for
    (:func:`aliased`), vouched for (``why``) where the record is named by its key."""
    if key is None or not RESOLVING.search(book.text_q):
        return []
    records = book.structs[var].records
    found = [(f, full) for f, v in result.fields if (full := aliased(v, f, records)) is not None]
    ok = specific and key.is_key and len(found) == 1
    return [
        Candidate(full, f"{f} (what it names)", ok, why if ok else "the value its alias names") for f, full in found
    ]


_HEX = r"0x[0-9a-f]+"
_NUMBER = r"[-+]?\d+(?:\.\d+)?"
_SHAPES = {"hex": _HEX, "hexadecimal": _HEX, "octal": r"0o?[0-7]+", "numeric": f"{_NUMBER}|{_HEX}", "decimal": _NUMBER}
"""Words a question says of a value's form ("what *hex* value"), and the form."""


def shaped_field(question: str, fields: list[tuple[str, str]]) -> str | None:
    """The one of ``fields`` whose value has the form the question says ("what hex value does X give ...":
    ``0x0200``, not the comment beside it), else None."""
    said = {_SHAPES[w] for w in st.words(question.casefold()) if w in _SHAPES}
    if len(said) != 1:
        return None
    rx = re.compile(said.pop(), re.I)
    found = [f for f, v in fields if rx.fullmatch(v.strip())]
    return found[0] if len(found) == 1 else None


_PLAIN = frozenset(
    {
        "what",
        "which",
        "who",
        "when",
        "where",
        "how",
        "does",
        "did",
        "is",
        "are",
        "was",
        "the",
        "a",
        "an",
        "in",
        "of",
        "to",
        "for",
        "by",
        "and",
        "or",
        "it",
        "its",
        "this",
        "that",
        "be",
        "with",
        "on",
        "at",
    }
)


def asks_part(book: Any, sentence: str, key: Any) -> bool:
    """Whether the question says a word of ``sentence`` (a description) besides its key and the words of the
    asking ("in which version is X *removed*?": "... will be removed in Python 3.12"): it asks for a part of it,
    not the whole."""
    own = {w.casefold() for w in st.words(key.text)} if key is not None else set()
    said = {st.stem(w) for w in st.words(book.text_q.casefold()) if w not in _PLAIN and w not in own and len(w) > 3}
    return bool(said & {st.stem(w) for w in st.words(sentence.casefold())})


_FORM_ASKED = re.compile(r"\b(long|short)(?:[- ](?:hand|form|name|option|flag|switch|version|spelling))?\b", re.I)
_FLAG = re.compile(r"(?<![\w-])(--?[A-Za-z0-9][\w.-]*)")


def spelling_asked(book: Any, key: Any, record: st.Record) -> bool:
    """Whether the question asks another spelling ("the long option for -L") of a flag the record's key lists."""
    if key is None or not key.text.startswith("-") or not record.key or not _FORM_ASKED.search(book.text_q):
        return False
    return key.text in [m.group(1) for m in _FLAG.finditer(record.key.split("  ")[0])]


def option_form(book: Any, key: Any, record: st.Record, why: str) -> list[Candidate]:
    """ "Which long option corresponds to -L?": the other spelling of the flag the key names, where the record's
    key lists an option's forms (``-L, --library-path DIR``): the long one (``--x``) or the short one (``-x``), as
    asked; supported where the key lists one such form."""
    if not spelling_asked(book, key, record):
        return []
    forms = [m.group(1) for m in _FLAG.finditer(record.key.split("  ")[0])]
    long_asked = _FORM_ASKED.search(book.text_q).group(1).casefold() == "long"  # type: ignore[union-attr]
    other = [f for f in forms if f != key.text and f.startswith("--") == long_asked]
    return [Candidate(f, "option", len(other) == 1, why) for f in other]


WHO = re.compile(r"\bwhom?\b|(?:^|[,;:.?!]\s*|\b(?:and|but|so|then)\s+)whose\b", re.I)
"""A question asking who: "who" or "whom", or "whose" opening a clause ("Whose copyright ends first?"), not a
relative "whose" after a noun ("the status *whose* pending-triggers column says 'always'")."""


def whole_name(found: Candidate, stdout: str) -> list[Candidate]:
    """A capitalized word a row states, with the capitalized words and initials after it ("Darrick J. Wong"): the
    whole name in its place, the word alone unsupported after it."""
    v = str(found.value)
    if not v[:1].isupper():
        return [found]
    m = re.search(rf"(?<![\w.-]){re.escape(v)}((?:[ \t]+{_NAME_WORD})+)(?![\w@])", stdout)
    if m is None:
        return [found]
    return [
        Candidate(v + m.group(1), found.label, found.supported, found.why),
        Candidate(v, found.label, False, found.why),
    ]


_UPPER = "".join(re.escape(c) for c in map(chr, range(0x250)) if c.isupper() and c.isalpha())
_LOWER = "".join(re.escape(c) for c in map(chr, range(0x250)) if c.islower() and c.isalpha())
_NAME_WORD = rf"(?:[{_UPPER}][{_LOWER}'-]+|[{_UPPER}]\.)"
"""A word of a person's name: capitalized, in any Latin script ("Åstrand", "Miśkiewicz"), or an initial."""
_ADDRESSED = re.compile(
    rf"(?<![\w.-])({_NAME_WORD}(?:[ \t]+(?:(?:{'|'.join(sorted(NAME_PARTICLES))})[ \t]+){{0,2}}{_NAME_WORD})+)"
    r"[ \t]*(?:<[^<>\s@]+@[^<>\s]+>|\([^()\s@]+@[^()\s]+\)|,[ \t]*[^\s,;@<>()\[\]]+@[\w-]+(?:\.[\w-]+)+)"
)
"""A person's name written with their address: "Henrique de Moraes Holschuh <hmh@debian.org>", "(a@b.org)", or
after a comma ("[Armin Bub, Armin.Bub@bk.example.de, 970904]": a to-do list's credit)."""


def addressed_names(book: Any, stdout: str, held: bool) -> list[Candidate]:
    """ "Who wrote the NLS patches?": the person's name a read shows written with an address (``They are written by
    Arkadiusz Miśkiewicz <misiek@pld.org.pl>``). Supported where it is the one such name the read shows, and the
    read holds the question's key (``held``) or the name's line a word of the question ("# *Authors*: Jason Tang
    <...>" for "who is named as the author?")."""
    if not WHO.search(book.text_q):
        return []
    found = {m.group(1): m for m in _ADDRESSED.finditer(stdout)}
    if not found:
        return []
    asked = {st.stem(w.casefold()) for w in st.words(book.text_q) if len(w) > 3}

    def line_asked(m: re.Match[str]) -> bool:
        start, end = stdout.rfind("\n", 0, m.start()) + 1, stdout.find("\n", m.end())
        line = stdout[start : end if end >= 0 else len(stdout)]
        return bool(asked & {st.stem(w.casefold()) for w in st.words(line)})

    one = len(found) == 1
    why = "a person's name written with an address"
    return [Candidate(n, "answer", one and (held or line_asked(m)), why) for n, m in found.items()]


WHEN = re.compile(r"\bwhen\b|\bwhat (?:date|day|time)\b", re.I)
_DATE_PART = (
    r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]{0,6}\.?"
    r"|\d{1,4}(?:[-/]\d{1,2}){0,2}|\d{1,2}:\d\d(?::\d\d)?(?:\.\d+)?|UTC|GMT|[A-Z]{1,3}[SD]T|[+-]\d{4}),?"
)


def whole_date(found: Candidate, stdout: str) -> list[Candidate]:
    """A word starting a date a row states ("Last Updated Tue Nov 17 07:07:01 2026 UTC"), with the date's words
    after it (three or more, one a number): the whole date in its place, the word alone unsupported after it."""
    v = str(found.value)
    if not re.fullmatch(_DATE_PART, v):
        return [found]
    m = re.search(rf"(?<![\w.:-]){re.escape(v)}((?:[ \t]+{_DATE_PART}){{2,}})(?![\w:.-])", stdout)
    if m is None or not re.search(r"\d", m.group(1)):
        return [found]
    return [
        Candidate((v + m.group(1)).rstrip(","), found.label, found.supported, found.why),
        Candidate(v, found.label, False, found.why),
    ]


def path_for_who(book: Any, move: Any, key: Any, value: Any) -> str | None:
    """A doubt of one value (:data:`~dspy_rlm.profiles.value_doubts.VALUE_DOUBTS`): "who holds the oldest copyright?"
    is answered by no path: the Files stanza's pattern keying the record (apps/shared/iccjpeg.*) is no one."""
    who = book is not None and re.match(r"\W*who(?:m|se)?\b", book.text_q, re.I)
    return "a path answers no 'who'" if who and isinstance(value, str) and re.search(r"[/*]", value) else None


SAYS = re.compile(r"\bwhat\s+(?:does|do|did)\b[^?]*\b(?:say|read|state)\??\s*$", re.I)
"""A question asking what a line says as a whole ("What does the Status line in the header say?")."""


def whole_rest(found: Candidate, stdout: str) -> list[Candidate]:
    """A token stated after its word with a colon or equals sign ("# Status : Unknown, Use with caution!"), with
    the rest of its line: the whole statement in its place, the token alone unsupported after it."""
    v, word = str(found.value), str(found.label)
    m = re.search(rf"(?<!\w){re.escape(word)}\s*[:=]\s*({re.escape(v)}[^\n|]*)", stdout, re.IGNORECASE)
    rest = re.split(r"\\n|['\"],\s", m.group(1))[0].rstrip(" '\"}],") if m else v  # a printed row's repr ends it
    if rest == v or len(rest) > 200:
        return [found]
    return [Candidate(rest, found.label, found.supported, found.why), Candidate(v, found.label, False, found.why)]
