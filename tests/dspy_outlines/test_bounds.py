"""Length bounds from the token budget (dspy_outlines.bounds): free text and lists of scalars close within
``max_tokens``; when a value is cut all the same, the error says what helps.

The deterministic tests check the bounded constraint itself: the widest value it accepts (outlines_core's regex
of the schema, optional spaces included) fits ``max_tokens - 1`` characters, and one item more or one character
wider is refused. The real-model tests run the embedded SmolLM2-135M at small budgets (``real_model``).
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

import dspy
import pydantic
import pytest
from outlines_core.json_schema import build_regex_from_schema

from dspy_outlines.adapter import OutlinesAdapter
from dspy_outlines.bounds import ListBound, bounded_constraint, budget
from dspy_outlines.constraints import TruncatedOutputError, build_constraint, constraint_key
from dspy_outlines.serving import request_kwargs
from tests.dspy_outlines.test_adapter import FinishingLM, ScriptedLM, run


def _sig(annotation: Any, name: str = "answer") -> type[dspy.Signature]:
    return dspy.Signature({"question": dspy.InputField(), name: (annotation, dspy.OutputField())}, "Answer.")


def _schema(signature: type[dspy.Signature], max_tokens: int) -> dict[str, Any]:
    kind, definition = constraint_key(bounded_constraint(signature, max_tokens).output_type)
    assert kind == "json"
    return json.loads(definition)


def _item(items: dict[str, Any], wider: int = 0) -> str:
    if items.get("type") == "integer":
        return "-" + "9" * (items["maxDigits"] + wider)
    return json.dumps("x" * (items["maxLength"] + wider))


def _widest(schema: dict[str, Any], more: int = 0, wider: int = 0) -> str:
    """The longest array the schema allows (``more`` items / ``wider`` characters beyond it), spaces included."""
    items = [_item(schema["items"], wider)] * (schema["maxItems"] + more)
    return "[ " + " , ".join(items).replace(" , ", ", ") + " ]" if items else "[ ]"


@pytest.mark.parametrize("item", [str, int])
@pytest.mark.parametrize("max_tokens", [8, 16, 24, 48, 256, 1024])
def test_a_list_alone_fits_max_tokens_and_nothing_wider_is_allowed(item, max_tokens):
    schema = _schema(_sig(list[item]), max_tokens)
    regex = build_regex_from_schema(json.dumps(schema))
    widest = _widest(schema)
    assert re.fullmatch(regex, widest) and len(widest) <= max_tokens - 1  # one token for the end of text
    assert not re.fullmatch(regex, _widest(schema, more=1))
    assert not re.fullmatch(regex, _widest(schema, wider=1))
    assert schema["minItems"] == 1 and not re.fullmatch(regex, "[]")  # as Outlines' own list constraint


def test_the_split_at_the_benchmark_budgets():
    """Balanced: a list of strings gets items at least twice as wide as it is long."""
    lists = {mt: dict(budget(_sig(list[str]), mt).lists)["answer"] for mt in (16, 24, 48, 256)}
    assert lists == {16: ListBound(1, 9), 24: ListBound(2, 6), 48: ListBound(3, 11), 256: ListBound(9, 24)}
    assert dict(budget(_sig(list[int]), 24).lists)["answer"] == ListBound(3, 4)  # [-9999, -9999, -9999]


def test_choices_and_booleans_keep_their_width_and_get_a_number_of_items():
    choice = _schema(_sig(list[Literal["red", "blue"]]), 24)
    assert choice["maxItems"] == 2 and choice["items"]["enum"] == ["red", "blue"]  # [ "blue", "blue" ]: 18 of 23
    assert _schema(_sig(list[bool]), 24)["maxItems"] == 3  # [ false, false, false ]


def test_the_fields_own_tighter_bound_wins_and_its_room_goes_to_the_other_bound():
    few = _schema(_sig(Annotated[list[str], pydantic.Field(max_length=1)]), 24)
    assert (few["maxItems"], few["items"]["maxLength"]) == (1, 17)  # one item: all the room
    short = _schema(_sig(list[Annotated[str, pydantic.Field(max_length=3)]]), 24)
    assert (short["maxItems"], short["items"]["maxLength"]) == (3, 3)  # short items: more of them
    loose = _schema(_sig(Annotated[list[str], pydantic.Field(max_length=50)]), 24)
    assert (loose["maxItems"], loose["items"]["maxLength"]) == (2, 6)  # the budget's bound is tighter
    empty = _schema(_sig(Annotated[list[str], pydantic.Field(min_length=0)]), 24)
    assert re.fullmatch(build_regex_from_schema(json.dumps(empty)), "[]")  # min_length=0 allows an empty list


def test_several_list_fields_and_free_text_share_the_budget():
    sig = dspy.Signature("text -> colors: list[str], sizes: list[int], note: str")
    schema = _schema(sig, 128)
    props = schema["properties"]
    widest = "{ " + " , ".join(
        f'"{name}" : {value}'
        for name, value in [
            ("colors", _widest(props["colors"])),
            ("sizes", _widest(props["sizes"])),
            ("note", json.dumps("x" * props["note"]["maxLength"])),
        ]
    )
    widest += " }"
    assert re.fullmatch(build_regex_from_schema(json.dumps(schema)), widest) and len(widest) <= 127
    assert props["colors"]["maxItems"] >= 1 and props["sizes"]["maxItems"] >= 1 and props["note"]["maxLength"] >= 1


def test_unbounded_fields_are_named_and_not_bounded():
    plan = budget(dspy.Signature("text -> colors: list[str], scores: list[float]"), 64)
    assert [name for name, _ in plan.lists] == ["colors"] and plan.unbounded == ("scores",)
    assert constraint_key(bounded_constraint(_sig(list[float]), 64).output_type) == constraint_key(list[float])


def test_free_text_alone_keeps_its_budget():
    assert budget(_sig(str), 48).text_chars == 47  # every allowed token carries at least one character
    assert budget(_sig(int), 48).text_chars is None and budget(_sig(str), None) is None
    two = dspy.Signature("q -> answer: str, explanation: str")
    text = budget(two, 512).text_chars
    assert build_constraint(two, text).output_type.model_json_schema()["properties"]["answer"]["maxLength"] == text


def test_the_request_carries_the_bounded_list():
    lm = ScriptedLM(['["red", "white"]'], local=True)
    assert run(OutlinesAdapter(tiers=("tier3",)), lm, _sig(list[str]), {"question": "flag colors?"}, max_tokens=24) == [
        {"answer": ["red", "white"]}
    ]
    constraint = lm.calls[0]["constraint"]
    assert constraint["kind"] == "json" and json.loads(constraint["definition"])["maxItems"] == 2


def test_a_server_gets_the_bounded_list_as_a_json_schema():
    output_type = bounded_constraint(_sig(list[str]), 24).output_type
    schema = request_kwargs(output_type, "llama.cpp")["extra_body"]["json_schema"]
    assert (schema["maxItems"], schema["items"]["maxLength"]) == (2, 6)


# -- the advice when a value is cut all the same ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("annotation", "max_tokens", "advice"),
    [
        (list[str], 3, "raise max_tokens to at least 5"),  # too small even for [ ] at one character per token
        (list[float], 64, "answer have no length bound"),  # a float's digits cannot be bounded
        (list[str], 64, "characters that take several tokens"),  # bounded, yet cut: escapes, non-ASCII text
    ],
)
def test_truncation_says_what_helps(annotation, max_tokens, advice):
    lm = FinishingLM("[", "length")
    with pytest.raises(TruncatedOutputError, match=advice):
        OutlinesAdapter(tiers=("tier3",))(lm, {"max_tokens": max_tokens}, _sig(annotation), [], {"question": "q"})


def test_cut_json_without_a_finish_reason_gets_the_advice_too():
    """A server whose finish reason is not known (history off): the JSON that ends early is the sign."""
    lm = ScriptedLM(['["re'], local=True)
    with pytest.raises(TruncatedOutputError, match=r"not repaired: .*raise max_tokens to at least 5"):
        run(OutlinesAdapter(tiers=("tier3",)), lm, _sig(list[str]), {"question": "q"}, max_tokens=3)


def test_needed_counts_every_field_of_an_object():
    sig = dspy.Signature("text -> colors: list[str], summary: str")
    plan = budget(sig, 24)
    assert plan.needed == 1 + (1 + len("colors") + 8 + len("summary") + 8) + 4 + 3  # { "colors" : [ ] , ... }
    assert f"at least {plan.needed}" in bounded_constraint(sig, 24).advice


# -- the embedded model ----------------------------------------------------------------------------------------

TEXTS = ["The flag is red and white.", "She wore blue and green.", "Gold and silver medals."]
DEMO = [dspy.Example(text="A tan hat and teal socks.", colors=["tan", "teal"])]


@pytest.mark.real_model
@pytest.mark.parametrize("engine", ["embedded_lm", "llamacpp_lm"])
def test_real_model_list_closes_at_a_small_budget_with_words_of_the_text(engine, request):
    """At 24 tokens the unbounded list never closed (``["]\\n\\nThe output is ...``, cut); bounded, it closes.
    With one demo the items are the colors of the text: what a user checks."""
    lm, sig = request.getfixturevalue(engine), dspy.Signature("text -> colors: list[str]")
    for text in TEXTS:
        adapter = OutlinesAdapter(tiers=("tier3",))
        (result,) = adapter(lm, {"max_tokens": 24}, sig, DEMO, {"text": text})
        words = set(re.findall(r"[a-z]+", text.lower()))
        assert result["colors"] and {color.lower() for color in result["colors"]} <= words, (text, result)
        assert adapter.metrics["tier3_truncated"] == 0 and lm.history[-1]["usage"]["completion_tokens"] <= 24


@pytest.mark.real_model
def test_real_model_list_at_a_budget_too_small_to_close_says_the_least_that_closes(embedded_lm):
    adapter = OutlinesAdapter(tiers=("tier3",))
    with pytest.raises(TruncatedOutputError, match="raise max_tokens to at least 5"):
        adapter(embedded_lm, {"max_tokens": 1}, _sig(list[int]), [], {"question": "List the numbers 1, 2 and 3."})
    assert adapter.metrics["tier3_truncated"] == 1
