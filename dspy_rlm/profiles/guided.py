"""What a small-policy run printed, read as answer candidates: the printed tokens that may be an answer
(:func:`output_values`), the ``(word of the question, value)`` pairs stated key-then-value (:func:`stated_pairs`,
:func:`focus_pairs`) and the question's content words (:func:`question_words`).

The moves themselves (what a step may write) are :mod:`dspy_rlm.profiles.moves`; the words these functions
know are :mod:`dspy_rlm.profiles.vocabulary`. (The first grammar of guided moves, a search-or-submit regex built
here, was superseded by the moves and removed.)
"""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.profiles.vocabulary import FUNCTION_WORDS

__all__ = [
    "FUNCTION_WORDS",
    "MAX_VALUE_HITS",
    "count_hits",
    "focus_pairs",
    "output_values",
    "question_words",
    "stated_pairs",
    "supports",
]

MAX_VALUE_HITS = 3
"""A printed token found more often than this in the data is not offered as a value (a lookup's answer is a
rare token: a date or a field name on every line is not), unless it is all an execution printed."""
MAX_VALUES = 80
"""At most this many distinct printed tokens (the most recent first) are considered as SUBMIT values."""

# A token: letters/digits joined by the characters IDs, codes, dates and numbers use. None of these needs
# escaping inside a JSON string or a single-quoted Python string.
_TOKEN = re.compile(r"(?:(?<![\w-])--?(?=[A-Za-z]))?[A-Za-z0-9][A-Za-z0-9_.:/@+-]*[A-Za-z0-9]|[0-9]")  # "--quiet" whole
_BRACKETS = re.compile(r"[{}\[\]]")
_CLAUSE = re.compile(r"[,;]\s*(?:or|and|but|while|whereas)\b|[.!?]\s+(?=[A-Z])")
"""A new clause or sentence between a word and a value: the value is not the word's."""
_LINE_PREFIX = re.compile(r"^(?:\[[^\]]*\] )?line \d+: ", re.MULTILINE)  # the 'line N: ' rows of search()
_MIN_TERM = 3


def supports(signature: Any) -> bool:
    """Whether every output field of ``signature`` can take a printed token (``str``, ``int``, ``float``)."""
    return all(f.annotation in (str, int, float) for f in signature.output_fields.values())


def count_hits(token: str, texts: list[str], limit: int, cache: dict[str, int] | None = None) -> int:
    """How often ``token`` occurs in ``texts``, counted up to ``limit + 1`` (a common token stops early).

    Args:
        token: The text to count.
        texts: The text data.
        limit: Counting stops after ``limit + 1`` occurrences.
        cache: Counts already taken in this run (the inputs do not change), keyed by token.
    """
    if cache is not None and token in cache:
        return cache[token]
    hits = 0
    for text in texts:
        pos = text.find(token)
        while pos >= 0 and hits <= limit:
            hits += 1
            pos = text.find(token, pos + len(token))
        if hits > limit:
            break
    if cache is not None:
        cache[token] = hits
    return hits


def output_values(
    stdouts: list[str], question: dict[str, str], data: dict[str, Any], cache: dict[str, int] | None = None
) -> list[str]:
    """The tokens the REPL printed in this run that may be an answer, most recent output first.

    Left out: the ``line N:`` prefixes of search rows, words of the question (submitting those only repeats
    the question) and tokens found more than :data:`MAX_VALUE_HITS` times in the text data -- except an
    output that is one token alone (a count, a printed variable).

    Args:
        stdouts: The printed output of each code execution, oldest first.
        question: The short text inputs that state the task.
        data: The inputs that hold data.
        cache: Token counts already taken in this run (:func:`count_hits`).
    """
    asked = {w.casefold() for text in question.values() for w in _TOKEN.findall(text)}
    texts = [v for v in data.values() if isinstance(v, str)]
    seen: list[str] = []
    kept: list[str] = []
    for out in reversed(stdouts):
        tokens = [t.rstrip(".:") for t in _TOKEN.findall(_LINE_PREFIX.sub("", out))]
        alone = len(tokens) == 1
        for token in tokens:
            if not token or token.casefold() in asked or token in seen or len(seen) >= MAX_VALUES:
                continue
            seen.append(token)
            if alone or count_hits(token, texts, MAX_VALUE_HITS, cache) <= MAX_VALUE_HITS:
                kept.append(token)
    return kept


def stated_pairs(stdouts: list[str], question: dict[str, str], values: list[str]) -> list[tuple[str, str]]:
    """``(word, value)`` pairs read in key-then-value order: on a printed line, a word of the question and the
    first answer candidate after it (``token": "X"``, ``incident X``, ``pin = X``, ``name,service,X`` all put
    the key first). Most recent output first, each pair once.

    Args:
        stdouts: The printed output of each code execution, oldest first.
        question: The short text inputs that state the task.
        values: The answer candidates (:func:`output_values`).
    """
    asked = {w.casefold() for w in question_words(question)}
    candidates = set(values)
    pairs: list[tuple[str, str]] = []
    for out in reversed(stdouts):
        for line in _LINE_PREFIX.sub("", out).splitlines():
            found = list(_TOKEN.finditer(line))
            tokens = [t.group().rstrip(".:") for t in found]
            for i, word in enumerate(tokens):
                if word.casefold() not in asked:
                    continue
                j = next((j for j in range(i + 1, len(tokens)) if tokens[j] in candidates), None)
                if j is not None and _BRACKETS.search(line[found[i].end() : found[j].start()]):
                    continue  # 'shape "TALL" { { [ 18,37] }, { [16,36] } }': no value of shape's inside brackets
                if j is None or _CLAUSE.search(line[found[i].end() : found[j].start() + 1]):
                    continue  # "~/.npm on Posix, or %LocalAppData% on Windows": Posix states nothing after it
                if word.startswith("-") and tokens[j].startswith("-"):
                    continue  # "--host --kill-whom --property": a flag after a flag is the next of a list
                if (word, tokens[j]) not in pairs:
                    pairs.append((word, tokens[j]))
    return pairs[:MAX_VALUES]


_FUNCTION_WORDS = FUNCTION_WORDS


def question_words(question: dict[str, str]) -> list[str]:
    """The content words of the question inputs (three characters or more, no function word), in order, once
    each."""
    words: list[str] = []
    for text in question.values():
        for word in _TOKEN.findall(text):
            word = word.rstrip(".:")
            if len(word) >= _MIN_TERM and word.casefold() not in _FUNCTION_WORDS and word not in words:
                words.append(word)
    return words


def focus_pairs(pairs: list[tuple[str, str]], question: dict[str, str]) -> list[tuple[str, str]]:
    """The pairs keyed by the word the question asks for, when any are: its first content word (``Which
    incident ID ...``, ``What token ...``, ``What is the codename ...``) names the value wanted, so a value
    read after another word of the question (``ERROR payment-gateway``) is not offered beside it."""
    words = question_words(question)
    asked = words[0].casefold() if words else None
    focused = [(k, v) for k, v in pairs if k.casefold() == asked]
    return focused or pairs
