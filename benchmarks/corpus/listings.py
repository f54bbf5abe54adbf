"""Synthetic configuration files whose settings list items (training only): sections of made-up names holding
scalar settings and *list* settings, written as INI (items between commas, between spaces, one an indented line,
or the key repeated per item), YAML (``- item`` lines or ``[a, b]``), TOML arrays or JSON (arrays, or an object
whose keys are the items). The facts: how many items a list setting holds ("how many trusted hosts are
configured?"), and each section's scalar settings looked up (so the same files also ask for no count).

Key names join a prefix and a plural noun from small generic lists (``trusted_hosts``, ``ExtraModules``); item
values are made of syllables; the gold counts come from the generated items, never from parsing the rendering.
Only :func:`benchmarks.corpus.build.build` for ``train`` uses it: no evaluation split holds these files.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from benchmarks.corpus import grammar
from benchmarks.corpus.generated import _style, word
from benchmarks.real_files.core import Fact

_PREFIXES = ("allowed", "extra", "default", "required", "blocked", "trusted", "enabled", "optional", "shared")
_ITEMS: dict[str, Callable[[random.Random], str]] = {
    "hosts": lambda r: f"{word(r)}.{word(r)}.org",
    "modules": lambda r: f"{word(r)}.{word(r)}",
    "paths": lambda r: f"/{word(r)}/{word(r)}",
    "users": lambda r: word(r),
    "plugins": lambda r: f"{word(r)}_{word(r, 1, 2)}",
    "targets": lambda r: f"{word(r)}.target",
    "packages": lambda r: f"{word(r)}>={r.randint(0, 9)}.{r.randint(0, 20)}",
    "mirrors": lambda r: f"https://{word(r)}.net/{word(r)}",
    "flags": lambda r: f"{word(r).upper()}_{word(r, 1, 2).upper()}",
    "locales": lambda r: f"{word(r, 1, 1)}_{word(r, 1, 1).upper()}.UTF-8",
}
_GENERIC = ("items", "entries", "values")
_SCALARS: dict[str, Callable[[random.Random], str]] = {
    "port": lambda r: str(r.randint(1000, 65000)),
    "timeout": lambda r: f"{r.randint(1, 120)}s",
    "owner": lambda r: word(r),
    "mode": lambda r: r.choice(("strict", "lenient", "auto", "manual")),
    "version": lambda r: f"{r.randint(0, 9)}.{r.randint(0, 30)}",
    "label": lambda r: f"{word(r).capitalize()} {word(r)}",
}
SHAPES: dict[str, tuple[str, ...]] = {
    "wh": (
        "How many {nouns} does {name} list?",
        "How many {nouns} are listed under {name}?",
        "How many {spoken} are there?",
    ),
    "imperative": ("Count the {nouns} in {name}.", "Count the {spoken} configured."),
    "topic": ("{name}: how many {nouns}?",),
    "embedded": ("Tell me how many {nouns} {name} holds.", "I need the number of {spoken}."),
    "terse": ("number of {nouns} in {name}", "how many {spoken}?"),
    "possessive": ("How many {nouns} are in the {section} section's {name}?",),
    "indirect": ("Could you count the {nouns} in {name}?",),
    "inverted": ("The {spoken} number how many?",),
}
"""The ways a count of items is asked, per phrasing family of :mod:`benchmarks.corpus.grammar`."""

FORMATS = ("ini", "ini", "yaml", "toml", "json")


def _list_lines(fmt: str, key: str, items: list[str], rng: random.Random) -> list[str]:
    if fmt == "ini":
        spaced = not any(i.isalpha() for i in items) and rng.random() < 0.3  # names, not words of a sentence
        style = rng.choice(("comma", "lines", "repeat", "spaces" if spaced else "comma"))
        if style == "repeat":
            return [f"{key}={i}" for i in items]
        if style == "lines":
            return [f"{key} =", *(f"    {i}" for i in items)]
        return [f"{key} = {(' ' if style == 'spaces' else ', ').join(items)}"]
    if fmt == "yaml":
        if rng.random() < 0.3:
            return [f"  {key}: [{', '.join(items)}]"]
        return [f"  {key}:", *(f"    - {i}" for i in items)]
    if rng.random() < 0.5:  # toml
        return [f"{key} = {json.dumps(items)}"]
    return [f"{key} = [", *(f"  {json.dumps(i)}," for i in items), "]"]


def _scalar_line(fmt: str, key: str, value: str) -> str:
    if fmt == "ini":
        return f"{key} = {value}"
    if fmt == "yaml":
        return f"  {key}: {value}"
    return f"{key} = {json.dumps(value)}"


def listing_file(rng: random.Random) -> tuple[str, list[Fact], str]:
    """One synthetic file: its text, its facts (item counts and scalar lookups) and its format."""
    fmt = rng.choice(FORMATS)
    style = rng.choice(("snake", "snake", "camel", "kebab"))
    nouns = rng.sample(sorted(_ITEMS), rng.randint(2, 4))
    sections = list(dict.fromkeys(word(rng) for _ in range(rng.randint(2, 4))))
    placed: dict[str, list[tuple[str, str | list[str]]]] = {s: [] for s in sections}
    spoken: dict[str, str] = {}
    for noun in nouns:
        key = noun if rng.random() < 0.2 else f"{rng.choice(_PREFIXES)}_{noun}"
        name = key.replace("_", "-") if style == "kebab" else _style(key, style)
        spoken[name] = key.replace("_", " ")
        items = list(dict.fromkeys(_ITEMS[noun](rng) for _ in range(rng.randint(2, 12))))
        placed[rng.choice(sections)].append((name, items))
    for s in sections:
        for scalar in rng.sample(sorted(_SCALARS), rng.randint(1, 3)):
            placed[s].insert(rng.randint(0, len(placed[s])), (scalar, _SCALARS[scalar](rng)))
    facts: list[Fact] = []
    for s, settings in placed.items():
        for name, value in settings:
            if isinstance(value, list):
                noun = spoken[name].split()[-1]
                slots = {"nouns": (noun, noun, *_GENERIC), "name": name, "spoken": spoken[name], "section": s}
                facts.append(Fact("count", slots, len(value)))
            else:
                facts.append(Fact("lookup", {"field": name, "noun": "section", "key": s}, value))
    return _render(fmt, placed, rng), facts, fmt


def _render(fmt: str, placed: dict[str, list[tuple[str, str | list[str]]]], rng: random.Random) -> str:
    if fmt == "json":
        doc = {s: {n: (v if isinstance(v, str) or rng.random() < 0.7 else dict.fromkeys(v, "on")) for n, v in kv}
               for s, kv in placed.items()}  # fmt: skip
        return json.dumps(doc, indent=2) + "\n"
    out: list[str] = []
    for s, settings in placed.items():
        out.append(f"{s}:" if fmt == "yaml" else f"[{s}]")
        for name, value in settings:
            out += _list_lines(fmt, name, value, rng) if isinstance(value, list) else [_scalar_line(fmt, name, value)]
        out.append("")
    return "\n".join(out)


def phrase(fact: Fact, family: str, rng: random.Random) -> str:
    """A listing fact in ``family``'s words: item counts by :data:`SHAPES`, lookups by the grammar."""
    if fact.slots.get("spoken") is None:
        return grammar.phrase(fact, family, rng)
    return grammar.fill(SHAPES[family], fact.slots, rng, lambda c: [c["name"], c["spoken"]])
