"""How a benchmark ends: its one JSON object printed, and written to ``--out`` when given."""

from __future__ import annotations

import json
from typing import Any


def emit(result: dict[str, Any], out: str | None) -> None:
    text = json.dumps(result, indent=2)
    print(text)
    if out:
        with open(out, "w") as fh:
            fh.write(text + "\n")
