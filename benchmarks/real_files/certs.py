"""certifi's CA bundle (cacert.pem): each certificate is preceded by ``# Issuer:``, ``# Subject:``,
``# Label:``, ``# Serial:`` and fingerprint comment lines."""

from __future__ import annotations

import random
import re
from collections import Counter

from benchmarks.real_files.core import Fact, Slots, extreme, sample, top, unique_by

Cert = dict[str, str]


def parse_bundle(text: str) -> list[Cert]:
    certs: list[Cert] = []
    current: Cert = {}
    for line in text.splitlines():
        if line.startswith("# ") and ": " in line:
            key, _, value = line[2:].partition(": ")
            if key == "Issuer" and current:
                certs.append(current)
                current = {}
            current[key] = value.strip()
    if current:
        certs.append(current)
    for cert in certs:
        cert["Label"] = cert.get("Label", "").strip('"')
        parts = re.split(r"\s(?=(?:CN|OU|O|C|L|ST)=)", cert.get("Issuer", ""))
        cert.update({"Issuer " + k: v for k, _, v in (p.partition("=") for p in parts) if k in ("CN", "O")})
    return [c for c in certs if c["Label"] and "\\" not in c["Label"]]


LABEL_NEGATIVES = ["ISRG Root X3", "DigiCert Global Root G5", "Amazon Root CA 5", "GlobalSign Root R99"]
LABEL_NEGATIVES += ["Let's Encrypt Authority X9", "Mozilla Root CA 2030", "Debian Root CA", "Cloudflare Root CA 1"]


def cacert_facts(text: str, rng: random.Random) -> list[Fact]:
    certs = unique_by(parse_bundle(text), lambda c: c["Label"])
    noun = "certificate"
    facts = []
    for c in sample(rng, certs, 5):
        facts.append(
            Fact(
                "later_line",
                {"noun": noun, "key": f'"{c["Label"]}"', "field": ("serial number", "Serial")},
                int(c["Serial"]),
            )
        )
    for c in sample(rng, certs, 4):
        facts.append(
            Fact(
                "later_line",
                {"noun": noun, "key": f'"{c["Label"]}"', "field": "SHA1 Fingerprint"},
                c["SHA1 Fingerprint"],
            )
        )
    orgs = [c for c in certs if len(c.get("Issuer O", "").split()) >= 2]
    for c in sample(rng, orgs, 6):
        slots: Slots = {"noun": noun, "key": f'"{c["Label"]}"', "field": ("issuer organization", "Issuer O=")}
        facts.append(Fact("multi_word", slots, c["Issuer O"]))
    for c in sample(rng, unique_by(certs, lambda c: c["Serial"]), 5):
        facts.append(
            Fact("reverse", {"noun": noun, "field": ("serial number", "Serial"), "value": c["Serial"]}, c["Label"])
        )
    issuers = Counter(c["Issuer O"] for c in certs if "Issuer O" in c)
    for org in sample(rng, sorted(o for o, n in issuers.items() if n >= 2), 3):
        facts.append(
            Fact("count", {"nouns": "certificates", "cond": f"were issued by the organization {org}"}, issuers[org])
        )
    facts.append(
        Fact(
            "count",
            {"nouns": "certificates", "cond": "have ECC in their label"},
            sum("ECC" in c["Label"] for c in certs),
        )
    )
    gold, ties = top(issuers)
    facts.append(
        Fact(
            "most_common",
            {"field": ("issuer organization", "Issuer O="), "nouns": "certificates"},
            gold,
            ties,
            repeat=2,
        )
    )
    for largest in (True, False):
        best, tied = extreme(certs, lambda c: int(c["Serial"]), largest)
        slots = {
            "noun": noun,
            "nouns": "certificates",
            "measure": ("serial number", "Serial"),
            "extreme": "largest" if largest else "smallest",
        }
        facts.append(Fact("min_max", slots, best["Label"], tuple(t["Label"] for t in tied), repeat=2))
    labels = [c["Label"] for c in certs]
    facts += [Fact("yes_no", {"noun": noun, "key": f'"{lab}"'}, True) for lab in sample(rng, labels, 4)]
    absent = [lab for lab in LABEL_NEGATIVES if lab not in labels]
    facts += [Fact("yes_no", {"noun": noun, "key": f'"{lab}"'}, False) for lab in sample(rng, absent, 4)]
    for c in sample(rng, unique_by(certs, lambda c: c["Serial"]), 5):
        slots = {
            "noun": noun,
            "field": ("issuer organization", "Issuer O="),
            "via": ("serial number", "Serial"),
            "value": c["Serial"],
        }
        if "Issuer O" in c:
            facts.append(Fact("two_hop", slots, c["Issuer O"]))
    return facts
