"""Nested YAML mappings as records: where a top-level key holds mappings of mappings (``canonical_surfaces:``
then ``  ai:`` then ``    command: ai``), each mapping that holds values is a record of its own, keyed by its
name, with those values and ``block`` (the name of the mapping around it). Read at the top level only, all the
entries' fields fell into one record (``name`` said a hundred times). A list or a block scalar under a key is
that key's value, as :func:`dspy_rlm.library.kvformats.parse_yaml` reads it; a top-level key of values only, or
of list items, stays its record. Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

from dspy_rlm.library.formats import YAML_KEY, Raw, is_comment, unquote
from dspy_rlm.library.kvformats import _BLOCK_SCALAR, _block_value, _indent, parse_yaml

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


def _records(lines: list[str], rows: list[int], k: int, name: str, outer: str, out: list[Raw]) -> int:
    """Read the mapping ``name`` (inside ``outer``) whose first content row is ``rows[k]`` (its keys at that
    row's indent) up to a row indented less; append a record per mapping holding values; return the index of
    the row after it."""
    indent = _indent(lines[rows[k]])
    fields: list[tuple[str, str]] = []
    first = last = rows[k]
    while k < len(rows) and _indent(lines[rows[k]]) >= indent:
        i = rows[k]
        if _indent(lines[i]) > indent:  # stray deeper line (a list's continuation): part of the value before it
            k += 1
            continue
        m = YAML_KEY.match(lines[i].strip())
        if _mapping_head(lines, rows, k):
            inner = unquote(m.group(1).strip()) if m else ""
            k = _records(lines, rows, k + 1, inner, name, out)
            continue
        k += 1
        if m is None:
            continue
        value = (m.group(2) or "").strip()
        end = k
        while end < len(rows) and _indent(lines[rows[end]]) > indent:
            end += 1  # a list or a block scalar under the key: its value
        if end > k:
            body = lines[i + 1 : rows[end - 1] + 1]
            value = _block_value(body, value[0]) if _BLOCK_SCALAR.match(value) else "\n".join([value, *body]).strip()
            k = end
        fields.append((unquote(m.group(1).strip()), unquote(value)))
        last = rows[k - 1]
    if fields:
        out.append((first, last, [*fields, ("block", outer)] if outer else fields, name, None))
    return k


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
        _records(lines, rows, 0, top, "", out)
    except RecursionError:  # nested deeper than the interpreter recurses (a hostile text): read flat
        return None
    return out or None


def parse_yaml_tree(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """:func:`~dspy_rlm.library.kvformats.parse_yaml`'s records, a top-level key of nested mappings read as the
    records of its mappings."""
    raws, _ = parse_yaml(lines)
    out: list[Raw] = []
    for raw in raws:
        head = lines[raw[0]]
        nested = _nested(lines, raw[0], raw[1]) if not head[:1].isspace() and not head.startswith("- ") else None
        out.extend(nested or [raw])
    names: dict[str, None] = {}
    for raw in out:
        names.update(dict.fromkeys(n for n, _ in raw[2]))
    return out, list(names)
