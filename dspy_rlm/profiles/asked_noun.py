"""The noun a question asks for ("*what permission mode* are the socket directories created with?", "*what command-line
options* does the UCF variable include?"), and the doubt of a field read that names none of it: the record the key
phrase names is the right one, but its value (the directory, the whole command) is not what is asked of it. A
field, key or line that says the noun (``socket_mode``, a comment "permission mode of ..."), a synonym of it, or a
noun that asks for no particular sort of value ("what *value*", "what *setting*") leaves the read vouched, and so
does a noun the text says anywhere (a keymap's header "named *keycodes*": "what keycode is assigned to <LVL3>?"
asks for the sort of value the file holds), and so does an identifier the question writes for the record ("what
*object* does the mlx_lm.dwq script point to?"): the noun says the sort of its value, where no name says it.
"Which X" is left alone: it names the sort of record asked for as often as a sort of value."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.field_words import ANY_VALUE_NOUNS, SYNONYMS
from dspy_rlm.profiles.reads import camel_parts
from dspy_rlm.profiles.said import asks_start
from dspy_rlm.profiles.spellings import american
from dspy_rlm.profiles.vocabulary import ENGLISH, FUNCTION_WORDS, ID_LIKE, STOP

_WH_NOUN = re.compile(
    r"(?:^|[,:;(]\s*|\b(?:and|but|then|so)\s+)what\s+((?:[A-Za-z][\w-]*\s+){0,2}?[A-Za-z][\w-]*)\s+"
    r"(?:is|are|was|were|does|do|did|will|would|can|could|should|gets?|got|has|have|had)\b",
    re.IGNORECASE,
)
"""A "what", up to three words and the verb after them, opening a clause: those words are the noun asked."""
_VALUE_READS = frozenset({"field"})


def asked_noun(question: str) -> list[str]:
    """The words of the noun the question asks for ("what *permission mode* are ..."), less stop words and nouns
    that ask for any value ("what *default* port": ``port``); empty where the question names none ("what is
    ...", "which of them ...", "what value ...")."""
    m = _WH_NOUN.search(question)
    if m is None:
        return []
    said = m.group(1).split()
    if any(w.casefold() in FUNCTION_WORDS or w.casefold() in ENGLISH for w in said):
        return []
    return [w for w in said if w.casefold() not in STOP and w.casefold() not in ANY_VALUE_NOUNS]


_SYNONYM_STEMS = tuple(frozenset(st.stem(w) for w in group) for group in SYNONYMS)


def _stems(text: str) -> set[str]:
    """The stems of a name's or a phrase's words, its synonyms' too (``ui_name``: ``ui``, ``name``)."""
    out = {st.stem(w.casefold()) for w in camel_parts(text)}
    for group in _SYNONYM_STEMS:
        if out & group:
            out |= group
    return out


def _alike(words: set[str], parts: set[str]) -> bool:
    """Whether a word is a part, abbreviates one or is one's word run together (``dir``: directory, ``max``:
    maximum; ``link``: linkname)."""
    return bool(words & parts) or any(
        len(a) >= 3 and a.isalpha() and b.startswith(a) for w in words for p in parts for a, b in ((p, w), (w, p))
    )


def _says(word: str, part: str) -> bool:
    """Whether a part of a name says a word: it is the word, starts with it (``datefmt``: date), shortens it
    (``dir``), or ends with a shortening of it (``datefmt``: ``fmt``, its letters in order from its first)."""
    if st.stem(part) == st.stem(word) or part.startswith(word) or (len(part) >= 3 and word.startswith(part)):
        return True
    return any(_shortens(part[-k:], word) for k in range(3, min(len(part), len(word) - 1) + 1))


def _shortens(short: str, word: str) -> bool:
    letters = iter(word)
    return short[0] == word[0] and all(c in letters for c in short)


def says_whole(noun: list[str], name: str) -> bool:
    """Whether a field's name says every word of a noun of two or more (``datefmt``: "date format")."""
    words = [w.casefold() for w in noun]
    parts = [p.casefold() for p in camel_parts(name)]
    return len(words) >= 2 and all(any(_says(w, p) for p in parts) for w in words)


def _better_named(noun: list[str], field: str, fields: tuple[str, ...]) -> str | None:
    """A field of the data whose name says every word of the noun asked where the field read does not ("what
    *date format* does the formatter used by the console handler have?": ``datefmt``, not ``formatter``)."""
    if says_whole(noun, field):
        return None
    return next((f for f in fields if f != field and says_whole(noun, f)), None)


def _said_in(book: Any, var: str, text: str, stems: set[str]) -> bool:
    """Whether the text says a word of the noun anywhere (a header's "named *keycodes*"): the file speaks of that
    sort of value, which a record's value may well be."""
    memo = ("noun said", var, frozenset(stems))
    if memo not in book.memo:
        folded = text.casefold()
        book.memo[memo] = any(re.search(rf"(?<![^\W\d_]){re.escape(w)}", folded) for w in stems)
    return bool(book.memo[memo])


def asked_unnamed(book: Any, move: Any, kind: Any, key: Any, text: str) -> str | None:
    """A doubt of a value read (:data:`~dspy_rlm.profiles.doubts.DOUBTS`): the question asks for a sort of value
    (its :func:`asked_noun`) that neither the field read, the record's key, the key phrase nor the record's lines
    say."""
    if move.kind not in _VALUE_READS or key is None:
        return None
    noun = asked_noun(book.text_q)
    if not noun:
        return None
    stems = {st.stem(american(w.casefold())) for w in noun}  # "colour": the field color names it
    if asks_start(book.text_q):  # "what token does X start with?"
        return None
    if not key.hop and ID_LIKE.search(key.text):  # an identifier the question writes ("what object does the
        return None  # mlx_lm.dwq script point to?"): the noun says the sort of its value, which no name may say
    field = str(move.args[1]) if len(move.args) > 1 else ""
    record = lookup._best("record_of", text, key.text, field or None)
    if not isinstance(record, st.Record):
        return None
    fields = book.structs[move.var].field_names
    if better := _better_named(noun, field, fields):  # the record holds it, or the value names one that does
        lacks = "the record read lacks" if record.get(better) is None else "not the one read"
        return f"the question asks for its {' '.join(noun)!r}, a field ({better}) {lacks}"
    own = _stems(field)
    said_q = {st.stem(w.casefold()) for w in camel_parts(book.text_q)}
    own_value = _alike(own, _stems(key.text)) or st.name_form(field) == st.name_form(record.key or "")
    if not key.hop and not own_value and _alike(own, said_q):
        return None  # the question names the record and the field apart ("what namespace is fixed for the
    # xmlns attribute of box?"): the noun says what sort of value the field holds
    said = own | _stems(key.text) | _stems(record.key or "") | _stems(" ".join(st.words(record.text[:2000])))
    if _alike(stems, said) or _said_in(book, move.var, text, stems):
        return None
    return f"the question asks for its {' '.join(noun)!r}, which neither the field read nor its record names"
