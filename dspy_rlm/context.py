"""Context as variables (SPEC-25): the inputs live in the REPL; the prompt carries only short summaries.

:class:`ExternalizedContext` describes the inputs of a run: for each variable its name, kind, size in bytes,
item count and a short head/tail preview. Size limits (warn 100 KB per variable, chunk at 1 MB, 10 MB in
total by default) produce warnings shown to the model and recorded in the trace; they never refuse a run.
"""

from __future__ import annotations

import enum
import sys
from dataclasses import dataclass, field
from typing import Any, Mapping

KB, MB = 1024, 1024 * 1024
FULL_VALUE_CHARS = 600  # inputs at most this long are shown whole (the query, options, ...)
PROMPT_SUMMARY_CHARS = 6_000  # all summaries together stay under this, whatever the context size


class VarKind(str, enum.Enum):
    CONVERSATION = "conversation"
    FILES = "files"
    TOOL_OUTPUTS = "tool_outputs"
    WORKING_MEMORY = "working_memory"
    CUSTOM = "custom"


@dataclass(frozen=True)
class SizeConfig:
    """Per-variable and total size thresholds, in bytes."""

    warn_threshold: int = 100 * KB
    chunk_threshold: int = 1 * MB
    max_total_size: int = 10 * MB


@dataclass(frozen=True)
class SizeWarning:
    kind: str  # LargeVariable | RequiresChunking | TotalSizeExceeded
    message: str
    name: str | None = None
    size: int = 0
    threshold: int = 0
    suggested_chunks: int | None = None


@dataclass
class ContextVariable:
    name: str
    kind: VarKind
    type_name: str
    size_bytes: int
    item_count: int | None
    summary: str
    desc: str = ""
    chunked: bool = False


@dataclass
class ExternalizedContext:
    """The run's inputs as REPL variables, with summaries for the prompt and size checks."""

    variables: dict[str, ContextVariable] = field(default_factory=dict)
    query: str | None = None
    config: SizeConfig = field(default_factory=SizeConfig)

    @property
    def total_size_bytes(self) -> int:
        return sum(v.size_bytes for v in self.variables.values())

    @classmethod
    def from_inputs(cls, inputs: Mapping[str, Any], descs: Mapping[str, str] | None = None,
                    kinds: Mapping[str, VarKind | str] | None = None, config: SizeConfig | None = None,
                    query: str | None = None) -> ExternalizedContext:
        """Describe ``inputs`` without copying them. ``kinds`` overrides the inferred kind per name."""
        ctx = cls(query=query, config=config or SizeConfig())
        n = max(len(inputs), 1)
        preview = max(80, min(400, PROMPT_SUMMARY_CHARS // (2 * n) - 100))
        for name, value in inputs.items():
            kind = VarKind((kinds or {}).get(name) or infer_kind(name, value))
            ctx.variables[name] = ContextVariable(
                name=name, kind=kind, type_name=type(value).__name__, size_bytes=size_in_bytes(value),
                item_count=len(value) if isinstance(value, (list, tuple, dict, set)) else None,
                summary=preview_text(value, preview), desc=(descs or {}).get(name, ""),
            )
        return ctx

    def check_size_limits(self, config: SizeConfig | None = None) -> list[SizeWarning]:
        cfg = config or self.config
        out: list[SizeWarning] = []
        for name, var in self.variables.items():
            if var.size_bytes > cfg.chunk_threshold:
                chunks = var.size_bytes // max(cfg.warn_threshold, 1) + 1
                out.append(SizeWarning("RequiresChunking", f"`{name}` is {human(var.size_bytes)} (over "
                                       f"{human(cfg.chunk_threshold)}): never print it whole; process it in "
                                       f"~{chunks} chunks (chunk_text) or search it", name, var.size_bytes,
                                       cfg.chunk_threshold, chunks))
            elif var.size_bytes > cfg.warn_threshold:
                out.append(SizeWarning("LargeVariable", f"`{name}` is {human(var.size_bytes)}: peek or search "
                                       "it rather than printing it", name, var.size_bytes, cfg.warn_threshold))
        if self.total_size_bytes > cfg.max_total_size:
            out.append(SizeWarning("TotalSizeExceeded", f"the inputs total {human(self.total_size_bytes)} "
                                   f"(over {human(cfg.max_total_size)}): narrow down with search before reading",
                                   None, self.total_size_bytes, cfg.max_total_size))
        return out

    def auto_chunk(self, inputs: dict[str, Any], config: SizeConfig | None = None) -> dict[str, Any]:
        """Split str inputs over the chunk threshold into lists of chunks on natural boundaries.

        Returns the new inputs mapping (other values unchanged, by reference) and updates the summaries.
        """
        from dspy_rlm.repl.helpers import chunk_text

        cfg = config or self.config
        out = dict(inputs)
        for name, var in self.variables.items():
            value = inputs.get(name)
            if isinstance(value, str) and var.size_bytes > cfg.chunk_threshold:
                chunks = chunk_text(value, size=max(cfg.warn_threshold, 1_000), overlap=0)
                out[name] = chunks
                var.chunked, var.type_name, var.item_count = True, "list", len(chunks)
                var.summary = (f"[auto-chunked: {len(chunks)} str chunks of <= {human(cfg.warn_threshold)}, split "
                               f"on paragraph/line boundaries; ''.join({name}) is the original text]\n"
                               + var.summary)
        return out

    def variable_summaries(self) -> str:
        """The per-variable block of the root prompt (bounded in size whatever the inputs)."""
        blocks = [format_variable(v) for v in self.variables.values()]
        text = "\n\n".join(blocks)
        if len(text) > PROMPT_SUMMARY_CHARS:
            text = text[:PROMPT_SUMMARY_CHARS] + "\n... (more variables: see `inputs.keys()`)"
        return text


def format_variable(v: ContextVariable) -> str:
    count = f", {v.item_count:,} items" if v.item_count is not None else ""
    head = f"- `{v.name}`: {v.type_name} ({v.kind.value}), {human(v.size_bytes)}{count}"
    if v.desc:
        head += f" — {v.desc}"
    return f"{head}\n  {v.summary}"


def infer_kind(name: str, value: Any) -> VarKind:
    lname = name.lower()
    if isinstance(value, list) and value and all(isinstance(m, dict) and "role" in m for m in value[:5]):
        return VarKind.CONVERSATION
    if isinstance(value, dict) and value and all(isinstance(k, str) and ("/" in k or "." in k[-6:])
                                                 for k in list(value)[:5]):
        return VarKind.FILES
    if any(w in lname for w in ("history", "messages", "conversation", "chat")):
        return VarKind.CONVERSATION
    if "file" in lname or "docs" in lname:
        return VarKind.FILES
    if "tool" in lname or "observation" in lname:
        return VarKind.TOOL_OUTPUTS
    if "memory" in lname or "notes" in lname or "scratch" in lname:
        return VarKind.WORKING_MEMORY
    return VarKind.CUSTOM


def size_in_bytes(value: Any, _depth: int = 0) -> int:
    """UTF-8 size of text, length of bytes, and a recursive estimate for containers (no copies made)."""
    if isinstance(value, str):
        if value.isascii():  # O(1) in CPython
            return len(value)
        return sum(len(value[i:i + MB].encode("utf-8", "surrogatepass")) for i in range(0, len(value), MB))
    if isinstance(value, (bytes, bytearray, memoryview)):
        return len(value)
    if _depth > 4:
        return sys.getsizeof(value)
    if isinstance(value, dict):
        return sum(size_in_bytes(k, _depth + 1) + size_in_bytes(v, _depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return sum(size_in_bytes(v, _depth + 1) for v in value)
    return sys.getsizeof(value)


def preview_text(value: Any, chars: int) -> str:
    """Head and tail of a value's text, never materializing a big value whole."""
    if isinstance(value, str):
        text = value if len(value) <= FULL_VALUE_CHARS else None
        if text is not None:
            return f"value: {value!r}"
        return f"head: {value[:chars]!r}\n  tail: {value[-chars // 2:]!r}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "empty"
        first = _clip(_dump(value[0]), chars)
        last = _clip(_dump(value[-1]), chars // 2) if len(value) > 1 else ""
        return f"first item: {first}" + (f"\n  last item: {last}" if last else "")
    if isinstance(value, dict):
        keys = list(value)[:20]
        first = _clip(_dump(value[keys[0]]), chars) if keys else ""
        return f"keys: {_clip(repr(keys), chars // 2)}" + (f"\n  [{keys[0]!r}]: {first}" if keys else "")
    return _clip(_dump(value), chars)


def _dump(value: Any) -> str:
    """A bounded repr: reprlib never walks more than a few items of a big container."""
    import reprlib

    r = reprlib.Repr()
    r.maxlevel, r.maxlist, r.maxtuple, r.maxdict, r.maxset = 3, 8, 8, 8, 8
    r.maxstring, r.maxother, r.maxlong = 1_000, 300, 60
    return r.repr(value)


def _clip(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[:chars] + f"... [{len(text) - chars:,}+ more chars]"


def human(n: int) -> str:
    for unit, size in (("GB", 1024 * MB), ("MB", MB), ("KB", KB)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"
