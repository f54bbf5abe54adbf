"""The llama.cpp engine on the embedded SmolLM2 GGUF: prompt, constraints, prefix cache, deadline, threads."""

from __future__ import annotations

import copy
import enum
import json
import re
import threading
import time
from typing import Literal

import dspy
import pydantic
import pytest
from outlines.types import CFG, JsonSchema, Regex

from dspy_outlines import OutlinesAdapter
from dspy_outlines.contract import deadline_scope
from dspy_outlines.engines import GenerationRequest
from dspy_outlines.engines.llamacpp_prefix import MIN_LAST_BATCH
from dspy_outlines.lm import OutlinesLM
from dspy_outlines.local_engine import local_request

pytestmark = pytest.mark.real_model

QUESTION = [{"role": "user", "content": "What is the capital of France?"}]
LONG_SYSTEM = " ".join(f"Rule {i}: answer in short plain words and never use lists." for i in range(12))


class City(pydantic.BaseModel):
    name: str
    is_capital: bool


class Mood(enum.Enum):
    happy = "happy"
    sad = "sad"


SUM_GRAMMAR = r"""
start: NUMBER "+" NUMBER
NUMBER: /[0-9]{1,2}/
"""

# output type, prompt, max_tokens, check on the generated text
CONSTRAINTS = {
    "pydantic": (
        City,
        "Give a JSON object for the city Paris: its name and whether it is a capital.",
        32,
        lambda t: City.model_validate_json(t).name != "",
    ),
    "json_schema": (
        JsonSchema(json.dumps({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]})),
        "Is the sky blue? Answer as JSON with the key ok.",
        12,
        lambda t: isinstance(json.loads(t)["ok"], bool),
    ),
    "literal": (
        Literal["positive", "negative"],
        "Is 'I love it' positive or negative?",
        4,
        lambda t: t in ("positive", "negative"),
    ),
    "enum": (Mood, "Happy or sad: how does a winner feel?", 4, lambda t: t in ("happy", "sad")),
    "int": (int, "How many legs does a cat have?", 4, lambda t: re.fullmatch(r"[+-]?(0|[1-9][0-9]*)", t)),
    "regex": (
        Regex(r"[A-Z]{3}-[0-9]{3}"),
        "Write a ticket code like ABC-123.",
        8,
        lambda t: re.fullmatch(r"[A-Z]{3}-[0-9]{3}", t),
    ),
    "cfg": (CFG(SUM_GRAMMAR), "Write 2+3.", 8, lambda t: re.fullmatch(r"[0-9]{1,2}\+[0-9]{1,2}", t)),
}


def _text(response) -> str:
    return response.text


def ask(lm, messages, output_type=None, **config):
    """One DSPy call with an explicit request: the ``dspy.lm15.Response`` (text, finish reason, usage)."""
    return lm(local_request(lm.model, messages, output_type, **config))


def test_a_request_returns_a_response_with_usage(llamacpp_lm):
    response = ask(llamacpp_lm, QUESTION, max_tokens=8)
    assert response.model == "local/SmolLM2-135M-Instruct.Q4_1.gguf"
    assert response.message.role == "assistant" and response.text.strip()
    assert response.finish_reason in ("stop", "length")
    usage = response.usage
    assert usage.input_tokens == len(llamacpp_lm.engine.encode(llamacpp_lm.render_prompt(QUESTION)))
    assert 0 < usage.output_tokens <= 8
    assert usage.total_tokens == usage.input_tokens + usage.output_tokens
    assert 0 <= usage.cache_read_tokens < usage.input_tokens
    assert llamacpp_lm.engine.name == "llamacpp" and repr(llamacpp_lm).startswith("OutlinesLM(")


def test_chat_template_matches_the_mlx_engine(llamacpp_lm, embedded_lm):
    conversations = [
        QUESTION,  # no system message: the template's default one
        [
            {"role": "system", "content": "You answer briefly."},
            *QUESTION,
            {"role": "assistant", "content": "Paris."},
            {"role": "user", "content": "And of Italy?"},
        ],
    ]
    for messages in conversations:
        text = llamacpp_lm.render_prompt(messages)
        assert text == embedded_lm.render_prompt(messages)
        assert text.endswith("<|im_start|>assistant\n")
        # Special tokens are parsed (one id each) and no BOS is added in front of the template's own tokens.
        ids = llamacpp_lm.engine.encode(text)
        assert ids == embedded_lm.engine.encode(text)
        assert ids[0] == llamacpp_lm.engine.llama.tokenize(b"<|im_start|>", add_bos=False, special=True)[0]
    assert "You are a helpful AI assistant named SmolLM" in llamacpp_lm.render_prompt(QUESTION)


@pytest.mark.parametrize("kind", list(CONSTRAINTS))
def test_every_constraint_kind_is_valid(llamacpp_lm, kind):
    output_type, question, max_tokens, check = CONSTRAINTS[kind]
    response = ask(llamacpp_lm, question, output_type, max_tokens=max_tokens)
    assert check(_text(response)), _text(response)


def test_outlines_model_is_usable_directly_and_shared_on_deepcopy(llamacpp_lm):
    from outlines.models.llamacpp import LlamaCpp

    assert isinstance(llamacpp_lm.outlines_model, LlamaCpp)
    assert copy.deepcopy(llamacpp_lm.outlines_model) is llamacpp_lm.outlines_model
    answer = llamacpp_lm.model("Pick a letter, A or B.", Literal["A", "B"], max_tokens=4)
    assert answer in ("A", "B")
    # Outlines' generate reset the context; the engine still answers (and recomputes the prompt).
    assert _text(ask(llamacpp_lm, QUESTION, max_tokens=4)).strip()


@pytest.fixture(scope="module")
def uncached_lm(llamacpp_lm):
    """The embedded GGUF on llama.cpp with the prefix cache off: every call prefills its whole prompt."""
    return OutlinesLM(None, engine="llamacpp", max_tokens=12, engine_options={"prefix_cache_mb": 0})


def test_prefix_cache_reuses_the_shared_prefix_with_identical_output(uncached_lm):
    cached_lm = OutlinesLM(None, engine="llamacpp", max_tokens=12)
    first = [{"role": "system", "content": LONG_SYSTEM}, {"role": "user", "content": "Name a fruit."}]
    second = [{"role": "system", "content": LONG_SYSTEM}, {"role": "user", "content": "Name a colour."}]
    ids = [cached_lm.engine.encode(cached_lm.render_prompt(m)) for m in (first, second)]
    shared = next(i for i, (x, y) in enumerate(zip(*ids)) if x != y)

    cold = ask(cached_lm, first, max_tokens=12)
    warm = ask(cached_lm, second, max_tokens=12)
    assert cold.usage.cache_read_tokens == 0
    assert warm.usage.cache_read_tokens == shared > 100  # the shared system prompt is not computed again
    for messages, response in ((first, cold), (second, warm)):
        reference = ask(uncached_lm, messages, max_tokens=12)
        assert reference.usage.cache_read_tokens == 0
        assert _text(reference) == _text(response)
    assert uncached_lm.engine.stats()["cached_tokens"] == 0 and uncached_lm.engine.stats()["calls"] >= 2
    assert cached_lm.engine.stats()["cached_tokens"] == warm.usage.cache_read_tokens


def test_a_greedy_answer_depends_on_the_prompt_only_not_on_the_calls_before(uncached_lm):
    """A prompt asked again (all but its last token cached) and a chat turn after the model's own reply (a
    prefix that runs into generated tokens) answer as the same prompt prefilled from nothing: llama.cpp's
    one-token batches give other logits, and "Count from 2 to 5." asked twice answered otherwise before."""
    lm = OutlinesLM(None, engine="llamacpp", max_tokens=8)
    for i in range(5):
        prompt = [{"role": "user", "content": f"Count from {i} to {i + 3}."}]
        reference = _text(ask(uncached_lm, prompt, max_tokens=8))
        first, again = ask(lm, prompt, max_tokens=8), ask(lm, prompt, max_tokens=8)
        assert again.usage.cache_read_tokens == again.usage.input_tokens - MIN_LAST_BATCH
        assert _text(first) == _text(again) == reference, i
        turn = [*prompt, {"role": "assistant", "content": _text(first)}, {"role": "user", "content": "Go on."}]
        assert _text(ask(lm, turn, max_tokens=8)) == _text(ask(uncached_lm, turn, max_tokens=8)), i


def test_saved_prefixes_serve_interleaved_prompts_with_identical_output(uncached_lm):
    lm = OutlinesLM(None, engine="llamacpp", max_tokens=8)
    a = [{"role": "system", "content": LONG_SYSTEM}, {"role": "user", "content": "Name a fruit."}]
    b = [{"role": "user", "content": "Say hello in French. " * 20}]
    ask(lm, a, max_tokens=8)
    ask(lm, b, max_tokens=8)  # drops a's prompt from the live context: a's KV is saved first
    again = ask(lm, a, max_tokens=8)
    stats = lm.engine.stats()
    assert stats["saved_states"] >= 1 and stats["restored_states"] == 1
    assert again.usage.cache_read_tokens == again.usage.input_tokens - MIN_LAST_BATCH
    assert _text(again) == _text(ask(uncached_lm, a, max_tokens=8))


def test_a_passed_deadline_returns_at_once_with_no_text(llamacpp_lm):
    before = llamacpp_lm.engine.stats()["deadline_before_first_token"]
    with deadline_scope(time.monotonic()):
        response = ask(llamacpp_lm, "Write a long story.", max_tokens=48)
    assert (response.finish_reason, response.provider_data["finish_reason"]) == ("length", "deadline")
    assert _text(response) == "" and response.usage.output_tokens == 0
    assert llamacpp_lm.engine.stats()["deadline_before_first_token"] == before + 1


def test_deadline_stops_the_decoding_between_tokens(llamacpp_lm, monkeypatch):
    from dspy_outlines.engines import llamacpp

    engine = llamacpp_lm.engine
    messages = [{"role": "user", "content": "Write a long story about a dragon."}]
    ids = engine.encode(llamacpp_lm.render_prompt(messages))

    def third_token_read(deadline):  # a clock on which the deadline passes once this prompt has 3 new tokens
        llama = engine.llama
        return list(llama._input_ids[: len(ids)]) == ids and llama.n_tokens >= len(ids) + 3

    monkeypatch.setattr(llamacpp, "_passed", third_token_read)
    with deadline_scope(time.monotonic() + 3600):
        response = ask(llamacpp_lm, messages, max_tokens=48)
    assert response.provider_data["finish_reason"] == "deadline"
    assert 1 <= response.usage.output_tokens <= 4 and _text(response)


def test_deadline_cuts_the_prefill_between_chunks_and_keeps_what_was_read(uncached_lm):
    from dspy_outlines.engines.llamacpp import PREFILL_CHUNK

    lm = OutlinesLM(None, engine="llamacpp", max_tokens=8)
    messages = [
        {
            "role": "user",
            "content": "Deadline test. "
            + "The river crossed the old city from east to west. " * 200
            + "Where does the river flow?",
        }
    ]
    ids = lm.engine.encode(lm.render_prompt(messages))
    assert len(ids) > 8 * PREFILL_CHUNK  # far more than a fast CPU reads in 0.25 s
    cut = lm.engine.generate(ids, GenerationRequest(max_tokens=8, deadline=time.monotonic() + 0.25))
    assert (cut.finish_reason, cut.text, cut.completion_tokens) == ("deadline", "", 0)
    # The chunks read before the deadline stay in the context: the same prompt goes on from there.
    again = ask(lm, messages, max_tokens=8)
    assert 0 < again.usage.cache_read_tokens < len(ids) - PREFILL_CHUNK
    assert again.usage.cache_read_tokens % PREFILL_CHUNK == 0
    assert _text(again) == _text(ask(uncached_lm, messages, max_tokens=8))


def test_a_stop_aborts_the_prefill_in_progress_and_the_engine_goes_on(uncached_lm):
    """An interrupt (a stop_scope's event set from another thread) ends the call within a second, inside the
    chunk being read (llama.cpp's abort callback), not after it; the next call is as if nothing happened."""
    import threading

    from dspy_outlines.contract import stop_scope

    lm = OutlinesLM(None, engine="llamacpp", max_tokens=8)
    messages = [{"role": "user", "content": "Stop test. " + "The old bridge spans the river. " * 300 + "Why?"}]
    ids = lm.engine.encode(lm.render_prompt(messages))
    with stop_scope() as stop:
        timer = threading.Timer(0.3, stop.set)
        timer.start()
        started = time.monotonic()
        cut = lm.engine.generate(ids, GenerationRequest(max_tokens=8))
        took = time.monotonic() - started
    assert (cut.finish_reason, cut.text, cut.completion_tokens) == ("deadline", "", 0)
    assert took < 1.3, f"{took:.2f} s"  # 0.3 s, then at most one graph node more
    assert _text(ask(lm, messages, max_tokens=8)) == _text(ask(uncached_lm, messages, max_tokens=8))


def test_stop_strings_end_the_text(llamacpp_lm):
    full = _text(ask(llamacpp_lm, QUESTION, max_tokens=16))
    cut = full.split()[1]
    stopped = ask(llamacpp_lm, QUESTION, max_tokens=16, stop=[cut])
    assert stopped.finish_reason == "stop"
    assert _text(stopped) == full[: full.index(cut)]


def test_seeded_sampling_repeats_and_n_gives_n_choices(llamacpp_lm):
    def sample():
        return llamacpp_lm(QUESTION[0]["content"], max_tokens=12, temperature=1.0, seed=7, n=2)

    first, second = sample(), sample()
    assert len(first) == 2  # DSPy fans n out: one request per completion
    assert first == second  # the seed holds for every completion
    assert llamacpp_lm.history[-1]["usage"]["completion_tokens"] >= 2


def test_concurrent_calls_are_serialized_and_match_sequential_ones(llamacpp_lm):
    prompts = [[{"role": "user", "content": f"Count from {i} to {i + 3}."}] for i in range(3)]
    expected = [_text(ask(llamacpp_lm, m, max_tokens=8)) for m in prompts]
    engine, active, peak, results = llamacpp_lm.engine, [0], [0], [None] * 3
    original = engine._generate

    def tracked(*args, **kwargs):
        active[0] += 1
        peak[0] = max(peak[0], active[0])
        try:
            return original(*args, **kwargs)
        finally:
            active[0] -= 1

    engine._generate = tracked
    try:
        threads = [
            threading.Thread(
                target=lambda i=i: results.__setitem__(i, _text(ask(llamacpp_lm, prompts[i], max_tokens=8)))
            )
            for i in range(3)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        del engine._generate
    assert peak[0] == 1
    assert results == expected


def test_predict_through_the_tier3_adapter_returns_a_typed_output(llamacpp_lm):
    adapter = OutlinesAdapter(tiers=("tier3",))
    with dspy.context(lm=llamacpp_lm, adapter=adapter):
        pred = dspy.Predict("review -> sentiment: Literal['positive', 'negative'], stars: int")(
            review="Great phone, works perfectly.", config={"max_tokens": 24}
        )
    assert pred.sentiment in ("positive", "negative") and isinstance(pred.stars, int)
    assert adapter.metrics["tier3_success"] == 1


def test_dump_state_round_trip():
    lm = OutlinesLM(None, engine="llamacpp", max_tokens=16, engine_options={"n_ctx": 2048, "prefix_cache_mb": 32})
    state = lm.dump_state()
    assert state["model"].endswith(".gguf") and state["engine"] == "llamacpp"
    assert state["engine_options"] == {"n_ctx": 2048, "prefix_cache_mb": 32}
    again = dspy.BaseLM.load_state(state, allow_custom_lm_class=True)
    assert isinstance(again, OutlinesLM) and again.engine.name == "llamacpp"
    assert again.engine.n_ctx == 2048 and again.engine.prefix_cache_mb == 32 and again.kwargs["max_tokens"] == 16
    assert again.dump_state() == state


def test_a_failing_logits_processor_raises_instead_of_generating_unconstrained(llamacpp_lm, monkeypatch):
    import dspy_outlines.processors as backends

    def broken(input_ids, logits):
        raise ValueError("mask failed")

    monkeypatch.setattr(backends, "get_logits_processor", lambda *args, **kwargs: broken)
    with pytest.raises(Exception, match="mask failed"):
        ask(llamacpp_lm, QUESTION, Literal["A", "B"], max_tokens=4)
    monkeypatch.undo()
    assert _text(ask(llamacpp_lm, QUESTION, Literal["A", "B"], max_tokens=4)) in ("A", "B")


def test_bad_options_and_prompts_get_clear_errors(llamacpp_lm, tmp_path):
    with pytest.raises(ValueError, match="n_ctx"):
        OutlinesLM(None, engine="llamacpp", engine_options={"n_ctx": -1})
    with pytest.raises(ValueError, match="prefix_cache_mb"):
        OutlinesLM(None, engine="llamacpp", engine_options={"prefix_cache_mb": -5})
    with pytest.raises(ValueError, match="engine='mlx'"):
        OutlinesLM(None, engine="llamacpp", dequantize=True)
    with pytest.raises(ValueError, match="engine='mlx'"):
        OutlinesLM(tmp_path, engine="llamacpp")
    with pytest.raises(TypeError, match=r"not a loaded \(model, tokenizer\) pair; use engine='mlx'"):
        OutlinesLM((object(), object()), engine="llamacpp")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        OutlinesLM(tmp_path / "missing.gguf", engine="llamacpp")
    with pytest.raises(ValueError, match="context"):
        llamacpp_lm.engine.generate([1] * (llamacpp_lm.engine.n_ctx + 1), GenerationRequest(max_tokens=4))


def test_a_prompt_past_the_context_is_dspys_context_window_error(llamacpp_lm):
    from dspy_outlines.engines.base import PromptTooLong

    n_ctx = llamacpp_lm.engine.n_ctx
    with pytest.raises(PromptTooLong) as raised:  # the engine's own: a ValueError, and DSPy's engine contract error
        llamacpp_lm.engine.generate([1] * (n_ctx + 1), GenerationRequest(max_tokens=4))
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, dspy.lm15.ContextLengthError)
    assert (raised.value.tokens, raised.value.window) == (n_ctx + 1, n_ctx)
    with pytest.raises(dspy.ContextWindowExceededError, match="more than the context"):  # through dspy.LM
        llamacpp_lm("word " * (n_ctx + 10))
