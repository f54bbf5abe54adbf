"""Check that every bold figure in the README comes from a results file (issue 15, item 4).

A *bold figure* is a ``**...**`` span of README.md that contains a digit. Each one must name the results
file it comes from, and that file must hold it, by this rule:

1. The source is an HTML comment right after the closing ``**`` (invisible on GitHub):
   ``**0.22 ms**<!-- source: repl_overhead.json#trivial_block_ms -->``. The path is relative to
   ``benchmarks/results/``; after ``#`` comes a key path into the JSON (keys joined by dots, list indices as
   numbers) naming the value or the subtree that holds the figure's numbers. A figure without a source is
   unmatched: the results hold thousands of numbers (the long-context report alone has ~6,300), so a
   search of all of them "finds" almost any figure, and such a check could not fail.
2. The numbers of the figure are read left to right: ``1,555`` is 1555, ``0.011 / 0.019`` are two numbers,
   ``2^13`` is 8192, ``7e-5`` is 0.00007; units and words around them are ignored.
3. A number written with ``d`` decimals is *matched* by a JSON number ``x`` of the source when ``x * s``
   rounds to it at ``d`` decimals (``|x * s - v| <= 0.5 * 10**-d``, plus a float epsilon) for a unit scale
   ``s`` in ``SCALES`` (1, fraction -> %, s -> ms, ms -> s, bytes -> KiB/MiB/GiB, bytes -> kB/MB/GB); JSON
   keys and strings that are integers (``"262144"``) count as numbers too.
4. A figure is backed when **all** of its numbers are matched in its source.

Bold text without a digit (``**Every run ends typed**``) is not a figure, and code (inline or fenced) is
not searched for bold. A goal or a setting is not a measurement: it should not be bold.

Run:
    python benchmarks/check_readme.py                 # README.md against benchmarks/results/
    python benchmarks/check_readme.py --readme X.md --results DIR

Prints one JSON object (``figures``, ``matched``, ``unmatched`` with line, text, numbers and why) and exits 1
when a figure is unmatched, 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# A bold span may wrap lines but not cross a blank line; the source marker follows the closing ** directly.
BOLD = re.compile(
    r"\*\*(?=\S)((?:(?!\n[ \t]*\n).)+?)(?<=\S)\*\*"
    r"(?:[ \t]*<!--\s*source:\s*(?P<src>[^>]*?)\s*-->)?",
    re.DOTALL,
)
CODE_SPAN = re.compile(r"```.*?```|`[^`\n]+`", re.DOTALL)
NUMBER = re.compile(
    r"(?<![\w.^])(\d+)\^(\d+)(?![\w.])"  # 2^13
    r"|(?<![\w.])(\d+(?:\.\d+)?[eE][-+]?\d+)"  # 7e-5
    r"|(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
)  # 1,555 / 0.22 / 42
# Unit scales between a JSON value and the README: same unit, fraction -> %, s -> ms, ms -> s, bytes -> KiB /
# MiB / GiB, bytes -> kB / MB / GB.
SCALES = (1.0, 100.0, 1e3, 1e-3, 2.0**-10, 2.0**-20, 2.0**-30, 1e-6, 1e-9)


@dataclass
class Figure:
    """One bold figure: where it is, its text, the numbers in it and its optional source marker."""

    line: int
    text: str
    numbers: list[tuple[float, int]]  # (value, decimals shown)
    source: str | None


def parse_numbers(text: str) -> list[tuple[float, int]]:
    """The numbers written in ``text``, each as (value, decimals shown)."""
    out = []
    for m in NUMBER.finditer(text):
        if m.group(1):
            out.append((float(int(m.group(1)) ** int(m.group(2))), 0))
        elif m.group(3):
            mantissa = m.group(3).lower().split("e")[0]
            decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
            exponent = int(m.group(3).lower().split("e")[1])
            out.append((float(m.group(3)), max(decimals - exponent, 0)))
        else:
            raw = m.group(4).replace(",", "")
            out.append((float(raw), len(raw.split(".")[1]) if "." in raw else 0))
    return out


def find_figures(readme: str) -> list[Figure]:
    """Every bold span containing a digit, with its line number (1-based); code is not searched."""
    figures = []
    # Code is masked with the same number of non-space characters, so offsets and lines stay put.
    masked = CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", "_", m.group(0)), readme)
    for m in BOLD.finditer(masked):
        if not re.search(r"\d", m.group(1)):
            continue
        line = masked.count("\n", 0, m.start()) + 1
        shown = readme[m.start(1) : m.end(1)]
        figures.append(Figure(line, " ".join(shown.split()), parse_numbers(m.group(1)), m.group("src")))
    return figures


def json_numbers(value: Any) -> Iterator[float]:
    """Every number in a JSON value (booleans excluded), and integers written as strings or keys."""
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        if math.isfinite(value):
            yield float(value)
    elif isinstance(value, str):
        if re.fullmatch(r"\d+", value):
            yield float(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from json_numbers(key)
            yield from json_numbers(item)
    elif isinstance(value, list):
        for item in value:
            yield from json_numbers(item)


def matches(value: float, decimals: int, candidates: list[float]) -> bool:
    """Whether some candidate, at some unit scale, rounds to ``value`` at ``decimals`` decimals."""
    tolerance = 0.5 * 10.0**-decimals + 1e-9 * max(abs(value), 1.0)
    return any(abs(x * s - value) <= tolerance for x in candidates for s in SCALES)


def select(data: Any, key_path: str) -> Any:
    """``data`` at a dotted key path (``a.b.0.c``); raises KeyError naming the missing key."""
    for key in filter(None, key_path.split(".")):
        if isinstance(data, list) and key.lstrip("-").isdigit():
            data = data[int(key)]
        elif isinstance(data, dict) and key in data:
            data = data[key]
        else:
            raise KeyError(f"no key {key!r} on the path {key_path!r}")
    return data


def load_results(results_dir: Path) -> dict[str, Any]:
    """Every JSON file under ``results_dir``, by path relative to it."""
    out = {}
    for path in sorted(results_dir.rglob("*.json")):
        out[path.relative_to(results_dir).as_posix()] = json.loads(path.read_text(encoding="utf-8"))
    return out


def check_figure(fig: Figure, results: dict[str, Any]) -> dict[str, Any]:
    """``{"file": ...}`` naming the backing source, or ``{"why": ...}`` when the figure is unmatched."""
    if not fig.source:
        return {"why": "no source: add <!-- source: FILE.json#key.path --> right after the closing **"}
    name, _, key_path = fig.source.partition("#")
    if name not in results:
        return {"why": f"source {name!r} is not a JSON file under the results directory"}
    try:
        data = select(results[name], key_path)
    except (KeyError, IndexError) as e:
        return {"why": f"source {fig.source!r}: {e}"}
    candidates = list(json_numbers(data))
    missing = [v for v, d in fig.numbers if not matches(v, d, candidates)]
    if missing:
        return {"why": f"{fig.source} does not hold {missing}"}
    return {"file": fig.source}


def check(readme_path: Path, results_dir: Path) -> dict[str, Any]:
    """The report: counts, the backing file of each matched figure, and the unmatched figures."""
    results = load_results(results_dir)
    figures = find_figures(readme_path.read_text(encoding="utf-8"))
    matched, unmatched = [], []
    for fig in figures:
        verdict = check_figure(fig, results)
        row = {"line": fig.line, "figure": fig.text}
        if "file" in verdict:
            matched.append({**row, "file": verdict["file"]})
        else:
            unmatched.append({**row, "numbers": [v for v, _ in fig.numbers], "why": verdict["why"]})
    return {
        "readme": str(readme_path),
        "results": str(results_dir),
        "figures": len(figures),
        "matched": len(matched),
        "unmatched_count": len(unmatched),
        "unmatched": unmatched,
        "sources": matched,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--readme", type=Path, default=ROOT / "README.md")
    parser.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args(argv)
    report = check(args.readme, args.results)
    print(json.dumps(report, indent=2))
    return 1 if report["unmatched"] else 0


if __name__ == "__main__":
    sys.exit(main())
