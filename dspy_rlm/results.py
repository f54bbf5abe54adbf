"""How a run ended: Submitted, Extracted (fallback extraction) or Failed — never a crash (SPEC-27.04)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Submitted:
    """Clean termination: the model called SUBMIT / FINAL / FINAL_VAR with valid outputs."""

    outputs: dict[str, Any]
    iterations: int
    llm_calls: int
    source: str = "submit"  # submit | final_direct | final_var

    kind = "submitted"

    @property
    def confidence(self) -> float:
        return 1.0

    def was_extracted(self) -> bool:
        return False

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **asdict(self), "confidence": self.confidence}


@dataclass
class Extracted:
    """A limit was hit; the outputs were extracted from the history and the REPL variables."""

    outputs: dict[str, Any]
    confidence: float
    reason: str
    notes: str | None = None
    limit: str | None = None  # which limit: iterations | llm_calls | time | tokens | cost | ...

    kind = "extracted"

    def was_extracted(self) -> bool:
        return True

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **asdict(self)}


@dataclass
class Failed:
    """No valid outputs could be produced. ``partial_outputs`` holds whatever was recovered."""

    reason: str
    partial_outputs: dict[str, Any] | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
    limit: str | None = None

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
        return {"kind": self.kind, **asdict(self), "confidence": 0.0}


ExecutionResult = Submitted | Extracted | Failed
