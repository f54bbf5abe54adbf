"""Media inputs: dspy.Image values are objects in the REPL, sent to a sub-LM with llm_query(prompt, media=[...]);
a text-only LM is refused with the fix, before any call; the run goes on."""

from __future__ import annotations

import dspy
import pytest

from dspy_rlm import RLM, InProcessREPL, SubprocessREPL
from tests.dspy_rlm.scripted_lm import ScriptedLM, action, fields

PIXEL = (  # a 1x1 PNG
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJ"
    "RU5ErkJggg=="
)


class VisionLM(ScriptedLM):
    supports_vision = True


def seen(call) -> str:
    """What the sub-LM was sent: the text and the kinds of its content parts."""
    content = call.messages[-1]["content"]
    if isinstance(content, str):
        return f"text:{content}"
    return "|".join(p["type"] for p in content) + ":" + content[0]["text"]


def run(code, sub_lm, repl=InProcessREPL):
    root = ScriptedLM(lambda call: fields(answer="x") if call.role == "extract" else action(code(call.iteration)))
    rlm = RLM("photo: dspy.Image, question -> answer", interpreter_factory=repl, sub_lm=sub_lm)
    with dspy.context(lm=root):
        return rlm(photo=dspy.Image(PIXEL), question="q"), root


@pytest.mark.parametrize("repl", [InProcessREPL, SubprocessREPL], ids=["inprocess", "sandbox"])
def test_an_image_input_reaches_a_vision_sub_lm(repl):
    vision = VisionLM(seen)
    pred, root = run(
        lambda i: (
            "a = llm_query('What is in it?', media=[photo])\nb = llm_query_with_media('Again?', photo)\n"
            "SUBMIT(answer=a + ' / ' + b + ' / ' + type(photo).__name__)"
        ),
        vision,
        repl,
    )
    assert pred.answer == "text|image_url:What is in it? / text|image_url:Again? / Image"
    assert "llm_query(prompt, media=[...])" in root.calls[0].system  # the prompt says how
    assert "<IMAGE_BASE_64_ENCODED" in root.calls[0].user or "Image(" in root.calls[0].user  # never the bytes


def test_a_text_only_lm_is_refused_with_the_fix_and_the_run_goes_on():
    text_only = ScriptedLM(seen)
    steps = {
        1: "try:\n    llm_query('What is in it?', media=[photo])\nexcept Exception as e:\n    err = str(e)",
        2: "SUBMIT(answer=err)",
    }
    pred, _ = run(lambda i: steps[i], text_only)
    assert "takes text only" in pred.answer and "model='vision'" in pred.answer
    assert text_only.calls == [] and pred.trace.usage["llm_calls"] == 0


def test_a_non_media_item_is_a_clear_error():
    pred, _ = run(
        lambda i: {
            1: "try:\n    llm_query('x', media=['not an image'])\nexcept Exception as e:\n    err = str(e)",
            2: "SUBMIT(answer=err)",
        }[i],
        VisionLM(seen),
    )
    assert "media items must be dspy.Image or dspy.Audio values" in pred.answer


@pytest.mark.real_model
def test_the_embedded_model_is_text_only_and_says_so():
    from dspy_outlines import OutlinesLM

    steps = {
        1: "try:\n    r = llm_query('Describe it.', media=[photo])\nexcept Exception as e:\n    r = str(e)",
        2: "SUBMIT(answer=r)",
    }
    pred, _ = run(lambda i: steps[i], OutlinesLM(max_tokens=16), SubprocessREPL)
    assert "takes text only" in pred.answer
