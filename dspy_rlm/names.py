"""Every name an RLM puts in the REPL or on its Prediction, defined once, and who owns it.

* **The protocol's** names (:func:`is_protocol_name`): what ``dspy.RLM`` reserves -- ``SUBMIT``, ``llm_query``,
  ``llm_query_batched``, ``print`` and the sandbox dspy facade's names -- read from the installed dspy. A user
  tool or input with one of them is an error, as in dspy.
* **Our extras** (:data:`EXTRA_NAMES`): ``FINAL``, ``FINAL_VAR``, ``rlm_query``, ``batch_rlm_query``, the ``inputs``
  dict and the REPL helpers. A user tool or input may take any of them: the user's wins, our extra is hidden for
  that run (:func:`hidden_extras`), and the prompt says so.
* On the Prediction, dspy's result names (``trajectory``, ``final_reasoning``) are reserved; our extras
  (:data:`RESULT_EXTRAS`) are set only where no output field has the name (see :mod:`dspy_rlm.prediction`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from dspy_rlm.library.helpers import HELPER_NAMES

SUBMIT = "SUBMIT"
FINAL, FINAL_VAR = "FINAL", "FINAL_VAR"
#: The sub-LM bridge the REPL calls (and the namespace executor wires for the helpers).
LLM_QUERY = "llm_query"
LLM_BRIDGES = (LLM_QUERY, "llm_query_batched")
RLM_BRIDGES = ("rlm_query", "batch_rlm_query")
MEDIA_BRIDGE = "llm_query_with_media"
INPUTS_DICT = "inputs"
#: dspy 3.4.1's reserved sandbox names, used when the installed dspy does not say.
_DSPY_SANDBOX_NAMES = frozenset({SUBMIT, *LLM_BRIDGES, "print"})
_DSPY_RESULT_NAMES = frozenset({"trajectory", "final_reasoning"})
#: Call-time keywords of ``forward`` that dspy keeps out of the signature's inputs.
RUNTIME_ARGS = frozenset({"interpreter_factory"})

#: Our names in the REPL beyond dspy's protocol: each gives way to a user tool or input of the same name.
EXTRA_NAMES: tuple[str, ...] = (FINAL, FINAL_VAR, *RLM_BRIDGES, MEDIA_BRIDGE, INPUTS_DICT, *HELPER_NAMES)
#: What we add to a Prediction next to the outputs, each only where no output field has the name.
RESULT_EXTRAS = ("result", "trace", "rlm_result", "rlm_trace", "usage")


@functools.cache
def protocol_names() -> frozenset[str]:
    """The sandbox names the installed ``dspy.RLM`` reserves (``SUBMIT``, ``llm_query``, ...)."""
    try:
        from dspy.predict.rlm import RLM

        return frozenset(RLM._RESERVED_SANDBOX_NAMES)
    except (ImportError, AttributeError):  # a dspy that does not expose them: 3.4.1's
        return _DSPY_SANDBOX_NAMES


@functools.cache
def result_names() -> frozenset[str]:
    """The Prediction keys the installed ``dspy.RLM`` reserves (``trajectory``, ``final_reasoning``)."""
    try:
        from dspy.predict.rlm import RLM

        return frozenset(RLM._RESERVED_RESULT_NAMES)
    except (ImportError, AttributeError):
        return _DSPY_RESULT_NAMES


def is_protocol_name(name: str) -> bool:
    """Whether ``name`` is the protocol's own: dspy's reserved names and its sandbox facade's (``dspy``,
    ``_dspy*``) where the installed dspy has that facade."""
    if name in protocol_names():
        return True
    try:
        from dspy.primitives.facade import is_reserved_sandbox_name
    except ImportError:
        return False
    return bool(is_reserved_sandbox_name(name))


def hidden_extras(user_names: Iterable[str]) -> list[str]:
    """Our extras that the user's tools or inputs named ``user_names`` hide for a run, in :data:`EXTRA_NAMES` order."""
    taken = set(user_names)
    return [name for name in EXTRA_NAMES if name in taken]
