"""Literal tables in source code: the lines of a program that write data, one entry a line, inside named
brackets (Perl's ``%released = ( 5.008008 => '2006-01-31', ...)``, JavaScript's ``const aliases = { ddp:
'dedupe', ... }`` and ``[ 'access', 'audit', ... ]``, Python's ``IM_USED = 226, 'IM Used'`` in a class, C's
``NFSERR_NOSPC=28,`` in ``enum nfsstat {``). Each entry is a record keyed by its name (a list's item by itself),
with the fields ``value`` (unquoted where one quoted string; a value whose brackets close on later lines takes
them), ``block`` (the names of the brackets it is in, outermost first, joined by ``.``; not for a list's item,
whose only field it would be, read as the answer to any question naming the item) and ``comment`` (a ``#``,
``//`` or ``/* */`` comment closing the line). A bracket opened after ``words NAME`` (``enum nfsstat {``, ``type
Options = {``) is named NAME; inside a named bracket a declaration is an entry too: C's ``unsigned mode;`` (value
``unsigned``) and TypeScript's ``withMaxFiles(limit: number): this;`` (value ``(limit: number): this``). C's
``enum`` over a ``{`` line of its own is named ``enum`` (``struct in_addr`` ``in_addr``); a ``#define NAME value`` is
an entry; lines inside a ``/* */`` comment or carried on by a backslash are no code. A Python class is an entry
whose field ``bases`` holds its bases, and the ``NAME = value`` lines of its body are entries of its block (an
enum's members: a typeshed stub). Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

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
_DECLARED = re.compile(  # a pointer's star beside either word or apart ("void * dxferp;")
    r"\s*(?P<value>[A-Za-z_][\w ]*?)(?:\s+|\s*(?=\*))\**\s*(?P<key>[A-Za-z_]\w*)\s*(?:[\[<][^\]>]*[\]>])?\s*;\s*$"
)
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
_MERGED_OPEN = re.compile(r"\s*(?:[A-Za-z_]\w*\s+)?[\w.:]+\(\s*(?:[\w.]*[:.])?(?P<name>[A-Za-z_]\w*)\s*,\s*[\[{]\s*$")
"""A call merging entries into a target (Vim's ``call extend(v:colornames, {``, ``Object.assign(target, {``): the
bracket is named by the target."""
_VIM_CARRIED = re.compile(r"^([ \t]*)\\(?=[ \t])")
"""A Vim script's continued line (``\\ 'css_black': '#000000',``): its backslash carries the line above on."""
_HEAD = re.compile(r"\s*(?:typedef\s+)?(?:enum|struct|union)(?:\s+(?P<name>[A-Za-z_]\w*))?\s*$")
"""C's ``enum`` / ``struct in_addr`` over a line of its own ``{``: the bracket's name (``enum`` where it has none)."""
_C_DEFINE = re.compile(r"\s*#\s*define\s+(?P<key>[A-Za-z_]\w*)[ \t]+(?P<value>[^\s\\].*?)\s*$")
"""C's ``#define IPPORT_ECHO 7``: an entry (not a macro with arguments, nor one going on past a backslash)."""
_LINE_COMMENT = re.compile(r"\s*(?:#|//|/?\*|--|;;)")
_CLASS = re.compile(r"(?P<indent>[ \t]*)class\s+(?P<key>[A-Za-z_]\w*)\s*(?:\((?P<bases>[^()]*)\))?\s*:")
"""A Python class: a block by its indent, its body's ``NAME = value`` lines entries (an enum's members)."""


_QUOTED_SPAN = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'")


def _depth(text: str) -> int:
    """Opening brackets less closing ones, outside quotes."""
    bare = _QUOTED_SPAN.sub("", text)
    return sum(bare.count(c) for c in "([{") - sum(bare.count(c) for c in ")]}")


def _comment(value: str) -> tuple[str, str]:
    """(value, comment) of a value a ``#`` or ``//`` comment closes, outside quotes."""
    for m in _TRAILING.finditer(value):
        if value[: m.start()].count('"') % 2 == 0 and value[: m.start()].count("'") % 2 == 0:
            return value[: m.start()], (m.group(1) if m.group(1) is not None else m.group(2)).strip()
    return value, ""


def _uncommented(line: str) -> str:
    """A line less its trailing comment, one that goes on below it too (``int x; /* says ...`` / ``... */``)."""
    code = _comment(line)[0]
    at = code.find("/*")
    return code[:at] if at >= 0 and "*/" not in code[at:] else code


def _first(value: str) -> str:
    """A pair's second item: a tuple's first quoted string (``("TORCH_HIP_VERSION", CONV_TYPE, API_PYTORCH)``:
    the name it maps to, its tags after it), else the value unquoted."""
    inner = value[1:-1].strip() if value.startswith("(") and value.endswith(")") else value
    m = re.match(r"(\"[^\"\n]*\"|'[^'\n]*')\s*(?:,.*)?$", inner)
    return unquote(m.group(1)) if m else unquote(value)


_Entry = tuple[int, int, str, str, str, str, str]


def _entries(lines: list[str]) -> list[_Entry]:
    """(first line, last line, key, value, block, comment, what the value is) of each entry; a value opening a
    bracket it does not close on its line is a block (its name the entry's key), not an entry. What the value
    is: ``value``, ``member`` (a Python class body's ``NAME = value``) or ``bases`` (a Python class's)."""
    lines = _carried_on(lines)
    out: list[_Entry] = []
    stack: list[str] = []
    classes: list[tuple[int, str]] = []  # the Python classes around the line: (indent, name)
    head = -1  # the last code line that opened nothing
    aside = _aside(lines)
    i = 0
    while i < len(lines):
        line = lines[i]
        s = "" if i in aside else line.strip()
        define = _C_DEFINE.match(line) if s else None
        if define and not s.endswith("\\"):
            value, comment = _comment(define.group("value"))
            if value.strip() != define.group("key"):  # "#define IPPROTO_IP IPPROTO_IP" names an entry above
                block = ".".join(b for b in stack if b)
                out.append((i, i, define.group("key"), value.strip(), block, comment, "member"))
        if not s or _LINE_COMMENT.match(s):
            i += 1
            continue
        while classes and len(line) - len(line.lstrip()) <= classes[-1][0]:
            classes.pop()
        if not stack and (c := _CLASS.match(line)):  # its bases are its value: "class Align(CoerciveEnum):"
            block = ".".join(name for _, name in classes)
            out.append((i, i, c.group("key"), (c.group("bases") or "").strip(), block, "", "bases"))
            classes.append((len(c.group("indent")), c.group("key")))
            i += 1
            continue
        if _CLOSES.match(s) and stack and _depth(s) < 0:
            stack.pop()
            i += 1
            continue
        m = _ENTRY.match(line)
        if _OPENS.search(s) and _depth(s) > 0:  # a bracket opens: named, or not (a call's arguments, a nested list)
            named = _NAMED_OPEN.match(s) or _MERGED_OPEN.match(s)  # C's "enum nfsstat {", "extend(v:names, {"
            above = _HEAD.match(lines[head]) if s in "{" and head >= 0 else None  # "enum\n  {": named by its line
            name = (
                named.group("name") if named else (above.group("name") or above.group(0).split()[-1]) if above else ""
            )
            stack.append(unquote(m.group("key")).lstrip("%$@") if m else name)
            i += 1
            continue
        head = i
        first = i
        if m:
            value, comment = _comment(m.group("value"))
            while _depth(value) > 0 and i + 1 < len(lines) and i - first < 8:  # the tuple goes on below
                i += 1
                value += " " + lines[i].strip()
            value = value.strip().rstrip(",;").strip()
            key = unquote(m.group("key"))
            block = ".".join([*(name for _, name in classes), *(b for b in stack if b)])
            closed = 0  # "'purple': '#7e1e9c'}": the last entry closes its block on its own line
            while stack and closed < len(stack) and _depth(value) < 0 and value[-1:] in ")]}":
                value, closed = value[:-1].rstrip().rstrip(",;").rstrip(), closed + 1
            out.append((first, i, key, unquote(value), block, comment, "member" if classes else "value"))
            del stack[len(stack) - closed :]
        elif stack and stack[-1] and (decl := _DECLARED.match(_uncommented(line)) or _METHOD.match(line)):
            out.append(
                (
                    i,
                    i,
                    decl.group("key"),
                    decl.group("value"),
                    ".".join(b for b in stack if b),
                    _comment(line)[1],
                    "value",
                )
            )
        elif stack and (pair := _TUPLE_PAIR.match(line)) and _depth(line) == 0:
            value = _first(pair.group("value"))
            out.append((i, i, unquote(pair.group("key")), value, ".".join(b for b in stack if b), "", "value"))
        elif stack and (item := _ITEM.match(line)):
            out.append((i, i, unquote(item.group("key")), "", ".".join(b for b in stack if b), "", "value"))
        i += 1
    return out


def _carried_on(lines: list[str]) -> list[str]:
    """The lines with a Vim script's continuing backslash (at a line's start) made a space."""
    if not any(ln.lstrip().startswith("\\") for ln in lines[:2000]):
        return lines
    return [_VIM_CARRIED.sub(r"\1 ", ln) for ln in lines]


def _aside(lines: list[str]) -> set[int]:
    """The lines inside a ``/* ... */`` comment past its first, and those a backslash carries on (a macro's body)."""
    out: set[int] = set()
    within = carried = False
    for i, line in enumerate(lines):
        if within or carried:
            out.add(i)
        carried = line.rstrip().endswith("\\")
        bare = _QUOTED_SPAN.sub("", line)  # a glob in a string ("src/**/*.ts") opens no comment
        opened, closed = bare.rfind("/*"), bare.rfind("*/")
        within = opened > closed if opened >= 0 or closed >= 0 else within
    return out


def looks_literals(sample: list[str]) -> float:
    """The share of the code lines (not blank, not comments) that are entries or brackets around them, where
    ten entries or more sit inside named brackets; 0 otherwise."""
    sample = _carried_on(sample)
    aside = _aside(sample)
    code = [ln for i, ln in enumerate(sample) if ln.strip() and not _LINE_COMMENT.match(ln.strip()) and i not in aside]
    entries = _entries(sample)
    inside = [e for e in entries if e[4]]
    ended = sum(
        1 for e in entries if e[6] != "value" or _comment(sample[e[1]].rstrip())[0].rstrip().endswith((",", ";"))
    )
    if len(inside) < 10 or not code or ended * 5 < len(entries) * 3:
        return 0.0  # a program writes its entries with commas; a grammar's "name: rule" lines are no literals
    brackets = sum(1 for ln in code if _CLOSES.match(ln.strip()) or _OPENS.search(ln.strip()))
    lines = sum(e[1] - e[0] + 1 for e in entries)
    return min(1.0, (lines + brackets) / len(code))


def parse_literals(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """One record per entry: key its name; fields ``value`` (where it has one), ``block``, ``comment``."""
    out: list[Raw] = []
    for a, b, key, value, block, comment, what in _entries(lines):
        fields = [("bases" if what == "bases" else "value", value)] if value else []
        fields += [("block", block)] if block and value else []  # a list's item: no field, its own answer
        fields += [("comment", comment)] if comment else []
        out.append((a, b, fields, key, None))
    return out, ["value", "block", "comment", "bases"]
