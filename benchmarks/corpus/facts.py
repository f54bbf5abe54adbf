"""The answerable facts of any :class:`~benchmarks.corpus.tables.Table`, gold computed from its rows.

Every fact has one answer in the rows: a key named once, a value held by one row, a count, a most common value
without a tie (or with its ties as alternatives), an extreme with at most three tied rows. Values that are too
long to say (over 60 characters) or too short to find (under 2) are not asked about.
"""

from __future__ import annotations

import random
import string
from collections import Counter
from dataclasses import dataclass

from benchmarks.corpus.tables import Table, number
from benchmarks.real_files.core import Fact

MAX_VALUE = 60


@dataclass(frozen=True)
class Quota:
    """How many facts of each kind one table gives (at most; fewer when the rows offer fewer)."""

    lookup: int = 4
    reverse: int = 2
    count: int = 2
    most_common: int = 1
    min_max: int = 2
    yes_no: int = 2
    two_hop: int = 2

    def scaled(self, factor: float) -> Quota:
        return Quota(**{k: max(1, round(v * factor)) for k, v in vars(self).items()})


def _sayable(value: str) -> bool:
    return 2 <= len(value) <= MAX_VALUE and "\n" not in value and '"' not in value


def _unique_rows(table: Table) -> list[dict[str, str]]:
    keys = Counter(r.get(table.key, "") for r in table.rows)
    return [r for r in table.rows if _sayable(r.get(table.key, "")) and keys[r[table.key]] == 1]


def _slots(table: Table, **more: object) -> dict[str, object]:
    return {"noun": table.noun[0], "nouns": table.noun[1], **more}


def lookups(table: Table, rng: random.Random, k: int) -> list[Fact]:
    rows = _unique_rows(table)
    fields = table.fields()
    facts: list[Fact] = []
    for row in rng.sample(rows, min(len(rows), 4 * k)):
        options = [f for f in fields if _sayable(row.get(f, "")) and row[f] != row[table.key]]
        if not options or len(facts) >= k:
            continue
        f = rng.choice(options)
        kind = "multi_word" if len(row[f].split()) >= 2 else "lookup"
        facts.append(Fact(kind, _slots(table, key=row[table.key], field=table.said(f)), row[f]))
    return facts


def _value_counts(table: Table, f: str) -> Counter[str]:
    return Counter(r[f] for r in table.rows if f in r)


def reverses(table: Table, rng: random.Random, k: int) -> list[Fact]:
    rows = _unique_rows(table)
    facts: list[Fact] = []
    fields = [f for f in table.fields() if f not in (table.numeric or ())]
    for f in rng.sample(fields, len(fields)):
        counts = _value_counts(table, f)
        once = [r for r in rows if f in r and counts[r[f]] == 1 and _sayable(r[f]) and number(r[f]) is None]
        if once and len(facts) < k:
            row = rng.choice(once)
            facts.append(Fact("reverse", _slots(table, field=table.said(f), value=row[f]), row[table.key]))
    return facts


def _repeating(table: Table) -> list[str]:
    out = []
    for f in table.fields():
        counts = _value_counts(table, f)
        if counts and len(counts) <= 0.5 * sum(counts.values()) and max(counts.values()) >= 2:
            out.append(f)
    return out


def counts(table: Table, rng: random.Random, k: int) -> list[Fact]:
    facts: list[Fact] = []
    for f in rng.sample(_repeating(table), len(_repeating(table))):
        counts = _value_counts(table, f)
        values = [v for v, n in counts.items() if 2 <= n <= 200 and _sayable(v)]
        if values and len(facts) < k:
            v = rng.choice(values)
            facts.append(Fact("count", _slots(table, field=table.said(f), value=v), counts[v]))
    return facts


def most_commons(table: Table, rng: random.Random, k: int) -> list[Fact]:
    facts: list[Fact] = []
    for f in rng.sample(_repeating(table), len(_repeating(table))):
        ranked = _value_counts(table, f).most_common()
        tied = [v for v, n in ranked if n == ranked[0][1]]
        if len(tied) <= 2 and _sayable(ranked[0][0]) and len(facts) < k:
            facts.append(Fact("most_common", _slots(table, field=table.said(f)), ranked[0][0], tuple(tied[1:])))
    return facts


def _numeric(table: Table) -> list[str]:
    if table.numeric is not None:
        return list(table.numeric)
    out = []
    for f in table.fields():
        values = [r[f] for r in table.rows if f in r]
        nums = [number(v) for v in values]
        if len(values) >= 5 and sum(n is not None for n in nums) >= 0.9 * len(values) and len(set(values)) > 3:
            out.append(f)
    return out


EXTREMES = {True: ("largest", "highest", "biggest", "greatest"), False: ("smallest", "lowest", "least")}


def extremes(table: Table, rng: random.Random, k: int) -> list[Fact]:
    rows = _unique_rows(table)
    facts: list[Fact] = []
    for f in rng.sample(_numeric(table), len(_numeric(table))):
        valued = [(n, r[table.key]) for r in rows if f in r and (n := number(r[f])) is not None]
        if len(valued) < 5 or len(facts) >= k:
            continue
        largest = rng.random() < 0.5
        best = max(v for v, _ in valued) if largest else min(v for v, _ in valued)
        tied = [name for v, name in valued if v == best]
        if len(tied) <= 3:
            slots = _slots(table, measure=table.said(f), extreme=EXTREMES[largest])
            facts.append(Fact("min_max", slots, tied[0], tuple(tied[1:])))
    return facts


def _absent_key(rng: random.Random, key: str, present: set[str]) -> str | None:
    """A key like ``key`` that no row has: one letter or digit changed (kept in the key's alphabet)."""
    for _ in range(20):
        i = rng.randrange(len(key))
        pool = string.digits if key[i].isdigit() else string.ascii_lowercase if key[i].islower() else None
        pool = pool or (string.ascii_uppercase if key[i].isupper() else None)
        if pool is None:
            continue
        made = key[:i] + rng.choice(pool) + key[i + 1 :]
        if made not in present and made.casefold() not in {p.casefold() for p in present}:
            return made
    return None


def yes_nos(table: Table, rng: random.Random, k: int) -> list[Fact]:
    rows = _unique_rows(table)
    present = {r[table.key] for r in table.rows if table.key in r}
    facts: list[Fact] = []
    for row in rng.sample(rows, min(len(rows), 2 * k)):
        if len(facts) >= k:
            break
        if len(facts) % 2 == 0:  # present and absent keys alternate
            facts.append(Fact("yes_no", _slots(table, key=row[table.key]), True))
        elif len(row[table.key]) >= 3:
            absent = _absent_key(rng, row[table.key], present)
            if absent:
                facts.append(Fact("yes_no", _slots(table, key=absent), False))
    return facts


def two_hops(table: Table, rng: random.Random, k: int) -> list[Fact]:
    rows = _unique_rows(table)
    fields = table.fields()
    facts: list[Fact] = []
    for row in rng.sample(rows, min(len(rows), 6 * k)):
        if len(facts) >= k:
            break
        vias = [f for f in fields if f in row and _sayable(row[f]) and number(row[f]) is None]
        vias = [f for f in vias if _value_counts(table, f)[row[f]] == 1]
        if not vias:
            continue
        via = rng.choice(vias)
        asked = [f for f in fields if f != via and _sayable(row.get(f, ""))]
        if asked:
            f = rng.choice(asked)
            slots = _slots(table, via=table.said(via), value=row[via], field=table.said(f))
            facts.append(Fact("two_hop", slots, row[f]))
    return facts


def table_facts(table: Table, rng: random.Random, quota: Quota | None = None) -> list[Fact]:
    """The facts of one table, ``quota`` of each kind at most, in a seeded order."""
    q = quota or Quota()
    return [
        *lookups(table, rng, q.lookup),
        *reverses(table, rng, q.reverse),
        *counts(table, rng, q.count),
        *most_commons(table, rng, q.most_common),
        *extremes(table, rng, q.min_max),
        *yes_nos(table, rng, q.yes_no),
        *two_hops(table, rng, q.two_hop),
    ]
