"""SQL scripts as records: each statement (its lines up to the ``;`` that ends it, outside quotes and ``$$``
bodies) is a record keyed by the name it creates or acts on (``CREATE FUNCTION isbn_in(cstring)``: ``isbn_in``;
``COMMENT ON TYPE ean13``: ``ean13``; ``CREATE CAST (isbn AS isbn13)``: ``isbn AS isbn13``; no field, as an
assignment's name), with the fields ``statement`` (its verb and what it makes: ``CREATE FUNCTION``), ``arguments`` (the
brackets after the name), ``rest`` (what follows on its first line) and one field per clause opening a line of
its own (``RETURNS ean13``, ``LANGUAGE C``, ``AS 'MODULE_PATHNAME', 'isbn_in'``; ``INPUT = ean13_in,`` in a
bracket). ``--`` and ``/* */`` comments and psql's ``\\`` commands are no statements. Read as lines, a clause was
a record of its own, and "how many CREATE CAST statements" counted words. Stdlib only:
:func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re

from dspy_rlm.library.formats import Raw

_SQL_VERB = re.compile(
    r"(?i)(CREATE|ALTER|DROP|INSERT|SELECT|COMMENT|GRANT|REVOKE|UPDATE|DELETE|SET|DO|BEGIN|COMMIT|WITH|TRUNCATE)\b"
)
_SQL_HEAD = re.compile(
    r"(?i)((?:CREATE|ALTER|DROP)(?:\s+OR\s+REPLACE)?(?:\s+(?:TEMP|TEMPORARY|UNIQUE|DEFAULT|UNLOGGED))?"
    r"\s+(?:OPERATOR\s+(?:CLASS|FAMILY)|TEXT\s+SEARCH\s+\w+|FOREIGN\s+TABLE|MATERIALIZED\s+VIEW|EVENT\s+TRIGGER|\w+)"
    r"(?:\s+IF\s+(?:NOT\s+)?EXISTS)?|COMMENT\s+ON\s+(?:OPERATOR\s+(?:CLASS|FAMILY)|\w+)|INSERT\s+INTO|DELETE\s+FROM"
    r"|GRANT|REVOKE|UPDATE|SELECT|SET)\s*(.*)$"
)
_SQL_NAME = re.compile(r"""("[^"]+"|[\w.$]+|[^\s\w(]+)\s*(\([^()]*(?:\([^()]*\)[^()]*)*\))?\s*(.*)$""")
_SQL_CLAUSE = re.compile(r"([A-Z][A-Z_]+(?:\s+[A-Z][A-Z_]+)?)\s*(?:=\s*)?(.*?),?$")
_DOLLAR = re.compile(r"\$\w*\$")


def _sql_statements(lines: list[str]) -> list[tuple[int, int, list[str]]]:
    """(first line, last line, lines) of each statement, comments and psql commands left out."""
    out: list[tuple[int, int, list[str]]] = []
    body: list[str] = []
    start, in_comment, dollar = 0, False, ""
    for i, ln in enumerate(lines):
        s = ln.strip()
        if in_comment:
            in_comment = "*/" not in s
            continue
        if not body and (not s or s.startswith(("--", "\\"))):
            continue
        if not body and s.startswith("/*"):
            in_comment = "*/" not in s
            continue
        if not body:
            start = i
        body.append(ln)
        for tag in _DOLLAR.findall(s):
            dollar = "" if dollar == tag else (dollar or tag)
        code = re.sub(r"'(?:[^']|'')*'", "''", s.split("--", 1)[0]).rstrip()
        if not dollar and code.endswith(";"):
            out.append((start, i, body))
            body = []
    if body:
        out.append((start, len(lines) - 1, body))
    return out


_INLINE_CLAUSE = re.compile(r"(?<![\w'])(RETURNS|LANGUAGE|AS)\s+")


def _inline_clauses(rest: str) -> list[tuple[str, str]]:
    """The clauses a one-line ``CREATE FUNCTION`` writes after its name (``RETURNS text AS '$libdir/x', 'f'
    LANGUAGE C STRICT``): each clause word in capitals, outside quotes, with what follows it up to the next; the
    capitals after a language are its ``flags``."""
    bare = re.sub(r"'(?:[^']|'')*'", lambda m: "_" * len(m.group()), rest)  # quotes hide no clause word
    marks = [m for m in _INLINE_CLAUSE.finditer(bare) if m.start() == 0 or bare[m.start() - 1] == " "]
    if not marks or marks[0].start() != 0:
        return []
    out = []
    for m, nxt in zip(marks, [*marks[1:], None], strict=False):
        value = rest[m.end() : nxt.start() if nxt else len(rest)].strip()
        word, _, after = value.partition(" ")
        if m.group(1) == "LANGUAGE" and after and after.isupper():  # "LANGUAGE C STRICT": its flags after it
            out += [("LANGUAGE", word), ("flags", " ".join(after.split()))]
        elif value:
            out.append((m.group(1), value))
    return out


def looks_sql(sample: list[str]) -> bool:
    """Whether the statements (five or more) mostly open with a SQL verb and end with ``;``."""
    statements = _sql_statements(sample)
    opened = sum(1 for _, _, b in statements if _SQL_VERB.match(b[0].strip()))
    closed = sum(1 for _, _, b in statements if b[-1].split("--", 1)[0].rstrip().endswith(";"))
    return opened >= 5 and opened >= 0.8 * len(statements) and closed >= 0.8 * len(statements)


def parse_sql(lines: list[str]) -> tuple[list[Raw], list[str]]:
    out: list[Raw] = []
    names: dict[str, None] = dict.fromkeys(["statement", "arguments", "rest"])
    for a, b, body in _sql_statements(lines):
        first = " ".join(body[0].split()).rstrip(";").rstrip()
        head = _SQL_HEAD.match(first)
        if head is None:
            out.append((a, b, [("statement", first.split()[0].upper())], "", None))
            continue
        verb, after = " ".join(head.group(1).upper().split()), head.group(2)
        fields: list[tuple[str, str]] = [("statement", verb)]
        key = ""
        cast = re.match(r"\(\s*(.+?)\s+AS\s+(.+?)\s*\)\s*(.*)$", after, re.IGNORECASE)
        named = _SQL_NAME.match(after) if after and not cast else None
        if cast:
            key, rest = f"{cast.group(1)} AS {cast.group(2)}", cast.group(3)
        elif named:
            key, rest = named.group(1).strip('"'), named.group(3)
            fields += [("arguments", named.group(2))] if named.group(2) else []
        else:
            rest = after
        if rest.strip(" (;"):
            fields.append(("rest", rest.strip().rstrip(";").rstrip()))
            for name, value in _inline_clauses(rest.strip().rstrip(";").rstrip()):  # "RETURNS text AS ... LANGUAGE C"
                names[name] = None
                fields.append((name, value))
        for ln in body[1:]:
            clause = _SQL_CLAUSE.fullmatch(ln.strip().rstrip(";").rstrip())
            if clause and clause.group(2).strip(" (),"):
                names[clause.group(1)] = None
                fields.append((clause.group(1), clause.group(2).strip()))
        out.append((a, b, fields, key, None))
    return out, list(names)
