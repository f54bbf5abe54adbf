"""Speed of structure detection (``dspy_rlm.library.structure.detect``) and of the lookups over it (issue 19).

Targets: ``detect`` on a 1 MB text < 0.3 s, on 10 MB a few seconds; a lookup over a detected 10 MB text
(``record_of``, ``count_records``) well under a second; a text of long lines (one word of 64,000 characters,
or ten lines of 6,400, in several characters) well under a second too: a pattern that backtracks quadratically
takes minutes there (``long_lines``). Each source is repeated to the size: real files of
this machine where present (/var/lib/dpkg/status, /etc/services, /etc/passwd, zone1970.tab, mime.types),
and texts generated from a fixed seed for the other kinds (CSV, JSON lines, INI, YAML, prose). Every
timing is the best of ``--repeat`` runs on a fresh string object (``detect`` caches per object). The load
average is recorded: timings on a shared machine are pessimistic.

Run:
    python benchmarks/structure.py                       # 1 MB and 10 MB, best of 3
    python benchmarks/structure.py --sizes 1 --repeat 1 --out /tmp/s.json

Prints one JSON object (and writes it to ``--out`` when given).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from pathlib import Path

from dspy_rlm.library.lookup import count_records, record_of
from dspy_rlm.library.structure import detect

FILES = {
    "stanzas_dpkg_status": "/var/lib/dpkg/status",
    "table_services": "/etc/services",
    "table_passwd": "/etc/passwd",
    "table_zone1970": "/usr/share/zoneinfo/zone1970.tab",
    "table_mime_types": "/etc/mime.types",
}
WORDS = "amber falcon river stone quay harbor signal copper meadow lantern orbit cedar".split()  # noqa: SIM905


def _generated(seed: int = 0) -> dict[str, str]:
    rng = random.Random(seed)

    def phrase(n: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(n))

    rows = range(2_000)
    return {
        "table_csv": "id,name,city,count\n"
        + "".join(f"{i},{phrase(2)},{phrase(1)},{rng.randint(1, 10**6)}\n" for i in rows),
        "jsonl": "".join(json.dumps({"id": f"r{i}", "name": phrase(2), "n": rng.randint(1, 999)}) + "\n" for i in rows),
        "ini": "".join(f"[section-{i}]\nname = {phrase(2)}\nport = {rng.randint(1, 65535)}\n\n" for i in rows),
        "yaml": "".join(f"item{i}:\n  name: {phrase(2)}\n  size: {rng.randint(1, 99)}\n" for i in rows),
        "prose": "".join(f"The {phrase(3)} crossed the {phrase(2)} at dawn. {phrase(8).capitalize()}.\n" for i in rows),
    }


LONG_UNITS = (" ", "a", "a1", "a:", "a.", "a-", "a ", "a=", "1", "-", "|", "{", "a\t", '"', ",")


def _long_lines(repeat: int) -> dict[str, float]:
    """Seconds ``detect`` takes on a 64,000-character line of one repeated unit, and on ten lines of 6,400."""
    out: dict[str, float] = {}
    for unit in LONG_UNITS:
        line = unit * (64_000 // len(unit))
        texts = (line + "\x00", "\n".join([line[:6_400]] * 10) + " .")
        out[repr(unit)] = round(max(_best(lambda t=t: detect("".join([t[:-1], t[-1]])), repeat)[0] for t in texts), 3)
    return out


def _sized(source: str, size: int) -> str:
    return (source * (size // len(source) + 1))[:size]


def _best(fn, repeat: int) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - t0)
    return best, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 10], help="text sizes in MB (10**6 chars)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args()
    sources = {name: Path(path).read_text(errors="replace") for name, path in FILES.items() if Path(path).exists()}
    sources.update(_generated())
    result: dict = {
        "benchmark": "structure",
        "command": "python benchmarks/structure.py",
        "repeat": args.repeat,
        "loadavg_before": os.getloadavg(),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
        "detect": {},
        "lookups_10mb": {},
    }
    for name, source in sources.items():
        for mb in args.sizes:
            base = _sized(source, int(mb * 10**6))
            seconds, found = _best(lambda base=base: detect("".join([base[:-1], base[-1]])), args.repeat)
            result["detect"].setdefault(name, {})[f"{mb:g}mb"] = {
                "s": round(seconds, 3),
                "kind": found.kind,
                "detail": found.detail,
                "records": len(found.records),
            }
        text = _sized(source, 10 * 10**6)
        detect(text)  # cached: the lookups below read the records
        word = found.records[len(found.records) // 2].key or "the"
        t_of, _ = _best(lambda text=text, word=word: record_of(text, word), args.repeat)
        t_count, n = _best(lambda text=text, word=word: count_records(text, word), args.repeat)
        result["lookups_10mb"][name] = {
            "word": word,
            "record_of_s": round(t_of, 3),
            "count_records_s": round(t_count, 3),
            "count": n,
        }
    result["long_lines"] = _long_lines(args.repeat)
    result["long_lines_max_s"] = max(result["long_lines"].values())
    result["loadavg_after"] = os.getloadavg()
    for mb in args.sizes:
        times = [v[f"{mb:g}mb"]["s"] for v in result["detect"].values()]
        result[f"detect_{mb:g}mb_s_range"] = {"min": min(times), "max": max(times)}
    out = json.dumps(result, indent=2)
    print(out)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(out + "\n")


if __name__ == "__main__":
    main()
