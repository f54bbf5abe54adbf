"""Synthetic tables in formats of the corpus's choosing: made-up records (names built from syllables, so no
fact is known in advance), rendered as CSV, TSV, JSON, JSON lines, stanzas, INI, Markdown, fixed-width columns
or ``key=value`` log lines. The gold comes from the generated rows, never from parsing the rendering.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from benchmarks.corpus.tables import Row, Table

_SYL: tuple[str, ...] = (
    "ka",
    "lo",
    "mi",
    "ra",
    "ven",
    "tor",
    "sa",
    "del",
    "qu",
    "ix",
    "bo",
    "ne",
    "zar",
    "pel",
    "fi",
    "gu",
    "ost",
)
_SYL += ("an", "mer", "ty", "ul", "cor", "wen", "dra", "hal", "mo", "ri", "sen", "tal", "vo", "ber", "lin", "nu")


def word(rng: random.Random, lo: int = 2, hi: int = 3) -> str:
    return "".join(rng.choice(_SYL) for _ in range(rng.randint(lo, hi)))


def _name(rng: random.Random) -> str:
    return f"{word(rng).capitalize()} {word(rng).capitalize()}"


def _phrase(rng: random.Random) -> str:
    return " ".join(word(rng) for _ in range(rng.randint(2, 4))).capitalize()


def _code(rng: random.Random) -> str:
    return f"{word(rng, 1, 1).upper()}{rng.choice('ABCDEFGH')}-{rng.randint(100, 9999)}"


def _version(rng: random.Random) -> str:
    return f"{rng.randint(0, 12)}.{rng.randint(0, 30)}.{rng.randint(0, 99)}"


def _date(rng: random.Random) -> str:
    return f"{rng.randint(1990, 2026)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _ip(rng: random.Random) -> str:
    return f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"


Gen = Callable[[random.Random], str]


def _category(k: int) -> Callable[[random.Random], Gen]:
    """A field with ``k`` made-up values, skewed (the first values are more common)."""

    def make(rng: random.Random) -> Gen:
        values = [word(rng).capitalize() if rng.random() < 0.5 else word(rng) for _ in range(k)]
        weights = [1 / (i + 1) for i in range(k)]
        return lambda r: r.choices(values, weights)[0]

    return make


def _fixed(gen: Gen) -> Callable[[random.Random], Gen]:
    return lambda rng: gen


def _int(lo: int, hi: int) -> Callable[[random.Random], Gen]:
    return _fixed(lambda r: str(r.randint(lo, hi)))


def _float(lo: float, hi: float) -> Callable[[random.Random], Gen]:
    return _fixed(lambda r: f"{r.uniform(lo, hi):.2f}")


@dataclass(frozen=True)
class Schema:
    noun: tuple[str, str]
    key: tuple[str, Gen]
    fields: tuple[tuple[str, Callable[[random.Random], Gen]], ...]


SCHEMAS = (
    Schema(("host", "hosts"), ("hostname", lambda r: f"{word(r)}-{r.randint(1, 99)}"),
           (("address", _fixed(_ip)), ("os", _category(5)), ("cores", _int(1, 128)), ("owner", _fixed(_name)),
            ("site", _category(6)), ("status", _category(3)))),
    Schema(("employee", "employees"), ("employee_id", lambda r: f"E{r.randint(10000, 99999)}"),
           (("full_name", _fixed(_name)), ("department", _category(7)), ("salary", _int(30000, 190000)),
            ("office", _category(5)), ("start_date", _fixed(_date)))),
    Schema(("book", "books"), ("isbn", lambda r: f"978-{r.randint(0, 9)}-{r.randint(1000, 9999)}-{r.randint(1, 999)}"),
           (("title", _fixed(_phrase)), ("author", _fixed(_name)), ("year", _int(1850, 2026)),
            ("genre", _category(6)), ("pages", _int(40, 1400)))),
    Schema(("package", "packages"), ("package", lambda r: word(r, 2, 4)),
           (("version", _fixed(_version)), ("license", _category(5)), ("maintainer", _fixed(_name)),
            ("installed_size", _int(4, 90000)), ("section", _category(8)), ("summary", _fixed(_phrase)))),
    Schema(("station", "stations"), ("station_code", lambda r: word(r, 2, 2).upper()[:4]),
           (("city", _category(12)), ("elevation", _int(-20, 3500)), ("region", _category(4)),
            ("opened", _int(1880, 2024)), ("platforms", _int(1, 24)))),
    Schema(("product", "products"), ("sku", _code),
           (("product_name", _fixed(_phrase)), ("price", _float(0.5, 999)), ("category", _category(6)),
            ("stock", _int(0, 5000)), ("supplier", _category(9)))),
    Schema(("account", "accounts"), ("username", lambda r: word(r, 2, 3)),
           (("email", lambda rng: (lambda r: f"{word(r)}@{word(rng, 2, 2)}.example")), ("shell", _category(4)),
            ("uid", _int(1000, 65000)), ("group", _category(6)), ("display_name", _fixed(_name)))),
    Schema(("sensor", "sensors"), ("sensor_id", lambda r: f"S-{r.randint(100, 999)}{r.choice('ABCXYZ')}"),
           (("room", _category(10)), ("reading", _float(-30, 120)), ("unit", _category(3)),
            ("battery", _int(0, 100)), ("firmware", _fixed(_version)))),
)  # fmt: skip


def _style(name: str, style: str) -> str:
    parts = name.split("_")
    if style == "title":
        return " ".join(p.capitalize() for p in parts) if style == "title" else name
    if style == "camel":
        return parts[0] + "".join(p.capitalize() for p in parts[1:])
    if style == "upper":
        return name.upper()
    return name


def make_rows(schema: Schema, rng: random.Random, n: int) -> list[Row]:
    gens = [(name, make(rng)) for name, make in schema.fields]
    rows: list[Row] = []
    keys: set[str] = set()
    while len(rows) < n:
        key = schema.key[1](rng)
        if key in keys:
            continue
        keys.add(key)
        row = {schema.key[0]: key}
        for name, gen in gens:
            if rng.random() < 0.95:  # a few cells missing, as in real files
                row[name] = gen(rng)
        rows.append(row)
    return rows


def _q(value: str) -> str:
    return f'"{value}"' if re.search(r"[\s,=\"]", value) else value


def render(rows: list[Row], fmt: str, names: dict[str, str], key: str) -> str:
    """``rows`` written in ``fmt``, each field shown by ``names[field]``."""
    cols = list(dict.fromkeys(f for r in rows for f in r))
    shown = [names[c] for c in cols]
    if fmt in ("csv", "tsv"):
        sep = "," if fmt == "csv" else "\t"
        cell = _q if fmt == "csv" else (lambda v: v)
        return "\n".join([sep.join(shown)] + [sep.join(cell(r.get(c, "")) for c in cols) for r in rows]) + "\n"
    if fmt == "json":
        return json.dumps([{names[k]: v for k, v in r.items()} for r in rows], indent=2) + "\n"
    if fmt == "json_by_key":
        out = {r[key]: {names[k]: v for k, v in r.items() if k != key} for r in rows}
        return json.dumps(out, indent=2) + "\n"
    if fmt == "jsonl":
        return "".join(json.dumps({names[k]: v for k, v in r.items()}) + "\n" for r in rows)
    if fmt == "stanzas":
        return "\n".join("".join(f"{names[k]}: {v}\n" for k, v in r.items()) for r in rows)
    if fmt == "ini":
        return "\n".join(
            f"[{r[key]}]\n" + "".join(f"{names[k]} = {v}\n" for k, v in r.items() if k != key) for r in rows
        )
    if fmt == "markdown":
        head = "| " + " | ".join(shown) + " |\n|" + "---|" * len(cols) + "\n"
        return head + "".join("| " + " | ".join(r.get(c, "") for c in cols) + " |\n" for r in rows)
    if fmt == "logfmt":
        return "".join(" ".join(f"{names[k]}={_q(v)}" for k, v in r.items()) + "\n" for r in rows)
    if fmt == "fixed":
        widths = [max(len(names[c]), *(len(r.get(c, "")) for r in rows)) + 2 for c in cols]
        line = lambda vals: "".join(v.ljust(w) for v, w in zip(vals, widths, strict=True)).rstrip()  # noqa: E731
        return "\n".join([line(shown)] + [line([r.get(c, "-") for c in cols]) for r in rows]) + "\n"
    raise ValueError(f"unknown format {fmt!r}")


FORMATS = ("csv", "tsv", "json", "json_by_key", "jsonl", "stanzas", "ini", "markdown", "logfmt", "fixed")


def generated_table(rng: random.Random) -> tuple[str, Table, str]:
    """One synthetic file: its text, its table and its format."""
    schema = rng.choice(SCHEMAS)
    fmt = rng.choice(FORMATS)
    rows = make_rows(schema, rng, rng.choice((12, 30, 60, 150, 400)))
    style = rng.choice(("snake", "snake", "title", "camel", "upper"))
    if fmt in ("logfmt", "ini", "fixed") and style == "title":
        style = "snake"  # a name with a space is no key in key=value or a column of words
    names = {f: _style(f, style) for f in [schema.key[0], *(n for n, _ in schema.fields)]}
    words = {f: tuple(dict.fromkeys((f.replace("_", " "), names[f]))) for f in names}
    table = Table(schema.noun, schema.key[0], rows, words)
    return render(rows, fmt, names, schema.key[0]), table, fmt
