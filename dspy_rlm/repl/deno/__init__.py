"""dspy's Deno + Pyodide ``PythonInterpreter``, runnable offline, without touching site-packages.

dspy 3.4.1's ``dspy/primitives/runner.js`` has two remote imports:

* ``npm:pyodide@0.29.4/pyodide.js`` - Deno fetches it from the npm registry (``NPM_CONFIG_REGISTRY``,
  else the registry npm is configured with, else https://registry.npmjs.org/), which is reachable here;
* ``https://deno.land/std@0.186.0/io/mod.ts``, used only for ``readLines`` - deno.land is not. An import
  map (``import_map.json``) points that URL at ``std_io_shim.ts``, a local ``readLines`` with std's contract.

:class:`OfflinePythonInterpreter` is dspy's ``PythonInterpreter`` with the same default command (same
permissions, version check and environment) plus ``--import-map``; pass it as
``dspy.RLM(..., interpreter_factory=OfflinePythonInterpreter)``. :func:`prefetch` fills Deno's cache
(``deno cache``) so that a timed run does not include the download. Needs ``deno`` (``pip install deno``,
the ``bench`` extra, or on PATH).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import MutableMapping

HERE = os.path.dirname(os.path.abspath(__file__))
IMPORT_MAP = os.path.join(HERE, "import_map.json")
DEFAULT_REGISTRY = "https://registry.npmjs.org/"

try:
    from dspy.primitives.python_interpreter import PythonInterpreter
except ImportError:  # pragma: no cover - dspy without the Deno interpreter
    PythonInterpreter = None


def npm_registry() -> str:
    """The npm registry Deno should use: ``NPM_CONFIG_REGISTRY``, else npm's own setting, else the default."""
    if os.environ.get("NPM_CONFIG_REGISTRY"):
        return os.environ["NPM_CONFIG_REGISTRY"]
    for rc in (os.path.join(os.getcwd(), ".npmrc"), os.path.expanduser("~/.npmrc")):
        try:
            with open(rc, encoding="utf-8") as f:
                for line in f:
                    key, _, value = line.partition("=")
                    if key.strip() == "registry" and value.strip():
                        return value.strip()
        except OSError:
            continue
    return DEFAULT_REGISTRY


def configure_env(env: MutableMapping[str, str] | None = None) -> MutableMapping[str, str]:
    """Set what Deno needs for the offline run in ``env`` (default ``os.environ``) and return it."""
    target: MutableMapping[str, str] = os.environ if env is None else env
    target.setdefault("NPM_CONFIG_REGISTRY", npm_registry())
    return target


def deno_executable() -> str | None:
    """The deno binary dspy would use, or ``None`` when there is none."""
    try:
        from dspy.primitives.python_interpreter import _find_deno_executable

        exe = _find_deno_executable()
    except ImportError:
        exe = "deno"
    return exe if (os.path.isfile(exe) or shutil.which(exe)) else None


def runner_path() -> str:
    """dspy's ``runner.js`` (in site-packages; read, never modified)."""
    import dspy.primitives.python_interpreter as pi

    return os.path.join(os.path.dirname(os.path.abspath(pi.__file__)), "runner.js")


def prefetch(timeout: float = 300.0) -> tuple[bool, str]:
    """``deno cache`` dspy's runner with the import map (downloads Pyodide from npm once). (ok, message)."""
    exe = deno_executable()
    if exe is None:
        return False, "deno is not installed"
    env = configure_env(dict(os.environ))
    env["DENO_NO_PACKAGE_JSON"] = "1"
    cmd = [
        exe,
        "cache",
        "--no-config",
        "--no-lock",
        "--node-modules-dir=false",
        f"--import-map={IMPORT_MAP}",
        runner_path(),
    ]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return False, f"deno cache timed out after {timeout:.0f} s"
    if proc.returncode != 0:
        return False, (proc.stderr.strip().splitlines() or ["deno cache failed"])[-1][:300]
    return True, "ok"


if PythonInterpreter is not None:

    class OfflinePythonInterpreter(PythonInterpreter):
        """dspy's ``PythonInterpreter``, its default Deno command plus ``--import-map`` (see module doc)."""

        def __init__(self, *args, **kwargs):
            configure_env()
            super().__init__(*args, **kwargs)
            if self._uses_default_deno_command and not any(a.startswith("--import-map") for a in self.deno_command):
                self.deno_command.insert(self.deno_command.index("run") + 1, f"--import-map={IMPORT_MAP}")
else:  # pragma: no cover
    OfflinePythonInterpreter = None  # type: ignore[assignment,misc]
