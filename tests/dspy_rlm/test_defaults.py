"""The REPL defaults shared by several modules come from dspy_rlm.defaults: the run configuration and every
backend agree, and no module spells one of them again."""

from __future__ import annotations

import inspect
import pathlib
import re

from dspy_rlm import defaults, names
from dspy_rlm.config import REPLSettings
from dspy_rlm.repl.executor import NamespaceExecutor
from dspy_rlm.repl.inprocess import InProcessREPL
from dspy_rlm.sandbox.backend import SubprocessREPL

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "dspy_rlm"


def _defaults(cls: type) -> dict[str, object]:
    return {k: p.default for k, p in inspect.signature(cls).parameters.items() if p.default is not p.empty}


def test_the_configuration_and_every_backend_take_the_shared_defaults():
    settings = REPLSettings()
    assert (settings.timeout_s, settings.memory_mb, settings.max_output_chars) == (
        defaults.REPL_TIMEOUT_S,
        defaults.REPL_MEMORY_MB,
        defaults.MAX_OUTPUT_CHARS,
    )
    subprocess_repl, inprocess = _defaults(SubprocessREPL), _defaults(InProcessREPL)
    assert (subprocess_repl["timeout_s"], subprocess_repl["memory_mb"]) == (
        defaults.REPL_TIMEOUT_S,
        defaults.REPL_MEMORY_MB,
    )
    assert inprocess["timeout_s"] == defaults.REPL_TIMEOUT_S
    for cls in (SubprocessREPL, InProcessREPL, NamespaceExecutor):
        assert _defaults(cls)["max_output_chars"] == defaults.MAX_OUTPUT_CHARS, cls


def test_no_module_spells_a_shared_default_again():
    spelled = re.compile(r"\b(10_000|4096)\b|timeout\w*\W[^=]*=\s*30\.0\b|[\"']llm_query[\"']", re.IGNORECASE)
    found = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "defaults.py" or path.relative_to(PACKAGE).as_posix() == "names.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if spelled.search(code) and "_MS_" not in code:  # rootfs.py: MS_BIND is 4096, a mount flag
                found.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}")
    assert not found, found
    assert names.LLM_BRIDGES[0] == names.LLM_QUERY
