"""Synthetic files whose records list items under one shared setting (training only): made-up groups (``[web]``
with ``members = a, b``, a YAML list of ``- name: ...`` mappings with a ``hosts:`` list, TOML tables, JSON objects
or arrays of objects), or one group whose keys each list items (``[pools]`` with ``east = a, b``; a JSON object of
arrays). The facts: which record's list is longest / shortest ("which team has the most members?"), how many
items one record lists ("how many members does the web team have?"), whether a record lists an item ("is ada one
of web's members?": yes, no where another record lists it, no where none does), and scalar lookups.

Record names and items are made of syllables; each file's longest and shortest lists are unique; the golds come
from the generated lists, never from parsing the rendering. Only :func:`benchmarks.corpus.build.build` for
``train`` uses it: no evaluation split holds these files.
"""

from __future__ import annotations

import json
import random
from typing import Any

from benchmarks.corpus import grammar
from benchmarks.corpus.generated import _style, word
from benchmarks.corpus.listings import _ITEMS, _PREFIXES, _SCALARS, _list_lines, _scalar_line
from benchmarks.real_files.core import Fact

_RECORDS = ("group", "team", "pool", "profile", "role", "cluster", "channel", "stage", "bundle", "zone")
_MOST = ("most", "largest number of", "greatest number of", "highest number of")
_FEWEST = ("fewest", "smallest number of", "lowest number of")
SHAPES: dict[str, tuple[str, ...]] = {
    "wh": ("Which {record} has the {extreme} {nouns}?", "Which {record} lists the {extreme} {nouns}?"),
    "imperative": ("Find the {record} with the {extreme} {nouns}.", "Name the {record} listing the {extreme} {nouns}."),
    "topic": ("{nouns}: which {record} has the {extreme}?", "{name}: which {record} lists the {extreme} {nouns}?"),
    "embedded": (
        "Tell me which {record} has the {extreme} {nouns}.",
        "I want the {record} with the {extreme} {nouns}.",
    ),
    "terse": ("{record} with {extreme} {nouns}", "{record} with the {extreme} {name}"),
    "possessive": ("Which {record}'s {name} holds the {extreme} {nouns}?",),
    "indirect": ("Could you tell me which {record} lists the {extreme} {nouns}?",),
    "inverted": ("The {extreme} {nouns} are listed by which {record}?",),
}
"""The ways "which record lists the most / fewest items" is asked, per phrasing family of the grammar."""
COUNT_SHAPES: dict[str, tuple[str, ...]] = {
    "wh": ("How many {nouns} does the {record} {key} have?", "How many {nouns} are listed for {key}?"),
    "imperative": ("Count the {nouns} of {key}.",),
    "topic": ("{key}: how many {nouns}?",),
    "embedded": ("Tell me how many {nouns} {key} lists.",),
    "terse": ("number of {nouns} in {key}",),
    "possessive": ("How many {nouns} are in {key}'s {name}?",),
    "indirect": ("Could you count the {nouns} {key} lists?",),
    "inverted": ("The {nouns} of {key} number how many?",),
}
MEMBER_SHAPES: dict[str, tuple[str, ...]] = {
    "wh": ("Is {item} one of the {nouns} of {key}?", "Does the {record} {key} list {item} among its {nouns}?"),
    "imperative": ("Check whether {item} is one of {key}'s {nouns}.", "Confirm if {key} lists {item} as a {noun}."),
    "topic": ("{item}: is it one of the {nouns} of {key}?",),
    "embedded": ("Tell me whether {item} is among the {nouns} of {key}.",),
    "terse": ("{item} in {key} {nouns}?",),
    "possessive": ("Is {item} in {key}'s {name}?", "Is {item} one of {key}'s {nouns}?"),
    "indirect": ("Could you check whether {key} has {item} among its {nouns}?",),
    "inverted": ("Among the {nouns} of {key}, is there {item}?",),
}
"""The ways "is this item one of that record's list" is asked."""
FORMATS = ("ini", "yaml", "yaml_list", "toml", "json", "json_list", "group")


def _sizes(rng: random.Random, n: int) -> list[int]:
    """``n`` list lengths of 1-12 whose largest and smallest are each held once."""
    while True:
        sizes = [rng.randint(1, 12) for _ in range(n)]
        if sizes.count(max(sizes)) == 1 and sizes.count(min(sizes)) == 1:
            return sizes


def _items(noun: str, k: int, rng: random.Random) -> list[str]:
    out: dict[str, None] = {}
    while len(out) < k:  # syllables may draw the same item twice
        out[_ITEMS[noun](rng)] = None
    return list(out)


def roster_file(rng: random.Random) -> tuple[str, list[Fact], str]:
    """One synthetic file: its text, its facts (rankings by list length, item counts, lookups) and its format."""
    fmt = rng.choice(FORMATS)
    noun = rng.choice(sorted(_ITEMS))
    key = noun if rng.random() < 0.5 else f"{rng.choice(_PREFIXES)}_{noun}"
    name = _style(key, rng.choice(("snake", "snake", "camel")))
    names = list(dict.fromkeys(word(rng) for _ in range(rng.randint(3, 7))))
    lists = {n: _items(noun, k, rng) for n, k in zip(names, _sizes(rng, len(names)), strict=True)}
    record = rng.choice(_RECORDS)
    scalars = {n: {s: _SCALARS[s](rng) for s in rng.sample(sorted(_SCALARS), rng.randint(1, 2))} for n in names}
    slots = {"record": (record, record, "entry"), "nouns": (noun, noun, key.replace("_", " ")), "name": name}
    facts = [
        Fact("min_max", {**slots, "extreme": _MOST}, max(names, key=lambda n: len(lists[n]))),
        Fact("min_max", {**slots, "extreme": _FEWEST}, min(names, key=lambda n: len(lists[n]))),
    ]
    if fmt == "group" and rng.random() < 0.5:
        fmt = "group_json"  # its lists are fields "name.key": a count names no field whole
    else:
        facts += [Fact("count", {**slots, "key": n}, len(lists[n])) for n in rng.sample(names, 2)]
    facts += _memberships(slots, lists, noun, rng)
    if not fmt.startswith("group"):
        n = rng.choice(names)
        field, value = next(iter(scalars[n].items()))
        facts.append(Fact("lookup", {"field": field, "noun": record, "key": n}, value))
    return _render(fmt, name, record, lists, scalars, rng), facts, fmt


def _memberships(slots: dict[str, Any], lists: dict[str, list[str]], noun: str, rng: random.Random) -> list[Fact]:
    """Three yes/no facts of one record's list: an item it lists, one only another record lists, and one no record
    lists."""
    key = rng.choice(sorted(lists))
    others = sorted({i for n, v in lists.items() if n != key for i in v} - set(lists[key]))
    listed = {i for v in lists.values() for i in v}
    absent = next(i for i in iter(lambda: _ITEMS[noun](rng), None) if i not in listed)
    slots = {**slots, "key": key, "noun": noun}
    items = [(rng.choice(lists[key]), True), (absent, False)] + ([(rng.choice(others), False)] if others else [])
    return [Fact("yes_no", {**slots, "item": item}, gold) for item, gold in items]


def _render(
    fmt: str,
    name: str,
    record: str,
    lists: dict[str, list[str]],
    scalars: dict[str, dict[str, str]],
    rng: random.Random,
) -> str:
    if fmt == "json":
        return json.dumps({n: {**scalars[n], name: v} for n, v in lists.items()}, indent=2) + "\n"
    if fmt == "json_list":
        doc = {f"{record}s": [{"name": n, **scalars[n], name: v} for n, v in lists.items()]}
        return json.dumps(doc, indent=2) + "\n"
    if fmt == "group_json":  # one group of lists: a JSON object of arrays
        return json.dumps({"version": _SCALARS["version"](rng), name: lists}, indent=2) + "\n"
    if fmt == "group":  # [pools] east = a, b
        return "\n".join([f"[{name}]", *(ln for n, v in lists.items() for ln in _list_lines("ini", n, v, rng)), ""])
    out: list[str] = [f"{record}s:"] if fmt == "yaml_list" else []
    for n, v in lists.items():
        if fmt == "yaml_list":
            out += [f"  - name: {n}", *(f"    {k}: {x}" for k, x in scalars[n].items())]
            out += [f"  {line}" for line in _list_lines("yaml", name, v, rng)]
            continue
        out.append(f"{n}:" if fmt == "yaml" else f"[{n}]")
        out += [_scalar_line(fmt, k, x) for k, x in scalars[n].items()]
        out += _list_lines(fmt, name, v, rng)
        out.append("")
    return "\n".join(out) + "\n"


def phrase(fact: Fact, family: str, rng: random.Random) -> str:
    """A roster fact in ``family``'s words: rankings by :data:`SHAPES`, counts by :data:`COUNT_SHAPES`, lookups
    by the grammar."""
    shapes = {"min_max": SHAPES, "count": COUNT_SHAPES, "yes_no": MEMBER_SHAPES}.get(fact.kind)
    if shapes is None:
        return grammar.phrase(fact, family, rng)
    return grammar.fill(
        shapes[family], fact.slots, rng, lambda c: [c["name"], c["nouns"], *(c[k] for k in ("key", "item") if k in c)]
    )
