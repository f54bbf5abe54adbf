"""Where a question says a field's name or a record's key in other words than the data writes them
(:func:`field_said`: "the italic angle" for ``ItalicAngle``; :func:`initials_said`: "time zone" for ``TZ``;
:func:`glued_said`: "view mode" for ``viewmode``). :func:`~dspy_rlm.profiles.keyfinder.question_keys` and
:class:`~dspy_rlm.profiles.moves.MoveBook` read them."""

from __future__ import annotations

import itertools
import re

from dspy_rlm.library import structure as st
from dspy_rlm.library import wordmatch
from dspy_rlm.profiles.field_words import ABBREVIATED, PREDICATE_PARTS
from dspy_rlm.profiles.reads import camel_parts
from dspy_rlm.profiles.vocabulary import STOP

__all__ = ["field_said", "fields_said", "glued_said", "initials_said", "joined_outside"]


def fields_said(question: str, s: st.Structure) -> dict[tuple[int, int], str]:
    """:func:`field_said` of the question's words."""
    return field_said(list(re.finditer(wordmatch.WORD_TOKEN, question)), s)


_PIECE = re.compile(r"[^\W_]+")


def initials_said(tokens: list[re.Match[str]], s: st.Structure) -> list[tuple[int, int]]:
    """Spans of two or three words whose initials are a field's whole upper-case name ("time zone" for ``TZ``)."""
    names = {f for f in s.field_names[:200] if 2 <= len(f) <= 3 and f.isalpha() and f.isupper()}
    out = []
    for n in (2, 3) if names else ():
        for i in range(len(tokens) - n + 1):
            run = [t.group() for t in tokens[i : i + n]]
            if (
                all(w[:1].isalpha() and w.casefold() not in STOP for w in run)
                and "".join(w[0] for w in run).upper() in names
            ):
                out.append((tokens[i].start(), tokens[i + n - 1].end()))
    return out


def field_said(tokens: list[re.Match[str]], s: st.Structure) -> dict[tuple[int, int], str]:
    """``{span: field}`` where the question says a field's name of two parts or more whole, its parts in a row
    ("the italic angle" for ``ItalicAngle``, "the default log level" for ``a.b.defaultLogLevel``, "the maximum
    attempts" for ``maxAttempts``: a part may be said in full, :data:`ABBREVIATED`)."""
    spans = [t.span() for t in tokens]
    stems = [st.stem(ABBREVIATED.get(t.group().casefold(), t.group())) for t in tokens]
    # a yes/no field's name (IsFixedPitch) said without its first part, maybe hyphenated ("fixed-pitch")
    pieces: list[tuple[int, int]] = []
    piece_stems: list[str] = []
    out: dict[tuple[int, int], str] = {}
    for f in s.field_names[:200]:
        for name in dict.fromkeys((f, f.strip(".").rsplit(".", 1)[-1])):  # a dotted name's last part said alone
            words = [p.casefold() for p in camel_parts(name)]
            runs = [(words, stems, spans)]
            if words[:1] and words[0] in PREDICATE_PARTS and len(words) >= 3:
                if not pieces and tokens:  # the question's words split at hyphens, made once, when first wanted
                    pieces = [
                        (t.start() + m.start(), t.start() + m.end()) for t in tokens for m in _PIECE.finditer(t.group())
                    ]
                    piece_stems = [st.stem(tokens[0].string[a:b].casefold()) for a, b in pieces]
                runs.append((words[1:], piece_stems, pieces))
            for run, said, where in runs:
                want = [st.stem(p) for p in run]
                if len(want) > 4 or sum(p not in STOP for p in run) < 2:  # "shipped to" says no ship-to
                    continue
                for i in range(len(said) - len(want) + 1):
                    if said[i : i + len(want)] == want:
                        out[(where[i][0], where[i + len(want) - 1][1])] = f
    return out


def glued_said(tokens: list[re.Match[str]], s: st.Structure) -> list[tuple[str, tuple[int, int]]]:
    """Records' keys the question writes as two or three plain words no record holds as written ("view mode":
    ``viewmode``, ``view_mode``), with their spans."""
    glued: dict[str, str] = {}
    fields = {f.casefold() for f in s.field_names}  # a setting's own name is a field's too: field_said finds it
    for r in s.records[:5000]:
        if r.key and not r.key.isdigit() and r.key.casefold() not in fields:
            glued.setdefault(re.sub(r"[\W_]+", "", r.key.casefold()), r.key)
    out: list[tuple[str, tuple[int, int]]] = []
    for n in (3, 2):
        for i in range(len(tokens) - n + 1):
            run = [t.group() for t in tokens[i : i + n]]
            key = glued.get("".join(w.casefold() for w in run)) if all(w.isalpha() for w in run) else None
            span = (tokens[i].start(), tokens[i + n - 1].end())
            taken = any(a < span[1] and span[0] < b for _, (a, b) in out)
            if key and not taken and not any(wordmatch.in_text(" ".join(run), r.text.casefold()) for r in s.records):
                out.append((key, span))  # (a comment may say "view mode": no record does, as written)
    return out


def joined_outside(tokens: list[re.Match[str]], s: st.Structure, text: str) -> list[tuple[str, tuple[int, int]]]:
    """Names the question says as two words that the text writes joined as one identifier (``slf4jVersion``,
    ``max_retries``: camel case or ``_`` at the join; ``leap-seconds`` is a hyphenated word) outside every record's
    key and field name ("what slf4j version is set in the properties?" of a POM whose records are its
    dependencies), with their spans: one spelling only, in the text's first megabyte."""
    fields = {st.name_form(f) for f in s.field_names}
    keys = {st.name_form(r.key) for r in s.records[:5000]}
    head = text[:1_000_000]
    out: list[tuple[str, tuple[int, int]]] = []
    for a, b in itertools.pairwise(tokens):
        first, second = a.group(), b.group()
        if len(first) < 3 or first.casefold() in STOP or second.casefold() in STOP or not second.isalpha():
            continue
        if a.end() + 1 != b.start() or a.string[a.end()] != " ":
            continue
        rx = re.compile(rf"(?<![\w.-]){re.escape(first)}[_-]?{re.escape(second)}(?![\w-])", re.IGNORECASE)
        found = {m.group() for m in rx.finditer(head)}
        joined = [w for w in found if w[len(first)] == "_" or w[len(first)].isupper()]  # ("leap-seconds": a word)
        if len(found) == 1 and joined and st.name_form(joined[0]) not in fields | keys:
            out.append((joined[0], (a.start(), b.end())))
    return out
