"""How a question spells a field's name another way (:func:`field_forms`, :func:`spelled_by`): a name cut short,
its words' short forms joined (``builddir``: "build directory", ``msgctxt``: "message context"), a word with one
letter left out, added or changed."""

from __future__ import annotations

import re
from collections.abc import Iterable

from dspy_rlm.library import structure as st
from dspy_rlm.profiles.reads import field_stems, joined_name, parts

__all__ = ["american", "field_forms", "respelled", "spelled_by", "spells_field"]


def field_forms(words: list[str], fields: set[str], said: list[str] | None = None) -> set[str]:
    """The stems of the data's field names that words of the question write another way: a lower-case name of
    four or more letters that starts a word at least three letters longer ("desc" of "description", "addr" of
    "address"), a name that two or three words in a row spell joined ("sepal width": ``sepalwidth``, "ship via":
    ``ship_via``; also marked ``+sepalwidth``, which names it better than a field named by one of the words), and a
    part of six letters or more that a word of six or more spells with one letter missing, added or changed, its
    first letter kept ("gschema" is no misspelt ``schema``), or the American spelling of a British word ("colour":
    ``color``).
    The joined names are looked for in ``said`` (all the question's words, stop words too: "link name" spells
    ``linkname``) where given."""
    short = {f for f in fields if f.isalpha() and f.islower() and len(f) >= 4}
    out = {st.stem(f) for w in words for f in short if len(w) >= len(f) + 3 and w.casefold().startswith(f)}
    glued = {joined_name(f): f for f in fields if len(f) >= 5}
    by_start: dict[str, list[str]] = {}  # a name cut short starts with its first word's first letter
    for g in glued:
        by_start.setdefault(g[:1], []).append(g)
    run = said if said is not None else words
    for n in (2, 3):
        for i in range(len(run) - n + 1):
            said_run = [w.casefold() for w in run[i : i + n]]
            name = glued.get("".join(said_run))
            if name is None:  # "build directory": BUILDDIR, "rails environment": RAILS_ENV
                name = next((glued[g] for g in by_start.get(said_run[0][:1], []) if _abbreviated(g, said_run)), None)
            if name is not None and not any(st.stem(w) in field_stems(name) for w in run[i : i + n]):
                out |= {st.stem(name), "+" + joined_name(name)}
    all_parts = {p.casefold() for f in fields for p in parts(f)}
    out |= {st.stem(a) for w in words if (a := american(w.casefold())) != w.casefold() and a in all_parts}
    long_parts = {p.casefold() for f in fields for p in parts(f) if len(p) >= 6}
    for w in (w.casefold() for w in words if len(w) >= 6 and w.casefold() not in long_parts):
        near = _deletes(w) | {w}  # one letter left out, added or changed ("descripton": Description)
        out |= {st.stem(p) for p in long_parts if p[0] == w[0] and (p in near or _deletes(p) & near)}
    return out


_BRITISH = ((r"(?<=\w\w)our$", "or"), (r"(?<=\w\w[^aeiou])re$", "er"), (r"(?<=\w\w)ogue$", "og"))
"""British endings and their American spellings: colour, behaviour; centre, metre; catalogue, dialogue."""


def american(word: str) -> str:
    """``word`` in American spelling ("colour": color, "centre": center), else as it is."""
    for rx, to in _BRITISH:
        if re.search(rx, word):
            return re.sub(rx, to, word)
    return word


def spelled_by(name: str, words: list[str]) -> bool:
    """Whether two or three words in a row spell a field's name joined, whole or cut short ("build directory":
    ``BUILDDIR``)."""
    glued = joined_name(name)
    runs = ([w.casefold() for w in words[i : i + n]] for n in (2, 3) for i in range(len(words) - n + 1))
    return any("".join(run) == glued or _abbreviated(glued, run) for run in runs)


def _abbreviated(glued: str, words: list[str]) -> bool:
    """Whether a glued name is the words' short forms joined, three letters or more of each: a word's beginning
    (``builddir``: "build directory") or letters of it in order from its first (``msgctxt``: "message context",
    ``stdout``: "standard output"), the last one cut short (a name said whole is found as it is)."""
    w = words[0]
    if len(words) == 1:
        return 3 <= len(glued) < len(w) and _shortens(glued, w)
    return any(_shortens(glued[:k], w) and _abbreviated(glued[k:], words[1:]) for k in range(len(w), 2, -1))


def _shortens(piece: str, word: str) -> bool:
    """Whether ``piece`` is ``word``'s letters in order from its first (``msg`` of "message", ``dir`` too)."""
    if not piece or piece[0] != word[:1]:
        return False
    rest = iter(word)
    return all(c in rest for c in piece)


def _deletes(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def spells_field(record: st.Record, phrase: str, question: str) -> bool:
    """Whether a word of the question beside ``phrase`` and it spell a field of the record ("build *directory*":
    ``BUILDDIR``): the phrase names the field read, not another record."""
    words = st.words(question.casefold())
    p = phrase.casefold()
    if p not in words:
        return False
    i = words.index(p)
    return any(spelled_by(f, words[max(0, i - 2) : i + 3]) for f, _ in record.fields)


def _swaps(word: str) -> set[str]:
    """``word`` with two neighbouring letters swapped, each way it can be ("count": "ocunt", "cuont", "coutn")."""
    return {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)} - {word}


def respelled(text: str, vocabulary: Iterable[str], data: Iterable[str] = ()) -> str:
    """``text`` with each word that is a word of ``vocabulary`` (five letters or more) with two neighbouring
    letters swapped written right ("coutn the hosts", "used most oftne"), unless a text of ``data`` holds that
    word as it is (a value spelled so is no typo)."""
    typos = {t: w for w in vocabulary if len(w) >= 5 and w.isalpha() for t in _swaps(w.casefold())}
    found = {m.group() for m in re.finditer(r"[A-Za-z]{5,}", text) if m.group().casefold() in typos}
    if not found:
        return text
    texts = [d for d in data if isinstance(d, str)]
    kept = {w for w in found if any(re.search(rf"(?<![A-Za-z]){w}(?![A-Za-z])", t, re.I) for t in texts)}
    fixed = {w: typos[w.casefold()] for w in found - kept}
    return re.sub(r"[A-Za-z]{5,}", lambda m: fixed.get(m.group(), m.group()), text) if fixed else text
