"""Without PyTorch (the local extras install none), importing Outlines through dspy_outlines prints nothing:
transformers' "PyTorch was not found" notice is dropped, its other records are not."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap


def _stderr(code: str) -> str:
    # mlx_lm sets TRANSFORMERS_NO_ADVISORY_WARNINGS=1 in os.environ when a test imports it: not in the child
    env = {k: v for k, v in os.environ.items() if k != "TRANSFORMERS_NO_ADVISORY_WARNINGS"}
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300, check=True, env=env
    )
    return proc.stderr


def test_outlines_without_torch_is_silent_through_dspy_outlines():
    code = """
        import sys
        sys.modules["torch"] = None  # as on a machine without torch: transformers' find_spec finds nothing
        import dspy_outlines.constraints
        import outlines
    """
    assert _stderr(code) == ""


def test_without_dspy_outlines_the_notice_is_transformers_own():
    """The filter is what silences it (so the test above tests something)."""
    code = """
        import sys
        sys.modules["torch"] = None
        import outlines
    """
    assert "PyTorch was not found" in _stderr(code)


def test_other_transformers_records_still_pass():
    code = """
        import sys
        sys.modules["torch"] = None
        import dspy_outlines
        from transformers.utils import logging
        logging.get_logger("transformers").warning("a real warning")
    """
    assert "a real warning" in _stderr(code)
