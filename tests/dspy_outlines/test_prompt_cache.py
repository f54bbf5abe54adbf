"""The MLX engine's prefix KV cache: same greedy output with and without it, reuse, trimming, eviction."""

from __future__ import annotations

import threading
from typing import Literal

import pytest

from dspy_outlines.engines import GenerationRequest
from dspy_outlines.models.prompt_cache import DISABLE_ENV, PrefixCache, common_prefix_length

mx = pytest.importorskip("mlx.core")

SYSTEM = (
    "You are a careful assistant inside a long-running agent loop. You answer briefly and precisely, "
    "you never invent facts, and you explain each step of your reasoning in one short sentence."
)
HISTORY = [
    "Step 1: we listed the files in the data directory.",
    "Step 2: the CSV file has 1,204 rows and 7 columns.",
    "Step 3: the column 'price' has 13 missing values.",
]


def _messages(steps: int, question: str = "What should we do next?") -> list[dict[str, str]]:
    history = "\n".join(HISTORY[:steps])
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": f"{history}\n\n{question}"}]


# -- pure pieces (no model) ----------------------------------------------------------------------


def test_common_prefix_length():
    assert common_prefix_length([1, 2, 3], [1, 2, 4, 5]) == 2
    assert common_prefix_length([1, 2], [1, 2, 3]) == 2
    assert common_prefix_length([7], [1]) == 0
    assert common_prefix_length([], [1]) == 0


@pytest.mark.parametrize("bad", [-1, "64", None, True])
def test_bad_budget_is_rejected(bad):
    with pytest.raises(ValueError, match="prefix_cache_mb must be a number >= 0"):
        PrefixCache(bad)


def test_env_switch_turns_the_cache_off(monkeypatch):
    monkeypatch.setenv(DISABLE_ENV, "1")
    assert not PrefixCache(256).enabled
    monkeypatch.delenv(DISABLE_ENV)
    assert PrefixCache(256).enabled and not PrefixCache(0).enabled


# -- the real embedded model ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def engines(embedded_model):
    """(cached, uncached) MLX engines over the same loaded model; the cached one prefills in 64-token chunks."""
    from dspy_outlines.engines.mlx import MLXEngine

    return MLXEngine(embedded_model, prefill_chunk=64), MLXEngine(embedded_model, prefix_cache_mb=0)


def _ids(engine, messages) -> list[int]:
    return engine.encode(engine.render_prompt(messages))


def _same(engines, ids, request):
    cached, uncached = engines
    with_cache, without = cached.generate(ids, request), uncached.generate(ids, request)
    assert with_cache.text == without.text
    assert with_cache.completion_tokens == without.completion_tokens
    assert with_cache.prompt_tokens == without.prompt_tokens == len(ids)
    assert without.cached_tokens == 0
    return with_cache


@pytest.mark.real_model
def test_growing_prompts_reuse_the_prefix_and_give_the_same_text(engines):
    cached, uncached = engines
    cached.prefix_cache.clear()
    request = GenerationRequest(max_tokens=16)
    first = _same(engines, _ids(cached, _messages(1)), request)
    assert first.cached_tokens == 0
    previous = _ids(cached, _messages(1))
    for steps in (2, 3):
        ids = _ids(cached, _messages(steps))
        completion = _same(engines, ids, request)
        # everything up to the end of the previous history is served from the cache
        assert completion.cached_tokens == common_prefix_length(previous, ids) > len(ids) // 2
        previous = ids
    stats = cached.stats()
    assert stats["hits"] >= 2 and stats["cached_tokens"] > 0 and stats["bytes"] > 0
    assert uncached.stats()["cached_tokens"] == 0 and uncached.stats()["entries"] == 0


@pytest.mark.real_model
def test_constrained_call_after_a_cached_prefix(engines):
    cached, _ = engines
    ids = _ids(cached, _messages(3, "Is the data ready for analysis? Answer yes or no."))
    cached.generate(ids, GenerationRequest(max_tokens=8))  # warm the cache with this very prompt
    request = GenerationRequest(max_tokens=8, constraint=Literal["yes", "no", "maybe"])
    completion = _same(engines, ids, request)
    assert completion.cached_tokens == len(ids) - 1  # all but the token that gives the first logits
    assert completion.text in {"yes", "no", "maybe"}


@pytest.mark.real_model
def test_constrained_processor_sees_the_full_history(engines, monkeypatch):
    """mlx-lm hands processors the tokens it was given; with a cache hit that must still be the whole prompt."""
    from dspy_outlines import processors as backends

    cached, _ = engines
    ids = _ids(cached, _messages(2, "Reply with a number."))
    cached.generate(ids, GenerationRequest(max_tokens=4))
    seen: list[list[int]] = []
    real = backends.get_logits_processor

    def recording(*args, **kwargs):
        processor = real(*args, **kwargs)

        def process(tokens, logits):
            seen.append(tokens.tolist())
            return processor(tokens, logits)

        return process

    monkeypatch.setattr(backends, "get_logits_processor", recording)
    completion = cached.generate(ids, GenerationRequest(max_tokens=4, constraint=Literal["1", "2", "3"]))
    assert completion.cached_tokens == len(ids) - 1
    assert seen and seen[0] == ids
    assert all(history[: len(ids)] == ids for history in seen)


@pytest.mark.real_model
def test_diverging_and_shorter_prompts_trim_without_corrupting_entries(engines):
    cached, _ = engines
    cached.prefix_cache.clear()
    request = GenerationRequest(max_tokens=12)
    original = _ids(cached, _messages(3))
    _same(engines, original, request)
    # diverges mid-way: same system prompt and first step, a different second step
    diverging = _ids(cached, [_messages(1)[0], {"role": "user", "content": HISTORY[0] + "\nStep 2: we stopped."}])
    shared = common_prefix_length(original, diverging)
    assert 0 < shared < len(diverging) - 1
    assert _same(engines, diverging, request).cached_tokens == shared
    # shorter than a cached prompt: a strict prefix of it
    shorter = original[: len(original) // 2]
    assert _same(engines, shorter, request).cached_tokens == len(shorter) - 1
    # the original entry is intact: the same prompt again reuses all but its last token, same text
    assert _same(engines, original, request).cached_tokens == len(original) - 1


@pytest.mark.real_model
def test_tiny_budget_evicts_and_stays_correct(embedded_model, engines):
    from dspy_outlines.engines.mlx import MLXEngine

    ids = _ids(engines[0], _messages(2))
    per_token = (
        2 * 4 * sum(layer.self_attn.n_kv_heads * layer.self_attn.head_dim for layer in embedded_model[0].model.layers)
    )  # float32 keys + values
    one_entry_mb = per_token * 512 / 2**20  # room for one entry (capacity: 256-token steps), not two
    tiny = MLXEngine(embedded_model, prefix_cache_mb=one_entry_mb)
    request = GenerationRequest(max_tokens=8)
    _same((tiny, engines[1]), ids, request)
    other = _ids(engines[0], _messages(1, "Summarize the situation in one sentence."))
    _same((tiny, engines[1]), other, request)
    stats = tiny.stats()
    assert stats["evictions"] >= 1 and stats["entries"] == 1 and stats["bytes"] <= stats["max_bytes"]
    # its own entry was evicted: only the system prompt it shares with the other one is reused
    assert _same((tiny, engines[1]), ids, request).cached_tokens == common_prefix_length(ids, other) < len(ids) - 1

    nothing = MLXEngine(embedded_model, prefix_cache_mb=0.01)  # smaller than any entry: never kept
    _same((nothing, engines[1]), ids, request)
    assert nothing.stats()["entries"] == 0 and nothing.stats()["evictions"] == 1


@pytest.mark.real_model
def test_concurrent_callers_get_their_own_answers(engines):
    cached, uncached = engines
    prompts = [_ids(cached, _messages(steps)) for steps in (1, 2, 3)]
    request = GenerationRequest(max_tokens=8)
    expected = [uncached.generate(ids, request).text for ids in prompts]
    results: dict[int, str] = {}

    def call(i: int) -> None:
        results[i] = cached.generate(prompts[i % 3], request).text

    threads = [threading.Thread(target=call, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [results[i] for i in range(6)] == expected * 2


@pytest.mark.real_model
def test_outlines_lm_reports_cached_tokens(embedded_model):
    from dspy_outlines.lm import OutlinesLM

    lm = OutlinesLM(embedded_model, engine="mlx", max_tokens=8, temperature=0.0)
    from dspy_outlines.local_engine import local_request

    lm(local_request(lm.model, _messages(2)))
    response = lm(local_request(lm.model, _messages(3)))
    assert response.usage.cache_read_tokens > 0
    assert lm.history[-1]["usage"]["prompt_tokens_details"]["cached_tokens"] == response.usage.cache_read_tokens
    with pytest.raises(ValueError, match="prefix_cache_mb must be a number >= 0"):
        OutlinesLM(embedded_model, engine="mlx", engine_options={"prefix_cache_mb": -5})
    with pytest.raises(ValueError, match="prefill_chunk must be a positive int"):
        OutlinesLM(embedded_model, engine="mlx", engine_options={"prefill_chunk": 0})


@pytest.mark.real_model
def test_an_extended_prompt_replaces_its_entry(engines):
    """A chat's next turn (the old prompt, then more) supersedes the old entry instead of adding one."""
    cached, _ = engines
    cached.prefix_cache.clear()
    ids = _ids(cached, _messages(1))
    cached.generate(ids, GenerationRequest(max_tokens=4))
    longer = ids + cached.encode("Fine.<|im_end|>\n<|im_start|>user\nAnd then?<|im_end|>\n<|im_start|>assistant\n")
    assert cached.generate(longer, GenerationRequest(max_tokens=4)).cached_tokens >= len(ids)
    assert cached.stats()["entries"] == 1
