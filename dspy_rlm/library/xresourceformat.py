"""X resource files (X11 app-defaults such as Editres or XFontSel, a user's ``~/.Xresources``), kind ``assignments``,
detail ``xresources``: ``<spec>: <value>`` lines whose spec is a resource path of ``.`` (tight) and ``*`` (loose)
bindings and ``?`` (``*buttonbox.view.viewMenu.viewResources.Label: Show Resource Boxes``, ``XFontSel.geometry:
560x400``), ``!`` comments, ``#include`` / ``#ifdef`` lines, a value going on past a trailing backslash. A resource
is a record keyed by the widget path it sets, the spec less its leading ``*`` and its last component
(``*Porthole.BorderWidth``: ``Porthole``; ``XTerm*VT100.background``: ``XTerm*VT100``; a spec of one component by
that name: ``*allowShellResize``, a setting), and less an app-defaults file's own class name (``Editres.Geometry``:
``Geometry``, as ``*Geometry`` would be: "the Editres Porthole" names no other record); its one field is named by
that last component (``BorderWidth``, ``Label``: "what BorderWidth", "which label" name it) and holds the value as
written (a continued one's lines, backslashes and all). Keyed so, a widget's resources are records of one key, the
field telling them apart ("the Porthole's BorderWidth"), and an application's class name keys its own (``URxvt.font``
beside ``XTerm*faceName``): keyed by the whole spec, a widget's name was no record's key, and a question's field
name, found in three records or fewer, was read as the key ("what ShapeStyle does the Tree use?" read
``*buttonbox*ShapeStyle``). A translation table (``*Tree.baseTranslations: #override \\n\\``, then lines such as
``Ctrl<Key>r: Resources(on) \\n\\``) is a record of its directive (none where it names no
``#override``/``#augment``/``#replace``), its text only the spec and directive (a binding's words are no table's),
and one per binding inside it [the event as written, ``Ctrl<Key>r``, ``<Btn1Down>,<Btn1Up>``], its ``action``
(``Resources(on)``) and ``block`` (the table's spec as written) as fields.
Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import bisect
import re

from dspy_rlm.library.formats import Raw

_XR_COMPONENT = r"(?:[A-Za-z_][\w-]*|\?)"
_XR_LINE = re.compile(rf"[ \t]*(?P<spec>\**{_XR_COMPONENT}(?:[.*]+{_XR_COMPONENT})*)[ \t]*:(?P<gap>[ \t]*)")
_XR_CPP = re.compile(r"[ \t]*#[ \t]*(?:include|ifn?def|if|elif|else|endif|define|undef|error|pragma)\b")
_XR_DIRECTIVE = re.compile(r"#(?:override|augment|replace)\b")
_XR_EVENT = r"[\w ~!$@^:]*?<\w+>[^\s:,<>]*(?:\([\d+]*\))?"
_XR_BINDING = re.compile(rf"(?P<event>{_XR_EVENT}(?:[ \t]*,[ \t]*{_XR_EVENT})*)[ \t]*:[ \t]*(?P<action>\S)")
_XR_TABLE_NAMES = ("translations", "accelerators")
_XR_JUNK = " \t\n"


def _xr_continues(line: str) -> bool:
    """Whether a line ends with an unescaped backslash (the value goes on over the next line)."""
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def _xr_class(spec: str) -> bool:
    """A spec of X's shape: a loose binding (``*Porthole.BorderWidth``, ``XTerm*faceName``), or tight ones under
    a capitalised class name (``XFontSel.geometry``, ``URxvt.font``: a lower-case ``lines.linewidth`` is a
    matplotlibrc's, ``server.port`` a flattened YAML's)."""
    return "*" in spec or "?" in spec or ("." in spec and spec[:1].isupper())


def _xr_logical(lines: list[str]) -> list[tuple[int, int]]:
    """(first, last) line of each logical line that is no blank, ``!`` comment or preprocessor line."""
    out, i = [], 0
    while i < len(lines):
        s, first = lines[i].lstrip(), i
        if s and not s.startswith("!") and not _XR_CPP.match(s):  # a comment goes on over no line
            while _xr_continues(lines[i]) and i + 1 < len(lines):
                i += 1
            out.append((first, i))
        i += 1
    return out


def looks_xresources(sample: list[str]) -> float:
    """The share of the logical lines (continuations joined; blanks, ``!`` comments and ``#include``/``#ifdef`` lines
    left out) that are ``spec: value`` resources (a blank or nothing after the colon, where the spec is of no X
    shape); 0 unless five or more are, two fifths of their specs are of X's shape (:func:`_xr_class`) and three of
    those have a ``*`` (else four fifths of them are of X's shape, their last components half of them distinct), and
    no other line opens with a ``#`` that is no preprocessor line, or ends with ``{``, ``}`` or ``;`` (Debian
    control files, mail headers, YAML and "Key: value" prose name no bindings; a CSS rule opens a brace; a
    matplotlibrc's ``lines.linewidth`` is no class name)."""
    logical = _xr_logical(sample)
    if not logical:
        return 0.0
    specs = []
    for a, _ in logical:
        line = sample[a]
        m = _XR_LINE.match(line)
        if m and (m.group("gap") or m.end() == len(line) or _xr_class(m.group("spec"))):
            specs.append(m.group("spec"))
        elif line.lstrip().startswith("#") or line.rstrip().endswith(("{", "}", ";")):
            return 0.0
    shaped = [s for s in specs if _xr_class(s)]
    if len(specs) < 5 or len(shaped) < 0.4 * len(specs):
        return 0.0
    if sum(1 for s in shaped if "*" in s) < 3:  # tight bindings alone: most specs, and many resource names
        names = {re.split(r"[.*]+", s)[-1] for s in shaped}  # (a debconf template's Choices-de.UTF-8: one name)
        if len(shaped) < 0.8 * len(specs) or len(names) < 0.5 * len(shaped):
            return 0.0
    return len(specs) / len(logical)


def _xr_trim(text: str, s: int, e: int) -> tuple[int, int]:
    """The span ``s:e`` less blanks, line breaks and continuing backslashes at either end."""
    while s < e and (text[s] in _XR_JUNK or (text[s] == "\\" and text[s + 1 : s + 2] == "\n")):
        s += 1
    while e > s and (text[e - 1] in _XR_JUNK or (text[e - 1] == "\\" and (e == len(text) or text[e] == "\n"))):
        e -= 1
    return s, e


def _xr_bindings(text: str, s: int, e: int) -> list[tuple[int, int, int, int]]:
    """(event start, event end, action start, action end) of each binding of a translation table written at
    ``s:e``, its bindings split at ``\\n``."""
    out, at = [], s
    while at < e:
        cut = text.find("\\n", at, e)
        piece = _xr_trim(text, at, e if cut < 0 else cut)
        at = e if cut < 0 else cut + 2
        m = _XR_BINDING.match(text, *piece) if piece[1] > piece[0] else None
        if m:
            ev = _xr_trim(text, m.start("event"), m.end("event"))
            out.append((*ev, m.start("action"), piece[1]))
    return out


def _xr_app(specs: list[str]) -> str:
    """The application class an app-defaults file names before a few of its specs (``Editres.Geometry`` beside
    ``*ShapeStyle`` and the like): the one class name opening specs, where more open with ``*``; else ""
    (a user's file of ``URxvt.font`` and ``XTerm*faceName``: each class keys its own resources)."""
    roots = {s.split(".")[0].split("*")[0] for s in specs if s[:1] != "*" and re.search(r"[.*]", s)}
    rooted = sum(1 for s in specs if s[:1] != "*")
    return roots.pop() if len(roots) == 1 and sum(1 for s in specs if s[:1] == "*") > rooted else ""


def parse_xresources(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """The records of the module doc, in the order of their lines."""
    text, starts, pos = "\n".join(lines), [], 0
    for ln in lines:
        starts.append(pos)
        pos += len(ln) + 1

    def line_of(at: int) -> int:
        return bisect.bisect_right(starts, at) - 1

    found = [(a, b, m) for a, b in _xr_logical(lines) if (m := _XR_LINE.match(lines[a]))]
    app = _xr_app([m.group("spec") for _, _, m in found])
    out: list[Raw] = []
    for a, b, m in found:
        spec = m.group("spec")
        last = re.split(r"[.*]+", spec)[-1]
        name = spec if last == "?" else last
        path = spec[len(app) :] if app and spec.startswith(app) and spec[len(app) : len(app) + 1] in ".*" else spec
        key = path[: len(path) - len(last)].strip(".*") or last  # *Porthole.BorderWidth: Porthole
        vs, ve = _xr_trim(text, starts[a] + m.end(), starts[b] + len(lines[b]))
        ve = max(vs, ve)
        directive = _XR_DIRECTIVE.match(text, vs, ve)
        if directive or name.casefold().endswith(_XR_TABLE_NAMES):
            bindings = _xr_bindings(text, directive.end() if directive else vs, ve)
            if bindings:
                if directive:
                    head = lines[a][: directive.end() - starts[a]]
                    out.append((a, a, [(name, directive.group(0))], key, head))
                for es, ee, acs, ace in bindings:
                    fields = [("action", text[acs:ace]), ("block", spec)]
                    out.append((line_of(es), line_of(max(ace - 1, es)), fields, text[es:ee], None))
                continue
        out.append((a, line_of(max(ve - 1, starts[a])) if ve > vs else a, [(name, text[vs:ve])], key, None))
    return out, []
