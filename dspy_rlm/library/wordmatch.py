"""Words, stems and matching: how a question's words find the lines and records of a text.

``words`` tokenizes, ``stem`` folds word forms, ``matches`` / ``match_lines`` / ``line_matches`` find a word (or
a phrase) whole-word, case-insensitive and stem-aware, in one regex pass (over a huge text, only where its lowered
copy holds the match's lead). :mod:`~dspy_rlm.library.structure` re-exports them.

Stdlib-only at import; :func:`dspy_rlm.library.helpers.standalone_source` inlines it into foreign interpreters.
"""

import functools
import re
from collections.abc import Iterator

from dspy_rlm.library.textkit import find_from_lowered, lowered  # inlined first

WORD_TOKEN = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\w+(?:[-.:/@+]\w+)*")


def words(text: str) -> list[str]:
    """The word tokens of ``text``: runs of letters/digits (any script, ``_`` included) that keep internal
    ``- . : / @ +`` (``en_US.UTF-8``, ``1/tcp``, ``a@b.org``), and numbers with thousands separators."""
    return WORD_TOKEN.findall(text)


def stem(word: str) -> str:
    """A case-folded stem for matching word forms; alphabetic words of 4+ letters only, else just casefold.

    Rules, in order: ``-sses`` -> ``-ss``; ``-ies`` -> ``-y``; a final ``-s`` goes (not after s, u, i);
    ``-ing`` / ``-ed`` go when 3+ letters with a vowel remain, then a doubled final consonant (not l, s, z)
    is undoubled (before them ``-tion`` of 8+ letters loses ``-ion``); a final ``-y`` becomes ``-i``; a final ``-e``
    goes. So deprecation, deprecated -> ``deprecat``; licenses, license, licensed and
    licensing -> ``licens``; running, runs -> ``run``; policy, policies -> ``polici``; status -> ``status``.
    """
    w = word.casefold()
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("tion") and len(w) >= 8:  # deprecation, deprecated, deprecate -> deprecat (not option)
        w = w[:-3]
    for suffix in ("ing", "ed"):
        base = w[: -len(suffix)]
        if w.endswith(suffix) and len(base) >= 3 and any(v in base for v in "aeiouy"):
            w = base[:-1] if base[-1] == base[-2] and base[-1] not in "lsz" and base[-1].isalpha() else base
            break
    if w.endswith("y") and len(w) > 3:
        w = w[:-1] + "i"
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


def _prefix(token: str, stemmed: str) -> str:
    t = token.casefold()
    n = 0
    while n < min(len(t), len(stemmed)) and t[n] == stemmed[n]:
        n += 1
    return t[: max(n, 1)]


_EDGE = r"(?:(?<![^\W_])|(?<=\\f[BIRP]))"
"""Where a word starts: after no letter or digit, or right after a manual page's font escape (``\\fBpublish\\fR``:
read as a word glued to ``B``, "publish" was found only in the sentences that mention it)."""


def _escaped(token: str) -> str:
    """``token`` as a pattern, a hyphen in it also found written ``\\-`` (a manual page's escape: ``dry\\-run``)."""
    return re.escape(token).replace("\\-", "\\\\?-")


def in_text(phrase: str, folded: str) -> bool:
    """Whether ``phrase`` (casefolded) is in the casefolded text as written, or with its hyphens escaped."""
    p = phrase.casefold()
    return p in folded or ("-" in p and p.replace("-", "\\-") in folded)


@functools.lru_cache(maxsize=512)
def _needle(word: str) -> tuple[re.Pattern | None, tuple[tuple[str, str], ...]]:
    """A regex finding candidate spans of ``word`` plus, per token, (casefolded token, stem) to verify."""
    tokens = words(word)
    if not tokens:
        return re.compile(re.escape(word.strip()), re.IGNORECASE) if word.strip() else None, ()
    parts, checks = [], []
    for t in tokens:
        s = stem(t)
        if t.isalpha():
            parts.append(f"{_EDGE}({re.escape(_prefix(t, s))}[^\\W_]*)")
        else:  # a dotted number is no part of a longer one: "1.0" is not in "1.1.0" nor in "1.0.6"
            dotted = re.fullmatch(r"\d+(?:\.\d+)+", t) is not None
            before, after = (r"(?<!\d\.)", r"(?!\.\d)") if dotted else ("", "")
            parts.append(f"{_EDGE}{before}({_escaped(t)})(?![^\\W_]){after}")
        checks.append((t.casefold(), s))
    return re.compile(r"[\W_]+".join(parts), re.IGNORECASE), tuple(checks)


def matches(word: str, text: str) -> bool:
    """Does ``word`` (one or more words) occur in ``text``? Case-insensitive, whole words, stem-aware:
    ``license`` matches ``Licenses``, ``running`` matches ``run``; several words must occur in sequence.
    Word edges are any non-letter, non-digit, ``_`` included: ``jasper`` is in ``brave_jasper_port``."""
    needle = _needle(word)
    rx, checks = needle
    if rx is None or not isinstance(text, str):
        return False
    if not checks:
        return rx.search(text) is not None
    return any(_verified(m, checks) for m in rx.finditer(text))


def _verified(m: re.Match, checks: tuple[tuple[str, str], ...]) -> bool:
    """Is each token of a candidate match the word's token or a form of it (same stem)?"""
    found = (g.replace("\\-", "-") for g in m.groups())  # "dry\\-run" is "dry-run"
    return all(g.casefold() == t or stem(g) == s for g, (t, s) in zip(found, checks, strict=True))


def match_lines(word: str, text: str, start: int = 0) -> list[int]:
    """The 1-based numbers of the lines of ``text`` where ``word`` matches (as :func:`matches`), each once, from
    the offset ``start`` on. One regex pass over the text: how the lookups find their records without testing
    every record."""
    out: list[int] = []
    for line, _ in line_matches(word, text, start):
        if not out or out[-1] != line:
            out.append(line)
    return out


def line_matches(word: str, text: str, start: int = 0) -> Iterator[tuple[int, re.Match]]:
    """Each match of ``word`` (as :func:`matches`) from the offset ``start`` on, with its 1-based line number."""
    rx, checks = _needle(word)
    if rx is None:
        return
    last, line = start, 1 + text.count("\n", 0, start)
    for m in _finditer(rx, word, text, start):
        if checks and not _verified(m, checks):
            continue
        line += text.count("\n", last, m.start())
        last = m.start()
        yield line, m


def _finditer(rx: re.Pattern, word: str, text: str, start: int) -> Iterator[re.Match]:
    """``rx.finditer(text, start)``; over a huge text, only where its lowered copy holds the match's lead."""
    tokens = words(word)
    lead = (_prefix(tokens[0], stem(tokens[0])) if tokens[0].isalpha() else tokens[0]) if tokens else word.strip()
    low = lowered(text, start) if lead else None
    return rx.finditer(text, start) if low is None else find_from_lowered(rx, lead, text, low, start)
