"""Synthetic tables without a header row (training only): the whitespace tables of Unix files, where a line is
a key and its values, ``#`` starts a comment, and the columns are named at most in a comment.

Every generated format of :mod:`benchmarks.corpus.generated` names its fields in the data (a header row, a key
in each record). Many real files do not: ``key value value  # words`` tables name their columns in a comment
above the rows or nowhere at all, and keep a field of several words for the end of the line or for a trailing
comment. Three layouts:

- ``columns_named``: a comment line names the columns (``# hostname  address  os``), then the rows;
- ``columns_bare``: the same rows with only a comment saying what the file lists (the columns unnamed);
- ``pairs``: a key and one value per line (an alias table), sometimes a trailing ``# comment``.

A cell a row lacks is ``-`` (a missing cell must not shift the columns); a field whose values hold spaces is
only ever the last column or the trailing comment. The golds come from the generated rows, never from parsing
the rendering. Only :func:`benchmarks.corpus.build.build` for ``train`` uses it.
"""

from __future__ import annotations

import random

from benchmarks.corpus.facts import Quota, table_facts
from benchmarks.corpus.generated import SCHEMAS, make_rows
from benchmarks.corpus.tables import Row, Table
from benchmarks.real_files.core import Fact

LAYOUTS = ("columns_named", "columns_bare", "pairs")
QUOTA = Quota(lookup=3, reverse=2, count=1, most_common=1, min_max=1, yes_no=1, two_hop=1)


def _spaced(rows: list[Row], field: str) -> bool:
    return any(" " in r.get(field, "") for r in rows)


def unheaded_file(rng: random.Random) -> tuple[str, list[Fact], str]:
    """One synthetic headerless table: its text, its facts (:func:`~benchmarks.corpus.facts.table_facts` over the
    fields it shows) and its layout."""
    schema = rng.choice(SCHEMAS)
    layout = rng.choice(LAYOUTS)
    rows = make_rows(schema, rng, rng.choice((10, 25, 50, 120, 300)))
    key = schema.key[0]
    fields = [n for n, _ in schema.fields]
    plain = [f for f in fields if not _spaced(rows, f)]
    spaced = [f for f in fields if f not in plain]
    if layout == "pairs":
        shown = rng.sample(plain, 1) if plain else []
    else:
        shown = rng.sample(plain, min(len(plain), rng.randint(2, 4)))
    last = rng.choice(spaced) if spaced and rng.random() < 0.6 else None
    as_comment = last is not None and rng.random() < 0.5
    nouns = schema.noun[1]
    lines = [f"# {nouns.capitalize()} of this site, one per line.", "#"]
    if layout == "columns_named":
        lines.append("# " + "  ".join([key, *shown, *([f"# {last}"] if as_comment else [last] if last else [])]))
    width = max(len(r[key]) for r in rows) + 2
    for r in rows:
        cells = [r.get(f, "-") for f in shown]
        text = r[key].ljust(width) + "  ".join(cells)
        if last is not None and last in r:
            text += ("   # " if as_comment else "  ") + r[last]
        lines.append(text.rstrip())
    kept = [*shown, *([last] if last else [])]
    table_rows = [{key: r[key], **{f: r[f] for f in kept if f in r and r[f] != "-"}} for r in rows]
    words = {f: (f.replace("_", " "),) for f in [key, *kept]}
    facts = table_facts(Table(schema.noun, key, table_rows, words), rng, QUOTA)
    return "\n".join(lines) + "\n", facts, layout
