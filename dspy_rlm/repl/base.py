"""The REPL backend protocol and the typed results every backend returns.

A backend has DSPy's ``CodeInterpreter`` shape (``tools``, ``start``, ``execute``, ``shutdown``) so
DSPy's own interpreters plug in unchanged. Our native backends add ``run(code) -> ExecResult``, a typed
result with stdout, a structured error and the final answer, and ``load_inputs`` to place the inputs in
the REPL once per run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

FinalKind = Literal["submit", "final_direct", "final_var"]


class FinalSignal(BaseException):
    """Raised inside model code by SUBMIT / FINAL / FINAL_VAR.

    Derived from ``BaseException`` so the model's own ``except Exception:`` cannot swallow it.
    """

    def __init__(self, kind: FinalKind, value: Any, name: str | None = None):
        super().__init__(kind)
        self.kind = kind
        self.value = value
        self.name = name


class BlockTimeout(BaseException):
    """Raised inside a block that ran past its wall-time limit (not an Exception: user code cannot catch it)."""


@dataclass
class ErrorInfo:
    """A failure of one code block, structured for the model and the trace."""

    type: str
    message: str
    line: int | None = None
    source_line: str | None = None
    traceback: str = ""
    recoverable: bool = True
    worker_restarted: bool = False

    def format_for_model(self) -> str:
        where = f" at line {self.line}" if self.line else ""
        text = f"{self.type}{where}: {self.message}"
        if self.source_line:
            text += f"\n    {self.line} | {self.source_line.strip()}"
        return text

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class FinalAnswer:
    """A final answer given from inside code."""

    kind: FinalKind
    value: Any
    name: str | None = None  # the variable name, for FINAL_VAR


@dataclass
class ExecResult:
    """What running one block produced."""

    stdout: str = ""
    error: ErrorInfo | None = None
    final: FinalAnswer | None = None
    duration_s: float = 0.0
    truncated_chars: int = 0
    restarted: bool = False
    lost_variables: list[str] = field(default_factory=list)
    user_variables: list[str] = field(default_factory=list)
    rebound_inputs: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None


def to_dspy_result(result: ExecResult) -> Any:
    """Map a typed result onto DSPy's ``CodeInterpreter.execute`` contract (value, FinalOutput, or raise)."""
    from dspy.primitives.code_interpreter import CodeExecutionError, FinalOutput

    if result.final is not None:
        return FinalOutput(result.final.value)
    if result.error is not None:
        if result.error.type == "SyntaxError":
            raise SyntaxError(result.error.format_for_model())
        raise CodeExecutionError(result.error.format_for_model())
    return result.stdout or None


#: Optional capabilities a REPL declares in its ``capabilities`` attribute (dispatch reads them, never hasattr).
VARIABLES = "variables"  # dump_variables() / load_variables(blobs): checkpoints restore the model's variables
REBIND = "rebind_inputs"  # rebind_inputs(inputs): a session's next call binds new inputs, keeping the variables
HELPER_STYLE = "helper_style"  # honours ``helper_style`` ("default" / "lines") for how helpers print


@runtime_checkable
class REPL(Protocol):
    """What the run loop drives: our backends implement it, foreign interpreters are wrapped into it
    (:class:`~dspy_rlm.repl.foreign.ForeignREPL`) at the boundary (:func:`dspy_rlm.repl.backends.adopt`)."""

    capabilities: frozenset[str]
    output_fields: list[str]
    execution_instructions: str

    @property
    def tools(self) -> dict[str, Callable[..., Any]]: ...

    def load_inputs(self, inputs: dict[str, Any]) -> None: ...

    def start(self) -> None: ...

    def run(self, code: str) -> ExecResult: ...

    def snapshot(self, max_chars_per_var: int = 2_000, max_vars: int = 40) -> dict[str, str]: ...

    def shutdown(self) -> None: ...


@runtime_checkable
class RestoresVariables(Protocol):
    """The :data:`VARIABLES` capability."""

    def dump_variables(self) -> dict[str, Any]: ...

    def load_variables(self, blobs: dict[str, bytes]) -> dict[str, Any]: ...


@runtime_checkable
class RebindsInputs(Protocol):
    """The :data:`REBIND` capability (sessions, :mod:`dspy_rlm.session`)."""

    def rebind_inputs(self, inputs: dict[str, Any]) -> None: ...
