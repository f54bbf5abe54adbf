"""Reading a context from files as users have them: text, compressed text, a directory of both.

``load_context`` (the CLI's ``--context``) reads a text file, decompresses ``.gz`` / ``.bz2`` / ``.xz`` with
the standard library, and refuses any other binary file with a message saying what it is and what to do.
PDFs and office documents are not read: no maintained library for them is a dependency of this package, so
convert them to text first (``pdftotext file.pdf``). A directory is read file by file with the same rules;
binary files in it are skipped, not fatal.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import logging
import lzma
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

logger = logging.getLogger(__name__)

__all__ = ["COMPRESSED", "SKIP_DIRS", "ContextFileError", "load_context", "read_text_file"]

#: Compressed suffixes read through the standard library's decompressors.
COMPRESSED: dict[str, Callable[..., Any]] = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        "node_modules",
        ".venv",
        "venv",
        ".mypy_cache",
        ".pytest_cache",
        ".ipynb_checkpoints",
        ".tox",
    }
)
_SNIFF = 8192
_KNOWN_BINARY = {
    b"%PDF": "a PDF (no PDF reader is a dependency: convert it to text first, e.g. `pdftotext file.pdf`)",
    b"PK\x03\x04": "a zip archive (a .docx / .xlsx is one too): unpack it or convert it to text first",
    b"GGUF": "a GGUF model file, not a document",
    b"\x7fELF": "an executable",
}


class ContextFileError(ValueError):
    """A context file that cannot be read as text; the message says why and what to do."""


def _binary_kind(head: bytes) -> str | None:
    for magic, kind in _KNOWN_BINARY.items():
        if head.startswith(magic):
            return kind
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return None  # UTF-16 text: NUL bytes, but text
    return "binary data (NUL bytes)" if b"\0" in head else None


def _decode(data: bytes) -> str:
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = data.decode("utf-16", "replace")
    else:
        text = data.decode("utf-8", "replace")
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as text mode reads it


def _read_limited(fh: IO[bytes], limit: int, path: Path) -> bytes:
    data = fh.read(limit + 1)
    if len(data) > limit:
        raise ContextFileError(f"{path} holds over {limit / 1e6:.1f} MB of text; raise --max-file-mb to read it")
    return data


def read_text_file(path: Path, limit: int) -> str:
    """The text of ``path``: decompressed when it ends ``.gz`` / ``.bz2`` / ``.xz``, at most ``limit`` bytes.

    Raises:
        ContextFileError: the file (or what it decompresses to) is binary, is corrupt, or exceeds ``limit``.
        OSError: it cannot be read.
    """
    opener = COMPRESSED.get(path.suffix.lower())
    if opener is None:
        if path.stat().st_size > limit:
            raise ContextFileError(f"{path} is {path.stat().st_size / 1e6:.1f} MB; raise --max-file-mb to read it")
        data = path.read_bytes()
    else:
        try:
            with opener(path, "rb") as fh:
                data = _read_limited(fh, limit, path)  # bounded: a small archive may expand enormously
        except (OSError, EOFError, lzma.LZMAError) as exc:
            raise ContextFileError(f"{path} is not a readable {path.suffix} file: {exc}") from exc
    kind = _binary_kind(data[:_SNIFF])
    if kind is not None:
        what = f"{path} decompresses to" if opener else f"{path} is"
        raise ContextFileError(f"{what} {kind}; dspy-rlm reads text (and .gz / .bz2 / .xz of text)")
    return _decode(data)


def load_context(path: str | Path, max_file_mb: float = 20.0) -> tuple[str, Any]:
    """``("context", text)`` for a file, ``("files", {relative path: text})`` for a directory.

    Directories skip VCS / cache folders, binary files, unreadable files and files over ``max_file_mb``.

    Raises:
        ContextFileError: the path is missing, is neither a regular file nor a directory (a FIFO would block),
            cannot be read, is binary, or (a directory) holds no readable text file.
    """
    p = Path(path).expanduser()
    if not p.exists():
        raise ContextFileError(f"context path not found: {path}")
    limit = int(max_file_mb * 1e6)
    try:
        if p.is_file():
            return "context", read_text_file(p, limit)
        if not p.is_dir():
            raise ContextFileError(f"context path is neither a regular file nor a directory: {path}")
        files = _read_dir(p, limit)
    except OSError as e:
        raise ContextFileError(f"cannot read context {path}: {e.strerror or e}") from e
    if not files:
        raise ContextFileError(f"no readable text files under {path}")
    return "files", files


def _read_dir(root: Path, limit: int) -> dict[str, str]:
    files: dict[str, str] = {}
    for f in sorted(root.rglob("*")):
        rel = f.relative_to(root)
        if any(part in SKIP_DIRS for part in rel.parts) or not f.is_file():
            continue
        try:
            files[rel.as_posix()] = read_text_file(f, limit)
        except ContextFileError as e:  # binary or too large: skipped, the directory is still read
            logger.debug("skipping %s: %s", f, e)
        except OSError as e:  # one unreadable file does not sink the directory
            logger.warning("skipping unreadable %s: %s", f, e.strerror or e)
    return files
