"""Profile files as records behind :func:`dspy_rlm.library.structure.detect`: ``[section]`` headers over indented
``key = value`` lines and ``name = { ... }`` blocks (krb5.conf, mke2fs.conf, e2fsck.conf). Stdlib only:
:func:`dspy_rlm.library.helpers.standalone_source` inlines it.
"""

import re

from dspy_rlm.library.formats import INI_KV, SECTION, Raw, _share, is_comment, meaningful, unquote

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
