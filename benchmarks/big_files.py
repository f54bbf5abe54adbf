"""Questions over huge texts (issue 28, item 8): 100 MB and more, past the structure parser's head
(``MAX_PARSE_CHARS``, 16 MB), on the embedded model and the move-choosing baselines.

Three generated formats, each built in memory at every size asked for (nothing is downloaded or written): a
server log (one line per event), a TSV table with a header and a JSON-lines file. Into each, a few needle records
are placed at fixed fractions of the text: one in the parsed head (5%) and the others past it (55-90%). The
questions (the gold computed from what was placed, so exact):

* ``lookup_head`` / ``lookup_tail``: a field of the needle record in the head / past it;
* ``yes_tail`` / ``no``: is a name present (it is, past the head) / absent;
* ``count``: how many records hold a word (needle records only, some past the head): the whole text's count;
* ``count_field``: how many records have a field value that fills the whole text (a count over every record:
  a count of the parsed head alone is wrong, so it must not end ``Submitted``).

Run (about 10 s a question at 200 MB on 2 cores):
    python -m benchmarks.big_files --sizes 100,200 --methods model,scripted,random \
        --out benchmarks/results/big_files.json
    python -m benchmarks.big_files --sizes 20 --methods scripted          # a quick look
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from benchmarks.real_files.core import Question
from benchmarks.real_files.runner import load_average, make_method, now, run_question

NEEDLES = (0.05, 0.55, 0.75, 0.9)  # where the needle records sit, as a fraction of the text
SERVICES = ("auth", "search", "billing", "cart", "inventory", "mailer", "ledger", "proxy")
CITIES = ("Lisbon", "Oslo", "Quito", "Hanoi", "Perth", "Dakar", "Tartu", "Cusco")


def _filler(rng: random.Random, n: int, line: Callable[[random.Random, int], str]) -> list[str]:
    return [line(rng, i) for i in range(n)]


def _placed(rows: list[str], needles: list[str]) -> list[str]:
    """``rows`` with each needle inserted at its fraction of :data:`NEEDLES`."""
    for frac, needle in sorted(zip(NEEDLES, needles, strict=True), reverse=True):
        rows.insert(int(len(rows) * frac), needle)
    return rows


def log_text(size: int, seed: int) -> tuple[str, list[tuple[str, str, str, Any]]]:
    """A log of ``size`` characters; four ERROR lines, each naming a job and the incident it opened."""
    rng = random.Random(seed)

    def line(r: random.Random, i: int) -> str:
        level = r.choice(("INFO", "DEBUG"))
        return f"2025-03-{1 + i % 28:02d} {level} {r.choice(SERVICES)}: queue depth {r.randint(1, 999)}"

    jobs = [f"{rng.choice(('calm', 'brisk', 'amber', 'quiet'))}-{w}" for w in ("harbor", "meadow", "summit", "canyon")]
    incidents = [f"INC-{rng.randint(1000, 9999)}" for _ in jobs]
    needles = [
        f"2025-03-17 ERROR {SERVICES[i]}: job {j} failed, opened incident {k}"
        for i, (j, k) in enumerate(zip(jobs, incidents, strict=True))
    ]
    rows = _placed(_filler(rng, size // 45, line), needles)
    asks = [
        ("lookup_head", f"Which incident was opened when job {jobs[0]} failed?", "str", incidents[0]),
        ("lookup_tail", f"Which incident was opened when job {jobs[2]} failed?", "str", incidents[2]),
        ("yes_tail", f"Did job {jobs[3]} fail?", "bool", True),
        ("no", "Did job quiet-lagoon fail?", "bool", False),
        ("count", "How many ERROR lines are there?", "int", len(needles)),
        ("count_field", "How many lines are at level DEBUG?", "int", None),
    ]
    text = "\n".join(rows)
    return text, [(k, q, t, g if g is not None else sum(1 for r in rows if " DEBUG " in r)) for k, q, t, g in asks]


def table_text(size: int, seed: int) -> tuple[str, list[tuple[str, str, str, Any]]]:
    """A TSV table of hosts (host, port, owner, status); four needle hosts with unique names."""
    rng = random.Random(seed)

    def line(r: random.Random, i: int) -> str:
        status = r.choice(("online", "online", "online", "offline"))
        return f"node-{i:08d}\t{r.randint(1024, 65000)}\t{r.choice(SERVICES)}\t{status}"

    hosts = [f"{w}-gateway" for w in ("falcon", "heron", "osprey", "condor")]
    ports = [str(rng.randint(1024, 65000)) for _ in hosts]
    needles = [f"{h}\t{p}\tledger\tdegraded" for h, p in zip(hosts, ports, strict=True)]
    rows = ["host\tport\towner\tstatus", *_placed(_filler(rng, size // 32, line), needles)]
    asks = [
        ("lookup_head", f"What port does host {hosts[0]} use?", "int", int(ports[0])),
        ("lookup_tail", f"What port does host {hosts[2]} use?", "int", int(ports[2])),
        ("yes_tail", f"Is host {hosts[3]} listed?", "bool", True),
        ("no", "Is host kestrel-gateway listed?", "bool", False),
        ("count", "How many hosts are degraded?", "int", len(needles)),
        ("count_field", "How many hosts have status offline?", "int", sum(1 for r in rows if r.endswith("\toffline"))),
    ]
    return "\n".join(rows), asks


def jsonl_text(size: int, seed: int) -> tuple[str, list[tuple[str, str, str, Any]]]:
    """JSON lines of users (user, id, city, plan); four needle users with unique names."""
    rng = random.Random(seed)

    def line(r: random.Random, i: int) -> str:
        return json.dumps({"user": f"u{i:08d}", "id": i, "city": r.choice(CITIES), "plan": r.choice(("free", "pro"))})

    users = [f"{w}_{rng.randint(10, 99)}" for w in ("marisol", "tobias", "ingrid", "kwame")]
    cities = ["Reykjavik", "Windhoek", "Ushuaia", "Nuuk"]
    needles = [
        json.dumps({"user": u, "id": 1 + i, "city": c, "plan": "legacy"})
        for i, (u, c) in enumerate(zip(users, cities, strict=True))
    ]
    rows = _placed(_filler(rng, size // 62, line), needles)
    asks = [
        ("lookup_head", f"Which city is user {users[0]} in?", "str", cities[0]),
        ("lookup_tail", f"Which city is user {users[2]} in?", "str", cities[2]),
        ("yes_tail", f"Is there a user {users[3]}?", "bool", True),
        ("no", "Is there a user petra_41?", "bool", False),
        ("count", "How many users are on the legacy plan?", "int", len(needles)),
        ("count_field", "How many users are on the pro plan?", "int", sum(1 for r in rows if '"plan": "pro"' in r)),
    ]
    return "\n".join(rows), asks


FORMATS: dict[str, Callable[[int, int], tuple[str, list[tuple[str, str, str, Any]]]]] = {
    "log": log_text,
    "table": table_text,
    "jsonl": jsonl_text,
}


def texts(sizes_mb: list[int], formats: list[str], seed: int) -> Iterator[tuple[str, str, list[Question], float]]:
    """``(source, text, questions, seconds to build)`` for each size and format, one text in memory at a time."""
    for mb in sizes_mb:
        for fmt in formats:
            start = time.perf_counter()
            text, asks = FORMATS[fmt](mb * 1_000_000, seed)
            source = f"{fmt}-{mb}mb"
            questions = [
                Question(f"{source}/{kind}", source, "scale", kind, "fixed", q, t, gold) for kind, q, t, gold in asks
            ]
            yield source, text, questions, time.perf_counter() - start


def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per method: ``Submitted``-and-correct, precision, answered right at all, seconds."""
    out: dict[str, Any] = {}
    for method in sorted({r["method"] for r in records}):
        rs = [r for r in records if r["method"] == method]
        sub = [r for r in rs if r["result_kind"] == "submitted"]
        secs = [r["seconds"] for r in rs]
        out[method] = {
            "n": len(rs),
            "submitted_solved_pct": round(100 * sum(r["correct"] for r in sub) / len(rs), 1),
            "submitted_precision_pct": round(100 * sum(r["correct"] for r in sub) / len(sub), 1) if sub else None,
            "solved_pct": round(100 * sum(r["correct"] for r in rs) / len(rs), 1),
            "ended": {k: sum(r["result_kind"] == k for r in rs) for k in ("submitted", "extracted", "failed")},
            "median_seconds": round(statistics.median(secs), 2),
            "max_seconds": round(max(secs), 2),
            "by_kind": {
                k: round(100 * sum(r["correct"] and r["result_kind"] == "submitted" for r in g) / len(g), 1)
                for k in sorted({r["kind"] for r in rs})
                for g in [[r for r in rs if r["kind"] == k]]
            },
            "wrong_submitted": [f"{r['id']}: {r['answer']!r}" for r in sub if not r["correct"]],
        }
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.big_files", description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="100,200", help="text sizes in MB, comma-separated")
    p.add_argument("--formats", default=",".join(FORMATS))
    p.add_argument("--methods", default="model,scripted,random")
    p.add_argument("--max-iters", type=int, default=4)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    methods = {m: make_method(m) for m in args.methods.split(",")}
    started, load_start, records, built = time.perf_counter(), load_average(), [], {}
    for source, text, questions, seconds in texts(
        [int(s) for s in args.sizes.split(",")], args.formats.split(","), args.seed
    ):
        built[source] = {"chars": len(text), "build_seconds": round(seconds, 1)}
        for q in questions:
            for name, method in methods.items():
                record = run_question(q, text, name, method, args.max_iters)
                record["gold"] = q.gold
                records.append(record)
                print(
                    json.dumps({k: record[k] for k in ("id", "method", "result_kind", "correct", "seconds")}),
                    file=sys.stderr,
                )
        del text
        gc.collect()
    result = {
        "date": now(),
        "command": "python -m benchmarks.big_files " + " ".join(sys.argv[1:] if argv is None else argv),
        "load": {"start": load_start, "end": load_average()},
        "seconds": round(time.perf_counter() - started, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "texts": built,
        "methods": summary(records),
        "records": records,
    }
    print(json.dumps({k: v for k, v in result.items() if k != "records"}, indent=2))
    if args.out is not None:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    return result


if __name__ == "__main__":
    main()
