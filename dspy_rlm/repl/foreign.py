"""Drive any object with DSPy's CodeInterpreter shape (``tools``, ``start``, ``execute``, ``shutdown``).

DSPy's own ``PythonInterpreter`` (Deno/Pyodide) and ``LocalInterpreter`` plug in through this wrapper. Such
interpreters take the inputs as ``variables=`` on every ``execute`` call (their cost, not ours), get our
helpers by executing the source of :mod:`dspy_rlm.library.helpers`, and FINAL / FINAL_VAR defined on top of
their own SUBMIT.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from dspy_rlm.names import FINAL, FINAL_VAR, LLM_QUERY, SUBMIT
from dspy_rlm.repl.base import ErrorInfo, ExecResult, FinalAnswer

logger = logging.getLogger(__name__)

_FINAL_SETUP = '''
def FINAL(value):
    """FINAL(value): end the run with this value as the (single) output."""
    SUBMIT(value)
'''
_FINAL_VAR_SETUP = '''
def FINAL_VAR(name):
    """FINAL_VAR("name"): end the run with the value of the named variable."""
    if name not in globals():
        raise NameError(f"FINAL_VAR: no variable named {name!r}")
    SUBMIT(globals()[name])
'''

_SNAPSHOT_CODE = """
import json as _json
_skip = set(_dspy_rlm_reserved)
print(_json.dumps({_k: (type(_v).__name__ + ": " + repr(_v)[:%d]) for _k, _v in list(globals().items())
                   if not _k.startswith("_") and _k not in _skip and type(_v).__name__ not in ("module", "function")}))
"""


class ForeignREPL:
    """Adapts a DSPy-style CodeInterpreter to our typed ``run`` interface (no optional capabilities)."""

    capabilities: frozenset[str] = frozenset()

    def __init__(self, interpreter: Any, output_fields: list[str], install_helpers: bool = True):
        self.interpreter = interpreter
        self.output_fields = list(output_fields)
        self.install_helpers = install_helpers
        self._inputs: dict[str, Any] = {}
        self._started = False
        self._dead: str | None = None
        self.helper_style = "default"
        self.execution_instructions = getattr(interpreter, "execution_instructions", "")

    @property
    def tools(self) -> dict[str, Any]:
        return self.interpreter.tools

    def load_inputs(self, inputs: dict[str, Any]) -> None:
        self._inputs = dict(inputs)

    def start(self) -> None:
        if self._started:
            return
        self._started = True
        if hasattr(self.interpreter, "output_fields"):
            self.interpreter.output_fields = [{"name": n} for n in self.output_fields]
        if hasattr(self.interpreter, "_tools_registered"):
            self.interpreter._tools_registered = False
        self.interpreter.start()
        taken = {*self.tools, *self._inputs}  # a user tool or input hides our extra of its name (names.py)
        setup = "".join(
            text for name, text in ((FINAL, _FINAL_SETUP), (FINAL_VAR, _FINAL_VAR_SETUP)) if name not in taken
        )
        if self.install_helpers:
            from dspy_rlm.library.helpers import standalone_source

            setup += (
                "\n" + standalone_source() + "\nglobals().update({_k: _f for _k, _f in "
                f"make_helpers(globals().get({LLM_QUERY!r})).items() if _k not in {sorted(taken)!r}}})\n"
            )
        reserved = ["inputs", FINAL, FINAL_VAR, SUBMIT, *self.tools, *self._inputs]
        setup += f"\n_dspy_rlm_reserved = {json.dumps(reserved)}\n"
        try:
            self.interpreter.execute(setup, variables=dict(self._inputs))
        except Exception as exc:  # noqa: BLE001 - a restricted runtime may refuse: run without helpers
            logger.warning("Could not install helpers into %s: %s", type(self.interpreter).__name__, exc)

    def shutdown(self) -> None:
        self.interpreter.shutdown()

    def run(self, code: str) -> ExecResult:
        from dspy.primitives.code_interpreter import CodeExecutionError, CodeInterpreterError, FinalOutput

        t0 = time.perf_counter()
        if self._dead:
            return ExecResult(error=ErrorInfo("SandboxDead", self._dead, recoverable=False))
        self.start()
        try:
            value = self.interpreter.execute(code, variables=dict(self._inputs))
        except SyntaxError as exc:
            return ExecResult(
                error=ErrorInfo("SyntaxError", str(exc), line=getattr(exc, "lineno", None)),
                duration_s=time.perf_counter() - t0,
            )
        except CodeExecutionError as exc:
            etype, _, msg = str(exc).partition(":")
            etype = etype.strip() if etype.strip().isidentifier() else "Error"
            return ExecResult(error=ErrorInfo(etype, msg.strip() or str(exc)), duration_s=time.perf_counter() - t0)
        except CodeInterpreterError as exc:
            self._dead = f"the interpreter failed and cannot continue: {exc}"
            return ExecResult(
                error=ErrorInfo("SandboxDead", self._dead, recoverable=False), duration_s=time.perf_counter() - t0
            )
        elapsed = time.perf_counter() - t0
        if isinstance(value, FinalOutput):
            out = value.output
            if not isinstance(out, dict) and len(self.output_fields) == 1:
                out = {self.output_fields[0]: out}
            return ExecResult(final=FinalAnswer("submit", out), duration_s=elapsed)
        if isinstance(value, list):
            value = "\n".join(map(str, value))
        return ExecResult(stdout="" if value is None else str(value), duration_s=elapsed)

    def snapshot(self, max_chars_per_var: int = 2_000, max_vars: int = 40) -> dict[str, str]:
        result = self.run(_SNAPSHOT_CODE % max_chars_per_var)
        try:
            data = json.loads(result.stdout.strip().splitlines()[-1]) if result.ok and result.stdout else {}
        except (ValueError, IndexError):
            return {}
        return dict(list(data.items())[-max_vars:])
