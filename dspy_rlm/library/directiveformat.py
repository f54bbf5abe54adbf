"""Directive lines: most lines open with the same directive, then a name and its value (``#define EDEADLK 35
/* Resource deadlock would occur */`` in a C header; ``::msgcat::mcset de PM "nachm."`` in a Tcl catalog; any
file of that shape). A line's directive is its first word, with the second where nearly every such line repeats
it (``::msgcat::mcset de``). Each directive line is a record keyed by its name, with the fields ``value``
(unquoted where one quoted string; a binding ``:`` or ``=`` before it and a closing ``;`` left out) and
``comment`` (a ``/* */``, ``//`` or `` # `` comment closing the line). A name may be one quoted string
(CMake's ``FAIL_REGEX "[Uu]nknown option"  # GNU``).
Block comments and lines ending in ``\\`` (continued on the next) are read as C and Tcl write them.
Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re
from collections import Counter

from dspy_rlm.library.formats import Raw, continued_lines, settings, unquote

_NAME = re.compile(r"(\"(?:\\.|[^\"\\])+\"|[^\s(]+(?:\([^()]*\))?)(?:[ \t]+(\S.*?))?[ \t]*$")
_HASH_COMMENT = re.compile(r"(?:^|[ \t]+)#(?:[ \t]+(.*))?$")
_CLOSING_COMMENT = re.compile(r"[ \t]*(?:/\*(.*?)\*/|//(.*))[ \t]*$")
_PUNCTUATION = re.compile(r"[\W_]+")
_DIRECTIVE_CHARS = re.compile(r"[#:.@%!\w-]*")


_COMMENTS = ("//", "/*", "# ", '" ', '"\t')
"""How a comment line opens: C's, a shell's, Vim script's (a double quote, then a blank)."""


def _logical(lines: list[str]) -> list[tuple[int, int, str]]:
    """The logical lines outside block comments, comments and a block's closing bracket."""
    in_block = False

    def skip(s: str, continuing: bool) -> bool:
        nonlocal in_block
        if in_block:
            in_block = "*/" not in s
            return True
        if continuing:
            return False
        in_block = s.startswith("/*") and "*/" not in s
        return in_block or not s or s.startswith(_COMMENTS) or bool(_PUNCTUATION.fullmatch(s))

    return continued_lines(lines, skip)


def _opening_directive(rows: list[str]) -> tuple[str, int]:
    """The directive most lines open with (one word, then each next word nearly every such line repeats, or
    :data:`_ANY` where the next word is one of a few kinds of it) and how many lines open with it and go on with
    a name."""
    firsts = Counter(r.split()[0] for r in rows if len(r.split()) >= 2)
    if not firsts:
        return "", 0
    word = _extended(rows, firsts.most_common(1)[0][0])
    return word, len(_names(rows, word))


_ANY = "*"
"""In a directive, a word that is one of a few kinds of it (Vim's ``syn keyword``, ``syn match``)."""


def _extended(rows: list[str], word: str) -> str:
    """``word`` with the words after it that nearly every line opening with it repeats (a catalog's language:
    ``::msgcat::mcset de``; ``hi def link``), or with :data:`_ANY` where the next word is one of a few plain
    words, kinds of the directive (:func:`_kinds_of`: ``syn keyword``, ``syn match``)."""
    opened = [t for r in rows if (t := r.split())[0] == word and len(t) >= 2]
    for at in range(1, 3):
        nexts = Counter(t[at] for t in opened if len(t) > at + 1)
        if not nexts or len(opened) < 3:
            return word
        top, n = nexts.most_common(1)[0]
        if n >= 0.9 * len(opened):
            word, opened = f"{word} {top}", [t for t in opened if len(t) > at + 1 and t[at] == top]
            continue
        if at == 1 and _kinds_of(opened, nexts):
            return f"{word} {_ANY}"
        return word
    return word


def _kinds_of(opened: list[list[str]], seconds: Counter[str]) -> bool:
    """Whether the second words of the lines ``opened`` are kinds of the directive: a few plain lower-case words,
    those on two lines or more covering three lines in four, before more names than kinds."""
    many = sum(n for w, n in seconds.items() if n >= 2)
    names = {t[2] for t in opened if len(t) > 2}
    return (
        2 <= len(seconds) <= 8
        and all(w.isalpha() and w.islower() for w in seconds)
        and many >= 0.75 * len(opened)
        and len(names) >= max(3, len(seconds) + 1)
    )


def _opens_with(tokens: list[str], prefix: list[str]) -> bool:
    return len(tokens) > len(prefix) and all(p in (_ANY, t) for p, t in zip(prefix, tokens))


def _names(rows: list[str], word: str) -> list[str]:
    """The name after ``word`` on each line that opens with it."""
    prefix = word.split()
    return [t[len(prefix)] for r in rows if _opens_with(t := r.split(), prefix)]


def _split(text: str, prefix: list[str]) -> tuple[str, str, str] | None:
    """(name, value, comment) of a line opening with ``prefix``, else None."""
    tokens = text.split(None, len(prefix))
    if not _opens_with(tokens, prefix):
        return None
    rest, comment = tokens[len(prefix)], ""
    m = _CLOSING_COMMENT.search(rest)
    if m:
        comment, rest = (m.group(1) if m.group(1) is not None else m.group(2)).strip(), rest[: m.start()]
    nm = _NAME.match(rest.strip())
    if not nm:
        return None
    value = (nm.group(2) or "").strip()
    h = _HASH_COMMENT.search(value)
    if h and not comment and value[: h.start()].count('"') % 2 == 0:  # CMake's, a shell's: "# GNU" after it
        comment, value = (h.group(1) or "").strip(), value[: h.start()]
    return unquote(nm.group(1)), unquote(value.strip()), comment


def _directive_word(word: str) -> bool:
    """Word characters and ``#:.@%!-`` with an ASCII letter after the last of ``#@%!``, then maybe one or two more
    words (``hi def link``). String checks: the pattern this was (``[#:.@%!\\w-]*[A-Za-z][\\w:.-]*( \\S+)?``)
    backtracked quadratically (5 s on a line of 16,000 letters)."""
    head, space, rest = word.partition(" ")
    more = rest.split(" ")
    if (space and (len(more) > 2 or not all(w and not any(c.isspace() for c in w) for w in more))) or not (
        _DIRECTIVE_CHARS.fullmatch(head)
    ):
        return False
    return any(c.isascii() and c.isalpha() for c in head[max(head.rfind(c) for c in "#@%!") + 1 :])


def looks_directives(sample: list[str]) -> float:
    """The share of the lines (outside comments) that open with the same directive then a name; 0 under five
    such lines, where the directive is no word (a list's ``*``, a table's first column of numbers), or where the
    names repeat (a word opening sentences)."""
    rows = [t for _, _, t in _logical(sample)]
    whole = _directive_share(rows)  # half the lines open with the directive at least: then the brace blocks
    return max(whole, _directive_share(_outside_braces(rows))) if whole >= 0.5 else whole  # are no data between


def looks_directive_kinds(sample: list[str]) -> float:
    """:func:`looks_directives` where the directive is one of a few kinds (Vim's ``syn keyword`` / ``syn match``
    lines, which a tab between a name and its words made a table of); else 0."""
    rows = [t for _, _, t in _logical(sample)]
    word = _opening_directive(rows)[0]
    if _ANY not in word.split() or not _directive_share(rows):
        return 0.0
    others = Counter(t.split()[0] for t in rows if t.split()[0] != word.split()[0])
    prefixes = [word.split(), *(d.split() for d in _other_directives(rows, others))]  # and its "hi def link" lines
    return sum(any(_split(r, p) for p in prefixes) for r in rows) / len(rows)


def _outside_braces(rows: list[str]) -> list[str]:
    """The rows outside brace blocks, a block's opening row kept (a C header's ``struct tftphdr {`` among its
    #defines: one declaration, not a dozen lines that open with no directive)."""
    kept, depth = [], 0
    for r in rows:
        if depth == 0:
            kept.append(r)
        depth = max(0, depth + r.count("{") - r.count("}"))
    return kept


def _directive_share(rows: list[str]) -> float:
    word, _ = _opening_directive(rows)
    if not _directive_word(word):
        return 0.0
    names = [x[0] for r in rows if (x := _split(r, word.split()))]
    repeat = len(set(names)) * 2 < len(names) and _ANY not in word.split()  # (kinds of a directive: names repeat)
    if len(names) < 5 or repeat or sum(n.isdigit() for n in names) * 2 > len(names):
        return 0.0  # the names repeat, or are numbers: words opening sentences
    if sum(r.endswith(".") for r in rows) * 2 > len(rows):
        return 0.0  # sentences
    return len(names) / len(rows)


def parse_directives(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """One record per directive line: key the name (no field: a record's name apart from its fields, as an
    assignment's); fields ``value``, each ``name=value`` word of a value made of them (Vim's ``hi Pmenu
    guifg=#ffffff guibg=#666666``), and ``comment`` if any. A line opening with a keyword no other line opens
    with (``viewmode user`` among ``dmetrics`` lines) is a record keyed by that keyword. Where two short
    comments or more stand alone between directive lines (``/* Error codes. */``), each line below one has the
    field ``section``: the comment, up to the next or a brace block. A directive of a few kinds (Vim's ``syn
    keyword`` / ``syn match``) gives each line the field ``directive`` (``syn keyword``), and the lines of
    other directives of two or three words (``hi def link``) are records too, with theirs."""
    rows = _logical(lines)
    word, _ = _opening_directive([t for _, _, t in rows])
    out: list[Raw] = []
    names: dict[str, None] = dict.fromkeys(["value", "comment"])
    others = Counter(t.split()[0] for _, _, t in rows if t.split()[0] != word.split()[0])
    kinds = _ANY in word.split()  # "syn keyword X": the field directive = "syn keyword"
    seconds = _other_directives([t for _, _, t in rows], others) if kinds else []
    headings = [""] + [_heading_comment(lines[rows[i - 1][1] + 1 : a]) for i, (a, _, _) in enumerate(rows) if i]
    sectioned = len({h for h in headings if h}) >= 2
    section = ""
    for (a, b, text), heading in zip(rows, headings):
        section = heading or ("" if "{" in text else section)  # a declaration's block ends the section
        split = _split(text, word.split())
        own = [("directive", " ".join(text.split()[: len(word.split())]))] if kinds and split is not None else []
        if split is None and others[text.split()[0]] == 1 and _keyword_line(text):
            split = _split(text, [])  # "viewmode user" beside the dmetrics lines: a keyword and its value
        for other in seconds if split is None else ():  # "hi def link mmixAt Type" beside the syn lines
            if (split := _split(text, other.split())) is not None:
                own = [("directive", other)]  # "hi def link"
                break
        if split is not None:
            name, value, comment = split
            value = _BOUND.sub("", value).removesuffix(";").rstrip()  # "def i8 : ValueType<8, 3>;": ValueType<8, 3>
            pairs = settings(value)
            names.update(dict.fromkeys([*(n for n, _ in own), *(n for n, _ in pairs)]))
            placed = [("section", section)] if sectioned and section else []
            fields = [("value", value), *own, *pairs, *placed] + ([("comment", comment)] if comment else [])
            out.append((a, b, fields, name, None))
    return out, list(names) + (["section"] if sectioned else [])


def _other_directives(rows: list[str], others: Counter[str]) -> list[str]:
    """Beside a directive of kinds (Vim's ``syn *``), the directives of two words or three that three lines or
    more open with (``hi def link``): their lines are records too, keyed by the name after them."""
    found = (_extended(rows, w) for w, n in others.items() if n >= 3)
    return [d for d in found if " " in d and _ANY not in d.split() and _directive_word(d)]


_BOUND = re.compile(r"^[:=][ \t]+")
"""The sign binding a name to its value (``NAME : value``, ``NAME = value``): no part of the value."""
_COMMENT_MARKS = re.compile(r"^\s*(?:/\*+|\*+/?|//+)|\*+/\s*$")


def _heading_comment(between: list[str]) -> str:
    """The text of the C comment (``/* */``, ``//``) standing alone on the lines ``between`` two directive lines,
    where it is short (a line of eight words or fewer, no sentence going on), else ''."""
    if any(not ln.strip().startswith(("/*", "*", "//")) for ln in between if ln.strip()):
        return ""  # a "#" comment: a note on the line below ("# Set View mode to user"), not a heading
    said = [t for ln in between if (t := _COMMENT_MARKS.sub("", ln).strip())]
    if len(said) != 1 or len(said[0].split()) > 8 or not any(c.isalpha() for c in said[0]):
        return ""
    return said[0].rstrip(".:")


_KEYWORD = re.compile(r"[A-Za-z_][\w-]*")


def _keyword_line(text: str) -> bool:
    """Whether a line is a keyword then a value (``preload_libdirs ../lib:../lib32``), not a sentence nor a call
    (CMake's ``macro (NAME _VAR)``)."""
    words = text.split()
    if len(words) < 2 or not _KEYWORD.fullmatch(words[0]) or words[1][0] in "([{=<":
        return False
    return not (len(words) >= 3 and text[-1] in ".:;,")
