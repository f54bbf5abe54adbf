"""Empty cells and counts asked as a command. A tab-separated table whose empty cells are two tabs in a row
keeps each value under its own column (it had been read as a table aligned by tab runs, each row shifted left
past its empty cell); "Count the targets of X" counts the items X's targets list, and a count asked is no value
a line states ("count the records with a salary set": not the one salary a search finds)."""

from __future__ import annotations

import random

from tests.dspy_rlm.scripted import ask_scripted


def _books() -> tuple[str, list[list[str]]]:
    """A made-up TSV of books, a third of its genre and author cells empty."""
    rng = random.Random(7)
    rows = []
    for i in range(24):
        isbn = f"978-{rng.randrange(10)}-{rng.randrange(1000, 9999)}-{100 + i}"
        title = " ".join("".join(rng.choice("aeioulmnrstvkd") for _ in range(5)) for _ in range(2)).capitalize()
        genre = "" if i % 3 == 1 else rng.choice(["Drama", "Poetry", "Essay"])
        author = "" if i % 4 == 2 else f"{rng.choice(['Ana', 'Bo', 'Cid'])} {rng.choice(['Lund', 'Moe', 'Rask'])}{i}"
        rows.append([isbn, title, genre, str(rng.randrange(90, 1400)), author, str(rng.randrange(1850, 2020))])
    lines = ["Isbn\tTitle\tGenre\tPages\tAuthor\tYear"] + ["\t".join(r) for r in rows]
    return "\n".join(lines) + "\n", rows


def test_an_empty_tsv_cell_shifts_no_value_into_its_column():
    text, rows = _books()
    row = next(r for r in rows if not r[2] and r[4])  # no genre: the pages follow two tabs
    assert ask_scripted(f"What Pages does {row[0]} have?", text, "int") == (int(row[3]), "submitted")
    answer, kind = ask_scripted(f"Which book has {row[4]} as its author?", text)
    assert kind != "submitted" or answer in (row[0], row[1]), (answer, kind)
    assert answer != row[5]  # the year, one column to the left of where it stands


def test_a_table_aligned_by_tab_runs_is_still_no_tsv():
    # /etc/services' shape: names a tab run apart from their ports, runs of differing length
    lines = ["# services", "echo\t\t7/tcp", "discard\t\t9/tcp\t\tsink null", "daytime\t\t13/tcp", "ftp\t\t21/tcp"]
    lines += ["ssh\t\t22/tcp\t\t\t# SSH Remote Login Protocol", "telnet\t\t23/tcp", "smtp\t\t25/tcp\t\tmail"]
    answer, _ = ask_scripted("What port does ftp use?", "\n".join(lines) + "\n")
    assert answer in ("21/tcp", "21"), answer


def _roster() -> tuple[str, dict[str, int]]:
    rng = random.Random(3)
    out, sizes = [], {}
    for i in range(8):
        name = "".join(rng.choice("aeioulmnrst") for _ in range(4)) + str(i)
        n = rng.randrange(2, 9)
        sizes[name] = n
        targets = ", ".join(f'"{rng.choice("abcdefg")}{k}.target"' for k in range(n))
        out += [f"[{name}]", f'owner = "o{i}"', f'timeout = "{10 * i}s"', f"requiredTargets = [{targets}]", ""]
    return "\n".join(out), sizes


def test_count_the_items_a_record_lists_asked_as_a_command():
    text, sizes = _roster()
    name, n = next((k, v) for k, v in sizes.items() if v != 3)  # not the record's three entries
    assert ask_scripted(f"Count the targets of {name}.", text, "int") == (n, "submitted")


def test_a_count_asked_is_no_value_a_line_states():
    lines = [f"employeeId=E{100 + i} department=d{i % 3} startDate=2001-0{1 + i % 9}-11" for i in range(12)]
    lines[4] += " salary=35383"
    answer, kind = ask_scripted("Count the records with a salary set.", "\n".join(lines) + "\n", "int")
    assert answer != 35383 and (kind != "submitted" or answer == 1), (answer, kind)
