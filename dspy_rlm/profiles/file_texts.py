"""The texts of a directory input that the moves read: the files of a ``files`` input (path -> text), each named
by the expression that reads it (``files['ubuntu.csv']``), those holding most of the question's words first, as
many as the plain text inputs leave room for. Split from :mod:`~dspy_rlm.profiles.moves`, whose
:class:`~dspy_rlm.profiles.moves.MoveBook` reads them beside its text inputs."""

from __future__ import annotations

from typing import Any

from dspy_rlm.library import structure as st
from dspy_rlm.profiles.vocabulary import STOP

__all__ = ["file_texts"]


def file_texts(data: dict[str, Any], question: str, room: int) -> dict[str, str]:
    """Up to ``room`` texts of a directory input (``files``: path -> text), each named by the expression that
    reads it (``files['ubuntu.csv']``), so the reads and submits of a file apply to a directory too: without them
    a directory got only ``peek(files)`` moves, and a long, slow, unsupported step after it. The files that hold
    most of the question's words come first, then the longest."""
    if room <= 0:
        return {}
    files = {
        f"{name}[{path!r}]": text
        for name, value in data.items()
        if isinstance(value, dict)
        for path, text in value.items()
        if isinstance(path, str) and isinstance(text, str) and text
    }
    words = {w for w in st.words(question.casefold()) if len(w) > 3 and w not in STOP}

    def rank(item: tuple[str, str]) -> tuple[int, int]:
        folded = item[1].casefold()
        return (-sum(w in folded for w in words), -len(item[1]))

    return dict(sorted(files.items(), key=rank)[:room])
