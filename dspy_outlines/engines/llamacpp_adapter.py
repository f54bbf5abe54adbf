"""A LoRA adapter trained with mlx-lm (:mod:`dspy_outlines.lora`) in the form llama.cpp runs.

:func:`prepare_adapter` checks the adapter belongs to the model (:func:`~dspy_outlines.lora_files.check_adapter`,
before anything is loaded) and writes, once per adapter and model, into a per-user cache:

- ``mode="lora"``: a GGUF LoRA adapter (``Llama(lora_path=...)``): the F32 ``lora_a`` / ``lora_b`` pairs under
  llama.cpp's tensor names (``model.layers.N.self_attn.q_proj`` is ``blk.N.attn_q.weight``), ``lora_a``
  transposed as llama.cpp wants it, mlx-lm's ``scale`` folded into ``lora_b``, and ``lora_b``'s rows of the
  q and k projections in llama.cpp's RoPE order (the base GGUF's q/k rows are permuted the same way; see
  :func:`dspy_outlines.models.gguf._unpermute_rows` for the inverse). Two small extra matmuls per adapted
  weight per token.
- ``mode="fused"`` (the default): a copy of the base GGUF with ``W + scale * (A @ B)^T`` in place of each
  adapted weight (dequantized from the base, written as F16), every other tensor and the metadata copied byte
  for byte. No LoRA work per token; one file about the size of the model per adapter.

Each file is written to a temporary name beside its target and renamed in whole: a later process never loads
half a file, and an unwritable cache leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import struct
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dspy_outlines.lora_files import WEIGHTS_FILE, check_adapter
from dspy_outlines.models.gguf_write import F16, F32, dequantize, kv, quantize, read_layout, write_gguf

__all__ = ["ADAPTER_MODES", "DEFAULT_ADAPTER_MODE", "AdapterCacheError", "PreparedAdapter", "prepare_adapter"]

ADAPTER_MODES = ("lora", "fused")
DEFAULT_ADAPTER_MODE = "fused"  # faster per token than "lora" (benchmarks/results/finetune.json)
#: Bumped when the files written here change: older ones are then written again.
_VERSION = "1"
#: The type of the merged weights in a fused GGUF (the rest keep the base's own): F16 keeps the merge exact
#: enough that greedy outputs match the MLX engine's as often as the GGUF LoRA's do; Q8_0 did not (see
#: benchmarks/finetune.py).
FUSED_TYPE = F16
_PARTS = {
    "q_proj": "attn_q",
    "k_proj": "attn_k",
    "v_proj": "attn_v",
    "o_proj": "attn_output",
    "gate_proj": "ffn_gate",
    "up_proj": "ffn_up",
    "down_proj": "ffn_down",
}
_NAME_RE = re.compile(r"^model\.layers\.(\d+)\.(?:self_attn|mlp)\.(\w+)\.lora_([ab])$")


class AdapterCacheError(OSError):
    """The llama.cpp form of an adapter could not be written to its cache directory; the message says the fix."""


@dataclass(frozen=True)
class PreparedAdapter:
    """What the engine loads: ``model_path`` (the base, or the fused copy) and ``lora_path`` (or ``None``);
    ``key`` tells the adapter's weights apart (for the prefix states)."""

    model_path: Path
    lora_path: Path | None
    key: str
    mode: str


CACHE_BUDGET_MB = 2048
"""The llama.cpp adapter cache keeps the most recently used files that fit in this many MB (a fused file is the
size of the model: about 117 MB for the embedded one); ``DSPY_OUTLINES_ADAPTER_CACHE_MB`` overrides it."""
_CACHED = re.compile(r".+-[0-9a-f]{16}-[0-9a-f]{12}-(?:lora|fused-\w+)-\d+\.gguf")


def prune_cache(directory: Path, keep: Path | None = None, budget_mb: float | None = None) -> list[Path]:
    """Remove this module's files from ``directory``, least recently used first, until the rest fit in the
    budget (``keep`` always stays; files of other names are never touched). Returns what was removed."""
    if budget_mb is None:
        budget_mb = float(os.environ.get("DSPY_OUTLINES_ADAPTER_CACHE_MB", CACHE_BUDGET_MB))
    files = []
    for f in directory.glob("*.gguf"):
        with contextlib.suppress(OSError):
            if _CACHED.fullmatch(f.name):
                st = f.stat()
                files.append((f == keep, max(st.st_atime_ns, st.st_mtime_ns), st.st_size, f))
    used, removed = 0, []
    for kept, _, size, f in sorted(files, reverse=True):  # keep first, then the newest
        used += size
        if used > budget_mb * 2**20 and not kept:
            with contextlib.suppress(OSError):
                f.unlink()
                removed.append(f)
    return removed


def cache_directory(cache: str | Path | None) -> Path:
    if cache is not None:
        return Path(cache).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "dspy-outlines" / "llamacpp-adapters"


def prepare_adapter(
    adapter: str | Path, base: Path, mode: str | None = None, cache: str | Path | None = None
) -> PreparedAdapter:
    """The adapter at ``adapter`` in the form llama.cpp loads on ``base`` (see the module doc); written on first
    use. Raises ``ValueError`` for another model's or a damaged adapter, :class:`AdapterCacheError` when the
    cache cannot be written."""
    mode = DEFAULT_ADAPTER_MODE if mode is None else mode
    if mode not in ADAPTER_MODES:
        raise ValueError(f"adapter_mode must be one of {list(ADAPTER_MODES)}, not {mode!r}")
    config = check_adapter(adapter, base)  # another base model's adapter: refused before anything loads
    if config.get("fine_tune_type", "lora") != "lora":
        raise ValueError(f"{adapter} is a {config['fine_tune_type']!r} adapter; the llama.cpp engine runs LoRA only")
    weights = Path(adapter) / WEIGHTS_FILE
    try:
        raw = weights.read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read {weights} ({exc.strerror}); point adapter= at a complete adapter") from exc
    key = hashlib.sha256(raw + json.dumps(config.get("lora_parameters"), sort_keys=True).encode()).hexdigest()[:16]
    base_tag = hashlib.sha256(f"{base.resolve()}{base.stat().st_size}{base.stat().st_mtime_ns}".encode())
    kind = f"fused-{FUSED_TYPE}" if mode == "fused" else mode  # the merged weights' GGUF type
    target = cache_directory(cache) / f"{Path(adapter).name}-{key}-{base_tag.hexdigest()[:12]}-{kind}-{_VERSION}.gguf"
    if not target.is_file():
        pairs = _lora_pairs(_read_safetensors(raw, weights), config, weights)
        layout = read_layout(base)
        _write_atomic(target, adapter, lambda fh: _write(fh, mode, pairs, layout, base, config))
        prune_cache(target.parent, keep=target)
    else:
        with contextlib.suppress(OSError):  # used now: pruned last (the access time; the file is not rewritten)
            os.utime(target, ns=(time.time_ns(), target.stat().st_mtime_ns))
    if mode == "fused":
        return PreparedAdapter(target, None, key, mode)
    return PreparedAdapter(base, target, key, mode)


def _read_safetensors(raw: bytes, path: Path) -> dict[str, Any]:
    """The arrays of a safetensors file (F32, F16 or BF16) as float32 numpy arrays."""
    import numpy as np

    try:
        (size,) = struct.unpack("<Q", raw[:8])
        header = json.loads(raw[8 : 8 + size])
        out = {}
        for name, entry in header.items():
            if name == "__metadata__":
                continue
            start, end = (8 + size + int(x) for x in entry["data_offsets"])
            if end > len(raw):
                raise ValueError(f"tensor {name} ends past the end of the file")
            data = np.frombuffer(
                raw[start:end], {"F32": np.float32, "F16": np.float16, "BF16": np.uint16}[entry["dtype"]]
            )
            if entry["dtype"] == "BF16":
                data = (data.astype(np.uint32) << 16).view(np.float32)
            out[name] = data.astype(np.float32).reshape(entry["shape"])
    except (struct.error, ValueError, KeyError, TypeError) as exc:
        raise ValueError(
            f"{path} is not a readable safetensors file ({exc}): the adapter is damaged; train it again "
            "(lm.finetune) or point adapter= at a complete adapter directory"
        ) from exc
    return out


def _lora_pairs(arrays: dict[str, Any], config: dict[str, Any], path: Path) -> dict[str, tuple[Any, Any]]:
    """``{llama.cpp weight name: (A (rank, in), B (out, rank) with the scale folded in)}`` in GGUF row order."""
    scale = float((config.get("lora_parameters") or {}).get("scale", 20.0))
    found: dict[str, dict[str, Any]] = {}
    for name, value in arrays.items():
        m = _NAME_RE.match(name)
        if m is None or m.group(2) not in _PARTS:
            raise ValueError(f"{path} holds {name!r}, which the llama.cpp engine cannot map to a llama.cpp weight")
        found.setdefault(f"blk.{m.group(1)}.{_PARTS[m.group(2)]}.weight", {})[m.group(3)] = value
    pairs = {}
    for name, ab in found.items():
        if set(ab) != {"a", "b"}:
            raise ValueError(f"{path} has lora_a without lora_b (or the reverse) for {name}: the adapter is damaged")
        pairs[name] = (ab["a"].T.copy(), (ab["b"].T * scale).astype("float32"))
    if not pairs:
        raise ValueError(f"{path} holds no LoRA weights: the adapter is empty; train it again (lm.finetune)")
    return pairs


def _permute(b: Any, name: str, metadata: dict[str, Any]) -> Any:
    """``b``'s rows in llama.cpp's RoPE order for q and k projections (the base GGUF's order), else as is."""
    arch = metadata.get("general.architecture", "llama")
    heads = {"attn_q": f"{arch}.attention.head_count", "attn_k": f"{arch}.attention.head_count_kv"}
    part = name.split(".")[2]
    if part not in heads or arch != "llama":
        return b
    n = int(metadata.get(heads[part]) or metadata[f"{arch}.attention.head_count"])
    rows = b.shape[0]
    return b.reshape(n, 2, rows // n // 2, *b.shape[1:]).swapaxes(1, 2).reshape(b.shape)


def _write(fh: Any, mode: str, pairs: dict, layout: Any, base: Path, config: dict) -> None:
    infos = {t.name: t for t in layout.tensors}
    missing = sorted(set(pairs) - set(infos))
    if missing:
        raise ValueError(f"the adapter adapts {missing[0]}, which the model {base} does not have: another model's")
    pairs = {name: (a, _permute(b, name, layout.metadata)) for name, (a, b) in pairs.items()}
    for name, (a, b) in pairs.items():
        if (a.shape[1], b.shape[0]) != infos[name].dims[:2]:
            raise ValueError(f"the adapter's {name} is {a.shape[1]}x{b.shape[0]}, the model's {infos[name].dims}")
    if mode == "lora":
        arch = str(layout.metadata.get("general.architecture", "llama"))
        meta: list[tuple[str, str | float]] = [("general.architecture", arch), ("general.type", "adapter")]
        meta.append(("adapter.type", "lora"))
        rank = next(iter(pairs.values()))[0].shape[0]
        meta += [("adapter.lora.alpha", float(rank)), ("general.name", str(config.get("base_model", "")) + " LoRA")]
        tensors = []
        for name, (a, b) in sorted(pairs.items()):
            tensors.append((name + ".lora_a", (a.shape[1], a.shape[0]), F32, quantize(a, F32)))
            tensors.append((name + ".lora_b", (b.shape[1], b.shape[0]), F32, quantize(b, F32)))
        write_gguf(fh, len(meta), b"".join(kv(k, v) for k, v in meta), tensors)
        return
    with base.open("rb") as src:
        tensors = []
        for info in layout.tensors:
            src.seek(layout.data_start + info.offset)
            data = src.read(info.nbytes)
            kind = info.kind
            if info.name in pairs:
                a, b = pairs[info.name]
                data, kind = quantize(dequantize(data, info) + b @ a, FUSED_TYPE), FUSED_TYPE
            tensors.append((info.name, info.dims, kind, data))
    write_gguf(fh, layout.n_kv, layout.kv_bytes, tensors, layout.alignment)


def _write_atomic(target: Path, adapter: Any, write: Any) -> None:
    """``write(fh)`` into a temporary file beside ``target``, renamed into place once whole (removed on error)."""
    fix = (
        f"make {target.parent} writable, or pass engine_options={{'adapter_cache': <a writable directory>}} "
        "(the default is under $XDG_CACHE_HOME or ~/.cache)"
    )
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".partial")
    except OSError as exc:
        raise AdapterCacheError(
            exc.errno, f"cannot write the llama.cpp form of the adapter {adapter} ({exc.strerror}); {fix}"
        ) from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise AdapterCacheError(exc.errno, f"writing {target} failed ({exc.strerror}); {fix}") from exc
        raise
