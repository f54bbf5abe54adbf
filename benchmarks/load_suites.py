"""The containment figures beside the load figures of :mod:`benchmarks.load`: the escape, fault and fuzz test
suites, each run by pytest in a subprocess and counted from its JUnit XML, and the isolation level the sandbox
reached on this machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from dspy_rlm.sandbox.backend import SubprocessREPL

ROOT = Path(__file__).resolve().parents[1]


def _pytest(paths: list[str], env: dict[str, str] | None = None, timeout: float = 900) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "junit.xml"
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={xml}", *paths],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "CI": "true", **(env or {})},
        )
        cases = []
        for case in ET.parse(xml).getroot().iter("testcase"):
            outcome = "passed"
            for child in case:
                if child.tag in ("failure", "error"):
                    outcome = "failed"
                elif child.tag == "skipped":
                    outcome = (
                        "xfailed" if "xfail" in (child.get("type") or "") + (child.get("message") or "") else "skipped"
                    )
            cases.append((case.get("name"), outcome))
    counts = {k: sum(o == k for _, o in cases) for k in ("passed", "failed", "xfailed", "skipped")}
    return {"returncode": proc.returncode, "wall_s": round(time.perf_counter() - t0, 1), **counts, "cases": cases}


def escape_suite() -> dict[str, Any]:
    res = _pytest(["tests/dspy_rlm/test_escape.py"])
    contained = [name for name, o in res["cases"] if o == "passed" and name.startswith("test_escape_is_contained")]
    not_run = [name for name, o in res["cases"] if o == "xfailed"]
    total = [name for name, _ in res["cases"] if name.startswith("test_escape_is_contained")]
    return {
        "contained": len(contained),
        "of": len(total),
        "xfailed_not_run": not_run,
        "cases": [name.split("[", 1)[-1].rstrip("]") for name in contained],
        "other_tests": {k: res[k] for k in ("passed", "failed", "xfailed")},
        "wall_s": res["wall_s"],
    }


def fault_suite() -> dict[str, Any]:
    res = _pytest(["tests/dspy_rlm/test_faults.py"])
    return {
        "typed_endings": res["passed"],
        "of": len(res["cases"]),
        "failed": res["failed"],
        "cases": [name for name, _ in res["cases"]],
        "wall_s": res["wall_s"],
    }


def fuzz_suite() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        stats = Path(tmp) / "fuzz.json"
        res = _pytest(["tests/fuzz"], env={"FUZZ_STATS": str(stats), "HYPOTHESIS_PROFILE": "ci"})
        examples = json.loads(stats.read_text()) if stats.exists() else {}
    return {
        "profile": examples.get("profile"),
        "examples_per_target": examples.get("examples", {}),
        "unhandled_exceptions": res["failed"],
        "known_bugs_xfail": res["xfailed"],
        "passed": res["passed"],
        "wall_s": res["wall_s"],
    }


def isolation_level() -> dict[str, Any]:
    with SubprocessREPL() as repl:
        repl.run("1")
        return {
            "isolation": repl.isolation,
            "repr": repr(repl),
            **{k: v for k, v in repl.isolation_info.items() if k not in ("scratch", "host_scratch")},
        }
