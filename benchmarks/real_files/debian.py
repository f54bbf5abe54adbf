"""Debian system files: the dpkg status database (its Essential packages), locales' SUPPORTED list,
/etc/login.defs and /etc/mime.types. Each parser is the benchmark's own."""

from __future__ import annotations

import random
from collections import Counter

from benchmarks.real_files.core import Fact, Slots, extreme, sample, top, unique_by, varied

Stanza = dict[str, str]


def parse_stanzas(text: str) -> list[Stanza]:
    """Blank-line separated ``Key: value`` paragraphs (RFC 822 style, as dpkg and DEP-5 write them).

    A continuation line (starting with a space or tab) extends the previous field, newline kept.
    """
    stanzas: list[Stanza] = []
    current: Stanza = {}
    last = ""
    for line in text.splitlines():
        if not line.strip():
            if current:
                stanzas.append(current)
            current, last = {}, ""
        elif line[0] in " \t" and last:
            current[last] += "\n" + line.strip()
        elif ":" in line:
            last, _, value = line.partition(":")
            current[last] = value.strip()
    if current:
        stanzas.append(current)
    return stanzas


def essential_slice(status: str) -> str:
    """The stanzas of the packages marked ``Essential: yes``, whole and in file order: a deterministic slice of
    /var/lib/dpkg/status that stays small (the full database is hundreds of KB) and stable on one image."""
    paragraphs = [p for p in status.split("\n\n") if p.strip()]
    return "\n\n".join(p.strip("\n") for p in paragraphs if "\nEssential: yes\n" in "\n" + p + "\n") + "\n"


PACKAGE_NEGATIVES = ["curl", "vim", "git", "python3", "openssl", "nano", "wget", "sudo", "zsh", "emacs"]


def dpkg_facts(text: str, rng: random.Random) -> list[Fact]:
    pkgs = unique_by([s for s in parse_stanzas(text) if "Package" in s], lambda s: s["Package"])
    noun = "package"
    facts = []
    for field in ("Version", "Installed-Size", "Architecture", "Homepage", "Section"):
        named = field.lower().replace("-", " ") if field == "Installed-Size" else field
        for s in varied(rng, [s for s in pkgs if field in s], 2, lambda s, f=field: s[f]):
            gold: str | int = int(s[field]) if field == "Installed-Size" else s[field]
            facts.append(Fact("later_line", {"noun": noun, "key": s["Package"], "field": (named, field)}, gold))
    for s in sample(rng, pkgs, 6):
        name = s["Maintainer"].split("<")[0].strip()
        facts.append(
            Fact(
                "multi_word",
                {"noun": noun, "key": s["Package"], "field": ("maintainer's name", "Maintainer name")},
                name,
            )
        )
    described = unique_by(pkgs, lambda s: s["Description"].split("\n")[0])
    for s in sample(rng, described, 3):
        slots: Slots = {"noun": noun, "key": s["Package"], "field": ("short description", "Description")}
        facts.append(Fact("multi_word", slots, s["Description"].split("\n")[0]))
    for s in sample(rng, described, 5):
        slots = {
            "noun": noun,
            "field": ("description", "Description"),
            "value": f'"{s["Description"].split(chr(10))[0]}"',
        }
        facts.append(Fact("reverse", slots, s["Package"]))
    for field in ("Priority", "Section", "Multi-Arch"):
        values = Counter(s[field] for s in pkgs if field in s)
        for value in sample(rng, sorted(values), 2):
            facts.append(Fact("count", {"nouns": "packages", "cond": f"have {field}: {value}"}, values[value]))
    for field in ("Section", "Maintainer"):
        common, ties = top(Counter(s[field] for s in pkgs if field in s))
        if field == "Maintainer":  # the name, or the name with its address
            common, ties = common.split("<")[0].strip(), (common, *ties, *(t.split("<")[0].strip() for t in ties))
        facts.append(Fact("most_common", {"field": field, "nouns": "packages"}, common, ties, repeat=2))
    sized = [s for s in pkgs if "Installed-Size" in s]
    for largest in (True, False):
        best, tied = extreme(sized, lambda s: int(s["Installed-Size"]), largest)
        slots = {
            "noun": noun,
            "nouns": "packages",
            "measure": ("installed size", "Installed-Size"),
            "extreme": "largest" if largest else "smallest",
        }
        facts.append(Fact("min_max", slots, best["Package"], tuple(t["Package"] for t in tied), repeat=2))
    names = [s["Package"] for s in pkgs]
    facts += [Fact("yes_no", {"noun": noun, "key": n}, True) for n in sample(rng, names, 4)]
    absent = [n for n in PACKAGE_NEGATIVES if f"Package: {n}\n" not in text]
    facts += [Fact("yes_no", {"noun": noun, "key": n}, False) for n in sample(rng, absent, 4)]
    for s in sample(rng, described, 5):
        slots = {
            "noun": noun,
            "field": ("version", "Version"),
            "via": "description",
            "value": f'"{s["Description"].split(chr(10))[0]}"',
        }
        facts.append(Fact("two_hop", slots, s["Version"]))
    return facts


# ------------------------------------------------------------------------------ /usr/share/i18n/SUPPORTED

LOCALE_NEGATIVES = ["en_XX.UTF-8", "fr_US.UTF-8", "ja_FR.UTF-8", "de_JP", "xx_XX", "es_DE.UTF-8", "it_BR"]


def supported_facts(text: str, rng: random.Random) -> list[Fact]:
    rows = [tuple(line.split()) for line in text.splitlines() if line.strip() and not line.startswith("#")]
    locales = unique_by([r for r in rows if len(r) == 2], lambda r: r[0])
    noun, field = "locale", ("character set", "charset")
    not_utf8 = [r for r in locales if r[1] != "UTF-8"]
    facts = [Fact("lookup", {"noun": noun, "key": name, "field": field}, cs) for name, cs in sample(rng, not_utf8, 6)]
    facts += [Fact("lookup", {"noun": noun, "key": name, "field": field}, cs) for name, cs in sample(rng, locales, 3)]
    charsets = Counter(cs for _, cs in locales)
    for cs in sample(rng, sorted(c for c, n in charsets.items() if n >= 2), 4):
        facts.append(Fact("count", {"nouns": "locales", "cond": f"use the {cs} character set"}, charsets[cs]))
    languages = Counter(name.split("_")[0].split(".")[0] for name, _ in locales)
    for lang in sample(rng, sorted(lang for lang, n in languages.items() if n >= 3), 3):
        facts.append(
            Fact("count", {"nouns": "locale entries", "cond": f"are for the language code {lang}"}, languages[lang])
        )
    gold, ties = top(charsets)
    facts.append(Fact("most_common", {"field": field, "nouns": "locales"}, gold, ties, repeat=2))
    gold, ties = top(languages)
    facts.append(Fact("most_common", {"field": "language code", "nouns": "locales"}, gold, ties, repeat=2))
    names = [name for name, _ in locales]
    facts += [Fact("yes_no", {"noun": noun, "key": n}, True) for n in sample(rng, names, 4)]
    absent = [n for n in LOCALE_NEGATIVES if n not in names]
    facts += [Fact("yes_no", {"noun": noun, "key": n}, False) for n in sample(rng, absent, 4)]
    return facts


# ------------------------------------------------------------------------------------------ /etc/login.defs

SETTING_NEGATIVES = ["MAX_LOGIN_SESSIONS", "SESSION_TIMEOUT", "ALLOW_ROOT_LOGIN", "PASSWORD_HISTORY", "LOCK_AFTER"]


def login_defs_facts(text: str, rng: random.Random) -> list[Fact]:
    rows = [line.split(None, 1) for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    settings = unique_by([(r[0], r[1].strip()) for r in rows if len(r) == 2], lambda r: r[0])
    noun, field = "setting", "value"
    facts = [Fact("lookup", {"noun": noun, "key": k, "field": field}, v) for k, v in sample(rng, settings, 8)]
    for k, v in sample(rng, unique_by(settings, lambda r: r[1]), 5):
        facts.append(Fact("reverse", {"noun": noun, "field": field, "value": v}, k))
    values = Counter(v for _, v in settings)
    for v in ("yes", "no"):
        facts.append(Fact("count", {"nouns": "settings", "cond": f"are set to {v}"}, values[v]))
    facts.append(
        Fact(
            "count",
            {"nouns": "settings", "cond": "have a name ending in _ENAB"},
            sum(k.endswith("_ENAB") for k, _ in settings),
        )
    )
    gold, ties = top(values)
    facts.append(Fact("most_common", {"field": field, "nouns": "settings"}, gold, ties, repeat=2))
    numeric = [(k, int(v)) for k, v in settings if v.isdigit() and (v == "0" or not v.startswith("0"))]  # not octal
    for largest in (True, False):
        best, tied = extreme(numeric, lambda r: r[1], largest)
        slots: Slots = {
            "noun": noun,
            "nouns": "settings",
            "measure": "numeric value",
            "extreme": "largest" if largest else "smallest",
        }
        facts.append(Fact("min_max", slots, best[0], tuple(t[0] for t in tied), repeat=2))
    facts += [Fact("yes_no", {"noun": noun, "key": k}, True) for k, _ in sample(rng, settings, 4)]
    absent = [k for k in SETTING_NEGATIVES if k not in text]
    facts += [Fact("yes_no", {"noun": noun, "key": k}, False) for k in sample(rng, absent, 4)]
    return facts


# ------------------------------------------------------------------------------------------ /etc/mime.types

TYPE_NEGATIVES = ["text/x-rust", "application/x-parquet", "text/x-kotlin", "application/x-jupyter"]
TYPE_NEGATIVES += ["image/x-webp2", "video/x-holo", "application/x-terraform", "text/x-zig"]


def mime_types_facts(text: str, rng: random.Random) -> list[Fact]:
    rows = [line.split() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    types = unique_by([(r[0], tuple(r[1:])) for r in rows], lambda r: r[0])
    noun = "MIME type"
    single = [t for t in types if len(t[1]) == 1]
    field = ("file extension", "extension")
    facts = [Fact("lookup", {"noun": noun, "key": t, "field": field}, exts[0]) for t, exts in sample(rng, single, 6)]
    several = [t for t in types if len(t[1]) >= 2]
    for t, exts in sample(rng, several, 6):
        alternatives = (", ".join(exts), ",".join(exts))
        facts.append(
            Fact(
                "multi_word",
                {"noun": noun, "key": t, "field": ("file extensions", "extensions")},
                " ".join(exts),
                alternatives,
            )
        )
    ext_owner = unique_by([(e, t) for t, exts in types for e in exts], lambda p: p[0])
    for ext, t in sample(rng, ext_owner, 6):
        facts.append(Fact("reverse", {"noun": noun, "field": "extension", "value": ext}, t))
    tops = Counter(t.split("/")[0] for t, _ in types)
    for top_level in sample(rng, sorted(tops), 3):
        facts.append(Fact("count", {"nouns": "MIME types", "cond": f"are under {top_level}/"}, tops[top_level]))
    facts.append(Fact("count", {"nouns": "MIME types", "cond": "list no file extension"}, sum(not e for _, e in types)))
    gold, ties = top(tops)
    facts.append(Fact("most_common", {"field": "top-level type", "nouns": "MIME types"}, gold, ties, repeat=2))
    best, tied = extreme(types, lambda t: len(t[1]), True)
    slots: Slots = {"noun": noun, "nouns": "MIME types", "measure": "number of extensions", "extreme": "largest"}
    facts.append(Fact("min_max", slots, best[0], tuple(t[0] for t in tied), repeat=2))
    names = [t for t, _ in types]
    facts += [Fact("yes_no", {"noun": noun, "key": t}, True) for t in sample(rng, names, 4)]
    absent = [t for t in TYPE_NEGATIVES if t not in names]
    facts += [Fact("yes_no", {"noun": noun, "key": t}, False) for t in sample(rng, absent, 4)]
    owners = dict(ext_owner)
    hops = [(exts[-1], exts[0]) for t, exts in several if owners.get(exts[-1]) == t]
    for ext, first in sample(rng, hops, 5):
        slots = {"noun": noun, "field": "first listed extension", "via": "extension", "value": ext}
        facts.append(Fact("two_hop", slots, first))
    return facts
