"""Submit candidates of the small policy's grounded moves: values a read produced, typed for the output, each
knowing whether the run's reads support it.

:func:`typed` turns what the reads produced into values of an output's type (numbers as printed, normalized
for ``int``; booleans; ``Literal`` options; ``list[str]``; whole text values and their names without a
bracketed tail). :func:`judge` rules on a submitted value the moves did not offer (a SUBMIT off the grammar):
it stands only when a read produced the same value with support.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args, get_origin

__all__ = ["FLOAT_RX", "INT_RX", "Candidate", "judge", "key_and_value", "typed"]

MAX_VALUE_CHARS = 160
INT_RX = re.compile(r"[-+]?\d{1,3}(?:,\d{3})+|[-+]?\d+")
FLOAT_RX = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")
_HEX = re.compile(r"0[xX][0-9a-fA-F]+")
_LONE_NUMBER = re.compile(r"(?<![\w.,/:-])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w/:-]|[.,]\d)")
"""A number standing alone in a text (not part of a name, a version, a path or a date)."""
_IN_TEXT = "the one number a longer value states"
_SLASH_UNIT = re.compile(r"([-+]?\d+)/[A-Za-z][\w-]*")
_BRACKETED_TAIL = re.compile(r"\s*(?:<[^<>]*>|\([^()]*\)|\[[^\[\]]*\])\s*$")


@dataclass(frozen=True)
class Candidate:
    """A value a read produced, as the submit moves offer it."""

    value: Any
    label: str  # said before the value: "The {label} is {value}."
    supported: bool
    why: str  # what supports it, or what is missing


_ONE_ITEM = re.compile(r"""\[\s*(['"])([^'"\n]+)\1\s*,?\s*\]""")
"""A list literal of one quoted item."""
_ONE_PAIR = re.compile(r"""\{\s*(['"])[\w-]+\1\s*:\s*(['"])([^'"\n]+)\2\s*,?\s*\}""")
"""A mapping literal of one quoted name and its quoted value: ``{"class": "fsspec.implementations.local.X"}``."""
_ONE_BULLET = re.compile(r"[-*+]\s+(\S[^\n]*)")
"""A list of one bulleted item (a changelog section's one change: ``- Typo fixed in the dependency spec``)."""


_ASKS_DATE = re.compile(r"\b(?:what|which)\s+(?:date|day)\b(?!\s+formats?\b)", re.IGNORECASE)
"""A question asking a date ("on what date was 1.0 released?"; a "date format" is no date)."""
_DATE_SHAPE = re.compile(
    r"(?:1[89]|2\d)\d\d|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\b(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul"
    r"|aug|sep|oct|nov|dec)[a-z]*\b",
    re.IGNORECASE,
)
"""A value that can be a date: a year, d/m/y digits, a month's or a weekday's name."""


def asks_date(question: str) -> bool:
    """Whether the question asks a date: a text answer with no date's shape (``5.0.0``) is then no answer."""
    return _ASKS_DATE.search(question) is not None


def typed(
    annotation: Any,
    cands: list[Candidate],
    asks_name: bool = False,
    asks_number: bool = False,
    asks_date: bool = False,
) -> list[Candidate]:
    """The candidates as values of the output's type (numbers parsed, booleans, literals, lists).

    A text value with a bracketed tail (``Craig Small <csmall@debian.org>``) is offered whole and as its name;
    when the question asks for a name (``asks_name``) and the tail is an address, the name alone is the supported
    one, else the whole (a qualifier such as ``Samoa (American)`` belongs to the name). Where the question asks a
    number (``asks_number``: "which port number"), a number with a unit after a slash (``22/tcp``) is offered as
    its number, supported, and whole.
    """
    if annotation is bool:
        said = {c.value for c in cands if isinstance(c.value, bool) and c.supported}
        if not cands:
            return []
        return [
            Candidate(v, "answer", v in said, "the existence check printed it" if v in said else "not checked")
            for v in (True, False)
        ]
    if get_origin(annotation) is Literal:
        opts = list(get_args(annotation))
        heard = {str(c.value).casefold() for c in cands if c.supported}
        return [Candidate(o, "answer", str(o).casefold() in heard, "read") for o in opts] if cands else []
    out: list[Candidate] = []
    lone_numbers: list[Candidate] = []
    for c in cands:
        if isinstance(c.value, bool):
            continue
        if annotation in (int, float):
            number = _number(str(c.value).strip(), INT_RX if annotation is int else FLOAT_RX)
            if number is None and annotation is int and _HEX.fullmatch(str(c.value).strip()):  # 0x03d1: 977
                number = str(int(str(c.value).strip(), 16))
            if number is not None:
                out.append(Candidate(int(number) if annotation is int else float(number), c.label, c.supported, c.why))
            elif len(lone := _LONE_NUMBER.findall(str(c.value))) == 1:  # "... the default port 1099 is used.": a
                value = lone[0].replace(",", "")  # sentence's one number, a guess (the int grammar's was 19 digits)
                if annotation is float or "." not in value:  # offered after every value read whole
                    number_value = int(value) if annotation is int else float(value)
                    lone_numbers.append(Candidate(number_value, c.label, False, _IN_TEXT))
        elif get_origin(annotation) is list:
            out.append(Candidate([str(c.value)], c.label, c.supported, c.why))
        else:
            text = str(c.value).strip()
            if text and "\n" not in text and len(text) <= MAX_VALUE_CHARS:
                unit = _SLASH_UNIT.fullmatch(text) if asks_number else None
                if unit:  # "22/tcp" for "which port number": the number is asked, its protocol is not
                    out.append(Candidate(unit.group(1), c.label, c.supported, c.why))
                    out.append(Candidate(text, c.label, False, "the question asks the number"))
                    continue
                one = _ONE_ITEM.fullmatch(text)
                pair = _ONE_PAIR.fullmatch(text)
                bullet = _ONE_BULLET.fullmatch(text)
                if one or pair or bullet:  # "['<Alt>F4']" (a GSettings default, a JSON array), '{"class": "a.B"}',
                    # "- Typo fixed": its one item or value is the value
                    inner = one.group(2) if one else pair.group(3) if pair else bullet.group(1) if bullet else ""
                    out.append(Candidate(inner, c.label, c.supported, c.why))
                    out.append(Candidate(text, c.label, False, "its one item is the value"))
                    continue
                short = _BRACKETED_TAIL.sub("", text)  # "Craig Small <csmall@debian.org>" -> "Craig Small"
                if not short or short == text:
                    out.append(Candidate(text, c.label, c.supported, c.why))
                    continue
                # an address after a name is not part of it; a bracketed qualifier ("Samoa (American)") is
                address = any(m in text[len(short) :] for m in ("@", "://", "<"))
                whole, named = (c.supported and not (asks_name and address)), (c.supported and asks_name and address)
                out.append(Candidate(text, c.label, whole, c.why if whole else "the question asks for the name"))
                out.append(Candidate(short, f"{c.label} name", named, c.why if named else "the whole value is asked"))
    if asks_date and annotation is str:  # "on what date ...?": 5.0.0 is no date
        dated = [_DATE_SHAPE.search(str(d.value)) is not None for d in out]
        undated = "a date is asked"
        out = [d if ok else replace(d, supported=False, why=undated) for d, ok in zip(out, dated, strict=True)]
    for n in lone_numbers:  # a sentence's 3 beside a read 3 ("Warning Level 3"): offered once
        if all(n.value != d.value for d in out):
            out.append(n)
    return out


def _number(text: str, rx: re.Pattern[str]) -> str | None:
    """A number as printed: alone, or leading a unit (``163/tcp``, ``12 MB``); separators dropped."""
    m = rx.match(text)
    if m is None or (m.end() < len(text) and text[m.end()] not in " /\t"):
        return None
    return m.group().replace(",", "")


def judge(
    value: Any,
    annotation: Any,
    cands: list[Candidate],
    asks_name: bool = False,
    asks_number: bool = False,
    asks_date: bool = False,
) -> Candidate:
    """A submitted value the moves did not offer: supported only when a read produced the same value (typed
    for the output, text compared without case or spacing) with support."""
    same = [c for c in typed(annotation, cands, asks_name, asks_number, asks_date) if _same(c.value, value)]
    backed = next((c for c in same if c.supported), None)
    if backed is not None:
        return backed
    why = "a read printed it, unsupported" if same else "no read produced it"
    return Candidate(value, "answer", False, f"a SUBMIT the grounded moves did not offer; {why}")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return " ".join(a.casefold().split()) == " ".join(b.casefold().split())
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


def key_and_value(result: Any, label: str, ok: bool, why: str, answer_type: Any) -> list[Candidate]:
    """A ranking's two answers, its record's key and its ranked value (``label``): the one the answer type asks
    (a number: the value) supported where the ranking is."""
    number = answer_type in (int, float)
    return [Candidate(result[0], "key", ok and not number, why), Candidate(result[1], label, ok and number, why)]
