"""Picklable scripted policies for batch tests: they travel to Ray workers inside the program's LM."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from tests.dspy_rlm.scripted_lm import ScriptedLM, action, fields

__all__ = ["DieAlways", "DieOnce", "Echo", "Interrupt", "PicklableScriptedLM", "Raise", "scripted_lm"]


def _question(call) -> str:
    match = re.search(r"question=([^\n;'\"]+)", call.user) or re.search(r"'(q[\w-]+)'", call.user)
    return match.group(1) if match else "?"


class Echo:
    """Action step 1 submits the reversed question (read from the REPL variable); extraction answers 'x'."""

    def __call__(self, call) -> str:
        if call.role == "extract":
            return fields(answer="x")
        return action("SUBMIT(answer=question[::-1])")


class DieOnce(Echo):
    """Kills its own process (the Ray worker) on the first call for a question listed in ``victims``; the
    marker file under ``marker_dir`` makes the retry (a fresh worker) answer normally."""

    def __init__(self, marker_dir: str, victims: tuple[str, ...]):
        self.marker_dir, self.victims = marker_dir, victims

    def __call__(self, call) -> str:
        for victim in self.victims:
            if f"'{victim}'" in call.user:
                marker = Path(self.marker_dir) / f"died-{victim}"
                if not marker.exists():
                    marker.write_text(str(os.getpid()))
                    os._exit(17)
        return super().__call__(call)


class DieAlways(Echo):
    """Kills its process on every call for a question listed in ``victims``."""

    def __init__(self, victims: tuple[str, ...]):
        self.victims = victims

    def __call__(self, call) -> str:
        if any(f"'{victim}'" in call.user for victim in self.victims):
            os._exit(18)
        return super().__call__(call)


class Raise(Echo):
    """Raises (an LM provider error, outside the RLM loop's reach) for the listed questions."""

    def __init__(self, victims: tuple[str, ...]):
        self.victims = victims

    def __call__(self, call) -> str:
        for victim in self.victims:
            if f"'{victim}'" in call.user:
                raise ConnectionError(f"provider down for {victim!r}")
        return super().__call__(call)


class Interrupt(Echo):
    """Sends SIGINT to its own process (the driver) on the call for ``victim``, then answers after a pause."""

    def __init__(self, victim: str):
        self.victim = victim

    def __call__(self, call) -> str:
        if f"'{self.victim}'" in call.user:
            import signal

            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.5)
        return super().__call__(call)


class PicklableScriptedLM(ScriptedLM):
    """A ScriptedLM that pickles (its lock is rebuilt), so it travels to Ray workers with the program."""

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_lock", None)
        state["calls"] = []
        return state

    def __setstate__(self, state):
        import threading

        self.__dict__.update(state)
        self._lock = threading.Lock()


def scripted_lm(policy, **kwargs) -> PicklableScriptedLM:
    """A picklable ScriptedLM with usage: 10 prompt + 5 completion tokens and $0.001 a call."""
    kwargs.setdefault("cost", 0.001)
    return PicklableScriptedLM(policy, **kwargs)


class ReportSettings:
    """A program without an RLM that reports the LM configuration and process it ran under."""

    def __call__(self, question: str):
        import dspy

        lm = dspy.settings.lm
        return dspy.Prediction(
            model=lm.model,
            max_tokens=lm.kwargs.get("max_tokens"),
            api_base=lm.kwargs.get("api_base"),
            pid=os.getpid(),
            question=question,
        )
