"""The defaults several modules share, spelled once (no imports: the sandbox worker reads them too).

The REPL's limits: a run's configuration (:class:`dspy_rlm.config.REPLSettings`) and each backend's own defaults
(the subprocess sandbox, its worker, the in-process REPL, the namespace executor) read them from here.
"""

from __future__ import annotations

__all__ = ["MAX_OUTPUT_CHARS", "REPL_MEMORY_MB", "REPL_TIMEOUT_S"]

#: Seconds one REPL block may run (``RLM(repl_timeout=...)``).
REPL_TIMEOUT_S = 30.0
#: The sandbox's address-space cap in MiB (``RLM(repl_memory_mb=...)``).
REPL_MEMORY_MB = 4096
#: Characters of a block's output shown to the model; the rest is cut with a note.
MAX_OUTPUT_CHARS = 10_000
