"""GGUF files written in pure Python (numpy): what the llama.cpp engine needs to run a LoRA adapter.

Two files: a LoRA adapter llama.cpp loads beside its model (``general.type = "adapter"``, F32 ``lora_a`` /
``lora_b`` pairs) and a copy of a model with some weights replaced (an adapter merged in). Only what these
need: scalar and string metadata, F32 / F16 / Q8_0 tensors written, Q4_0 / Q4_1 / Q8_0 / F16 / F32 read,
and a model's metadata and other tensors copied byte for byte. (The ``gguf`` package writes GGUF too; this
module's ~150 lines keep it out of the dependencies.)
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from dspy_outlines.models.gguf_header import GGUFError, _read, _string, _Truncated, _unpack, _value

__all__ = ["F16", "F32", "Q8_0", "GGUFLayout", "TensorInfo", "dequantize", "quantize", "read_layout", "write_gguf"]

F32, F16, Q4_0, Q4_1, Q8_0 = 0, 1, 2, 3, 8
#: Elements per block and bytes per block of each tensor type handled here.
_BLOCKS = {F32: (1, 4), F16: (1, 2), Q4_0: (32, 18), Q4_1: (32, 20), Q8_0: (32, 34)}
_NAMES = {F32: "F32", F16: "F16", Q4_0: "Q4_0", Q4_1: "Q4_1", Q8_0: "Q8_0"}


@dataclass(frozen=True)
class TensorInfo:
    """One tensor of a GGUF file: ``dims`` in GGUF order (the row length first), ``offset`` from the data start."""

    name: str
    dims: tuple[int, ...]
    kind: int
    offset: int

    @property
    def nbytes(self) -> int:
        elements = 1
        for d in self.dims:
            elements *= d
        if self.kind not in _BLOCKS:
            raise GGUFError(f"tensor {self.name} has GGUF type {self.kind}, which this reader does not handle")
        per_block, size = _BLOCKS[self.kind]
        return elements // per_block * size


@dataclass(frozen=True)
class GGUFLayout:
    """A GGUF file's header: its metadata (scalars and strings; arrays as a placeholder), the metadata's raw
    bytes (to copy), its tensors and where their data starts."""

    version: int
    metadata: dict[str, Any]
    n_kv: int
    kv_bytes: bytes
    tensors: list[TensorInfo]
    data_start: int
    alignment: int


def read_layout(path: str | Path) -> GGUFLayout:
    """The header of the GGUF file at ``path`` (no tensor data read). Raises :class:`GGUFError` when it is not
    one, or is cut short."""
    with Path(path).open("rb") as fh:
        try:
            if _read(fh, 4) != b"GGUF":
                raise GGUFError(f"{path} is not a GGUF file")
            version, n_tensors, n_kv = _unpack(fh, "<I"), _unpack(fh, "<Q"), _unpack(fh, "<Q")
            kv_start, metadata = fh.tell(), {}
            for _ in range(n_kv):
                key, kind = _string(fh), _unpack(fh, "<I")
                metadata[key] = _value(fh, kind)
            kv_end = fh.tell()
            tensors = []
            for _ in range(n_tensors):
                name = _string(fh)
                dims = tuple(_unpack(fh, "<Q") for _ in range(_unpack(fh, "<I")))
                tensors.append(TensorInfo(name, dims, _unpack(fh, "<I"), _unpack(fh, "<Q")))
            fh.seek(kv_start)
            kv_bytes = _read(fh, kv_end - kv_start)
        except _Truncated:
            raise GGUFError(f"{path} is truncated: its header ends early") from None
        alignment = int(metadata.get("general.alignment") or 32)
        header_end = kv_end + sum(8 + len(t.name.encode()) + 4 + 8 * len(t.dims) + 12 for t in tensors)
    start = -(-header_end // alignment) * alignment
    return GGUFLayout(version, metadata, n_kv, kv_bytes, tensors, start, alignment)


def dequantize(data: bytes, info: TensorInfo) -> Any:
    """The tensor's values as float32, shaped ``(rows, row length)`` (numpy order: ``dims`` reversed)."""
    import numpy as np

    shape = tuple(reversed(info.dims))
    if info.kind == F32:
        return np.frombuffer(data, np.float32).reshape(shape).copy()
    if info.kind == F16:
        return np.frombuffer(data, np.float16).astype(np.float32).reshape(shape)
    if info.kind not in (Q4_0, Q4_1, Q8_0):
        raise GGUFError(f"tensor {info.name} is {_NAMES.get(info.kind, info.kind)}; merging needs Q4_0/Q4_1/Q8_0/F16")
    blocks = np.frombuffer(data, np.uint8).reshape(-1, _BLOCKS[info.kind][1])
    d = blocks[:, :2].copy().view(np.float16).astype(np.float32)
    if info.kind == Q8_0:
        values = blocks[:, 2:].copy().view(np.int8).astype(np.float32) * d
    else:
        packed = blocks[:, 4:] if info.kind == Q4_1 else blocks[:, 2:]
        q = np.concatenate([packed & 0x0F, packed >> 4], axis=1).astype(np.float32)
        if info.kind == Q4_1:
            values = q * d + blocks[:, 2:4].copy().view(np.float16).astype(np.float32)
        else:
            values = (q - 8.0) * d
    return values.reshape(shape)


def quantize(values: Any, kind: int) -> bytes:
    """``values`` (float, ``(rows, row length)``) as the bytes of a ``kind`` tensor (F32, F16 or Q8_0)."""
    import numpy as np

    if kind == F32:
        return np.ascontiguousarray(values, np.float32).tobytes()
    if kind == F16:
        return np.ascontiguousarray(values, np.float16).tobytes()
    if kind != Q8_0:
        raise ValueError(f"cannot write GGUF type {kind}; F32 ({F32}), F16 ({F16}) or Q8_0 ({Q8_0})")
    blocks = np.asarray(values, np.float32).reshape(-1, 32)
    d = np.abs(blocks).max(axis=1, keepdims=True) / 127.0
    inverse = np.divide(1.0, d, out=np.zeros_like(d), where=d > 0)
    q = np.clip(np.round(blocks * inverse), -127, 127).astype(np.int8)
    return np.concatenate([d.astype(np.float16).view(np.uint8), q.view(np.uint8)], axis=1).tobytes()


def kv(key: str, value: str | float | int) -> bytes:
    """One metadata entry's bytes: a string, a float (F32) or an int (UINT32)."""
    name = key.encode()
    head = struct.pack("<Q", len(name)) + name
    if isinstance(value, str):
        text = value.encode()
        return head + struct.pack("<IQ", 8, len(text)) + text
    if isinstance(value, float):
        return head + struct.pack("<If", 6, value)
    return head + struct.pack("<II", 4, value)


def write_gguf(
    fh: IO[bytes],
    n_kv: int,
    kv_bytes: bytes,
    tensors: Sequence[tuple[str, tuple[int, ...], int, bytes]],
    alignment: int = 32,
) -> None:
    """Write a GGUF (version 3) file: ``n_kv`` metadata entries already encoded in ``kv_bytes`` (see :func:`kv`),
    and ``tensors`` as ``(name, dims in GGUF order, type, data)``."""
    out = [b"GGUF", struct.pack("<IQQ", 3, len(tensors), n_kv), kv_bytes]
    offset = 0
    for name, dims, kind, data in tensors:
        encoded = name.encode()
        out += [struct.pack("<Q", len(encoded)), encoded, struct.pack("<I", len(dims))]
        out += [struct.pack("<Q", d) for d in dims] + [struct.pack("<IQ", kind, offset)]
        offset += -(-len(data) // alignment) * alignment
    header = b"".join(out)
    fh.write(header + b"\0" * (-len(header) % alignment))
    for _, _, _, data in tensors:
        fh.write(data + b"\0" * (-len(data) % alignment))
