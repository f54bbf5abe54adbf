"""Running one example of a batch, wherever it runs: a driver thread or a Ray worker.

The program and its LM configuration travel as a :class:`ProgramPackage`: the program (an ``RLM`` or any
DSPy module containing one) pickled with cloudpickle — DSPy signatures are classes made at run time, which
the standard pickle refuses — plus the LM and adapter to run it under. An LM that does not pickle (a local
``OutlinesLM`` holds a loaded model) travels as its class and ``dump_state()`` and is rebuilt once per
worker process.

The typed RLM results are read from DSPy's callbacks: every ``RLM`` call's prediction (its
:func:`~dspy_rlm.prediction.run_info`: result, trace, usage) is seen on its way out, so a module that wraps
an RLM still reports it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from dspy_rlm.prediction import extra_keys, run_info
from dspy_rlm.results import Failed
from dspy_rlm.scale.results import ItemError, ItemResult, add_usage, empty_usage

logger = logging.getLogger(__name__)

_cache_lock = threading.Lock()
_unpacked: dict[str, tuple[Any, Any, Any]] = {}  # digest -> (program, lm, adapter), one per worker process


@dataclass(frozen=True)
class ProgramPackage:
    """A program and the LM / adapter it runs under, as bytes that any worker can unpack.

    Attributes:
        program: cloudpickle bytes of the DSPy module.
        lm: cloudpickle bytes of the LM, or of ``(class, dump_state())`` when the LM does not pickle.
        adapter: cloudpickle bytes of the adapter (``None`` bytes: DSPy's default).
        digest: A hash of all three: a worker unpacks each package once.
        live: The objects themselves (:meth:`local`), for items run in the driver's process.
    """

    program: bytes
    lm: bytes
    adapter: bytes
    digest: str
    live: tuple[Any, Any, Any] | None = field(default=None, compare=False)

    @classmethod
    def local(cls, program: Any, lm: Any, adapter: Any) -> ProgramPackage:
        """The objects themselves, for items run in this process (threads): nothing is copied."""
        return cls(b"", b"", b"", f"live-{id(program)}", live=(program, lm, adapter))

    def __getstate__(self) -> dict[str, Any]:
        if self.live is not None:
            raise TypeError("A ProgramPackage.local() package runs in its own process only; use build() to ship it")
        return {k: getattr(self, k) for k in ("program", "lm", "adapter", "digest")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for key, value in {**state, "live": None}.items():
            object.__setattr__(self, key, value)

    @classmethod
    def build(cls, program: Any, lm: Any, adapter: Any) -> ProgramPackage:
        """Pack ``program`` with ``lm`` and ``adapter``.

        Raises:
            TypeError: The program or adapter cannot be pickled (the message names the object).
        """
        program_bytes = _dumps(program, "program")
        try:
            lm_bytes = _cloudpickle().dumps(("pickled", lm))
        except Exception as exc:
            if not hasattr(lm, "dump_state"):
                raise TypeError(
                    f"The LM {lm!r} can neither be pickled ({exc}) nor rebuilt from dump_state(); "
                    "pass an LM that pickles (dspy.LM does) or has dump_state()"
                ) from exc
            lm_bytes = _cloudpickle().dumps(("state", type(lm), lm.dump_state()))
        adapter_bytes = _dumps(adapter, "adapter")
        digest = hashlib.sha256(program_bytes + lm_bytes + adapter_bytes).hexdigest()[:16]
        return cls(program_bytes, lm_bytes, adapter_bytes, digest)

    def unpack(self) -> tuple[Any, Any, Any]:
        """``(program, lm, adapter)``, unpacked once per process and reused by later items."""
        if self.live is not None:
            return self.live
        with _cache_lock:
            cached = _unpacked.get(self.digest)
            if cached is None:
                cached = (_loads(self.program), _load_lm(self.lm), _loads(self.adapter))
                _unpacked[self.digest] = cached
        return cached


def _cloudpickle() -> Any:
    import cloudpickle  # type: ignore[import-untyped]

    return cloudpickle


def _dumps(obj: Any, what: str) -> bytes:
    try:
        return _cloudpickle().dumps(obj)
    except Exception as exc:
        raise TypeError(
            f"The {what} {obj!r} cannot be pickled for the workers: {type(exc).__name__}: {exc}. "
            "Keep unpicklable objects (open files, locks, loaded models) out of it"
        ) from exc


def _loads(data: bytes) -> Any:
    return _cloudpickle().loads(data)


def _load_lm(data: bytes) -> Any:
    packed = _loads(data)
    if packed[0] == "pickled":
        return packed[1]
    _, lm_class, state = packed
    state = {k: v for k, v in state.items() if not k.startswith("_dspy")}
    try:
        return lm_class(**state)
    except TypeError as exc:
        raise TypeError(
            f"The LM did not pickle, and {lm_class.__name__}(**lm.dump_state()) fails on the worker: "
            f"{exc}. Make the LM picklable (drop locks and loaded models in __getstate__) or accept "
            "its dump_state() keys in __init__"
        ) from exc


def _collector():
    from dspy.utils.callback import BaseCallback

    class RLMPredictions(BaseCallback):
        """Keeps every RLM prediction (one :func:`~dspy_rlm.prediction.run_info` reads) that a module call returns."""

        def __init__(self) -> None:
            self.predictions: list[Any] = []

        def on_module_end(self, call_id: str, outputs: Any | None, exception: BaseException | None = None) -> None:
            if run_info(outputs) is not None:
                self.predictions.append(outputs)

    return RLMPredictions()


def example_inputs(example: Any, index: int) -> dict[str, Any]:
    """The keyword inputs of one example: a ``dspy.Example`` (its inputs, or all fields when no input keys
    were set) or a mapping.

    Raises:
        TypeError: The example is neither.
    """
    import dspy

    if isinstance(example, dspy.Example):
        try:
            return dict(example.inputs())
        except ValueError:  # with_inputs() was never called
            return dict(example.toDict())
    if isinstance(example, dict):
        return dict(example)
    raise TypeError(
        f"examples[{index}] is a {type(example).__name__}; each example must be a dspy.Example or a "
        "dict of the program's inputs, e.g. {'context': ..., 'query': ...}"
    )


def run_item(package: ProgramPackage, index: int, inputs: dict[str, Any], attempt: int = 1) -> ItemResult:
    """Run the packaged program on one example and return its record; never raises for the item's own errors.

    Traces come back as dicts (``TraceNode.to_dict()``), so the record pickles; the driver turns them
    back into ``TraceNode`` objects or writes them to disk.
    """
    import dspy

    started = time.perf_counter()
    worker = f"{socket.gethostname()}:{os.getpid()}"
    try:
        program, lm, adapter = package.unpack()
        collector = _collector()
        settings: dict[str, Any] = {"callbacks": [*(dspy.settings.callbacks or []), collector]}
        if lm is not None:
            settings["lm"] = lm
        if adapter is not None:
            settings["adapter"] = adapter
        with dspy.context(**settings):
            prediction = program(**inputs)
    except Exception as exc:  # noqa: BLE001 - the item's exception becomes its record
        error = ItemError(type(exc).__name__, str(exc), traceback.format_exc(), attempts=attempt)
        return ItemResult(index, error=error, seconds=time.perf_counter() - started, worker=worker)
    return _record(index, prediction, collector.predictions, time.perf_counter() - started, worker)


def _record(index: int, prediction: Any, rlm_predictions: list[Any], seconds: float, worker: str) -> ItemResult:
    usage = empty_usage()
    infos = [info for info in map(run_info, rlm_predictions) if info is not None]
    for info in infos:
        totals = info.usage
        add_usage(
            usage,
            {
                "lm_calls": totals.get("lm_calls_total", 0),
                "prompt_tokens": totals.get("prompt_tokens", 0),
                "completion_tokens": totals.get("completion_tokens", 0),
                "cost": totals.get("cost", 0.0),
            },
        )
    result = infos[-1].result if infos else None
    if result is not None and prediction is rlm_predictions[-1]:  # the program is the RLM itself
        outputs = dict((result.partial_outputs if isinstance(result, Failed) else result.outputs) or {})
    else:
        keys = prediction.keys() if hasattr(prediction, "keys") else []
        meta = extra_keys(prediction)
        outputs = {k: prediction[k] for k in keys if k not in meta}
    traces = [info.trace.to_dict() for info in infos]
    return ItemResult(index, result=result, outputs=outputs, usage=usage, traces=traces, seconds=seconds, worker=worker)
