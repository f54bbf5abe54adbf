"""The lock (requirements/lock-*.txt, written by scripts/lock.sh) and pyproject.toml agree: every requirement of
what setup.sh installs from it is met by the locked version, and every exact pin in pyproject is the lock's."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parent.parent
LOCKS = sorted((ROOT / "requirements").glob("lock-*.txt"))
#: The lock CI installs from (.ci/run runs on Linux x86_64, Python 3.11).
CI_LOCK = ROOT / "requirements" / "lock-linux-x86_64-py3.11.txt"
#: The extras `setup.sh mlx,dev` installs (dev adds bench and embed), the ones scripts/lock.sh freezes.
LOCKED_EXTRAS = ("mlx", "dev", "bench", "embed")
LOCK_NAME = re.compile(r"lock-(?P<os>[a-z]+)-(?P<machine>[\w]+)-py(?P<python>\d+\.\d+)\.txt")


def _pins(lock: Path) -> dict[str, str]:
    pins = {}
    for line in lock.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        assert sep, f"{lock.name}: {line!r} is not name==version"
        pins[canonicalize_name(name)] = version
    return pins


def _environment(lock: Path) -> dict[str, str]:
    match = LOCK_NAME.fullmatch(lock.name)
    assert match, f"{lock.name} is not named lock-<os>-<machine>-py<X.Y>.txt"
    system = {"linux": "Linux", "darwin": "Darwin", "windows": "Windows"}[match["os"]]
    return {
        "sys_platform": "win32" if system == "Windows" else match["os"],
        "platform_system": system,
        "platform_machine": match["machine"],
        "python_version": match["python"],
        "python_full_version": match["python"] + ".0",
        "os_name": "nt" if system == "Windows" else "posix",
    }


def _requirements() -> list[tuple[str, Requirement]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = [("dependencies", Requirement(text)) for text in project["dependencies"]]
    for extra in LOCKED_EXTRAS:
        found += [(f"[{extra}]", Requirement(text)) for text in project["optional-dependencies"][extra]]
    return found


def test_ci_platform_has_a_lock():
    assert CI_LOCK.exists(), "CI installs from this lock: write it with bash scripts/lock.sh on Linux x86_64, 3.11"


@pytest.mark.parametrize("lock", LOCKS, ids=[lock.name for lock in LOCKS])
def test_every_requirement_of_pyproject_is_met_by_the_lock(lock):
    pins, environment = _pins(lock), _environment(lock)
    wrong = []
    for where, requirement in _requirements():
        extra = where.strip("[]") if where.startswith("[") else ""
        if requirement.marker is not None and not requirement.marker.evaluate({**environment, "extra": extra}):
            continue
        version = pins.get(canonicalize_name(requirement.name))
        if version is None:
            wrong.append(f"{where} {requirement}: not in the lock")
        elif not requirement.specifier.contains(version, prereleases=True):
            wrong.append(f"{where} {requirement}: the lock has {version}")
    assert not wrong, f"{lock.name} and pyproject.toml disagree (refresh: bash scripts/lock.sh):\n" + "\n".join(wrong)


@pytest.mark.parametrize("lock", LOCKS, ids=[lock.name for lock in LOCKS])
def test_exact_pins_of_pyproject_are_the_locks(lock):
    pins = _pins(lock)
    for _, requirement in _requirements():
        exact = [spec.version for spec in requirement.specifier if spec.operator == "=="]
        if exact:
            assert pins.get(canonicalize_name(requirement.name)) == exact[0], requirement


@pytest.mark.parametrize("lock", LOCKS, ids=[lock.name for lock in LOCKS])
def test_the_lock_leaves_the_project_out(lock):
    assert "dspy-rlm" not in _pins(lock), "the project is installed editable from the clone, never from the lock"
