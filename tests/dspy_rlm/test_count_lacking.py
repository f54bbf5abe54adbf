"""Counting the records that lack a field the question names ("how many posts have no tags?", "without a
homepage", "whose notes are empty"): ``count_if(V, F, 'empty')``, and every other count of that question left
unsupported (a count of the posts holding "post" counts them all). Each positive test fails before its change;
each guard fails without its check."""

from __future__ import annotations

import json

from dspy_rlm.profiles.lacking import lacked_fields
from dspy_rlm.profiles.moves import MoveBook
from tests.dspy_rlm.scripted import ask_scripted

_POSTS = json.dumps(
    [
        {"title": f"Harbour post {i}", "url": f"https://example.org/post/{i}", "tags": tags, "notes": notes}
        for i, (tags, notes) in enumerate(
            [(["ops"], ""), ([], "draft"), (["ops", "ci"], ""), ([], ""), (["ci"], "moved"), (["ops"], "")]
        )
    ],
    indent=1,
)
_PACKAGES = "".join(
    f"Package: pkg{i}\nVersion: 1.{i}\n" + (f"Homepage: https://pkg{i}.example.org\n" if i % 3 else "") + "\n"
    for i in range(9)
)


def test_a_count_of_the_records_lacking_a_field():
    assert ask_scripted("How many posts in this file have no tags at all?", _POSTS, "int") == (2, "submitted")
    assert ask_scripted("How many posts have an empty notes field?", _POSTS, "int") == (4, "submitted")
    assert ask_scripted("How many packages do not have a Homepage?", _PACKAGES, "int") == (3, "submitted")
    assert ask_scripted("Count the packages whose homepage is missing.", _PACKAGES, "int") == (3, "submitted")


def test_lacking_is_read_only_after_a_word_of_lacking():
    def lacked(question: str, text: str) -> list[str]:
        return lacked_fields(MoveBook({"question": question}, {"context": text}, {"answer": int}), "context")

    assert lacked("How many posts have no tags?", _POSTS) == ["tags"]
    assert lacked("How many posts have tags?", _POSTS) == []
    assert lacked("How many posts have tags but no notes?", _POSTS) == ["notes"]
    assert lacked("How many packages have no version?", _PACKAGES) == []  # every package has one: nothing lacks it


def test_another_condition_leaves_the_count_unsupported():
    # "ci" narrows the posts counted: the count of every post lacking notes is not the answer
    _answer, ending = ask_scripted("How many ci posts have no notes?", _POSTS, "int")
    assert ending != "submitted"
