"""run_batch on the thread engine with scripted LMs: typed records, usage, traces, budget, interrupt, errors."""

from __future__ import annotations

import json
import threading

import dspy
import pytest

from dspy_rlm import RLM, Failed, Submitted
from dspy_rlm.scale import BatchBudget, BatchInterrupted, ItemError, run_batch
from dspy_rlm.trace import TraceNode
from tests.scale.scripts import Echo, Interrupt, Raise, scripted_lm


def _examples(n: int) -> list[dspy.Example]:
    return [dspy.Example(question=f"q{i}", gold=f"{i}q").with_inputs("question") for i in range(n)]


def test_every_example_gets_its_typed_result_usage_and_trace():
    rlm = RLM("question -> answer", max_iters=3)
    examples = [*_examples(3), {"question": "q3"}, {"question": "q4", "hint": "x"}]  # Examples and dicts
    batch = run_batch(rlm, examples, max_concurrency=2, progress=False, lm=scripted_lm(Raise(("q1",))))

    assert [item.index for item in batch] == [0, 1, 2, 3, 4] and batch.pending == []
    assert batch.counts == {"submitted": 3, "failed": 1, "error": 1}
    for i in (0, 2, 3):
        item = batch[i]
        assert isinstance(item.result, Submitted) and item.outputs == {"answer": f"{i}q"}
        assert item.usage == {"lm_calls": 1, "prompt_tokens": 10, "completion_tokens": 5, "cost": 0.001}
        assert isinstance(item.trace, TraceNode) and item.trace.task == f"question=q{i}"
    assert isinstance(batch[1].result, Failed)  # the LM was down: the RLM's own typed failure
    error = batch[4].error  # the program raised: the exception is the item's record, with its traceback
    assert isinstance(error, ItemError) and error.type == "ValueError" and "hint" in error.message
    assert "Unexpected inputs" in error.traceback and batch[4].result is None
    assert batch.usage == {"lm_calls": 3, "prompt_tokens": 30, "completion_tokens": 15, "cost": pytest.approx(0.003)}
    assert json.loads(json.dumps(batch.to_dict()))["counts"] == {"submitted": 3, "failed": 1, "error": 1}


def test_a_module_that_wraps_an_rlm_reports_the_rlm_result(tmp_path):
    class Wrapper(dspy.Module):
        def __init__(self):
            super().__init__()
            self.rlm = RLM("question -> answer", max_iters=3)

        def forward(self, question):
            first = self.rlm(question=question)
            second = self.rlm(question=first.answer)
            return dspy.Prediction(answer=second.answer.upper())

    batch = run_batch(Wrapper(), _examples(2), trace_dir=tmp_path / "traces", progress=False, lm=scripted_lm(Echo()))
    assert [item.outputs for item in batch] == [{"answer": "Q0"}, {"answer": "Q1"}]
    assert all(isinstance(item.result, Submitted) and item.usage["lm_calls"] == 2 for item in batch)
    item = batch[1]
    assert item.traces == [] and len(item.trace_paths) == 2  # written, not kept in memory
    assert [TraceNode.from_json(p).task for p in item.trace_paths] == ["question=q1", "question=1q"]


def test_the_batch_budget_stops_new_items_and_records_the_rest():
    rlm = RLM("question -> answer", max_iters=3)
    batch = run_batch(
        rlm, _examples(6), max_concurrency=1, budget={"max_cost": 0.0025}, progress=False, lm=scripted_lm(Echo())
    )
    assert [item.kind for item in batch] == ["submitted"] * 3 + ["error"] * 3
    assert {item.error.type for item in batch[3:]} == {"BudgetExhausted"}
    assert "max_cost=$0.0025" in batch[5].error.message and batch.usage["cost"] == pytest.approx(0.003)


def test_interrupt_keeps_what_finished(sigint_handler):
    rlm = RLM("question -> answer", max_iters=3)
    assert threading.current_thread() is threading.main_thread()  # SIGINT lands here, as a Ctrl-C would
    with pytest.raises(BatchInterrupted) as stop:
        run_batch(rlm, _examples(8), max_concurrency=1, progress=False, lm=scripted_lm(Interrupt("q2")))
    batch = stop.value.batch
    assert isinstance(stop.value, KeyboardInterrupt) and batch.interrupted
    assert [item.index for item in batch] == [0, 1] and all(item.kind == "submitted" for item in batch)
    assert batch.pending == [2, 3, 4, 5, 6, 7]


def test_the_progress_bar_counts_outcomes(capsys):
    rlm = RLM("question -> answer", max_iters=3)
    run_batch(rlm, _examples(2), progress=True, lm=scripted_lm(Echo()))
    err = capsys.readouterr().err
    assert "rlm batch" in err and "2/2" in err and "submitted=2" in err


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"runner": "spark"}, ValueError, "runner must be one of"),
        ({"max_concurrency": 0}, ValueError, "max_concurrency must be an integer >= 1"),
        ({"budget": {"max_cost": -1}}, ValueError, "BatchBudget.max_cost must be a positive number"),
        ({"budget": 0.5}, TypeError, "budget must be a BatchBudget"),
        ({"examples": ["q0"]}, TypeError, r"examples\[0\] is a str"),
    ],
)
def test_bad_arguments_say_the_fix(kwargs, error, match):
    arguments = {"examples": _examples(1), **kwargs}
    with pytest.raises(error, match=match):
        run_batch(
            RLM("question -> answer"), arguments.pop("examples"), progress=False, lm=scripted_lm(Echo()), **arguments
        )


def test_an_unpicklable_program_is_refused_before_ray_starts():
    class Holder(dspy.Module):
        def __init__(self):
            super().__init__()
            self.lock = threading.Lock()

        def forward(self, question):
            return dspy.Prediction(answer=question)

    with pytest.raises(TypeError, match="cannot be pickled for the workers"):
        run_batch(Holder(), _examples(1), runner="ray", progress=False, lm=scripted_lm(Echo()))


def test_budget_checks_its_numbers():
    assert BatchBudget(max_tokens=30).exhausted({"prompt_tokens": 20, "completion_tokens": 10}) == "max_tokens=30"
    assert BatchBudget(max_cost=1.0).exhausted({"cost": 0.5}) is None


def test_a_ctrl_c_while_traces_are_written_keeps_the_item_and_its_traces(tmp_path, monkeypatch):
    from dspy_rlm.scale.batch import _Collector
    from dspy_rlm.scale.results import ItemResult

    collector = _Collector(2, None, tmp_path, progress=False)
    traces = [{"kind": "first"}, {"kind": "second"}]
    real_replace = type(tmp_path).replace

    def interrupted_on_the_second(self, target):  # Ctrl-C lands after the first trace file is on disk
        if str(target).endswith(".1.json"):
            raise KeyboardInterrupt
        return real_replace(self, target)

    monkeypatch.setattr(type(tmp_path), "replace", interrupted_on_the_second)
    with pytest.raises(KeyboardInterrupt):
        collector.add(ItemResult(0, traces=list(traces)))
    item = collector.batch("threads", 0.0, interrupted=True)[0]
    assert item.index == 0 and item.trace_paths == [str(tmp_path / "item-00000.0.json")]
    assert item.traces == traces  # what is not on disk yet stays in memory
    assert json.loads((tmp_path / "item-00000.0.json").read_text()) == traces[0]
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".json") == ["item-00000.0.json"]
