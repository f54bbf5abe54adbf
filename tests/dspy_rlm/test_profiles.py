"""The small-model profile: resolution, compact prompt, code constraint, grounded SUBMIT, line-style search.

Scripted LMs drive the loop here; the real embedded model runs the profile in
``tests/dspy_rlm/test_small_model_real.py`` and ``benchmarks/small_model.py``.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import dspy
import pytest

from benchmarks.longcontext.needles import FORMATS, generate, generate_task
from benchmarks.longcontext.small_policy import SmallPolicyLM, policy_step
from dspy_outlines.replies import chat_reply
from dspy_rlm import RLM
from dspy_rlm.library.helpers import make_helpers
from dspy_rlm.profiles import DEFAULT, SMALL, resolve_profile
from dspy_rlm.profiles.grounding import ungrounded_values
from dspy_rlm.profiles.small import CODE_PATTERN, REASONING_PATTERN, compact_variables_info, small_action_signature

UNRANKED = replace(SMALL, ranked_moves=0)
"""The small profile with every grounded move offered to the LM: for scripted LMs that pick (or leave) the moves
themselves (the ranker would take a step left with one move without asking them)."""


class ScriptedLocalLM(dspy.BaseLM):
    """A local-looking LM (takes Tier-3 constraints, says it is local) replying with scripted action steps."""

    accepts_outlines_constraint = True
    is_local = True

    def __init__(self, codes: list[str]):
        super().__init__(model="local/scripted", model_type="chat", temperature=0.0, max_tokens=64, cache=False)
        self.codes = list(codes)
        self.prompts: list[list[dict]] = []

    def constraint_kwargs(self, output_type):
        """Tier 3's constraint as this LM's own keyword (``dspy_outlines.contract.CONSTRAINT_KWARGS_METHOD``)."""
        return {"_outlines_constraint": output_type}

    def forward(self, prompt=None, messages=None, **kwargs):
        self.prompts.append(messages)
        system = messages[0]["content"]
        if "`code`" in system:
            code = self.codes.pop(0) if self.codes else "print(1)"
            text = json.dumps({"reasoning": "Scripted step.", "code": code})
        else:
            text = json.dumps({"answer": "unknown"})
        return chat_reply(self.model, text, prompt_tokens=10, completion_tokens=5)


def test_auto_picks_small_for_local_lms_and_default_otherwise():
    assert resolve_profile("auto", SmallPolicyLM()) is SMALL
    assert resolve_profile("auto", dspy.LM("openai/gpt-4o-mini")) is DEFAULT
    assert resolve_profile("auto", None) is DEFAULT
    assert resolve_profile("default", SmallPolicyLM()) is DEFAULT
    with pytest.raises(ValueError, match="profile must be one of"):
        RLM("context, query -> answer", profile="tiny")


def test_small_instructions_are_a_fraction_of_the_default():
    rlm = RLM("context, query -> answer")
    small = small_action_signature(rlm.signature)
    assert set(small.input_fields) == set(rlm.generate_action.signature.input_fields)
    assert set(small.output_fields) == {"reasoning", "code"}
    assert len(small.instructions) * 3 < len(rlm.generate_action.signature.instructions)


@pytest.mark.parametrize(
    "code, ok",
    [
        ("print(search(context, 'quiet-otter'))", True),
        ("SUBMIT(answer='INC-4821')", True),
        ("hits = search(context, 'x'); print(hits)", True),
        ("```python\n# 1.\n```", False),
        ("# just a comment", False),
        ('print("double quotes need JSON escapes")', False),
        ("", False),
    ],
)
def test_code_pattern_admits_calls_and_assignments_only(code, ok):
    assert bool(re.fullmatch(CODE_PATTERN, code)) is ok


@pytest.mark.parametrize("fmt", FORMATS)
def test_teacher_policy_writes_code_the_constraint_admits(fmt):
    task = generate_task(2048, fmt, seed=3)
    info = compact_variables_info({"context": task.context, "query": task.query})
    first = policy_step(info, "")
    line = f"line 7: {task.meta['needle']}"
    second = policy_step(info, f"Output (9 chars):\n{line}")
    for step in (first, second):
        assert re.fullmatch(CODE_PATTERN, step["code"]) and re.fullmatch(REASONING_PATTERN, step["reasoning"])
    assert first["code"].startswith("print(search(context, ")
    assert second["code"] == f"SUBMIT(answer='{task.gold[0]}')"


def test_grounding_flags_unseen_values_and_question_echoes():
    outputs = ["line 3: 2024-05-17 ERROR gateway: job x failed, opened incident INC-4821"]
    question = {"query": "Which incident ID was opened by the ERROR line?"}
    data = {"context": "... INC-4821 ..."}

    def check(v):
        return ungrounded_values({"answer": v}, outputs=outputs, inputs=data, question_inputs=question, variables={})

    assert check("INC-4821") == {}
    assert check("INC-9999") == {"answer": "never seen"}
    assert check("ERROR") == {"answer": "repeats the question"}
    assert check(77) == {"answer": "never seen"}
    assert check(7) == {}  # one character is too short to check


def test_search_prints_lines_in_the_lines_style():
    search = make_helpers(style="lines")["search"]
    text = "first\nsecond holds quiet-otter = 42\nthird"
    hits = search(text, "quiet-otter")
    assert str(hits) == "line 2: second holds quiet-otter = 42"
    assert hits[0]["line"] == 2 and hits[0]["offset"] == text.index("quiet-otter")
    assert str(search(text, "absent")) == "no line contains 'absent'"
    assert isinstance(make_helpers()["search"](text, "quiet-otter")[0], dict)


def test_teacher_solves_every_format_under_the_small_profile():
    lm = SmallPolicyLM()
    rlm = RLM("context, query -> answer", max_iters=4, profile=UNRANKED)
    with dspy.context(lm=lm):
        for task in generate(4096, len(FORMATS), seed=5):
            pred = rlm(context=task.context, query=task.query)
            result = pred.result  # Submitted, or Extracted where this support falls below the calibrated threshold
            assert result.kind == "submitted" or "calibrated threshold" in result.reason, pred.trajectory
            assert pred.answer == task.gold[0]
            assert [e["code"].split("(")[0] for e in pred.trajectory] == ["print", "SUBMIT"]
            assert pred.trajectory[0]["output"].startswith("line ")


def test_unseen_submit_gets_one_verification_step_then_the_fix_is_accepted():
    task = generate_task(2048, "csv", seed=8)
    key, gold = task.meta["key"], task.gold[0]
    lm = ScriptedLocalLM(
        ["SUBMIT(answer='1234567')", f"print(search(context, '{key}', ignore_case=True))", f"SUBMIT(answer='{gold}')"]
    )
    with dspy.context(lm=lm):
        pred = RLM("context, query -> answer", max_iters=5)(context=task.context, query=task.query)
    result = pred.result  # Submitted, or Extracted where this support falls below the calibrated threshold
    assert pred.answer == gold and (result.kind == "submitted" or "calibrated threshold" in result.reason)
    assert result.confidence > 0.25  # above an unsupported guess (0.14)
    assert pred.trajectory[0]["output"].startswith("[Check] Not submitted yet")
    assert "line " in pred.trajectory[1]["output"] and key in pred.trajectory[1]["output"]


def test_a_second_identical_submit_is_accepted():
    task = generate_task(2048, "log", seed=8)
    lm = ScriptedLocalLM(["SUBMIT(answer='INC-0000')", "SUBMIT(answer='INC-0000')"])
    with dspy.context(lm=lm):
        pred = RLM("context, query -> answer", max_iters=5)(context=task.context, query=task.query)
    # accepted (the run ends), but nothing the run read backs the value: a labelled guess, not Submitted
    assert pred.result.kind == "extracted" and pred.answer == "INC-0000" and "guess" in pred.result.notes
    assert len(pred.trajectory) == 2


def test_default_profile_and_grounding_off_keep_todays_behaviour():
    task = generate_task(2048, "log", seed=8)
    lm = ScriptedLocalLM(["SUBMIT(answer='INC-0000')"])
    with dspy.context(lm=lm):
        pred = RLM("context, query -> answer", max_iters=5, grounded_submit=False)(
            context=task.context, query=task.query
        )
    assert len(pred.trajectory) == 1  # no verification step; a value no read backs still ends a labelled guess
    assert pred.result.kind == "extracted" and pred.answer == "INC-0000"
    system = lm.prompts[0][0]["content"]
    assert "'line N: ...'" in system  # still the compact small-profile instructions
    lm = ScriptedLocalLM(["SUBMIT(answer='INC-0000')"])
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        RLM("context, query -> answer", max_iters=5, profile="default")(context=task.context, query=task.query)
    assert "EXPLORE FIRST" in lm.prompts[0][0]["content"]


def test_user_demos_win_over_the_shipped_ones():
    task = generate_task(2048, "log", seed=8)
    rlm = RLM("context, query -> answer", max_iters=2)
    demo = dspy.Example(
        variables_info="- query: 'q'",
        repl_history="",
        iteration="1/2",
        budget="2 steps left",
        reasoning="A user demo.",
        code="print(peek(context, 0, 10))",
    )
    rlm.generate_action.demos = [demo]
    lm = ScriptedLocalLM(["SUBMIT(answer='x')", "SUBMIT(answer='x')"])
    with dspy.context(lm=lm):
        rlm(context=task.context, query=task.query)
    sent = "\n".join(m["content"] for m in lm.prompts[0])
    assert "A user demo." in sent
