"""The llama.cpp engine's prompt: the model's chat template rendered (the system turn folded into the user's
when the template rejects it), and the text tokenized. :class:`ChatPrompt` is a base class of
:class:`~dspy_outlines.engines.llamacpp.LlamaCppEngine`."""

from __future__ import annotations

import logging
from typing import Any

from dspy_outlines.engines.llamacpp_internals import llamacpp_internal

logger = logging.getLogger("dspy_outlines.engines.llamacpp")


class ChatPrompt:
    """Prompt rendering and tokenizing; ``llama`` and ``_formatter`` are set by the engine."""

    llama: Any
    _formatter: Any

    def _chat_formatter(self) -> Any:
        template = self.llama.metadata.get("tokenizer.chat_template")
        if not template:
            return None
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        def token_text(token_id: int) -> str:
            return llamacpp_internal(self.llama, "_model").token_get_text(token_id) if token_id >= 0 else ""

        return Jinja2ChatFormatter(
            template, eos_token=token_text(self.llama.token_eos()), bos_token=token_text(self.llama.token_bos())
        )

    def render_prompt(self, messages: list[dict[str, str]]) -> str:
        if self._formatter is None:
            return "\n\n".join(m["content"] for m in messages) + "\n\n"
        try:
            return self._formatter(messages=messages).prompt
        except Exception as e:  # some templates reject the system role: fold it into the user turn
            if not messages or messages[0]["role"] != "system" or len(messages) < 2:
                raise
            logger.debug("Chat template rejected the system role (%s); merging it into the user turn", e)
            merged = [{"role": messages[1]["role"], "content": f"{messages[0]['content']}\n\n{messages[1]['content']}"}]
            return self._formatter(messages=merged + messages[2:]).prompt

    def encode(self, text: str) -> list[int]:
        # The chat template writes its own special tokens (<|im_start|>...): parse them, add no BOS.
        return self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=True)
