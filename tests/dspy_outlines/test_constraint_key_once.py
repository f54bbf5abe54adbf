"""The constraint key is computed once: the adapter (or local_request) turns the output type into a ConstraintKey,
the request carries it as JSON, and the engine receives that key as it is (no Outlines type rebuilt and keyed
again)."""

from __future__ import annotations

from typing import Literal

import pytest

from dspy_outlines import constraint_keys
from dspy_outlines.constraints import ConstraintKey, constraint_key
from dspy_outlines.contract import EXTENSION, constraint_key_of
from dspy_outlines.lm import OutlinesLM
from dspy_outlines.local_engine import LocalEngine, local_request

from .scripted_engine import ScriptedEngine


def test_a_key_is_its_own_key_and_a_tuple():
    key = constraint_key(Literal["a", "b"])
    assert isinstance(key, ConstraintKey) and constraint_key(key) is key
    kind, definition = key
    assert (kind, definition) == (key.kind, key.definition) == ("regex", key.definition)


def test_the_engine_receives_the_key_the_request_carries(monkeypatch):
    engine = ScriptedEngine([("a", "stop")])
    monkeypatch.setattr(LocalEngine, "load", classmethod(lambda cls, *a, **k: cls(engine)))
    lm = OutlinesLM(max_tokens=4)
    request = local_request(lm.model, "a or b?", Literal["a", "b"], max_tokens=4)
    computed = []
    monkeypatch.setattr(constraint_keys, "_key", lambda output_type: computed.append(output_type))  # no more keying
    assert lm(request).text == "a"
    (generation,) = engine.requests
    assert generation.constraint == constraint_key_of(request.config.extensions)
    assert isinstance(generation.constraint, ConstraintKey) and computed == []


@pytest.mark.parametrize("spec", [{"kind": "lark", "definition": "x"}, {"kind": "regex", "definition": 3}])
def test_a_malformed_key_is_refused(spec):
    with pytest.raises(ValueError, match="must be"):
        constraint_key_of({EXTENSION: {"constraint": spec}})
