"""A drawn tree: one node per line, each below its root hung from a connector (``├── name``, ``└── name``,
``|-- name``, ```-- name``, ``+-- name``) after the rails of its ancestors (``│``, ``|``): the ``tree`` command's
output, a class hierarchy, a dependency tree. One record per node, keyed by its name (the label's first word
where a bracketed note follows it: ``ExceptionGroup [BaseExceptionGroup]``), with the fields ``name``, ``parent``
(the node it hangs from, "" for a root), ``depth``, ``children`` (how many hang from it) and ``descendants``
(how many below it in all), and the label's note as ``note``. Read as a whitespace table, the rails were values
and a node no record of its name. Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re

from dspy_rlm.library.formats import Raw

_NODE = re.compile(r"^([ \t│┃|]*?)(├──|└──|├─|└─|┣━━|┗━━|\|--|`--|\+--|\\--)[─━-]*[ \t]*(\S.*?)[ \t]*$")
_ROOT = re.compile(r"^(\S.*?)[ \t]*$")
_RAIL = re.compile(r"^[ \t│┃|]*$")
_NOTED = re.compile(r"^(\S+)[ \t]+([\[(].*[\])])$")


def looks_tree(sample: list[str]) -> float:
    """The share of non-blank lines that are nodes (a connector and a label), roots or bare rails, where the
    first is a root, at least three and half of them are nodes, and a root stands over three nodes or more."""
    rows = [ln.rstrip() for ln in sample if ln.strip()]
    nodes = sum(1 for ln in rows if _NODE.match(ln))
    if nodes < 3 or nodes * 2 < len(rows) or _NODE.match(rows[0]) or rows[0][:1].isspace():
        return 0.0
    roots = sum(1 for ln in rows if not ln[:1].isspace() and not _NODE.match(ln) and not _RAIL.match(ln))
    if roots * 3 > nodes:
        return 0.0
    fits = sum(1 for ln in rows if _NODE.match(ln) or _RAIL.match(ln) or not ln[:1].isspace())
    return fits / len(rows)


def _label(text: str) -> tuple[str, list[tuple[str, str]]]:
    m = _NOTED.match(text)
    return (m.group(1), [("note", m.group(2))]) if m else (text, [])


def parse_tree(lines: list[str]) -> tuple[list[Raw], list[str]]:
    nodes: list[list] = []  # [line, name, parent index or -1, depth, label column, extra fields]
    stack: list[int] = []  # indexes of the open ancestors, outermost first
    for i, line in enumerate(lines):
        text = line.rstrip()
        m = _NODE.match(text)
        if m:
            column = len(m.group(1))
            while stack and nodes[stack[-1]][4] > column:
                stack.pop()
            parent = stack[-1] if stack else -1
            name, extra = _label(m.group(3))
            label_col = text.index(m.group(3), m.end(2))
        elif text.strip() and not text[:1].isspace() and not _RAIL.match(text):
            parent, (name, extra), label_col = -1, _label(text.strip()), 0
            stack.clear()
        else:
            continue
        depth = nodes[parent][3] + 1 if parent >= 0 else 0
        nodes.append([i, name, parent, depth, label_col, extra])
        stack.append(len(nodes) - 1)
    children = [0] * len(nodes)
    below = [0] * len(nodes)
    for node in nodes:
        if node[2] >= 0:
            children[node[2]] += 1
        up = node[2]
        while up >= 0:
            below[up] += 1
            up = nodes[up][2]
    raws: list[Raw] = []
    for n, (i, name, parent, depth, _, extra) in enumerate(nodes):
        fields = [
            ("name", name),
            ("parent", nodes[parent][1] if parent >= 0 else ""),
            ("depth", str(depth)),
            ("children", str(children[n])),
            ("descendants", str(below[n])),
            *extra,
        ]
        raws.append((i, i, fields, name, None))
    return raws, ["name", "parent", "depth", "children", "descendants"] + (["note"] if any(n[5] for n in nodes) else [])
