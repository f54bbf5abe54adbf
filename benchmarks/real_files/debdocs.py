"""Per-package Debian documents: a changelog.Debian.gz (decompressed by the loader) and a DEP-5 copyright file."""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass

from benchmarks.real_files.core import Fact, Slots, sample, top, unique_by, varied
from benchmarks.real_files.debian import parse_stanzas

# ---------------------------------------------------------------------------------------- changelog.Debian

HEADER = re.compile(r"^(\S+) \(([^)]+)\) ([^;]+); urgency=(\w+)")
TRAILER = re.compile(r"^ -- (.+?) <([^>]+)>\s+(.+?)\s*$")


@dataclass(frozen=True)
class Upload:
    version: str
    distribution: str
    urgency: str
    changes: int  # lines starting with "*"
    signer: str = ""
    email: str = ""
    date: str = ""


def parse_changelog(text: str) -> list[Upload]:
    uploads: list[Upload] = []
    head: re.Match[str] | None = None
    changes = 0
    for line in text.splitlines():
        if m := HEADER.match(line):
            head, changes = m, 0
        elif line.lstrip().startswith("* "):
            changes += 1
        elif head is not None and (t := TRAILER.match(line)):
            uploads.append(Upload(head[2], head[3].strip(), head[4], changes, t[1], t[2], t[3]))
            head = None
    return uploads


VERSION_NEGATIVES = ["9.9-1", "8.99-1", "7.7-7", "10.0-1", "6.10-9", "5.98-2"]


def changelog_facts(text: str, rng: random.Random) -> list[Fact]:
    uploads = unique_by(parse_changelog(text), lambda u: u.version)
    noun = "version"
    facts = []
    for u in varied(rng, uploads, 4, lambda u: u.urgency):
        facts.append(Fact("lookup", {"noun": "upload", "key": u.version, "field": "urgency"}, u.urgency))
    for u in varied(rng, uploads, 3, lambda u: u.distribution):
        facts.append(
            Fact(
                "lookup",
                {"noun": "upload", "key": u.version, "field": ("distribution", "target suite")},
                u.distribution,
            )
        )
    for u in sample(rng, uploads, 6):
        facts.append(Fact("multi_word", {"noun": noun, "key": u.version, "field": ("date", "release date")}, u.date))
    for u in varied(rng, uploads, 8, lambda u: u.signer):
        slots: Slots = {"noun": noun, "key": u.version, "field": ("signer's name", "maintainer name")}
        facts.append(Fact("later_line", slots, u.signer))
    for u in sample(rng, uploads, 4):
        facts.append(Fact("reverse", {"noun": noun, "field": "date", "value": u.date}, u.version))
    urgencies = Counter(u.urgency for u in uploads)
    for urgency in sorted(urgencies):
        facts.append(Fact("count", {"nouns": "uploads", "cond": f"have urgency={urgency}"}, urgencies[urgency]))
    dists = Counter(u.distribution for u in uploads)
    for dist in sorted(dists):
        facts.append(Fact("count", {"nouns": "uploads", "cond": f"went to {dist}"}, dists[dist]))
    for field, counter in (("urgency", urgencies), ("signer", Counter(u.signer for u in uploads))):
        gold, ties = top(counter)
        facts.append(Fact("most_common", {"field": field, "nouns": "uploads"}, gold, ties, repeat=2))
    versions = [u.version for u in uploads]
    facts += [Fact("yes_no", {"noun": noun, "key": v}, True) for v in sample(rng, versions, 4)]
    absent = [v for v in VERSION_NEGATIVES if v not in versions]
    facts += [Fact("yes_no", {"noun": noun, "key": v}, False) for v in sample(rng, absent, 4)]
    for u in varied(rng, uploads, 5, lambda u: u.urgency):
        slots = {"noun": "upload", "field": "urgency", "via": "date", "value": u.date}
        facts.append(Fact("two_hop", slots, u.urgency))
    return facts


# ---------------------------------------------------------------------------------------- DEP-5 copyright

LICENSE_NEGATIVES = ["Apache-2.0", "MPL-2.0", "Artistic-2.0", "CC0-1.0", "AGPL-3+", "WTFPL"]


def copyright_facts(text: str, rng: random.Random) -> list[Fact]:
    stanzas = [s for s in parse_stanzas(text) if "Files" in s and "License" in s]
    for s in stanzas:
        s["License"] = s["License"].split("\n")[0]
    files = unique_by([(f, s) for s in stanzas for f in s["Files"].split() if "*" not in f], lambda p: p[0])
    noun = "file"
    facts = []
    for path, s in sample(rng, files, 9):
        facts.append(Fact("later_line", {"noun": noun, "key": path, "field": ("license", "License")}, s["License"]))
    single = [(p, s) for p, s in files if "\n" not in s["Copyright"] and len(s["Copyright"].split()) >= 2]
    for path, s in sample(rng, single, 6):
        facts.append(
            Fact("multi_word", {"noun": noun, "key": path, "field": ("copyright line", "Copyright")}, s["Copyright"])
        )
    one_file = unique_by(
        [s for s in stanzas if len(s["Files"].split()) == 1 and "*" not in s["Files"] and "\n" not in s["Copyright"]],
        lambda s: s["Copyright"],
    )
    for s in sample(rng, one_file, 5):
        facts.append(Fact("reverse", {"noun": noun, "field": "copyright", "value": f'"{s["Copyright"]}"'}, s["Files"]))
    licenses = Counter(s["License"] for s in stanzas)
    for lic in sample(rng, sorted(licenses), 4):
        facts.append(Fact("count", {"nouns": "Files paragraphs", "cond": f"have License: {lic}"}, licenses[lic]))
    gold, ties = top(licenses)
    facts.append(
        Fact("most_common", {"field": ("license", "License"), "nouns": "Files paragraphs"}, gold, ties, repeat=2)
    )
    facts += [Fact("yes_no", {"noun": "license", "key": lic}, True) for lic in sample(rng, sorted(licenses), 4)]
    absent = [lic for lic in LICENSE_NEGATIVES if lic not in text]
    facts += [Fact("yes_no", {"noun": "license", "key": lic}, False) for lic in sample(rng, absent, 4)]
    for s in sample(rng, one_file, 5):
        slots: Slots = {
            "noun": noun,
            "field": ("license", "License"),
            "via": "copyright",
            "value": f'"{s["Copyright"]}"',
        }
        facts.append(Fact("two_hop", slots, s["License"]))
    return facts
