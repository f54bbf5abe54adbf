"""How a run ended: Submitted, Extracted (fallback extraction) or Failed — never a crash."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from dspy_rlm.budget import FallbackReason, StopReason


@dataclass
class Submitted:
    """Clean termination: the model called SUBMIT / FINAL / FINAL_VAR with valid outputs."""

    outputs: dict[str, Any]
    iterations: int
    llm_calls: int  # sub-LM calls (llm_query prompts, sub-RLM steps): what dspy's max_llm_calls counts
    source: str = "submit"  # submit | final_direct | final_var
    lm_calls: int = 0  # every LM call of the run (action steps, sub-LM calls, extraction): the CLI's "LM calls"
    confidence: float = 1.0  # a policy that calibrates its endings (the small policy) sets it; 1.0 otherwise
    notes: str | None = None  # what backs the outputs, where a policy says (the small policy: the support class)

    kind = "submitted"

    def was_extracted(self) -> bool:
        return False

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **asdict(self)}


@dataclass
class Extracted:
    """A limit was hit; the outputs were extracted from the history and the REPL variables."""

    outputs: dict[str, Any]
    confidence: float
    reason: str  # the fallback reason as text (``str(fallback)``)
    notes: str | None = None  # what the extraction could not determine, in the model's words or ours
    limit: StopReason | None = None  # why the run stopped (a str enum: ``result.limit == "time"`` works)
    fallback: FallbackReason | None = None  # the same, typed: stop reason, used and allowed values

    kind = "extracted"

    def was_extracted(self) -> bool:
        return True

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **_plain(self)}


@dataclass
class Failed:
    """No valid outputs could be produced. ``partial_outputs`` holds whatever was recovered."""

    reason: str
    partial_outputs: dict[str, Any] | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
    limit: StopReason | None = None
    fallback: FallbackReason | None = None

    kind = "failed"

    @property
    def outputs(self) -> None:
        return None

    @property
    def confidence(self) -> float:
        return 0.0

    def was_extracted(self) -> bool:
        return False

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **_plain(self), "confidence": 0.0}


def _plain(result: Extracted | Failed) -> dict[str, Any]:
    out = asdict(result)
    out["limit"] = None if result.limit is None else str(result.limit)
    out["fallback"] = None if result.fallback is None else result.fallback.to_dict()
    return out
