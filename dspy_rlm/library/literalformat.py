"""Literal tables in source code: the lines of a program that write data, one entry a line, inside named
brackets (Perl's ``%released = ( 5.008008 => '2006-01-31', ...)``, JavaScript's ``const aliases = { ddp:
'dedupe', ... }`` and ``[ 'access', 'audit', ... ]``, Python's ``IM_USED = 226, 'IM Used'`` in a class, C's
``NFSERR_NOSPC=28,`` in ``enum nfsstat {``). Each entry is a record keyed by its name (a list's item by itself),
with the fields ``value`` (unquoted where one quoted string; a value whose brackets close on later lines takes
them), ``block`` (the names of the brackets it is in, outermost first, joined by ``.``; not for a list's item,
whose only field it would be, read as the answer to any question naming the item) and ``comment`` (a ``#``,
``//`` or ``/* */`` comment closing the line). A bracket opened after ``words NAME`` (``enum nfsstat {``, ``type
Options = {``) is named NAME; inside a named bracket a declaration is an entry too: C's ``unsigned mode;`` (value
``unsigned``) and TypeScript's ``withMaxFiles(limit: number): this;`` (value ``(limit: number): this``).
Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re

from dspy_rlm.library.formats import Raw, unquote

_KEY = r"(?P<key>\"[^\"\n]*\"|'[^'\n]*'|[%$@]?[\w.-]+)\??"  # TypeScript's optional "name?: type"
_ENTRY = re.compile(
    r"\s*(?:(?:export|declare|type|const|let|var|our|my|readonly|public|private|static)\s+)*"
    + _KEY
    + r"\s*(?:=>|:(?![:=])|=(?![=>]))\s*(?P<value>\S.*?)\s*$"
)
_METHOD = re.compile(  # TypeScript's "withMaxFiles(limit: number): this;" in a class
    r"\s*(?:(?:public|private|static|async|readonly)\s+)*(?P<key>[A-Za-z_]\w*)\s*(?:<[^()]*>)?(?P<value>\(.*\)(?:\s*:.+?)?)\s*;\s*$"
)
_DECLARED = re.compile(r"\s*(?P<value>[A-Za-z_][\w ]*?)\s+\**(?P<key>[A-Za-z_]\w*)\s*(?:[\[<][^\]>]*[\]>])?\s*;\s*$")
_TUPLE_PAIR = re.compile(  # Python's ("cudaError", "hipError_t"), in a list of pairs
    r"\s*\(\s*(?P<key>\"[^\"\n]*\"|'[^'\n]*')\s*,\s*(?P<value>\S.*?)\s*\)\s*,?\s*$"
)
_ITEM = re.compile(r"\s*(?P<key>\"[^\"\n]*\"|'[^'\n]*'|-?\d[\w.:-]*)\s*,?\s*$")
_OPENS = re.compile(r"(?:[\[({]|=>\s*[\[({]|qw\s*\()\s*$")
_CLOSES = re.compile(r"\s*[\])}]")
_TRAILING = re.compile(r"\s+(?:#|//)\s*(.*)$|\s*/\*\s*(.*?)\s*\*/\s*$")
_NAMED_OPEN = re.compile(
    r"\s*(?:[A-Za-z_]\w*\s+)+(?P<name>[A-Za-z_]\w*)(?:<[^<>]*>)?\s*=?\s*[\[({]\s*$"
)  # enum nfsstat {
_LINE_COMMENT = re.compile(r"\s*(?:#|//|/?\*|--|;;)")


def _depth(text: str) -> int:
    """Opening brackets less closing ones, outside quotes."""
    bare = re.sub(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'", "", text)
    return sum(bare.count(c) for c in "([{") - sum(bare.count(c) for c in ")]}")


def _comment(value: str) -> tuple[str, str]:
    """(value, comment) of a value a ``#`` or ``//`` comment closes, outside quotes."""
    for m in _TRAILING.finditer(value):
        if value[: m.start()].count('"') % 2 == 0 and value[: m.start()].count("'") % 2 == 0:
            return value[: m.start()], (m.group(1) if m.group(1) is not None else m.group(2)).strip()
    return value, ""


def _first(value: str) -> str:
    """A pair's second item: a tuple's first quoted string (``("TORCH_HIP_VERSION", CONV_TYPE, API_PYTORCH)``:
    the name it maps to, its tags after it), else the value unquoted."""
    inner = value[1:-1].strip() if value.startswith("(") and value.endswith(")") else value
    m = re.match(r"(\"[^\"\n]*\"|'[^'\n]*')\s*(?:,.*)?$", inner)
    return unquote(m.group(1)) if m else unquote(value)


def _entries(lines: list[str]) -> list[tuple[int, int, str, str, str, str]]:
    """(first line, last line, key, value, block, comment) of each entry; a value opening a bracket it does not
    close on its line is a block (its name the entry's key), not an entry."""
    out: list[tuple[int, int, str, str, str, str]] = []
    stack: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if not s or _LINE_COMMENT.match(s):
            i += 1
            continue
        if _CLOSES.match(s) and stack and _depth(s) < 0:
            stack.pop()
            i += 1
            continue
        m = _ENTRY.match(line)
        if _OPENS.search(s) and _depth(s) > 0:  # a bracket opens: named, or not (a call's arguments, a nested list)
            named = _NAMED_OPEN.match(s)  # C's "enum nfsstat {", XDR's "program NFS_PROGRAM {"
            stack.append(unquote(m.group("key")).lstrip("%$@") if m else named.group("name") if named else "")
            i += 1
            continue
        first = i
        if m:
            value, comment = _comment(m.group("value"))
            while _depth(value) > 0 and i + 1 < len(lines) and i - first < 8:  # the tuple goes on below
                i += 1
                value += " " + lines[i].strip()
            value = value.strip().rstrip(",;").strip()
            key = unquote(m.group("key"))
            out.append((first, i, key, unquote(value), ".".join(b for b in stack if b), comment))
        elif stack and stack[-1] and (decl := _DECLARED.match(_comment(line)[0]) or _METHOD.match(line)):
            out.append(
                (i, i, decl.group("key"), decl.group("value"), ".".join(b for b in stack if b), _comment(line)[1])
            )
        elif stack and (pair := _TUPLE_PAIR.match(line)) and _depth(line) == 0:
            value = _first(pair.group("value"))
            out.append((i, i, unquote(pair.group("key")), value, ".".join(b for b in stack if b), ""))
        elif stack and (item := _ITEM.match(line)):
            out.append((i, i, unquote(item.group("key")), "", ".".join(b for b in stack if b), ""))
        i += 1
    return out


def looks_literals(sample: list[str]) -> float:
    """The share of the code lines (not blank, not comments) that are entries or brackets around them, where
    ten entries or more sit inside named brackets; 0 otherwise."""
    code = [ln for ln in sample if ln.strip() and not _LINE_COMMENT.match(ln.strip())]
    entries = _entries(sample)
    inside = [e for e in entries if e[4]]
    ended = sum(1 for e in entries if _comment(sample[e[1]].rstrip())[0].rstrip().endswith((",", ";")))
    if len(inside) < 10 or not code or ended * 5 < len(entries) * 3:
        return 0.0  # a program writes its entries with commas; a grammar's "name: rule" lines are no literals
    brackets = sum(1 for ln in code if _CLOSES.match(ln.strip()) or _OPENS.search(ln.strip()))
    lines = sum(e[1] - e[0] + 1 for e in entries)
    return min(1.0, (lines + brackets) / len(code))


def parse_literals(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """One record per entry: key its name; fields ``value`` (where it has one), ``block``, ``comment``."""
    out: list[Raw] = []
    for a, b, key, value, block, comment in _entries(lines):
        fields = [("value", value)] if value else []
        fields += [("block", block)] if block and value else []  # a list's item: no field, its own answer
        fields += [("comment", comment)] if comment else []
        out.append((a, b, fields, key, None))
    return out, ["value", "block", "comment"]
