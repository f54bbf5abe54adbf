"""dspy's ``SandboxSerializable`` inputs, as ``dspy.RLM`` 3.4.1 handles them: serialized into the REPL.

A value of a :class:`dspy.primitives.sandbox_serializable.SandboxSerializable` subclass (a DataFrame wrapper,
say) never crosses as a pickled host object: its ``to_sandbox()`` payload is bound as ``_raw_<name>`` (text,
or base64 text for binary payloads, so every backend can take it), then ``sandbox_setup()`` and
``sandbox_assignment(name, "_raw_<name>")`` run in the REPL to rebuild it there. The prompt shows its
``rlm_preview()`` and the setup code (what names it brings into scope), as dspy's ``build_repl_variable`` does.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

try:
    from dspy.primitives.sandbox_serializable import SandboxSerializable
except ImportError:  # pragma: no cover - dspy before 3.4

    class SandboxSerializable:  # type: ignore[no-redef]
        """Never matched: this dspy has no sandbox-serializable types."""


def is_serializable(value: Any) -> bool:
    return isinstance(value, SandboxSerializable)


def preview(value: Any, chars: int) -> str:
    """The prompt's summary of a serializable value: its own preview, and the names its setup brings."""
    text = value.rlm_preview(max_chars=chars)
    setup = value.sandbox_setup().strip()
    return f"{text}\n  Sandbox imports available:\n  " + setup.replace("\n", "\n  ") if setup else text


def split(inputs: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """``(what the REPL binds, the code to run once it started)``: each serializable input becomes its
    payload variable, rebuilt by the returned code (``""`` when there is none)."""
    bound: dict[str, Any] = {}
    code: list[str] = []
    for name, value in inputs.items():
        if not is_serializable(value):
            bound[name] = value
            continue
        raw = f"_raw_{name}"
        payload = value.to_sandbox()
        if isinstance(payload, bytes):
            try:
                bound[raw] = payload.decode("utf-8")
            except UnicodeDecodeError:
                bound[raw] = base64.b64encode(payload).decode("ascii")
                code.append(f"import base64 as _b64\n{raw} = _b64.b64decode({raw})")
        else:
            bound[raw] = str(payload)
        setup = value.sandbox_setup()
        code += [setup] if setup else []
        code += [value.sandbox_assignment(name, raw), f"del {raw}"]
    return bound, "\n".join(code)
