"""Fuzz checkpoint loading (dspy_rlm.checkpoint): truncated, corrupted and foreign files.

Every load of a file that is not exactly what this user's dspy-rlm wrote raises ``CheckpointMismatch`` with a
message saying what to do, and nothing in the file is executed: the signature is checked before anything is
unpickled. The "would run code" pickles below call ``os.system`` / ``builtins.exec`` to create a marker file
when unpickled; the marker must never appear.
"""

from __future__ import annotations

import os
import pickle

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dspy_rlm.checkpoint import MAGIC, Checkpoint, CheckpointMismatch, RunSnapshot, fingerprint
from tests.fuzz.conftest import count, examples

FP = fingerprint("question -> answer", {"question": "q"})


def _snapshot(**extra) -> RunSnapshot:
    return RunSnapshot(
        fingerprint=FP,
        iterations_done=2,
        history=[{"reasoning": "r", "code": "x = 1", "output": "ok"}],
        spent={"iterations": 2, "lm_calls": 3},
        elapsed_s=1.5,
        trace={"task": "t"},
        recovery=None,
        last_submit=None,
        told_rebound=[],
        variables={"x": pickle.dumps(1)},
        **extra,
    )


class _RunsCode:
    """A pickle that runs a shell command when loaded (what a hostile 'checkpoint' would hold)."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


class _Execs:
    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return exec, (f"open({self.marker!r}, 'w').close()",)


@pytest.fixture
def valid(tmp_path) -> bytes:
    ckpt = Checkpoint(tmp_path / "good.ckpt", FP)
    ckpt.save(_snapshot())
    return ckpt.path.read_bytes()


def _load(tmp_path, data: bytes, name: str = "run.ckpt"):
    path = tmp_path / name
    path.write_bytes(data)
    return Checkpoint(path, FP).load()


def test_a_valid_checkpoint_loads(tmp_path, valid):
    snap = _load(tmp_path, valid)
    assert snap.iterations_done == 2 and snap.history[0]["code"] == "x = 1"


@settings(max_examples=examples(100))
@given(data=st.data())
def test_truncated_and_corrupted_files_are_refused(tmp_path_factory, data):
    tmp_path = tmp_path_factory.mktemp("ckpt")
    ckpt = Checkpoint(tmp_path / "good.ckpt", FP)
    ckpt.save(_snapshot())
    valid = ckpt.path.read_bytes()
    count("checkpoint.load")
    how = data.draw(st.sampled_from(["truncate", "flip", "splice", "append"]))
    if how == "truncate":
        broken = valid[: data.draw(st.integers(0, len(valid) - 1))]
    elif how == "flip":
        i = data.draw(st.integers(0, len(valid) - 1))
        broken = valid[:i] + bytes([valid[i] ^ data.draw(st.integers(1, 255))]) + valid[i + 1 :]
    elif how == "splice":
        i = data.draw(st.integers(0, len(valid)))
        broken = valid[:i] + data.draw(st.binary(min_size=1, max_size=64)) + valid[i:]
    else:
        broken = valid + data.draw(st.binary(min_size=1, max_size=64))
    with pytest.raises(CheckpointMismatch, match=r"could not read the checkpoint .*delete it"):
        _load(tmp_path, broken)


@given(st.binary(max_size=2048) | st.binary(max_size=64).map(lambda b: MAGIC + b))
@example(b"")
@example(b"not a pickle")
@example(pickle.dumps({"fingerprint": FP}))
@example(MAGIC)
def test_foreign_bytes_are_refused(tmp_path_factory, data):
    count("checkpoint.load")
    with pytest.raises(CheckpointMismatch, match="could not read the checkpoint"):
        _load(tmp_path_factory.mktemp("ckpt"), data)


@pytest.mark.parametrize("payload", [_RunsCode, _Execs], ids=["os.system", "exec"])
@pytest.mark.parametrize("framing", ["bare pickle", "magic + forged mac", "format 1 snapshot"])
def test_a_pickle_that_runs_code_is_never_unpickled(tmp_path, payload, framing):
    marker = tmp_path / "pwned"
    evil = pickle.dumps(payload(str(marker)))
    if framing == "magic + forged mac":
        evil = MAGIC + bytes(32) + evil
    elif framing == "format 1 snapshot":  # what version 1 wrote: a bare pickle of a snapshot holding the payload
        evil = pickle.dumps(_snapshot(result=payload(str(marker))))
    with pytest.raises(CheckpointMismatch):
        _load(tmp_path, evil)
    assert not marker.exists(), "the checkpoint's code ran"


def test_a_checkpoint_signed_with_another_key_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("DSPY_RLM_CHECKPOINT_KEY", "someone else's key")
    other = Checkpoint(tmp_path / "other.ckpt", FP)
    other.save(_snapshot())
    monkeypatch.setenv("DSPY_RLM_CHECKPOINT_KEY", "my key")
    with pytest.raises(CheckpointMismatch, match="signed with another key"):
        other.load()
    monkeypatch.setenv("DSPY_RLM_CHECKPOINT_KEY", "someone else's key")
    assert other.load().iterations_done == 2


@given(st.binary(max_size=512))
@example(b'{"kind": "action", "key": 1}\n')
@example(b"[1, 2]\n{}\nnull\n")
@example(b'{"iteration": 3, "kind": "action"}\n')
def test_a_corrupted_journal_is_skipped_line_by_line(tmp_path_factory, data):
    """The journal is JSON lines (no pickle): a garbled one replays what it can and never raises."""
    count("checkpoint.journal")
    tmp_path = tmp_path_factory.mktemp("journal")
    ckpt = Checkpoint(tmp_path / "run.ckpt", FP)
    ckpt.save(_snapshot())
    ckpt.journal_path.write_bytes(data)
    assert Checkpoint(ckpt.path, FP).load().iterations_done == 2
