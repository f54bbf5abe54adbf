"""Each extension point of dspy_outlines is one registry with a register_* function (like the REPL backends'
register_backend): engines, constraint backends, the adapter's tiers. An unknown name lists the valid ones."""

from __future__ import annotations

import dspy
import pytest

from dspy_outlines import engines, processors, tiers
from dspy_outlines.adapter import OutlinesAdapter
from dspy_outlines.lm import OutlinesLM

from .scripted_engine import ScriptedEngine


@pytest.fixture
def restore_registries(monkeypatch):
    monkeypatch.setattr(engines, "_ENGINES", dict(engines._ENGINES))
    monkeypatch.setattr(processors, "_BACKENDS", dict(processors._BACKENDS))
    monkeypatch.setattr(tiers, "_TIERS", dict(tiers._TIERS))


def test_a_registered_engine_loads_by_name(restore_registries):
    engine = ScriptedEngine([("[[ ## answer ## ]]\nParis\n\n[[ ## completed ## ]]", "stop")])
    engines.register_engine("scripted", lambda model, **options: engine)
    assert "scripted" in engines.engine_names() and engines.resolve_engine("scripted") == "scripted"
    lm = OutlinesLM(engine="scripted")
    assert lm.engine is engine
    with dspy.context(lm=lm):
        assert dspy.Predict("question -> answer")(question="Capital?").answer == "Paris"


def test_an_unknown_engine_lists_the_registered_ones():
    with pytest.raises(ValueError, match=r"Unknown engine 'nope'; choose 'auto' or one of mlx, llamacpp"):
        engines.resolve_engine("nope")
    with pytest.raises(ValueError, match="other than 'auto'"):
        engines.register_engine("auto", lambda model: None)


def test_a_registered_constraint_backend_builds_the_processors(restore_registries):
    built = []

    class Backend:
        def get_json_schema_logits_processor(self, schema):
            return self

        def get_regex_logits_processor(self, regex):
            built.append(regex)
            return self

        def get_cfg_logits_processor(self, grammar):
            return self

        def reset(self):
            pass

    class Vocabulary:  # weakly referenced by the processor cache
        pass

    class Model:
        tokenizer = Vocabulary()

    processors.register_constraint_backend("mine", lambda model: Backend())
    assert "mine" in processors.available_backends()
    from outlines.types import Regex

    assert isinstance(processors.get_logits_processor(Model(), Regex("a+"), "mine"), Backend)
    assert built == ["a+"] and isinstance(Backend(), processors.ConstraintBackend)
    processors.register_constraint_backend("absent", lambda model: Backend(), requires="no_such_module_here")
    with pytest.raises(ImportError, match="pip install 'dspy-rlm\\[mlx\\]'"):
        processors.get_logits_processor(Model(), Regex("a+"), "absent")


def test_an_unknown_constraint_backend_lists_the_registered_ones():
    with pytest.raises(ValueError, match="choose one of outlines_core, llguidance, xgrammar"):
        processors.get_logits_processor(object(), int, "nope")


def test_a_registered_tier_is_tried_after_the_built_ins(restore_registries):
    calls = []

    def last_resort(adapter, lm, is_async):
        def call(lm, lm_kwargs, signature, demos, inputs):
            calls.append(is_async)
            return [{"answer": "fallback"}]

        return call

    tiers.register_tier("fallback", last_resort)
    engine = ScriptedEngine([("no markers", "stop"), ("no json", "stop")])
    engines.register_engine("scripted", lambda model, **options: engine)
    lm = OutlinesLM(engine="scripted")
    adapter = OutlinesAdapter(tiers=("tier1", "tier2", "fallback"))
    with dspy.context(lm=lm, adapter=adapter):
        assert dspy.Predict("question -> answer")(question="?").answer == "fallback"
    assert calls == [False] and adapter.metrics["fallback_success"] == 1


def test_an_unknown_tier_lists_the_registered_ones():
    with pytest.raises(ValueError, match=r"subset of \('tier1', 'tier2', 'tier3'\)"):
        OutlinesAdapter(tiers=("tier1", "tier9"))
    with pytest.raises(ValueError, match="unknown tier 'tier9'; known: \\['tier1', 'tier2', 'tier3'\\]"):
        tiers.get_tier("tier9")
