"""A field that lists items (``"tags": [...]``): the most common *item* is what "which tag is on the most posts?"
asks, each counted once a record (``most_common(V, F, None, 'item')``), not the most common list whole. Made-up
data; each positive test fails before the change, each guard without its check."""

from __future__ import annotations

import json

from dspy_rlm.library import superlatives
from dspy_rlm.library.structure import detect
from tests.dspy_rlm.scripted import ask_scripted

_POSTS = json.dumps(
    [
        {"title": "Spring tides", "tags": ["harbour", "weather"]},
        {"title": "Dredging the channel", "tags": ["harbour", "works", "works"]},
        {"title": "New buoys", "tags": ["buoys", "harbour"]},
        {"title": "Storm warning", "tags": ["weather", "safety"]},
        {"title": "Night pilots", "tags": ["safety"]},
        {"title": "Fog horns", "tags": ["safety"]},
        {"title": "Quay repairs", "tags": ["harbour", "works"]},
        {"title": "Regatta", "tags": []},
    ],
    indent=1,
)

_CREW = """name,crew,boat
"Moreau, Ines",north,Kestrel
"Varga, Tomas",north,Osprey
"Moreau, Lena",south,Kestrel
"Moreau, Ines",south,Tern
"Brink, Ada",south,Tern
"Moreau, Jon",north,Tern
"""


def test_most_common_by_item_counts_each_item_once_a_record():
    s = detect(_POSTS)
    assert superlatives.most_common(_POSTS, "tags") == "safety"  # whole lists: "safety" alone, twice
    assert superlatives.most_common(_POSTS, "tags", None, "item") == "harbour"  # four posts
    assert superlatives.item_counts(s, "tags")["works"] == 2  # listed twice by one post: once


def test_the_most_common_tag_is_an_item():
    assert ask_scripted("Which tag is on the most posts?", _POSTS) == ("harbour", "submitted")


def test_a_combination_asked_is_a_whole_list():
    # the lists compared whole: ["safety"] is on two posts, every other list on one
    assert ask_scripted("Which combination of tags is most common?", _POSTS) == ("safety", "submitted")


def test_a_singular_field_is_no_list():
    # "Moreau" is in four names, but a name is no list of names: the field's name is not plural
    assert ask_scripted("Which name appears most often in the roster?", _CREW) == ("Moreau, Ines", "submitted")
