"""run_batch on the embedded model (SmolLM2-135M, small profile): real lookups, typed results, real usage."""

from __future__ import annotations

import pytest

from benchmarks.longcontext.needles import generate

pytestmark = pytest.mark.real_model


@pytest.fixture(scope="module")
def embedded_lm():
    from dspy_outlines import OutlinesLM

    return OutlinesLM(max_tokens=96, engine_options={"n_threads": 1})  # a grounded move is up to ~60 tokens


@pytest.mark.timeout(900)
def test_batch_of_lookups_on_the_embedded_model(embedded_lm):
    import dspy

    from dspy_rlm import RLM
    from dspy_rlm.scale import run_batch

    tasks = generate(2048, 2, seed=3, formats=("log", "config"))
    examples = [dspy.Example(context=t.context, query=t.query).with_inputs("context", "query") for t in tasks]
    rlm = RLM("context, query -> answer", max_iters=4, max_llm_calls=5, max_time=120)
    batch = run_batch(rlm, examples, max_concurrency=2, progress=False, lm=embedded_lm)

    assert len(batch) == 2 and batch.pending == []
    for item, task in zip(batch, tasks):
        assert item.kind == "submitted" and item.outputs["answer"] == task.gold[0], (item.kind, item.outputs, task.gold)
        assert "profile: small" in item.trace.warnings
        assert item.usage["lm_calls"] >= 2 and item.usage["prompt_tokens"] > 100 and item.usage["cost"] == 0.0
    assert batch.usage["completion_tokens"] == sum(item.usage["completion_tokens"] for item in batch)


def test_a_local_model_travels_as_its_configuration(embedded_lm):
    from dspy_rlm import RLM
    from dspy_rlm.scale.runner import ProgramPackage

    package = ProgramPackage.build(RLM("context, query -> answer", max_iters=2), embedded_lm, None)
    program, lm, adapter = package.unpack()  # what a Ray worker does: the model is loaded there, not pickled
    assert lm is not embedded_lm and type(lm) is type(embedded_lm)
    assert lm.model_name == embedded_lm.model_name and lm.kwargs["max_tokens"] == 96
    assert lm.engine.name == embedded_lm.engine.name and program.max_iters == 2 and adapter is None
