"""Optimize an RLM with DSPy teleprompters: BootstrapFewShot, MIPROv2 and GEPA.

The toy task: count how often a word occurs in a document. The RLM solves it with code in its REPL.
By default every LM call goes to a *scripted* LM (no model, no network, seconds): it writes the code
that solves the task, answers the optimizers' meta-prompts (MIPROv2's instruction proposals, GEPA's
reflection) and, when a run is cut short, the fallback extraction. ``--lm`` runs the same thing with a
real model (``embedded`` for the local SmolLM2, or a LiteLLM model string).

The metric scores the *typed* result, so a run that exhausts its budget during optimization is scored
(0.5 for a correct extracted answer, 0 for a failure) instead of crashing the optimizer.

Run:
    python examples/optimize.py                       # BootstrapFewShot, scripted LM
    python examples/optimize.py --optimizer all       # + MIPROv2 (needs optuna) + GEPA
    python examples/optimize.py --lm embedded --optimizer bootstrap --train 2
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import dspy

SCRIPTED_MODEL = "local/scripted-rlm-policy"  # a local provider: no price lookup
WORDS = ["apple", "river", "stone", "cloud", "maple", "ember", "quartz", "lantern", "harbor", "velvet"]
_FIELD_LIST = re.compile(r"Your output fields are:\s*\n(.*?)(?:\n\s*\n|All interactions)", re.DOTALL)
_FIELD_NAME = re.compile(r"^\s*\d+\.\s*`(\w+)`", re.MULTILINE)
_INPUT_FIELD = r"\[\[ ## {name} ## \]\]\n(.*?)(?=\n\n\[\[ ## \w+ ## \]\]|\n\nRespond with|\Z)"

EXPLORE_CODE = "print(len(context), context[:80])"
SOLVE_CODE = (
    "import re\n"
    "word = re.search(r\"'(\\w+)'\", query).group(1)\n"
    "n = context.split().count(word)\n"
    "print(word, n)\n"
    "SUBMIT(answer=str(n))"
)


# -- the toy task -------------------------------------------------------------------------------------
def make_examples(n: int, seed: int = 0, n_words: int = 400) -> list[dspy.Example]:
    """``n`` word-counting examples (``context``, ``query`` -> ``answer``), reproducible under ``seed``."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = rng.choices(WORDS, k=n_words)
        word = rng.choice(WORDS)
        ex = dspy.Example(
            context=" ".join(words),
            query=f"How many times does the word '{word}' appear?",
            answer=str(words.count(word)),
        )
        out.append(ex.with_inputs("context", "query"))
    return out


def metric(example: Any, pred: Any, trace: Any = None, pred_name: Any = None, pred_trace: Any = None) -> float:
    """Score the typed result: Submitted and right 1.0, Extracted and right 0.5, anything else 0.0.

    Takes GEPA's five arguments too; BootstrapFewShot and MIPROv2 pass the first two or three.
    """
    result = getattr(pred, "result", None)
    kind = getattr(result, "kind", "failed")
    right = str(getattr(pred, "answer", "")).strip() == str(example.answer).strip()
    if kind == "failed" or not right:
        return 0.0
    return 1.0 if kind == "submitted" else 0.5


# -- the scripted LM ----------------------------------------------------------------------------------
def requested_fields(system: str) -> list[str]:
    """Output field names listed in a DSPy adapter's system message (empty when there is none)."""
    match = _FIELD_LIST.search(system)
    return _FIELD_NAME.findall(match.group(1)) if match else []


def input_field(text: str, name: str) -> str | None:
    """The value of input field ``name`` in a ChatAdapter / JSONAdapter user message, or None."""
    match = re.search(_INPUT_FIELD.format(name=re.escape(name)), text, re.DOTALL)
    return match.group(1) if match else None


def _format(values: dict[str, Any], as_json: bool) -> str:
    if as_json:
        return json.dumps(values)
    from dspy.adapters.chat_adapter import FieldInfoWithName
    from dspy.signatures.field import OutputField

    fields = {FieldInfoWithName(name=k, info=OutputField()): v for k, v in values.items()}
    return dspy.ChatAdapter().format_field_with_value(fields) + "\n\n[[ ## completed ## ]]"


def scripted_reply(system: str, user: str, explore_first: bool = True) -> str:
    """What the scripted policy answers to one prompt.

    * RLM action (fields ``reasoning`` + ``code``): on iteration 1 it explores (when ``explore_first``),
      afterwards it writes the code that counts the word and SUBMITs. With ``max_iters=1`` the run
      therefore ends in fallback extraction: the budget-exhaustion case.
    * RLM extraction (has a ``fallback_reason`` input): ``answer = "unknown"`` (an honest guess).
    * Any other signature (optimizer meta-prompts): every requested field gets a short instruction text.
    * No DSPy fields at all (GEPA's reflection prompt): a new instruction in a fenced block.
    """
    fields = requested_fields(system)
    as_json = "Respond with a JSON object" in user
    if not fields:
        return "```\nCount the word with Python in the REPL (context.split().count(word)) and SUBMIT it.\n```"
    if "code" in fields:
        iteration = (input_field(user, "iteration") or "1/1").strip()
        first = iteration.split("/")[0] == "1"
        code = EXPLORE_CODE if (first and explore_first) else SOLVE_CODE
        values = {"reasoning": "Look at the data, then count with Python.", "code": f"```python\n{code}\n```"}
    elif input_field(user, "fallback_reason") is not None:
        values = dict.fromkeys(fields, "unknown")
    else:
        text = "Write Python that reads the variables, computes the answer exactly, and SUBMITs it."
        values = dict.fromkeys(fields, text)
    return _format({k: v for k, v in values.items() if k in fields}, as_json)


class ScriptedEngine:
    """A DSPy engine (``complete(Request) -> Response``) answering with :func:`scripted_reply`."""

    def __init__(self, explore_first: bool = True):
        self.explore_first = explore_first
        self.calls = 0

    def complete(self, request: Any) -> Any:
        from dspy.lm15 import Message, Response, TextPart, Usage

        system = request.system or ""
        if not isinstance(system, str):
            system = "".join(getattr(part, "text", "") or "" for part in system)
        users = [m.text or "" for m in request.messages if m.role == "user"]
        user = users[-1] if users else ""  # earlier user turns are demos
        if not system and users:  # a plain prompt (GEPA's reflection LM) has no system message
            system = ""
        text = scripted_reply(system, user, self.explore_first)
        self.calls += 1
        chars = len(system) + sum(len(m.text or "") for m in request.messages)
        return Response(
            id=None,
            model=SCRIPTED_MODEL,
            message=Message.assistant([TextPart(text)]),
            finish_reason="stop",
            usage=Usage(input_tokens=chars // 4, output_tokens=len(text) // 4),
        )

    def stream(self, request: Any) -> Any:
        from dspy.lm15 import response_to_events

        return response_to_events(self.complete(request))

    def close(self) -> None:
        """Nothing to release."""


def scripted_lm(explore_first: bool = True) -> dspy.LM:
    """A fresh scripted LM (no cache: every call reaches the policy)."""
    return dspy.LM(SCRIPTED_MODEL, engine=ScriptedEngine(explore_first), cache=False)


# -- optimizers ---------------------------------------------------------------------------------------
def make_rlm(max_iters: int = 3) -> Any:
    """The student: an in-process REPL keeps the scripted runs fast (no worker process per run)."""
    from dspy_rlm import RLM, InProcessREPL

    return RLM(
        "context, query -> answer",
        max_iters=max_iters,
        max_llm_calls=4,
        interpreter_factory=InProcessREPL,
        extract_adapter=None,
    )


def compile_with(name: str, student: Any, trainset: list, lm: Any) -> Any:
    """Compile ``student`` with optimizer ``name`` (bootstrap | mipro | gepa) at toy sizes."""
    if name == "bootstrap":
        opt = dspy.BootstrapFewShot(metric=metric, max_bootstrapped_demos=2, max_labeled_demos=2, max_rounds=1)
        return opt.compile(student, trainset=trainset)
    if name == "mipro":
        opt = dspy.MIPROv2(
            metric=metric,
            prompt_model=lm,
            task_model=lm,
            auto=None,
            num_candidates=2,
            init_temperature=0.5,
            num_threads=1,
            verbose=False,
            track_stats=False,
        )
        return opt.compile(
            student,
            trainset=trainset,
            valset=trainset,
            num_trials=2,
            max_bootstrapped_demos=1,
            max_labeled_demos=1,
            minibatch=False,
        )
    if name == "gepa":
        if not hasattr(dspy, "GEPA"):
            raise RuntimeError(f"dspy {dspy.__version__} has no GEPA")
        opt = dspy.GEPA(
            metric=metric,
            reflection_lm=lm,
            max_metric_calls=2 * len(trainset) + 6,
            num_threads=1,
            reflection_minibatch_size=2,
            use_merge=False,
            track_stats=False,
        )
        return opt.compile(student, trainset=trainset, valset=trainset)
    raise ValueError(f"unknown optimizer {name!r}; choose bootstrap, mipro, gepa or all")


def demo_counts(program: Any) -> dict[str, int]:
    """Demos per predictor name (``generate_action``, ``extract``)."""
    return {name: len(p.demos) for name, p in program.named_predictors()}


def run_one(name: str, lm: Any, trainset: list, devset: list, out_dir: Path) -> dict[str, Any]:
    """Compile, evaluate on ``devset``, save to JSON and load into a fresh RLM; a summary dict."""
    t0 = time.perf_counter()
    with dspy.context(lm=lm):
        compiled = compile_with(name, make_rlm(), trainset, lm)
        scores = [metric(ex, compiled(**ex.inputs())) for ex in devset]
    path = out_dir / f"rlm_{name}.json"
    compiled.save(str(path))
    restored = make_rlm()
    restored.load(str(path))
    same = demo_counts(restored) == demo_counts(compiled)
    return {
        "optimizer": name,
        "demos": demo_counts(compiled),
        "dev_score": sum(scores) / max(len(scores), 1),
        "saved": str(path),
        "load_round_trip": same,
        "seconds": round(time.perf_counter() - t0, 2),
    }


def resolve_lm(name: str | None) -> Any:
    """``None``/``scripted``: the scripted LM; ``embedded``: SmolLM2 via OutlinesLM; else ``dspy.LM``."""
    if name in (None, "scripted"):
        return scripted_lm()
    if name == "embedded":
        from dspy_outlines import OutlinesLM

        return OutlinesLM(max_tokens=192)
    return dspy.LM(name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--optimizer", default="bootstrap", choices=["bootstrap", "mipro", "gepa", "all"])
    parser.add_argument("--lm", default=None, help="scripted (default) | embedded | <litellm model string>")
    parser.add_argument("--train", type=int, default=4, help="trainset size")
    parser.add_argument("--out", default=None, help="where to save the compiled programs (default: a temp dir)")
    args = parser.parse_args(argv)
    lm = resolve_lm(args.lm)
    out_dir = Path(args.out or tempfile.mkdtemp(prefix="rlm-optimize-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    trainset, devset = make_examples(args.train, seed=0), make_examples(2, seed=1)
    names = ["bootstrap", "mipro", "gepa"] if args.optimizer == "all" else [args.optimizer]
    for name in names:
        print(json.dumps(run_one(name, lm, trainset, devset, out_dir)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
