"""What ``dspy-rlm run`` checks and loads before a run: the usage error (one line, exit code 2), the context
file or directory, the LM by name, the argument types and the output paths."""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path
from typing import Any

from dspy_rlm import files


class UsageError(Exception):
    """A problem with the command line or its inputs, reported as one line with exit code 2."""


# -- inputs -------------------------------------------------------------------------------------------
def load_context(path: str | Path, max_file_mb: float = 20.0) -> tuple[str, Any]:
    """:func:`dspy_rlm.files.load_context`, its errors as :class:`UsageError` (one line, exit code 2)."""
    try:
        return files.load_context(path, max_file_mb)
    except files.ContextFileError as e:
        raise UsageError(str(e)) from e


def _local_model_path(name: str) -> Path | None:
    """``name`` as a local model (a ``.gguf`` file or a model directory), or ``None`` for an LM name."""
    p = Path(name).expanduser()
    if p.suffix.lower() == ".gguf" or p.is_dir():
        return p
    return None


def resolve_lm(name: str, max_tokens: int) -> Any:
    """``embedded`` -> OutlinesLM over the bundled SmolLM2; a ``.gguf`` file or model directory ->
    ``OutlinesLM(path)``; anything else -> ``dspy.LM(name)``.

    Raises:
        UsageError: the name has no known LiteLLM provider, or the local model cannot load.
    """
    local = None if name in ("embedded", "local") else _local_model_path(name)
    if name in ("embedded", "local") or local is not None:
        if local is not None and not local.exists():
            raise UsageError(f"model file not found: {name}")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from dspy_outlines import OutlinesLM

            return OutlinesLM(local, max_tokens=max_tokens)
        except ImportError as e:
            raise UsageError(f"local models need MLX: pip install 'dspy-rlm[mlx]' ({e})") from e
        except FileNotFoundError as e:
            raise UsageError(f"{'embedded model' if local is None else 'model'} not found: {e}") from e
        except (OSError, ValueError, KeyError, RuntimeError) as e:  # a corrupt GGUF (mlx: RuntimeError)...
            raise UsageError(f"cannot load the model {name}: {type(e).__name__}: {e}") from e
    import dspy
    import litellm

    litellm.suppress_debug_info = True
    try:
        litellm.get_llm_provider(name)
    except Exception as e:
        raise UsageError(
            f"unknown LM {name!r}: use 'embedded', a .gguf file or model directory, or a LiteLLM "
            "model string such as 'openai/gpt-4o-mini' or 'ollama_chat/llama3.2'"
        ) from e
    return dspy.LM(name, max_tokens=max_tokens)


# -- argument types ---------------------------------------------------------------------------------
def _positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (argparse reports the error and exits 2)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    """argparse type: a finite number > 0 (``nan``, ``inf``, 0 and negatives are refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text!r}")
    return value


def _check_output_path(path: str | None, flag: str) -> None:
    """Refuse an output path that cannot be written, before the (slow, maybe paid) run rather than after it."""
    if path is None:
        return
    p = Path(path).expanduser()
    if p.is_dir():
        raise UsageError(f"{flag} {path} is a directory; give a file path such as {p / 'trace.json'}")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"{flag} {path}: the folder {parent} does not exist; create it first")
    if not os.access(parent, os.W_OK):
        raise UsageError(f"{flag} {path}: the folder {parent} is not writable")
