"""Jump-forward decoding on the llama.cpp engine: the tokens a constraint forces are taken without a forward
pass each, and greedy outputs stay byte-identical to token-by-token decoding."""

from __future__ import annotations

import pytest
from outlines.types import Regex

from dspy_outlines.engines import GenerationRequest
from dspy_outlines.lm import OutlinesLM
from dspy_rlm.profiles.moves import moves_pattern, read
from tests.dspy_outlines.test_llamacpp import CONSTRAINTS

pytestmark = pytest.mark.real_model

# The small-model profile's guided action: a JSON object whose keys, quotes and code template are fixed.
GUIDED = Regex(
    moves_pattern(
        [
            read("search", f"I will search for {w!r}.", "search", "context", w, ignore_case=True)
            for w in ("ERROR", "incident")
        ]
        + [read("record", "I will read the record of 'ERROR'.", "record_of", "context", "ERROR")]
    )
)
CASES = {
    **{kind: (output_type, prompt, max_tokens) for kind, (output_type, prompt, max_tokens, _) in CONSTRAINTS.items()},
    "guided": (GUIDED, "Find the incident opened by the ERROR line in the log held in `context`.", 48),
}


@pytest.fixture(scope="module")
def token_by_token(llamacpp_lm):
    return OutlinesLM(None, engine="llamacpp", engine_options={"jump_forward": False, "prefix_cache_mb": 0})


@pytest.mark.parametrize("kind", sorted(CASES))
def test_greedy_output_is_byte_identical_to_token_by_token(llamacpp_lm, token_by_token, kind):
    output_type, prompt, max_tokens = CASES[kind]
    results = []
    for lm in (llamacpp_lm, token_by_token):
        ids = lm.engine.encode(lm.render_prompt([{"role": "user", "content": prompt}]))
        results.append(lm.engine.generate(ids, GenerationRequest(max_tokens=max_tokens, constraint=output_type)))
    jumped, stepped = results
    assert jumped.text.encode() == stepped.text.encode()
    assert (jumped.completion_tokens, jumped.finish_reason) == (stepped.completion_tokens, stepped.finish_reason)
    assert stepped.forced_tokens == 0 and 0 <= jumped.forced_tokens <= jumped.completion_tokens


def test_the_fixed_parts_of_a_guided_action_are_forced_not_sampled(llamacpp_lm):
    output_type, prompt, max_tokens = CASES["guided"]
    ids = llamacpp_lm.engine.encode(llamacpp_lm.render_prompt([{"role": "user", "content": prompt}]))
    before = llamacpp_lm.engine.stats()["forced_tokens"]
    done = llamacpp_lm.engine.generate(ids, GenerationRequest(max_tokens=max_tokens, constraint=output_type))
    assert done.text.startswith('{"reasoning": "I will ') and done.finish_reason == "stop"
    # '{"reasoning": "I will ' is fixed, and so is the code once the move is chosen: most tokens are forced.
    assert done.forced_tokens >= done.completion_tokens // 2 > 0
    assert llamacpp_lm.engine.stats()["forced_tokens"] == before + done.forced_tokens


def test_sampling_and_unconstrained_calls_do_not_jump(llamacpp_lm):
    ids = llamacpp_lm.engine.encode(llamacpp_lm.render_prompt([{"role": "user", "content": "Name a fruit."}]))
    free = llamacpp_lm.engine.generate(ids, GenerationRequest(max_tokens=8))
    sampled = llamacpp_lm.engine.generate(
        ids, GenerationRequest(max_tokens=8, temperature=0.7, seed=1, constraint=GUIDED)
    )
    assert free.forced_tokens == 0 and sampled.forced_tokens == 0 and free.completion_tokens > 0


@pytest.mark.parametrize("kind", ["guided", "json_schema", "regex", "cfg"])
def test_mlx_greedy_output_is_byte_identical_to_token_by_token(embedded_model, kind):
    from dspy_outlines.engines.mlx import MLXEngine

    output_type, prompt, max_tokens = CASES[kind]
    jumping = MLXEngine(embedded_model, prefix_cache_mb=0)
    stepping = MLXEngine(embedded_model, prefix_cache_mb=0, jump_forward=False)
    ids = jumping.encode(jumping.render_prompt([{"role": "user", "content": prompt}]))
    request = GenerationRequest(max_tokens=max_tokens, constraint=output_type)
    jumped, stepped = jumping.generate(ids, request), stepping.generate(ids, request)
    assert jumped.text.encode() == stepped.text.encode()
    assert (jumped.completion_tokens, jumped.finish_reason) == (stepped.completion_tokens, stepped.finish_reason)
    assert stepped.forced_tokens == 0 and 0 <= jumped.forced_tokens <= jumped.completion_tokens
    if kind == "guided":
        # MLX's default backend (outlines_core) allows every tokenization of the fixed text, so fewer positions
        # have a single allowed token than under llguidance (llama.cpp's default): fewer, but some, are forced.
        assert jumped.forced_tokens > 0
