"""Nested brace configs as records: ALSA's ``.conf`` files, nginx and BIND configs, Java policy files, libconfig
(``name { key value ... }`` nested at will). Each top-level block is a record keyed by its name (``pcm.plughw``;
a block named by several words, ``grant codeBase "jrt:/java.compiler"``, by its first quoted word, else its last,
with a field named by its first word holding the rest); its fields are the settings inside, named by their path
below the block (``hint.description``, ``slave.pcm.type``); a setting whose word repeats within a block and that
has two or more words after it is named by its first two (``permission java.util.PropertyPermission``). A setting
outside every block (``defaults.pcm.rate 48000``) is a record of its own, keyed and named by its word. ``=`` or
``:`` between a word and its value, ``;`` and ``,`` between settings, ``[ ... ]`` lists over several lines,
``#``, ``//`` and ``/* */`` comments are read. Read as lines, a nested value kept no path to its block. Stdlib
only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re

from dspy_rlm.library.formats import Raw

_BRACE_TOKEN = re.compile(
    r"\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|/\*.*?\*/|//[^\n]*|(?<![^\s{};])#[^\n]*|[{}\[\];,=\n]|[^\s{}\[\];,=\"']+",
    re.DOTALL,
)
_BRACE_SETTING = re.compile(
    r"""(?:[\w@$.:/+!~-]+|"[^"]*"|'[^']*'|<[^<>]+>)(?:\s*[=:]?\s*[^\s(){}][^(){}]*)?\s*[;,]?$|[\[\]{]\s*[;,]?$|\[[^\[\]]*\]\s*[;,]?$"""
)
_BRACE_CLOSE_LINE = re.compile(r"\}\s*[;,]?\s*$|[^{}()]*\{[^{}()]*\}\s*[;,]?\s*$")  # or a block on one line
_BRACE_COMMENT = re.compile(r"\s*(?:#|//|/\*|\*)")
_BRACE_PREPROCESSOR = re.compile(
    r"\s*#(?:\s*(?:define|include|ifdef|ifndef|endif|pragma|undef)\b|if\b)"
)  # "# if this": a comment
_BRACE_CODE_HEAD = re.compile(
    r"(?:struct|enum|union|typedef|class|interface|namespace|impl|fn|function|def|let|if|else|switch|for|while|do"
    r"|try|catch|static|public|private|protected|extern|template|const|var|return)\b"
)
_BRACE_WORD_VALUE = re.compile(r"""[A-Za-z_@$<!~.][^\s=:;,]*\s*(?:[=:]\s*)?(?:\S|"")""")  # a word, then its value
_BRACE_QUOTED = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'")  # emptied before a line is judged


def _setting_line(row: str) -> bool:
    """A stripped line holding a setting; one longer than 400 characters holds none (and the regex, whose word may
    split anywhere, would take quadratic time on it)."""
    return len(row) <= 400 and bool(_BRACE_SETTING.match(row))


def _opens(row: str) -> bool:
    """A stripped line that opens a named block: ``name {`` or ``name = {``, the name free of ``{}()[];`` and not
    opening with ``=`` or ``:`` (a plain test: a regex for it backtracked quadratically on long lines)."""
    if not row.endswith("{"):
        return False
    head = row[:-1].rstrip()
    head = head[:-1].rstrip() if head.endswith("=") else head
    return bool(head) and head[0] not in "=:" and not any(c in "{}()[];" for c in head)


_BRACE_TRAILING = re.compile(r"\s*(?:(?<![^\s;{}])//|(?<=[;{}])\s*#).*$")  # a trailing comment, not http://


def _outside_block_comments(sample: list[str]) -> list[str]:
    """The stripped lines outside ``/* ... */`` comments and comment lines (apt.conf's opening one spans 30)."""
    out, inside = [], False
    for ln in sample:
        r = ln.strip()
        if inside:
            inside = "*/" not in r
            r = r.split("*/", 1)[1].strip() if not inside else ""
        elif r.startswith("/*") and "*/" not in r:
            inside, r = True, ""
        if r and not _BRACE_COMMENT.match(r):
            out.append(r)
    return out


def looks_braces(sample: list[str]) -> float:
    """The share of the lines (comments and blanks left out) that open a named block, close one or hold a setting,
    where at least three open a block, one of them at the top level, most settings are a word and its value, and
    nothing says program source (a preprocessor line, a block opened by a keyword of code, a closing tag)."""
    if any(_BRACE_PREPROCESSOR.match(ln) for ln in sample):
        return 0.0
    rows = [r for ln in _outside_block_comments(sample) if (r := _BRACE_TRAILING.sub("", _BRACE_QUOTED.sub('""', ln)))]
    opens = [r for r in rows if _opens(r)]
    if len(opens) < 3 or any(r.endswith(":") or r.startswith(("-", "*")) or "</" in r for r in rows):
        return 0.0
    settings = [r for r in rows if not (_opens(r) or _BRACE_CLOSE_LINE.match(r))]
    if sum(1 for r in settings if _BRACE_WORD_VALUE.match(r)) * 2 < len(settings):
        return 0.0
    depth, top = 0, []
    for r in rows:
        if depth == 0 and _opens(r):
            top.append(r)
        depth = max(0, depth + r.count("{") - r.count("}"))
    if not top or any(_BRACE_CODE_HEAD.match(r) for r in top):  # "struct x {" at the top; ALSA nests "class {"
        return 0.0
    fits = sum(1 for r in rows if _opens(r) or _BRACE_CLOSE_LINE.match(r) or _setting_line(r))
    return fits / len(rows)


def _tokens(text: str) -> list[tuple[str, int]]:
    """``(token, line index)``: words, quoted strings (quotes kept), ``{ } [ ] ; , =`` and newlines; no comments."""
    out, line = [], 0
    for m in _BRACE_TOKEN.finditer(text):
        tok = m.group(0)
        if tok.startswith(("/*", "//", "#")):
            line += tok.count("\n")
            continue
        out.append((tok, line))
        line += tok == "\n"
    return out


def _bare(tok: str) -> str:
    if tok.startswith("["):
        return tok[1:]
    comma = "," if tok.endswith(",") and len(tok) > 1 else ""
    tok = tok[:-1] if comma else tok
    return (tok[1:-1] if len(tok) >= 2 and tok[0] == tok[-1] and tok[0] in "\"'" else tok) + comma


def parse_braces(lines: list[str]) -> tuple[list[Raw], list[str]]:
    tokens = _tokens("\n".join(lines))
    settings = [r for ln in lines if (r := ln.strip()) and _setting_line(r) and not _BRACE_COMMENT.match(ln)]
    ends = ("}", ";") if sum(r.endswith(";") for r in settings) * 2 > len(settings) else ("}", ";", "\n")
    out: list[Raw] = []
    names: dict[str, None] = {}
    stack: list[tuple[str, int, list[tuple[str, str]], str]] = []  # (path prefix, first line, fields, key)
    words: list[str] = []
    first = 0
    i = 0
    while i < len(tokens):
        tok, at = tokens[i]
        i += 1
        if tok == "[":  # a list: its items, to the matching bracket, as one word
            items, depth = [], 1
            while i < len(tokens) and depth:
                item = tokens[i][0]
                depth += (item == "[") - (item == "]")
                if depth and item not in ("\n", ",", "{", "}", ";"):
                    items.append(_bare(item))
                i += 1
            words.append("[" + " ".join(items))  # "[": a list, a value however many words it holds
            continue
        if tok == "{":
            head = [w for w in words if w not in ("=", ":")]
            words = []
            if not stack:
                key, fields = _block_key(head)
                stack.append(("", at if not head else first, fields, key))
            else:
                stack.append((stack[-1][0] + " ".join(_bare(w) for w in head) + ".", at, stack[-1][2], stack[-1][3]))
            continue
        if tok == ",":  # inside a statement (``"*", "*"``), glued to the word before it
            if words:
                words[-1] += ","
            continue
        if tok == "\n" and tok not in ends:
            continue
        if tok in ends:
            if words:
                _brace_setting(words, stack, out, first, at)
                words = []
            if tok == "}" and stack:
                _, start, fields, key = stack.pop()
                if not stack:
                    out.append((start, at, _named(fields), key, None))
            continue
        if not words:
            first = at
        words.append(tok)
    while stack:  # a block the text never closed (a cut sample): what it held so far
        _, start, fields, key = stack.pop()
        if not stack:
            out.append((start, len(lines) - 1, _named(fields), key, None))
    out.sort(key=lambda raw: raw[0])
    for raw in out:
        names.update(dict.fromkeys(n for n, _ in raw[2]))
    return out, list(names)


def _block_key(head: list[str]) -> tuple[str, list[tuple[str, str]]]:
    """A top-level block's key and the fields its name gives (a name of one word gives none)."""
    bare = [_bare(w) for w in head]
    if len(bare) <= 1:
        return (bare[0] if bare else ""), []
    quoted = next((_bare(w) for w in head[1:] if w[:1] in "\"'"), None)
    return (quoted if quoted is not None else bare[-1]), [(bare[0], " ".join(bare[1:]))]


def _brace_setting(words: list[str], stack: list, out: list[Raw], first: int, at: int) -> None:
    """One ``word value...`` statement: a field of the innermost block, or a record of its own at the top."""
    parts = [_bare(w) for w in words if w not in ("=", ":")]
    if words[0] in ("=", ":") or not parts:
        return
    name, value = parts[0], " ".join(parts[1:])
    if not stack:
        out.append((first, at, [(name, value)], name, None))
        return
    prefix = stack[-1][0]
    if len(parts) == 1 and (prefix or words[0][:1] in "\"'["):  # a lone value: named by its block's path
        name, value = (prefix[:-1] or "value"), parts[0]
        stack[-1][2].append((name, value))
        return
    stack[-1][2].append((prefix + name, value, parts))


def _named(fields: list) -> list[tuple[str, str]]:
    """The fields of a block, a repeated word with two or more words after it named by its first two."""
    seen: dict[str, int] = {}
    for f in fields:
        seen[f[0]] = seen.get(f[0], 0) + 1
    out = []
    for f in fields:
        if len(f) == 2:  # from the block's name
            out.append(f)
            continue
        name, value, parts = f
        if seen[name] > 1 and len(parts) >= 3:
            out.append((f"{name} {parts[1]}", " ".join(parts[2:])))
        else:
            out.append((name, value))
    return out
