"""Rankings over a table that names none of its columns (no header row: ``col1``..``colN``, and a trailing
``# comment`` the parser names ``comment``): the one column that ranks is what "the largest ..." or "the most
frequent ..." asks, so the run ends ``Submitted``; where two columns could be meant, or the one column keys the
records, nothing vouches and the run ends ``Extracted``."""

from __future__ import annotations

import random

import pytest

from tests.dspy_rlm.scripted import ask_scripted


def _ports(comment: bool) -> tuple[str, str, str]:
    """``name port/proto [alias]  # comment`` lines (the shape of /etc/services), made up; the highest and lowest
    port's names."""
    rng = random.Random(11)
    lines = ["# Network services, one per line.", "#"]
    rows = []
    for i in range(30):
        name = "".join(rng.choice("aeioubdfklmnrst") for _ in range(6)) + str(i)
        port = rng.randrange(10, 40000)
        rows.append((port, name))
        alias = f"  {name[:3]}x" if i % 3 == 0 else ""
        note = f"   # the {name} daemon" if comment and i % 2 == 0 else ""
        lines.append(f"{name:<14}{port}/tcp{alias}{note}")
    return "\n".join(lines) + "\n", max(rows)[1], min(rows)[1]


@pytest.mark.parametrize("comment", [False, True])
def test_the_one_numeric_column_of_a_headerless_table_ranks(comment):
    text, high, low = _ports(comment)
    assert ask_scripted("Name the service with the largest port number.", text) == (high, "submitted")
    assert ask_scripted("Which service has the smallest port number?", text) == (low, "submitted")


@pytest.mark.parametrize("comment", [False, True])
def test_a_ranking_by_how_many_things_is_not_the_numeric_column(comment):
    text, high, _ = _ports(comment)  # no column says how many aliases a service has
    answer, kind = ask_scripted("Which service has the largest number of aliases?", text)
    assert not (kind == "submitted" and answer == high), (answer, kind)


def _settings(rng: random.Random) -> str:
    """``NAME value`` lines (the shape of /etc/login.defs) whose values repeat."""
    lines = ["# Settings of this site.", ""]
    for i in range(24):
        name = "".join(rng.choice("ABDEFGKLMNPRST") for _ in range(5)) + f"_{i}"
        value = rng.choice(["yes", "yes", "yes", "no", "no", "022", "auto"])
        lines.append(f"{name:<20}{value}")
    return "\n".join(lines) + "\n"


def test_the_one_repeating_column_of_name_value_lines_is_the_most_common_value():
    text = _settings(random.Random(5))
    values = [line.split()[1] for line in text.splitlines() if line and not line.startswith("#")]
    top = max(set(values), key=values.count)
    assert ask_scripted("What is the most frequent value in this file?", text) == (top, "submitted")


def test_two_repeating_columns_leave_the_most_common_unvouched():
    rng = random.Random(3)
    lines = [
        f"{''.join(rng.choice('abdefklmnrst') for _ in range(6))}{i}  {rng.choice(['red', 'red', 'blue'])}  "
        f"{rng.choice(['small', 'large', 'large'])}"
        for i in range(24)
    ]
    answer, kind = ask_scripted("Which value occurs most often?", "\n".join(lines) + "\n")
    assert kind != "submitted", answer


def test_a_repeating_key_column_is_no_most_common_value():
    rng = random.Random(4)  # the first column keys the records, and repeats: it is no value
    lines = [f"{rng.choice(['alpha', 'beta', 'gamma'])}  {i * 7}/tcp" for i in range(24)]
    answer, kind = ask_scripted("What is the most frequent value in this file?", "\n".join(lines) + "\n")
    assert kind != "submitted", answer


def test_a_tie_at_the_top_of_a_column_no_name_vouches_for_is_unvouched():
    values = ["red", "blue", "red", "blue", "green"] * 4  # red and blue, 8 each
    text = "\n".join(f"name{i:<10}{value}" for i, value in enumerate(values)) + "\n"
    answer, kind = ask_scripted("What is the most frequent value in this file?", text)
    assert kind != "submitted", answer


def test_a_question_for_a_block_is_no_column_of_a_headerless_table():
    text = _settings(random.Random(5))  # no heading groups these lines: "which section" has no answer here
    answer, kind = ask_scripted("Which section lists the most settings?", text)
    assert kind != "submitted", answer
