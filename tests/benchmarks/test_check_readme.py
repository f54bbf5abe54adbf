"""benchmarks/check_readme.py: every bold figure in the README is found in the results file it names."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import check_readme

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"


def _run(readme: Path, results: Path = RESULTS) -> tuple[int, dict]:
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "check_readme.py"),
            "--readme",
            str(readme),
            "--results",
            str(results),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return proc.returncode, json.loads(proc.stdout)


def test_the_readme_passes():
    rc, report = _run(ROOT / "README.md")
    assert report["unmatched"] == [] and rc == 0, json.dumps(report["unmatched"], indent=2)
    assert report["figures"] >= 20 and report["matched"] == report["figures"]


def test_a_made_up_bold_number_fails(tmp_path):
    readme = tmp_path / "README.md"
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    made_up = (
        "\n\n**6 parallel calls**<!-- source: concurrency.json#default_max_concurrency --> by default, "
        "**480 tok/s** on a CPU.\n"
    )
    readme.write_text(text + made_up, encoding="utf-8")
    rc, report = _run(readme)
    assert rc == 1
    assert [(u["figure"], u["numbers"]) for u in report["unmatched"]] == [
        ("6 parallel calls", [6.0]),
        ("480 tok/s", [480.0]),
    ]
    assert "does not hold [6.0]" in report["unmatched"][0]["why"] and "no source" in report["unmatched"][1]["why"]


@pytest.mark.parametrize(
    "line, why",
    [
        ("**42 tok/s**", "no source"),
        ("**1.05x**<!-- source: nowhere.json -->", "is not a JSON file"),
        ("**1.05x**<!-- source: r.json#missing.key -->", "no key 'missing'"),
    ],
)
def test_a_figure_without_a_usable_source_fails(tmp_path, line, why):
    (tmp_path / "r.json").write_text(json.dumps({"ratio": 1.048}))
    (tmp_path / "README.md").write_text(f"# x\n\nA figure: {line}\n")
    rc, report = _run(tmp_path / "README.md", tmp_path)
    assert rc == 1 and why in report["unmatched"][0]["why"] and report["unmatched"][0]["line"] == 3


def test_matching_rule_rounding_units_and_key_paths(tmp_path):
    results = tmp_path / "results"
    (results / "sub").mkdir(parents=True)
    (results / "sub" / "r.json").write_text(
        json.dumps(
            {
                "a": {"ratio": 1.048, "seconds": 0.00217, "share": 0.9667, "bytes": 4404019, "sizes": {"262144": True}},
                "b": {"ratio": 2.0},
            }
        )
    )
    ok = [
        "**1.05x**<!-- source: sub/r.json#a.ratio -->",  # rounding at the shown precision
        "**2.17 ms**<!-- source: sub/r.json#a -->",  # s -> ms
        "**97%**<!-- source: sub/r.json#a.share -->",  # fraction -> %
        "**4.2 MB**<!-- source: sub/r.json#a.bytes -->",  # bytes -> MiB
        "**2^18 tokens**<!-- source: sub/r.json#a.sizes -->",  # 2^18 = 262144, an integer key
        "**Every run ends typed**",  # no digit: not a figure
        "`**9 in code**`",
    ]  # code is not searched
    bad = [
        "**1.1x**<!-- source: sub/r.json#a.ratio -->",  # 1.048 is 1.0 at one decimal
        "**2.0x / 1.05x**<!-- source: sub/r.json#b -->",
    ]  # all numbers from the one source
    readme = tmp_path / "README.md"
    readme.write_text("\n\n".join(ok + bad) + "\n")
    report = check_readme.check(readme, results)
    assert report["figures"] == 7 and report["matched"] == 5
    assert [u["figure"] for u in report["unmatched"]] == ["1.1x", "2.0x / 1.05x"]


def test_numbers_are_parsed_with_their_precision():
    assert check_readme.parse_numbers("1,555 / 0.011 s, 2^13, 7e-5, 97%") == [
        (1555.0, 0),
        (0.011, 3),
        (8192.0, 0),
        (7e-5, 5),
        (97.0, 0),
    ]


def test_main_prints_json_and_exits_nonzero_on_unmatched(tmp_path, capsys):
    shutil.copy(RESULTS / "concurrency.json", tmp_path / "concurrency.json")
    (tmp_path / "README.md").write_text("**9.99x**<!-- source: concurrency.json -->\n")
    assert check_readme.main(["--readme", str(tmp_path / "README.md"), "--results", str(tmp_path)]) == 1
    assert json.loads(capsys.readouterr().out)["unmatched_count"] == 1
