"""Guided code for small models: the action step's ``code`` held, per step, to grounded moves.

A 135M model given a free (even a syntax-constrained) code field copies a demo's answer, submits a word of
the question, or searches for "What". Under the small profile's ``guided_code`` the ``code`` field is held,
at each step, to a regex built from what the run has seen so far:

* ``print(search(VAR, 'WORD'))`` / ``print(count_matches(VAR, 'WORD'))`` -- ``VAR`` a data input, ``WORD`` a
  word of the question that occurs in the data (1 to :data:`MAX_TERM_HITS` times: a word on every line finds
  nothing useful) and was not searched for yet in this run (the same search prints the same lines); once
  a search printed what an earlier one did, no more searches while a value can be submitted;
* ``SUBMIT(field='VALUE', ...)`` -- each ``VALUE`` a token printed by the REPL in this run (numbers unquoted
  for ``int`` / ``float`` fields) that is rare in the data (at most :data:`MAX_VALUE_HITS` times: a date or
  field name on every line is not an answer), never a word of the question. No SUBMIT before anything was
  printed.

The model still chooses the word and the value -- grammar-level grounding, not an answer key: the grammar
offers every candidate alike. A signature whose outputs are not all ``str`` / ``int`` / ``float`` keeps the
static code pattern (:data:`dspy_rlm.profiles.small.CODE_PATTERN`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = [
    "MAX_TERM_HITS",
    "MAX_VALUE_HITS",
    "count_hits",
    "focus_pairs",
    "guided_output_pattern",
    "output_values",
    "question_words",
    "search_exhausted",
    "search_terms",
    "searched_terms",
    "stated_pairs",
    "supports",
]

MAX_TERM_HITS = 20
"""A question word found more often than this in the data is not offered as a search term."""
MAX_VALUE_HITS = 3
"""A printed token found more often than this in the data is not offered as a value (a lookup's answer is a
rare token: a date or a field name on every line is not), unless it is all an execution printed."""
MAX_VALUES = 80
"""At most this many distinct printed tokens (the most recent first) are considered as SUBMIT values."""

# A token: letters/digits joined by the characters IDs, codes, dates and numbers use. None of these needs
# escaping inside a JSON string or a single-quoted Python string.
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/@+-]*[A-Za-z0-9]|[0-9]")
_LINE_PREFIX = re.compile(r"^(?:\[[^\]]*\] )?line \d+: ", re.MULTILINE)  # the 'line N: ' rows of search()
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_MIN_TERM = 3


def supports(signature: Any) -> bool:
    """Whether every output field of ``signature`` can take a printed token (``str``, ``int``, ``float``)."""
    return all(f.annotation in (str, int, float) for f in signature.output_fields.values())


def _escape(token: str) -> str:
    return re.sub(r"([.+])", r"\\\1", token)


def _alternation(tokens: Iterable[str]) -> str:
    return "(" + "|".join(_escape(t) for t in tokens) + ")"


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


def search_terms(question: dict[str, str], data: dict[str, Any]) -> list[str]:
    """The words of the question inputs worth searching for: each found in the text data 1 to
    :data:`MAX_TERM_HITS` times (all question words when no data input is text).

    Args:
        question: The short text inputs that state the task.
        data: The inputs that hold data.
    """
    words = question_words(question)
    texts = [v for v in data.values() if isinstance(v, str)]
    if not texts:
        return words
    rare = [w for w in words if 0 < count_hits(w, texts, MAX_TERM_HITS) <= MAX_TERM_HITS]
    return rare or [w for w in words if any(w in t for t in texts)] or words


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
            tokens = [t.rstrip(".:") for t in _TOKEN.findall(line)]
            for i, word in enumerate(tokens):
                if word.casefold() not in asked:
                    continue
                value = next((t for t in tokens[i + 1 :] if t in candidates), None)
                if value is not None and (word, value) not in pairs:
                    pairs.append((word, value))
    return pairs[:MAX_VALUES]


_SEARCHED = re.compile(r"(?:search|count_matches)\(\w+, '([^']*)'\)")


def searched_terms(codes: Iterable[str]) -> set[str]:
    """The words already searched for (or counted) in ``codes``: the same search prints the same lines."""
    return {term for code in codes for term in _SEARCHED.findall(code)}


def search_exhausted(stdouts: list[str]) -> bool:
    """Whether the last output repeats an earlier one: another search would print the same lines again, so the
    next step may only SUBMIT what was read (when anything can be submitted)."""
    return len(stdouts) >= 2 and bool(stdouts[-1].strip()) and stdouts[-1] in stdouts[:-1]


_FUNCTION_WORDS = frozenset(
    [
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "where",
        "when",
        "why",
        "how",
        "the",
        "does",
        "did",
        "was",
        "were",
        "are",
        "is",
        "isn",
        "for",
        "and",
        "with",
        "from",
        "that",
        "this",
        "these",
        "those",
        "have",
        "has",
        "had",
        "give",
        "tell",
        "find",
        "into",
        "onto",
        "about",
        "than",
        "then",
        "there",
        "their",
        "they",
        "them",
        "its",
    ]
)
"""English function words: never a search word nor the key of a stated value."""
FUNCTION_WORDS = _FUNCTION_WORDS


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


def _submit_moves(signature: Any, pairs: list[tuple[str, str]], values: list[str]) -> list[str]:
    """``The WORD is V.`` tied to ``SUBMIT(first='V', ...)``: one alternative per stated pair (or, with none,
    ``The answer is V.`` per value) for the first output field; further fields take any candidate."""
    fields = list(signature.output_fields.items())

    def fits(field: Any, value: str) -> bool:
        return field.annotation is str or (
            bool(_NUMBER.fullmatch(value)) and (field.annotation is float or "." not in value)
        )

    def literal(field: Any, value: str) -> str:
        return f"'{_escape(value)}'" if field.annotation is str else _escape(value)

    rest = []
    for name, field in fields[1:]:
        options = [literal(field, v) for v in values if fits(field, v)]
        if not options:
            return []
        rest.append(f", {name}=({'|'.join(options)})")
    first, field = fields[0]
    said = [(f"The {_escape(w)} is", v) for w, v in pairs if fits(field, v)] or [
        ("The answer is", v) for v in values if fits(field, v)
    ]
    return [f"{lead} {_escape(v)}\\.{_SEP}SUBMIT\\({first}={literal(field, v)}{''.join(rest)}\\)" for lead, v in said]


_SEP = '", "code": "'


def guided_output_pattern(
    signature: Any, data_names: list[str], terms: list[str], values: list[str], pairs: list[tuple[str, str]]
) -> str:
    """The regex over the action's whole JSON object ``{"reasoning": ..., "code": ...}`` this step.

    Each move ties the reasoning to the code: ``I will search for 'T'.`` with ``print(search(VAR, 'T'))``
    (or ``count``/``count_matches``), ``The WORD is V.`` with ``SUBMIT(field='V')``; with no term left and
    nothing printed, ``I will look at the data.`` with ``print(peek(VAR, 0, 2000))``.

    Args:
        signature: The RLM's task signature (its output fields and their types).
        data_names: The REPL variables holding data (searched by name).
        terms: Search words not searched yet (:func:`search_terms` less :func:`searched_terms`).
        values: Printed tokens that may be submitted (:func:`output_values`).
        pairs: ``(word of the question, value)`` as printed (:func:`stated_pairs`): the SUBMIT moves.
    """
    var = _alternation(data_names or list(signature.input_fields))
    moves = []
    for term in terms:
        t = _escape(term)
        moves.append(f"I will search for '{t}'\\.{_SEP}print\\(search\\({var}, '{t}'\\)\\)")
        moves.append(f"I will count '{t}'\\.{_SEP}print\\(count_matches\\({var}, '{t}'\\)\\)")
    moves += _submit_moves(signature, pairs, values)
    if not moves:  # nothing to search and nothing printed yet: look at the data
        moves.append(f"I will look at the data\\.{_SEP}print\\(peek\\({var}, 0, 2000\\)\\)")
    return '\\{"reasoning": "(' + "|".join(moves) + ')"\\}'
