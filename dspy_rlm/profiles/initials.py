"""What an acronym stands for: where the question asks it (:data:`~dspy_rlm.profiles.vocabulary.STANDS_FOR`:
"What does CITGM stand for?") of a key phrase written as an acronym, the words of a read's value whose initials
(or capitals: "Electronic PUBlication") spell it are the answer, not the whole definition that starts with them
("Canary In The Gold Mine - A smoke test that ...")."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.vocabulary import STANDS_FOR

__all__ = ["expand_initials", "spelled_run"]

_ACRONYM = re.compile(r"[A-Za-z][A-Za-z0-9&]{1,11}")
_WORD = re.compile(r"[A-Za-z][\w'-]*")
_SKIPPED = frozenset({"of", "the", "and", "for", "a", "an", "in", "on", "to", "with", "by", "at"})
"""Small words an expansion may carry that its acronym leaves out ("Institute *of* Electrical ...")."""
SPELLED = "the words whose initials spell the key"


def _letters(acronym: str) -> list[str]:
    if not _ACRONYM.fullmatch(acronym) or sum(c.isupper() for c in acronym) < 2:
        return []
    return [c.upper() for c in acronym if c.isalpha()]


def _spell(word: str, letters: list[str], j: int) -> int:
    """How far ``word`` spells ``letters`` from ``j``: its initial, then any capitals inside it that go on."""
    if word[0].upper() != letters[j]:
        return j
    j += 1
    for ch in word[1:]:
        if j < len(letters) and ch.isupper() and ch == letters[j]:
            j += 1
    return j


def spelled_run(acronym: str, text: str) -> str | None:
    """The first run of two words or more in ``text`` whose initials (and inner capitals) spell ``acronym``,
    small words between them allowed; the acronym's own word is none of them."""
    letters = _letters(acronym)
    if not letters:
        return None
    words = list(_WORD.finditer(text))
    for i in range(len(words)):
        j, k, end, used = 0, i, 0, 0
        while k < len(words) and j < len(letters) and k - i <= len(letters) + 3:
            w = words[k].group()
            if w.casefold() == acronym.casefold():
                break
            n = _spell(w, letters, j)
            if n > j:
                j, end, used = n, words[k].end(), used + 1
            elif k == i or w.casefold() not in _SKIPPED:
                break
            k += 1
        if j == len(letters) and used >= 2:
            return text[words[i].start() : end]
    return None


def expand_initials(book: Any, key: Any, found: list[Candidate]) -> list[Candidate]:
    """Where the question asks what the acronym ``key`` stands for, each string value of a read by it holding a run
    that spells it gives that run first, vouched for as the value was, or, for three letters or more, whatever
    field it is in (an ``expanded-acronym`` field the question does not name); the longer value is then no
    answer."""
    if key is None or not found or not STANDS_FOR.search(book.text_q) or not _letters(key.text):
        return found
    long = len(_letters(key.text)) >= 3  # three letters or more: no run of words spells them by chance
    runs, rest = [], []
    for c in found:
        run = spelled_run(key.text, c.value) if isinstance(c.value, str) else None
        if run is None:
            rest.append(c)
            continue
        # a part of a supported value keeps its class; one that only the spelling supports has a class of its own
        runs.append(Candidate(run, c.label, c.supported or long, c.why if c.supported or not long else SPELLED))
        if run != c.value.strip():  # a definition that starts with the expansion
            rest.append(Candidate(c.value, c.label, False, "the question asks what the initials stand for"))
    return runs + rest
