"""Outlines backends on MLX: the CPU bitmask (cpu_bitmask), backend selection and the processor cache (processors)."""

from __future__ import annotations

import importlib.util
import json
import re
from typing import Literal

import pydantic
import pytest

mx = pytest.importorskip("mlx.core", reason="MLX is not installed (pip install 'dspy-rlm[mlx]')")
np = pytest.importorskip("numpy")

from dspy_outlines import cpu_bitmask, processors  # noqa: E402


def reference_mask(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Token j is allowed iff bit j % 32 of word j // 32 is set (the Metal kernel's rule)."""
    out = np.full_like(logits, -np.inf)
    for b in range(logits.shape[0]):
        for j in range(logits.shape[1]):
            word = j >> 5
            if word < mask.shape[1] and (int(mask[b, word]) >> (j & 31)) & 1:
                out[b, j] = logits[b, j]
    return out


@pytest.mark.parametrize(("batch", "vocab", "words"), [(1, 64, 2), (2, 100, 4), (1, 70, 2), (1, 33, 2)])
def test_cpu_bitmask_matches_reference(batch, vocab, words):
    rng = np.random.default_rng(vocab)
    logits = rng.standard_normal((batch, vocab)).astype(np.float32)
    mask = rng.integers(-(2**31), 2**31, size=(batch, words), dtype=np.int64).astype(np.int32)
    mask[0, 0] = -1  # all 32 bits set, including the sign bit
    got = np.array(cpu_bitmask.apply_token_bitmask_cpu(mx.array(logits), mask))
    np.testing.assert_array_equal(got, reference_mask(logits, mask))


def test_cpu_bitmask_1d_inputs_and_padded_vocab():
    logits = mx.arange(40, dtype=mx.float32)  # vocab 40, but the mask covers only 32 tokens
    mask = np.array([0b1011], dtype=np.int32)
    got = np.array(cpu_bitmask.apply_token_bitmask_cpu(logits, mask))
    assert got.shape == (1, 40)
    assert list(np.flatnonzero(np.isfinite(got[0]))) == [0, 1, 3]


def test_install_cpu_bitmask_is_idempotent_and_only_without_metal():
    from outlines.backends.llguidance import LLGuidanceLogitsProcessor
    from outlines.backends.outlines_core import OutlinesCoreLogitsProcessor

    first, second = cpu_bitmask.install_cpu_bitmask(), cpu_bitmask.install_cpu_bitmask()
    assert first == second == (not mx.metal.is_available())
    if first:
        assert OutlinesCoreLogitsProcessor._bias_logits_mlx is cpu_bitmask._outlines_core_bias_cpu
        assert LLGuidanceLogitsProcessor._bias_logits_mlx is cpu_bitmask._llguidance_bias_cpu


def test_missing_outlines_internal_fails_fast_naming_attribute_and_version():
    """A stand-in for a processor of an Outlines release that renamed its per-generation state."""
    import types
    from importlib.metadata import version

    installed = version("outlines")
    with pytest.raises(cpu_bitmask.OutlinesVersionError, match=r"_guides.*Outlines " + re.escape(installed)) as info:
        cpu_bitmask._outlines_core_bias_cpu(types.SimpleNamespace(), 1, mx.zeros((1, 8)))
    assert f"pip install 'outlines{cpu_bitmask.SUPPORTED_OUTLINES}'" in str(info.value)
    stand_in = types.SimpleNamespace(tensor_adapter=None, matchers=[])  # ll_matchers renamed
    with pytest.raises(cpu_bitmask.OutlinesVersionError, match=r"SimpleNamespace\.ll_matchers"):
        cpu_bitmask._llguidance_bias_cpu(stand_in, mx.zeros((1, 2)), mx.zeros((1, 8)))


def test_install_cpu_bitmask_refuses_an_outlines_without_the_patched_method(monkeypatch):
    from outlines.backends.llguidance import LLGuidanceLogitsProcessor
    from outlines.backends.outlines_core import OutlinesCoreLogitsProcessor

    if mx.metal.is_available():
        pytest.skip("Metal is available: Outlines' own kernel is used, nothing is patched")
    before = LLGuidanceLogitsProcessor._bias_logits_mlx
    monkeypatch.setattr(cpu_bitmask, "_cpu_installed", False)
    monkeypatch.delattr(OutlinesCoreLogitsProcessor, "_bias_logits_mlx")
    with pytest.raises(cpu_bitmask.OutlinesVersionError, match=r"OutlinesCoreLogitsProcessor\._bias_logits_mlx"):
        cpu_bitmask.install_cpu_bitmask()
    assert LLGuidanceLogitsProcessor._bias_logits_mlx is before  # checked first, nothing half-patched


def test_outlines_internal_reads_present_attributes():
    import outlines.backends

    assert cpu_bitmask.outlines_internal(outlines.backends, "_get_backend") is outlines.backends._get_backend
    with pytest.raises(cpu_bitmask.OutlinesVersionError, match=r"outlines\.backends\._no_such_thing"):
        cpu_bitmask.outlines_internal(outlines.backends, "_no_such_thing")


def test_backend_selection_errors_name_the_fix():
    with pytest.raises(ValueError, match="outlines_core, llguidance, xgrammar"):
        processors._check_backend("guidance")
    assert processors._check_backend(None) == processors.DEFAULT_BACKEND
    assert processors.DEFAULT_BACKEND in ("outlines_core", "llguidance")  # never one that needs torch
    if importlib.util.find_spec("xgrammar") is None:
        with pytest.raises(ImportError, match=r"dspy-rlm\[xgrammar\]"):
            processors._check_backend("xgrammar")


def test_llguidance_schema_is_compact_and_closed():
    schema = {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "integer"}}}}}
    out = json.loads(processors._llguidance_schema(json.dumps(schema)))
    assert out["additionalProperties"] is False
    assert out["properties"]["a"]["additionalProperties"] is False
    assert out["x-guidance"]["whitespace_flexible"] is False


# -- with the embedded model --------------------------------------------------------------------


class Person(pydantic.BaseModel):
    name: str
    age: int


@pytest.mark.real_model
def test_processor_cache_hit_on_second_build(embedded_lm):
    model = embedded_lm.outlines_model
    schema_type = pydantic.create_model("CacheProbe", x=(int, ...), y=(Literal["a", "b"], ...))
    before = processors.cache_info()
    first = processors.get_logits_processor(model, schema_type, "outlines_core")
    second = processors.get_logits_processor(model, schema_type, "outlines_core")
    after = processors.cache_info()
    assert after["misses"] == before["misses"] + 1 and after["hits"] == before["hits"] + 1
    assert second is not first and second.index is first.index  # own state, shared index


@pytest.mark.real_model
@pytest.mark.parametrize("backend", ["outlines_core", "llguidance"])
def test_backends_generate_valid_json(embedded_lm, backend, monkeypatch):
    monkeypatch.setattr(embedded_lm.engine, "backend", backend)  # the engine's constraint backend, this test only
    before = processors.cache_info()["misses"] + processors.cache_info()["hits"]
    text = embedded_lm.generate("Describe Ann, 31, as JSON.", Person, max_tokens=24)
    assert Person.model_validate_json(text)
    assert processors.cache_info()["misses"] + processors.cache_info()["hits"] == before + 1  # through the cache


@pytest.mark.real_model
def test_reused_processor_state_is_per_generation(embedded_lm):
    answers = [
        embedded_lm.generate("Is the sky blue? Answer yes or no.", Literal["yes", "no"], max_tokens=4) for _ in range(2)
    ]
    assert answers[0] == answers[1] and answers[0] in ("yes", "no")


@pytest.mark.real_model
def test_direct_outlines_model_call_works_on_cpu(embedded_lm):
    assert embedded_lm.model("Pick one letter:", Literal["A", "B"], max_tokens=3) in ("A", "B")
