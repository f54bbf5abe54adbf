"""Sources from Debian's tzdata package: zone1970.tab and iso3166.tab (tab-separated, ``#`` comments)."""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass

from benchmarks.real_files.core import Fact, Slots, extreme, sample, top, unique_by


def tab_rows(text: str) -> list[list[str]]:
    return [line.split("\t") for line in text.splitlines() if line.strip() and not line.startswith("#")]


# ---------------------------------------------------------------------------------------------- zone1970.tab


@dataclass(frozen=True)
class Zone:
    codes: tuple[str, ...]
    coordinates: str
    name: str
    comment: str

    @property
    def latitude(self) -> float:
        """Degrees north, from ISO 6709 ``+DDMM[SS]+DDDMM[SS]``."""
        m = re.match(r"([+-])(\d{2})(\d{2})(\d{2})?", self.coordinates)
        assert m is not None, self.coordinates
        value = int(m[2]) + int(m[3]) / 60 + int(m[4] or 0) / 3600
        return value if m[1] == "+" else -value


def parse_zones(text: str) -> list[Zone]:
    return [Zone(tuple(r[0].split(",")), r[1], r[2], r[3] if len(r) > 3 else "") for r in tab_rows(text)]


ZONE_NEGATIVES = ["Europe/Amsterdam", "Europe/Oslo", "Europe/Stockholm", "Asia/Kuwait", "America/Montreal"]
ZONE_NEGATIVES += ["Asia/Calcutta", "Europe/Kiev", "Atlantic/Reykjavik", "US/Eastern", "Europe/Luxembourg"]


def zone1970_facts(text: str, rng: random.Random) -> list[Fact]:
    zones = parse_zones(text)
    noun = "time zone"
    facts = []
    for z in sample(rng, zones, 6):
        facts.append(Fact("lookup", {"noun": noun, "key": z.name, "field": "coordinates"}, z.coordinates))
    single = [z for z in zones if len(z.codes) == 1]
    for z in sample(rng, single, 3):
        facts.append(Fact("lookup", {"noun": noun, "key": z.name, "field": "country code"}, z.codes[0]))
    commented = unique_by([z for z in zones if len(z.comment.split()) >= 2], lambda z: z.comment)
    for z in sample(rng, commented, 6):
        facts.append(Fact("multi_word", {"noun": noun, "key": z.name, "field": ("comment", "description")}, z.comment))
    for z in sample(rng, commented, 5):
        facts.append(Fact("reverse", {"noun": noun, "field": "comment", "value": f'"{z.comment}"'}, z.name))
    codes = Counter(c for z in zones for c in z.codes)
    for code in sample(rng, sorted(c for c, n in codes.items() if n >= 2), 3):
        facts.append(Fact("count", {"nouns": "time zones", "cond": f"list the country code {code}"}, codes[code]))
    areas = Counter(z.name.split("/")[0] for z in zones)
    for area in ("Europe", "Asia", "Africa"):
        facts.append(Fact("count", {"nouns": "time zones", "cond": f"are in the {area}/ area"}, areas[area]))
    gold, ties = top(areas)
    field = ("area (the part of the zone name before the slash)", "continent prefix of the zone name")
    facts.append(Fact("most_common", {"field": field, "nouns": "time zones"}, gold, ties, repeat=2))
    gold, ties = top(codes)
    facts.append(Fact("most_common", {"field": "country code", "nouns": "time zones"}, gold, ties, repeat=2))
    for largest in (True, False):
        best, tied = extreme(zones, lambda z: z.latitude, largest)
        slots: Slots = {
            "noun": noun,
            "nouns": "time zones",
            "measure": "latitude",
            "extreme": "highest" if largest else "lowest",
        }
        facts.append(Fact("min_max", slots, best.name, tuple(t.name for t in tied), repeat=2))
    present = [z.name for z in zones]
    facts += [Fact("yes_no", {"noun": noun, "key": n}, True) for n in sample(rng, present, 4)]
    absent = [n for n in ZONE_NEGATIVES if n not in present]
    facts += [Fact("yes_no", {"noun": noun, "key": n}, False) for n in sample(rng, absent, 4)]
    for z in sample(rng, [z for z in commented if len(z.codes) == 1], 5):
        slots = {"noun": noun, "field": "country code", "via": "comment", "value": f'"{z.comment}"'}
        facts.append(Fact("two_hop", slots, z.codes[0]))
    return facts


# ---------------------------------------------------------------------------------------------- iso3166.tab

COUNTRY_NEGATIVES = ["XK", "EU", "UK", "QQ", "ZZ", "AN", "YU", "CS"]


def iso3166_facts(text: str, rng: random.Random) -> list[Fact]:
    rows = [(r[0], r[1]) for r in tab_rows(text)]
    noun, field = "country code", ("country name", "name")
    one_word = [r for r in rows if len(r[1].split()) == 1]
    facts = [Fact("lookup", {"noun": noun, "key": c, "field": field}, n) for c, n in sample(rng, one_word, 7)]
    several = [r for r in rows if len(r[1].split()) >= 2]
    facts += [Fact("multi_word", {"noun": noun, "key": c, "field": field}, n) for c, n in sample(rng, several, 8)]
    for code, name in sample(rng, unique_by(rows, lambda r: r[1]), 7):
        facts.append(Fact("reverse", {"noun": "country code", "field": "name", "value": name}, code))
    for letter in sample(rng, sorted({n[0] for _, n in rows if n[0].isascii()}), 3):
        n = sum(name.startswith(letter) for _, name in rows)
        facts.append(Fact("count", {"nouns": "countries", "cond": f"have a name starting with {letter}"}, n))
    n = sum("Islands" in name.split() for _, name in rows)
    facts.append(Fact("count", {"nouns": "countries", "cond": "have the word Islands in their name"}, n))
    best, tied = extreme(rows, lambda r: len(r[1]), True)
    slots: Slots = {"noun": "country", "nouns": "countries", "measure": "name", "extreme": "longest"}
    others = tuple(x for row in (best, *tied) for x in row if x != best[1])  # a tied name, or a code
    facts.append(Fact("min_max", slots, best[1], others, repeat=2))
    codes = [c for c, _ in rows]
    facts += [Fact("yes_no", {"noun": noun, "key": c}, True) for c in sample(rng, codes, 4)]
    absent = [c for c in COUNTRY_NEGATIVES if c not in codes]
    facts += [Fact("yes_no", {"noun": noun, "key": c}, False) for c in sample(rng, absent, 4)]
    return facts
