"""Greedy constrained decoding with jump-forward for the llama.cpp engine.

Under a constraint much of the text is fixed: a JSON key, the quote after it, the code template of the
small-model profile (``{"reasoning": "I will search for '`` ...). Token by token, each of those tokens costs
a forward pass whose logits are thrown away (the mask allows one token). Here the constraint is asked for
the next position's mask before the model: when it allows exactly one token, that token is taken at once
and only queued; the queue (the sampled token and every forced one after it) is evaluated in one batch,
like a prompt, when logits are next needed.

The logits processor (any Outlines backend: llguidance, outlines_core, xgrammar) is called exactly once per
position with the token history, as llama.cpp would call it, but on a zero row; its ``-inf`` entries are the
mask, applied to the model's logits when a token is really chosen (the argmax: greedy only, so the output
is the token-by-token output, forced tokens being the only ones the greedy choice could take anyway).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

__all__ = ["JumpForward"]


class JumpForward:
    """Greedy tokens under ``processor`` on ``llama``, with the forced ones evaluated in batches.

    Iterate over it for the tokens (it evaluates ``pending`` first: the prompt's not yet evaluated tail);
    ``forced`` and ``sampled`` count the tokens taken each way so far.

    Args:
        llama: The engine's ``Llama``, its context holding the prompt up to ``pending``.
        pending: Prompt tokens not yet evaluated (at least one: their last logits give the first token).
        processor: A logits processor ``(input_ids, logits) -> logits`` (llama-cpp-python's signature).
    """

    def __init__(self, llama: Any, pending: list[int], processor: Any) -> None:
        self.llama, self.pending, self.processor = llama, list(pending), processor
        self.forced = self.sampled = 0

    def __iter__(self) -> Generator[int, None, None]:
        import llama_cpp
        import numpy as np

        from dspy_outlines.engines.llamacpp_internals import llamacpp_internal

        llama = self.llama
        n_vocab = llama.n_vocab()
        history = [int(t) for t in llamacpp_internal(llama, "_input_ids")] + self.pending
        llama.eval(self.pending)
        self.pending = []
        ctx = llamacpp_internal(llama, "_ctx").ctx
        allowed = self._allowed(history, n_vocab)
        while True:
            if allowed.size == 1:
                token = int(allowed[0])
                self.forced += 1
            else:
                if self.pending:
                    llama.eval(self.pending)
                    self.pending = []
                logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(ctx, -1), shape=(n_vocab,))
                token = int(allowed[np.argmax(logits[allowed])]) if allowed.size else 0
                self.sampled += 1
            yield token
            self.pending.append(token)
            history.append(token)
            allowed = self._allowed(history, n_vocab)

    def _allowed(self, history: list[int], n_vocab: int) -> Any:
        """The token ids the constraint allows after ``history`` (the processor advances by its last token)."""
        import numpy as np

        row = self.processor(np.asarray(history, dtype=np.intc), np.zeros(n_vocab, dtype=np.single))
        return np.flatnonzero(np.isfinite(row))
