"""LMs behind serving engines: Tier 3 constrained on a real llama.cpp server (llama-cpp-python's, on loopback).

The server serves the embedded SmolLM2 GGUF; ``ServerLM(server="llama-cpp-python")`` turns the adapter's
constraint into the server's fields (``response_format`` with a schema, ``grammar``). The field mapping for
the other servers (vLLM, SGLang, llama.cpp's own) is checked as data, without a server.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
import urllib.request
from enum import Enum
from typing import Annotated, Literal

import dspy
import pydantic
import pytest

from dspy_outlines import OutlinesAdapter
from dspy_outlines.serving import SERVER_KINDS, ServerLM, regex_to_gbnf, request_kwargs
from dspy_rlm.calls import deadline_kwargs

pytest.importorskip("llama_cpp.server.app", reason="llama-cpp-python[server] is not installed")

# litellm's response types: pydantic warns, once per process, when it first builds the schema of a TypedDict
# with ReadOnly items (litellm/types/utils.py); nothing of ours.
LITELLM_READONLY = "ignore:Items? .* on TypedDict class .* (is|are) using the `ReadOnly` qualifier:UserWarning"


class City(pydantic.BaseModel):
    name: str
    population: int


class Mood(Enum):
    HAPPY = "happy"
    SAD = "sad"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    from dspy_outlines.models import embedded_model_path

    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(embedded_model_path()),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "4096",
            "--n_threads",
            "1",
            "--verbose",
            "False",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    while True:
        try:
            with urllib.request.urlopen(f"{base}/models", timeout=2):
                break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"llama_cpp.server did not start: {proc.stderr.read().decode()[-2000:]}")
            time.sleep(0.5)
    yield base
    proc.terminate()
    proc.wait(timeout=30)
    proc.stderr.close()


def _lm(base: str, **kwargs) -> ServerLM:
    return ServerLM(
        "smollm2", api_base=base, server="llama-cpp-python", max_tokens=32, temperature=0.0, cache=False, **kwargs
    )


# Each signature read back from the server, checked on what the question says (ABC-123, Paris, 2 million,
# happy, a great movie): the server applied the constraint *and* the model answered from the question.
SIGNATURES = {
    # (this model's choice leans to "negative" whatever the text: the review is a negative one)
    "choice": ("review -> sentiment: Literal['positive', 'negative']", lambda out: out.sentiment == "negative"),
    # (this model answers SAD to "I am happy" through the server: only the constraint is checked here)
    "enum": (None, lambda out: isinstance(out.mood, Mood)),
    "int": ("question -> answer: int", lambda out: isinstance(out.answer, int)),
    "json_model": (None, lambda out: out.city.name == "Paris"),
    # (the model writes another code than the question's ABC-123 at times: the regex's shape is checked)
    "regex": (None, lambda out: re.fullmatch(r"[A-Z]{3}-[0-9]{3}", out.code) is not None),
    "plain_str": ("question -> answer", lambda out: isinstance(out.answer, str) and out.answer.strip()),
    "multi_field": (
        "question -> answer: str, confidence: float",
        lambda out: isinstance(out.answer, str) and isinstance(out.confidence, float),  # (it says 2.0 at times)
    ),
}


class MoodSig(dspy.Signature):
    question: str = dspy.InputField()
    mood: Mood = dspy.OutputField()


class CitySig(dspy.Signature):
    question: str = dspy.InputField()
    city: City = dspy.OutputField()


def _signature(name: str):
    from outlines.types import Regex

    text, _ = SIGNATURES[name]
    if text is not None:
        return dspy.Signature(text)
    if name == "enum":
        return MoodSig
    if name == "json_model":
        return CitySig
    return dspy.Signature({"question": dspy.InputField(), "code": dspy.OutputField()}).with_updated_fields(
        "code", type_=Annotated[str, Regex(r"[A-Z]{3}-\d{3}")]
    )


@pytest.mark.real_model
@pytest.mark.timeout(900)
@pytest.mark.filterwarnings(LITELLM_READONLY)
def test_every_constraint_kind_comes_back_valid_from_the_server(server):
    lm, adapter = _lm(server), OutlinesAdapter(tiers=("tier3",))
    question = "The ticket code is ABC-123. Paris has 2 million people. What a great movie, I am happy!"
    with dspy.context(lm=lm, adapter=adapter):
        for name, (_, valid) in SIGNATURES.items():
            signature = _signature(name)
            text = "Terrible, it broke after a day." if name == "choice" else question
            out = dspy.Predict(signature)(**dict.fromkeys(signature.input_fields, text))
            assert valid(out), (name, out)
    assert adapter.metrics["tier3"]["success"] == len(SIGNATURES) and adapter.metrics["tier3"]["failure"] == 0
    usage = [entry["usage"] for entry in lm.history]  # accounted from the server's response
    assert len(usage) == len(SIGNATURES) and all(u["prompt_tokens"] > 10 and u["completion_tokens"] > 0 for u in usage)


@pytest.mark.real_model
@pytest.mark.timeout(900)
@pytest.mark.filterwarnings(LITELLM_READONLY)
def test_the_rlm_runs_end_to_end_against_the_server(server):
    from benchmarks.longcontext.needles import generate
    from dspy_rlm import RLM, Submitted

    task = generate(2048, 1, seed=3, formats=("config",))[0]
    lm = _lm(server, small=True)  # the small profile: guided code, its regex sent as a GBNF grammar
    lm.kwargs["max_tokens"] = 96  # a grounded move is up to ~60 tokens
    with dspy.context(lm=lm):
        pred = RLM("context, query -> answer", max_iters=4, max_llm_calls=5, max_time=300)(
            context=task.context, query=task.query
        )
    assert isinstance(pred.result, Submitted) and pred.answer == task.gold[0], (pred.result, task.gold)
    assert "profile: small" in pred.trace.warnings
    assert pred.usage["lm_calls_total"] >= 2 and pred.usage["prompt_tokens"] > 500 and pred.usage["cost"] == 0.0


# -- the mapping, without a server ----------------------------------------------------------------


def test_each_server_gets_its_own_fields():
    from outlines.types import Regex

    choice, pattern = Literal["a", "b"], Regex(r"[0-9]{2}")
    assert request_kwargs(choice, "vllm") == {"extra_body": {"structured_outputs": {"choice": ["a", "b"]}}}
    assert request_kwargs(pattern, "vllm") == {"extra_body": {"structured_outputs": {"regex": "[0-9]{2}"}}}
    schema = request_kwargs(City, "vllm")["extra_body"]["structured_outputs"]["json"]
    assert schema["required"] == ["name", "population"]
    assert request_kwargs(choice, "vllm-guided") == {"extra_body": {"guided_choice": ["a", "b"]}}
    assert request_kwargs(pattern, "vllm-guided") == {"extra_body": {"guided_regex": "[0-9]{2}"}}
    assert request_kwargs(City, "sglang")["response_format"]["type"] == "json_schema"
    assert request_kwargs(choice, "sglang") == {"extra_body": {"regex": "a|b"}}
    assert request_kwargs(City, "llama.cpp")["extra_body"]["json_schema"]["additionalProperties"] is False
    assert request_kwargs(City, "llama-cpp-python")["response_format"]["type"] == "json_object"
    assert request_kwargs(choice, "llama.cpp") == {"extra_body": {"grammar": 'root ::= "a" | "b"'}}
    assert request_kwargs(int, "llama-cpp-python")["response_format"]["schema"] == {"type": "integer"}
    assert set(SERVER_KINDS) == {"vllm", "vllm-guided", "sglang", "llama.cpp", "llama-cpp-python"}


@pytest.mark.parametrize(
    "pattern",
    [
        r"\S[\s\S]{0,40}",
        r"[A-Z]{3}-\d{3}",
        r'\{"a": "(x|y)\.", "b": \[1\]\}',
        r"-?\d+(?:\.\d+)?",
        r"[^\s,]+\W",
        r"I will search for '(foo|bar)'\.",
        r"[\w.-]+@[a-z]+\.(com|org)",
        "caf\u00e9|\u4e2d\u6587",
    ],
)
def test_regexes_become_grammars_llama_cpp_accepts(pattern):
    import llama_cpp

    grammar = regex_to_gbnf(pattern)
    assert grammar.startswith("root ::= ") or "\nroot ::= " in grammar
    llama_cpp.LlamaGrammar.from_string(grammar, verbose=False)  # raises on a grammar llama.cpp would refuse


@pytest.mark.parametrize(
    "pattern, match",
    [
        (r"(?=a)b", "lookaround"),
        (r"a^b", "Anchor"),
        (r"[\S\d]", "mixes negated escapes"),
        (r"\1", "no GBNF form"),
    ],
)
def test_regexes_a_grammar_cannot_express_are_refused(pattern, match):
    with pytest.raises(ValueError, match=match):
        regex_to_gbnf(pattern)


def test_bad_configuration_says_the_fix():
    from outlines.types import CFG

    with pytest.raises(ValueError, match="choose one of vllm, vllm-guided"):
        ServerLM("m", api_base="http://127.0.0.1:1/v1", server="tgi")
    with pytest.raises(ValueError, match="needs api_base"):
        ServerLM("m", api_base="", server="vllm")
    with pytest.raises(ValueError, match="take GBNF grammars"):
        request_kwargs(CFG("start: 'a'"), "llama.cpp")
    lark = request_kwargs(CFG("start: 'a'"), "vllm")
    assert lark == {"extra_body": {"structured_outputs": {"grammar": "start: 'a'"}}}


def test_server_lm_travels_to_workers():
    import cloudpickle

    lm = ServerLM("m", api_base="http://127.0.0.1:9/v1", server="vllm", small=True, max_tokens=64)
    copy = cloudpickle.loads(cloudpickle.dumps(lm))
    assert (copy.model, copy.server, copy.is_small, copy.kwargs["max_tokens"]) == ("openai/m", "vllm", True, 64)
    rebuilt = ServerLM(**{k: v for k, v in lm.dump_state().items() if not k.startswith("_")})
    assert (rebuilt.model, rebuilt.server, rebuilt.is_small, rebuilt.kwargs["api_base"]) == (
        "openai/m",
        "vllm",
        True,
        "http://127.0.0.1:9/v1",
    )
    assert lm.constraint_kwargs(Literal["x"]) == {"extra_body": {"structured_outputs": {"choice": ["x"]}}}
    # a run's deadline reaches a server model as DSPy's own per-call timeout (the seconds left)
    assert 28 < deadline_kwargs(lm, time.monotonic() + 30)["timeout"] <= 30
