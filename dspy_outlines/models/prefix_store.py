"""KV states of prompt prefixes on disk: the next process restores what an earlier one computed.

Every run of a DSPy program starts with the same instructions, demos and signature text, and a local
engine prefills them again in every new process (seconds on a CPU). The engines' in-memory prefix caches
find that shared prefix from a process's second call on; :class:`PrefixStore` keeps its KV state in the
user's cache directory so that the first call of the next process restores it instead.

Layout: ``<root>/<engine>-<library version>/<model fingerprint>/<n tokens>-<hash of the tokens>.kv`` under
``root`` = ``$DSPY_OUTLINES_PREFIX_DIR``, else ``$XDG_CACHE_HOME/dspy-outlines/prefix-states`` (default
``~/.cache/dspy-outlines/prefix-states``). A file is ``MAGIC``, a JSON header (engine, library version,
model fingerprint, token count, payload size and CRC-32), the token ids (int32) and the engine's payload
(llama.cpp: ``llama_state_seq_get_data``). A lookup reads the headers only and picks the file sharing the
longest token prefix with the prompt; the engine then keeps that many tokens of the state.

Several processes may share the directory: files are written to a temporary name and renamed into place
(``os.replace``, atomic), read whole in one go, and evicted oldest-used first (the modification time, set
again on every restore) once the directory holds more than ``max_mb``. A file that is truncated, corrupt,
or written by another engine, library version or model is ignored with a logged warning and removed (it
is written again on next use); write errors are logged once and never fail a generation.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import struct
import threading
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dspy_outlines.models.prompt_cache import common_prefix_length

logger = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_STORE_MB",
    "DIR_ENV",
    "DISABLE_ENV",
    "MAGIC",
    "PersistSetting",
    "PrefixStore",
    "StoredPrefix",
    "default_directory",
    "library_versions",
    "model_fingerprint",
    "store_directory",
]

#: First bytes of every state file (the last byte is the format version).
MAGIC = b"DSPYKV\x00\x01"
#: Directory of the stored states (tests point it at a temporary directory).
DIR_ENV = "DSPY_OUTLINES_PREFIX_DIR"
#: Environment switch that turns persistence off where ``persist_prefix`` is left at ``True``.
DISABLE_ENV = "DSPY_OUTLINES_NO_PERSIST_PREFIX"
#: Disk budget of one model's stored states, in MiB (SmolLM2-135M on llama.cpp: ~23 KB a token).
DEFAULT_STORE_MB = 512
_SUFFIX = ".kv"
_HEADER = struct.Struct("<8sI")  # magic, JSON header length
_STALE_TMP_S = 3600.0  # a temporary file this old was left by a writer that died

#: ``OutlinesLM(persist_prefix=...)``: ``True`` (the default directory), ``False`` (off) or a directory.
PersistSetting = bool | str | os.PathLike


def library_versions(*distributions: str) -> str:
    """``"name-version"`` of each installed distribution, joined by ``-`` (what wrote a state's payload)."""
    import importlib.metadata

    parts = []
    for name in distributions:
        try:
            parts.append(f"{name}-{importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            parts.append(f"{name}-unknown")
    return "-".join(parts)


def default_directory() -> Path:
    """``$DSPY_OUTLINES_PREFIX_DIR``, else ``$XDG_CACHE_HOME/dspy-outlines/prefix-states`` (``~/.cache/...``)."""
    override = os.environ.get(DIR_ENV)
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "dspy-outlines" / "prefix-states"


def store_directory(setting: PersistSetting) -> Path | None:
    """The root directory ``persist_prefix=setting`` asks for, or ``None`` when persistence is off.

    Raises:
        TypeError: ``setting`` is neither a bool nor a path.
    """
    if setting is False:
        return None
    if setting is True:
        return None if os.environ.get(DISABLE_ENV) else default_directory()
    if isinstance(setting, (str, os.PathLike)):
        return Path(setting).expanduser()
    raise TypeError(
        f"persist_prefix must be True, False or a directory path, not {type(setting).__name__}; "
        "e.g. OutlinesLM(persist_prefix=False) to turn the on-disk prefix cache off."
    )


@functools.lru_cache(maxsize=16)
def _fingerprint(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256(str(size).encode())
    with open(path, "rb") as f:
        digest.update(f.read(1 << 20))
        if size > 2 << 20:
            f.seek(size - (1 << 20))
            digest.update(f.read(1 << 20))
    return digest.hexdigest()[:24]


def model_fingerprint(path: str | os.PathLike) -> str:
    """A hash of a model file's size, first and last MiB: cheap at every load, and different for another model
    (a GGUF's head holds its metadata and vocabulary, its tail the last weights)."""
    stat = os.stat(path)
    return _fingerprint(str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns)


@dataclass(frozen=True)
class StoredPrefix:
    """One stored state: its file and the prompt tokens whose KV it holds."""

    path: Path
    tokens: tuple[int, ...]


class PrefixStore:
    """Prompt-prefix KV states of one model and engine, in files shared by every process.

    Args:
        root: The store's root directory (see :func:`store_directory`).
        engine: The engine's name (``"llamacpp"``, ``"mlx"``).
        library: The inference library and version that wrote the payload (a state is only read back by it).
        model: The model's fingerprint (:func:`model_fingerprint`).
        max_mb: Disk budget in MiB; the oldest-used files go first beyond it.
    """

    def __init__(self, root: Path, *, engine: str, library: str, model: str, max_mb: float = DEFAULT_STORE_MB):
        if isinstance(max_mb, bool) or not isinstance(max_mb, (int, float)) or max_mb <= 0:
            raise ValueError(f"persist_prefix_mb must be a number > 0, not {max_mb!r}.")
        self.identity = {"engine": engine, "library": library, "model": model}
        self.directory = Path(root) / f"{engine}-{library}".replace(os.sep, "_") / model
        self.max_bytes = int(max_mb * 2**20)
        self._headers: dict[str, tuple[int, int, tuple[int, ...]]] = {}  # name -> (mtime_ns, size, tokens)
        self._lock = threading.Lock()
        self._write_warned = False

    # -- lookup ---------------------------------------------------------------------------------
    def best(self, prompt_ids: Sequence[int]) -> tuple[StoredPrefix, int] | None:
        """The stored state sharing the longest token prefix with ``prompt_ids``, and that length."""
        best: tuple[StoredPrefix, int] | None = None
        for entry in self.entries():
            shared = common_prefix_length(entry.tokens, prompt_ids)
            if shared > 0 and (best is None or shared > best[1]):
                best = (entry, shared)
        return best

    def entries(self) -> list[StoredPrefix]:
        """Every readable stored state (headers only; unreadable files are removed with a warning)."""
        try:
            files = [p for p in self.directory.iterdir() if p.suffix == _SUFFIX]
        except OSError:
            return []
        found = []
        with self._lock:
            for path in files:
                try:
                    stat = path.stat()
                    cached = self._headers.get(path.name)
                    if cached is None or cached[:2] != (stat.st_mtime_ns, stat.st_size):
                        cached = (stat.st_mtime_ns, stat.st_size, self._read(path, payload=False)[0])
                        self._headers[path.name] = cached
                except FileNotFoundError:  # evicted by another process meanwhile
                    continue
                except (OSError, ValueError) as e:
                    self._discard(path, e)
                    continue
                found.append(StoredPrefix(path, cached[2]))
        return found

    def load(self, entry: StoredPrefix) -> bytes | None:
        """The payload of ``entry``, or ``None`` (with a warning, the file removed) when it cannot be used."""
        try:
            tokens, payload = self._read(entry.path, payload=True)
            if tokens != entry.tokens:
                raise ValueError("its tokens changed since the lookup")
            os.utime(entry.path)  # used now: evicted last
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            self._discard(entry.path, e)
            return None
        return payload

    def discard(self, entry: StoredPrefix, reason: str) -> None:
        """Remove ``entry`` with a warning (the engine could not use its payload)."""
        self._discard(entry.path, ValueError(reason))

    def _read(self, path: Path, payload: bool) -> tuple[tuple[int, ...], bytes]:
        import numpy as np

        with open(path, "rb") as f:
            head = f.read(_HEADER.size)
            if len(head) < _HEADER.size:
                raise ValueError("it is truncated")
            magic, header_len = _HEADER.unpack(head)
            if magic != MAGIC:
                raise ValueError("it is not a dspy-outlines prefix state (or another format version)")
            header = json.loads(f.read(header_len))
            for key, expected in self.identity.items():
                if header.get(key) != expected:
                    raise ValueError(f"it was written for {key} {header.get(key)!r}, not {expected!r}")
            count = int(header["tokens"])
            raw = f.read(4 * count)
            if len(raw) != 4 * count:
                raise ValueError("it is truncated")
            tokens = tuple(int(t) for t in np.frombuffer(raw, dtype="<i4"))
            if not payload:
                return tokens, b""
            data = f.read(int(header["payload_bytes"]) + 1)
        if len(data) != int(header["payload_bytes"]):
            raise ValueError("it is truncated" if len(data) < int(header["payload_bytes"]) else "it has extra bytes")
        if zlib.crc32(data) != int(header["crc32"]):
            raise ValueError("its checksum does not match (corrupt)")
        return tokens, data

    def _discard(self, path: Path, error: BaseException) -> None:
        logger.warning("Ignoring the stored prefix state %s: %s. It is removed and rebuilt on next use.", path, error)
        self._headers.pop(path.name, None)
        try:
            path.unlink()
        except OSError:
            pass

    # -- saving ---------------------------------------------------------------------------------
    def save(self, tokens: Sequence[int], payload: bytes) -> Path | None:
        """Store ``payload`` as the state of ``tokens`` (atomically); returns its path, or ``None`` on error."""
        import numpy as np

        if len(payload) > self.max_bytes:
            return None
        token_bytes = np.asarray(tokens, dtype="<i4").tobytes()
        name = f"{len(tokens)}-{hashlib.sha256(token_bytes).hexdigest()[:32]}{_SUFFIX}"
        header = json.dumps(
            {**self.identity, "tokens": len(tokens), "payload_bytes": len(payload), "crc32": zlib.crc32(payload)}
        ).encode()
        target = self.directory / name
        tmp = self.directory / f".{name}.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as f:
                f.write(_HEADER.pack(MAGIC, len(header)))
                f.write(header)
                f.write(token_bytes)
                f.write(payload)
            os.replace(tmp, target)
        except OSError as e:
            if not self._write_warned:
                logger.warning("Could not store a prefix state in %s (%s); going on without.", self.directory, e)
                self._write_warned = True
            try:
                tmp.unlink()
            except OSError:
                pass
            return None
        self.evict()
        return target

    def evict(self) -> None:
        """Remove the oldest-used files until the directory holds at most ``max_bytes`` (and stale temp files)."""
        files = []
        try:
            for path in self.directory.iterdir():
                try:
                    stat = path.stat()
                except FileNotFoundError:
                    continue
                if path.suffix == ".tmp":
                    if time.time() - stat.st_mtime > _STALE_TMP_S:
                        path.unlink(missing_ok=True)
                elif path.suffix == _SUFFIX:
                    files.append((stat.st_mtime_ns, stat.st_size, path))
        except OSError:
            return
        total = sum(size for _, size, _ in files)
        for _, size, path in sorted(files):
            if total <= self.max_bytes:
                break
            try:
                path.unlink()
            except FileNotFoundError:
                pass
            except OSError:
                continue
            total -= size
