"""Synthetic settings files whose sections hold several numeric settings each (training only), as a unit file's
``[Service]``, a ``pyproject.toml`` table of lint limits or a YAML block of timeouts does, written as INI, TOML,
YAML or JSON. The facts: which setting of one section is set highest / lowest ("which limit under [worker] is
set highest?"), the largest number one section sets ("what is the largest value set in [worker]?"), which
setting of the whole file is set highest (where the question names no section), and a setting's own value looked
up (so the same files also ask for no ranking).

Section and setting names are made of syllables; a section's numbers are all different, and so are the file's,
so every extreme is unique; each section also holds a setting that is no number (a name, a quoted version). The
golds come from the generated sections, never from parsing the rendering. Only
:func:`benchmarks.corpus.build.build` for ``train`` uses it: no evaluation split holds these files.
"""

from __future__ import annotations

import json
import random

from benchmarks.corpus import grammar
from benchmarks.corpus.generated import word
from benchmarks.real_files.core import Fact

FORMATS = ("ini", "ini", "toml", "yaml", "json")
_SUFFIXES = ("limit", "timeout", "size", "count", "retries", "depth", "interval", "workers", "max", "port")
_NOUNS = ("setting", "option", "parameter", "entry", "key")
_MAX = ("largest", "highest", "biggest", "greatest")
_MIN = ("smallest", "lowest", "least")
_GROUPS = ("section", "table", "block")
RANK_SHAPES: dict[str, tuple[str, ...]] = {
    "wh": (
        "Which {noun} in [{key}] has the {extreme} value?",
        "Which {noun} under {key} is set to the {extreme} number?",
    ),
    "imperative": (
        "Name the {noun} of the {key} {group} with the {extreme} value.",
        "Find the {extreme} {noun} in [{key}].",
    ),
    "topic": ("[{key}]: which {noun} is the {extreme}?", "{key}: which {noun} has the {extreme} value?"),
    "embedded": (
        "Tell me which {noun} in {key} is set {extreme}.",
        "I need the {noun} with the {extreme} number in [{key}].",
    ),
    "terse": ("{extreme} {noun} in {key}", "{key} {noun} with the {extreme} value"),
    "possessive": ("Which of the {key} {group}'s {noun}s has the {extreme} value?",),
    "indirect": ("Could you tell me which {noun} in [{key}] is the {extreme}?",),
    "inverted": ("The {extreme} value in [{key}] belongs to which {noun}?",),
}
"""The ways "which setting of one section is set highest / lowest" is asked, per phrasing family."""
VALUE_SHAPES: dict[str, tuple[str, ...]] = {
    "wh": ("What is the {extreme} value set in [{key}]?", "What is the {extreme} number under {key}?"),
    "imperative": ("Give the {extreme} number set in the {key} {group}.", "Find the {extreme} value under [{key}]."),
    "topic": ("[{key}]: what is the {extreme} value?",),
    "embedded": ("Tell me the {extreme} number set in {key}.",),
    "terse": ("{extreme} value in {key}", "{key} {extreme} number"),
    "possessive": ("What is the {key} {group}'s {extreme} value?",),
    "indirect": ("Could you find the {extreme} number set under [{key}]?",),
    "inverted": ("The {extreme} value set in [{key}] is what?",),
}
"""The ways "what is the largest / smallest number one section sets" is asked."""
FILE_SHAPES: dict[str, tuple[str, ...]] = {
    "wh": ("Which {noun} in this file is set to the {extreme} number?", "Which {noun} has the {extreme} value?"),
    "imperative": ("Name the {noun} set to the {extreme} number.", "Find the {noun} with the {extreme} value."),
    "topic": ("{noun}s: which one is set {extreme}?",),
    "embedded": ("Tell me which {noun} has the {extreme} value.",),
    "terse": ("{noun} with the {extreme} value", "{extreme} {noun}"),
    "possessive": ("Which of the file's {noun}s is set {extreme}?",),
    "indirect": ("Could you tell me which {noun} is set to the {extreme} number?",),
    "inverted": ("The {extreme} number is set by which {noun}?",),
}
"""The ways "which setting of the whole file is set highest / lowest" is asked."""
LOOKUP_SHAPES: dict[str, tuple[str, ...]] = {
    "wh": ("What is {name} set to in [{key}]?", "What value does {name} have under {key}?"),
    "imperative": ("Give the value of {name} in the {key} {group}.", "Look up {name} in [{key}]."),
    "topic": ("[{key}] {name}: what value?",),
    "embedded": ("Tell me what {key} sets {name} to.",),
    "terse": ("{key} {name}", "{name} in {key}"),
    "possessive": ("What is the {key} {group}'s {name}?",),
    "indirect": ("Could you tell me the {name} under [{key}]?",),
    "inverted": ("{name} in [{key}] is set to what?",),
}
"""The ways one setting's value is looked up."""


def _render(fmt: str, sections: dict[str, dict[str, int | str]]) -> str:
    if fmt == "json":
        return json.dumps(sections, indent=2) + "\n"
    out: list[str] = []
    for name, settings in sections.items():
        out.append(f"{name}:" if fmt == "yaml" else f"[{name}]")
        for k, v in settings.items():
            shown = json.dumps(v) if fmt == "toml" or (fmt == "yaml" and isinstance(v, str) and "." in v) else v
            out.append(f"  {k}: {shown}" if fmt == "yaml" else f"{k} = {shown}")
        out.append("")
    return "\n".join(out)


def _setting(rng: random.Random, fmt: str) -> str:
    name, suffix = word(rng), rng.choice(_SUFFIXES)
    if fmt == "ini" and rng.random() < 0.5:  # a unit file's CamelCase directives
        return f"{name.capitalize()}{suffix.capitalize()}"
    return f"{name}{rng.choice(('_', '-', '.'))}{suffix}"


def limits_file(rng: random.Random) -> tuple[str, list[Fact], str]:
    """One synthetic settings file: its text, its facts (the extremes of sections and of the file, lookups) and
    format."""
    fmt = rng.choice(FORMATS)
    names = list(dict.fromkeys(word(rng) for _ in range(rng.randint(2, 5))))
    used: set[int] = set()  # every number of the file different: unique extremes
    sections: dict[str, dict[str, int | str]] = {}
    for name in names:
        settings: dict[str, int | str] = {}
        scale = rng.choice((1, 1, 10, 1000))
        for _ in range(rng.randint(3, 7)):
            n = rng.randint(0, 5000) * scale
            while n in used:
                n += 1
            used.add(n)
            settings[_setting(rng, fmt)] = n
        settings[f"{word(rng)}_name"] = word(rng)  # no number: never ranked
        if rng.random() < 0.5:
            settings["version"] = f"{rng.randint(1, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"
        sections[name] = dict(rng.sample(list(settings.items()), len(settings)))
    facts: list[Fact] = []
    slots = {"noun": _NOUNS, "group": _GROUPS}
    for name in rng.sample(names, min(2, len(names))):
        ranked = {k: v for k, v in sections[name].items() if isinstance(v, int)}
        if len(ranked) < 2:
            continue
        top, low = max(ranked, key=ranked.__getitem__), min(ranked, key=ranked.__getitem__)
        facts.append(Fact("min_max", {**slots, "key": name, "extreme": _MAX, "shape": "rank"}, top))
        facts.append(Fact("min_max", {**slots, "key": name, "extreme": _MIN, "shape": "rank"}, low))
        facts.append(Fact("min_max", {**slots, "key": name, "extreme": _MAX, "shape": "value"}, ranked[top]))
        setting = rng.choice(list(ranked))
        facts.append(Fact("lookup", {**slots, "key": name, "name": setting}, ranked[setting]))
    every = {k: v for s in sections.values() for k, v in s.items() if isinstance(v, int)}
    if len(every) == sum(isinstance(v, int) for s in sections.values() for v in s.values()):  # names all differ
        top = max(every, key=every.__getitem__)
        facts.append(Fact("min_max", {**slots, "extreme": _MAX, "shape": "file"}, top))
    return _render(fmt, sections), facts, fmt


def phrase(fact: Fact, family: str, rng: random.Random) -> str:
    """A limits fact in ``family``'s words: by :data:`RANK_SHAPES`, :data:`VALUE_SHAPES`, :data:`FILE_SHAPES` or
    :data:`LOOKUP_SHAPES`."""
    shape = fact.slots.get("shape", "lookup")
    shapes = {"rank": RANK_SHAPES, "value": VALUE_SHAPES, "file": FILE_SHAPES, "lookup": LOOKUP_SHAPES}[shape]
    slots = {k: v for k, v in fact.slots.items() if k != "shape"}
    return grammar.fill(shapes[family], slots, rng, lambda c: [c.get("key", ""), c.get("name", "")])
