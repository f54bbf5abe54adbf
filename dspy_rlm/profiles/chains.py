"""Whether a question asks two steps: a later clause pointing back at what an earlier one finds ("... the setting
X belongs to; how many entries does *that setting* have?"), or another record holding the same value as the one it
names ("what other version has the same date as 5.020?"). Split from :mod:`dspy_rlm.profiles.conditions`; used by
the move book, the doubts and the key-of read."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import structure as st
from dspy_rlm.profiles.vocabulary import HOLDING_VERBS, IMPERATIVES, STOP
from dspy_rlm.profiles.yes_no_words import ASKING

__all__ = ["asks_same", "chained"]


_CLAUSE_END = re.compile(r"[;.?!]\s+(?=\S)")
_THEN = re.compile(  # "take X and give me ...", "look up X, then tell me ..."
    rf"(?:,?\s+and\s+(?:then\s+)?|,\s*then\s+)(?=(?:{'|'.join(sorted(IMPERATIVES))})\b)", re.IGNORECASE
)
_SAME = re.compile(  # "what other version has the same date", "came out on the same day as another revision"
    r"\b(?:other|another)\b[^.?!;]*\b(?:same|identical|shares?|sharing)\b"
    r"|\b(?:same|identical|shares?|sharing)\b[^.?!;]*\b(?:other|another)\b"  # "X shares its value with one other"
    # "which release came out on the same day as 1.2.1?", "which token is painted the same colour the style uses for X?"
    r"|\b(?:which|what)\b[^.?!;]*\bthe\s+same\s+\w+\s+(?:as|that|which|the|this|its)\b",
    re.IGNORECASE,
)
_REFERS = re.compile(  # "that setting", and "the definition it points to" (a noun the earlier clause said)
    r"(?<!\w)(?:(?:that|this|those|these)\s+(\w+)|the\s+(\w+)\s+(?:(?:that|which)\s+)?(?:it|they)\s+[a-z]+)",
    re.IGNORECASE,
)
_ITS_OTHER = re.compile(r"\b(?:its|their)\s+(\w+)\s+(\w+)", re.IGNORECASE)
"""A later clause's "*its input argument*": another of the sort of thing the earlier clause found the record by."""


def _relative(clause: str, m: re.Match[str], earlier: set[str]) -> bool:
    """Whether a "that" :data:`_REFERS` found opens a relative clause after a plural noun ("count the headings *that
    carry* a date"): it points at the noun before it, not back at an earlier clause's finding. Not where the word
    after it is one the earlier clauses said ("... an AFM file that is generated. What program generates *that
    AFM* file?": a verb in -s, and the noun it points back at)."""
    before = st.words(clause[: m.start()].casefold())[-1:]
    w = before[0] if before else ""
    plural = len(w) > 3 and w.endswith("s") and not w.endswith("ss")
    verb = w in STOP or w in HOLDING_VERBS or w in IMPERATIVES or w in ASKING
    same = (m.group(1) or "").casefold() == "same"  # "which entry carries *that same* code": it points back
    said = st.stem((m.group(1) or "").casefold()) in earlier
    return m.group(0)[:4].casefold() == "that" and plural and not verb and not same and not said


def chained(book: Any) -> str | None:
    """The words by which a later clause of the question points back at what an earlier clause finds ("... the
    setting VERBOSE:ICF belongs to; how many entries does *that setting* have?", "X has a parent suite. What
    version is *that parent*?"), else None: such a question asks two steps, and no single read answers it."""
    if "chained" not in book.memo:
        found = None
        for rx, named in ((_CLAUSE_END, True), (_THEN, False)):  # "take X and give me the Y under *that number*"
            clauses = [c for c in rx.split(book.text_q) if c.strip()]
            for i in range(1, len(clauses)):
                before = {st.stem(w) for w in st.words(" ".join(clauses[:i]).casefold())}
                m = next((r for r in _REFERS.finditer(clauses[i]) if not _relative(clauses[i], r, before)), None)
                back = not named or (m is not None and m.group(0)[:4].casefold() == "that")  # "...; does that rule"
                noun = (m.group(1) or m.group(2)).casefold() if m else ""
                if m and len(st.words(clauses[i - 1])) >= 3 and (back or st.stem(noun) in before):
                    found = found or m.group(0)
                if named and (other := _its_other(clauses[i], " ".join(clauses[:i]))):
                    found = found or other
        # "X was released on some day. What *other* version has the *same* date?": the record X names gives the
        # date; another record holding it is the answer
        same = _SAME.search(book.text_q)
        book.memo["chained"] = found or (same.group(0) if same else None)
    return book.memo["chained"]


def _its_other(clause: str, earlier: str) -> str | None:
    """ "There's a method whose *output argument* is called 'seconds'. What is *its input argument* named?": the
    record the earlier clause finds (an argument) belongs to a thing (its method) whose other argument the later
    clause asks of, a second record. A noun the earlier clause said after a word of its own (``output``), said
    again after another word; "what is its version?" and "whose port is 80 ... its default port" ask the found
    record's own field."""
    said = [w.casefold() for w in st.words(earlier)]
    before = {st.stem(w) for w in said}
    for m in _ITS_OTHER.finditer(clause):
        mod, noun = m.group(1).casefold(), st.stem(m.group(2).casefold())
        if mod in STOP or st.stem(mod) in before:
            continue
        if any(st.stem(w) == noun and i and said[i - 1] not in STOP for i, w in enumerate(said)):
            return m.group(0)
    return None


def asks_same(book: Any) -> bool:
    """Whether the question asks for another record holding the same value as the one it names ("What other
    version has the same date as 5.020?", "which other Files entry uses that same license?")."""
    return _SAME.search(book.text_q) is not None
