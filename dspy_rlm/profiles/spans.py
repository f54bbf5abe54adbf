"""Where a question names the data as a whole ("in *this dataset*", "in the tox *config*", a phrase of "this"
closing it) or what holds the thing it asks about ("does *the stylesheet have* ..."): words there describe the
file, not a record or a field of it."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from dspy_rlm.library import structure as st
from dspy_rlm.profiles.phrases import components
from dspy_rlm.profiles.vocabulary import CONTAINERS, CUE_WORDS, DOCUMENT_VERBS, FUNCTION_WORDS, HOLDING_VERBS, STOP

__all__ = [
    "container_spans",
    "data_subject_spans",
    "fielded_cues",
    "identifier_asides",
    "offered",
    "owned_at_end",
    "owned_spans",
    "subject_span",
    "without_container",
]


_PREPOSITION = r"(?<!\w)(?:in|from|of|per|within|inside|across|according\s+to)\s+"
_NAMED_CONTAINER = (  # up to four words naming it, then the container's word ("the Debian copyright file")
    rf"(?:(?!(?:in|from|of|the|this|that)\s)[\w.:-]+\s+){{0,4}}?(?:{'|'.join(sorted(CONTAINERS))})(?!\w)"
)
_CONTAINER = re.compile(rf"(?:{_PREPOSITION}(?:the|this|that)|(?<!\w)this)\s+{_NAMED_CONTAINER}", re.IGNORECASE)
_OWNED_CONTAINER = re.compile(
    rf"{_PREPOSITION}[\w.+-]+(?:\s+v?\d[\w.+-]*)?(?:['’]s|(?<=s)['’])\s+"
    rf"(?:{_NAMED_CONTAINER}|(?:[a-z][\w-]*\s+)?/?[\w.-]+(?:/[\w.-]+)*\.[A-Za-z]\w{{0,5}}(?![\w.]))",
    re.IGNORECASE,
)
"""A container or file an owner's phrase names ("of libavif's Debian copyright file", "to universal-ctags'
copyright file", "in litellm's callback_configs.json", "in boto's pyami copybot.cfg" [one plain word before a file's
name], "in pytest 9.2.0's METADATA file": the owner and its version)."""


# "how many entries *does the supported renames table* have?": the data as the subject of a verb that holds
# (its path may follow: "does the Debian copyright file /usr/share/doc/x/copyright contain?")
_SUBJECT_CONTAINER = re.compile(
    rf"(?<!\w)(?:does|do|did)\s+(?:the|this|that)\s+(?:[\w.:-]+\s+){{0,4}}?(?:{'|'.join(sorted(CONTAINERS))})"
    rf"(?=(?:\s+/?[\w.-]+(?:/[\w.-]+)+)?\s+(?:{'|'.join(sorted(DOCUMENT_VERBS))})\b)",
    re.IGNORECASE,
)


# "... in this channel *manifest*?", "... for this perl *build*": a phrase of "this" closing the question names
# the data, whatever its noun (words only: "which file in this list has checksum 449ab80d?" ends in a value)
_THIS_AT_END = re.compile(
    r"(?<!\w)(?:(?:in|from|of|for|within|inside|across)\s+)?this((?:\s+[A-Za-z][\w-]*){1,3})[\s?.!]*$"
)


# "... does pytest 9.2.0 require *according to its dist-info METADATA*?": the source closing the question, one to
# three words after "according to" and a determiner, names the document (not "according to its comment, ...")
_SOURCE_AT_END = re.compile(
    r"(?<!\w)according\s+to\s+(?:the|this|its|their)((?:\s+[A-Za-z][\w.-]*){1,3})[\s?.!]*$", re.IGNORECASE
)


# "... in *PostgreSQL's Australia timezone set*?": an owner's phrase closing the question, one to four plain words
# after the possessive, names the data (a record's Australia/Lord_Howe is no condition it states)
_OWNED_AT_END = re.compile(
    rf"{_PREPOSITION}[A-Za-z][\w.+-]*(?:['’]s|(?<=s)['’])((?:\s+[A-Za-z][\w-]*){{1,4}})[\s?.!]*$", re.IGNORECASE
)


def _owned_at_end(question: str) -> re.Match[str] | None:
    m = _OWNED_AT_END.search(question)
    return m if m and not any(w.casefold() in STOP for w in m.group(1).split()) else None


def owned_at_end(question: str) -> tuple[int, int] | None:
    """Where an owner's phrase closing the question names the data ("in PostgreSQL's *Australia timezone set*?")."""
    m = _owned_at_end(question)
    return m.span(1) if m else None


def _source_at_end(question: str) -> re.Match[str] | None:
    m = _SOURCE_AT_END.search(question)
    return m if m and not any(w.casefold() in STOP for w in m.group(1).split()) else None


def _this_at_end(question: str) -> re.Match[str] | None:
    m = _THIS_AT_END.search(question)
    said = m.group(1).split() if m else []
    return m if said and not any(w.casefold() in STOP or any(c.isdigit() for c in w) for w in said) else None


_SUBJECT_VERB = (
    r"\s+(?:the|this|that|its|your|their)\s+((?:[\w-]+\s+){0,2}?[\w-]+)"
    rf"\s+(?:\w+ly\s+)?({'|'.join(HOLDING_VERBS)})\b"
)  # "... the stylesheet have", "... this workflow currently run": a subject of up to three words and its verb
_SUBJECT = re.compile(r"^\s*(?:does|do|did|will|can)" + _SUBJECT_VERB, re.IGNORECASE)
_OWNED_SUBJECT = re.compile(
    r"^\s*(?:does|do|did|will|can)\s+([\w.+-]+'s\s+(?:[\w-]+\s+){0,2}[\w-]+)"  # the longest: "set" may be a verb
    rf"\s+(?:\w+ly\s+)?({'|'.join(HOLDING_VERBS)})\b",
    re.IGNORECASE,
)  # "does NumPy's exp validation set include": an owner's name for the data in place of "the"


def subject_span(question: str) -> tuple[int, int] | None:
    """Where a yes/no question names what holds the thing it asks about, and its verb ("Does *the stylesheet
    have* print rules?", "Does *this workflow currently run* ...", "Does *NumPy's exp set include* ..."): the data
    itself or a part of it. A word there that the data lacks is the asker's name for it, or the verb, no evidence
    that the answer is no."""
    m = _SUBJECT.match(question) or _OWNED_SUBJECT.match(question)
    return (m.start(1), m.end(2)) if m else None


_COUNT_SUBJECT = re.compile(r"(?<!\w)(?:does|do|did)" + _SUBJECT_VERB + r"(?=[\s?.!]*$)", re.IGNORECASE)


def count_subject(question: str) -> tuple[list[str], str] | None:
    """The subject and verb closing a count ("how many dependencies *does the project declare*?"): the data
    itself, where the records say none of its words."""
    m = _COUNT_SUBJECT.search(question)
    return (m.group(1).casefold().split(), m.group(2).casefold()) if m else None


def data_subject_spans(question: str) -> list[tuple[int, int]]:
    """Where the data is the subject of a verb that holds ("how many entries *does the supported renames table*
    have?"): words there name the data, no condition of a count."""
    return [m.span() for m in _SUBJECT_CONTAINER.finditer(question)]


def owned_spans(question: str) -> list[tuple[int, int]]:
    """Where an owner's phrase names the file or container ("in *boto's pyami copybot.cfg*"): no condition of a
    count, whatever records its words name (a section ``[Boto]``)."""
    return [m.span() for m in _OWNED_CONTAINER.finditer(question)]


def container_spans(question: str) -> list[tuple[int, int]]:
    """The phrases naming the data as a whole ("in *this dataset*", "in *the tox config*", "in *litellm's
    callback_configs.json*", a phrase of "this" or "according to its" closing the question): their plain words
    describe the file, and their last is no key phrase."""
    spans = [m.span() for rx in (_CONTAINER, _SUBJECT_CONTAINER) for m in rx.finditer(question)] + owned_spans(question)
    ends = [m.span(1) for at_end in (_this_at_end, _source_at_end, _owned_at_end) if (m := at_end(question))]
    return [*spans, *ends]


def without_container(question: str, field_names: Collection[str] = ()) -> str:
    """The question less what names no field: the phrases naming the data as a whole ("In the v143 linker flag
    table, which setting ...": *flag* names the file, not its ``flags`` field) and identifiers other than a
    field's whole name ("which property in *java.security* is set to tryLast": no field ``security``)."""
    rest = _SUBJECT_CONTAINER.sub(" ", _CONTAINER.sub(" ", question))  # "does the jcmd manual rate": no manual
    for at_end in (_this_at_end, _source_at_end):
        m = at_end(rest)
        rest = rest[: m.start()] + " " + rest[m.end() :] if m else rest
    ids = (t for t in re.findall(r"[\w.:/@-]+", rest) if re.search(r"\w[-_./:@]\w", t) and not t[:1].isdigit())
    named = set(field_names) | components(field_names)
    for token in ids:
        if set(token.casefold().split("-")) & CUE_WORDS:
            continue  # "the highest-numbered syscall": a ranking word joined to a field's, no identifier
        folded = {token.casefold(), token.strip(".:/@-").casefold()}  # allow_any names defaults.allow_any too
        if not folded & named:
            rest = re.sub(rf"(?<![\w.]){re.escape(token)}(?![\w])", " ", rest)
    return rest


_CONTRACTED = re.compile(r"(?i)\b(?:(ca|wo|\w+?)n['\u2019]t)\b|['\u2019](re|ll|ve|m)\b")
_WHOLE = {"ca": "can", "wo": "will"}
_SPELLED = {"re": "are", "ll": "will", "ve": "have", "m": "am"}


def uncontracted(question: str) -> str:
    """The question with its contractions spelled out ("don't" -> "do not", "they're" -> "they are"): the
    letter after an apostrophe is no word of the data (``T`` of "don't")."""

    def spell(m: re.Match[str]) -> str:
        if m.group(1):
            return f"{_WHOLE.get(m.group(1).casefold(), m.group(1))} not"
        return f" {_SPELLED[m.group(2).casefold()]}"

    return _CONTRACTED.sub(spell, question)


_POSSESSIVE = re.compile(r"(?<=\w)['\u2019]s\b")


def unpossessed(question: str) -> str:
    """The question less each ``'s`` of a possessive or "what's" (``is`` is no field's name either): the ``s``
    left over named a man page's ``-s`` flag ("npm's logging page, what's the default loglevel?"). A phrase naming
    the data by its owner goes whole ("of libavif's Debian *copyright* file": no field ``Copyright``)."""
    return _POSSESSIVE.sub("", _OWNED_CONTAINER.sub(" ", question))


_CHOICES = re.compile(r"[:,]\s*((?:[\w.+-]+\s*,\s*)*[\w.+-]+,?\s+or\s+[\w.+-]+)\s*\??\s*$")


_EXAMPLES = re.compile(
    r"\(\s*(?:e\.g\.,?|for example,?|such as|like)?\s*((?:[\w.+-]+\s*,\s*)+(?:\.\.\.|…|etc\.?|[\w.+-]+))\s*\)", re.I
)
"""Examples of the values asked for, in parentheses ("which prefix has the most rows (America, Asia, ...)?")."""


_TWO_NAMED = re.compile(
    r"\b([\w.+-]+)\s+or\s+([\w.+-]+)\b(?:[^?]*?\bwhich\s+of\s+(?:the\s+two|these|those|them|both)\b"
    r"|\s+(?:more|less)\s+(?:often|frequently|commonly)\b)",
    re.IGNORECASE,
)
"""Two answers the question names before asking between them ("set to yes or no, *which of the two* comes up more
often?", "call a.client or a.resource *more often*?")."""


def offered(question: str) -> list[str]:
    """The answers a question closes by offering ("... here: struct, union or enum?"), names before asking
    between them (:data:`_TWO_NAMED`) or names as examples of what it asks for, in parentheses ("(America, Asia,
    Europe, ...)"), else none."""
    m = _CHOICES.search(question)
    out = [w for w in re.split(r"\s*,\s*|\s+or\s+", m.group(1)) if w] if m else []
    out += [w for m in _TWO_NAMED.finditer(question) for w in m.groups()]
    for e in _EXAMPLES.finditer(question):
        out += [
            w for w in re.split(r"\s*,\s*", e.group(1)) if w and w.strip(".…") and w.casefold() not in ("etc", "etc.")
        ]
    return out


def fielded_cues(asked: str, named: set[str]) -> list[str]:
    """Cue words that a field of the data is named ("the highest *number*" over ``number="499"`` attributes), said
    neither first (an imperative: "Count the ...") nor before "of" ("the number of ...": a count)."""
    words = st.words(asked.casefold())
    return [
        w
        for i, w in enumerate(words)
        if i and w in CUE_WORDS and w in named and w not in FUNCTION_WORDS and words[i + 1 : i + 2] != ["of"]
    ]


DATA_NAMED_KINDS = frozenset({"json", "jsonl", "table", "yaml"})
"""Structures whose field names the data writes (a JSON member's name, a table's header), no parser's own."""


def value_field_said(asked: str, structs: Any) -> list[str]:
    """``value`` where the question says it (not first, not before "of" or a word of its own) and the data names a
    field so ("the highest WarningLevel *value* listed" over a flag table's ``"value": "3"`` members): a generic
    word the data made a name."""
    named = {f.casefold() for s in structs if s.kind in DATA_NAMED_KINDS for f in s.field_names}
    if "value" not in named:
        return []
    words = [*st.words(asked.casefold()), ""]
    said = any(  # "the RuntimeLibrary value MultiThreadedDebugDLL" states a value: no field said
        i and w in ("value", "values") and words[i + 1] != "of" and (not words[i + 1] or words[i + 1] in STOP)
        for i, w in enumerate(words[:-1])
    )
    return ["value"] if said else []


_ASIDE = re.compile(r"\(([^()]*)\)")
_IDENTIFIER_WORD = re.compile(r"[-_.]\S*|\S*[\d_]\S*")
"""A word of an identifier: a suffix or option (``-only``), or one holding a digit or an underscore."""


def identifier_asides(question: str, phrases: Collection[str]) -> list[tuple[int, int]]:
    """The spans of the question's parenthesized asides that only spell out an identifier, in function words and
    identifiers or ``phrases`` (the key phrases), one identifier at least: "the bare identifier GPL-2.0 *(without
    -only or -or-later)*" says which GPL-2.0 is meant, and its "without" tests nothing; "(not counting dev ones)" and
    "(the feature line itself, not its subfeatures)" are conditions."""
    out = []
    for m in _ASIDE.finditer(question):
        aside = m.group(1)
        for p in sorted(phrases, key=len, reverse=True):
            aside = aside.replace(p, " ")
        words = [w for w in aside.split() if w.strip(",;:").casefold() not in STOP]
        if words and all(_IDENTIFIER_WORD.fullmatch(w.strip(",;:")) for w in words):
            out.append(m.span())
    return out
