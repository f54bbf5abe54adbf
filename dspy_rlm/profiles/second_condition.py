"""A second condition a question states beside the one a count tests ("how many hosts run Debian *in Paris*"):
:func:`other_condition`, which :mod:`~dspy_rlm.profiles.doubts` asks of every count of one condition. Split from
:mod:`~dspy_rlm.profiles.conditions`."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import structure as st
from dspy_rlm.profiles.conditions import flag_field
from dspy_rlm.profiles.named_document import before_document_noun, before_file_name
from dspy_rlm.profiles.phrases import counted_nouns
from dspy_rlm.profiles.reads import field_stems, norm
from dspy_rlm.profiles.spans import container_spans
from dspy_rlm.profiles.vocabulary import ID_LIKE, STOP, WHOLE_SET
from dspy_rlm.profiles.yes_no_words import HAVING

__all__ = ["conditioned_key", "names_data", "other_condition"]


def other_condition(book: Any, var: str, phrase: str, counted: str | None = None) -> str | None:
    """A condition the question states beside the one a count tests (``phrase``, in the field ``counted``):
    another phrase that is a whole value of the data ("how many hosts run Debian *in Paris*"), a flag field it
    names ("how many packages are *essential* and required"), or another field it says the records have ("...
    recommend rope *and have a Homepage*"). A count of one condition is no answer to both."""
    said = norm(phrase)
    nouns = counted_nouns(st.words(book.text_q.casefold()))
    for k in book.keys.get(var, []):
        text = norm(k.text)
        # an identifier before the noun counted qualifies it ("how many *org.example.Job* methods"): a condition
        after = re.search(rf"{re.escape(k.text)}\s+([^\W\d_]+)", book.text_q, re.I) if ID_LIKE.search(k.text) else None
        modifier = after is not None and after.group(1).casefold() in nouns
        other = text not in said and said not in text and text not in WHOLE_SET | STOP | (set() if modifier else nouns)
        # a word right after the phrase names what it is ("members of the BlendMode *enum*"): no second condition
        other = other and not re.search(rf"{re.escape(phrase)}\s+{re.escape(k.text)}\b", book.text_q, re.I)
        # an identifier the data holds, whole or inside its values ("have the SIGNED_RATIONAL type", "refer to
        # #/definitions/commands"), narrows the count too
        identifier = not k.is_value and ID_LIKE.search(k.text) and not names_data(book.text_q, k.text)
        other = other and not before_file_name(book.text_q, k.text)  # "ray's *vsphere* defaults.yaml": which file
        # "the *Continuous Delivery* workflow": the document's own title (its first record's value) before its noun
        other = other and not (before_document_noun(book.text_q, k.text) and _titles(book.structs[var], k.text))
        if (k.is_value or identifier) and k.records and not k.inner and other:
            return k.text
    stems = {st.stem(w) for w in st.words(book.text_q.casefold()) if w not in STOP}
    asked = book.fields.get(var, ())  # a nested field named by its last part ("supporting OCR": endpoints.ocr)
    for f in book.structs[var].field_names[:40]:
        if (
            f != counted  # "set manual_cpp_binding: True": the flag the count tests
            and (field_stems(f) <= stems or f in asked)
            and flag_field(book, var, f)
            and not any(st.stem(w) in field_stems(f) for w in st.words(said))
        ):
            return f
    having = rf"\b(?:{'|'.join(HAVING)})\s+(?:an?\s+|the\s+|any\s+)?({{}})\b"
    return next((f for f in asked if f != counted and re.search(having.format(re.escape(f)), book.text_q, re.I)), None)


_STATE = (
    r"(?:enabled|disabled|set|unset|on|off|turned\s+(?:on|off)|switched\s+(?:on|off)|active|activated|true|false"
    r"|selected|specified|defined|present|given|passed|in\s+effect)"
)
_CONDITION = re.compile(
    rf"\b(?:when|whenever|if|once|while)\s+(?:the\s+|a\s+|an\s+)?([^,;?]{{1,80}}?)\s+(?:is|are|gets|get|has\s+been"
    rf"|have\s+been|was|were)\s+(?:not\s+)?{_STATE}\b",
    re.IGNORECASE,
)
"""A clause stating a setting's state as the question's premise ("when *the fortify hardening feature* is enabled")."""


def conditioned_key(book: Any, move: Any, kind: Any, key: Any, text: str) -> str | None:
    """A doubt (see :data:`~dspy_rlm.profiles.doubts.DOUBTS`): a lookup reads by a phrase the question says only
    inside its premise, a clause stating that setting's state ("what flag gets added to CPPFLAGS *when the fortify
    hardening feature is enabled*?"): the setting's own value (``fortify => 1``) is the premise, not what is asked."""
    if move.kind not in ("record", "field") or key is None or key.hop or book.answer_type is bool:
        return None
    phrase = key.text.casefold()
    clauses = [m.span(1) for m in _CONDITION.finditer(book.text_q)]
    at = [m.start() for m in re.finditer(rf"(?<!\w){re.escape(phrase)}(?!\w)", book.text_q.casefold())]
    if not clauses or not at or not all(any(a <= i < b for a, b in clauses) for i in at):
        return None
    return f"the question says {key.text!r} only in its premise (a state it is in), not as what it asks"


def _titles(s: st.Structure, phrase: str) -> bool:
    """Whether ``phrase`` is a whole value of the text's first record (a workflow's ``name:``, a page's title)."""
    return bool(s.records) and any(norm(v) == norm(phrase) for _, v in s.records[0].fields)


def names_data(question: str, phrase: str) -> bool:
    """Whether ``phrase`` is said of the data as a whole: after a possessive ("harbour's *dist-info* RECORD") or
    inside a phrase naming the data ("in *ray-schema.json*")."""
    at = question.find(phrase)
    if at < 0 or question[:at].rstrip().endswith("'s"):
        return True
    return any(a <= at < b for a, b in container_spans(question))
