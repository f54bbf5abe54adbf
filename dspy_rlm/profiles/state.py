"""Writing a learned model's state (the cue router's, the move ranker's) as JSON, atomically.

Its own module so the router and the ranker share it without one importing the other.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["save_state"]


def save_state(path: str | Path, state: dict[str, Any]) -> None:
    """Write a learned model's ``state`` as JSON to ``path`` (a temporary file, then renamed: a reader never sees
    half a file)."""
    target = Path(path)
    tmp = target.with_suffix(target.suffix + ".tmp")
    tmp.write_text(json.dumps(state, indent=0, sort_keys=True) + "\n")
    tmp.replace(target)
