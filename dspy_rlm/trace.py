"""Execution traces: a tree of runs (root, sub-RLMs), their iterations, code executions and spending.

``pred.trace`` is a :class:`TraceNode`. ``to_json`` / ``TraceNode.from_json`` round-trip exactly;
:mod:`dspy_rlm.viewer` renders a trace as one self-contained HTML file.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

ANSWER_SOURCES = ("submit", "final_direct", "final_var", "forced", "error")  # forced: fallback extraction


@dataclass
class CodeExecution:
    code: str
    stdout: str = ""
    error: dict[str, Any] | None = None
    duration_s: float = 0.0


@dataclass
class IterationRecord:
    index: int
    reasoning: str = ""
    thinking: str = ""
    code_executions: list[CodeExecution] = field(default_factory=list)
    output: str = ""
    lm_duration_s: float = 0.0
    duration_s: float = 0.0
    budget: dict[str, Any] = field(default_factory=dict)
    fix: dict[str, Any] | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IterationRecord:
        data = dict(data)
        data["code_executions"] = [CodeExecution(**c) for c in data.get("code_executions", [])]
        return cls(**{k: v for k, v in data.items() if k in _names(cls)})


@dataclass
class TraceNode:
    """One run (the root or a sub-RLM / sub-LM call) in the recursion tree."""

    task: str
    depth: int = 0
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    kind: str = "rlm"  # rlm | llm (an rlm_query downgraded to a plain sub-LM call) | fallback
    model: str | None = None  # the LM a sub-call ran on (a sub_lms name, else its model string)
    started_at: float = field(default_factory=time.time)
    duration_s: float = 0.0
    iterations: list[IterationRecord] = field(default_factory=list)
    subcalls: list[TraceNode] = field(default_factory=list)
    answer_source: str | None = None
    result_kind: str | None = None
    outputs: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    fix_history: dict[str, Any] = field(default_factory=dict)
    parent_iteration: int | None = None  # the parent's iteration (1-based) that made this sub-call
    _lock: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def add_subcall(self, node: TraceNode) -> None:
        with self._lock:  # batch_rlm_query children finish concurrently
            if node.parent_iteration is None:
                node.parent_iteration = len(self.iterations) or None
            self.subcalls.append(node)

    def warn(self, message: str) -> None:
        with self._lock:
            if message not in self.warnings:
                self.warnings.append(message)

    # -- totals -----------------------------------------------------------------------------------
    def walk(self):
        yield self
        for sub in self.subcalls:
            yield from sub.walk()

    def max_depth(self) -> int:
        return max(node.depth for node in self.walk())

    def totals(self) -> dict[str, Any]:
        """Spending of the whole tree: a node's usage already includes its children's (budgets charge
        their ancestors), so the root's usage is the total."""
        keys = ("llm_calls", "lm_calls_total", "prompt_tokens", "completion_tokens", "cost", "elapsed_s")
        out: dict[str, Any] = {k: self.usage.get(k, 0) for k in keys}
        out["iterations"] = sum(len(node.iterations) for node in self.walk())
        out["nodes"] = sum(1 for _ in self.walk())
        out["max_depth"] = self.max_depth()
        out["by_model"] = self.by_model()
        return out

    def by_model(self) -> dict[str, dict[str, Any]]:
        """Sub-LM calls, tokens and cost per model (plain sub-LM calls and sub-RLM steps, from the tree)."""
        out: dict[str, dict[str, Any]] = {}
        for node in self.walk():
            if node is self or node.model is None or node.kind == "fallback":
                continue
            row = out.setdefault(node.model, {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost": 0.0})
            if node.kind == "rlm":  # its own steps only: its sub-calls are nodes of their own
                own = [n for n in node.subcalls if n.kind != "fallback"]
                row["calls"] += node.usage.get("lm_calls_total", 0) - sum(n.usage.get("lm_calls_total", 0) for n in own)
                for key in ("prompt_tokens", "completion_tokens", "cost"):
                    row[key] += node.usage.get(key, 0) - sum(n.usage.get(key, 0) for n in own)
                continue
            row["calls"] += node.usage.get("llm_calls", 0)
            for key in ("prompt_tokens", "completion_tokens", "cost"):
                row[key] += node.usage.get(key, 0)
        return out

    # -- serialization ----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self) if not f.name.startswith("_")}
        data["iterations"] = [asdict(it) for it in self.iterations]
        data["subcalls"] = [s.to_dict() for s in self.subcalls]
        data["outputs"] = _jsonable(self.outputs)
        return data

    def to_json(self, path: str | Path | None = None, indent: int | None = 2) -> str:
        text = json.dumps(self.to_dict(), indent=indent, default=_default)
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TraceNode:
        data = dict(data)
        data["iterations"] = [IterationRecord.from_dict(i) for i in data.get("iterations", [])]
        data["subcalls"] = [cls.from_dict(s) for s in data.get("subcalls", [])]
        return cls(**{k: v for k, v in data.items() if k in _names(cls) and not k.startswith("_")})

    def to_html(self, path: str | Path | None = None) -> str:
        """This trace as one self-contained HTML page (see :mod:`dspy_rlm.viewer`); written to ``path`` if given."""
        from dspy_rlm.viewer import render_html

        text = render_html(self)
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    @classmethod
    def from_json(cls, text_or_path: str | Path) -> TraceNode:
        text = str(text_or_path)
        if not text.lstrip().startswith("{"):
            text = Path(text_or_path).read_text(encoding="utf-8")
        return cls.from_dict(json.loads(text))


def _names(cls: type) -> set[str]:
    return {f.name for f in fields(cls)}


def _default(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump()
    return repr(value)


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=_default)) if value is not None else None
