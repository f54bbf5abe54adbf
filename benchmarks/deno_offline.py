"""dspy's Deno + Pyodide interpreter run offline: moved to :mod:`dspy_rlm.repl.deno` (the sandbox's fallback
where the kernel refuses user namespaces and Landlock); the benchmarks keep importing it from here."""

from dspy_rlm.repl.deno import (
    IMPORT_MAP,
    OfflinePythonInterpreter,
    configure_env,
    deno_executable,
    npm_registry,
    os,
    prefetch,
    runner_path,
    shutil,
)

__all__ = [
    "IMPORT_MAP",
    "OfflinePythonInterpreter",
    "configure_env",
    "deno_executable",
    "npm_registry",
    "os",
    "prefetch",
    "runner_path",
    "shutil",
]
