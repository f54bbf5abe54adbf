import pytest

from dspy_rlm.protocol import final_fields, parse_response


def test_fenced_blocks_in_order_with_thinking():
    p = parse_response("First look.\n```python\nx = 1\n```\nthen\n```repl\nprint(x)\n```")
    assert p.code_blocks == ["x = 1", "print(x)"] and p.thinking == "First look.\nthen"


def test_bare_fence_and_unfenced_code():
    assert parse_response("```\ny = 2\n```").code_blocks == ["y = 2"]
    assert parse_response("print('hi')\nz = 3").code_blocks == ["print('hi')\nz = 3"]


def test_unclosed_fence_is_still_code():
    assert parse_response("```python\nprint(1)").code_blocks == ["print(1)"]


def test_non_python_fences_are_rejected():
    p = parse_response("```bash\nls\n```")
    assert p.code_blocks == [] and p.rejected_langs == ["bash"]


@pytest.mark.parametrize(
    "text, final_text, final_var",
    [
        ("The answer is known.\nFINAL(42)", "42", None),
        ('All done.\nFINAL("Paris, France")', "Paris, France", None),
        ("```python\nr = 1\n```\nFINAL_VAR(r)", None, "r"),
        ("I have it:\nFINAL_VAR('answer')", None, "answer"),
    ],
)
def test_final_markers_outside_code(text, final_text, final_var):
    p = parse_response(text)
    assert p.final_text == final_text and p.final_var == final_var


def test_empty_and_none():
    assert parse_response(None).code_blocks == [] and parse_response("").thinking == ""


def test_marker_alone_that_compiles_runs_as_code():
    assert parse_response("FINAL_VAR('answer')").code_blocks == ["FINAL_VAR('answer')"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("answer='x', n=2", {"answer": "x", "n": 2}),
        ("'x', 2", {"answer": "x", "n": 2}),
        ("{'answer': 'x', 'n': 2}", {"answer": "x", "n": 2}),
        ('{"answer": "x", "ok": true}', {"answer": "x", "ok": True}),
        ("answer=result_var, n=2", {"answer": "result_var", "n": 2}),  # not a literal: its source text
        ("the answer is x", None),
        ("'a', 'b', 'c'", None),  # more values than outputs
    ],
)
def test_final_fields_reads_multi_output_final_text(text, expected):
    assert final_fields(text, ["answer", "n"]) == expected
