"""``SandboxSerializable`` inputs, side by side with dspy 3.4.1's RLM: rebuilt in the REPL from their payload
(text or binary), described by their own preview and setup in the prompt, never pickled across."""

from __future__ import annotations

import json

import dspy
import pytest
from dspy.primitives.local_interpreter import LocalInterpreter
from dspy.primitives.sandbox_serializable import SandboxSerializable

from dspy_rlm import RLM, InProcessREPL, SubprocessREPL
from tests.dspy_rlm.scripted_lm import ScriptedLM, action, fields


class Table(SandboxSerializable):
    """Rows that travel as JSON text (or as UTF-16 bytes, which are no UTF-8: the binary path)."""

    def __init__(self, rows: list[dict], binary: bool = False):
        self.rows, self.binary = rows, binary

    def sandbox_setup(self) -> str:
        return "import json"

    def to_sandbox(self) -> bytes:
        text = json.dumps(self.rows)
        return text.encode("utf-16") if self.binary else text.encode()

    def sandbox_assignment(self, var_name: str, data_expr: str) -> str:
        decode = f"{data_expr}.decode('utf-16')" if self.binary else data_expr
        return f"{var_name} = json.loads({decode})"

    def rlm_preview(self, max_chars: int = 500) -> str:
        return f"Table: {len(self.rows)} rows, columns {sorted(self.rows[0])}"[:max_chars]


CODE = "SUBMIT(answer=f'{type(table).__name__}:{len(table)}:{table[1][\"name\"]}')"
ROWS = [{"name": "ada", "id": 1}, {"name": "grace", "id": 2}, {"name": "linus", "id": 3}]


def lm() -> ScriptedLM:
    return ScriptedLM(lambda call: fields(answer="x") if call.role == "extract" else action(CODE))


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
@pytest.mark.parametrize("repl", [InProcessREPL, SubprocessREPL], ids=["inprocess", "sandbox"])
def test_rebuilt_in_the_repl_as_dspy_does(repl, binary):
    ours_lm, theirs_lm = lm(), lm()
    with dspy.context(lm=ours_lm):
        ours = RLM("table: Table, question -> answer", interpreter_factory=repl)(
            table=Table(ROWS, binary), question="q"
        )
    with dspy.context(lm=theirs_lm):
        theirs = dspy.RLM("table: Table, question -> answer", interpreter_factory=LocalInterpreter)(
            table=Table(ROWS, binary), question="q"
        )
    assert ours.answer == theirs.answer == "list:3:grace"
    prompt = ours_lm.calls[0].user
    assert "Table: 3 rows, columns ['id', 'name']" in prompt and "Sandbox imports available" in prompt


def test_a_payload_that_cannot_be_rebuilt_ends_the_run_typed():
    class Broken(Table):
        def sandbox_assignment(self, var_name: str, data_expr: str) -> str:
            return f"{var_name} = no_such_function({data_expr})"

    with dspy.context(lm=lm()):
        pred = RLM("table: Table, question -> answer", interpreter_factory=SubprocessREPL)(
            table=Broken(ROWS), question="q"
        )
    assert pred.result.kind == "failed"
    assert (
        "SandboxSerializable input could not be rebuilt" in pred.result.reason
        and "no_such_function" in pred.result.reason
    )
