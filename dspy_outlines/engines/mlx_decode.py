"""Greedy constrained decoding with jump-forward for the MLX engine (as :mod:`.llamacpp_decode` for llama.cpp).

The constraint is asked for the next position's mask before the model: a token it forces (the only one
allowed) is taken at once and queued; the queue is evaluated in one batch when logits are next needed. The
logits processor is called exactly once per position with the token history mlx-lm would give it (the
prompt's uncached tail, then the generated tokens), on a zero row whose ``-inf`` entries are the mask.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, NamedTuple

__all__ = ["JumpForward", "Response", "responses"]


class JumpForward:
    """Greedy tokens under ``processor``, the forced ones evaluated in batches; iterate for the tokens.

    Args:
        model: The mlx-lm model.
        cache: Its prompt cache, holding the prompt before ``rest``.
        rest: The prompt tokens not in ``cache`` (at least one).
        processor: An mlx-lm logits processor ``(tokens, logits) -> logits``.
        prefill_chunk: Prompt tokens per forward pass.
        check: Called with ``(done, total)`` after each prefill chunk (may raise to stop the prefill).
    """

    def __init__(
        self,
        model: Any,
        cache: list[Any],
        rest: list[int],
        processor: Any,
        prefill_chunk: int,
        check: Callable[[int, int], None],
    ) -> None:
        self.model, self.cache, self.rest, self.processor = model, cache, list(rest), processor
        self.prefill_chunk, self.check = prefill_chunk, check
        self.forced = self.sampled = 0

    def _forward(self, tokens: list[int]) -> Any:
        import mlx.core as mx

        return self.model(mx.array(tokens)[None], cache=self.cache)[:, -1, :]

    def __iter__(self) -> Generator[int, None, None]:
        import mlx.core as mx
        import numpy as np
        from mlx_lm.generate import generation_stream

        rest, done = self.rest, 0
        with mx.stream(generation_stream):
            while len(rest) - done > 1:
                n = min(self.prefill_chunk, len(rest) - done - 1)
                self._forward(rest[done : done + n])
                mx.eval([c.state for c in self.cache])
                done += n
                self.check(done, len(rest))
            logits = self._forward(rest[done:])
            mx.eval(logits)
        history, pending = list(rest), list[int]()
        allowed = self._allowed(history, logits.shape[-1])
        while True:
            if allowed.size == 1:
                token = int(allowed[0])
                self.forced += 1
            else:
                if pending:
                    with mx.stream(generation_stream):
                        logits = self._forward(pending)
                    pending = []
                row = np.array(logits[0].astype(mx.float32))
                token = int(allowed[np.argmax(row[allowed])]) if allowed.size else int(np.argmax(row))
                self.sampled += 1
            yield token
            pending.append(token)
            history.append(token)
            allowed = self._allowed(history, logits.shape[-1])

    def _allowed(self, history: list[int], vocab: int) -> Any:
        import mlx.core as mx
        import numpy as np

        row = self.processor(mx.array(history), mx.zeros((1, vocab), dtype=mx.float32))
        return np.flatnonzero(np.isfinite(np.array(row[0])))


class Response(NamedTuple):
    """The fields of mlx-lm's ``GenerationResponse`` the MLX engine reads."""

    text: str
    token: int
    generation_tokens: int
    finish_reason: str | None


def responses(jump: JumpForward, tokenizer: Any, max_tokens: int) -> Generator[Response, None, None]:
    """``jump``'s tokens as ``mlx_lm.stream_generate`` would report them (text segments, EOS and length
    handling), so the engine reads both the same way."""
    detokenizer = tokenizer.detokenizer
    detokenizer.reset()
    n, token = -1, -1
    for n, token in enumerate(jump):
        if token in tokenizer.eos_token_ids:
            break
        detokenizer.add_token(token)
        if n + 1 >= max_tokens:
            break
        yield Response(detokenizer.last_segment, token, n + 1, None)
    detokenizer.finalize()
    yield Response(detokenizer.last_segment, token, n + 1, "stop" if token in tokenizer.eos_token_ids else "length")
