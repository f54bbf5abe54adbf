"""Question phrasings per kind, written as users ask them (key first, key last, "Which / What / Give").

Slots: ``noun`` / ``nouns`` (what a record is: "service", "time zones"), ``key`` (the record's name),
``field`` (a field, sometimes as the file spells it), ``value``, ``via`` (the field of a two-hop's first hop),
``cond`` (a verb phrase: "use udp"), ``measure`` and ``extreme`` ("largest").
"""

from __future__ import annotations

TEMPLATES: dict[str, tuple[str, ...]] = {
    "lookup": (
        "What is the {field} of the {noun} {key}?",
        "For the {noun} {key}, which {field} is listed?",
        "Give the {field} of {key}.",
        "{key}: what is its {field}?",
        "Which {field} does the file give for {key}?",
    ),
    "multi_word": (
        "What is the full {field} of the {noun} {key}?",
        "Give the complete {field} listed for {key}.",
        "{key} - what {field} does the file show for it?",
        "Which {field} belongs to the {noun} {key}? Give all of it.",
    ),
    "reverse": (
        "Which {noun} has the {field} {value}?",
        "Name the {noun} whose {field} is {value}.",
        "{value} is the {field} of which {noun}?",
        "What {noun} is listed with {field} {value}?",
    ),
    "later_line": (
        "In the entry for {key}, what is the {field}?",
        "What {field} is recorded for the {noun} {key}?",
        "Give the {field} of {noun} {key}.",
        "{key}: which {field} does its record give?",
    ),
    "count": (
        "How many {nouns} {cond}?",
        "Count the {nouns} that {cond}.",
        "What is the number of {nouns} that {cond}?",
        "Of the {nouns} in the file, how many {cond}?",
    ),
    "most_common": (
        "Which {field} is the most common among the {nouns}?",
        "What is the most frequent {field} in this file?",
        "Give the {field} shared by the most {nouns}.",
        "Among all {nouns}, which {field} occurs most often?",
    ),
    "min_max": (
        "Which {noun} has the {extreme} {measure}?",
        "Name the {noun} with the {extreme} {measure}.",
        "Of all the {nouns}, which one has the {extreme} {measure}?",
        "The {extreme} {measure} belongs to which {noun}?",
    ),
    "yes_no": (
        "Is there a {noun} named {key} in the file?",
        "Does the file list the {noun} {key}?",
        "{key}: is this {noun} listed? Answer yes or no.",
        "Tell me whether the {noun} {key} appears in the file.",
    ),
    "two_hop": (
        "What is the {field} of the {noun} whose {via} is {value}?",
        "Give the {field} of the {noun} that has {via} {value}.",
        "The {noun} with {via} {value}: what is its {field}?",
        "Find the {noun} whose {via} is {value} and give its {field}.",
    ),
}
