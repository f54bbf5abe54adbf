"""Why a GGUF file cannot load: its header read in pure Python (no weights), for messages that say why.

llama.cpp reports every bad file as "Failed to load model from file"; :func:`check_gguf` reads the header
(magic, version, metadata, tensor table) and names the problem: not a GGUF file, a truncated download, no
tokenizer in the file; :func:`describe_gguf` gives the architecture for a load that fails later.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import IO, Any

__all__ = ["GGUFError", "check_gguf", "describe_gguf", "read_header"]

_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
#: Metadata arrays are skipped, not kept (a vocabulary has ~50k strings); only their length is recorded.
_KEEP = ("general.architecture", "general.name", "general.alignment", "tokenizer.ggml.model")


class GGUFError(ValueError):
    """A GGUF file that cannot load; the message says why."""


class _Truncated(Exception):
    pass


def _read(fh: IO[bytes], n: int) -> bytes:
    data = fh.read(n)
    if len(data) < n:
        raise _Truncated
    return data


def _unpack(fh: IO[bytes], fmt: str) -> Any:
    return struct.unpack(fmt, _read(fh, struct.calcsize(fmt)))[0]


def _string(fh: IO[bytes]) -> str:
    return _read(fh, _unpack(fh, "<Q")).decode("utf-8", "replace")


def _value(fh: IO[bytes], kind: int) -> Any:
    if kind in _SCALARS:
        return _unpack(fh, _SCALARS[kind])
    if kind == _STRING:
        return _string(fh)
    if kind == _ARRAY:
        item, count = _unpack(fh, "<I"), _unpack(fh, "<Q")
        for _ in range(count):
            _value(fh, item)
        return f"<array of {count}>"
    raise GGUFError(f"unknown GGUF value type {kind}")


def read_header(path: str | Path) -> dict[str, Any]:
    """``{"version", "metadata" (the keys of :data:`_KEEP`), "data_end"}`` of a GGUF file, no weights read.

    Raises:
        GGUFError: not a GGUF file, or the header is cut short (a truncated download).
    """
    path = Path(path)
    with path.open("rb") as fh:
        try:
            magic = _read(fh, 4)
            if magic != b"GGUF":
                raise GGUFError(f"{path} is not a GGUF file (it starts with {magic!r}, not b'GGUF')")
            version, n_tensors, n_kv = _unpack(fh, "<I"), _unpack(fh, "<Q"), _unpack(fh, "<Q")
            metadata: dict[str, Any] = {}
            for _ in range(n_kv):
                key, kind = _string(fh), _unpack(fh, "<I")
                value = _value(fh, kind)
                if key in _KEEP:
                    metadata[key] = value
            data_end = 0
            for _ in range(n_tensors):
                _string(fh)
                dims = [_unpack(fh, "<Q") for _ in range(_unpack(fh, "<I"))]
                _unpack(fh, "<I")  # the tensor type
                data_end = max(data_end, _unpack(fh, "<Q") + (1 if dims else 0))
        except _Truncated:
            raise GGUFError(f"{path} is truncated: its header ends early (an interrupted download?)") from None
        alignment = int(metadata.get("general.alignment") or 32)
        start = -(-fh.tell() // alignment) * alignment
    return {"version": version, "metadata": metadata, "data_end": start + data_end if n_tensors else 0}


def check_gguf(path: str | Path) -> dict[str, Any]:
    """:func:`read_header`, and the problems that stop any engine: tensors past the end of the file, no
    tokenizer. Returns the header.

    Raises:
        GGUFError: the reason, naming the file.
    """
    header = read_header(path)
    size = Path(path).stat().st_size
    if header["data_end"] > size:
        raise GGUFError(
            f"{path} is truncated: its tensors need {header['data_end']:,} bytes, the file has {size:,} "
            "(an interrupted download?)"
        )
    if "tokenizer.ggml.model" not in header["metadata"]:
        raise GGUFError(f"{path} has no tokenizer (no tokenizer.ggml.model in its metadata); use a complete GGUF")
    return header


def describe_gguf(path: str | Path) -> str:
    """A short description for an error message: the architecture and tokenizer, or what is wrong."""
    try:
        meta = check_gguf(path)["metadata"]
    except (GGUFError, OSError) as exc:
        return str(exc)
    return (
        f"architecture {meta.get('general.architecture')!r}, tokenizer {meta.get('tokenizer.ggml.model')!r} "
        "(this llama.cpp build may not support that architecture: upgrade llama-cpp-python, or use a "
        "llama-family model)"
    )
