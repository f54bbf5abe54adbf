"""Run model code against one namespace: the logic every native backend shares.

The subprocess worker and the in-process backend both own a :class:`NamespaceExecutor`; they differ only in
how bridge calls (``llm_query``, user tools, ...) reach the host and how a runaway block is stopped.
"""

from __future__ import annotations

import ast
import builtins
import io
import keyword
import linecache
import pickle
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from dspy_rlm.defaults import MAX_OUTPUT_CHARS
from dspy_rlm.library import helpers as _helpers
from dspy_rlm.names import FINAL, FINAL_VAR, INPUTS_DICT, LLM_QUERY, SUBMIT
from dspy_rlm.repl.base import BlockTimeout, FinalSignal

CODE_FILENAME = "<repl>"


class CappedWriter(io.TextIOBase):
    """A text sink keeping the head and the tail of what is written, counting what was dropped."""

    def __init__(self, limit: int):
        self.limit = max(limit, 200)
        self._head: list[str] = []
        self._head_len = 0
        self._tail = ""
        self.dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        half = self.limit // 2
        if self._head_len < half:
            take = s[: half - self._head_len]
            self._head.append(take)
            self._head_len += len(take)
            s = s[len(take) :]
        if s:
            tail = self._tail + s
            if len(tail) > half:
                self.dropped += len(tail) - half
                tail = tail[-half:]
            self._tail = tail
        return len(s)

    def getvalue(self) -> str:
        head = "".join(self._head)
        if self.dropped:
            return f"{head}\n... ({self.dropped:,} characters of output dropped) ...\n{self._tail}"
        return head + self._tail


def _short_repr(value: Any, limit: int) -> str:
    try:
        text = repr(value) if not isinstance(value, str) else value
    except Exception as exc:  # noqa: BLE001 - a broken __repr__ must not break the snapshot
        text = f"<unrepresentable {type(value).__name__}: {exc}>"
    if len(text) > limit:
        text = text[: limit // 2] + f" ...[{len(text) - limit:,} chars]... " + text[-limit // 2 :]
    return text


def describe_value(value: Any, limit: int = 2_000) -> str:
    """One short line about a value: its type, its size and a capped preview."""
    size = ""
    if isinstance(value, (str, bytes, list, tuple, dict, set, frozenset)):
        size = f", len={len(value):,}"
    return f"{type(value).__name__}{size}: {_short_repr(value, limit)}"


class NamespaceExecutor:
    """Owns the REPL namespace: inputs, helpers, bridges, SUBMIT / FINAL / FINAL_VAR, and block execution.

    Args:
        inputs: The run's inputs. They are bound by reference (never copied) under their names and in
            ``inputs``, so a rebound name stays reachable as ``inputs["name"]``.
        bridges: Host functions callable from code (``llm_query``, user tools, ...), already wrapped for
            the transport in use.
        output_fields: Names of the signature's output fields, in order (for SUBMIT / FINAL).
        max_output_chars: Cap on captured output per block (head and tail are kept).
        helper_style: How helpers print (``"default"`` or ``"lines"``, see ``helpers.make_helpers``).
    """

    def __init__(
        self,
        inputs: dict[str, Any],
        bridges: dict[str, Callable[..., Any]],
        output_fields: list[str],
        max_output_chars: int = MAX_OUTPUT_CHARS,
        helper_style: str = "default",
    ):
        self.output_fields = list(output_fields)
        self.max_output_chars = max_output_chars
        self.helper_style = helper_style
        self.inputs = dict(inputs)
        self.namespace: dict[str, Any] = {"__name__": "__repl__", "__builtins__": builtins}
        llm_query = bridges.get(LLM_QUERY)
        # Later names win: a user tool or input named like a helper, FINAL or `inputs` hides ours (names.py).
        self.namespace.update(_helpers.make_helpers(llm_query, helper_style))
        self.namespace.update({FINAL: self._final, FINAL_VAR: self._final_var, INPUTS_DICT: self.inputs})
        self.namespace.update(bridges)
        self.namespace[SUBMIT] = self._submit
        self.namespace.update(self.inputs)
        self.reserved = frozenset(self.namespace)

    # -- the protocol -----------------------------------------------------------------------------
    def _submit(self, *args: Any, **kwargs: Any) -> None:
        """SUBMIT(field=value, ...): end the run with these outputs (positional values map in field order)."""
        if args:
            if len(args) > len(self.output_fields):
                raise TypeError(
                    f"SUBMIT got {len(args)} positional values for {len(self.output_fields)} output fields "
                    f"{self.output_fields}; use SUBMIT({', '.join(f + '=...' for f in self.output_fields)})"
                )
            if len(args) == 1 and len(self.output_fields) > 1 and isinstance(args[0], dict) and not kwargs:
                kwargs = dict(args[0])
            else:
                kwargs = {**dict(zip(self.output_fields, args)), **kwargs}
        raise FinalSignal("submit", kwargs)

    def _final(self, value: Any = None, /, **fields: Any) -> None:
        """FINAL(value): end the run with this value as the (single) output; FINAL(a=..., b=...) as SUBMIT."""
        if fields:
            self._submit(*(() if value is None else (value,)), **fields)
        if len(self.output_fields) == 1:
            raise FinalSignal("final_direct", {self.output_fields[0]: value})
        if isinstance(value, dict):
            raise FinalSignal("final_direct", dict(value))
        raise TypeError(
            f"FINAL(value) needs a single-output signature; this one has {self.output_fields}. "
            f"Use SUBMIT({', '.join(f + '=...' for f in self.output_fields)})"
        )

    def _final_var(self, name: Any) -> None:
        """FINAL_VAR("name"): end the run with the value of the named REPL variable."""
        if not isinstance(name, str):
            raise TypeError('FINAL_VAR takes the variable NAME as a string, e.g. FINAL_VAR("answer")')
        if name not in self.namespace:
            known = ", ".join(self.user_variables()[:20]) or "none yet"
            raise NameError(f"FINAL_VAR: no variable named {name!r}. Your variables: {known}")
        value = self.namespace[name]
        if len(self.output_fields) == 1:
            raise FinalSignal("final_var", {self.output_fields[0]: value}, name=name)
        if isinstance(value, dict):
            raise FinalSignal("final_var", dict(value), name=name)
        raise TypeError(
            f"FINAL_VAR({name!r}) holds a {type(value).__name__}; with several outputs it must "
            f"hold a dict with keys {self.output_fields}"
        )

    # -- execution --------------------------------------------------------------------------------
    def exec_block(self, code: str, stdout: CappedWriter) -> dict[str, Any]:
        """Run one block. Returns a plain dict (picklable): error, final, duration_s, user_variables."""
        t0 = time.perf_counter()
        error = final = None
        try:
            tree = ast.parse(code, filename=CODE_FILENAME, mode="exec")
            echo = self._split_last_expression(tree)
            linecache.cache[CODE_FILENAME] = (len(code), None, code.splitlines(True), CODE_FILENAME)
            exec(compile(tree, CODE_FILENAME, "exec"), self.namespace)
            if echo is not None:
                value = eval(compile(echo, CODE_FILENAME, "eval"), self.namespace)
                if value is not None:
                    stdout.write(repr(value) + "\n")
        except FinalSignal as sig:
            final = {"kind": sig.kind, "value": sig.value, "name": sig.name}
        except BlockTimeout as exc:
            msg = str(exc) or "the block ran longer than its time limit and was interrupted; your variables are intact"
            error = self.error_info(exc, code, type_name="TimeoutError", message=msg)
        except SyntaxError as exc:
            error = self.error_info(exc, code)
        except BaseException as exc:  # noqa: BLE001 - everything the model's code raises goes back to it
            if isinstance(exc, (SystemExit, KeyboardInterrupt, GeneratorExit)):
                msg = f"{type(exc).__name__} is not allowed in the REPL ({exc!r}); the REPL keeps running"
                error = self.error_info(exc, code, message=msg)
            elif isinstance(exc, MemoryError):
                msg = str(exc) or "the block needed more memory than the sandbox allows; work on smaller pieces"
                error = self.error_info(exc, code, message=msg)
            else:
                error = self.error_info(exc, code)
        return {
            "error": error,
            "final": final,
            "duration_s": time.perf_counter() - t0,
            "user_variables": self.user_variables(),
            "rebound_inputs": self.rebound_inputs(),
        }

    @staticmethod
    def _split_last_expression(tree: ast.Module) -> ast.Expression | None:
        """Like a notebook: a trailing bare expression (not a call to print) is echoed."""
        if not tree.body or not isinstance(tree.body[-1], ast.Expr):
            return None
        last = tree.body[-1].value
        if (
            isinstance(last, ast.Call)
            and isinstance(last.func, ast.Name)
            and last.func.id in ("print", SUBMIT, FINAL, FINAL_VAR)
        ):
            return None
        tree.body.pop()
        return ast.Expression(body=last)

    @staticmethod
    def error_info(
        exc: BaseException, code: str, type_name: str | None = None, message: str | None = None
    ) -> dict[str, Any]:
        """Structure an exception: type, message, the line in the model's code and that source line."""
        line = None
        if isinstance(exc, SyntaxError) and exc.filename in (CODE_FILENAME, None):
            line = exc.lineno
        else:
            for frame in traceback.extract_tb(exc.__traceback__):
                if frame.filename == CODE_FILENAME:
                    line = frame.lineno
        lines = code.splitlines()
        source_line = lines[line - 1] if line and 0 < line <= len(lines) else None
        tb = _model_traceback(exc)
        return {
            "type": type_name or type(exc).__name__,
            "message": message if message is not None else (exc.msg if isinstance(exc, SyntaxError) else str(exc)),
            "line": line,
            "source_line": source_line,
            "traceback": tb[-4_000:],
        }

    # -- introspection ----------------------------------------------------------------------------
    def user_variables(self) -> list[str]:
        """Names the model created (not inputs, helpers, bridges, modules, or private names)."""
        out = []
        for name, value in self.namespace.items():
            if name.startswith("_") or keyword.iskeyword(name):
                continue
            if name in self.reserved and not (name in self.inputs and value is not self.inputs[name]):
                continue
            if type(value).__name__ == "module":
                continue
            out.append(name)
        return out

    def rebound_inputs(self) -> list[str]:
        return [n for n, v in self.inputs.items() if self.namespace.get(n, _MISSING) is not v]

    def snapshot(self, max_chars_per_var: int = 2_000, max_vars: int = 40) -> dict[str, str]:
        """Short descriptions of the model's variables (newest last), for fallback extraction."""
        names = self.user_variables()[-max_vars:]
        return {n: describe_value(self.namespace[n], max_chars_per_var) for n in names}

    def dump_variables(self) -> dict[str, Any]:
        """The model's variables, each pickled on its own (for checkpoints): ``{"blobs", "skipped"}``.

        A variable that cannot be pickled (a function or class defined in the REPL, an open file, a
        generator) is left out and named in ``skipped`` with the reason.
        """
        blobs: dict[str, bytes] = {}
        skipped: dict[str, str] = {}
        for name in self.user_variables():
            try:
                blobs[name] = pickle.dumps(self.namespace[name], protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as exc:  # noqa: BLE001 - anything unpicklable is reported, not fatal
                skipped[name] = f"{type(self.namespace[name]).__name__} cannot be saved ({type(exc).__name__})"
        return {"blobs": blobs, "skipped": skipped}

    def load_variables(self, blobs: dict[str, bytes]) -> dict[str, Any]:
        """Bind variables saved by :meth:`dump_variables`; returns ``{"restored": [...], "failed": {...}}``."""
        restored, failed = [], {}
        for name, blob in blobs.items():
            try:
                self.namespace[name] = pickle.loads(blob)
                restored.append(name)
            except Exception as exc:  # noqa: BLE001
                failed[name] = f"could not be restored ({type(exc).__name__}: {exc})"
        return {"restored": restored, "failed": failed}

    def rebind_inputs(self, inputs: dict[str, Any], bridges: dict[str, Callable[..., Any]] | None = None) -> None:
        """A session's next call: bind its inputs (and, in process, its host functions) in place of the last
        call's, keeping every variable the model made."""
        if bridges:
            fresh = {**_helpers.make_helpers(bridges.get(LLM_QUERY), self.helper_style), **bridges}
            self.namespace.update({k: v for k, v in fresh.items() if k in self.reserved})
        for name, old in self.inputs.items():  # an input the model did not rebind gives way to the new one
            if name not in inputs and self.namespace.get(name, _MISSING) is old:
                del self.namespace[name]
        self.inputs.clear()
        self.inputs.update(inputs)
        self.namespace.update(inputs)
        self.reserved = self.reserved | frozenset(inputs)

    def set_variables(self, variables: dict[str, Any]) -> None:
        """DSPy-style per-call variables: bind them (by reference) before a block."""
        self.namespace.update(variables)


_MISSING = object()


def _model_traceback(exc: BaseException) -> str:
    """The traceback from the model's own code onwards: host frames before it are noise to the model."""
    frames = traceback.extract_tb(exc.__traceback__)
    first = next((i for i, f in enumerate(frames) if f.filename == CODE_FILENAME), len(frames))
    body = "".join(traceback.format_list(frames[first:][-8:]))
    tail = "".join(traceback.format_exception_only(type(exc), exc))
    return ("Traceback (most recent call last):\n" + body + tail)[-4_000:]


def restore_stdio() -> None:
    """Put the real stdio back (a block may have replaced sys.stdout)."""
    sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
