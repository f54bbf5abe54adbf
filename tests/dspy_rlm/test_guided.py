"""Guided code (dspy_rlm.profiles.guided): each small-profile action step is held to grounded moves.

The pure pieces (printed values, key-then-value pairs) are checked on
generated needle documents; a scripted local LM that records the constraint it was handed checks the loop
builds the right one each step. ``test_small_model_real.py`` runs the real embedded model through it.
"""

from __future__ import annotations

import json
import re

import dspy
import pytest

from benchmarks.longcontext.needles import generate_task
from dspy_outlines.replies import chat_reply
from dspy_rlm import RLM
from dspy_rlm.profiles import guided

from .test_profiles import UNRANKED

QUESTION = {"query": "Which incident ID was opened when job calm-island failed?"}
LINE = "line 7: 2024-05-17 14:02:51 ERROR mailer: job calm-island failed, opened incident INC-3820"


def _data(n: int = 40) -> dict[str, str]:
    rows = [f"2024-05-17 10:00:{i:02d} INFO mailer: queue depth {i}" for i in range(n)]
    rows.insert(6, LINE.split(": ", 1)[1])
    return {"context": "\n".join(rows)}


def _json(reasoning: str, code: str) -> str:
    return json.dumps({"reasoning": reasoning, "code": code})


def test_output_values_are_rare_printed_tokens_without_question_words_or_line_numbers():
    values = guided.output_values([LINE], QUESTION, _data())
    assert "INC-3820" in values and "ERROR" in values
    assert "7" not in values  # the 'line 7:' prefix of a search row
    assert not {"calm-island", "opened", "incident", "job"} & set(values)  # they only repeat the question
    assert "mailer" not in values and "2024-05-17" not in values  # on every line of the data
    assert guided.output_values(["41"], QUESTION, _data()) == ["41"]  # a lone printed value (a count) stays


def test_stated_pairs_read_key_then_value():
    pairs = guided.stated_pairs([LINE], QUESTION, guided.output_values([LINE], QUESTION, _data()))
    assert ("incident", "INC-3820") in pairs and ("opened", "INC-3820") in pairs
    assert ("job", "INC-3820") in pairs  # calm-island, failed, opened, incident: question words, skipped
    csv = "line 3: 1795,young-yarrow,auth,8699623,20"
    values = guided.output_values(
        [csv],
        {"q": "What is the account_number of the customer young-yarrow?"},
        {"context": "auth\n" * 10 + "20\n" * 10},
    )
    assert guided.stated_pairs([csv], {"q": "account_number of young-yarrow"}, values) == [("young-yarrow", "8699623")]


def test_pairs_focus_on_the_word_the_question_asks_for():
    question = {"query": "Which incident ID was opened by the ERROR line?"}
    line = "line 9: 2024-05-17 ERROR payment-gateway: card processor timeout, opened incident INC-4821"
    values = guided.output_values([line], question, _data())
    pairs = guided.stated_pairs([line], question, values)
    assert ("ERROR", "payment-gateway") in pairs and ("incident", "INC-4821") in pairs
    assert guided.focus_pairs(pairs, question) == [("incident", "INC-4821")]
    assert guided.focus_pairs(pairs, {"q": "What is the value of x_pin?"}) == pairs  # 'value' keys no pair
    assert guided.question_words(question) == ["incident", "opened", "ERROR", "line"]  # no function words


def _calibrated_end(result) -> bool:
    """Submitted, or Extracted because values supported this way fall below the calibrated threshold."""
    return result.kind == "submitted" or (result.kind == "extracted" and "calibrated threshold" in result.reason)


# -- the loop hands each step its own constraint ------------------------------------------------------------
class ConstraintCheckingLM(dspy.BaseLM):
    """A local-looking LM that replies with scripted action steps and checks each against the constraint the
    adapter handed it (as the real constrained engine would never produce text outside it)."""

    accepts_outlines_constraint = True
    is_local = True

    def __init__(self, steps: list[tuple[str, str]]):
        super().__init__(model="local/checking", model_type="chat", temperature=0.0, max_tokens=96, cache=False)
        self.steps, self.patterns = list(steps), []

    def constraint_kwargs(self, output_type):
        """Tier 3's constraint as this LM's own keyword (``dspy_outlines.contract.CONSTRAINT_KWARGS_METHOD``)."""
        return {"_outlines_constraint": output_type}

    def forward(self, prompt=None, messages=None, **kwargs):
        pattern = kwargs["_outlines_constraint"].pattern
        self.patterns.append(pattern)
        text = _json(*self.steps.pop(0))
        if not re.fullmatch(pattern, text):
            raise AssertionError(f"{text} is outside this step's constraint")
        return chat_reply(self.model, text, prompt_tokens=10, completion_tokens=5)


@pytest.mark.parametrize("fmt", ["log", "jsonl", "config"])
def test_the_loop_offers_the_printed_value_and_nothing_unseen(fmt):
    task = generate_task(4096, fmt, seed=11)
    key, gold = task.meta["key"], task.gold[0]
    term = next(w for w in re.findall(r"[\w-]+", task.query) if key in w)  # the query's word holding the key
    asked = guided.question_words({"query": task.query})[0]  # said before the value when the line names it
    lead = asked if fmt in ("log", "jsonl") else term
    lm = ConstraintCheckingLM(
        [
            (f"I will search for '{term}'.", f"print(search(context, '{term}', ignore_case=True))"),
            (f"The {lead} is {gold}.", f"SUBMIT(answer='{gold}')"),
        ]
    )
    with dspy.context(lm=lm):
        pred = RLM("context, query -> answer", max_iters=3, profile=UNRANKED)(context=task.context, query=task.query)
    assert pred.answer == gold and _calibrated_end(pred.result)
    first, second = lm.patterns
    assert "SUBMIT" not in first  # nothing printed yet
    assert re.escape(gold) in second and not re.fullmatch(
        second, _json("The answer is 1234567.", "SUBMIT(answer='1234567')")
    )


def test_the_teachers_steps_are_guided_moves_in_every_format():
    """The compile teacher (benchmarks.longcontext.small_policy) writes what the guided constraint admits, so
    the demos it yields show moves the student can make."""
    from benchmarks.longcontext.needles import FORMATS, generate
    from benchmarks.longcontext.small_policy import SmallPolicyLM

    class CheckedPolicy(SmallPolicyLM):
        def forward(self, prompt=None, messages=None, **kwargs):
            reply = super().forward(prompt, messages, **kwargs)
            pattern = getattr(kwargs.get("_outlines_constraint"), "pattern", "")
            if '"reasoning"' in pattern:
                text = reply.choices[0].message.content
                assert re.fullmatch(pattern, text), f"{text} is outside the guided moves"
            return reply

    with dspy.context(lm=CheckedPolicy()):
        for task in generate(4096, len(FORMATS), seed=12):
            pred = RLM("context, query -> answer", max_iters=3, profile=UNRANKED)(
                context=task.context, query=task.query
            )
            assert pred.answer == task.gold[0] and _calibrated_end(pred.result), pred.trajectory
