"""REPL backends by name, and where a run's REPL comes from.

Names: ``"subprocess"`` (:class:`~dspy_rlm.sandbox.backend.SubprocessREPL`, isolated worker process),
``"unsandboxed"`` (the same worker with ``isolation="none"``: your own rights, guard rails only),
``"inprocess"`` (:class:`~dspy_rlm.repl.inprocess.InProcessREPL`, no isolation, for trusted code and tests),
``"dspy-local"`` (dspy's ``LocalInterpreter``) and ``"dspy-deno"`` (dspy's Deno/Pyodide
``PythonInterpreter``, runnable offline). :func:`register_backend` adds more. A run that names none gets the
strongest sandbox the machine allows (:func:`dspy_rlm.sandbox.choose.choose`): ``"subprocess"`` where the
kernel lets it confine the worker, else ``"dspy-deno"`` where Deno is installed, else an error.
Anything with DSPy's CodeInterpreter shape
(``tools``, ``start``, ``execute``, ``shutdown``) is wrapped into the :class:`~dspy_rlm.repl.base.REPL`
protocol at this boundary by :func:`adopt`; inside the run every REPL is a ``REPL``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dspy_rlm.repl.base import REPL

if TYPE_CHECKING:
    from dspy_rlm.config import REPLSettings

_BACKENDS: dict[str, str | Callable[..., Any]] = {
    "subprocess": "dspy_rlm.sandbox.backend:SubprocessREPL",
    "unsandboxed": "dspy_rlm.sandbox.backend:SubprocessREPL",
    "inprocess": "dspy_rlm.repl.inprocess:InProcessREPL",
    "dspy-local": "dspy.primitives.local_interpreter:LocalInterpreter",
    "dspy-deno": "dspy_rlm.repl.deno:OfflinePythonInterpreter",
}
#: Backends that take our settings (timeout_s, memory_mb, max_output_chars) as constructor keywords.
_OURS = frozenset({"subprocess", "unsandboxed", "inprocess"})


def backend_names() -> list[str]:
    return sorted(_BACKENDS)


def register_backend(name: str, factory: Callable[[], Any]) -> None:
    """Make ``RLM(..., repl=name)`` create its REPL with ``factory()`` (a zero-argument callable)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"a backend name must be a non-empty string, got {name!r}")
    check_factory(factory)
    _BACKENDS[name] = factory


def backend_factory(name: str, settings: REPLSettings | None = None) -> Callable[[], Any]:
    """The zero-argument factory for backend ``name`` (our backends get ``settings``' limits)."""
    target = _BACKENDS.get(name)
    if target is None:
        raise ValueError(f"unknown REPL backend {name!r}; known: {backend_names()} (or register_backend())")
    if not isinstance(target, str):
        return target
    module, _, attr = target.partition(":")
    cls = getattr(importlib.import_module(module), attr)
    if name in _OURS and settings is not None:
        options: dict[str, Any] = {"timeout_s": settings.timeout_s, "max_output_chars": settings.max_output_chars}
        if name != "inprocess":  # the in-process backend has no memory cap
            options["memory_mb"] = settings.memory_mb
        if name == "unsandboxed":
            options["isolation"] = "none"
        return lambda: cls(**options)
    return cls


def execution_instructions(source: Any) -> str:
    """The ``execution_instructions`` string of a backend (class, factory or instance); ``""`` when none."""
    text = getattr(source, "execution_instructions", "")
    if not isinstance(text, str):
        raise TypeError("interpreter_factory.execution_instructions must be a string")
    return text


def default_source(settings: REPLSettings) -> Any:
    """What a run's REPL will be made from when the call names none (for the prompt's runtime text)."""
    if settings.interpreter is not None:
        return settings.interpreter
    if settings.factory is not None:
        return settings.factory
    if settings.backend is not None:
        target = _BACKENDS.get(settings.backend)
        if isinstance(target, str):
            module, _, attr = target.partition(":")
            return getattr(importlib.import_module(module), attr)
        return target
    return configured_factory() or backend_factory(_strongest())


def make_repl(
    settings: REPLSettings,
    output_fields: list[str],
    bridges: dict[str, Callable[..., Any]],
    interpreter: Any = None,
    factory: Callable[[], Any] | None = None,
) -> tuple[REPL, bool]:
    """The run's REPL and whether the run owns it (and shuts it down).

    Precedence: call-time instance > call-time factory > configured instance > configured factory or
    backend name > ``dspy.settings.interpreter_factory`` > the ``"subprocess"`` backend.
    """
    if interpreter is not None:
        return adopt(interpreter, output_fields, bridges), False
    if factory is not None:
        return adopt(factory(), output_fields, bridges), True
    if settings.interpreter is not None:
        return adopt(settings.interpreter, output_fields, bridges), False
    chosen = settings.factory
    if chosen is None and settings.backend is not None:
        chosen = backend_factory(settings.backend, settings)
    if chosen is None:
        chosen = configured_factory() or backend_factory(_strongest(), settings)
    return adopt(chosen(), output_fields, bridges), True


def _strongest() -> str:
    """The backend of a run that names none: the strongest sandbox here (raises SandboxUnavailable if none)."""
    from dspy_rlm.sandbox.choose import choose

    return {"subprocess": "subprocess", "deno": "dspy-deno"}[choose().backend]


def adopt(repl: Any, output_fields: list[str], bridges: dict[str, Callable[..., Any]]) -> REPL:
    """``repl`` as a :class:`REPL` with the run's host functions and output names installed."""
    if not isinstance(repl, REPL):
        from dspy_rlm.repl.foreign import ForeignREPL

        check_interpreter(repl)
        repl = ForeignREPL(repl, output_fields)
    repl.tools.update(bridges)
    repl.output_fields = list(output_fields)
    return repl


def configured_factory() -> Callable[[], Any] | None:
    """``dspy.settings.interpreter_factory`` unless it is dspy's own default."""
    import dspy
    from dspy.primitives.python_interpreter import PythonInterpreter

    configured = dspy.settings.get("interpreter_factory") if hasattr(dspy.settings, "get") else None
    return None if configured in (None, PythonInterpreter) else configured


def check_factory(factory: Any) -> None:
    if factory is None:
        return
    if not isinstance(factory, type) and hasattr(factory, "execute"):
        raise TypeError(
            "interpreter_factory received an interpreter instance; pass a zero-argument callable "
            "that creates one (e.g. interpreter_factory=LocalInterpreter), or pass the instance as "
            "interpreter=... (you keep ownership)"
        )
    if not callable(factory):
        raise TypeError(f"interpreter_factory must be a zero-argument callable, not {type(factory).__name__}")


def check_interpreter(interpreter: Any) -> None:
    if interpreter is None:
        return
    missing = [m for m in ("tools", "start", "execute", "shutdown") if not hasattr(interpreter, m)]
    if missing:
        raise TypeError(
            f"interpreter must have DSPy's CodeInterpreter shape (tools, start, execute, shutdown); "
            f"{type(interpreter).__name__} lacks {missing}"
        )
