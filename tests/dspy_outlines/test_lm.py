"""OutlinesLM: a dspy.LM over the embedded model through DSPy's engine contract (chat template, usage,
options, DSPy calls)."""

from __future__ import annotations

import builtins
import copy
import sys
import threading
import time
from typing import Literal

import dspy
import pytest

from dspy_outlines.lm import OutlinesLM, _text
from dspy_outlines.local_engine import LocalEngine, local_request
from dspy_outlines.models import MLX_EXTRA_HINT

QUESTION = "What is the capital of France?"


def test_content_parts_are_flattened():
    assert _text("plain") == "plain"
    assert _text([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]) == "ab"
    assert _text(None) == ""


def test_missing_outlines_names_the_extra(monkeypatch):
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "mlx_lm" or name.startswith("mlx_lm."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    monkeypatch.delitem(sys.modules, "mlx_lm", raising=False)
    with pytest.raises(ImportError) as info:
        OutlinesLM(engine="mlx")
    assert MLX_EXTRA_HINT in str(info.value)


@pytest.mark.real_model
def test_is_a_dspy_lm_exposing_the_outlines_model(embedded_lm):
    from outlines.models.mlxlm import MLXLM

    assert isinstance(embedded_lm, dspy.LM) and isinstance(embedded_lm.dspy_engine, LocalEngine)
    assert isinstance(embedded_lm.outlines_model, MLXLM)
    assert embedded_lm.outlines_model.model is embedded_lm.mlx_model
    # lm.model is the name DSPy routes by; copies of it are plain strings, never the weights.
    assert embedded_lm.model == embedded_lm.model_name and type(copy.deepcopy(embedded_lm.model)) in (
        str,
        type(embedded_lm.model),
    )
    assert embedded_lm.dump_state()["model"].endswith(".gguf")


@pytest.mark.real_model
def test_chat_template_is_applied(embedded_lm):
    messages = [
        {"role": "system", "content": "You answer briefly."},
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": "Paris."},
        {"role": "user", "content": "And of Italy?"},
    ]
    text = embedded_lm.render_prompt(messages)
    assert text == (
        "<|im_start|>system\nYou answer briefly.<|im_end|>\n"
        f"<|im_start|>user\n{QUESTION}<|im_end|>\n"
        "<|im_start|>assistant\nParis.<|im_end|>\n"
        "<|im_start|>user\nAnd of Italy?<|im_end|>\n"
        "<|im_start|>assistant\n"
    )
    # Without a system message the template inserts its default one.
    assert embedded_lm.render_prompt([{"role": "user", "content": "hi"}]).startswith("<|im_start|>system\n")


@pytest.mark.real_model
def test_a_request_returns_a_response_with_usage(embedded_lm):
    response = embedded_lm(local_request(embedded_lm.model, QUESTION, max_tokens=16))
    prompt = embedded_lm.render_prompt([{"role": "user", "content": QUESTION}])
    assert "Paris" in response.text
    assert response.usage.input_tokens == embedded_lm.count_tokens(prompt)
    assert 0 < response.usage.output_tokens <= 16
    assert response.usage.total_tokens == response.usage.input_tokens + response.usage.output_tokens
    assert response.model == embedded_lm.model_name


@pytest.mark.real_model
def test_max_tokens_is_honoured(embedded_lm):
    response = embedded_lm(local_request(embedded_lm.model, "Write a long story about a dragon.", max_tokens=4))
    assert response.usage.output_tokens <= 4
    assert response.finish_reason == "length"
    assert embedded_lm.count_tokens(response.text) <= 4


@pytest.mark.real_model
def test_temperature_is_honoured(embedded_lm):
    prompt = "Invent a name for a cat."
    greedy = [embedded_lm(prompt, max_tokens=6, temperature=0.0)[0] for _ in range(2)]
    assert greedy[0] == greedy[1]
    seeded = [embedded_lm(prompt, max_tokens=6, temperature=1.0, seed=7)[0] for _ in range(2)]
    assert seeded[0] == seeded[1]
    hot = embedded_lm(prompt, max_tokens=6, temperature=2.0, n=3)  # DSPy fans n out: one request each
    assert len(hot) == 3 and len(set(hot)) > 1


@pytest.mark.real_model
def test_n_and_stop(embedded_lm):
    assert len(embedded_lm(QUESTION, max_tokens=12, n=2)) == 2
    stopped = embedded_lm(local_request(embedded_lm.model, QUESTION, max_tokens=16, stop=["Paris"]))
    assert "Paris" not in stopped.text
    assert stopped.finish_reason == "stop"


@pytest.mark.real_model
def test_plain_dspy_lm_with_the_local_engine_is_the_same_lm(embedded_lm):
    """``dspy.LM(engine=LocalEngine)`` gets DSPy's cache and history; no DeprecationWarning from DSPy."""
    import uuid
    import warnings

    lm = dspy.LM("local/smollm2", engine=embedded_lm.dspy_engine, max_tokens=8, temperature=0.0, cache=True)
    prompt = f"{QUESTION} (ticket {uuid.uuid4().hex[:8]})"  # not in DSPy's on-disk cache yet
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        first = lm(prompt)
        again = lm(prompt)
    assert first == again == embedded_lm(prompt, max_tokens=8)
    assert lm.history[-1]["usage"] == {}  # the second call was served from DSPy's cache
    assert lm.history[0]["usage"]["completion_tokens"] > 0


@pytest.mark.real_model
def test_predict_round_trip_through_chat_adapter(embedded_lm):
    # Zero-shot, the 135M model writes code instead of the field markers; two demos teach it the format.
    # Greedy decoding is deterministic, so the parsed answer is exact.
    lm = embedded_lm.copy(max_tokens=24)
    predict = dspy.Predict("question -> answer")
    predict.demos = [
        dspy.Example(question="What is the capital of Italy?", answer="Rome"),
        dspy.Example(question="What is the capital of Spain?", answer="Madrid"),
    ]
    with dspy.context(lm=lm, adapter=dspy.ChatAdapter(use_json_adapter_fallback=False)):
        prediction = predict(question=QUESTION)
    assert prediction.answer == "Paris"
    entry = lm.history[0]
    assert entry["outputs"][0].startswith("[[ ## answer ## ]]")
    assert entry["usage"]["prompt_tokens"] > 0
    assert 0 < entry["usage"]["completion_tokens"] <= 24
    assert entry["messages"][0]["role"] == "system"
    assert "[[ ## answer ## ]]" in entry["messages"][0]["content"]


@pytest.mark.real_model
async def test_async_call(embedded_lm):
    outputs = await embedded_lm.acall(QUESTION, max_tokens=12)
    assert "Paris" in outputs[0]


@pytest.mark.real_model
def test_concurrent_calls_are_serialized(embedded_lm):
    expected = embedded_lm(QUESTION, max_tokens=10)
    results: list = [None, None]

    def call(i: int) -> None:
        results[i] = embedded_lm(QUESTION, max_tokens=10)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected, expected]


@pytest.mark.real_model
def test_constrained_call_goes_through_backends(embedded_lm):
    response = embedded_lm(
        local_request(embedded_lm.model, "Is the sky blue? Answer yes or no.", Literal["yes", "no"], max_tokens=8)
    )
    assert response.text in ("yes", "no")
    assert 0 < response.usage.output_tokens <= 8
    assert embedded_lm.history[-1]["request"].config.extensions["dspy_outlines"]["constraint"]["kind"] == "regex"


@pytest.mark.real_model
def test_direct_outlines_model_call_returns_a_literal(embedded_model, monkeypatch):
    """``lm.model(prompt, Literal[...])`` works right after construction, with no Metal."""
    import mlx.core as mx
    from outlines.backends.llguidance import LLGuidanceLogitsProcessor
    from outlines.backends.outlines_core import OutlinesCoreLogitsProcessor
    from outlines.backends.xgrammar import XGrammarLogitsProcessor

    from dspy_outlines import cpu_bitmask as backends
    from dspy_outlines.lm import OutlinesLM

    if not mx.metal.is_available():
        # Earlier tests installed the CPU path already: put Metal-only stand-ins back, so only
        # OutlinesLM's construction can make the call below work.
        def metal_only(*args, **kwargs):
            raise RuntimeError("[metal_kernel] No Metal back-end.")

        monkeypatch.setattr(backends, "_cpu_installed", False)
        for cls in (OutlinesCoreLogitsProcessor, LLGuidanceLogitsProcessor, XGrammarLogitsProcessor):
            monkeypatch.setattr(cls, "_bias_logits_mlx", metal_only)
    lm = OutlinesLM(embedded_model)
    assert lm.model("Pick one letter:", Literal["A", "B"], max_tokens=3) in ("A", "B")


@pytest.mark.real_model
@pytest.mark.parametrize("fixture", ["embedded_lm", "llamacpp_lm"])
def test_generate_is_constrained_generation_through_the_engine(request, fixture):
    import re

    from outlines.types import CFG, Regex

    lm = request.getfixturevalue(fixture)
    before = lm.engine.stats()["calls"]
    assert lm.generate(
        "Is 'I loved it' a positive or negative review?", Literal["positive", "negative"], max_tokens=8
    ) in ("positive", "negative")
    assert re.fullmatch(r"[A-Z]{2}-[0-9]{3}", lm.generate("Give a code.", Regex(r"[A-Z]{2}-[0-9]{3}"), max_tokens=12))
    sum_text = lm.generate(
        [{"role": "system", "content": "You write sums."}, {"role": "user", "content": "A sum:"}],
        CFG('start: NUM "+" NUM\nNUM: /[1-9]/\n'),
        max_tokens=8,
    )
    assert re.fullmatch(r"[1-9]\+[1-9]", sum_text)
    free = lm.generate("Say hello.", max_tokens=6)
    assert isinstance(free, str) and free.strip()
    assert lm.engine.stats()["calls"] == before + 4  # it ran on the engine (its lock, prefix cache), not around it
    with pytest.raises(TypeError, match="prompt must be a str or a list of message dicts"):
        lm.generate(42, int)


_EXIT_SCRIPT = """
import asyncio, os
os.environ["HF_HUB_OFFLINE"] = "1"
from dspy_outlines import OutlinesLM
lm = OutlinesLM(max_tokens=12)
async def main():
    await asyncio.gather(asyncio.to_thread(lm, "Say hi"), asyncio.to_thread(lm, "Say hello, with more words"))
asyncio.run(main())
print("done", flush=True)
"""


@pytest.mark.real_model
def test_process_exits_cleanly_after_generating_from_worker_threads():
    # Compiled decode steps keep a thread-local MLX cache; a worker thread that ran them and exits during
    # interpreter shutdown used to abort the process ("terminate called without an active exception"),
    # about one run in two. Every generation now runs on one long-lived MLX thread.
    import subprocess

    for _ in range(3):
        proc = subprocess.run(
            [sys.executable, "-c", _EXIT_SCRIPT], check=False, capture_output=True, text=True, timeout=300
        )
        assert proc.returncode == 0 and proc.stdout.strip() == "done", proc.stderr[-1500:]


@pytest.mark.real_model
def test_mlx_deadline_cuts_the_prefill_between_chunks_and_keeps_what_was_read(embedded_lm):
    from dspy_outlines.engines.base import GenerationRequest

    lm = embedded_lm.copy(max_tokens=8)
    chunk = lm.engine.prefill_chunk
    messages = [
        {
            "role": "user",
            "content": "MLX deadline test. " + "The river crossed the old city from east to "
            "west. " * 200 + "Where does the river flow?",
        }
    ]
    ids = lm.engine.encode(lm.render_prompt(messages))
    assert len(ids) > 6 * chunk  # far more than a fast CPU reads in 0.3 s
    started = time.monotonic()
    cut = lm.engine.generate(ids, GenerationRequest(max_tokens=8, deadline=started + 0.3))
    assert (cut.finish_reason, cut.text, cut.completion_tokens) == ("deadline", "", 0)
    # The chunks read before the deadline stay in the prefix cache: the same prompt goes on from there.
    again = lm(local_request(lm.model, messages, max_tokens=8))
    assert 0 < again.usage.cache_read_tokens < len(ids) - 1
    assert again.finish_reason in ("length", "stop")
