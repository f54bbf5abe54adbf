"""The one door to DSPy's private names, and the DSPy versions this package is tested with.

dspy_outlines uses DSPy's public API (``dspy.LM(engine=...)``, ``dspy.lm15``, ``Adapter.format`` /
``parse``) wherever DSPy 3.4 offers one. The few private names that remain (the adapter's
``_call_preprocess`` / ``_call_postprocess`` hooks, the streaming fallback scope) are read through
:func:`dspy_internal`, which names the attribute, the installed DSPy and the tested range when one is gone,
instead of failing later with an ``AttributeError`` deep in a call.
"""

from __future__ import annotations

import types
from typing import Any

from dspy_outlines.internals import InternalsGuard

__all__ = ["DSPY", "SUPPORTED_DSPY", "DSPyVersionError", "dspy_internal", "dspy_internal_module"]

#: The DSPy versions dspy_outlines is tested with (``pyproject.toml`` pins the same range).
SUPPORTED_DSPY = ">=3.4.1,<3.5"


class DSPyVersionError(ImportError):
    """The installed DSPy lacks a private name dspy_outlines relies on."""


DSPY = InternalsGuard("dspy", "DSPy", SUPPORTED_DSPY, DSPyVersionError)


def dspy_internal(owner: Any, name: str) -> Any:
    """``getattr(owner, name)`` for a private DSPy attribute, failing with the fix when it is gone.

    Raises:
        DSPyVersionError: ``owner`` has no ``name``.
    """
    return DSPY.attr(owner, name)


def dspy_internal_module(name: str) -> types.ModuleType:
    """``importlib.import_module(name)`` for a private DSPy module, failing with the fix when it is gone.

    Raises:
        DSPyVersionError: The module cannot be imported.
    """
    return DSPY.module(name)
