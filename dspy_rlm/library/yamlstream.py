"""A stream of YAML documents (``---`` between them: Kubernetes manifests, a playbook's plays, a spec's examples)
as one record per document: its values at every depth, named by their path (``metadata.name``,
``spec.replicas``), keyed by a ``name``/``id``... value (the shallowest), else the document's tag (``--- !shape``),
else its first value. Read key by key at the top level, ten documents' ``kind`` and ``metadata`` fell into
thirty records of one line each, none saying which document it came from.

Block mappings, block sequences (a sequence of mappings: each item's values under the sequence's path), block
scalars, anchors and aliases (``*id001`` is the anchored value again), tags dropped; a flow collection stays its
text. Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re

from dspy_rlm.library.formats import KEY_NAMES, YAML_KEY, Raw, is_comment, unquote
from dspy_rlm.library.yamltree import looks_yaml

_MARKER = re.compile(r"^---(?:\s+(.*))?$")
_PROPERTY = re.compile(r"^(?:[&!][^\s]*\s*)+")  # "&id001 ", "!!omap ", "!shape": anchors and tags before a value
_MIN_DOCUMENTS = 2
_DEPTH = 40  # deeper than this, a document is read as its text (a hostile nesting)

_Row = tuple[int, int, str]  # (line number, indent, text without its indent)


def _documents(lines: list[str]) -> list[tuple[int, int, str]]:
    """(first line, last line, the marker's tag) of each document between ``---`` markers (a ``...`` ends one)."""
    out, start, tag = [], 0, ""
    for i, line in enumerate([*lines, "---"]):
        m = _MARKER.match(line.rstrip())
        if m or line.rstrip() == "...":
            if i > start:
                out.append((start, i - 1, tag))
            start, tag = i + 1, (m.group(1) or "") if m else ""
    return out


def looks_yaml_stream(sample: list[str]) -> float:
    """How YAML-like the sample is, where two documents or more hold mappings (0 otherwise)."""
    docs = [d for d in _documents(sample) if _doc_rows(sample, d[0], d[1])]
    mappings = sum(1 for a, b, _ in docs if (rows := _doc_rows(sample, a, b)) and YAML_KEY.match(rows[0][2]))
    if mappings < _MIN_DOCUMENTS:
        return 0.0
    return looks_yaml([ln for ln in sample if not _MARKER.match(ln.rstrip()) and not ln.startswith("%")])


def _doc_rows(lines: list[str], a: int, b: int) -> list[_Row]:
    out = []
    for i in range(a, min(b, len(lines) - 1) + 1):
        text = lines[i].rstrip()
        if text.strip() and not is_comment(text) and not text.startswith("%"):
            out.append((i, len(text) - len(text.lstrip()), text.strip()))
    return out


def _doc_scalar(text: str, anchors: dict[str, object]) -> object:
    text = re.sub(r"\s+#.*$", "", text) if text[:1] not in "\"'" else text
    if text.startswith("*"):
        return anchors.get(text[1:].strip(), text)
    return unquote(_PROPERTY.sub("", text).strip())


class _Reader:
    """A document's rows read into dicts, lists and strings."""

    def __init__(self, rows: list[_Row]) -> None:
        self.rows, self.k = rows, 0
        self.anchors: dict[str, object] = {}

    def node(self, indent: int, depth: int = 0) -> object:
        if self.k >= len(self.rows) or depth > _DEPTH:
            return ""
        _, at, text = self.rows[self.k]
        if text == "-" or text.startswith("- "):
            return self.sequence(at, depth)
        if YAML_KEY.match(text):
            return self.mapping(at, depth)
        self.k += 1
        return text

    def value(self, text: str, at: int, depth: int) -> object:
        """The value after ``key:`` (or ``-``) on a row indented ``at``: on the row, a block scalar, or below."""
        anchor = re.match(r"&(\S+)", text)
        rest = _PROPERTY.sub("", text).strip()
        if rest[:1] in ("|", ">") and re.fullmatch(r"[|>][-+0-9]*(?:\s+#.*)?", rest):
            body = []
            while self.k < len(self.rows) and self.rows[self.k][1] > at:
                body.append(self.rows[self.k][2])
                self.k += 1
            out: object = "\n".join(body) if rest[0] == "|" else " ".join(body)
        elif rest:
            out = _doc_scalar(text, self.anchors)
        elif self.k < len(self.rows) and (
            self.rows[self.k][1] > at or (self.rows[self.k][1] == at and self.rows[self.k][2][:2] in ("- ", "-"))
        ):
            out = self.node(self.rows[self.k][1], depth + 1)
        else:
            out = ""
        if anchor:
            self.anchors[anchor.group(1)] = out
        return out

    def mapping(self, at: int, depth: int, first: str | None = None) -> dict[str, object]:
        out: dict[str, object] = {}
        while first is not None or (self.k < len(self.rows) and self.rows[self.k][1] == at):
            text = first if first is not None else self.rows[self.k][2]
            m = YAML_KEY.match(text)
            if m is None or (text.startswith("- ") and first is None):
                break
            if first is None:
                self.k += 1
            first = None
            out[unquote(m.group(1).strip())] = self.value((m.group(2) or "").strip(), at, depth)
        return out

    def sequence(self, at: int, depth: int) -> list[object]:
        out: list[object] = []
        while self.k < len(self.rows) and self.rows[self.k][1] == at and self.rows[self.k][2][:2] in ("- ", "-"):
            text = self.rows[self.k][2][2:].strip()
            self.k += 1
            if YAML_KEY.match(text) and not text.startswith(("'", '"')):
                out.append(self.mapping(at + 2, depth + 1, first=text))
            else:
                out.append(self.value(text, at, depth))
        return out


def _flatten(value: object, path: str, out: list[tuple[str, str]], depth: int = 0) -> None:
    if isinstance(value, dict) and depth <= _DEPTH:
        for name, inner in value.items():
            _flatten(inner, f"{path}.{name}" if path else str(name), out, depth + 1)
    elif isinstance(value, list) and depth <= _DEPTH:
        if all(not isinstance(v, (dict, list)) for v in value):
            if path and value:
                out.append((path, ", ".join(str(v) for v in value)))
        else:
            for inner in value:
                _flatten(inner, path, out, depth + 1)
    elif path and str(value):
        out.append((path, str(value)))


def _stream_key(fields: list[tuple[str, str]], tag: str) -> str:
    named = [
        (n.count("."), KEY_NAMES.index(n.rsplit(".", 1)[-1].lower()), v)
        for n, v in fields
        if n.rsplit(".", 1)[-1].lower() in KEY_NAMES
    ]
    if named:
        return min(named)[2]
    if tag.startswith("!"):
        return tag.split()[0].lstrip("!").strip("<>")
    return fields[0][1] if fields else ""


def parse_yaml_stream(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """One record per document that is a mapping (see the module's note); its lines are the document's."""
    out: list[Raw] = []
    names: dict[str, None] = {}
    for a, b, tag in _documents(lines):
        rows = _doc_rows(lines, a, b)
        if not rows or not YAML_KEY.match(rows[0][2]) or rows[0][2].startswith("- "):
            continue
        reader = _Reader(rows)
        try:
            document = reader.mapping(rows[0][1], 0)
        except RecursionError:
            continue
        fields: list[tuple[str, str]] = []
        _flatten(document, "", fields)
        if not fields:
            continue
        names.update(dict.fromkeys(n for n, _ in fields))
        out.append((rows[0][0], rows[-1][0], fields, _stream_key(fields, tag), None))
    return out, list(names)
