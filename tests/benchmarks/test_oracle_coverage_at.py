"""``python -m benchmarks.oracle_coverage --at COMMIT`` measures a probe's coverage with the library of a given
commit (a temporary git worktree, removed after), as :mod:`benchmarks.first_contact`'s ceiling needs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from benchmarks.oracle_coverage import main

ROOT = Path(__file__).resolve().parents[2]
TABLE = "host,owner,port\nhost-1,Ada Quill,22\nhost-2,Bo Tern,8080\nhost-3,Cy Marsh,443\n"


def _worktrees() -> list[str]:
    listed = subprocess.run(["git", "-C", str(ROOT), "worktree", "list"], capture_output=True, text=True, check=True)
    return listed.stdout.splitlines()


def test_coverage_at_a_commit_is_measured_in_a_worktree_that_is_removed(tmp_path: Path) -> None:
    data = tmp_path / "hosts.csv"
    data.write_text(TABLE)
    case = {"file": str(data), "question": "Who owns host-2?", "type": "str", "gold": "Bo Tern", "kind": "lookup"}
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps([case, case | {"question": "Who owns host-3?", "gold": "Nobody"}]))
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    before = _worktrees()
    result = main(["--cases", str(cases), "--at", "HEAD", "--out", str(tmp_path / "out.json")])
    assert result["commit"] == head.stdout.strip()[:7]
    assert result["n"] == 2 and sorted(result["covered_ids"].values()) == [False, True]
    assert json.loads((tmp_path / "out.json").read_text())["commit"] == result["commit"]
    assert _worktrees() == before  # the temporary worktree is gone


def test_an_unknown_commit_is_a_clear_error(tmp_path: Path) -> None:
    cases = tmp_path / "cases.json"
    cases.write_text("[]")
    with pytest.raises(SystemExit, match="no such commit"):
        main(["--cases", str(cases), "--at", "0123456789abcdef0123456789abcdef01234567"])
