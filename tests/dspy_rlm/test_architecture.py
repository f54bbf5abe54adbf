"""The structure of a run: run configuration, REPL protocol and backends by name, one error
hierarchy with the same types from every backend, typed stop reasons, extraction notes, dspy conformance,
and no import cycles inside ``dspy_rlm``."""

import ast
import dataclasses
import pathlib

import dspy
import pytest
from dspy.utils import DummyLM

from dspy_rlm import RLM, Extracted, StopReason
from dspy_rlm.config import RunConfig
from dspy_rlm.repl import backends
from dspy_rlm.repl.base import REPL
from dspy_rlm.repl.inprocess import InProcessREPL
from dspy_rlm.sandbox.backend import SubprocessREPL

from .scripted import act

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "dspy_rlm"


# -- import graph -----------------------------------------------------------------------------------
def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(path: pathlib.Path, modules: set[str]) -> set[str]:
    """Modules of the package imported by ``path`` at any level (functions too), skipping TYPE_CHECKING."""
    found: set[str] = set()

    class Visitor(ast.NodeVisitor):
        def visit_If(self, node: ast.If) -> None:
            test = node.test
            if getattr(test, "id", None) == "TYPE_CHECKING" or getattr(test, "attr", None) == "TYPE_CHECKING":
                for child in node.orelse:
                    self.visit(child)
                return
            self.generic_visit(node)

        def visit_Import(self, node: ast.Import) -> None:
            found.update(alias.name for alias in node.names)

        def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
            base = node.module or ""
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)

    Visitor().visit(ast.parse(path.read_text(encoding="utf-8")))
    return {name for name in found if name in modules}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles_inside_the_package():
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {name: _runtime_imports(path, set(files)) - {name, "dspy_rlm"} for name, path in files.items()}
    assert "dspy_rlm.loop" in graph["dspy_rlm.rlm"] and "dspy_rlm.bridges" in graph["dspy_rlm.loop"]  # real edges
    assert _cycles(graph) == []


def test_the_cycle_check_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


# -- configuration ----------------------------------------------------------------------------------
def test_the_run_configuration_is_frozen_typed_and_inherited_by_children():
    rlm = RLM(
        "context, query -> answer",
        max_iters=7,
        sub_max_iters=2,
        max_depth=2,
        repl_timeout=9.0,
        tools=[len],
        recovery=False,
    )
    cfg = rlm.config
    assert isinstance(cfg, RunConfig) and cfg.limits.max_iters == 7 and cfg.repl.timeout_s == 9.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.recovery = True  # type: ignore[misc]
    child = cfg.for_child(depth=1, with_context=True)
    assert list(child.signature.input_fields) == ["context", "task"] and child.limits.max_iters == 2
    assert (child.repl.timeout_s, child.recovery, child.tool_map.keys(), child.slots) == (
        9.0,
        False,
        {"len"},
        cfg.slots,
    )  # every other setting travels, the adapter slots are shared


def test_setting_an_attribute_replaces_the_configuration_and_is_validated():
    rlm = RLM("query -> answer")
    before = rlm.config
    rlm.max_iters = 3
    assert rlm.config is not before and rlm.config.limits.max_iters == 3 and before.limits.max_iters == 20
    with pytest.raises(ValueError, match="child_share"):
        rlm.child_share = 0


# -- REPL protocol and backends ---------------------------------------------------------------------
def test_backends_by_name_and_the_protocol():
    assert {"subprocess", "inprocess", "dspy-local", "dspy-deno"} <= set(backends.backend_names())
    assert isinstance(InProcessREPL(), REPL) and isinstance(SubprocessREPL(), REPL)
    with pytest.raises(ValueError, match="unknown REPL backend 'nope'"):
        RLM("query -> answer", repl="nope")
    with pytest.raises(ValueError, match="not several"):
        RLM("query -> answer", repl="inprocess", interpreter_factory=InProcessREPL)
    rlm = RLM("query -> answer", repl="inprocess", max_iters=2)
    with dspy.context(lm=DummyLM([act("import os\nSUBMIT(answer=str(os.getpid()))")])):
        pred = rlm(query="pid?")
    import os

    assert pred.answer == str(os.getpid())  # ran in this process: the in-process backend


# -- errors -----------------------------------------------------------------------------------------
CODE = """
out = []
try:
    llm_query_batched(['x', 'y'])
except Exception as exc:
    out.append(type(exc).__name__)
try:
    boom()
except Exception as exc:
    out.append(type(exc).__name__ + ':' + str(exc))
SUBMIT(answer=repr(out))
"""


def boom() -> str:
    """A tool that fails."""
    raise KeyError("k")


@pytest.mark.parametrize("factory", [InProcessREPL, SubprocessREPL], ids=["inprocess", "subprocess"])
def test_every_backend_raises_the_same_types_in_model_code(factory):
    rlm = RLM("query -> answer", max_iters=2, max_llm_calls=1, tools=[boom], interpreter_factory=factory)
    with dspy.context(lm=DummyLM([act(CODE)])):
        pred = rlm(query="q")
    kinds = eval(pred.answer)
    assert kinds == ["BudgetExhausted", "ToolError:boom() failed: KeyError: 'k'"]


# -- stop reasons, extraction notes -----------------------------------------------------------------
def test_the_fallback_reason_is_typed_and_the_extraction_notes_reach_the_result():
    lm = DummyLM(
        [act("print(1)"), act("print(2)"), {"answer": "unknown", "extraction_notes": "the total was never printed"}]
    )
    with dspy.context(lm=lm):
        pred = RLM("query -> answer", max_iters=2, interpreter_factory=InProcessREPL)(query="q")
    result = pred.result
    assert isinstance(result, Extracted) and result.limit is StopReason.ITERATIONS and result.limit == "iterations"
    assert (result.fallback.used, result.fallback.allowed) == (2, 2)
    assert "the total was never printed" in result.notes
    assert pred.trace.answer_source == "forced"
    assert "Budget exhausted, answer was forced" in pred.trace.warnings
    assert result.to_dict()["fallback"] == {"stop": "iterations", "used": 2, "allowed": 2, "detail": ""}


# -- dspy conformance -------------------------------------------------------------------------------
class _Factory:
    """A factory with ``execution_instructions``, counting the interpreters it made (dspy's test shape)."""

    execution_instructions = "Code runs in the TEST-RUNTIME-7 sandbox."

    def __init__(self) -> None:
        self.instances: list[InProcessREPL] = []

    def __call__(self) -> InProcessREPL:
        repl = InProcessREPL()
        self.instances.append(repl)
        return repl


def test_execution_instructions_of_the_factory_are_in_the_action_prompt():
    factory = _Factory()
    lm = DummyLM([act("SUBMIT(answer='ok')")])
    with dspy.context(lm=lm):
        RLM("query -> answer", interpreter_factory=factory, profile="default")(query="q")
    system = lm.history[0]["messages"][0]["content"]
    assert "Execution environment:" in system and "Code runs in the TEST-RUNTIME-7 sandbox." in system


def test_a_call_time_factory_brings_its_own_execution_instructions():
    lm = DummyLM([act("SUBMIT(answer='ok')")])
    with dspy.context(lm=lm):
        RLM("query -> answer", profile="default")(query="q", interpreter_factory=_Factory())
    system = lm.history[0]["messages"][0]["content"]
    assert "TEST-RUNTIME-7" in system and SubprocessREPL.execution_instructions not in system


class _RaisingPredictor:
    def __call__(self, **kwargs):
        raise ValueError("unexpected predictor failure")


@pytest.mark.parametrize("which", ["generate_action", "extract"])
def test_an_exception_from_a_replaced_predictor_propagates_and_the_interpreter_is_shut_down(which):
    factory = _Factory()
    rlm = RLM("query -> answer", max_iters=1, interpreter_factory=factory)
    setattr(rlm, which, _RaisingPredictor())
    with dspy.context(lm=DummyLM([act("print(1)")])), pytest.raises(ValueError, match="unexpected predictor"):
        rlm(query="test")
    assert len(factory.instances) == 1 and factory.instances[0]._executor is None  # shut down
