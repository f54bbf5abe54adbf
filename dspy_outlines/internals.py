"""One guard for every private attribute dspy_outlines reads in a package it depends on.

DSPy, Outlines and llama-cpp-python each expose a few internals that their public API does not replace
(:mod:`dspy_outlines.dspy_internal`, :mod:`dspy_outlines.cpu_bitmask`,
:mod:`dspy_outlines.engines.llamacpp_internals` list them). Each is read through an :class:`InternalsGuard`,
so a release that renames one fails at once with an error naming the attribute, the installed version and
the supported range to install, instead of an ``AttributeError`` deep in a call.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import types
from typing import Any

__all__ = ["InternalsGuard"]


class InternalsGuard:
    """The door to one package's private names.

    Args:
        distribution: The package's distribution name on PyPI (``"outlines"``).
        label: How the package is named in messages (``"Outlines"``).
        supported: The version range dspy_outlines is tested with (the pyproject bound, too).
        error: The exception raised when a private name is gone.
    """

    def __init__(self, distribution: str, label: str, supported: str, error: type[Exception]):
        self.distribution, self.label, self.supported, self.error = distribution, label, supported, error

    def version(self) -> str:
        """The installed version, or ``"(version unknown)"``."""
        try:
            return importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            return "(version unknown)"

    def missing(self, what: str) -> Exception:
        """The error for a private name ``what`` that the installed package lacks, with the fix."""
        fix = f"{self.distribution}{self.supported}"
        return self.error(
            f"dspy_outlines needs {self.label}'s internal {what}, which the installed {self.label} "
            f"{self.version()} does not have; dspy_outlines supports {fix}. Install a supported version: "
            f"pip install '{fix}'."
        )

    def attr(self, owner: Any, name: str) -> Any:
        """``getattr(owner, name)`` for a private attribute of a module, class or object of the package.

        Raises:
            The guard's error: ``owner`` has no ``name`` (the message names both, the version and the fix).
        """
        try:
            return getattr(owner, name)
        except AttributeError as exc:
            if isinstance(owner, types.ModuleType):
                where = owner.__name__
            else:
                cls = owner if isinstance(owner, type) else type(owner)
                where = f"{cls.__module__}.{cls.__qualname__}"
            raise self.missing(f"attribute {where}.{name}") from exc

    def module(self, name: str) -> types.ModuleType:
        """``importlib.import_module(name)`` for a private module of the package.

        Raises:
            The guard's error: the module cannot be imported.
        """
        try:
            return importlib.import_module(name)
        except ImportError as exc:
            raise self.missing(f"module {name}") from exc
