"""Multi-turn sessions, and ``dspy.History`` inputs.

``with rlm.session(max_cost=1.0) as s: s(query=...); s(query=...)`` runs every call in one REPL: the variables
the model made in a turn are there in the next, and the next prompt names them and gives the earlier turns
(inputs and answers, shortened). The session starts its REPL on the first call and shuts it down on
``close()`` (the ``with`` block's end); a call after that raises :class:`SessionClosed`. A call that ends
``Failed`` (or raises) leaves the session usable. Each call has the RLM's own limits; the session's limits
(``max_iters``, ``max_llm_calls``, ``max_tokens``, ``max_cost``, ``max_time``: seconds spent in calls) hold
over all its calls: a call gets at most what the session has left, and once a limit is spent a call ends
``Failed`` at once, naming it (spent sub-LM calls fail inside the REPL instead, and the turn goes on, as a
run's ``max_llm_calls`` does). ``rlm.session(checkpoint=path)`` saves the turns, the spending and the model's
picklable variables after each call (signed, as :mod:`dspy_rlm.checkpoint`); a session opened again on that
path continues from there (the RLM's own per-run ``checkpoint=`` is not used for a session's calls).

An input of type ``dspy.History`` (dspy's conversation: ``messages``, one dict per turn) is shown in the
prompt as the conversation so far, and is a list of those dicts in the REPL.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import dspy
from dspy.primitives.repl_types import REPLHistory

from dspy_rlm.budget import Limits, Spent
from dspy_rlm.calls import run_sync
from dspy_rlm.checkpoint import Checkpoint, fingerprint
from dspy_rlm.errors import RLMError
from dspy_rlm.prediction import result_prediction
from dspy_rlm.repl.base import REBIND, VARIABLES
from dspy_rlm.results import Failed
from dspy_rlm.trace import TraceNode

SESSION_LIMITS = ("max_iters", "max_llm_calls", "max_tokens", "max_cost", "max_time")
_SHOWN = 160  # characters shown of each earlier input / answer


class SessionClosed(RLMError, RuntimeError):
    """A session was called after ``close()`` (or after its ``with`` block ended)."""


@dataclass
class Turn:
    """One call of a session as later prompts show it."""

    inputs: dict[str, str]
    outputs: dict[str, str]
    kind: str


@dataclass
class SessionState:
    """What a session checkpoint holds (besides the REPL's variables)."""

    turns: list[Turn] = field(default_factory=list)
    spent: Spent = field(default_factory=Spent)
    elapsed_s: float = 0.0
    variables: dict[str, bytes] = field(default_factory=dict)


def shorten(value: Any, limit: int = _SHOWN) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else f"{text[: limit - 20]} ... ({len(text):,} chars)"


def history_fields(signature: type[dspy.Signature]) -> list[str]:
    """The inputs of type ``dspy.History``."""
    return [n for n, f in signature.input_fields.items() if f.annotation is dspy.History]


def conversation(signature: type[dspy.Signature], inputs: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """``inputs`` with each ``dspy.History`` as its list of messages (what the REPL holds), and the prompt's
    text of the conversation so far (one line per earlier message, each field shortened)."""
    out, notes = dict(inputs), []
    for name in history_fields(signature):
        value = inputs.get(name)
        if not isinstance(value, dspy.History):
            continue
        out[name] = [dict(m) for m in value.messages]
        lines = [
            f"- turn {i}: " + "; ".join(f"{k}: {shorten(v)}" for k, v in m.items())
            for i, m in enumerate(value.messages, start=1)
        ]
        notes.append(
            f"Conversation so far (`{name}`, a list of {len(lines)} dicts in the REPL):\n" + "\n".join(lines)
            if lines
            else f"Conversation so far (`{name}`): none yet."
        )
    return out, "\n\n" + "\n\n".join(notes) if notes else ""


class Session:
    """Calls of one :class:`~dspy_rlm.RLM` sharing one REPL. Make with ``rlm.session(...)``.

    Args:
        rlm: The module whose calls run here.
        limits: The session's limits (None: unlimited).
        checkpoint: A file the session's state is saved to after every call (and resumed from).
    """

    def __init__(self, rlm: Any, limits: dict[str, Any], checkpoint: str | os.PathLike | None = None):
        unknown = sorted(set(limits) - set(SESSION_LIMITS))
        if unknown:
            raise TypeError(f"session() got an unexpected keyword argument {unknown[0]!r}; limits: {SESSION_LIMITS}")
        self.rlm = rlm
        self.limits = Limits(**{"max_iters": None, "max_llm_calls": None, **limits})
        self.state = SessionState()
        self.repl: Any = None
        self.owned = True
        self.closed = False
        self._lock = threading.Lock()  # one call at a time: they share the REPL
        self.ckpt = Checkpoint(checkpoint, _session_fingerprint(rlm)) if checkpoint is not None else None
        self._restore: dict[str, bytes] = {}
        if self.ckpt is not None:
            saved = self.ckpt.load_object()
            if isinstance(saved, SessionState):
                self.state, self._restore = saved, dict(saved.variables)

    @property
    def turns(self) -> list[Turn]:
        return self.state.turns

    @property
    def spent(self) -> Spent:
        """What the session's calls spent, in all."""
        return self.state.spent

    # -- calls ------------------------------------------------------------------------------------
    def __call__(self, **inputs: Any) -> dspy.Prediction:
        """Run one turn (inputs by keyword, as ``rlm(...)``)."""
        return run_sync(self._call(inputs, use_async=False))

    async def acall(self, **inputs: Any) -> dspy.Prediction:
        """Run one turn, async (as ``rlm.acall``)."""
        return await self._call(inputs, use_async=True)

    async def _call(self, inputs: dict[str, Any], use_async: bool) -> dspy.Prediction:
        if self.closed:
            raise SessionClosed("this session is closed; open a new one with `with rlm.session() as s:`")
        if not self._lock.acquire(blocking=False):
            raise RuntimeError("a session runs one call at a time (they share one REPL); await the running call")
        try:
            t0 = time.monotonic()
            pred = await self.rlm.run_turn(self, inputs, use_async)
            self._record(inputs, pred, time.monotonic() - t0)
            return pred
        finally:
            self._lock.release()

    def call_limits(self, limits: Limits) -> Limits | str:
        """A call's limits: the RLM's, each at most what the session has left; or why no call can run."""
        sl, sp = self.limits, self.state.spent
        left = {
            "max_iters": None if sl.max_iters is None else sl.max_iters - sp.iterations,
            "max_llm_calls": None if sl.max_llm_calls is None else sl.max_llm_calls - sp.llm_calls,
            "max_tokens": None if sl.max_tokens is None else sl.max_tokens - sp.tokens,
            "max_cost": None if sl.max_cost is None else sl.max_cost - sp.cost,
            "max_time": None if sl.max_time is None else sl.max_time - self.state.elapsed_s,
        }
        for name, value in left.items():
            if value is not None and value <= 0 and name != "max_llm_calls":
                used = getattr(sp, name[4:], None) if name != "max_time" else round(self.state.elapsed_s, 3)
                used = sp.iterations if name == "max_iters" else used
                return (
                    f"the session's {name}={getattr(sl, name)} is spent (used {used}); open a new session or "
                    f"pass a larger {name} to rlm.session()"
                )
        capped: dict[str, Any] = {}
        for name, value in left.items():
            if value is not None:
                own = getattr(limits, name)
                value = value if own is None else min(own, value)
                capped[name] = int(value) if name in ("max_iters", "max_llm_calls", "max_tokens") else value
        return dataclasses.replace(limits, **capped)

    # -- the REPL ---------------------------------------------------------------------------------
    def acquire(self, make: Callable[[], tuple[Any, bool]], bridges: dict[str, Callable[..., Any]]) -> bool:
        """The session's REPL for this call (made by ``make`` on the first call); True when it is already
        running (then this call's host functions replace the last call's)."""
        if self.repl is None:
            self.repl, self.owned = make()  # an interpreter instance the caller gave stays the caller's
            return False
        self.repl.tools.update(bridges)
        return True

    def bind(self, inputs: dict[str, Any]) -> list[str]:
        """Bind a later call's inputs in the running REPL; returns warnings (nothing fatal)."""
        if REBIND in self.repl.capabilities:
            self.repl.rebind_inputs(inputs)
        else:  # a foreign interpreter takes the inputs with every block
            self.repl.load_inputs(inputs)
        return []

    def restore(self) -> list[str]:
        """Load a checkpoint's variables into a freshly started REPL; returns warnings."""
        blobs, self._restore = self._restore, {}
        if not blobs:
            return []
        if VARIABLES not in self.repl.capabilities:
            return [f"session variables not restored (this REPL cannot load them): {', '.join(blobs)}"]
        reply = self.repl.load_variables(blobs)
        return [f"session variable {n} {why}" for n, why in reply.get("failed", {}).items()]

    def note(self) -> str:
        """The prompt's account of the earlier turns and the variables that persist from them."""
        if not self.turns:
            return ""
        lines = [f"\n\nThis is turn {len(self.turns) + 1} of a session. Earlier turns:"]
        for i, turn in enumerate(self.turns, start=1):
            asked = "; ".join(f"{k}: {v}" for k, v in turn.inputs.items())
            answered = "; ".join(f"{k}: {v}" for k, v in turn.outputs.items()) or "(no answer)"
            lines.append(f"- turn {i} ({turn.kind}): {asked} -> {answered}")
        names = self._variables() or [f"{n} (restored from the session checkpoint)" for n in self._restore]
        lines.append(
            "Variables kept in the REPL from earlier turns: "
            + (", ".join(names) if names else "none")
            + ". Reuse them rather than recomputing."
        )
        return "\n".join(lines)

    def _variables(self) -> list[str]:
        try:
            described = self.repl.snapshot(max_chars_per_var=60) if self.repl is not None else {}
        except Exception:  # noqa: BLE001 - the note goes without them
            return []
        return [f"{n} ({shorten(d, 60)})" for n, d in described.items()]

    # -- bookkeeping ------------------------------------------------------------------------------
    def _record(self, inputs: dict[str, Any], pred: dspy.Prediction, elapsed: float) -> None:
        result = getattr(pred, "result", None)
        outputs = {n: shorten(getattr(pred, n, None)) for n in self.rlm.signature.output_fields}
        shown = {n: shorten(v) for n, v in inputs.items() if not isinstance(v, dspy.History)}
        self.state.turns.append(Turn(shown, outputs, getattr(result, "kind", "failed")))
        usage = (getattr(getattr(pred, "trace", None), "usage", None) or {}) if result is not None else {}
        sp = self.state.spent
        sp.iterations += int(usage.get("iterations", 0))
        sp.llm_calls += int(usage.get("llm_calls", 0))
        sp.lm_calls_total += int(usage.get("lm_calls_total", 0))
        sp.prompt_tokens += int(usage.get("prompt_tokens", 0))
        sp.completion_tokens += int(usage.get("completion_tokens", 0))
        sp.cost += float(usage.get("cost", 0.0))
        self.state.elapsed_s += elapsed
        if self.ckpt is not None:
            self._save()

    def _save(self) -> None:
        assert self.ckpt is not None
        dumped = (
            self.repl.dump_variables()
            if self.repl is not None and VARIABLES in self.repl.capabilities
            else {"blobs": {}}
        )
        state = dataclasses.replace(self.state, variables=dumped.get("blobs", {}))
        self.ckpt.save_object(state)

    def close(self) -> None:
        """Shut the session's REPL down (idempotent); later calls raise :class:`SessionClosed`."""
        self.closed = True
        repl, self.repl = self.repl, None
        if repl is not None and self.owned:
            repl.shutdown()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # best effort: never leave a worker behind
        try:
            if self.repl is not None and self.owned:
                self.repl.shutdown()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


def _session_fingerprint(rlm: Any) -> str:
    return fingerprint(rlm.signature, {"session": True})


def refused(config: Any, inputs: dict[str, Any], reason: str) -> dspy.Prediction:
    """The typed ``Failed`` prediction of a call the session's budget leaves no room for."""
    trace = TraceNode(task=shorten(inputs, 500), depth=0)
    trace.warn(f"Run stopped: {reason}")
    result = Failed(reason=reason, partial_outputs=None, history=[])
    trace.result_kind, trace.answer_source = result.kind, "error"
    return result_prediction(result, REPLHistory(), config.output_names, trace)
