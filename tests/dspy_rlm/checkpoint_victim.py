"""A run that is killed mid-iteration (SIGKILL of its own process) and then resumed: used by test_checkpoint.

``python -m tests.dspy_rlm.checkpoint_victim CKPT CALL_LOG [crash]``: every LM call appends one line to
CALL_LOG (role, iteration, prompt digest). With ``crash`` the host process kills itself during iteration 2,
after that iteration's action and its ``llm_query`` were answered. Prints the result as JSON on success.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys

import dspy

from dspy_rlm import RLM
from tests.dspy_rlm.scripted_lm import ScriptedLM, action

STEPS = {
    1: "x = 41\nnotes = llm_query('remember the first note')\ndef helper():\n    return 1\nprint(notes)",
    2: "y = x + 1\nsecond = llm_query('and the second one')\ncrash_here()\nprint(y, second)",
    3: "FINAL(f'{y}|{notes}|{second}')",
}


def main(ckpt: str, log: str, crash: bool) -> None:
    def respond(call):
        digest = hashlib.sha1(call.user.encode()).hexdigest()[:10]
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"{call.role} {call.iteration} {digest}\n")
        if call.role == "llm":
            return "NOTE<" + call.user.split()[-1] + ">"
        return action(STEPS[call.iteration])

    def crash_here() -> str:
        """Kills the host process when asked to (simulates an OOM kill or a power cut)."""
        if crash:
            os.kill(os.getpid(), signal.SIGKILL)
        return "ok"

    dspy.configure(lm=ScriptedLM(respond))
    rlm = RLM("context, query -> answer", max_iters=6, tools=[crash_here], checkpoint=ckpt)
    pred = rlm(context="some long document " * 100, query="combine the notes")
    print(
        json.dumps(
            {
                "answer": pred.answer,
                "kind": pred.result.kind,
                "warnings": pred.trace.warnings,
                "iterations": pred.trace.totals()["iterations"],
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], len(sys.argv) > 3 and sys.argv[3] == "crash")
