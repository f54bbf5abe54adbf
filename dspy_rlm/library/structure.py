"""The structure of a text input: which format it is, its records and their fields.

``detect(text)`` recognizes, in this order: an XML document of repeated elements, JSON lines, a JSON document of
records, markdown tables, ``name = value;`` statements, delimited tables (TSV, CSV, pipes, semicolons,
colon-separated like /etc/passwd), ``key=value`` lines, INI sections, blank-line-separated ``Key: value`` stanzas
(Debian control files, DEP-5 copyright, METADATA headers), YAML-like indentation, ``NAME=value`` assignments,
commented-out settings, markdown lists, whitespace-aligned tables (/etc/services), keyword lines, prose; anything
else is ``lines``. A format wins when it explains most meaningful lines of a sample (the first 2,000 lines); the
whole text is then parsed with it, up to :data:`MAX_PARSE_CHARS` (16 MB: records hold 5-22x their text in memory,
measured on 10 MB of dpkg status and of /etc/passwd); ``Structure.parsed_chars`` says when the cap cut it.
Records per kind (the record's ``key`` in brackets):

- table: (detail ``diff``, first) one per changed line of a unified diff [its text], ``change``, ``file``, ``hunk``,
  ``heading`` and ``line`` (:mod:`~dspy_rlm.library.diffformat`); one per data row [first column]; fields named by the
  header row, a commented header (``#code<TAB>name``) or ``col1..colN``; a comment among the rows whose names stand
  over the columns names them, each word of a row in the column it stands under (pg_hba.conf:
  :mod:`~dspy_rlm.library.columnformat`); a whitespace table's last column takes the rest of the line, and a trailing
  ``# comment`` becomes the field ``comment``; (detail ``calls``, after the literal tables) one per line calling a
  function or macro with data as its arguments [its ``NAME`` argument, else its first name] (an X-macro table:
  :mod:`~dspy_rlm.library.callformat`).
- xml: one per element of the most common (tag, depth) that carries attributes or leaf children, spanning its lines
  [its name/id/key/ref/title field, else its first attribute, else its first child's text]; its attributes as
  written, a leaf child as ``tag`` (a repeated one's texts joined with ", ") and its attributes as ``tag.attr``, its
  own text as ``text`` (gdb's syscalls, iso-codes). A text declaring an entity, or an HTML page, is no xml.
- jsonl: one per line [an id/name/key/title field, else the first string]; nested objects as ``a.b``.
- json: a whole JSON document, one record per object of its array (or object) of objects, at the top or one level
  down [the member's name in an object of objects, else as jsonl], spanning the object's own lines; an object
  holding no records is one record of its fields (a manifest, a settings document).
- logfmt: one per line of ``key=value`` pairs, or of comma-separated ``KEY op value`` pairs (udev rules) [an
  id/name/key/title field, else the first value].
- stanzas: one per block [its first field's value]; continuation lines belong to the field above; (detail
  ``keyword stanzas``, before the whitespace tables) one per block of ``keyword "value"`` lines [the value of the
  keyword the most blocks hold: a gettext catalogue's ``msgid``]; (detail ``marked``, after the keyword lines)
  one per marker line over ``Key: value`` headers and a body [the word after the marker]
  (:mod:`~dspy_rlm.library.markedformat`: a journal catalog's ``-- <id>``, ``git log``).
- ini: one per section [the section name], its keys as fields: "the value of KEY in section S" is
  ``field_of(var, S, KEY)``, "which section has KEY=V" is ``key_of(var, V)``. Keys before any section form a record
  with key "". A section with no live setting takes its commented-out ``#Name=value`` lines (documented defaults).
- blocks: (detail ``dtd``, after xml) one per element a DTD declares [its name], its ``content``, comment and
  attributes (:mod:`~dspy_rlm.library.dtdformat`); one per unindented ``word args`` line with the indented
  directive lines under it [its first argument]
  (ssh_config's ``Host``, sensors3.conf's ``chip``); a directive whose word repeats is named with its first argument
  (``label fan1``); (detail ``tree``, before TOML) one per node of a drawn tree (``├── name``) [its name], its
  ``parent``, ``depth``, ``children`` and ``descendants`` (:mod:`~dspy_rlm.library.treeformat`).
- profile: one per ``name = { ... }`` block [its name] (a nested block's keys as ``inner.key``), and one per section
  for its own ``key = value`` lines [the section name] (krb5.conf, mke2fs.conf).
- yaml: one per top-level key [the key] or top-level list item [its first value]; nested ``k: v`` lines are fields
  named by their own key; (detail ``documents``, before the delimited tables) a stream of ``---`` documents, one per
  document, its values by path (``spec.replicas``) [a name/id value, else its tag]
  (:mod:`~dspy_rlm.library.yamlstream`).
- assignments: one per ``NAME=value`` [NAME], with the single field ``(NAME, value)``, quotes removed (a Makefile's
  variables too: :mod:`~dspy_rlm.library.makeformat`); also (detail ``statements``, tried before tables)
  ``name = value;`` lines with ``//`` comments (XKB keycodes: ``<LVL3> = 92;``, ``indicator 3 = "Scroll Lock";``
  [``indicator 3``], a trailing comment as ``comment``), and (detail ``commented``, after the other key-value
  formats) a sample config whose settings are commented out (``#figure.figsize: 6.4, 4.8 # in inches``: the value
  without its trailing comment; ``commented beside live`` where they outnumber the live ones three to one, a live
  one hiding the commented-out lines of its name: wgetrc), and (detail ``definitions``) ``name: definition`` lines
  with their continuations (an EBNF grammar), and (detail ``locale``) a POSIX locale source's keyword lines, each
  with its ``section`` (:mod:`~dspy_rlm.library.localeformat`), and (detail ``shell``, first where a shebang names
  a shell, else last) a shell script's options, top-level variables and functions
  (:mod:`~dspy_rlm.library.shellformat`; their reads are uncalibrated: ``profiles.calibration.UNMEASURED_DETAILS``).
- keywords: one per ``Keyword value`` line [the keyword] and one per line of ``KEY value`` pairs split by ``;`` [the
  value of the pair name that tells them apart] (:mod:`~dspy_rlm.library.keywordformat`: font metrics); (detail
  ``directives``) one per line opening with the file's directive [the name after it: ``#define EDEADLK 35``];
  (detail ``instructions``) one per instruction of a Dockerfile's shape [its upper-case word], ``instruction``,
  ``arguments`` and each ``NAME=value`` pair as fields (:mod:`~dspy_rlm.library.instructionformat`).
- markdown_table: one per row [first cell]; markdown_list: one per item [text before ``:`` / `` - ``, else its first
  three words], a ``**Name**: value`` item has that field; (detail ``roff``, tried after HTML tables) a manual
  page's options and terms [the tag], bullets and paragraphs, and first its title (``.TH`` / ``.Dd`` ``.Dt``) with
  ``title``, ``manual section`` and ``date`` (:mod:`~dspy_rlm.library.roffformat`: the ``man`` macros and
  mdoc's); (detail ``commented sections``) one per entry of a list under comment headings [the entry],
  its ``section`` the heading (:mod:`~dspy_rlm.library.listformat`: a .gitignore); (detail ``numbered
  sections``, before prose) one per ``N. Heading.`` section [N], ``number``, ``heading`` and ``text`` as fields (a
  license's terms).
- prose: one per sentence [""]; headings and list items are records of their own, and so is each row of a
  reStructuredText simple table [its first cell] and each ``:Field: value`` line. lines: one per non-empty line
  [""], with a field when the line reads ``key: value`` or ``key = value``.

Stdlib-only at import; :func:`dspy_rlm.library.helpers.standalone_source` inlines it into foreign interpreters.
"""

import gc
from dataclasses import replace
from typing import Any

from dspy_rlm.library.braceformat import looks_braces, parse_braces
from dspy_rlm.library.callformat import looks_calls, parse_calls
from dspy_rlm.library.cssformat import looks_css, parse_css
from dspy_rlm.library.datedformat import looks_dated_sections, parse_dated_sections
from dspy_rlm.library.diffformat import looks_diff, parse_diff
from dspy_rlm.library.directiveformat import looks_directive_kinds, looks_directives, parse_directives
from dspy_rlm.library.dtdformat import looks_dtd, parse_dtd
from dspy_rlm.library.embedded import embedded_json  # inlined before this file
from dspy_rlm.library.formats import (  # standalone_source() inlines formats.py and kvformats.py
    DELIMITERS,
    Raw,
    looks_delimited,
    parse_delimited,
)
from dspy_rlm.library.htmlpage import looks_html_page, page_lines, relined
from dspy_rlm.library.htmltable import looks_html_tables, parse_html_tables
from dspy_rlm.library.indexformat import looks_indexed, parse_indexed
from dspy_rlm.library.instructionformat import looks_instructions, parse_instructions
from dspy_rlm.library.jsonformats import (
    looks_continued_logfmt,
    looks_json_document,
    looks_jsonl,
    looks_logfmt,
    parse_continued_logfmt,
    parse_json_document,
    parse_jsonl,
    parse_logfmt,
)
from dspy_rlm.library.keywordformat import (
    looks_definitions,
    looks_keyword_lines,
    looks_keyword_stanzas,
    parse_definitions,
    parse_keyword_lines,
    parse_keyword_stanzas,
)
from dspy_rlm.library.kvformats import (
    looks_assignments,
    looks_commented_stanzas,
    looks_ini,
    looks_stanzas,
    parse_assignments,
    parse_commented_stanzas,
    parse_ini,
    parse_lines,
    parse_stanzas,
)
from dspy_rlm.library.listformat import (
    looks_commented_list,
    looks_numbered_sections,
    parse_commented_list,
    parse_numbered_sections,
)
from dspy_rlm.library.literalformat import looks_literals, parse_literals
from dspy_rlm.library.localeformat import looks_locale, parse_locale
from dspy_rlm.library.makeformat import looks_makefile, parse_makefile
from dspy_rlm.library.markedformat import looks_marked, parse_marked
from dspy_rlm.library.mdformats import (
    looks_markdown_list,
    looks_markdown_table,
    looks_markdown_tables,
    looks_prose,
    parse_markdown_list,
    parse_markdown_table,
    parse_prose,
)
from dspy_rlm.library.podformat import looks_pod, pod_markdown
from dspy_rlm.library.profileformat import (
    looks_directive_blocks,
    looks_profile,
    parse_directive_blocks,
    parse_profile,
)
from dspy_rlm.library.records import RECORD_TEXT_CHARS, Record, Structure, name_form  # noqa: F401 (re-exported)
from dspy_rlm.library.roffformat import looks_roff, looks_roff_definitions, parse_roff, parse_roff_definitions
from dspy_rlm.library.rstformat import looks_grid_tables, parse_grid_tables
from dspy_rlm.library.schemaformats import looks_declared_table, parse_declared_table
from dspy_rlm.library.settingformats import (
    commented_outnumber,
    defines_outnumber,
    looks_commented_settings,
    looks_statements,
    parse_commented_settings,
    parse_statements,
)
from dspy_rlm.library.shellformat import parse_shell
from dspy_rlm.library.shellwords import looks_shell
from dspy_rlm.library.sqlformat import looks_sql, parse_sql
from dspy_rlm.library.tomlformat import looks_toml, parse_toml
from dspy_rlm.library.treeformat import looks_tree, parse_tree
from dspy_rlm.library.whitespacetable import (  # inlined before this file
    looks_whitespace_table,
    parse_whitespace_table,
    uncommented_table,
)
from dspy_rlm.library.wordmatch import line_matches, match_lines, matches, stem, words  # noqa: F401 (re-exported)
from dspy_rlm.library.xmlformat import looks_xml, parse_xml  # inlined before this file
from dspy_rlm.library.xresourceformat import looks_xresources, parse_xresources
from dspy_rlm.library.yamlstream import looks_yaml_stream, parse_yaml_stream
from dspy_rlm.library.yamltree import looks_yaml, parse_yaml_tree

KINDS = (
    "xml", "table", "jsonl", "json", "toml", "css", "logfmt", "stanzas", "profile", "ini",
    "yaml", "assignments", "blocks", "keywords", "markdown_table", "markdown_list", "prose", "lines",
)  # fmt: skip
MAX_PARSE_CHARS = 16_000_000  # a longer text is parsed up to the last line break before this
_SAMPLE_LINES = 2_000
_DIRECTIVES = 0.7  # of the lines outside comments open with one directive: a C header's #defines


# -- detection ----------------------------------------------------------------------------------------------
_CACHE: dict[int, tuple[str, Structure]] = {}
_CACHE_SIZE = 16


def detect(text: str) -> Structure:
    """The best structure of ``text`` (see the module doc); cached per text object; never raises on a str
    (an unexpected failure falls back to kind ``lines``). Empty text: kind ``lines``, no records."""
    if not isinstance(text, str):
        raise TypeError(f"detect() takes a str, got {type(text).__name__}")
    hit = _CACHE.get(id(text))
    if hit is not None and hit[0] is text:
        return hit[1]
    parsed = text
    if len(text) > MAX_PARSE_CHARS:  # records hold 5-22x their text in memory (short rows most): a bounded head
        cut = text.rfind("\n", 0, MAX_PARSE_CHARS)
        parsed = text[: cut if cut > 0 else MAX_PARSE_CHARS]
    collecting = gc.isenabled()
    gc.disable()  # parsing allocates a tuple per record and field: the cyclic GC would add ~30% for nothing
    try:
        found = _detect(parsed)
    except Exception:  # noqa: BLE001 - a parser bug must not cost the run its input: read it as lines
        found = _build("lines", parsed.split("\n"), parse_lines(parsed.split("\n")), [])
    finally:
        if collecting:
            gc.enable()
    if parsed is not text:
        found = replace(found, parsed_chars=len(parsed))
    for old in list(_CACHE)[: max(0, len(_CACHE) - _CACHE_SIZE + 1)]:  # list(): safe beside other threads
        _CACHE.pop(old, None)
    _CACHE[id(text)] = (text, found)
    return found


def _detect(text: str) -> Structure:
    lines = text.split("\n")
    if not text.strip():
        return Structure("lines", (), ())
    sample = lines[:_SAMPLE_LINES]
    if (shell := looks_shell(sample)) >= 1.0 and len((script := parse_shell(lines))[0]) >= 3:  # a shebang: first
        return _build("assignments", lines, *script, detail="shell")
    if looks_diff(sample) >= 0.9 and (diff := parse_diff(lines))[0]:  # a patch: its changed lines, not lines
        return _build("table", lines, *diff, detail="diff")
    if looks_xml(sample) >= 0.9 and (xml := parse_xml(lines))[0]:  # first: XML lines read as lines or key=value
        return _build("xml", lines, *xml)
    if looks_dtd(sample) >= 0.8 and (dtd := parse_dtd(lines))[0]:  # declarations, not markup
        return _build("blocks", lines, *dtd, detail="dtd")
    if looks_jsonl(sample) >= 0.8:
        one_line = sum(1 for ln in sample[:3] if ln.strip()) == 1  # a whole document on one line: records inside
        inside = parse_json_document(text) if one_line and looks_json_document(text) else []
        return (
            _build("json", lines, inside, None) if len(inside) > 1 else _build("jsonl", lines, parse_jsonl(lines), None)
        )
    if looks_json_document(text):
        return _build("json", lines, parse_json_document(text), None)
    if (padded := embedded_json(text)) is not None and len(inside := parse_json_document(padded)) > 1:
        return _build("json", lines, inside, None, detail="embedded")  # a program's one data literal: its records
    if looks_html_tables(text) and (html := parse_html_tables(text))[0]:
        return _build("table", lines, *html, detail="html")
    if looks_html_page(text):  # no table: the page as a browser shows it (markdown), its records on its lines
        return relined(_detect((shown := page_lines(text))[0]), shown[1])
    if looks_pod(sample):  # Perl's documentation: the markdown it stands for, line for line
        return _detect("\n".join(pod_markdown(lines)))
    if looks_roff(sample) >= 0.2 and (roff := parse_roff(lines))[0]:  # a manual page: its macros are no lines
        return _build("markdown_list", lines, *roff, detail="roff")
    if looks_roff_definitions(sample) >= 0.4:  # a macro package's strings and registers, no table's columns
        return _build("assignments", lines, *parse_roff_definitions(lines), detail="roff definitions")
    if looks_locale(sample):  # its own comment character declared: "% Source: RAP" is no setting
        return _build("assignments", lines, *parse_locale(lines), detail="locale")
    if looks_markdown_table(sample) >= 0.6 or looks_markdown_tables(sample):
        return _build("markdown_table", lines, *parse_markdown_table(lines))
    if looks_grid_tables(sample) and (grid := parse_grid_tables(lines))[1]:
        return _build("markdown_table", lines, *grid, detail="rst grid")
    if looks_tree(sample) >= 0.9:  # connectors before labels: no table's cells
        return _build("blocks", lines, *parse_tree(lines), detail="tree")
    if looks_toml(sample) and (toml := parse_toml(lines))[0]:  # before INI: a value may span lines
        return _build("toml", lines, *toml)
    if looks_declared_table(sample):  # its rows' columns are named above them: before the delimited tables
        return _build("table", lines, *parse_declared_table(lines), detail="declared")
    if looks_sql(sample):  # before the assignments and instructions: a statement's clauses are its fields
        return _build("blocks", lines, *parse_sql(lines), detail="sql")
    if looks_statements(sample) >= 0.8:  # before tables: "<ESC> = 9;" is no semicolon-separated row
        if defines_outnumber(sample):  # a header's #defines beside a few name arrays: the #defines are its records
            return _build("keywords", lines, *parse_directives(lines), detail="directives")
        return _build("assignments", lines, *parse_statements(lines), detail="statements")
    if looks_yaml_stream(sample) >= 0.85 and (stream := parse_yaml_stream(lines))[0]:  # before tables: "a: b"
        return _build("yaml", lines, *stream, detail="documents")
    if looks_directive_kinds(sample) >= _DIRECTIVES:  # "syn keyword NAME<TAB>words": no table's columns
        return _build("keywords", lines, *parse_directives(lines), detail="directives")
    if looks_xresources(sample) >= 0.8:  # before tables, stanzas, YAML: "*Porthole.top: ChainTop" is a resource
        return _build("assignments", lines, *parse_xresources(lines), detail="xresources")
    score, delim = looks_delimited(sample)
    if score >= 0.85 and delim == ";" and looks_keyword_lines(sample) >= 0.8:  # cells of "KEY value" pairs
        return _build("keywords", lines, *parse_keyword_lines(lines))
    # every line a NAME=value setting whose value may hold commas (a Java .properties file's "WARN, A1"): no table
    if score >= 0.85 and not (delim == "," and looks_assignments(sample) >= 0.95):
        return _build("table", lines, *parse_delimited(lines, delim), detail=DELIMITERS[delim])
    for kind, looks, parse, threshold in (
        ("css", looks_css, parse_css, 0.8),
        ("logfmt", looks_logfmt, parse_logfmt, 0.8),
        ("logfmt", looks_continued_logfmt, parse_continued_logfmt, 0.8),
        ("profile", looks_profile, parse_profile, 0.9),
        ("ini", looks_ini, parse_ini, 0.8),
        ("stanzas", looks_stanzas, parse_stanzas, 0.5),
        ("stanzas", looks_commented_stanzas, parse_commented_stanzas, 0.6),
        ("yaml", looks_yaml, parse_yaml_tree, 0.85),
        ("ini", looks_indexed, parse_indexed, 0.8),
        ("assignments", looks_assignments, parse_assignments, 0.8),
        ("assignments", looks_makefile, parse_makefile, 0.9),
        ("blocks", looks_directive_blocks, parse_directive_blocks, 0.9),
    ):
        if looks(sample) >= threshold:
            if parse is parse_assignments and commented_outnumber(sample):  # wgetrc: "#tries = 20" beside one live
                return _build(kind, lines, *parse_commented_settings(lines), detail="commented beside live")
            if parse is parse_assignments and looks_literals(sample) >= 0.9:  # a Python enum's "NAME = 0x15"
                return _build(kind, lines, *parse_literals(lines), detail="literals")  # members: in their class
            found = _build(kind, lines, *parse(lines))
            return _with_body(lines, found) if kind == "stanzas" else found
    if looks_commented_settings(sample) >= 0.6:
        return _build("assignments", lines, *parse_commented_settings(lines), detail="commented")
    if looks_directives(sample) >= _DIRECTIVES:
        return _build("keywords", lines, *parse_directives(lines), detail="directives")
    if looks_literals(sample) >= 0.7:
        return _build("assignments", lines, *parse_literals(lines), detail="literals")
    if looks_calls(sample) >= 0.7:
        return _build("table", lines, *parse_calls(lines), detail="calls")
    if looks_braces(sample) >= 0.9:
        return _build("blocks", lines, *parse_braces(lines), detail="braces")
    if looks_dated_sections(sample) >= 1.0:
        return _build("markdown_list", lines, parse_dated_sections(lines), None, detail="dated sections")
    if looks_markdown_list(sample) >= 0.5:
        return _build("markdown_list", lines, parse_markdown_list(lines), None)
    if looks_definitions(sample) >= 0.9:  # before tables: "Editres.Geometry:   500x568" is a name and its value
        return _build("assignments", lines, *parse_definitions(lines), detail="definitions")
    if looks_keyword_stanzas(sample) >= 0.9:  # before tables: "msgid  \"club\"" lines are a block's fields
        return _build("stanzas", lines, *parse_keyword_stanzas(lines), detail="keyword stanzas")
    score, aligned = looks_whitespace_table(sample)
    if score >= 0.8:
        return _build("table", lines, *parse_whitespace_table(lines, aligned), detail="whitespace")
    if looks_keyword_lines(sample) >= 0.8:
        return _build("keywords", lines, *parse_keyword_lines(lines))
    if looks_commented_list(sample) >= 0.9:
        return _build("markdown_list", lines, *parse_commented_list(lines), detail="commented sections")
    if looks_instructions(sample) >= 0.8:
        return _build("keywords", lines, *parse_instructions(lines), detail="instructions")
    if looks_marked(sample) >= 0.9:  # after the stanzas and keyword lines: a mark over each block of headers
        return _build("stanzas", lines, *parse_marked(lines), detail="marked")
    if looks_numbered_sections(sample):
        return _build("markdown_list", lines, *parse_numbered_sections(lines), detail="numbered sections")
    if looks_prose(sample) >= 0.5:
        return _build("prose", lines, parse_prose(lines, text), [])
    if looks_commented_settings(sample) >= 0.35:  # a shipped config whose few settings, all commented out, sit
        return _build("assignments", lines, *parse_commented_settings(lines), detail="commented")  # among notes
    if shell >= 0.9 and len((script := parse_shell(lines))[0]) >= 3:  # no shebang: last, where it takes no format
        return _build("assignments", lines, *script, detail="shell")
    rows = uncommented_table(lines)  # "# aa_DJ ISO-8859-1" lines: a table's rows, commented out
    if rows is not None and (table := looks_whitespace_table(rows[:_SAMPLE_LINES]))[0] >= 0.8:
        return _build("table", lines, *parse_whitespace_table(rows, table[1]), detail="commented whitespace")
    return _build("lines", lines, parse_lines(lines), None)


def _with_body(lines: list[str], found: Structure) -> Structure:
    """A header stanza over a free-text body (a wheel's METADATA: its headers, then its README and changelog, read
    as stanzas of no fields, or as one message): the header one record keyed by its name, then the body's own
    records (a changelog's dated sections), where the body alone reads as records of another kind."""
    head, rest = (found.records[0], found.records[1:]) if found.records else (None, ())
    if head is None or head.line != 1 or len(head.fields) < 3 or len(lines) - head.end_line < 10:
        return found
    if rest and sum(1 for r in rest if not r.fields) < 0.8 * len(rest):
        return found
    start = head.end_line  # the body's lines follow the header's
    body = _detect("\n".join(lines[start:]))
    if body.kind in ("lines", "prose", "stanzas") or len(body.records) < 3:
        return found
    named = [v for n, v in head.fields if n.casefold() in ("name", "title", "id")]
    head = replace(head, key=named[0].split("\n")[0].strip()) if named else head
    moved = [
        replace(r, index=i + 1, line=r.line + start, end_line=r.end_line + start) for i, r in enumerate(body.records)
    ]
    names = tuple(dict.fromkeys([*(n for n, _ in head.fields), *body.field_names]))
    return Structure(body.kind, (head, *moved), names, f"{body.detail or body.kind} under a header stanza")


def _build(kind: str, lines: list[str], raws: list[Raw], names: Any, detail: str = "") -> Structure:
    records = []
    for index, (a, b, fields, key, text) in enumerate(raws):
        if text is None:
            text = lines[a] if a == b else "\n".join(lines[a : min(b + 1, a + 200)])
        records.append(Record(index, a + 1, b + 1, text[:RECORD_TEXT_CHARS], tuple(fields), key))
    if not names:
        seen: dict[str, None] = {}
        for r in records:
            seen.update(dict.fromkeys(n for n, _ in r.fields))
        names = list(seen)
    return Structure(kind, tuple(records), tuple(names), detail)
