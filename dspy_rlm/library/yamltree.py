"""Nested YAML mappings as records: where a top-level key holds mappings of mappings (``canonical_surfaces:``
then ``  ai:`` then ``    command: ai``), each mapping that holds values is a record of its own, keyed by its
name, with those values, ``block`` (the name of the mapping around it) and, deeper, ``path``
(``TensorMeta.fields``), in line order. Read at the top level only, all the entries' fields fell into one record
(``name`` said a hundred times). A list or a block scalar under a key is that key's value, as :func:`parse_yaml`
reads it; a top-level key of values only, or of list items, stays its record; each item of a top-level list of
mappings is a record whose ``block`` is the list's key (``model_list``). Stdlib only:
:func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re

from dspy_rlm.library.formats import YAML_KEY, Raw, _share, is_comment, meaningful, unquote
from dspy_rlm.library.kvformats import _indent


# -- YAML-like indentation: one record per top-level key (or top-level list item) --------------------------
def looks_yaml(sample: list[str]) -> float:
    """Share of the lines that are ``key: value``, ``- item``, or inside a ``|`` / ``>`` block scalar."""
    rows = [r for r in meaningful(sample) if r.strip() not in ("---", "...")]
    top = [r for r in rows if not r[:1].isspace() and YAML_KEY.match(r)]
    if not top or (len(top) < 2 and len(rows) < 2):
        return 0.0
    ok, block = 0, -1  # block: indent of the key that opened a block scalar, -1 outside one
    for r in rows:
        indent, s = _indent(r), r.strip()
        if block >= 0 and indent > block:
            ok += 1
            continue
        block = -1
        m = YAML_KEY.match(s)
        if (m and (m.group(2) or "").strip()[:1] in ("|", ">")) or re.fullmatch(r"-\s+[|>][-+]?\d*", s):
            block = indent  # a key's or a list item's block scalar ("- >-")
        if m and m.group(1).count(" ") >= 2:
            continue  # "- Thunder review with calm-quartz: ok" is a sentence in a markdown list
        ok += bool(m or s.startswith("- ") or (s[:1] in "[{\"'" and indent > 0) or s in ("}", "]"))
    return _share(ok, len(rows))


def _list_items(lines: list[str], a: int, b: int) -> list[tuple[int, int]] | None:
    """The (first, last) lines of each ``- key: value`` item when the block under line ``a`` is a list of
    mappings (``model_list:`` then ``  - name: x``), else None."""
    first = a + 1
    while first <= b and (not lines[first].strip() or is_comment(lines[first])):
        first += 1
    head = lines[first].lstrip() if first <= b else ""
    if not head.startswith("- ") or not YAML_KEY.match(head):
        return None
    indent = _indent(lines[first])
    starts = [i for i in range(first, b + 1) if _indent(lines[i]) == indent and lines[i].lstrip().startswith("- ")]
    ends = [*(j - 1 for j in starts[1:]), b]
    return [(i, _last_content(lines, i, e)) for i, e in zip(starts, ends, strict=True)]


def _last_content(lines: list[str], a: int, b: int) -> int:
    while b > a and (not lines[b].strip() or is_comment(lines[b])):
        b -= 1
    return b


#: A YAML block scalar's header (``|``, ``>-``, ``|2+``, maybe a comment): the value is the indented lines below.
_BLOCK_SCALAR = re.compile(r"^[|>](?:[1-9]?[+-]?|[+-][1-9])(?:\s+#.*)?$")


def _block_end(lines: list[str], start: int, b: int, indent: int) -> int:
    """The line after a block scalar that starts at ``start`` under a key indented ``indent``."""
    end = start
    while end <= b and (not lines[end].strip() or _indent(lines[end]) > indent):
        end += 1
    return end


def _block_value(body: list[str], style: str) -> str:
    """A block scalar's text: its lines (``|``) or its lines folded into one (``>``), indentation removed."""
    rows = [line.strip() for line in body]
    while rows and not rows[-1]:
        rows.pop()
    return "\n".join(rows).strip() if style == "|" else " ".join(r for r in rows if r).strip()


def _item_lines(lines: list[str], i: int, b: int, indent: int) -> tuple[str, int]:
    """The ``- item`` lines from ``i`` under a key indented ``indent``, and the line after; none of mappings."""
    end, items, dash = i, [], -1  # dash: the items' indent; a deeper line is the item's (a "- |" block's text)
    while end <= b and (not lines[end].strip() or _indent(lines[end]) >= indent):
        ind, s = _indent(lines[end]), lines[end].strip()
        if s and s[:2] == "- " and dash in (-1, ind):
            dash = ind
            items.append([s])
        elif s and items and ind > dash:
            items[-1].append(s)
        elif s:
            break
        end += 1
    block = [len(it) > 1 and re.fullmatch(r"-\s+[|>][-+]?\d*", it[0]) is not None for it in items]
    if not items or any(YAML_KEY.match(x) for it, bl in zip(items, block) for x in (it[:1] if bl else it)):
        return "", i
    rows = ["- " + " ".join(it[1:]) if bl else " ".join(it) for it, bl in zip(items, block)]
    return "\n".join(rows), end


_YAML_COMMENT = re.compile(r"[ \t]+#.*$")


def _yaml_scalar(value: str) -> str:
    """A one-line value without its trailing comment (``"auto"    # Let Azure pick``: ``auto``; a ``#`` inside
    quotes is the value's), unquoted."""
    if value[:1] in ("'", '"'):
        end = value.find(value[0], 1)
        rest = value[end + 1 :] if end > 0 else ""
        return unquote(value[: end + 1] if rest and _YAML_COMMENT.fullmatch(rest) else value)
    m = _YAML_COMMENT.search(value)
    return unquote(value[: m.start()] if m else value)


def _yaml_record(lines: list[str], a: int, b: int) -> Raw:
    head = lines[a]
    m = YAML_KEY.match(head.strip())
    key = unquote(m.group(1).strip()) if m and not head.lstrip().startswith("- ") else ""
    fields: list[tuple[str, str]] = []
    nested = False
    i = a + 1 if key else a
    if key and m and _BLOCK_SCALAR.match((m.group(2) or "").strip()):
        i = b + 1  # "key: |" at the top: its lines are its value, not fields
    while i <= b:
        line = lines[i].strip()
        sub = YAML_KEY.match(line) if line and line[0] not in "#;" else None
        i += 1
        if sub:
            nested = True
            value = (sub.group(2) or "").strip()
            if _BLOCK_SCALAR.match(value):  # "desc: |" then indented lines: the value is those lines
                end = _block_end(lines, i, b, _indent(lines[i - 1]) + (2 if lines[i - 1].lstrip()[:2] == "- " else 0))
                value, i = _block_value(lines[i:end], value[0]), end
            elif not value:  # "hosts:" then "- a" lines of plain items: the value is those lines
                value, i = _item_lines(lines, i, b, _indent(lines[i - 1]))
                if value.startswith("- ") and "\n" not in value:  # a list of one item: the item
                    value = value[2:].strip()
            if value:
                fields.append((unquote(sub.group(1).strip()), _yaml_scalar(value) if "\n" not in value else value))
    if key and m:
        value = (m.group(2) or "").strip()
        if value and b == a:
            fields.insert(0, (key, _yaml_scalar(value)))
        elif b > a and not nested:
            body = lines[a + 1 : b + 1]  # a list / block scalar
            joined = _block_value(body, value[0]) if _BLOCK_SCALAR.match(value) else "\n".join([value, *body])
            rows = [r.strip() for r in body if r.strip() and not is_comment(r)]
            if not value and len(rows) == 1 and rows[0].startswith("- ") and not YAML_KEY.match(rows[0][2:]):
                joined = unquote(rows[0][2:].strip())  # a list of one item: the item
            fields.insert(0, (key, joined.strip()))
    if not key:
        key = fields[0][1] if fields else head.strip().lstrip("- ").strip()
    return (a, b, fields, key, None)


def parse_yaml(lines: list[str]) -> tuple[list[Raw], list[str]]:
    out: list[Raw] = []
    names: dict[str, None] = {}
    starts = [
        i
        for i, ln in enumerate(lines)
        if ln.strip() and not ln[:1].isspace() and not is_comment(ln) and ln.strip() not in ("---", "...", "}", "]")
    ]  # a bracket alone closes a flow collection the key before it opened ("file_mounts: {")
    for k, a in enumerate(starts):
        b = _last_content(lines, a, (starts[k + 1] if k + 1 < len(starts) else len(lines)) - 1)
        items = _list_items(lines, a, b)
        m = YAML_KEY.match(lines[a].strip()) if items else None
        for first, last in items or [(a, b)]:
            raw = _yaml_record(lines, first, last)
            if m:  # an item of a top-level list of mappings: the list's key is its block ("model_list")
                raw = (raw[0], raw[1], [*raw[2], ("block", unquote(m.group(1).strip()))], raw[3], raw[4])
            names.update(dict.fromkeys(n for n, _ in raw[2]))
            out.append(raw)
    return out, list(names)


_MIN_MAPPINGS = 2  # a top-level key holding fewer mappings stays one record


def _content(lines: list[str], a: int, b: int) -> list[int]:
    return [i for i in range(a, b + 1) if lines[i].strip() and not is_comment(lines[i])]


def _mapping_head(lines: list[str], rows: list[int], k: int) -> bool:
    """Whether content row ``k`` is ``key:`` with no value and the next row is a deeper ``key: ...`` line that
    is no list item: a mapping, not a list or a scalar."""
    m = YAML_KEY.match(lines[rows[k]].strip())
    if not m or (m.group(2) or "").strip() or lines[rows[k]].lstrip().startswith("- ") or k + 1 >= len(rows):
        return False
    nxt = lines[rows[k + 1]]
    deeper = _indent(nxt) > _indent(lines[rows[k]])
    return deeper and not nxt.lstrip().startswith("- ") and bool(YAML_KEY.match(nxt.strip()))


def _records(lines: list[str], rows: list[int], k: int, name: str, outer: str, out: list[Raw], head: int) -> int:
    """Read the mapping ``name`` (inside ``outer``, its ``name:`` on line ``head``) whose first content row is
    ``rows[k]`` (its keys at that row's indent) up to a row indented less; append a record per mapping holding
    values, from its name's line (a search for the name finds it); return the index of the row after it."""
    indent = _indent(lines[rows[k]])
    fields: list[tuple[str, str]] = []
    first, last = head, rows[k]
    while k < len(rows) and _indent(lines[rows[k]]) >= indent:
        i = rows[k]
        if _indent(lines[i]) > indent:  # stray deeper line (a list's continuation): part of the value before it
            k += 1
            continue
        m = YAML_KEY.match(lines[i].strip())
        if _mapping_head(lines, rows, k):
            inner = unquote(m.group(1).strip()) if m else ""
            k = _records(lines, rows, k + 1, inner, f"{outer}.{name}" if outer else name, out, i)  # its path
            continue
        k += 1
        if m is None:
            continue
        value = (m.group(2) or "").strip()
        end = k
        while end < len(rows) and (
            _indent(lines[rows[end]]) > indent
            or (not value and _indent(lines[rows[end]]) == indent and _item(lines[rows[end]]))
        ):
            end += 1  # a list or a block scalar under the key (its "- " items may sit at the key's indent): its value
        if end > k:
            body = lines[i + 1 : rows[end - 1] + 1]
            items = [r.strip() for r in body if r.strip() and not is_comment(r)]
            if not value and items and all(r[:2] == "- " and not YAML_KEY.match(r[2:]) for r in items):
                value = items[0][2:].strip() if len(items) == 1 else "\n".join(items)  # plain items: one is the item
            elif _BLOCK_SCALAR.match(value):
                value = _block_value(body, value[0])
            else:
                value = "\n".join([value, *body]).strip()
            k = end
        fields.append((unquote(m.group(1).strip()), unquote(value)))
        last = rows[k - 1]
    if fields:
        block = outer.rpartition(".")[2]  # the mapping around it; its path where that is deeper (TensorMeta.fields)
        placed = [("block", block), *([("path", outer)] if outer != block else [])] if outer else []
        out.append((first, last, [*fields, *placed], name, None))
    return k


def _item(line: str) -> bool:
    return line.lstrip()[:2] in ("- ", "-")


def _nested(lines: list[str], a: int, b: int) -> list[Raw] | None:
    """The records of the top-level key at line ``a`` (its block ends at ``b``) where it holds mappings of
    mappings, else None."""
    rows = _content(lines, a + 1, b)
    heads = [k for k in range(len(rows)) if _mapping_head(lines, rows, k)]
    if len(heads) < _MIN_MAPPINGS or not rows or _indent(lines[rows[0]]) == 0:
        return None
    m = YAML_KEY.match(lines[a].strip())
    top = unquote(m.group(1).strip()) if m else ""
    out: list[Raw] = []
    try:
        _records(lines, rows, 0, top, "", out, a)
    except RecursionError:  # nested deeper than the interpreter recurses (a hostile text): read flat
        return None
    out.sort(key=lambda raw: raw[0])  # a mapping's own record comes after its inner ones: in line order for lookups
    return out or None


_DEEP_ITEM = re.compile(r"^(\s+)- ([\w.-]+):")
_MIN_DEEP = 3  # a list of fewer mappings inside a document of one record stays in it


def _deep_items(lines: list[str], a: int, b: int) -> list[Raw]:
    """Records for the items of the longest list of mappings inside a document of one record (a command
    surface's ``params:`` of ``- arg_name: zone`` items, each read as a record keyed by its first value): the
    outermost items of one indent that start with the same key, at least :data:`_MIN_DEEP`, and the deeper items
    starting with that key outside them (those of a ``- group:`` item's own ``params:``)."""
    groups: dict[tuple[int, str], list[int]] = {}
    for i in range(a + 1, b + 1):
        m = _DEEP_ITEM.match(lines[i])
        if m:
            groups.setdefault((len(m.group(1)), m.group(2)), []).append(i)
    kept = [(at, starts) for at, starts in groups.items() if len(starts) >= _MIN_DEEP]
    if not kept:
        return []
    (indent, first), starts = min(kept, key=lambda kv: (kv[0][0], -len(kv[1])))  # the outermost: not a list in items
    # deeper items of the same key outside those (a ``- group:`` item's own ``params:``) are more of them
    deeper = sorted((at, i) for (at, k), found in groups.items() if k == first and at > indent for i in found)
    spans: list[tuple[int, int]] = []
    for at, i in [(indent, i) for i in starts] + deeper:
        if any(x <= i <= y for x, y in spans):
            continue
        end = i + 1
        while end <= b and (not lines[end].strip() or is_comment(lines[end]) or _indent(lines[end]) > at):
            end += 1
        spans.append((i, _last_content(lines, i, end - 1)))
    return [_yaml_record(lines, x, y) for x, y in sorted(spans)]


def parse_yaml_tree(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """:func:`parse_yaml`'s records, a top-level key of nested mappings read as the
    records of its mappings; in a document of one record, the items of its longest list of mappings too."""
    raws, _ = parse_yaml(lines)
    out: list[Raw] = []
    for raw in raws:
        head = lines[raw[0]]
        nested = _nested(lines, raw[0], raw[1]) if not head[:1].isspace() and not head.startswith("- ") else None
        out.extend(nested or [raw])
    if len(out) == 1:
        out.extend(_deep_items(lines, out[0][0], out[0][1]))
    names: dict[str, None] = {}
    for raw in out:
        names.update(dict.fromkeys(n for n, _ in raw[2]))
    return out, list(names)
