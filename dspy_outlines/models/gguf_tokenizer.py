"""Rebuild a Hugging Face fast tokenizer from the tokenizer stored in GGUF metadata.

GGUF files carry the vocabulary, merges, token types, special ids and chat template. For
byte-level BPE vocabularies (``tokenizer.ggml.model == "gpt2"``: SmolLM2, Llama 3, Qwen, ...) this
module builds the same ``tokenizers.Tokenizer`` the original ``tokenizer.json`` describes, wraps it
in ``transformers.PreTrainedTokenizerFast`` and then in mlx-lm's ``TokenizerWrapper``, which is
what ``outlines.from_mlxlm`` expects.
"""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger(__name__)

__all__ = ["tokenizer_from_gguf_metadata"]

# GGUF token types (llama.cpp's ``llama_token_type``).
_CONTROL = 3
_USER_DEFINED = 4

# Llama 3 / GPT-4 style split; used by several byte-level BPE pre-tokenizers in llama.cpp.
_LLAMA3_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def _pre_tokenizer(pre: str) -> Any:
    """The ``tokenizers`` pre-tokenizer matching llama.cpp's ``tokenizer.ggml.pre`` name."""
    from tokenizers import Regex, pre_tokenizers

    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    if pre == "smollm":
        # SmolLM / SmolLM2: every digit is its own pre-token, then GPT-2's byte-level split.
        return pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True), byte_level])
    if pre in ("llama-bpe", "llama3", "smaug-bpe"):
        split = pre_tokenizers.Split(Regex(_LLAMA3_SPLIT), behavior="isolated", invert=False)
        no_regex = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
        return pre_tokenizers.Sequence([split, no_regex])
    if pre not in ("gpt2", "gpt-2", "default", ""):
        logger.warning("Unknown GGUF pre-tokenizer %r: falling back to GPT-2 byte-level", pre)
    return byte_level


def _as_list(value: Any) -> list:
    return value.tolist() if hasattr(value, "tolist") else list(value)


def _special_id(metadata: dict[str, Any], name: str) -> int | None:
    value = metadata.get(f"tokenizer.ggml.{name}_token_id")
    if value is None:
        return None
    return int(value.item() if hasattr(value, "item") else value)


def build_hf_tokenizer(metadata: dict[str, Any]) -> Any:
    """Build a ``transformers.PreTrainedTokenizerFast`` from GGUF tokenizer metadata.

    Args:
        metadata: The metadata dict returned by ``mx.load(path, return_metadata=True)``.

    Returns:
        A ``PreTrainedTokenizerFast`` with the chat template and bos/eos/pad/unk tokens set.

    Raises:
        ValueError: If the GGUF tokenizer is not a byte-level BPE (``gpt2``) tokenizer.
    """
    from tokenizers import AddedToken, Tokenizer, decoders, models, processors
    from transformers import PreTrainedTokenizerFast

    kind = metadata.get("tokenizer.ggml.model")
    if kind != "gpt2":
        raise ValueError(
            f"GGUF tokenizer model {kind!r} is not supported; only byte-level BPE ('gpt2') "
            "vocabularies are. Convert the model to an mlx-lm directory "
            "(`mlx_lm.convert`) and load that directory instead."
        )
    tokens: list[str] = list(metadata["tokenizer.ggml.tokens"])
    merges = [tuple(m.split(" ", 1)) for m in metadata.get("tokenizer.ggml.merges", [])]
    vocab = {tok: i for i, tok in enumerate(tokens)}
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=merges, fuse_unk=False))
    tokenizer.pre_tokenizer = _pre_tokenizer(str(metadata.get("tokenizer.ggml.pre", "gpt2")))
    tokenizer.decoder = decoders.ByteLevel()

    types = metadata.get("tokenizer.ggml.token_type")
    types = _as_list(types) if types is not None else [1] * len(tokens)
    added = [
        AddedToken(tokens[i], special=(t == _CONTROL), normalized=False)
        for i, t in enumerate(types)
        if t in (_CONTROL, _USER_DEFINED)
    ]
    if added:
        tokenizer.add_special_tokens([a for a in added if a.special])
        tokenizer.add_tokens([a for a in added if not a.special])

    bos = _special_id(metadata, "bos")
    add_bos = bool(metadata.get("tokenizer.ggml.add_bos_token", False))
    if add_bos and bos is not None:
        tokenizer.post_processor = processors.TemplateProcessing(
            single=f"{tokens[bos]} $A", pair=f"{tokens[bos]} $A $B", special_tokens=[(tokens[bos], bos)]
        )

    named: dict[str, str] = {}
    for name in ("bos", "eos", "unknown", "padding"):
        idx = _special_id(metadata, name)
        if idx is not None and 0 <= idx < len(tokens):
            key = {"unknown": "unk", "padding": "pad"}.get(name, name)
            named[f"{key}_token"] = tokens[idx]
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        chat_template=metadata.get("tokenizer.chat_template"),
        clean_up_tokenization_spaces=False,
        **named,
    )


def tokenizer_from_gguf_metadata(metadata: dict[str, Any]) -> Any:
    """Build mlx-lm's ``TokenizerWrapper`` for a GGUF file's tokenizer.

    Args:
        metadata: The metadata dict returned by ``mx.load(path, return_metadata=True)``.

    Returns:
        An ``mlx_lm.tokenizer_utils.TokenizerWrapper`` with a byte-level streaming detokenizer and
        the end-of-turn token(s) as stop ids.
    """
    from mlx_lm.tokenizer_utils import BPEStreamingDetokenizer, TokenizerWrapper

    hf_tokenizer = build_hf_tokenizer(metadata)
    eos_ids = {i for i in (_special_id(metadata, "eos"), _special_id(metadata, "eot")) if i is not None}
    return TokenizerWrapper(hf_tokenizer, detokenizer_class=BPEStreamingDetokenizer, eos_token_ids=sorted(eos_ids))
