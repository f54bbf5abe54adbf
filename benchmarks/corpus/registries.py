"""Synthetic registries (training only): sections that each hold their own set of named entries, as an
``entry_points.txt`` or a logging config does (``[kite.plugins]`` with ``zip = kite.zip:Plugin``), written as INI,
TOML, YAML or JSON. The facts: how many entries one section holds ("how many commands are registered under
[tool.commands]?") and which section holds the most / fewest ("which group lists the most entries?").

Section names and entries are made of syllables; every section's size is different, so the extremes are unique;
the golds come from the generated sections, never from parsing the rendering. Only
:func:`benchmarks.corpus.build.build` for ``train`` uses it: no evaluation split holds these files.
"""

from __future__ import annotations

import json
import random

from benchmarks.corpus import grammar
from benchmarks.corpus.generated import word
from benchmarks.real_files.core import Fact

FORMATS = ("ini", "ini", "toml", "yaml", "json")
_THINGS = ("plugins", "commands", "handlers", "hooks", "scripts", "backends", "formatters", "filters")
_GROUPS = ("group", "section", "table")
_MOST = ("most", "largest number of", "greatest number of")
_FEWEST = ("fewest", "smallest number of", "least number of")
COUNT_SHAPES: dict[str, tuple[str, ...]] = {
    "wh": ("How many {nouns} are registered under [{key}]?", "How many {nouns} does the {key} {group} have?"),
    "imperative": ("Count the {nouns} in [{key}].", "Count the {nouns} the {key} {group} lists."),
    "topic": ("{key}: how many {nouns}?", "[{key}]: how many {nouns} does it hold?"),
    "embedded": ("Tell me how many {nouns} {key} registers.", "I need the number of {nouns} under {key}."),
    "terse": ("number of {nouns} in {key}", "{key} {nouns} count"),
    "possessive": ("How many {nouns} are in the {key} {group}'s list?",),
    "indirect": ("Could you count the {nouns} under [{key}]?",),
    "inverted": ("The {nouns} under {key} number how many?",),
}
"""The ways "how many entries does one section hold" is asked, per phrasing family of the grammar."""
RANK_SHAPES: dict[str, tuple[str, ...]] = {
    "wh": ("Which {group} has the {extreme} {nouns}?", "Which {group} registers the {extreme} {nouns}?"),
    "imperative": ("Name the {group} with the {extreme} {nouns}.", "Find the {group} listing the {extreme} {nouns}."),
    "topic": ("{nouns}: which {group} has the {extreme} {nouns}?",),
    "embedded": ("Tell me which {group} lists the {extreme} {nouns}.",),
    "terse": ("{group} with the {extreme} {nouns}",),
    "possessive": ("Which {group}'s list holds the {extreme} {nouns}?",),
    "indirect": ("Could you tell me which {group} has the {extreme} {nouns}?",),
    "inverted": ("The {extreme} {nouns} are registered by which {group}?",),
}
"""The ways "which section holds the most / fewest entries" is asked."""


def _render(fmt: str, sections: dict[str, dict[str, str]]) -> str:
    if fmt == "json":
        return json.dumps(sections, indent=2) + "\n"
    out: list[str] = []
    for name, entries in sections.items():
        out.append(f"{name}:" if fmt == "yaml" else f'["{name}"]' if fmt == "toml" and "." in name else f"[{name}]")
        for k, v in entries.items():
            out.append(f"  {k}: {v}" if fmt == "yaml" else f"{k} = {json.dumps(v)}" if fmt == "toml" else f"{k} = {v}")
        out.append("")
    return "\n".join(out)


def registry_file(rng: random.Random) -> tuple[str, list[Fact], str]:
    """One synthetic registry: its text, its facts (each section's size, the largest and smallest) and format."""
    fmt = rng.choice(FORMATS)
    thing = rng.choice(_THINGS)
    package = word(rng)
    names = list(dict.fromkeys(rng.choice((f"{package}.{word(rng)}", f"{word(rng)}_{thing}")) for _ in range(6)))
    names = names[: rng.randint(3, len(names))] if len(names) >= 3 else names
    sizes = rng.sample(range(1, 16), len(names))
    sections: dict[str, dict[str, str]] = {}
    for name, size in zip(names, sizes, strict=True):
        entries: dict[str, str] = {}
        while len(entries) < size:
            entries[word(rng)] = f"{package}.{word(rng)}:{word(rng).capitalize()}"
        sections[name] = entries
    nouns = (thing, "entries", "entries")
    slots = {"nouns": nouns, "group": _GROUPS}
    facts = [Fact("count", {**slots, "key": n}, len(sections[n])) for n in rng.sample(names, min(2, len(names)))]
    if len(names) >= 3:
        facts.append(Fact("min_max", {**slots, "extreme": _MOST}, max(names, key=lambda n: len(sections[n]))))
        facts.append(Fact("min_max", {**slots, "extreme": _FEWEST}, min(names, key=lambda n: len(sections[n]))))
    return _render(fmt, sections), facts, fmt


def phrase(fact: Fact, family: str, rng: random.Random) -> str:
    """A registry fact in ``family``'s words: a section's size by :data:`COUNT_SHAPES`, the extremes by
    :data:`RANK_SHAPES`."""
    shapes = (COUNT_SHAPES if fact.kind == "count" else RANK_SHAPES)[family]
    return grammar.fill(shapes, fact.slots, rng, lambda c: [c.get("key", ""), c["nouns"]])
