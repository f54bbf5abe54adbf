"""README headings say what a section is, not which issue made it (an issue number means nothing to a user)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_no_heading_names_an_issue():
    text = re.sub(r"```.*?```", "", README.read_text(encoding="utf-8"), flags=re.DOTALL)  # not code comments
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings
    named = [h for h in headings if re.search(r"\(?\b(issue|#)\s*\d+\)?", h, re.IGNORECASE)]
    assert not named, named
