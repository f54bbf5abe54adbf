"""Quiet offline: a README snippet run as a new user runs it (a fresh process, no network, no
LITELLM_LOCAL_MODEL_COST_MAP in the environment) prints the answer and nothing else."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .test_readme import section_blocks

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.real_model
def test_readme_adapter_snippet_prints_the_answer_and_nothing_on_stderr():
    pytest.importorskip("outlines", reason="the snippet needs the mlx or llamacpp extra")
    blocks = section_blocks()
    setup = blocks[0].split("label = ")[0]  # the imports and the LM, without the generate() examples
    adapter_block = next(block for block in blocks if "OutlinesAdapter(tiers=" in block)
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM")}
    # Every warning shown (stricter than a user's defaults, which hide library DeprecationWarnings): so DSPy's
    # "forward() is deprecated" would fail this test. One is let through: llguidance calling a llama-cpp-python
    # function that llama-cpp-python deprecated, between two third-party packages.
    warnings = "default,ignore:llama_token_get_attr is deprecated:DeprecationWarning"
    env.update(HF_HUB_OFFLINE="1", PYTHONPATH=str(ROOT), PYTHONWARNINGS=warnings)
    proc = subprocess.run(
        [sys.executable, "-c", setup + adapter_block],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("Paris {'success': 1"), proc.stdout
    assert len(proc.stdout.splitlines()) == 1, proc.stdout
    assert proc.stderr.strip() == "", proc.stderr[-3000:]
