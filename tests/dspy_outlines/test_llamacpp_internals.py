"""llama-cpp-python's private attributes, read through one guard that names the attribute, version and fix."""

from __future__ import annotations

import re
import types
from pathlib import Path

import pytest
import tomllib

from dspy_outlines.engines import llamacpp_internals as internals

ROOT = Path(__file__).resolve().parents[2]


def test_a_missing_attribute_names_itself_the_installed_version_and_the_fix(monkeypatch):
    monkeypatch.setattr(internals.LLAMA_CPP, "version", lambda: "9.9.9")
    module = types.ModuleType("llama_cpp._internals")
    with pytest.raises(internals.LlamaCppVersionError) as info:
        internals.llamacpp_internal(module, "LlamaModel")
    message = str(info.value)
    assert "llama_cpp._internals.LlamaModel" in message and "llama-cpp-python 9.9.9" in message
    assert f"pip install 'llama-cpp-python{internals.SUPPORTED_LLAMA_CPP}'" in message
    assert isinstance(info.value.__cause__, AttributeError)

    class Llama:
        _ctx = types.SimpleNamespace(ctx=1, kv_cache_seq_rm=print)

    with pytest.raises(internals.LlamaCppVersionError, match=r"\.Llama\._model"):
        internals.check_llama(Llama())


def test_present_attributes_are_read():
    owner = types.SimpleNamespace(_ctx="context")
    assert internals.llamacpp_internal(owner, "_ctx") == "context"


def test_the_pyproject_pins_the_supported_range_and_the_installed_version_is_in_it():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    pins = [
        dep
        for deps in pyproject["project"]["optional-dependencies"].values()
        for dep in deps
        if dep.startswith("llama-cpp-python")
    ]
    assert pins and all(dep.endswith(internals.SUPPORTED_LLAMA_CPP) for dep in pins)
    installed = internals.llamacpp_version()
    if installed == "(version unknown)":
        pytest.skip("llama-cpp-python is not installed")
    lower, upper = re.fullmatch(r">=([\d.]+),<([\d.]+)", internals.SUPPORTED_LLAMA_CPP).groups()

    def version(text: str) -> tuple[int, ...]:
        return tuple(int(part) for part in text.split("."))

    assert version(lower) <= version(installed) < version(upper)


@pytest.mark.real_model
def test_every_internal_the_engine_reads_exists_in_the_installed_release(llamacpp_lm):
    import llama_cpp._internals
    from llama_cpp.llama_grammar import SchemaConverter

    internals.check_llama(llamacpp_lm.engine.llama)
    internals.llamacpp_internal(llama_cpp._internals, "LlamaModel")
    internals.llamacpp_internal(llama_cpp.LlamaRAMCache, "_find_longest_prefix_key")
    internals.llamacpp_internal(SchemaConverter, "_visit_pattern")
