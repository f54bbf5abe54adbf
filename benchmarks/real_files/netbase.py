"""Sources from Debian's netbase package: /etc/services, /etc/protocols, /etc/rpc.

Each is a line table: ``name  number[/proto]  aliases...  # comment``. The parser here is the benchmark's own
(independent of dspy_rlm's structure detection).
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import dataclass

from benchmarks.real_files.core import Fact, Slots, extreme, sample, top, unique_by


@dataclass(frozen=True)
class Entry:
    name: str
    number: int
    proto: str  # "tcp" / "udp" for services, "" elsewhere
    aliases: tuple[str, ...]
    comment: str


def parse_table(text: str) -> list[Entry]:
    """Every non-comment line of a netbase table."""
    entries = []
    for line in text.splitlines():
        body, _, comment = line.partition("#")
        words = body.split()
        if len(words) < 2:
            continue
        number, _, proto = words[1].partition("/")
        entries.append(Entry(words[0], int(number), proto, tuple(words[2:]), " ".join(comment.split())))
    return entries


def _absent(names: list[str], present: set[str]) -> list[str]:
    return [n for n in names if n not in present]


def _yes_no(rng: random.Random, noun: str, present: list[str], absent: list[str], k: int) -> list[Fact]:
    facts = [Fact("yes_no", {"noun": noun, "key": n}, True) for n in sample(rng, present, k)]
    return facts + [Fact("yes_no", {"noun": noun, "key": n}, False) for n in sample(rng, absent, k)]


# ------------------------------------------------------------------------------------------- /etc/services

SERVICE_NEGATIVES = ["mongodb", "memcached", "kafka", "docker", "minecraft", "zoom", "steam", "elasticsearch"]
SERVICE_NEGATIVES += ["grafana", "prometheus", "rabbitmq", "cassandra", "jenkins", "teamspeak"]


def services_facts(text: str, rng: random.Random) -> list[Fact]:
    entries = parse_table(text)
    ports: dict[str, set[int]] = defaultdict(set)
    for e in entries:
        ports[e.name].add(e.number)
    one_port = [n for n in dict.fromkeys(e.name for e in entries) if len(ports[n]) == 1]
    noun, field = "service", ("port number", "port")
    facts = [Fact("lookup", {"noun": noun, "key": n, "field": field}, min(ports[n])) for n in sample(rng, one_port, 8)]
    commented = unique_by([e for e in entries if len(e.comment.split()) >= 2], lambda e: e.name)
    for e in sample(rng, commented, 6):
        facts.append(Fact("multi_word", {"noun": noun, "key": e.name, "field": ("description", "comment")}, e.comment))
    by_port = unique_by(entries, lambda e: (e.number, e.proto))
    for e in sample(rng, by_port, 6):
        facts.append(Fact("reverse", {"noun": "service", "field": "port", "value": f"{e.number}/{e.proto}"}, e.name))
    nouns = "service entries"
    for cond, n in [
        ("use udp", sum(e.proto == "udp" for e in entries)),
        ("use the tcp protocol", sum(e.proto == "tcp" for e in entries)),
        ("have a port number below 100", sum(e.number < 100 for e in entries)),
        ("have no alias", sum(not e.aliases for e in entries)),
    ]:
        facts.append(Fact("count", {"nouns": nouns, "cond": cond}, n))
    gold, ties = top(Counter(e.proto for e in entries))
    facts.append(Fact("most_common", {"field": "protocol", "nouns": nouns}, gold, ties, repeat=2))
    for measure, key, largest in [
        ("port number", lambda e: e.number, True),
        ("port number", lambda e: e.number, False),
    ]:
        best, tied = extreme(entries, key, largest)
        word = "largest" if largest else "smallest"
        slots: Slots = {"noun": "service", "nouns": "services", "measure": measure, "extreme": word}
        facts.append(Fact("min_max", slots, best.name, tuple(t.name for t in tied if t.name != best.name), repeat=2))
    best, tied = extreme(entries, lambda e: len(e.aliases), True)
    slots = {"noun": "service", "nouns": "services", "measure": "number of aliases", "extreme": "largest"}
    facts.append(Fact("min_max", slots, best.name, tuple(t.name for t in tied if t.name != best.name)))
    facts += _yes_no(rng, noun, one_port, _absent(SERVICE_NEGATIVES, set(ports)), 4)
    alias_of = unique_by([(a, e.name) for e in entries for a in e.aliases], lambda pair: pair[0])
    alias_of = [(a, n) for a, n in alias_of if n in one_port and a not in ports]
    for alias, name in sample(rng, alias_of, 6):
        slots = {"noun": "service", "field": ("port number", "port"), "via": "alias", "value": alias}
        facts.append(Fact("two_hop", slots, min(ports[name])))
    return facts


# ------------------------------------------------------------------------------------------ /etc/protocols

PROTOCOL_NEGATIVES = ["quic", "http", "tls", "ssh", "bgp", "dns", "smtp", "ntp", "arp", "ppp"]


def protocols_facts(text: str, rng: random.Random) -> list[Fact]:
    entries = parse_table(text)
    noun, field = "protocol", ("protocol number", "number")
    keyed = unique_by(entries, lambda e: e.name)
    facts = [Fact("lookup", {"noun": noun, "key": e.name, "field": field}, e.number) for e in sample(rng, keyed, 8)]
    described = unique_by([e for e in keyed if len(e.comment.split()) >= 2], lambda e: e.comment)
    for e in sample(rng, described, 6):
        facts.append(Fact("multi_word", {"noun": noun, "key": e.name, "field": ("description", "comment")}, e.comment))
    by_number = unique_by(entries, lambda e: e.number)
    for e in sample(rng, by_number, 6):
        facts.append(
            Fact("reverse", {"noun": noun, "field": ("number", "protocol number"), "value": str(e.number)}, e.name)
        )
    for cond, n in [
        ("have a number above 100", sum(e.number > 100 for e in entries)),
        ("have a number below 10", sum(e.number < 10 for e in entries)),
        ("cite an RFC in their comment", sum("RFC" in e.comment for e in entries)),
    ]:
        facts.append(Fact("count", {"nouns": "protocols", "cond": cond}, n))
    for largest in (True, False):
        pool = [e for e in entries if e.number > 0]
        best, tied = extreme(pool, lambda e: e.number, largest)
        slots: Slots = {
            "noun": noun,
            "nouns": "protocols",
            "measure": "protocol number",
            "extreme": "largest" if largest else "smallest",
        }
        facts.append(Fact("min_max", slots, best.name, tuple(t.name for t in tied), repeat=2))
    facts += _yes_no(rng, noun, [e.name for e in keyed], _absent(PROTOCOL_NEGATIVES, {e.name for e in entries}), 4)
    for e in sample(rng, described, 5):
        slots = {"noun": noun, "field": field, "via": "comment", "value": f'"{e.comment}"'}
        facts.append(Fact("two_hop", slots, e.number))
    return facts


# ------------------------------------------------------------------------------------------------ /etc/rpc

RPC_NEGATIVES = ["nfsd", "lockd", "statd", "nisd", "autofs", "ypxfrd", "rquota", "nfsacl"]


def rpc_facts(text: str, rng: random.Random) -> list[Fact]:
    entries = unique_by(parse_table(text), lambda e: e.name)
    noun, field = "RPC program", ("program number", "number")
    facts = [Fact("lookup", {"noun": noun, "key": e.name, "field": field}, e.number) for e in sample(rng, entries, 5)]
    by_number = unique_by(entries, lambda e: e.number)
    for e in sample(rng, by_number, 4):
        facts.append(Fact("reverse", {"noun": noun, "field": "program number", "value": str(e.number)}, e.name))
    for cond, n in [
        ("have at least one alias", sum(bool(e.aliases) for e in entries)),
        ("have more than one alias", sum(len(e.aliases) > 1 for e in entries)),
    ]:
        facts.append(Fact("count", {"nouns": "RPC programs", "cond": cond}, n))
    for largest in (True, False):
        best, tied = extreme(entries, lambda e: e.number, largest)
        slots: Slots = {
            "noun": noun,
            "nouns": "RPC programs",
            "measure": "program number",
            "extreme": "largest" if largest else "smallest",
        }
        facts.append(Fact("min_max", slots, best.name, tuple(t.name for t in tied), repeat=2))
    names = {e.name for e in entries} | {a for e in entries for a in e.aliases}
    facts += _yes_no(rng, noun, [e.name for e in entries], _absent(RPC_NEGATIVES, names), 3)
    alias_of = unique_by([(a, e) for e in entries for a in e.aliases], lambda pair: pair[0])
    program_names = {e.name for e in entries}
    for alias, e in sample(rng, [p for p in alias_of if p[0] not in program_names], 5):
        slots = {"noun": noun, "field": field, "via": "alias", "value": alias}
        facts.append(Fact("two_hop", slots, e.number))
    return facts
