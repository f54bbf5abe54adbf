"""Context as variables: the inputs live in the REPL; the prompt carries only short summaries.

:class:`ExternalizedContext` describes the inputs of a run: for each variable its name, kind, size in bytes,
item count and a short head/tail preview. Size limits (warn 100 KB per variable, chunk at 1 MB, 10 MB in
total by default) produce typed warnings (:class:`LargeVariable`, :class:`RequiresChunking`,
:class:`TotalSizeExceeded`) shown to the model and recorded in the trace; they never refuse a run.
:meth:`ExternalizedContext.auto_chunk` splits a str, dict or list over the chunk threshold into a list of
chunks of at most :attr:`SizeConfig.chunk_size` bytes, cut on paragraph / line / item boundaries.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dspy_rlm import serializable

KB, MB = 1024, 1024 * 1024
MIN_CHUNK_BYTES = 1 * KB  # auto_chunk never cuts smaller pieces (unless chunk_threshold itself is smaller)
FULL_VALUE_CHARS = 600  # inputs at most this long are shown whole (the query, options, ...)
PROMPT_SUMMARY_CHARS = 6_000  # all summaries together stay under this, whatever the context size


class VarKind(str, enum.Enum):
    """What a variable holds. ``CUSTOM`` carries a free label: pass ``kinds={"x": "custom:invoices"}``."""

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

    @property
    def chunk_size(self) -> int:
        """Bytes per piece for auto-chunking: ``warn_threshold`` (so no piece warns on its own), raised to
        ``MIN_CHUNK_BYTES`` so a tiny threshold cannot make millions of pieces, never above ``chunk_threshold``."""
        return max(1, min(max(self.warn_threshold, MIN_CHUNK_BYTES), self.chunk_threshold))


@dataclass(frozen=True)
class SizeWarning:
    """Base of the size warnings; ``kind`` is the subclass name, for code that reads ``w.kind``."""

    kind: str  # LargeVariable | RequiresChunking | TotalSizeExceeded
    message: str
    name: str | None = None
    size: int = 0
    threshold: int = 0
    suggested_chunks: int | None = None


@dataclass(frozen=True)
class LargeVariable(SizeWarning):
    """A variable over ``warn_threshold`` (or one already auto-chunked): peek or search it, don't print it."""

    kind: str = field(default="LargeVariable", init=False)


@dataclass(frozen=True)
class RequiresChunking(SizeWarning):
    """A variable over ``chunk_threshold``: process it in ``suggested_chunks`` pieces."""

    kind: str = field(default="RequiresChunking", init=False)


@dataclass(frozen=True)
class TotalSizeExceeded(SizeWarning):
    """All inputs together over ``max_total_size`` (``name`` is None)."""

    kind: str = field(default="TotalSizeExceeded", init=False)


@dataclass
class ContextVariable:
    name: str
    kind: VarKind
    type_name: str
    size_bytes: int
    item_count: int | None
    summary: str
    desc: str = ""
    chunked: bool = False  # set by auto_chunk: the REPL holds a list of chunks, not the original value
    label: str = ""  # free label of a CUSTOM kind, e.g. "invoices"


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
    def from_inputs(
        cls,
        inputs: Mapping[str, Any],
        descs: Mapping[str, str] | None = None,
        kinds: Mapping[str, VarKind | str] | None = None,
        config: SizeConfig | None = None,
        query: str | None = None,
    ) -> ExternalizedContext:
        """Describe ``inputs`` without copying them.

        Args:
            inputs: Variable name -> value, as the REPL will hold them.
            descs: Optional description per name, shown after the header.
            kinds: Overrides the inferred kind per name: a :class:`VarKind`, its value (``"files"``), or
                ``"custom:<label>"`` for a custom kind with a label shown in the summary.
            config: Size thresholds (default :class:`SizeConfig`).
            query: The task text, kept for reference (it is not summarized).
        """
        ctx = cls(query=query, config=config or SizeConfig())
        n = max(len(inputs), 1)
        preview = max(80, min(400, PROMPT_SUMMARY_CHARS // (2 * n) - 100))
        for name, value in inputs.items():
            spec = (kinds or {}).get(name)
            kind, label = parse_kind(spec) if spec else (infer_kind(name, value), "")
            ctx.variables[name] = ContextVariable(
                name=name,
                kind=kind,
                type_name=type(value).__name__,
                size_bytes=size_in_bytes(value),
                item_count=len(value) if isinstance(value, (list, tuple, dict, set)) else None,
                summary=preview_text(value, preview),
                desc=(descs or {}).get(name, ""),
                label=label,
            )
        return ctx

    def check_size_limits(self, config: SizeConfig | None = None) -> list[SizeWarning]:
        """Typed warnings for the variables (and the total) over the thresholds; an auto-chunked variable
        gets a :class:`LargeVariable` note saying what it now is, never a request to chunk it again."""
        cfg = config or self.config
        out: list[SizeWarning] = []
        for name, var in self.variables.items():
            if var.chunked:
                out.append(
                    LargeVariable(
                        f"`{name}` ({human(var.size_bytes)}) was auto-chunked into a list of "
                        f"{var.item_count:,} chunks: loop over them; never print it whole",
                        name,
                        var.size_bytes,
                        cfg.warn_threshold,
                    )
                )
            elif var.size_bytes > cfg.chunk_threshold:
                chunks = var.size_bytes // cfg.chunk_size + 1  # the seed's rule, with the size auto_chunk uses
                how = (
                    f"chunk_text({name}, {cfg.chunk_size})"
                    if var.type_name == "str"
                    else "groups of items, e.g. [x[i:i+100] for i in range(0, len(x), 100)]"
                )
                out.append(
                    RequiresChunking(
                        f"`{name}` is {human(var.size_bytes)} (over "
                        f"{human(cfg.chunk_threshold)}): never print it whole; process it in "
                        f"~{chunks:,} pieces ({how}) or search it",
                        name,
                        var.size_bytes,
                        cfg.chunk_threshold,
                        chunks,
                    )
                )
            elif var.size_bytes > cfg.warn_threshold:
                out.append(
                    LargeVariable(
                        f"`{name}` is {human(var.size_bytes)}: peek or search it rather than printing it",
                        name,
                        var.size_bytes,
                        cfg.warn_threshold,
                    )
                )
        if self.total_size_bytes > cfg.max_total_size:
            out.append(
                TotalSizeExceeded(
                    f"the inputs total {human(self.total_size_bytes)} (over "
                    f"{human(cfg.max_total_size)}): narrow down with search before reading",
                    None,
                    self.total_size_bytes,
                    cfg.max_total_size,
                )
            )
        return out

    def auto_chunk(self, inputs: dict[str, Any], config: SizeConfig | None = None) -> dict[str, Any]:
        """Split each str, dict or list/tuple input over ``chunk_threshold`` into a list of chunks.

        A str becomes a list of str cut at paragraph / line / space breaks, each at most
        ``config.chunk_size`` UTF-8 bytes; a dict (e.g. path -> text) a list of dicts of whole items; a list
        a list of lists of whole items, each group at most ``chunk_size`` bytes unless one item is bigger.
        Nothing is lost or repeated: the summary says how to get the original back. Variables are marked
        ``chunked``, so a later :meth:`check_size_limits` does not ask to chunk them again.

        Returns:
            The new inputs mapping (other values unchanged, by reference).
        """
        cfg = config or self.config
        size = cfg.chunk_size
        out = dict(inputs)
        for name, var in self.variables.items():
            value = inputs.get(name)
            if var.chunked or var.size_bytes <= cfg.chunk_threshold:
                continue
            if isinstance(value, str):
                chunks: list = _split_text(value, size)
                what, back = "str chunks cut at paragraph/line/space breaks", f"''.join({name})"
            elif isinstance(value, dict):
                chunks = [dict(g) for g in _group(list(value.items()), size)]
                what = f"dicts of whole {'files' if var.kind is VarKind.FILES else 'items'}"
                back = f"{{k: v for part in {name} for k, v in part.items()}}"
            elif isinstance(value, (list, tuple)):
                chunks = _group(list(value), size)
                what, back = "lists of whole items", f"[x for part in {name} for x in part]"
            else:
                continue
            out[name] = chunks
            var.chunked, var.type_name, var.item_count = True, "list", len(chunks)
            var.summary = (
                f"[auto-chunked: a list of {len(chunks):,} {what}, each <= {human(size)}"
                f"{'' if isinstance(value, str) else ' unless one item is bigger'}; {back} is the "
                f"original]\n  " + var.summary
            )
        return out

    def variable_summaries(self) -> str:
        """The per-variable block of the root prompt (bounded in size whatever the inputs).

        Over the bound, each variable's block is clipped to an equal share, so every header stays visible.
        """
        blocks = [format_variable(v) for v in self.variables.values()]
        text = "\n\n".join(blocks)
        share = PROMPT_SUMMARY_CHARS // max(len(blocks), 1) - 2
        if len(text) > PROMPT_SUMMARY_CHARS and share >= 160:
            text = "\n\n".join(_clip(b, share - 30) for b in blocks)
        if len(text) > PROMPT_SUMMARY_CHARS:
            text = text[:PROMPT_SUMMARY_CHARS] + "\n... (more variables: see `inputs.keys()`)"
        return text


def _split_text(text: str, max_bytes: int) -> list[str]:
    """chunk_text with a byte bound: for non-ASCII text the char size is scaled by the bytes/char ratio and
    any piece still over the bound is split again (so ''.join(result) == text, every piece <= max_bytes)."""
    from dspy_rlm.library.helpers import chunk_text

    nbytes = size_in_bytes(text)
    if nbytes <= max_bytes:
        return [text] if text else []
    chars = max(1, max_bytes * len(text) // nbytes)
    if text.isascii():
        return chunk_text(text, size=chars, overlap=0)
    out: list[str] = []
    for piece in chunk_text(text, size=chars, overlap=0):
        out.extend([piece] if size_in_bytes(piece) <= max_bytes else _split_text(piece, max_bytes))
    return out


def _group(items: list, max_bytes: int) -> list[list]:
    """Consecutive items in groups of at most max_bytes (an item bigger than that is a group of its own)."""
    groups: list[list] = []
    current: list = []
    used = 0
    for item in items:
        n = size_in_bytes(item)
        if current and used + n > max_bytes:
            groups.append(current)
            current, used = [], 0
        current.append(item)
        used += n
    if current:
        groups.append(current)
    return groups


def parse_kind(spec: VarKind | str) -> tuple[VarKind, str]:
    """``VarKind`` or ``"files"`` -> (kind, ""); ``"custom:invoices"`` -> (CUSTOM, "invoices")."""
    if isinstance(spec, VarKind):
        return spec, ""
    base, _, label = str(spec).partition(":")
    try:
        kind = VarKind(base.strip().lower())
    except ValueError:
        valid = ", ".join(repr(k.value) for k in VarKind)
        raise ValueError(
            f"unknown context kind {spec!r}: use one of {valid}, or 'custom:<label>' "
            f"(e.g. kinds={{'x': 'custom:{spec}'}})"
        ) from None
    if label and kind is not VarKind.CUSTOM:
        raise ValueError(f"only the custom kind takes a label: got {spec!r}; use 'custom:{label.strip()}'")
    return kind, label.strip()


def format_variable(v: ContextVariable) -> str:
    count = f", {v.item_count:,} items" if v.item_count is not None else ""
    kind = f"{v.kind.value}: {v.label}" if v.label else v.kind.value
    head = f"- `{v.name}`: {v.type_name} ({kind}), {human(v.size_bytes)}{count}"
    if v.desc:
        head += f" — {v.desc}"
    return f"{head}\n  {v.summary}"


def infer_kind(name: str, value: Any) -> VarKind:
    lname = name.lower()
    if isinstance(value, list) and value and all(isinstance(m, dict) and "role" in m for m in value[:5]):
        return VarKind.CONVERSATION
    if (
        isinstance(value, dict)
        and value
        and all(isinstance(k, str) and ("/" in k or "." in k[-6:]) for k in list(value)[:5])
    ):
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
        return sum(len(value[i : i + MB].encode("utf-8", "surrogatepass")) for i in range(0, len(value), MB))
    if isinstance(value, (bytes, bytearray, memoryview)):
        return len(value)
    if serializable.is_serializable(value):  # its payload is made once, when the REPL starts
        return len(value.rlm_preview())
    if _depth > 4:
        return sys.getsizeof(value)
    if isinstance(value, dict):
        return sum(size_in_bytes(k, _depth + 1) + size_in_bytes(v, _depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return sum(size_in_bytes(v, _depth + 1) for v in value)
    return sys.getsizeof(value)


def preview_text(value: Any, chars: int) -> str:
    """Head and tail of a value's text, never materializing a big value whole."""
    if serializable.is_serializable(value):
        return serializable.preview(value, chars)
    if isinstance(value, str):
        text = value if len(value) <= FULL_VALUE_CHARS else None
        if text is not None:
            return f"value: {value!r}"
        return f"head: {value[:chars]!r}\n  tail: {value[-chars // 2 :]!r}"
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
