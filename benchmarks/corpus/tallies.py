"""Synthetic record files for whole-file tallies (training only): how many records there are ("how many hosts
are there?") and how many records have a field that only some of them carry ("how many hosts have an owner?").

The rows come from :mod:`benchmarks.corpus.generated`'s schemas; one field is made *optional* (present in a fifth
to four fifths of the rows) and the file is written in a format where a missing field is absent, not an empty
cell (JSON, JSON Lines, stanzas, INI, logfmt), so "having" it is visible. The golds come from the generated rows,
never from parsing the rendering. Only :func:`benchmarks.corpus.build.build` for ``train`` uses it: no evaluation
split holds these files, and the test split's facts (:func:`benchmarks.corpus.facts.table_facts`) stay as they
were.
"""

from __future__ import annotations

import random

from benchmarks.corpus import grammar
from benchmarks.corpus.generated import SCHEMAS, _style, make_rows, render
from benchmarks.real_files.core import Fact

FORMATS = ("json", "json_by_key", "jsonl", "stanzas", "ini", "logfmt")
"""Formats where a record lacking a field shows no trace of it."""
_ALL: dict[str, tuple[str, ...]] = {
    "wh": ("How many {nouns} are there?", "How many {nouns} does the file list?"),
    "imperative": ("Count the {nouns}.", "Count every {noun} in the file."),
    "topic": ("{nouns}: how many are there?", "{nouns}: how many in all?"),
    "embedded": ("Tell me how many {nouns} there are.", "I need the total number of {nouns}."),
    "terse": ("number of {nouns}", "total {nouns}", "how many {nouns}"),
    "possessive": ("What is the file's number of {nouns}?",),
    "indirect": ("Could you count the {nouns} listed?",),
    "inverted": ("The {nouns} listed number how many?",),
}
"""The ways "how many records" is asked, per phrasing family of :mod:`benchmarks.corpus.grammar`."""
_HAVING: dict[str, tuple[str, ...]] = {
    "wh": ("How many {nouns} have {a} {field}?", "How many {nouns} list {a} {field}?"),
    "imperative": ("Count the {nouns} that have {a} {field}.", "Count the {nouns} with {a} {field} set."),
    "topic": ("{field}: how many {nouns} have one?", "{field}: how many {nouns} carry it?"),
    "embedded": ("Tell me how many {nouns} have {a} {field}.", "I need the number of {nouns} with {a} {field}."),
    "terse": ("number of {nouns} with {a} {field}", "{nouns} with {a} {field}: how many"),
    "possessive": ("How many of the file's {nouns} have {a} {field}?",),
    "indirect": ("Could you count the {nouns} that give {a} {field}?",),
    "inverted": ("The {nouns} with {a} {field} number how many?",),
}
"""The ways "how many records have field F" is asked."""


def _article(words: str) -> str:
    return "an" if words[:1].casefold() in "aeiou" else "a"


def tally_file(rng: random.Random) -> tuple[str, list[Fact], str]:
    """One synthetic file: its text, its facts (the record count, and the count of records having each optional
    field) and its format."""
    schema = rng.choice(SCHEMAS)
    fmt = rng.choice(FORMATS)
    rows = make_rows(schema, rng, rng.choice((8, 15, 30, 60, 120)))
    fields = [n for n, _ in schema.fields]
    optional = rng.sample(fields, rng.randint(1, 2))
    for f in optional:
        share = rng.uniform(0.2, 0.8)
        for row in rows:
            if f in row and rng.random() > share:
                del row[f]
    style = rng.choice(("snake", "snake", "camel", "upper"))
    names = {f: _style(f, style) for f in [schema.key[0], *fields]}
    noun, nouns = schema.noun
    facts = [Fact("count", {"noun": noun, "nouns": (nouns, nouns, "records", "entries"), "tally": "all"}, len(rows))]
    for f in optional:
        have = sum(f in row for row in rows)
        if 0 < have < len(rows):
            said = tuple(dict.fromkeys((f.replace("_", " "), names[f])))
            facts.append(Fact("count", {"noun": noun, "nouns": (nouns, nouns, "records"), "field": said}, have))
    return render(rows, fmt, names, schema.key[0]), facts, fmt


def phrase(fact: Fact, family: str, rng: random.Random) -> str:
    """A tally fact in ``family``'s words: the record count by :data:`_ALL`, a having count by :data:`_HAVING`."""
    shapes = _ALL if fact.slots.get("tally") == "all" else _HAVING

    def derive(chosen: dict[str, str]) -> None:
        chosen["a"] = _article(chosen.get("field", ""))

    return grammar.fill(shapes[family], fact.slots, rng, lambda c: [c.get("field", "")], derive)
