"""A table that names none of its columns (no header row; ``col1``..``colN`` and a trailing ``# comment``): a
reverse read's key answers "which package has version V", never "what section does the package whose version is
V have" (the data cannot say which column is the section, so that run must not end ``Submitted`` with the key)."""

from __future__ import annotations

import random

import pytest

from tests.dspy_rlm.scripted import ask_scripted


def _table(comment: bool) -> str:
    rng = random.Random(7)
    sections = ("admin", "libs", "net", "utils", "devel")
    lines = ["# Packages of this site, one per line.", "#"]
    for i in range(40):
        name = "".join(rng.choice("aeioubdfklmnrst") for _ in range(7))
        line = f"{name:<12}{rng.choice(sections):<8}{i // 7}.{i % 7}.{i + 3}"
        lines.append(line + (f"   # maintained by team {i % 4}" if comment else ""))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("comment", [False, True])
def test_a_reverse_question_on_unnamed_columns_gets_the_key(comment):
    text = _table(comment)
    row = text.splitlines()[2 + 17]
    key, version = row.split()[0], row.split()[2]
    assert ask_scripted(f"Which package has version {version}?", text) == (key, "submitted")


@pytest.mark.parametrize("comment", [False, True])
def test_a_question_for_another_column_never_submits_the_key(comment):
    text = _table(comment)
    row = text.splitlines()[2 + 17]
    key, version = row.split()[0], row.split()[2]
    answer, kind = ask_scripted(f"What section does the package whose version is {version} have?", text)
    assert not (kind == "submitted" and answer == key), (answer, kind)
