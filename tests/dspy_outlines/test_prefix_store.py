"""Prompt-prefix KV states on disk: lookup, atomic files, eviction, bad files ignored, and on the real model
the next process's first call restored with identical output."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dspy_outlines.models.prefix_store import (
    DIR_ENV,
    DISABLE_ENV,
    MAGIC,
    PrefixStore,
    default_directory,
    model_fingerprint,
    store_directory,
)

STORE_LOGGER = "dspy_outlines.models.prefix_store"


def _store(root: Path, **kwargs) -> PrefixStore:
    options = {"engine": "test", "library": "lib-1", "model": "m1", "max_mb": 1, **kwargs}
    return PrefixStore(root, **options)


# -- the store (no model) ------------------------------------------------------------------------


def test_the_longest_shared_prefix_is_found_and_read_back(tmp_path):
    store = _store(tmp_path)
    store.save([1, 2, 3, 4], b"four")
    store.save([1, 2, 9], b"nine")
    entry, shared = store.best([1, 2, 3, 4, 5, 6])
    assert (entry.tokens, shared) == ((1, 2, 3, 4), 4)
    assert store.load(entry) == b"four"
    entry, shared = store.best([1, 2, 9, 9])
    assert (entry.tokens, shared, store.load(entry)) == ((1, 2, 9), 3, b"nine")
    assert store.best([7, 7]) is None
    # Another process (a new store object on the same directory) sees the same files.
    assert _store(tmp_path).best([1, 2, 3, 0])[1] == 3
    assert not [p for p in store.directory.iterdir() if p.suffix == ".tmp"]  # written to a temp name, renamed


def test_the_oldest_used_files_are_evicted_beyond_the_budget(tmp_path):
    store = _store(tmp_path, max_mb=0.25)  # 262,144 bytes: two 100 KB states fit, three do not
    paths = [store.save([i] * 8, bytes(100_000)) for i in range(2)]
    old = time.time() - 100
    os.utime(paths[0], (old, old))
    os.utime(paths[1], (old + 10, old + 10))
    store.load(store.best([0] * 8)[0])  # using the oldest makes it the newest
    store.save([2] * 8, bytes(100_000))
    assert sorted(e.tokens[0] for e in store.entries()) == [0, 2]
    assert store.save([3] * 8, bytes(300_000)) is None  # larger than the whole budget: not written


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda data: data[: len(data) - 5], "truncated"),
        (lambda data: data[:10], "truncated"),
        (lambda data: data[:-1] + bytes([data[-1] ^ 0xFF]), "checksum"),
        (lambda data: b"NOTKV\x00\x00\x01" + data[8:], "not a dspy-outlines prefix state"),
    ],
)
def test_a_damaged_file_is_ignored_with_a_warning_and_removed(tmp_path, caplog, damage, reason):
    store = _store(tmp_path)
    path = store.save([5, 6, 7], b"payload bytes")
    path.write_bytes(damage(path.read_bytes()))
    fresh = _store(tmp_path)
    with caplog.at_level(logging.WARNING, logger=STORE_LOGGER):
        found = fresh.best([5, 6, 7, 8])
        if found is not None:  # the header survived: the payload check catches it
            assert fresh.load(found[0]) is None
    assert reason in caplog.text and str(path) in caplog.text
    assert not path.exists()
    assert fresh.save([5, 6, 7], b"payload bytes") == path and fresh.load(fresh.best([5, 6, 7])[0]) == b"payload bytes"


def test_a_file_of_another_model_or_library_is_foreign(tmp_path, caplog):
    path = _store(tmp_path).save([1, 2], b"x")
    other = _store(tmp_path, model="m2")
    other.directory.mkdir(parents=True)
    os.replace(path, other.directory / path.name)  # a file that landed in the wrong model's directory
    with caplog.at_level(logging.WARNING, logger=STORE_LOGGER):
        assert other.best([1, 2]) is None
    assert "written for model 'm1'" in caplog.text


def test_a_write_error_is_logged_once_and_never_raised(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    store = _store(blocker)
    with caplog.at_level(logging.WARNING, logger=STORE_LOGGER):
        assert store.save([1], b"x") is None and store.save([2], b"y") is None
    assert caplog.text.count("Could not store a prefix state") == 1
    assert store.best([1]) is None


def test_settings_and_directories(tmp_path, monkeypatch):
    monkeypatch.setenv(DIR_ENV, str(tmp_path / "here"))
    monkeypatch.delenv(DISABLE_ENV, raising=False)
    assert store_directory(True) == default_directory() == tmp_path / "here"
    assert store_directory(False) is None
    assert store_directory(tmp_path / "mine") == tmp_path / "mine"
    monkeypatch.setenv(DISABLE_ENV, "1")
    assert store_directory(True) is None and store_directory(str(tmp_path)) == tmp_path  # a path still asks for it
    monkeypatch.delenv(DIR_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_directory() == tmp_path / "xdg" / "dspy-outlines" / "prefix-states"
    with pytest.raises(TypeError, match="persist_prefix must be True, False or a directory"):
        store_directory(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="persist_prefix_mb"):
        _store(tmp_path, max_mb=0)


def test_the_model_fingerprint_follows_the_content(tmp_path):
    a, b = tmp_path / "a.gguf", tmp_path / "b.gguf"
    a.write_bytes(b"weights" * 1000)
    b.write_bytes(b"weights" * 1000)
    assert model_fingerprint(a) == model_fingerprint(b)
    b.write_bytes(b"other!!" * 1000)
    assert model_fingerprint(a) != model_fingerprint(b)
    assert MAGIC.startswith(b"DSPYKV")


# -- the real embedded model (llama.cpp) -----------------------------------------------------------

SYSTEM = " ".join(f"Rule {i}: answer in short plain words and never use lists." for i in range(16))
QUESTIONS = ["Name a fruit.", "Name a colour.", "Name a city."]

# One process of a program: three calls sharing the system prompt; prints each answer and cached-token count.
PROGRAM = """
import json, sys
from dspy_outlines.engines import GenerationRequest
from dspy_outlines.lm import OutlinesLM
lm = OutlinesLM(None, engine="llamacpp", max_tokens=12, persist_prefix=sys.argv[1] if sys.argv[1] != "off" else False)
out = []
for q in json.loads(sys.argv[3]):
    m = [{"role": "system", "content": sys.argv[2]}, {"role": "user", "content": q}]
    c = lm.engine.generate(lm.engine.encode(lm.engine.render_prompt(m)), GenerationRequest(max_tokens=12))
    out.append([c.text, c.cached_tokens])
print(json.dumps({"answers": out, "stats": lm.engine.stats()}))
"""


def _process(directory: Path | str) -> dict:
    import json

    from tests.dspy_outlines.conftest import _llamacpp_skip_reason

    reason = _llamacpp_skip_reason()
    if reason:
        pytest.skip(reason)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(directory), SYSTEM, json.dumps(QUESTIONS)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.real_model
def test_the_next_process_restores_the_shared_prefix_with_identical_output(tmp_path):
    first, second, never = _process(tmp_path), _process(tmp_path), _process("off")
    assert first["stats"]["stored_states"] == 1 and first["stats"]["loaded_states"] == 0
    assert first["answers"][0][1] == 0  # nothing on disk yet: the first call prefills everything
    assert second["stats"]["loaded_states"] == 1 and second["stats"]["stored_states"] == 0
    assert second["answers"][0][1] == first["answers"][1][1] > 100  # the shared system prompt, from disk
    assert [a for a, _ in first["answers"]] == [a for a, _ in second["answers"]] == [a for a, _ in never["answers"]]
    assert never["stats"]["stored_states"] == 0 and never["answers"][0][1] == 0


def _ask(lm, messages: list[dict]) -> tuple[str, int]:
    """One 12-token answer through the LM's engine: (text, prompt tokens restored from a cache)."""
    from dspy_outlines.engines import GenerationRequest

    engine = lm.engine
    completion = engine.generate(engine.encode(engine.render_prompt(messages)), GenerationRequest(max_tokens=12))
    return completion.text, completion.cached_tokens


@pytest.mark.real_model
def test_a_truncated_state_is_ignored_with_a_warning_and_rebuilt(tmp_path, caplog):
    from dspy_outlines.lm import OutlinesLM

    first = _process(tmp_path)
    (path,) = tmp_path.rglob("*.kv")
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    lm = OutlinesLM(None, engine="llamacpp", max_tokens=12, persist_prefix=tmp_path)
    with caplog.at_level(logging.WARNING, logger=STORE_LOGGER):
        answers = [_ask(lm, [{"role": "system", "content": SYSTEM}, {"role": "user", "content": q}]) for q in QUESTIONS]
    assert "truncated" in caplog.text
    assert [text for text, _ in answers] == [a for a, _ in first["answers"]]
    assert answers[0][1] == 0  # prefilled instead of restored
    stats = lm.engine.stats()
    assert stats["loaded_states"] == 0 and stats["stored_states"] == 1  # and written again, whole
    assert path.exists() and _process(tmp_path)["stats"]["loaded_states"] == 1


# -- the real embedded model (MLX) -----------------------------------------------------------------


@pytest.mark.real_model
def test_mlx_restores_a_stored_prefix_with_identical_output(embedded_model, tmp_path):
    from dspy_outlines.engines import GenerationRequest
    from dspy_outlines.engines.mlx import MLXEngine
    from dspy_outlines.models import embedded_model_path

    def run(engine) -> list:
        request = GenerationRequest(max_tokens=12)
        messages = [[{"role": "system", "content": SYSTEM}, {"role": "user", "content": q}] for q in QUESTIONS]
        return [engine.generate(engine.encode(engine.render_prompt(m)), request) for m in messages]

    first = MLXEngine(embedded_model_path(), persist_prefix=tmp_path)
    stored = run(first)
    assert first.stats()["stored_states"] == 1 and stored[0].cached_tokens == 0
    second = MLXEngine(embedded_model_path(), persist_prefix=tmp_path)  # a new engine: empty memory cache
    restored = run(second)
    assert second.stats()["loaded_states"] == 1 and restored[0].cached_tokens == stored[1].cached_tokens > 100
    never = run(MLXEngine(embedded_model_path(), persist_prefix=False, prefix_cache_mb=0))
    assert [c.text for c in stored] == [c.text for c in restored] == [c.text for c in never]


@pytest.mark.real_model
def test_a_state_llama_cpp_rejects_is_ignored_with_a_warning_and_prefilled(tmp_path, caplog):
    from dspy_outlines.lm import OutlinesLM

    reference = _process("off")
    lm = OutlinesLM(None, engine="llamacpp", max_tokens=12, persist_prefix=tmp_path)
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTIONS[0]}]
    ids = lm.engine.encode(lm.render_prompt(messages))
    # A first call leaves ~100 tokens of this prompt's prefix in the live context: a rejected state must not
    # leave the engine believing they are still there.
    _ask(lm, [{"role": "system", "content": SYSTEM[: len(SYSTEM) // 3]}, {"role": "user", "content": "Hi"}])
    store = lm.engine._prefix.store
    store.save(ids[:-8], b"\x00" * 4096)  # a well-formed file whose payload is no llama.cpp state
    with caplog.at_level(logging.WARNING, logger=STORE_LOGGER):
        text, cached = _ask(lm, messages)
    assert "llama.cpp rejected its state" in caplog.text and not list(tmp_path.rglob("*.kv"))
    assert cached == 0 and text == reference["answers"][0][0]


def test_another_programs_prefix_is_a_family_of_its_own():
    """A prefix stored (or loaded) for one program must not keep another program's prompt, which parts from it
    after a few hundred tokens (another signature, another input name), from being stored: before, it was never
    stored, and its first step prefilled ~900 tokens in every new process (issue 31)."""
    from dspy_outlines.engines.llamacpp_prefix import PERSIST_MIN_TOKENS, PrefixReuse

    reuse = object.__new__(PrefixReuse)
    reuse.store, reuse._families = object(), [tuple(range(1106))]
    other = list(range(256)) + [-1] * 1000  # shares 256 tokens with the stored prefix
    assert reuse._worth_storing(other, live=1097, on_disk=256)
    grown = list(range(1106)) + [-2] * 300  # the same program, its history grown: not stored again
    assert not reuse._worth_storing(grown, live=1300, on_disk=1106 - PERSIST_MIN_TOKENS)
    assert not reuse._worth_storing(other, live=256 + PERSIST_MIN_TOKENS - 1, on_disk=256)  # too little to gain
