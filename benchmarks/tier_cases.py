"""The six signatures of the tiers benchmark (Literal, int, multi-field, nested pydantic, list, Regex), their
ten inputs each, the gold answers and how an answer is graded; one worked example for ``--demos``."""

from __future__ import annotations

from typing import Annotated, Any

import dspy
import pydantic
from outlines.types import Regex

#: The nested_pydantic inputs (name, city, country): the text says each, the gold is the triple.
PEOPLE = [
    ("Ann", "Paris", "France"),
    ("Bob", "Rome", "Italy"),
    ("Eve", "Oslo", "Norway"),
    ("Tom", "Lima", "Peru"),
    ("Ivy", "Cairo", "Egypt"),
    ("Max", "Bern", "Switzerland"),
    ("Zoe", "Kyoto", "Japan"),
    ("Sam", "Quito", "Ecuador"),
    ("Lea", "Graz", "Austria"),
    ("Ali", "Doha", "Qatar"),
]


class City(pydantic.BaseModel):
    name: str
    country: str


class Contact(pydantic.BaseModel):
    name: str
    city: City


class TicketCode(dspy.Signature):
    """Assign a ticket code (three capital letters, a dash, three digits) to the report."""

    report: str = dspy.InputField()
    code: Annotated[str, Regex(r"[A-Z]{3}-[0-9]{3}")] = dspy.OutputField()


def signatures() -> dict[str, tuple[type[dspy.Signature], list[str]]]:
    """name -> (signature, 10 inputs for its single input field)."""
    reviews = [
        "I love this phone, the battery lasts forever.",
        "Broke after two days. Avoid.",
        "It is fine, nothing special.",
        "Best purchase of the year!",
        "The screen cracked at once.",
        "Works as described.",
        "Terrible support, never again.",
        "Great value for the price.",
        "Average sound, decent build.",
        "Absolutely wonderful service.",
    ]
    return {
        "literal": (dspy.Signature("review -> sentiment: Literal['positive', 'negative', 'neutral']"), reviews),
        "int": (
            dspy.Signature("question -> answer: int"),
            [
                "How many legs does a cat have?",
                "What is 2 + 3?",
                "How many days are in a week?",
                "What is 10 minus 4?",
                "How many wheels does a bicycle have?",
                "What is 3 times 3?",
                "How many months are in a year?",
                "What is 20 divided by 5?",
                "How many sides has a triangle?",
                "How many hours are in a day?",
            ],
        ),
        "multi_field": (dspy.Signature("review -> sentiment: Literal['positive', 'negative'], stars: int"), reviews),
        "nested_pydantic": (
            dspy.Signature("text -> contact: Contact", custom_types={"Contact": Contact}),
            [f"{n} lives in {c}, {k}." for n, c, k in PEOPLE],
        ),
        "list": (
            dspy.Signature("text -> colors: list[str]"),
            [
                "The flag is red and white.",
                "She wore blue and green.",
                "Black, white and grey cats.",
                "A yellow and orange sunset.",
                "Pink and purple flowers.",
                "The car is silver.",
                "Brown shoes, a beige coat.",
                "Gold and silver medals.",
                "The sea was blue.",
                "Red, green and blue lights.",
            ],
        ),
        "regex": (
            TicketCode,
            [
                "The printer on floor 2 is jammed.",
                "Cannot log in to email.",
                "The VPN drops every hour.",
                "Laptop screen flickers.",
                "Need a new keyboard.",
                "Wifi is slow in room 5.",
                "Password reset needed.",
                "The projector has no signal.",
                "Phone will not charge.",
                "Disk is almost full.",
            ],
        ),
    }


#: Gold answers, aligned with each signature's inputs (``None``: no single right answer).
GOLD: dict[str, list[Any]] = {
    "literal": [
        "positive",
        "negative",
        "neutral",
        "positive",
        "negative",
        "positive",
        "negative",
        "positive",
        "neutral",
        "positive",
    ],
    "int": [4, 5, 7, 6, 2, 9, 12, 4, 3, 24],
    "multi_field": [
        "positive",
        "negative",
        None,
        "positive",
        "negative",
        "positive",
        "negative",
        "positive",
        None,
        "positive",
    ],  # the sentiment; stars are a matter of taste
    "nested_pydantic": list(PEOPLE),
    "list": [
        {"red", "white"},
        {"blue", "green"},
        {"black", "white", "grey"},
        {"yellow", "orange"},
        {"pink", "purple"},
        {"silver"},
        {"brown", "beige"},
        {"gold", "silver"},
        {"blue"},
        {"red", "green", "blue"},
    ],
    "regex": [None] * 10,
}


def is_correct(name: str, fields: dict[str, Any], gold: Any) -> bool:
    """Whether parsed ``fields`` of signature ``name`` equal ``gold`` (case-insensitive for text)."""
    if name == "literal":
        return fields["sentiment"] == gold
    if name == "int":
        return fields["answer"] == gold
    if name == "multi_field":
        return fields["sentiment"] == gold
    if name == "nested_pydantic":
        c = fields["contact"]
        return (c.name.lower(), c.city.name.lower(), c.city.country.lower()) == tuple(g.lower() for g in gold)
    if name == "list":
        return {str(x).strip().lower() for x in fields["colors"]} == gold
    return False


#: ``--demos``: one worked example for the signatures that have one (none of the ten inputs, no gold answer).
DEMOS: dict[str, list[dict[str, Any]]] = {"list": [{"text": "A tan hat and teal socks.", "colors": ["tan", "teal"]}]}
