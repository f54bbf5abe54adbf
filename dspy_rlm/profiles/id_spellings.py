"""How a text spells an identifier the question writes otherwise: its runs of letters and digits joined by
another mark or none (:func:`spelled_as`: ``quiet_lagoon`` for "quiet-lagoon", ``INC4821`` for "INC-4821"), a
version cut short (:func:`near_spelled`), or a qualified name's end written alone (:func:`unqualified`:
``SERVICE_UNAVAILABLE`` for "HTTPStatus.SERVICE_UNAVAILABLE"). Split from :mod:`~dspy_rlm.profiles.phrases`."""

from __future__ import annotations

import re
from itertools import islice, pairwise

from dspy_rlm.library import textkit
from dspy_rlm.profiles.vocabulary import ID_LIKE

__all__ = ["WRITTEN_ID", "code_name", "id_parts", "near_spelled", "spelled_as", "unqualified"]

WRITTEN_ID = re.compile(r"(?<![\w./-])[A-Za-z]\w*(?:[-_.]\w+)+(?![\w/-])")
"""An identifier as a question writes it in its words: letters first, parts joined by ``-``, ``_`` or ``.``
(``dpkg-parsechangelog``, ``max_children``, ``np.float32``), no part of a path."""


def code_name(phrase: str) -> bool:
    """Whether ``phrase`` is written as a code name: snake_case or dotted, no hyphen (a hyphenated name is as
    often a package's, naming the document: "the maven-resolver 1.6.3 POM")."""
    return "-" not in phrase and WRITTEN_ID.fullmatch(phrase) is not None


_ID_PARTS = re.compile(r"[^\W\d_]+|\d+")  # an identifier's runs of letters and of digits
_JOIN = r"[-_. ]?"  # how else its parts may be joined: another mark, a space, nothing (not "/" or "+": base64)


def id_parts(word: str) -> list[str]:
    """An identifier's runs of letters and of digits: ``quiet-lagoon`` and ``quiet_lagoon`` have the same."""
    return _ID_PARTS.findall(word)


def _edge(part: str, before: bool, long: bool = False) -> str:
    """A boundary that keeps a part whole: no digit beside a run of digits, no letter or digit beside a run of
    letters, no "/" or "+" (inside base64, any short identifier is spelled somewhere) -- but a path's "/" before
    an identifier of five letters or more (``/dev/cdrom`` for "CD-ROM")."""
    cls = r"[\d/+]" if part[0].isdigit() else r"[^\W_]|[/+]"  # v3.11 is 3.11; x3 in a blob is no X3
    cls = cls.replace("/", "") if long and before else cls
    return rf"(?<!{cls})" if before else rf"(?!{cls})"


def unqualified(folded: str, word: str) -> str | None:
    """The end of a qualified name that a text holds where it lacks the whole (``SERVICE_UNAVAILABLE`` for
    ``HTTPStatus.SERVICE_UNAVAILABLE``: a class body names its members unqualified); ``folded`` is the text
    casefolded. Names only: every part opens with a letter (``3.9.0`` is no qualified name), and the end is an
    identifier of three characters or more, or capitalized."""
    parts = word.split(".")
    if len(parts) < 2 or not all(re.match(r"[^\W\d]", p) for p in parts):
        return None
    for i in range(1, len(parts)):
        end = ".".join(parts[i:])
        if len(end) >= 3 and (ID_LIKE.search(end) or end[0].isupper()) and end.casefold() in folded:
            return end
    return None


def spelled_as(text: str, word: str, cut: bool = False) -> str | None:
    """How ``text`` spells an identifier it does not hold as written: its parts joined otherwise (``quiet_lagoon``
    or ``quiet lagoon`` for ``quiet-lagoon``, ``INC4821`` for ``INC-4821``); with ``cut``, also a dotted version
    cut short (``3.11`` for ``3.11.2``). ``None`` where it is not there."""
    parts = id_parts(word)
    if len(parts) < 2:
        return None
    shapes = [parts]
    if cut and len(parts) >= 3 and re.fullmatch(r"\d+(?:\.\d+)+", word) and not _sibling_version(text, word):
        shapes.append(parts[:-1])  # a dash-joined date is no version
    low = textkit.lowered(text)
    for shape in shapes:
        body = re.escape(shape[0]) + "".join(
            (r"[-.:_]" if a.isdigit() and b.isdigit() else _JOIN) + re.escape(b) for a, b in pairwise(shape)
        )  # numbers join by one mark: "3, 11" is no spelling of 3.11
        long = sum(len(p) for p in shape) >= 5 and all(p.isalpha() for p in shape)
        rx = re.compile(_edge(shape[0], True, long) + body + _edge(shape[-1], False), re.IGNORECASE)
        found = textkit.find_from_lowered(rx, shape[0], text, low) if low is not None else rx.finditer(text)
        m = next(iter(found), None)
        if m is not None:
            return m.group()
    return None


def _sibling_version(text: str, word: str) -> bool:
    """Whether the text writes another version of the same length and stem as ``word`` (``5.6.0`` for ``5.6.1``): it
    writes its versions whole, so ``5.6`` elsewhere is no ``5.6.1`` cut short."""
    stem = re.escape(word.rsplit(".", 1)[0])
    return re.search(rf"(?<![\w.]){stem}\.\d+(?![\w]|\.\d)", text[:2_000_000]) is not None


def near_spelled(text: str, word: str) -> bool:
    """Whether an identifier absent from ``text`` as written is there spelled another way (:func:`spelled_as`,
    a version cut short included), so its absence says nothing."""
    return spelled_as(text, word, cut=True) is not None or _bare_hex(text, word)


_HEX_PREFIXED = re.compile(r"(?:0x|U\+)([0-9A-F]+)", re.IGNORECASE)  # 0x9F, U+0178: a prefix and hex digits
_HEX_RUN = re.compile(r"\b(?=[0-9A-F]*\d)(?=[0-9A-F]*[A-F])[0-9A-F]{2,}\b", re.IGNORECASE)  # 02DC, 9f


def _bare_hex(text: str, word: str) -> bool:
    """Whether a hex number the question writes with a prefix (``0x9F``, ``U+0178``) is in a text that writes
    its hex numbers without one (a table of ``009F017E0178`` code points): its absence as written says nothing."""
    m = _HEX_PREFIXED.fullmatch(word)
    if m is None:
        return False
    prefix, low = word[: m.start(1)].casefold(), textkit.lowered(text)
    unprefixed = prefix not in (low if low is not None else text.casefold())
    return unprefixed and len(list(islice(_HEX_RUN.finditer(text), 3))) == 3  # three hex runs: a hex text
