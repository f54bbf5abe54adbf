"""Config files of blocks as records behind :func:`dspy_rlm.library.structure.detect`: profile files
(``[section]`` headers over indented ``key = value`` lines and ``name = { ... }`` blocks: krb5.conf, mke2fs.conf)
and directive blocks (an unindented ``word args`` line over indented ``directive args`` lines: ssh_config's
``Host``, sensors3.conf's ``chip``). Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it.
"""

import re
from collections import Counter

from dspy_rlm.library.formats import INI_KV, SECTION, Raw, _share, is_comment, meaningful, settings, unquote

# -- profile files: [section] over indented "key = value" lines and "name = { ... }" blocks (krb5.conf, mke2fs.conf)
_BLOCK_OPEN = re.compile(r"\s*([^\s=\[{}#;][^={}]*?)\s*=\s*\{\s*$")
_BLOCK_CLOSE = re.compile(r"\s*\}\s*$")


def looks_profile(sample: list[str]) -> float:
    """Share of the lines that are ``[section]``, ``key = value``, ``name = {`` or ``}``, where some block opens."""
    rows = meaningful(sample)
    if not any(_BLOCK_OPEN.match(r) for r in rows) or not any(SECTION.match(r) for r in rows):
        return 0.0
    fits = (SECTION.match(r) or _BLOCK_OPEN.match(r) or _BLOCK_CLOSE.match(r) or INI_KV.match(r.strip()) for r in rows)
    return _share(sum(1 for f in fits if f), len(rows))


def parse_profile(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """A record per ``name = { ... }`` block (a nested block's fields as ``inner.key``) and per section's own
    ``key = value`` lines (keyed by the section's name)."""
    out: list[Raw] = []
    names: dict[str, None] = {}
    stack: list[tuple[str, int, list[tuple[str, str]]]] = []
    section, first, last = "", -1, -1
    loose: list[tuple[str, str]] = []

    def emit(a: int, b: int, fields: list[tuple[str, str]], key: str) -> None:
        names.update(dict.fromkeys(n for n, _ in fields))
        out.append((a, b, fields, key, None))

    for i, line in enumerate(lines):
        if not line.strip() or is_comment(line):
            continue
        if (m := SECTION.match(line)) and not stack:
            if loose:
                emit(first, last, loose, section)
            section, first = m.group(1).strip(), i
            loose = []
        elif m := _BLOCK_OPEN.match(line):
            stack.append((m.group(1).strip(), i, []))
        elif _BLOCK_CLOSE.match(line) and stack:
            name, a, fields = stack.pop()
            if stack:
                stack[-1][2].extend((f"{name}.{k}", v) for k, v in fields)
            else:
                emit(a, i, fields, name)
        elif kv := INI_KV.match(line.strip()):
            pair = (kv.group(1).strip(), unquote(kv.group(2).strip()))
            if stack:
                stack[-1][2].append(pair)
            else:
                loose.append(pair)
                first, last = (i if first < 0 else first), i
    for name, a, fields in stack:  # a block left open at the end
        emit(a, len(lines) - 1, fields, name)
    if loose:
        emit(first, last, loose, section)
    return sorted(out, key=lambda r: r[0]), list(names)


# -- directive blocks: an unindented "word args" line over indented "directive args" lines ---------------------
_DIRECTIVE = re.compile(r"([A-Za-z][\w.-]*)(?:[ \t]+(\S.*?))?[ \t]*$")


def _directive(line: str) -> re.Match | None:
    """A ``word args`` line: no ``key = value`` / ``key: value`` shape, no code (a call, a block opener)."""
    m = _DIRECTIVE.fullmatch(line.strip())
    rest = (m.group(2) or "") if m else ""
    if not m or rest[:1] in ("=", ":", "(") or line.rstrip().endswith((":", "{", "}", ";", "\\")):
        return None
    return m


def looks_directive_blocks(sample: list[str]) -> float:
    """Share of the lines that are directives, where most are indented under unindented ones whose first word
    repeats (``chip``, ``Host``) and some header holds two or more."""
    rows = meaningful(sample)
    heads = [r for r in rows if not r[:1].isspace()]
    body = [r for r in rows if r[:1].isspace()]
    if len(body) < 2 or len(body) < len(rows) / 2 or not heads:
        return 0.0
    words = Counter(m.group(1) for r in heads if (m := _directive(r)))
    if not words or words.most_common(1)[0][1] < max(1, len(heads) / 2):
        return 0.0
    return _share(sum(1 for r in rows if _directive(r)), len(rows))


def _words(text: str) -> list[str]:
    return [a or b for a, b in re.findall(r'"([^"]*)"|(\S+)', text)]


def parse_directive_blocks(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """A record per unindented line with the indented lines under it: its key the header's first argument
    (unquoted); a field per directive, named by its word and, for a word that repeats within some block, by its
    first argument too (``label fan1``: ``PSU Fan``); the header itself is a field named by its word, and each
    ``name=value`` argument after its first a field of its own, where all are (Vim's ``hi Pmenu guifg=#ffffff
    guibg=#666666``)."""
    blocks: list[list[tuple[int, str]]] = []
    for i, line in enumerate(lines):
        if not line.strip() or is_comment(line):
            continue
        if not line[:1].isspace() or not blocks:
            blocks.append([])
        blocks[-1].append((i, line))
    parsed = []
    for block in blocks:
        head = _directive(block[0][1])
        body = [(m.group(1), _words(m.group(2) or "")) for _, ln in block[1:] if (m := _directive(ln))]
        parsed.append((block, head, body))
    keyed = {w for _, _, body in parsed for w, n in Counter(w for w, _ in body).items() if n > 1}
    out: list[Raw] = []
    names: dict[str, None] = {}
    for block, head, body in parsed:
        word, args = (head.group(1), _words(head.group(2) or "")) if head else ("", [])
        fields = [(word, " ".join(args))] if word else []
        fields += settings(" ".join(args[1:]))
        for w, a in body:
            named = w in keyed and len(a) >= 2
            fields.append((f"{w} {a[0]}", " ".join(a[1:])) if named else (w, " ".join(a)))
        names.update(dict.fromkeys(n for n, _ in fields))
        out.append((block[0][0], block[-1][0], fields, args[0] if args else word, None))
    return out, list(names)
