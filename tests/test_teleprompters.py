"""RLM under DSPy teleprompters (issue 6, item 3), driven by the scripted LM of ``examples/optimize.py``.

Demos land on ``generate_action`` / ``extract``, the compiled program runs, ``save``/``load`` round-trips
through JSON, and runs that exhaust their budget during optimization are scored, never raised.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import dspy
import pytest

from dspy_rlm import RLM, Extracted, Submitted

ROOT = Path(__file__).resolve().parents[1]


def _load_example():
    spec = importlib.util.spec_from_file_location("rlm_optimize_example", ROOT / "examples" / "optimize.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


ex = _load_example()


@pytest.fixture
def lm():
    lm = ex.scripted_lm()
    with dspy.context(lm=lm):
        yield lm


@pytest.fixture
def trainset():
    return ex.make_examples(3, seed=0, n_words=120)


class KindMetric:
    """The example's metric, also recording the result kinds it was given."""

    def __init__(self):
        self.kinds: list[str] = []

    def __call__(self, example, pred, trace=None, pred_name=None, pred_trace=None):
        self.kinds.append(pred.result.kind)
        return ex.metric(example, pred, trace)


def _field(demo, name):
    return demo.get(name) if isinstance(demo, dict) else getattr(demo, name, None)


def _assert_round_trip(compiled: RLM, tmp_path: Path, example) -> RLM:
    path = tmp_path / "rlm.json"
    compiled.save(str(path))
    state = json.loads(path.read_text())
    assert {"generate_action", "extract"} <= set(state)
    restored = ex.make_rlm()
    restored.load(str(path))
    for (name, a), (_, b) in zip(compiled.named_predictors(), restored.named_predictors()):
        assert len(a.demos) == len(b.demos), name
        assert [_field(d, "code") for d in a.demos] == [_field(d, "code") for d in b.demos], name
        assert a.signature.instructions == b.signature.instructions, name
    pred = restored(**example.inputs())
    assert isinstance(pred.result, Submitted)
    assert pred.answer == example.answer
    return restored


def test_scripted_policy_solves_the_toy_task(lm, trainset):
    pred = ex.make_rlm()(**trainset[0].inputs())
    assert isinstance(pred.result, Submitted)
    assert pred.answer == trainset[0].answer
    assert pred.result.iterations == 2


def test_bootstrap_fewshot_demos_land_and_round_trip(lm, trainset, tmp_path):
    opt = dspy.BootstrapFewShot(metric=ex.metric, max_bootstrapped_demos=2, max_labeled_demos=0, max_rounds=1)
    compiled = opt.compile(ex.make_rlm(), trainset=trainset)
    demos = ex.demo_counts(compiled)
    assert demos["generate_action"] >= 1
    action_demo = compiled.generate_action.demos[0]
    assert "code" in action_demo and "reasoning" in action_demo
    pred = compiled(**trainset[1].inputs())
    assert isinstance(pred.result, Submitted) and pred.answer == trainset[1].answer
    _assert_round_trip(compiled, tmp_path, trainset[2])


def test_bootstrap_scores_budget_exhaustion_instead_of_crashing(lm, trainset):
    metric = KindMetric()
    opt = dspy.BootstrapFewShot(metric=metric, max_bootstrapped_demos=2, max_labeled_demos=0, max_rounds=1)
    compiled = opt.compile(ex.make_rlm(max_iters=1), trainset=trainset)  # explores, never submits
    assert metric.kinds and set(metric.kinds) <= {"extracted", "failed"}
    assert ex.demo_counts(compiled)["generate_action"] == 0  # nothing passed the metric
    pred = compiled(**trainset[0].inputs())
    assert isinstance(pred.result, Extracted) and pred.result.limit == "iterations"


def test_miprov2_compiles_runs_and_round_trips(lm, trainset, tmp_path):
    pytest.importorskip("optuna", reason="MIPROv2 needs the optional dependency optuna (pip install 'dspy[optuna]')")
    metric = KindMetric()
    opt = dspy.MIPROv2(
        metric=metric,
        prompt_model=lm,
        task_model=lm,
        auto=None,
        num_candidates=2,
        init_temperature=0.5,
        num_threads=1,
        verbose=False,
        track_stats=False,
    )
    compiled = opt.compile(
        ex.make_rlm(),
        trainset=trainset,
        valset=trainset,
        num_trials=2,
        max_bootstrapped_demos=1,
        max_labeled_demos=1,
        minibatch=False,
    )
    assert "submitted" in metric.kinds
    assert set(dict(compiled.named_predictors())) == {"generate_action", "extract"}
    _assert_round_trip(compiled, tmp_path, trainset[0])


# What the scripted LM answers to GEPA's reflection signature (its reply to optimizer meta-prompts).
GEPA_PROPOSAL = "Write Python that reads the variables, computes the answer exactly, and SUBMITs it."


class InstructionFollowingEngine(ex.ScriptedEngine):
    """The scripted policy, except that it solves in one step once its instructions carry GEPA's proposal.

    So the proposal is worth adopting exactly when GEPA reflected on the RLM's failed runs and put the
    reflection into ``generate_action``: the test can fail on any broken link of that chain.
    """

    def complete(self, request):
        system = request.system or ""
        if not isinstance(system, str):
            system = "".join(getattr(part, "text", "") or "" for part in system)
        self.explore_first = GEPA_PROPOSAL not in system
        return super().complete(request)


def _system(entry) -> str:
    return "".join(m["content"] for m in entry["messages"] if m["role"] == "system")


@pytest.mark.skipif(not hasattr(dspy, "GEPA"), reason="this dspy has no GEPA")
def test_gepa_reflects_on_typed_failures_and_adopts_the_better_instruction(trainset, tmp_path):
    lm = dspy.LM(ex.SCRIPTED_MODEL, engine=InstructionFollowingEngine(), cache=False)
    metric = KindMetric()
    student = ex.make_rlm(max_iters=1)  # explores on iteration 1: every run ends in extraction (score 0)
    original = student.generate_action.signature.instructions
    with dspy.context(lm=lm):
        opt = dspy.GEPA(
            metric=metric,
            reflection_lm=lm,
            max_metric_calls=20,
            num_threads=1,
            reflection_minibatch_size=2,
            use_merge=False,
            track_stats=True,
        )
        compiled = opt.compile(student, trainset=trainset, valset=trainset)
        # Budget exhaustion was scored, not raised; the reflection prompt held the failed run's own code.
        assert metric.kinds[:3] == ["extracted"] * 3
        reflections = [h for h in lm.history if "new_instruction" in ex.requested_fields(_system(h))]
        assert reflections and ex.EXPLORE_CODE in reflections[0]["messages"][-1]["content"]
        # GEPA adopted the proposal for the action step: it scores 1.0 on the valset where the seed scored 0.
        assert GEPA_PROPOSAL in compiled.generate_action.signature.instructions != original
        assert compiled.detailed_results.val_aggregate_scores[0] == 0.0
        assert max(compiled.detailed_results.val_aggregate_scores) == 1.0
        pred = compiled(**trainset[0].inputs())
        assert isinstance(pred.result, Submitted) and pred.answer == trainset[0].answer
    path = tmp_path / "gepa.json"
    compiled.save(str(path))
    restored = ex.make_rlm(max_iters=1)
    restored.load(str(path))
    assert restored.generate_action.signature.instructions == compiled.generate_action.signature.instructions


def test_example_script_runs(capsys, tmp_path):
    assert ex.main(["--optimizer", "bootstrap", "--train", "2", "--out", str(tmp_path)]) == 0
    line = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("{")][-1]
    summary = json.loads(line)
    assert summary["load_round_trip"] is True and summary["dev_score"] == 1.0
