"""The README's ``dspy_outlines`` section runs as written, on the embedded model.

Its python blocks are executed in order in one namespace; then what the text and comments claim is checked:
each value matches its output type, and an ``x = ...  # 'value'`` comment is what the (greedy) model returned.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
HEADING = "## `dspy_outlines` on its own"


def section_blocks() -> list[str]:
    text = README.read_text()
    assert HEADING in text, f"README.md lost its section {HEADING!r}"
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def commented_values(code: str) -> dict[str, str]:
    """``{name: value}`` for lines ``name = ...  # 'value'`` (a string literal opening the comment)."""
    found = {}
    for line in code.splitlines():
        match = re.match(r"(\w+) = .*#\s*('[^']*')", line)
        if match:
            found[match.group(1)] = ast.literal_eval(match.group(2))
    return found


def test_section_has_the_promised_snippets():
    code = "\n".join(section_blocks())
    for piece in (
        "OutlinesLM(",
        "lm.generate(",
        "lm.model(",
        "Literal[",
        "Regex(",
        "CFG(",
        "OutlinesAdapter(tiers=",
        "adapter.metrics",
        "engine=lm.dspy_engine",
        "local_request(",
    ):
        assert piece in code, f"the dspy_outlines README section no longer shows {piece}"


@pytest.mark.real_model
def test_section_runs_on_the_embedded_model(capsys):
    pytest.importorskip("outlines", reason="the section needs the mlx or llamacpp extra")
    blocks = section_blocks()
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)
    assert namespace["lm"].kwargs["max_tokens"] <= 48
    assert namespace["label"] in ("positive", "negative")
    assert re.fullmatch(r"[0-9]{3}-[0-9]{4}", namespace["phone"])
    assert re.fullmatch(r"[0-9]{1,3} \+ [0-9]{1,3}", namespace["total"])
    assert namespace["raw"] in (" Paris", " Rome")
    for name, value in commented_values("\n".join(blocks)).items():
        assert namespace[name] == value, f"README says {name} is {value!r}; the model gave {namespace[name]!r}"
    assert namespace["pred"].answer == "Paris"
    metrics = namespace["adapter"].metrics
    assert metrics["tier3"]["success"] == 1 and metrics["tier1"]["success"] == 0  # auto: a local LM starts at Tier 3
    reply, plain = namespace["reply"], namespace["plain"]
    assert type(plain).__name__ == "LM" and reply.text in ("yes", "no") and reply.finish_reason == "stop"
    assert plain.history[-1]["request"].config.extensions["dspy_outlines"]["constraint"]["kind"] == "regex"
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{reply.text} stop {reply.usage.output_tokens}"
    assert out[-1].startswith("Paris {'success': 1, 'failure': 0, 'truncated': 0")
