"""LoRA training of a local model on DSPy's chat-format data, with mlx-lm's tuner (CPU on Linux, Metal on macOS).

:func:`train` is what :class:`~dspy_outlines.finetune.LocalProvider` runs for ``lm.finetune(...)``: it loads the
base model in float (``load_gguf(dequantize=True)`` for a GGUF), turns the chosen layers' attention
projections into LoRA layers (``mlx_lm.tuner.linear_to_lora_layers``), tokenizes each example with the
model's own chat template (the prompt as the engine renders it at inference, then the assistant's answer and
the end-of-turn token) and trains on the answer tokens only (the prompt is masked), with
``mlx_lm.tuner.train``. The adapter is written to a temporary directory beside the target and renamed into
place when training ends, so a later run never loads half an adapter; a checkpoint every ``save_every`` steps
lets an interrupted job resume (``resume=True``) losing at most one interval.

The adapter directory holds ``adapters.safetensors`` and ``adapter_config.json`` (what
``mlx_lm.tuner.load_adapters`` reads) with our manifest in it: the base model's fingerprint, which
:func:`check_adapter` compares before any generation, the data's hash and the training settings.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from dspy_outlines.lora_files import CONFIG_FILE, WEIGHTS_FILE, check_adapter, fingerprint_of

logger = logging.getLogger(__name__)

__all__ = ["TrainSettings", "TrainingStopped", "check_adapter", "check_data", "train"]

FORMAT = "dspy-outlines-lora-1"


@dataclass
class TrainSettings:
    """``train_kwargs`` of ``lm.finetune``: every key is one of these fields (others are refused)."""

    steps: int = 100
    batch_size: int = 4
    max_length: int = 1024  # tokens per example; longer ones are skipped, and said
    rank: int = 8
    layers: int = 8  # the last N transformer blocks get LoRA layers
    keys: tuple[str, ...] = ("self_attn.q_proj", "self_attn.v_proj")
    learning_rate: float = 1e-4
    scale: float = 20.0
    seed: int = 0
    save_every: int = 25
    resume: bool = False
    max_time_s: float | None = None  # stop after this long, keeping the last checkpoint
    output_dir: str | None = None  # default: a new directory under the cache
    progress: bool | None = None  # mlx-lm's progress bar (loss, tokens/s) on stderr; None: when it is a terminal
    answer_logits_only: bool = True  # project only the answer positions to the vocabulary (window_loss): same loss
    fast_kernels: bool = True  # on a CPU: vectorizable exp, chunked causal attention, kept buffers (cpu_kernels)
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_kwargs(cls, kwargs: dict[str, Any] | None) -> TrainSettings:
        kwargs = dict(kwargs or {})
        known = {f for f in cls.__dataclass_fields__ if f != "extra"}
        unknown = sorted(set(kwargs) - known)
        if unknown:
            raise ValueError(f"unknown train_kwargs {unknown}; the keys are {sorted(known)}")
        settings = cls(**kwargs)
        for name in ("steps", "batch_size", "max_length", "rank", "layers", "save_every"):
            value = getattr(settings, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"train_kwargs[{name!r}] must be a positive int, not {value!r}")
        if not settings.learning_rate > 0:
            raise ValueError(f"train_kwargs['learning_rate'] must be > 0, not {settings.learning_rate!r}")
        settings.keys = tuple(settings.keys)
        return settings


class TrainingStopped(RuntimeError):
    """Training stopped before its last step (time limit, out of memory); ``checkpoint`` is what was kept."""

    def __init__(self, message: str, checkpoint: Path | None):
        super().__init__(message)
        self.checkpoint = checkpoint


def check_data(train_data: Any) -> list[list[dict[str, str]]]:
    """The conversations of DSPy chat-format data (``[{"messages": [...]}, ...]``), each ending with the
    assistant's answer; raises naming the first bad example."""
    if not isinstance(train_data, list) or not train_data:
        raise ValueError(
            "train_data is empty: the teacher produced no successful trace to learn from (check the metric, "
            "or give BootstrapFinetune more examples)"
        )
    out = []
    for i, example in enumerate(train_data):
        messages: Any = example.get("messages") if isinstance(example, dict) else None
        ok = (
            isinstance(messages, list)
            and len(messages) >= 2
            and all(isinstance(m, dict) and isinstance(m.get("content"), str) and m.get("role") for m in messages)
            and messages[-1]["role"] == "assistant"
        )
        if not ok:
            raise ValueError(
                f"train_data[{i}] is not a chat example: expected {{'messages': [{{'role': 'user', 'content': ...}}, "
                "..., {'role': 'assistant', 'content': ...}]}} (TrainDataFormat.CHAT)"
            )
        out.append([{"role": m["role"], "content": m["content"]} for m in messages])
    return out


def _examples(conversations: list[list[dict[str, str]]], engine: Any, max_length: int) -> list[tuple[list[int], int]]:
    """``(tokens, prompt length)`` per conversation, as mlx-lm's datasets give them; too long ones skipped."""
    eos = getattr(engine.tokenizer, "eos_token", None) or ""
    out, skipped = [], 0
    for messages in conversations:
        prompt = engine.encode(engine.render_prompt(messages[:-1]))
        answer = engine.encode(messages[-1]["content"] + eos)
        if len(prompt) + len(answer) > max_length:
            skipped += 1
            continue
        out.append((prompt + answer, len(prompt)))
    if skipped:
        logger.warning(
            "%d of %d training examples are longer than max_length=%d tokens: skipped",
            skipped,
            len(conversations),
            max_length,
        )
    if not out:
        raise ValueError(
            f"every training example is longer than max_length={max_length} tokens; raise train_kwargs['max_length'] "
            "(the model's context permitting) or shorten the examples"
        )
    return out


def train(model_path: str | Path, train_data: Any, kwargs: dict[str, Any] | None) -> Path:
    """Train a LoRA adapter for the model at ``model_path``; returns its directory (see the module doc)."""
    settings = TrainSettings.from_kwargs(kwargs)
    conversations = check_data(train_data)
    from dspy_outlines.models.blas import ensure_fast_blas

    ensure_fast_blas()  # before mlx is imported: mlx's own BLAS trains ~20x slower on Linux CPU
    import mlx.core as mx
    import mlx.optimizers as optim
    import numpy as np
    from mlx_lm.tuner.trainer import TrainingArgs
    from mlx_lm.tuner.trainer import train as mlx_train
    from mlx_lm.tuner.utils import linear_to_lora_layers

    from dspy_outlines.engines.mlx import MLXEngine
    from dspy_outlines.models import load_private
    from dspy_outlines.models.cpu_kernels import keep_freed_memory, speed_up

    # a private float copy: the model other LMs of this process share stays untouched
    engine = MLXEngine(load_private(model_path), persist_prefix=False, prefix_cache_mb=0)
    examples = _examples(conversations, engine, settings.max_length)
    if len(examples) < settings.batch_size:
        settings.batch_size = len(examples)
    model = engine.mlx_model
    if settings.fast_kernels:
        speed_up(model)  # the private copy only: a no-op on Metal or for other architectures
    n_layers = len(model.layers)
    if settings.layers > n_layers:
        raise ValueError(f"train_kwargs['layers']={settings.layers}, but the model has {n_layers} blocks")
    mx.random.seed(settings.seed)
    np.random.seed(settings.seed)
    model.freeze()
    lora = {"rank": settings.rank, "scale": settings.scale, "dropout": 0.0, "keys": list(settings.keys)}
    linear_to_lora_layers(model, settings.layers, lora)
    target = Path(settings.output_dir) if settings.output_dir else _default_dir(model_path, conversations, settings)
    work = target.with_name(target.name + ".partial")
    work.mkdir(parents=True, exist_ok=True)
    done_before = _resume(model, work) if settings.resume else 0
    if done_before >= settings.steps:
        raise ValueError(f"the checkpoint in {work} already has {done_before} steps of {settings.steps}")
    config = _manifest(model_path, conversations, settings, lora, n_tokens=sum(len(t) for t, _ in examples))
    (work / CONFIG_FILE).write_text(json.dumps(config, indent=2))
    progress = _Progress(settings, done_before, work)
    args = TrainingArgs(
        batch_size=settings.batch_size,
        iters=settings.steps - done_before,
        steps_per_report=1,
        steps_per_eval=10**9,
        steps_per_save=settings.save_every,
        max_seq_length=settings.max_length,
        adapter_file=str(work / WEIGHTS_FILE),
    )
    console, quiet = _console(settings.progress)
    try:
        callback: Any = progress  # mlx-lm's TrainingCallback shape (not a subclass: mlx_lm is imported lazily)
        loss_kw: dict[str, Any] = {}
        if settings.answer_logits_only and _windowed(model):  # the answer positions' logits: same loss, faster
            loss_kw["loss"] = window_loss(max(len(t) - offset for t, offset in examples) + 1)
        with keep_freed_memory(settings.fast_kernels):  # glibc reuses MLX's freed buffers; defaults after
            mlx_train(
                model,
                optim.Adam(learning_rate=settings.learning_rate),
                examples,
                None,
                args,
                training_callback=callback,
                **loss_kw,
            )
    except (MemoryError, _TimeUp) as exc:
        kept = work if (work / WEIGHTS_FILE).is_file() else None
        raise TrainingStopped(
            f"training stopped after {progress.step} of {settings.steps} steps: {exc}; "
            f"the last checkpoint is in {kept} (train_kwargs resume=True goes on)",
            kept,
        ) from exc
    finally:
        console.quiet = quiet
    # the answer tokens (those the loss is taken on) per second; every token of the batches: benchmarks/finetune.py
    config.update(losses=progress.losses, loss_tokens_per_s=progress.tokens_per_s(), steps_done=settings.steps)
    config.update(train_s=round(time.perf_counter() - progress.t0, 3))  # the steps alone: no model load
    (work / CONFIG_FILE).write_text(json.dumps(config, indent=2))
    for extra in work.glob("*_adapters.safetensors"):  # mlx-lm's numbered checkpoints: the last one is kept whole
        extra.unlink()
    (work / "steps.json").unlink(missing_ok=True)
    if target.exists():
        shutil.rmtree(target)
    os.replace(work, target)  # whole or not at all: a later run never loads a half-written adapter
    return target


def window_loss(window: int) -> Any:
    """mlx-lm's loss (mean cross-entropy over the answer tokens), with the vocabulary projection taken only over
    the last ``window`` positions of each example instead of every position: the prompt's logits are never
    computed. ``window`` must cover the longest answer (:func:`train` passes exactly that), so the loss and its
    gradient equal mlx-lm's ``default_loss``; the projection and softmax over 49,152 tokens at each of ~500
    prompt positions was the largest single cost of a step (benchmarks/finetune.py measures the gain)."""
    import mlx.core as mx
    import mlx.nn as nn

    def loss(model: Any, batch: Any, lengths: Any) -> Any:
        inputs, targets = batch[:, :-1], batch[:, 1:]
        hidden = model.model(inputs)
        # target index i is token i + 1; an example's answer is its tokens offset .. length - 1
        raw = lengths[:, 1:] - window + mx.arange(window)[None, :]
        idx = mx.clip(raw, 0, targets.shape[1] - 1)
        picked = mx.take_along_axis(hidden, idx[..., None], axis=1)
        head = model.model.embed_tokens.as_linear if model.args.tie_word_embeddings else model.lm_head
        logits = head(picked)
        mask = mx.logical_and(mx.logical_and(raw >= 0, raw + 1 >= lengths[:, 0:1]), raw + 1 <= lengths[:, 1:])
        ce = nn.losses.cross_entropy(logits, mx.take_along_axis(targets, idx, axis=1)) * mask
        ntoks = mask.sum()
        return ce.astype(mx.float32).sum() / ntoks, ntoks

    return loss


def _windowed(model: Any) -> bool:
    """The model exposes its body (``model.model``) and head as mlx-lm's llama-family models do."""
    return hasattr(model, "model") and hasattr(model, "args") and hasattr(model.model, "embed_tokens")


class _TimeUp(RuntimeError):
    pass


def _console(show: bool | None) -> tuple[Any, bool]:
    """mlx-lm's shared console, pointed at stderr and quiet unless the progress is wanted; (it, its old quiet)."""
    import sys

    from mlx_lm.cli_ui import make_console

    console = make_console()
    quiet = console.quiet
    console.file = sys.stderr
    console.quiet = not (sys.stderr.isatty() if show is None else show)
    return console, quiet


class _Progress:
    """mlx-lm's training callback: records losses and tokens/s, writes the step count next to the checkpoint,
    and stops the job at ``max_time_s``."""

    def __init__(self, settings: TrainSettings, done_before: int, work: Path):
        self.settings, self.step, self.work = settings, done_before, work
        self.losses: list[float] = []
        self.tokens, self.t0 = 0, time.perf_counter()

    def on_train_loss_report(self, info: dict[str, Any]) -> None:
        self.step += 1
        self.losses.append(round(float(info.get("train_loss", math.nan)), 4))
        self.tokens = int(info.get("trained_tokens", self.tokens))
        if self.step % self.settings.save_every == 0:  # mlx-lm saves the weights right after this report
            (self.work / "steps.json").write_text(json.dumps({"steps": self.step}))
        limit = self.settings.max_time_s
        if limit is not None and time.perf_counter() - self.t0 > limit:
            raise _TimeUp(f"the time limit of {limit:g} s was reached")

    def on_val_loss_report(self, info: dict[str, Any]) -> None:
        pass

    def tokens_per_s(self) -> float:
        return round(self.tokens / max(time.perf_counter() - self.t0, 1e-9), 1)


def _resume(model: Any, work: Path) -> int:
    """Load the checkpoint in ``work`` into the LoRA layers; the steps it holds (0 when there is none)."""
    weights = work / WEIGHTS_FILE
    if not weights.is_file():
        return 0
    import mlx.core as mx

    loaded: Any = mx.load(str(weights))
    model.load_weights(list(loaded.items()), strict=False)
    try:
        return int(json.loads((work / "steps.json").read_text())["steps"])
    except (OSError, ValueError, KeyError):
        return 0


def _manifest(model_path: Any, conversations: list, settings: TrainSettings, lora: dict, n_tokens: int) -> dict:
    return {
        "format": FORMAT,
        "fine_tune_type": "lora",
        "num_layers": settings.layers,
        "lora_parameters": lora,
        "base_model": str(model_path),
        "base_model_fingerprint": fingerprint_of(model_path),
        "data_sha256": _data_hash(conversations),
        "examples": len(conversations),
        "train_tokens": n_tokens,
        "settings": {k: v for k, v in asdict(settings).items() if k not in ("output_dir", "extra")},
    }


def _data_hash(conversations: list) -> str:
    return hashlib.sha256(json.dumps(conversations, sort_keys=True).encode()).hexdigest()


def _default_dir(model_path: Any, conversations: list, settings: TrainSettings) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    tag = hashlib.sha256(f"{fingerprint_of(model_path)}{_data_hash(conversations)}{asdict(settings)}".encode())
    return Path(base) / "dspy-outlines" / "adapters" / tag.hexdigest()[:16]
