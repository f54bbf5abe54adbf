"""Local fine-tuning through DSPy: ``OutlinesLM.finetune`` trains a LoRA adapter with mlx-lm's tuner, the job's
result is an OutlinesLM with the adapter, and bad data, bad settings and foreign adapters are refused."""

from __future__ import annotations

import json

import pytest

from dspy_outlines.lora import TrainSettings, check_adapter, check_data

from .tiny_llama import tiny_llama

COLORS = [
    ("sky", "blue"),
    ("grass", "green"),
    ("snow", "white"),
    ("coal", "black"),
    ("blood", "red"),
    ("sun", "yellow"),
    ("plum", "purple"),
    ("ash", "grey"),
]


def chat(question: str, answer: str) -> dict:
    return {"messages": [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]}


DATA = [chat(f"What color is {thing}? One word.", f"ZORP-{color}") for thing, color in COLORS]


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ([], "train_data is empty"),
        ([{"messages": [{"role": "user", "content": "hi"}]}], "train_data[0] is not a chat example"),
        ([DATA[0], {"prompt": "x", "completion": "y"}], "train_data[1] is not a chat example"),
        (
            [chat("q", "a") | {"messages": [{"role": "user", "content": "q"}, {"role": "user", "content": "a"}]}],
            "train_data[0]",
        ),
    ],
)
def test_bad_training_data_is_refused_naming_the_example(data, says):
    with pytest.raises(ValueError, match=says.replace("[", r"\[").replace("]", r"\]")):
        check_data(data)


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [({"epochs": 3}, "unknown train_kwargs"), ({"steps": 0}, "steps"), ({"learning_rate": 0}, "learning_rate")],
)
def test_bad_train_kwargs_are_refused(kwargs, says):
    with pytest.raises(ValueError, match=says):
        TrainSettings.from_kwargs(kwargs)


def test_an_adapter_for_another_base_model_is_refused(tmp_path):
    from dspy_outlines.models import embedded_model_path

    (tmp_path / "adapter_config.json").write_text(json.dumps({"base_model_fingerprint": "0" * 24, "base_model": "x"}))
    (tmp_path / "adapters.safetensors").write_bytes(b"")
    with pytest.raises(ValueError, match="trained for another base model"):
        check_adapter(tmp_path, embedded_model_path())


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    """A tiny adapter trained on the embedded model (a few steps: proves the path, not the quality)."""
    from dspy_outlines import OutlinesLM

    out = tmp_path_factory.mktemp("adapter") / "colors"
    lm = OutlinesLM(max_tokens=8)
    settings = {
        "steps": 16,
        "batch_size": 4,
        "layers": 4,
        "rank": 8,
        "learning_rate": 5e-4,
        "save_every": 8,
        "seed": 1,
        "output_dir": str(out),
    }
    job = lm.finetune(DATA, None, settings)
    result = job.result()
    if isinstance(result, Exception):
        raise result
    return lm, result, out


@pytest.mark.real_model
def test_finetune_trains_an_adapter_whose_loss_falls(tuned):
    _, _, out = tuned
    config = json.loads((out / "adapter_config.json").read_text())
    assert sorted(p.name for p in out.iterdir()) == ["adapter_config.json", "adapters.safetensors"]
    assert config["steps_done"] == 16 and len(config["losses"]) == 16
    assert sum(config["losses"][-3:]) / 3 < config["losses"][0] / 2  # it learned the answers' form
    assert config["base_model_fingerprint"] and config["examples"] == len(DATA)
    assert (out / "adapters.safetensors").stat().st_size < 10 * 2**20


@pytest.mark.real_model
def test_the_tuned_lm_loads_the_adapter_and_the_base_lm_is_untouched(tuned):
    lm, result, out = tuned
    assert result.engine.name == lm.engine.name and result.engine.adapter == str(out)  # the LM's own engine
    assert "+lora-" in result.model_name
    answer = result("What color is sky? One word.")[0]
    assert answer.startswith("ZORP")  # the adapter's answer form, sixteen steps in
    assert not lm("What color is sky? One word.")[0].startswith("ZORP")  # the base model learned nothing
    assert result.dump_state()["engine_options"]["adapter"] == str(out)


@pytest.mark.real_model
@pytest.mark.parametrize(("engine", "mode"), [("mlx", None), ("llamacpp", "fused"), ("llamacpp", "lora")])
def test_both_engines_load_the_tiny_adapter_and_answer_in_its_form(tuned, tmp_path, engine, mode):
    """The CI tiny-training check: the adapter trained above (16 steps, its loss falling) loads on the MLX engine
    (merged into the weights) and on llama.cpp (a fused GGUF, a GGUF LoRA), and each answers in its form."""
    from dspy_outlines import OutlinesLM
    from tests.dspy_outlines.conftest import _llamacpp_skip_reason

    if engine == "llamacpp" and (reason := _llamacpp_skip_reason()):
        pytest.skip(reason)
    options = {} if mode is None else {"adapter_mode": mode, "adapter_cache": str(tmp_path)}
    tuned_lm = OutlinesLM(engine=engine, adapter=tuned[2], max_tokens=8, engine_options=options)
    assert tuned_lm.engine.name == engine and "+lora-" in tuned_lm.model_name
    answers = [tuned_lm(f"What color is {thing}? One word.")[0] for thing in ("sky", "grass")]
    assert all(answer.startswith("ZORP") for answer in answers), answers  # the adapter's answer form


@pytest.mark.real_model
def test_the_prefix_store_never_shares_states_across_adapters(tuned, tmp_path, embedded_model):
    from pathlib import Path

    from dspy_outlines.engines.mlx import _store
    from dspy_outlines.models import embedded_model_path

    model = embedded_model[0]  # the MLX engine's store (the llama.cpp one: test_llamacpp_adapter.py)
    plain = _store(tmp_path, Path(embedded_model_path()), model, 10)
    with_adapter = _store(tmp_path, Path(embedded_model_path()), model, 10, str(tuned[2]))
    assert plain.identity["model"] != with_adapter.identity["model"]
    assert plain.directory != with_adapter.directory


@pytest.mark.real_model
def test_bootstrap_finetune_compiles_a_dspy_program_on_the_embedded_model(tmp_path):
    """dspy.BootstrapFinetune with no extra argument: the teacher's traces train the student's OutlinesLM, and
    on questions it never saw the student now answers in the taught form (before: never)."""
    import re

    import dspy
    from dspy.teleprompt import BootstrapFinetune

    from dspy_outlines import OutlinesAdapter, OutlinesLM
    from tests.dspy_rlm.scripted_lm import ScriptedLM, fields

    def teach(call):
        thing = re.search(r"What color is (\w+)\?", call.user).group(1)
        return fields(answer=f"ZORP-{dict(COLORS + HELD_OUT)[thing]}")

    HELD_OUT = [("lime", "green"), ("milk", "white"), ("night", "black")]
    trainset = [
        dspy.Example(question=f"What color is {t}? One word.", answer=f"ZORP-{c}").with_inputs("question")
        for t, c in COLORS
    ]
    student = dspy.Predict("question -> answer")
    student.set_lm(OutlinesLM(max_tokens=16))
    teacher = dspy.Predict("question -> answer")
    teacher.set_lm(ScriptedLM(teach))

    def taught_form(program):  # Tier 3 makes the untrained model's answer parse too (ChatAdapter alone does not)
        with dspy.context(adapter=OutlinesAdapter()):
            answers = [program(question=f"What color is {t}? One word.").answer for t, _ in HELD_OUT]
        return sum(str(a).startswith("ZORP") for a in answers)

    before = taught_form(student)
    optimizer = BootstrapFinetune(
        metric=lambda gold, pred, trace=None: gold.answer == pred.answer,
        train_kwargs={
            "steps": 24,
            "batch_size": 4,
            "layers": 4,
            "rank": 8,
            "learning_rate": 5e-4,
            "seed": 0,
            "output_dir": str(tmp_path / "adapter"),
        },
        num_threads=1,
    )
    compiled = optimizer.compile(student, trainset=trainset, teacher=teacher)
    after = taught_form(compiled)
    assert compiled.lm.engine.adapter == str(tmp_path / "adapter")
    assert (before, after) == (0, len(HELD_OUT)), (before, after)


@pytest.mark.real_model
def test_the_small_policy_runs_its_steps_on_a_shipped_adapter_only_where_it_applies(tuned, monkeypatch, tmp_path):
    """``RLM(profile="auto")`` on ``OutlinesLM()`` (adapter left at "default") runs its action steps on the model
    plus the adapter the package ships, with the prompt it was trained on; ``adapter=None``, an adapter of the
    user's and a package without one leave the run on the LM as given."""
    import dspy

    from dspy_outlines import OutlinesLM
    from dspy_rlm import RLM
    from dspy_rlm.profiles import SMALL, SMALL_TUNED
    from dspy_rlm.profiles import tuned as shipped
    from dspy_rlm.profiles.resolve import resolve_policy

    def ships(path):
        monkeypatch.setattr(shipped, "ADAPTER_DIR", path)
        shipped._TUNED.clear()

    base = OutlinesLM(max_tokens=8)
    ships(tmp_path / "none")  # the package ships no adapter
    assert shipped.tuned_lm(base) is None and resolve_policy("auto", base).profile is SMALL

    ships(tuned[2])
    policy = resolve_policy("auto", base)
    assert policy.profile is SMALL_TUNED and policy.lm.engine.adapter == str(tuned[2])
    assert shipped.tuned_lm(base) is policy.lm  # built once per base LM
    assert shipped.tuned_lm(OutlinesLM(adapter=None, max_tokens=8)) is None  # turned off
    assert shipped.tuned_lm(OutlinesLM(adapter=tuned[2], max_tokens=8)) is None  # the user's own adapter
    assert resolve_policy("small", OutlinesLM(adapter=None, max_tokens=8)).profile is SMALL
    assert OutlinesLM(adapter=None).dump_state()["adapter"] is None  # "off" survives save and load

    from dspy_rlm.profiles import ranker

    monkeypatch.setattr(ranker, "load_ranker", lambda *a, **k: None)  # every move offered: the LM takes each step
    with dspy.context(lm=base):
        pred = RLM("context, question -> answer", max_iters=2)(context="a,b\n1,2", question="What is b of 1?")
    steps = [c for c in policy.lm.history if c.get("messages")]
    assert steps and pred.result is not None, "the action steps ran on the tuned LM"
    assert "one line of Python a step" in steps[-1]["messages"][0]["content"]  # the terse prompt it was trained on

    broken = tmp_path / "broken"  # a shipped adapter that does not load: logged, and the run uses the LM given
    broken.mkdir()
    (broken / "adapter_config.json").write_text((tuned[2] / "adapter_config.json").read_text())
    (broken / "adapters.safetensors").write_bytes(b"not weights")
    ships(broken)
    assert shipped.tuned_lm(OutlinesLM(max_tokens=8)) is None
    assert resolve_policy("auto", OutlinesLM(max_tokens=8)).profile is SMALL


def test_the_windowed_loss_equals_mlx_lms_loss_and_its_gradient():
    """The answer positions' logits only (``window_loss``): the same loss and LoRA gradient as mlx-lm's
    ``default_loss`` on a tiny llama, prompts of different lengths padded in one batch."""
    from dspy_outlines.models.blas import ensure_fast_blas

    ensure_fast_blas()
    import mlx.core as mx
    import mlx.nn as nn
    from mlx.utils import tree_flatten
    from mlx_lm.tuner.trainer import default_loss
    from mlx_lm.tuner.utils import linear_to_lora_layers

    from dspy_outlines.lora import window_loss

    model = tiny_llama(3, hidden_size=32, intermediate_size=64, vocab_size=97, tie_word_embeddings=True)
    model.freeze()
    linear_to_lora_layers(model, 2, {"rank": 4, "scale": 10.0, "dropout": 0.0, "keys": ["self_attn.q_proj"]})
    examples = [(list(range(5, 5 + n)), off) for n, off in ((20, 14), (12, 9), (17, 15))]
    width = 1 + max(len(t) for t, _ in examples)
    batch = mx.array([t + [0] * (width - len(t)) for t, _ in examples])
    lengths = mx.array([[off, len(t)] for t, off in examples])
    window = max(len(t) - off for t, off in examples) + 1
    want, want_grad = nn.value_and_grad(model, default_loss)(model, batch, lengths)
    got, got_grad = nn.value_and_grad(model, window_loss(window))(model, batch, lengths)
    assert abs(want[0].item() - got[0].item()) < 1e-5 and want[1].item() == got[1].item() == 14
    flat_want, flat_got = dict(tree_flatten(want_grad)), dict(tree_flatten(got_grad))
    assert flat_want.keys() == flat_got.keys() and flat_want
    assert all(mx.allclose(flat_want[k], flat_got[k], atol=1e-5).item() for k in flat_want)
    assert any(mx.abs(flat_want[k]).max().item() > 0 for k in flat_want)
    assert window_loss(window - 2)(model, batch, lengths)[1].item() == 12  # too short a window drops tokens
