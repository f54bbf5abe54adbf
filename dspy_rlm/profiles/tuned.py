"""The small policy's shipped adapter: LoRA weights of the embedded model, trained on the oracle's moves.

``python -m benchmarks.train_small_policy --write`` trains it from the training corpus only (fixed seed) and
writes ``small_adapter/`` beside this module (``adapters.safetensors``, ``adapter_config.json`` with the base
model's fingerprint, ``manifest.json`` naming the data and the command). :func:`tuned_lm` is what
``RLM(profile="auto" | "small")`` asks: when the run's LM is an ``OutlinesLM`` left at ``adapter="default"``
on the model the adapter was trained on, the small policy runs its action steps on that model plus the
adapter, with the prompt it was trained on (:data:`~dspy_rlm.profiles.SMALL_TUNED`); anything else
(another model, an adapter of the user's, ``OutlinesLM(adapter=None)``, no adapter shipped) leaves the run as
it was. The tuned LM is built once per base LM (the fused GGUF is written once, to the user's cache).
"""

from __future__ import annotations

import json
import logging
import threading
import weakref
from functools import lru_cache
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

__all__ = ["ADAPTER_DIR", "shipped_adapter", "tuned_lm"]

ADAPTER_DIR = Path(__file__).with_name("small_adapter")
_TUNED: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def shipped_adapter() -> Path | None:
    """The shipped adapter's directory, or ``None`` when the package ships none."""
    from dspy_outlines.lora_files import CONFIG_FILE, WEIGHTS_FILE

    ok = (ADAPTER_DIR / WEIGHTS_FILE).is_file() and (ADAPTER_DIR / CONFIG_FILE).is_file()
    return ADAPTER_DIR if ok else None


@lru_cache(maxsize=8)
def _trained_on(adapter_dir: str) -> str | None:
    from dspy_outlines.lora_files import CONFIG_FILE

    try:
        return json.loads((Path(adapter_dir) / CONFIG_FILE).read_text()).get("base_model_fingerprint")
    except (OSError, ValueError):
        return None


@lru_cache(maxsize=8)
def _fingerprint(model_path: str) -> str | None:
    from dspy_outlines.lora_files import fingerprint_of

    try:
        return fingerprint_of(model_path)
    except OSError:
        return None


def tuned_lm(lm: Any) -> Any | None:
    """``lm`` plus the shipped adapter when it applies (see the module doc), else ``None``. An adapter that
    does not load is logged and left out: the run goes on with ``lm`` as given."""
    from dspy_outlines.lm import DEFAULT_ADAPTER

    if getattr(lm, "adapter_setting", None) != DEFAULT_ADAPTER:
        return None
    path = shipped_adapter()
    if path is None:
        return None
    try:
        base = lm.base_model_path()
    except (AttributeError, ValueError):
        return None
    trained_on = _trained_on(str(path))
    if trained_on is None or _fingerprint(base) != trained_on:
        return None
    with _LOCK:
        kept = _TUNED.get(lm)
        if kept is not None and kept[0] == path:
            return kept[1]
        try:
            tuned = lm.with_adapter(path)
        except Exception as exc:  # noqa: BLE001 - a damaged shipped adapter must not fail the user's runs
            logger.warning("the small policy's adapter %s did not load (%s); the run uses the LM as given", path, exc)
            return None
        _TUNED[lm] = (path, tuned)
    return tuned
