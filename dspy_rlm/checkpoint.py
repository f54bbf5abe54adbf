"""Checkpoint and resume for long runs: nothing already paid for is asked of the LM twice.

``RLM(..., checkpoint="run.ckpt")`` (or ``rlm(..., checkpoint=...)``) makes the root run write, after every
iteration, one file holding the REPL history, the budget spent, the trace, the fix history and the model's
picklable REPL variables. The write is atomic (a temporary file in the same folder, fsync, ``os.replace``),
so a crash leaves either the previous checkpoint or the new one, never half of one.

Within an iteration a small journal (``<path>.journal``, one JSON line per record, flushed and fsynced as it
is written) keeps what the LM answered before the iteration finished: the action step and every
``llm_query`` / ``llm_query_batched`` response. A run started again with the same path, program and inputs
resumes after the last completed iteration and replays the journal instead of calling the LM again, so a
crash in the middle of an iteration (code that hangs the machine, an OOM kill, a power cut) costs no LM call
that had already returned. A finished run's checkpoint holds its result: calling again returns it at once.

Limits, stated plainly: variables that cannot be pickled (functions and classes defined in the REPL, open
files, generators) are not restored and the model is told their names; a sub-RLM (``rlm_query``) that was
running when the process died runs again; backends other than ours (dspy's interpreters) restore the history
but not variables.

The checkpoint is a pickle, so it is signed: the file starts with a magic line and an HMAC-SHA256 of the pickle
under a per-user key (``$DSPY_RLM_CHECKPOINT_KEY``, else a random key created once in
``~/.config/dspy-rlm/checkpoint.key``, mode 0600). Loading checks the magic and the HMAC before anything is
unpickled: a truncated, corrupted or foreign file (another program's pickle, one crafted to run code, a
checkpoint written under another key) is refused with :class:`CheckpointMismatch` and never executed. Moving a
checkpoint to another machine needs the same key there.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
import pickle
import secrets
import tempfile
import threading
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dspy_rlm.errors import CheckpointMismatch

if TYPE_CHECKING:
    from dspy_rlm.recovery import RecoveryTracker

logger = logging.getLogger(__name__)

FORMAT_VERSION = 2  # 2: signed (magic line + HMAC-SHA256 of the pickle)
MAGIC = b"dspy-rlm checkpoint 2\n"
_MAC_SIZE = 32
_CHUNK = 1 << 20


@dataclass
class RunSnapshot:
    """Everything a run needs to continue after its last completed iteration."""

    fingerprint: str
    iterations_done: int
    history: list[dict[str, Any]]
    spent: dict[str, Any]
    elapsed_s: float
    trace: dict[str, Any]
    recovery: RecoveryTracker | None  # the fix-attempt state, pickled with the snapshot
    last_submit: dict[str, Any] | None
    told_rebound: list[str]
    variables: dict[str, bytes] = field(default_factory=dict)
    unsaved_variables: dict[str, str] = field(default_factory=dict)
    result: Any = None  # the typed result once the run has ended
    version: int = FORMAT_VERSION


def fingerprint(signature: Any, inputs: dict[str, Any]) -> str:
    """A digest of the program's signature and the run's inputs (strings are hashed without copying)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(repr(signature).encode("utf-8", "replace"))
    h.update(str(getattr(signature, "instructions", "")).encode("utf-8", "replace"))
    for name in sorted(inputs):
        value = inputs[name]
        h.update(name.encode())
        if isinstance(value, str):
            h.update(value.encode("utf-8", "surrogatepass"))
        elif isinstance(value, bytes):
            h.update(value)
        else:
            try:
                h.update(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
            except Exception:  # noqa: BLE001 - an unpicklable input is identified by its repr
                h.update(repr(value).encode("utf-8", "replace"))
    return h.hexdigest()


class Checkpoint:
    """One run's checkpoint file and its in-iteration journal.

    Args:
        path: Where the checkpoint lives; the journal is ``path + ".journal"``.
        fingerprint: :func:`fingerprint` of the program and inputs; a file with another one is refused.
    """

    def __init__(self, path: str | os.PathLike, fingerprint: str):
        self.path = Path(path)
        self.journal_path = self.path.with_name(self.path.name + ".journal")
        self.fingerprint = fingerprint
        self._lock = threading.Lock()
        self._replay: dict[tuple[str, str], deque] = defaultdict(deque)
        self._pending_iteration: int | None = None
        self._saved_through = 0  # the last iteration the checkpoint file holds
        self.replayed = 0
        self.journal_failures = 0

    # -- the checkpoint file ------------------------------------------------------------------------
    def load(self) -> RunSnapshot | None:
        """The saved snapshot (with the journal of the unfinished iteration armed for replay), or None."""
        if not self.path.exists():
            return None
        snap = self._read()
        if not isinstance(snap, RunSnapshot) or snap.version != FORMAT_VERSION:
            raise CheckpointMismatch(
                f"{self.path} is not a dspy-rlm checkpoint of format {FORMAT_VERSION}; "
                "delete it or pass another checkpoint path"
            )
        if snap.fingerprint != self.fingerprint:
            raise CheckpointMismatch(
                f"the checkpoint {self.path} was written by a run with another signature or "
                "other inputs; delete it to start over, or pass another checkpoint path"
            )
        self._saved_through = snap.iterations_done
        self._arm_journal(snap.iterations_done + 1)
        return snap

    def save(self, snap: RunSnapshot) -> None:
        """Write the snapshot atomically, then clear the journal (its iteration is now in the snapshot)."""
        snap.fingerprint = self.fingerprint
        self._write(snap)
        with self._lock:
            self._saved_through = snap.iterations_done
            self._replay.clear()
            self._pending_iteration = None
            with contextlib.suppress(OSError):
                self.journal_path.unlink()

    def save_object(self, obj: Any) -> None:
        """Write any picklable state (a session's, :mod:`dspy_rlm.session`) signed, with this fingerprint."""
        self._write(("dspy-rlm object", self.fingerprint, obj))

    def load_object(self) -> Any:
        """The state :meth:`save_object` wrote, or None without a file; another fingerprint is refused."""
        if not self.path.exists():
            return None
        saved = self._read()
        if not (isinstance(saved, tuple) and len(saved) == 3 and saved[0] == "dspy-rlm object"):
            raise CheckpointMismatch(
                f"{self.path} is not a dspy-rlm session checkpoint; delete it or pass another path"
            )
        if saved[1] != self.fingerprint:
            raise CheckpointMismatch(
                f"the checkpoint {self.path} was written by a program with another signature; delete it to start "
                "over, or pass another checkpoint path"
            )
        return saved[2]

    def _read(self) -> Any:
        try:
            with self.path.open("rb") as f:
                self._verify(f)  # nothing is unpickled before the signature checks out
                return pickle.load(f)
        except CheckpointMismatch:
            raise
        except Exception as exc:
            raise CheckpointMismatch(
                f"could not read the checkpoint {self.path} ({type(exc).__name__}: {exc}); "
                "delete it or pass another checkpoint path"
            ) from exc

    def _write(self, obj: Any) -> None:
        """Write ``obj`` atomically: magic line, HMAC of the pickle, the pickle."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=self.path.name + ".", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w+b") as f:
                f.write(MAGIC + bytes(_MAC_SIZE))  # the signature is written once the pickle is complete
                pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)
                mac = self._mac(f, len(MAGIC) + _MAC_SIZE)
                f.seek(len(MAGIC))
                f.write(mac)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        _fsync_dir(self.path.parent)

    # -- the signature ------------------------------------------------------------------------------
    @staticmethod
    def _mac(f: Any, start: int) -> bytes:
        """HMAC-SHA256 of the file from ``start`` to its end, under this user's key (read in 1 MiB chunks)."""
        mac = hmac.new(checkpoint_key(), digestmod=hashlib.sha256)
        f.seek(start)
        while chunk := f.read(_CHUNK):
            mac.update(chunk)
        return mac.digest()

    def _verify(self, f: Any) -> None:
        """Check the magic line and the HMAC; leave ``f`` at the start of the pickle."""
        head = f.read(len(MAGIC) + _MAC_SIZE)
        if not head.startswith(MAGIC):
            raise CheckpointMismatch(
                f"could not read the checkpoint {self.path}: it is not a dspy-rlm checkpoint of "
                f"format {FORMAT_VERSION} (an older format or another program's file); delete it "
                "or pass another checkpoint path"
            )
        stored = head[len(MAGIC) :]
        if len(stored) < _MAC_SIZE or not hmac.compare_digest(stored, self._mac(f, len(head))):
            raise CheckpointMismatch(
                f"could not read the checkpoint {self.path}: it is truncated, corrupted or was "
                "signed with another key (see dspy_rlm.checkpoint), so it was not unpickled; "
                "delete it or pass another checkpoint path"
            )
        f.seek(len(head))

    # -- the journal of the iteration in progress ---------------------------------------------------
    def begin_iteration(self, index: int) -> None:
        with self._lock:
            if self._pending_iteration != index:  # a replayed iteration keeps its journal until it is saved
                self._replay.clear()
                self._pending_iteration = index
                if index <= self._saved_through + 1:  # every earlier iteration is in the checkpoint file
                    with contextlib.suppress(OSError):
                        self.journal_path.unlink()
                # else the last save failed (disk full): the journal still holds the unsaved iteration's answers,
                # which a resume from the older checkpoint replays; this iteration's records are appended.

    def record(self, kind: str, key: str, value: Any, iteration: int) -> None:
        """Append one LM answer to the journal (flushed and fsynced: it survives a crash right after).

        Never raises for the disk: a journal that cannot be written (disk full, read-only) costs crash safety
        for this answer, not the answer itself, which the run goes on with (it was paid for). A half-written
        line is cut off again so the next record starts on a line of its own. Failures are counted in
        :attr:`journal_failures` and logged.
        """
        line = json.dumps({"kind": kind, "key": _digest(key), "value": value, "iteration": iteration}) + "\n"
        with self._lock:
            try:
                with self.journal_path.open("a", encoding="utf-8") as f:
                    size = f.tell()
                    try:
                        f.write(line)
                        f.flush()
                        os.fsync(f.fileno())
                    except OSError:
                        with contextlib.suppress(OSError):
                            f.truncate(size)
                        raise
            except OSError as exc:
                self.journal_failures += 1
                logger.warning(
                    "could not journal an LM answer in %s (%s); the run goes on without it", self.journal_path, exc
                )

    def replay(self, kind: str, key: str) -> Any:
        """The journaled answer for this call, if the crashed process already had it (FIFO per key)."""
        with self._lock:
            queue = self._replay.get((kind, _digest(key)))
            if not queue:
                return None
            self.replayed += 1
            return queue.popleft()

    def _arm_journal(self, iteration: int) -> None:
        self._replay.clear()
        self._pending_iteration = iteration
        if not self.journal_path.exists():
            return
        text = self.journal_path.read_text(encoding="utf-8", errors="replace")
        for line in text.splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:  # the line being written when the process died
                continue
            if not (
                isinstance(rec, dict)
                and isinstance(rec.get("kind"), str)
                and isinstance(rec.get("key"), str)
                and "value" in rec
            ):  # a garbled line that still parses ([1, 2], {}): not a record
                continue
            if rec.get("iteration") == iteration:
                self._replay[(rec["kind"], rec["key"])].append(rec["value"])
        # The surviving records are kept in the file, so a second crash before this iteration ends loses
        # nothing either; new records are appended after them.


def checkpoint_key() -> bytes:
    """This user's checkpoint signing key: ``$DSPY_RLM_CHECKPOINT_KEY`` when set, else 32 random bytes kept in
    ``$XDG_CONFIG_HOME/dspy-rlm/checkpoint.key`` (``~/.config/...``; created on first use, mode 0600)."""
    env = os.environ.get("DSPY_RLM_CHECKPOINT_KEY")
    if env:
        return env.encode("utf-8", "surrogatepass")
    path = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "dspy-rlm" / "checkpoint.key"
    with _KEY_LOCK:
        try:
            return path.read_bytes()
        except FileNotFoundError:
            pass
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".checkpoint.key.", dir=path.parent)  # mode 0600
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(secrets.token_bytes(32))
                f.flush()
                os.fsync(f.fileno())
            with contextlib.suppress(FileExistsError):  # another process linked its key first: use that one
                os.link(tmp, path)
        finally:
            os.unlink(tmp)
        return path.read_bytes()


_KEY_LOCK = threading.Lock()


def _digest(key: str) -> str:
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
