"""A LoRA adapter on disk: its files and the check that it belongs to the model it is loaded on.

The directory holds ``adapters.safetensors`` and ``adapter_config.json`` (what ``mlx_lm.tuner.load_adapters``
reads, with :mod:`dspy_outlines.lora`'s manifest in it). Apart from the training code so that the engines
that load an adapter never import the trainer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CONFIG_FILE, WEIGHTS_FILE = "adapter_config.json", "adapters.safetensors"


def fingerprint_of(model_path: str | Path) -> str:
    from dspy_outlines.models.prefix_store import model_fingerprint

    return str(model_fingerprint(model_path))


def check_adapter(adapter_dir: str | Path, model_path: str | Path) -> dict[str, Any]:
    """The adapter's config, after checking it was trained on ``model_path``'s model (raises otherwise)."""
    path = Path(adapter_dir)
    try:
        config = json.loads((path / CONFIG_FILE).read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(
            f"{path} is no LoRA adapter directory ({CONFIG_FILE}: {exc}); pass the directory lm.finetune wrote "
            f"(it holds {CONFIG_FILE} and {WEIGHTS_FILE}), or train one with lm.finetune"
        ) from exc
    if not (path / WEIGHTS_FILE).is_file():
        raise ValueError(
            f"{path} has no {WEIGHTS_FILE}: the adapter is incomplete; train it again (lm.finetune, resume=True "
            "goes on from its last checkpoint)"
        )
    trained_on = config.get("base_model_fingerprint")
    here = fingerprint_of(model_path)
    if trained_on is not None and trained_on != here:
        raise ValueError(
            f"the adapter {path} was trained for another base model (fingerprint {trained_on}, this model "
            f"{here}: {model_path}); load it on the model it names ({config.get('base_model', '?')})"
        )
    return config
