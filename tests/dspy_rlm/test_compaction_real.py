"""Compaction on the embedded model (#30 item 4): a 50-iteration run never sends a prompt past the window.

The action LM is the real SmolLM2-135M (llama.cpp engine, its context set to 2,048 tokens so that fifty real
steps pass the window several times over in a few minutes; the window is read from the engine's ``n_ctx``).
The step policy is the small profile's, except that it never accepts a SUBMIT, so the run goes on to its
iteration limit and ends through the fallback extraction: typed.
"""

from __future__ import annotations

import dspy
import pytest

from dspy_rlm.profiles.resolve import resolve_policy

pytestmark = pytest.mark.real_model

N_CTX = 2048


class NoSubmitRun:
    """The small profile's run, refusing every SUBMIT."""

    name = "no-submit"

    def __init__(self, inner):
        self.inner, self.helper_style = inner, inner.helper_style

    def variables_info(self, context):
        return self.inner.variables_info(context)

    def prepare(self, step):
        return self.inner.prepare(step)

    def adapter(self):
        return self.inner.adapter()

    def decide(self, step):
        return self.inner.decide(step)

    async def check_submit(self, values, outputs, variables):
        return "Not yet: look at more records first."

    def settle(self, result, codes, stdouts):
        return self.inner.settle(result, codes, stdouts)


class NoSubmit:
    name = "no-submit"

    def start(self, run):
        return NoSubmitRun(resolve_policy("small", run.lm).start(run))


@pytest.mark.timeout(1800)  # ~5 min at a load of 4 on 2 cores
def test_fifty_real_steps_stay_inside_the_window_and_end_typed():
    from dspy_outlines import OutlinesLM
    from dspy_rlm import RLM

    lm = OutlinesLM(max_tokens=128, engine_options={"n_ctx": N_CTX})
    lines = [
        f"record {i}: host=node{i % 97}.example.org port={1000 + i} status={'ERROR' if i % 7 == 0 else 'ok'}"
        for i in range(3000)
    ]
    rlm = RLM("context, query -> answer", max_iters=50, max_llm_calls=60, policy=NoSubmit(), max_output_chars=2000)
    with dspy.context(lm=lm):
        pred = rlm(context="\n".join(lines), query="Which port does node5.example.org use when its status is ERROR?")
    prompts = [entry["usage"]["prompt_tokens"] for entry in lm.history if entry.get("usage")]
    assert pred.result.kind in ("extracted", "failed")  # typed: never submitted, never raised
    assert len(pred.trajectory) >= 45, pred.trace.warnings  # the run went (nearly) the whole way
    assert max(prompts) < N_CTX, prompts
    assert any(w.startswith("history compacted") for w in pred.trace.warnings)
    assert not any("more than the context" in w for w in pred.trace.warnings)
