"""Shell scripts as records (a ``*-config`` script, an init script, a function library), kind ``assignments``,
detail ``shell``: one per option the ``case`` over the script's arguments names (``--version)``, ``--prefix=*)``,
``-h|--help)``) [the pattern as written less ``)``; ``a|b`` by its first alternative, the others in ``aliases``];
one per option a usage text lists (``  --cflags   print compiler flags`` in a heredoc, an ``echo`` or a quoted
``usage="..."``) [the option], its description the field ``help``, on the case's record where a pattern names the
same option (there the help lies off the record's lines: a lookup by its words finds the usage text's lines, not the
record); one per top-level ``NAME=value`` [NAME], its value unquoted the field of that name; one per function [its
name]. A branch's or function's fields: ``prints`` (what its ``echo``/``printf``/``cat <<EOF`` writes to stdout: the
arguments as written, one quoted argument unquoted; of several commands, the span of them), ``sets`` (its
assignments), ``runs`` (its other commands), ``exits`` (its ``exit`` status, not one after ``||``). A case over
anything but the arguments (``$1``, the loop variable of ``for a in "$@"``) is code, and so are the catch-all ``*)``
and a glob (``-*=*)``). Functions are records (a function library, gettext.sh, is made of them), but for one
holding the usage text: keyed ``usage``, it answered every question asking which option a description names.
Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import bisect
import re

from dspy_rlm.library.formats import Raw, unquote
from dspy_rlm.library.shellwords import SH_ASSIGN, ShCmd, sh_assignment, sh_commands, sh_unquoted, sh_word_end, sh_words

_SH_FUNCTION = re.compile(
    r"(?:function[ \t]+([\w.:-]+)[ \t]*(?:\([ \t]*\))?|([A-Za-z_][\w.:-]*)[ \t]*\([ \t]*\))[ \t]*"
)
_SH_ARGS = re.compile(r"\"?\$\{?([1@*]|[A-Za-z_]\w*)\}?\"?")
_SH_QUIET = frozenset(("shift", "break", "continue", ":", "true", "return", "set", "local", "exit", "[", "[[", "test"))
_SH_OPT = r"-{1,2}[A-Za-z0-9?][\w.?-]*(?:\[?=[^\s\]]+\]?|\[=?[^\s\]]+\])?(?: (?:[A-Z][A-Z_]*|<[^<>\s]+>))?"
_SH_HELP = re.compile(
    rf"[ \t]*(?P<opts>{_SH_OPT}(?:[ \t]*[,|][ \t]*{_SH_OPT})*)(?:[ \t]{{2,}}|\t)(?P<desc>\S.*?)[ \t]*$"
)
_SH_ALTS = re.compile(r"[ \t]*[,|][ \t]*")


class _ShOwner:
    """A case branch or a function: its first and last lines, and the spans of what it prints, sets and runs
    (value start, value end, command start, command end)."""

    def __init__(self, key: str, line: int, aliases: tuple[int, int] | None = None, function: bool = False):
        self.key, self.line, self.end, self.aliases, self.function = key, line, line, aliases, function
        self.spans: dict[str, list[tuple[int, int, int, int]]] = {"prints": [], "sets": [], "runs": []}
        self.exits: tuple[int, int] | None = None

    def fields(self, text: str) -> list[tuple[str, str]]:
        """Its fields; where it prints (sets, runs) several times, the span of those commands, as written."""
        out = [
            (n, text[sp[0][0] : sp[0][1]] if len(sp) == 1 else text[sp[0][2] : sp[-1][3]])
            for n, sp in self.spans.items()
            if sp
        ]
        out += [("exits", text[slice(*self.exits)])] if self.exits else []
        return out + ([("aliases", text[slice(*self.aliases)])] if self.aliases else [])

    def classify(self, text: str, s: int, e: int, heredoc: tuple[int, int] | None, piped: bool, cond: bool) -> None:
        """Files the command at ``s:e`` (its heredoc's span, if any; ``piped``: its output piped on; ``cond``: run
        after ``&&`` or ``||``, no exit status of its own) under what it prints, sets, runs or exits with."""
        if sh_assignment(text, s, e) is not None:
            self.spans["sets"].append((s, e, s, e))
            return
        words = sh_words(text, s, e)
        said = [text[a:b] for a, b in words]
        if said[0] == "exit" and len(said) > 1 and said[1].isdigit() and self.exits is None and not cond:
            self.exits = words[1]
        if said[0] in _SH_QUIET:
            return
        args, k, stdout = [], 1, not piped
        while k < len(words):  # redirections are no arguments: ">&1" keeps stdout, ">&2" or "> file" leaves it
            if re.match(r"\d*[<>]", said[k]):
                stdout = stdout and (said[k].startswith("<") or re.fullmatch(r"1?>&1|2>.*", said[k]) is not None)
                k += 1 + (re.fullmatch(r"\d*[<>]{1,2}", said[k]) is not None)
                continue
            args.append(words[k])
            k += 1
        if said[0] == "echo" and stdout:
            while args and re.fullmatch(r"-[neE]+", text[args[0][0] : args[0][1]]):
                args.pop(0)
        elif said[0] == "printf" and stdout and args:
            if len(args) > 1 and unquote(text[args[0][0] : args[0][1]]) in ("%s\\n", "%s"):
                args.pop(0)
        elif said[0] == "cat" and stdout and heredoc and not args:
            if heredoc[1] > heredoc[0]:
                self.spans["prints"].append((*heredoc, s, e))
            return
        else:
            self.spans["runs"].append((s, e, s, e))
            return
        if args:
            vs, ve = sh_unquoted(text, args[0][0], args[-1][1]) if len(args) == 1 else (args[0][0], args[-1][1])
            self.spans["prints"].append((vs, ve, s, e))


_SH_PATTERN = re.compile(r"\(?(?:\\.|'[^']*'|\"(?:\\.|[^\"\\])*\"|\[[^\]]*\]|[^)\\'\"\[])*\)")
"""A case pattern to its closing ``)`` (outside quotes and brackets)."""


def _sh_pattern_end(c: str) -> int:
    """Where a case pattern's closing ``)`` stands, else -1."""
    return m.end() - 1 if (m := _SH_PATTERN.match(c)) else -1


_ShVar = tuple[str, int, int, int]  # name, line, value start, value end


def _sh_structure(text: str, lines: list[str], starts: list[int]) -> tuple[list[_ShVar], list[_ShOwner], list, dict]:
    """The top-level assignments, the option branches and functions, the commands and their heredocs."""
    cmds, bodies = sh_commands(text, lines, starts)
    stack: list[list] = []  # [kind, detail, owner]: a case's detail whether it is over the arguments, its owner
    # the branch open (None: a pattern awaited; "": a branch of no record); a loop's the variable of "$@"
    variables: list[_ShVar] = []
    owners: list[_ShOwner] = []

    def line_of(at: int) -> int:
        return bisect.bisect_right(starts, at) - 1

    def owner() -> _ShOwner | None:
        return next((f[2] for f in reversed(stack) if isinstance(f[2], _ShOwner)), None)

    def pop(kinds: tuple[str, ...], at: int) -> None:
        k = next((k for k in range(len(stack) - 1, -1, -1) if stack[k][0] in kinds), len(stack))  # none: no pop
        for f in stack[k:]:
            if isinstance(f[2], _ShOwner):
                f[2].end = max(f[2].end, at)
        del stack[k:]

    ci = 0
    while ci < len(cmds):
        s, e, sep = cmds[ci]
        while stack and stack[-1][0] == "case" and stack[-1][2] is None and sep == "|" and ci + 1 < len(cmds):
            if _sh_pattern_end(text[s:e]) >= 0:  # "start|stop)": a pattern's alternatives, no pipe
                break
            ci += 1
            e, sep = cmds[ci][1], cmds[ci][2]
        line = line_of(s)
        while s < e:
            c = text[s:e]
            word = re.match(r"[^\s;&|()]*", c).group(0)  # type: ignore[union-attr]
            top = stack[-1] if stack else None
            if top and top[0] == "case" and top[2] is None and word != "esac":  # a pattern
                close = _sh_pattern_end(c)
                if close < 0:
                    break
                first = re.split(r"\s*\|\s*", c[:close].lstrip("(").strip())[0]
                if top[1] and first and not re.search(r"[*?\[]", re.sub(r"=\*$", "", first)):
                    at = s + c.index(first) + len(first)
                    more = re.match(r"\s*\|\s*", text[at : s + close])
                    owners.append(
                        _ShOwner(first, line, (at + more.end(), s + len(c[:close].rstrip())) if more else None)
                    )
                    top[2] = owners[-1]
                else:
                    top[2] = ""
                s += close + 1
            elif word == "esac":
                pop(("case",), line)
                break
            elif word in ("fi", "done", "}"):
                pop({"fi": ("if",), "done": ("loop",), "}": ("func", "brace")}[word], line)
                break
            elif word in ("if", "while", "until", "for", "select"):
                m = re.match(r"\w+\s+(\w+)\s*(?:$|in\s+\"?\$[@*]\"?\s*$)", c) if word in ("for", "select") else None
                stack.append(["if" if word == "if" else "loop", m.group(1) if m else None, None])
                break
            elif word == "case" and (
                m := re.match(
                    r"\s+in\b", text[(w := sh_word_end(text, s + 4 + len(c[4:]) - len(c[4:].lstrip()), e)) : e]
                )
            ):
                subject = _SH_ARGS.fullmatch(text[s + 4 : w].strip())
                loops = {f[1] for f in stack if f[0] == "loop"}
                stack.append(
                    ["case", subject is not None and (subject.group(1) in "1@*" or subject.group(1) in loops), None]
                )
                s = w + m.end()
            elif word in ("then", "do", "else", "{"):
                if word == "{" and stack and stack[-1][0] == "func" and stack[-1][1] == "waiting":
                    stack[-1][1] = "open"
                elif word == "{":
                    stack.append(["brace", None, None])
                s += len(word)
            elif word != "elif" and (f := _SH_FUNCTION.match(c)) and word not in ("in", "case"):
                owners.append(fn := _ShOwner(f.group(1) or f.group(2), line, function=True))
                opened = c[f.end() :].startswith("{")
                stack.append(["func", "open" if opened else "waiting", fn])
                s += f.end() + opened
            elif not stack:
                if (a := sh_assignment(text, s, e)) is not None:
                    variables.append((a[0], line, a[1], a[2]))
                break
            else:
                if word != "elif" and (o := owner()) is not None:
                    top_line, low = bodies.get(ci, (0, -1))  # its heredoc's lines, where it has one
                    heredoc = (starts[top_line], starts[low] + len(lines[low])) if low >= top_line else None
                    o.classify(text, s, e, heredoc, sep == "|", ci > 0 and cmds[ci - 1][2] in ("||", "&&"))
                    o.end = max(o.end, line_of(e), min(low + 1, len(lines) - 1))
                break
            s += len(text[s:e]) - len(text[s:e].lstrip())
        if (o := owner()) is not None:
            o.end = max(o.end, line_of(e))
        if sep == ";;" and stack and stack[-1][0] == "case":
            stack[-1][2] = None
        ci += 1
    return variables, owners, cmds, bodies


def _sh_help(text: str, lines: list[str], starts: list[int], cmds: list[ShCmd], bodies: dict) -> list[tuple]:
    """(first line, last line, options start, options end, description start, description end) of each option a
    usage text lists: a line of a heredoc or of consecutive ``echo "..."`` lines, its description going on over
    the lines below indented as far as it."""
    runs: list[list[tuple[int, int, str]]] = [
        [(k, starts[k], lines[k]) for k in range(a, b + 1)] for a, b in bodies.values()
    ]
    last = -2
    for s, e, _ in cmds:
        words = sh_words(text, s, e)
        a, b = bisect.bisect_right(starts, s) - 1, bisect.bisect_right(starts, e) - 1
        if b > a and (SH_ASSIGN.match(text, s, e) or re.match(r"(?:echo|printf|cat)\s", text[s:e])):
            runs.append([(k, starts[k], lines[k]) for k in range(a + 1, b + 1)])  # usage="...": a quoted text
        elif len(words) == 2 and text[s:e].startswith("echo") and (vs := sh_unquoted(text, *words[1]))[0] > words[1][0]:
            if a != last + 1:  # echo lines one under another: one text
                runs.append([])
            runs[-1].append((a, vs[0], text[vs[0] : vs[1]]))
            last = a
    out = []
    for run in runs:
        i = 0
        while i < len(run):
            k, base, said = run[i]
            m = _SH_HELP.match(said)
            i += 1
            if m is None:
                continue
            col, end = m.start("desc"), base + len(said.rstrip())
            while i < len(run) and len(nxt := run[i][2]) > col and not nxt[:col].strip() and not nxt[col].isspace():
                if _SH_HELP.match(nxt):
                    break
                end, i = run[i][1] + len(nxt.rstrip()), i + 1
            out.append((k, run[i - 1][0], base + m.start("opts"), base + m.end("opts"), base + col, end))
    return out


def parse_shell(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """The records of the module doc, in the order of their lines."""
    text, starts, pos = "\n".join(lines), [], 0
    for ln in lines:
        starts.append(pos)
        pos += len(ln) + 1
    variables, owners, cmds, bodies = _sh_structure(text, lines, starts)
    out: list[Raw] = [
        (line, bisect.bisect_right(starts, max(ve - 1, vs)) - 1, [(name, unquote(text[vs:ve]))], name, None)
        for name, line, vs, ve in variables
    ]
    helps = _sh_help(text, lines, starts, cmds, bodies)  # a function holding the usage text: its options are records
    owners = [o for o in owners if not o.function or not any(o.line <= h[0] <= o.end for h in helps)]
    full = {o.key for o in owners if any(o.spans.values()) or o.exits}
    owners = [o for o in owners if o.key not in full or any(o.spans.values()) or o.exits]  # an empty twin: no record
    named: dict[str, _ShOwner | None] = {}
    for o in owners:
        for alias in [o.key, *(_SH_ALTS.split(text[o.aliases[0] : o.aliases[1]]) if o.aliases else [])]:
            named.setdefault(alias, o)
    helped: dict[_ShOwner, tuple[int, int]] = {}
    for a, b, s, e, ds, de in helps:
        opts = [re.sub(r" (?:[A-Z][A-Z_]*|<[^<>\s]+>)$", "", x) for x in _SH_ALTS.split(text[s:e])]
        if any(x in named for x in opts):
            if (hit := next(named[x] for x in opts if x in named)) is not None:
                helped.setdefault(hit, (ds, de))
            continue
        named[opts[0]] = None
        rest = _SH_ALTS.search(text, s, e)
        out.append(
            (a, b, [("help", text[ds:de]), *([("aliases", text[rest.end() : e])] if rest else [])], opts[0], None)
        )
    for o in owners:
        fields = o.fields(text)
        if o in helped:
            fields.insert(1 if o.spans["prints"] else 0, ("help", text[slice(*helped[o])]))
        out.append((o.line, max(o.line, o.end), fields, o.key, None))
    out.sort(key=lambda r: (r[0], r[1]))
    seen: dict[str, None] = {}
    for r in out:
        seen.update(dict.fromkeys(n for n, _ in r[2]))
    return out, list(seen)
