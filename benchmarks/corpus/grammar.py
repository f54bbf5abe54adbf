"""A compositional phrasing grammar: a fact put in words by a *family* of question shapes, then varied.

A family is one way of asking (a wh-question, an imperative, the key first, an embedded request, a terse
keyword query, a possessive, an indirect polite question, the asked thing last). Each family has shapes for
every kind; slots are filled with the fact's wordings (a field as a user says it or as the file spells it; a
record called by its noun or a generic one); then case, the final mark and small typos vary. Slot text (keys,
values) is never changed: the answer must stay findable.

Families in :data:`HELD_OUT` never appear in training questions: the test split measures them apart.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from benchmarks.real_files.core import Fact

FAMILIES: dict[str, dict[str, tuple[str, ...]]] = {
    "wh": {
        "lookup": ("What is the {field} of the {noun} {key}?", "What {field} does {key} have?"),
        "multi_word": ("What is the full {field} of the {noun} {key}?", "What {field} is given for {key}?"),
        "reverse": ("Which {noun} has the {field} {value}?", "What {noun} has {value} as its {field}?"),
        "count": ("How many {nouns} have the {field} {value}?", "How many {nouns} have {value} as {field}?"),
        "most_common": ("Which {field} is the most common among the {nouns}?", "What is the most frequent {field}?"),
        "min_max": ("Which {noun} has the {extreme} {measure}?", "What {noun} has the {extreme} {measure}?"),
        "yes_no": ("Is there a {noun} called {key}?", "Is {key} one of the {nouns} listed?"),
        "two_hop": ("What is the {field} of the {noun} whose {via} is {value}?",),
    },
    "imperative": {
        "lookup": ("Give the {field} of {key}.", "Find the {field} for the {noun} {key}."),
        "multi_word": ("Give the whole {field} of {key}.", "Report the {field} listed for the {noun} {key}."),
        "reverse": ("Name the {noun} with {field} {value}.", "Find the {noun} whose {field} is {value}."),
        "count": ("Count the {nouns} whose {field} is {value}.", "Count how many {nouns} have {field} {value}."),
        "most_common": ("Give the most common {field} among the {nouns}.", "Find the {field} used most often."),
        "min_max": ("Name the {noun} with the {extreme} {measure}.", "Find the {noun} whose {measure} is {extreme}."),
        "yes_no": ("Check whether the {noun} {key} is listed.", "Confirm if {key} appears in the data."),
        "two_hop": ("Find the {noun} whose {via} is {value} and give its {field}.",),
    },
    "topic": {
        "lookup": ("{key}: what is its {field}?", "{key} - which {field}?"),
        "multi_word": ("{key}: what is its complete {field}?",),
        "reverse": ("{value}: which {noun} has this {field}?",),
        "count": ("{field} {value}: how many {nouns} have it?",),
        "most_common": ("{field}: which value do most {nouns} share?",),
        "min_max": ("{measure}: which {noun} has the {extreme}?",),
        "yes_no": ("{key}: is it among the {nouns}?", "{key} - is that {noun} in the file?"),
        "two_hop": ("{via} {value}: what {field} does that {noun} have?",),
    },
    "embedded": {
        "lookup": ("I need the {field} of the {noun} {key}.", "Tell me the {field} that {key} has."),
        "multi_word": ("I want the exact {field} of {key}.",),
        "reverse": ("Tell me which {noun} has {field} {value}.", "I need the {noun} whose {field} is {value}."),
        "count": ("Tell me how many {nouns} have {field} {value}.",),
        "most_common": ("Tell me the {field} that most {nouns} have.",),
        "min_max": ("Tell me which {noun} has the {extreme} {measure}.",),
        "yes_no": ("Tell me whether there is a {noun} named {key}.", "I wonder if {key} is listed."),
        "two_hop": ("Tell me the {field} of the {noun} that has {via} {value}.",),
    },
    "terse": {
        "lookup": ("{field} of {key}?", "{key} {field}"),
        "multi_word": ("full {field} of {key}?",),
        "reverse": ("{noun} with {field} {value}?",),
        "count": ("number of {nouns} with {field} {value}",),
        "most_common": ("most common {field}?",),
        "min_max": ("{noun} with {extreme} {measure}?",),
        "yes_no": ("{key} listed?", "{noun} {key} present?"),
        "two_hop": ("{field} of the {noun} with {via} {value}?",),
    },
    # -- held out of training --------------------------------------------------------------------------------
    "possessive": {
        "lookup": ("What's {key}'s {field}?", "{key}'s {field}?"),
        "multi_word": ("What is {key}'s full {field}?",),
        "reverse": ("Which {noun}'s {field} is {value}?",),
        "count": ("In how many {nouns} is the {field} {value}?",),
        "most_common": ("What's the {nouns}' most common {field}?",),
        "min_max": ("Which {noun}'s {measure} is the {extreme}?",),
        "yes_no": ("Is {key}'s entry in the file?",),
        "two_hop": ("What's the {field} of whichever {noun} has {via} {value}?",),
    },
    "indirect": {
        "lookup": ("Could you tell me the {field} of {key}?", "Do you know what {field} the {noun} {key} has?"),
        "multi_word": ("Could you give me the entire {field} of {key}?",),
        "reverse": ("Could you find out which {noun} has {field} {value}?",),
        "count": ("Could you count how many {nouns} have {field} {value}?",),
        "most_common": ("Do you know which {field} shows up most among the {nouns}?",),
        "min_max": ("Could you find the {noun} with the {extreme} {measure}?",),
        "yes_no": ("Can you check if there is a {noun} named {key}?",),
        "two_hop": ("Could you look up the {noun} with {via} {value} and tell me its {field}?",),
    },
    "inverted": {
        "lookup": ("For {key}, the {field} is what?", "The {noun} {key} has which {field}?"),
        "multi_word": ("For {key}, the full {field} reads what?",),
        "reverse": ("The {field} {value} belongs to which {noun}?",),
        "count": ("The {nouns} with {field} {value} number how many?",),
        "most_common": ("Among the {nouns}, the most common {field} is which?",),
        "min_max": ("The {extreme} {measure} belongs to which {noun}?",),
        "yes_no": ("The {noun} {key} - is it in the file?",),
        "two_hop": ("The {noun} with {via} {value} has which {field}?",),
    },
}
HELD_OUT = ("possessive", "indirect", "inverted")
"""Families only evaluation uses."""
TRAINING = tuple(f for f in FAMILIES if f not in HELD_OUT)
GENERIC_NOUNS = ("entry", "record", "item")
"""A record called generically instead of by the table's noun (some of the time)."""
_SLOT = re.compile(r"\{(\w+)\}")


def _choose(value: Any, rng: random.Random) -> str:
    return str(rng.choice(value)) if isinstance(value, tuple) else str(value)


def _typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(len(word) - 1)
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


def vary(text: str, protected: list[str], rng: random.Random, typo_rate: float = 0.1) -> str:
    """Case, the final mark and at most one typo, never inside ``protected`` spans (keys, values)."""
    spans = [(m.start(), m.end()) for p in protected if p for m in re.finditer(re.escape(p), text)]

    def free(a: int, b: int) -> bool:
        return not any(a < e and s < b for s, e in spans)

    if rng.random() < typo_rate:
        words = [m for m in re.finditer(r"[A-Za-z]{5,}", text) if free(m.start(), m.end())]
        if words:
            m = rng.choice(words)
            text = text[: m.start()] + _typo(m.group(), rng) + text[m.end() :]
    if rng.random() < 0.15:  # all lower case, the protected spans kept as they are
        out, last = [], 0
        for s, e in sorted(spans):
            if s >= last:
                out += [text[last:s].lower(), text[s:e]]
                last = e
        text = "".join(out) + text[last:].lower()
    if rng.random() < 0.15 and text[-1:] in "?.":
        text = text[:-1]
    return text


def fill(
    shapes: Sequence[str],
    slots: Mapping[str, Any],
    rng: random.Random,
    protected: Callable[[dict[str, str]], list[str]],
    derive: Callable[[dict[str, str]], None] | None = None,
) -> str:
    """A shape drawn from ``shapes``, every slot filled (a tuple's value drawn), ``derive`` adding slots made from
    the chosen ones, the first letter capitalized, then varied (:func:`vary`) outside ``protected(chosen)``. The
    generators' own phrasings (listings, rosters, tallies, registries) are made by it."""
    shape = rng.choice(shapes)
    chosen = {k: _choose(v, rng) for k, v in slots.items()}
    if derive is not None:
        derive(chosen)
    text = shape.format(**chosen)
    text = text[0].upper() + text[1:] if not shape.startswith("{") else text
    return vary(text, protected(chosen), rng)


def phrase(fact: Fact, family: str, rng: random.Random) -> str:
    """``fact`` asked in ``family``'s words (a shape drawn from the family, slots filled, then varied)."""
    shapes = FAMILIES[family].get(fact.kind)
    if not shapes:
        raise ValueError(f"family {family!r} has no shape for kind {fact.kind!r}")
    shape = rng.choice(shapes)
    slots: Mapping[str, Any] = fact.slots
    chosen = {name: _choose(slots.get(name, ""), rng) for name in _SLOT.findall(shape)}
    if "noun" in chosen and rng.random() < 0.2:
        chosen["noun"] = rng.choice(GENERIC_NOUNS)
    text = shape.format(**chosen)
    text = text[0].upper() + text[1:] if not shape.startswith("{") else text
    return vary(text, [str(chosen[k]) for k in ("key", "value") if k in chosen], rng)
