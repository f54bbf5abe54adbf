"""Concurrency and overhead of the RLM engine (issue 4), with scripted LMs.

Measured, from inside the REPL (so the bridge round trip counts):

- ``llm_query_batched`` of 16 prompts vs one ``llm_query``, with an LM that sleeps 200 ms per call;
- ``batch_rlm_query`` of 8 children vs one ``rlm_query`` child (each child: one action call that SUBMITs,
  so one child = one 200 ms call plus its sandbox start, prompt formatting and shutdown);
- engine overhead per iteration with a 0 ms LM: iteration time minus the action-predictor call (adapter
  formatting + parsing + LM), and the full iteration time, over many iterations;
- depth-3 recursion (``max_depth=3``): the levels of sub-RLMs in the trace.

Both a blocking LM (``time.sleep``, calls run in threads) and an async LM (``asyncio.sleep`` in
``aforward``, calls are coroutines) are measured, each at the default ``max_concurrency`` (8: a batch of 16
runs in two waves) and at ``max_concurrency=16`` (one wave). Target: ratios <= 1.3, overhead <= 5 ms.

Run:
    python -m benchmarks.concurrency --out benchmarks/results/concurrency.json   # prints one JSON object
    python -m benchmarks.concurrency --repeat 5 --iterations 200
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import dspy

from dspy_outlines.replies import chat_reply
from dspy_rlm import RLM

DELAY_S = 0.2


class SleepLM(dspy.BaseLM):
    """A scripted LM: ``respond(messages) -> str``, sleeping ``delay`` seconds per call (blocking)."""

    def __init__(self, respond: Callable[[list[dict]], str], delay: float):
        super().__init__("scripted/sleep", cache=False)
        self.respond, self.delay = respond, delay

    def _response(self, prompt: str | None, messages: list[dict] | None) -> Any:
        text = self.respond(messages or [{"role": "user", "content": prompt or ""}])
        return chat_reply("scripted", text, prompt_tokens=10, completion_tokens=5, cost=0.0)

    def forward(self, prompt=None, messages=None, **kwargs):
        time.sleep(self.delay)
        return self._response(prompt, messages)


class AsyncSleepLM(SleepLM):
    """:class:`SleepLM` with a native ``aforward`` (``asyncio.sleep``)."""

    async def aforward(self, prompt=None, messages=None, **kwargs):
        await asyncio.sleep(self.delay)
        return self._response(prompt, messages)


def action(code: str) -> str:
    return f"[[ ## reasoning ## ]]\nscripted\n\n[[ ## code ## ]]\n```python\n{code}\n```\n\n[[ ## completed ## ]]"


def timed(expr: str) -> str:
    """Code that times ``expr`` and SUBMITs the seconds it took."""
    return action(f"import time\nt0 = time.perf_counter()\nr = {expr}\nSUBMIT(answer=str(time.perf_counter() - t0))")


def respond(messages: list[dict]) -> str:
    if len(messages) == 1:  # a plain llm_query prompt
        return "ok"
    system, user = messages[0]["content"], messages[-1]["content"]
    depth = re.search(r"sub-RLM at depth (\d+) of max (\d+)", system)
    if "DEPTH_TEST" in user or (depth and "level" in user):
        d = int(depth.group(1)) if depth else 0
        if d < 3:
            return action(f"SUBMIT(answer=rlm_query('level {d + 1}: DEPTH_TEST'))")
        return action("SUBMIT(answer=llm_query('leaf'))")
    if depth:
        return action("SUBMIT(answer='child done')")
    for mode, expr in MODES.items():
        if mode in user:
            return timed(expr)
    iteration = re.search(r"\[\[ ## iteration ## \]\]\s*(\d+)/(\d+)", user)
    i, n = int(iteration.group(1)), int(iteration.group(2))
    return action("SUBMIT(answer='done')" if i >= n - 1 else f"x = {i}")


MODES = {
    "ONE_LLM": "llm_query('p')",
    "BATCH_LLM": "llm_query_batched([f'p{i}' for i in range(16)])",
    "ONE_RLM": "rlm_query('t')",
    "BATCH_RLM": "batch_rlm_query([f't{i}' for i in range(8)])",
}


def measure_ratios(
    lm: SleepLM, repeat: int, factory: Callable[[], Any] | None = None, max_concurrency: int | None = None
) -> dict[str, Any]:
    """Batch vs single call times; ``max_concurrency=None`` keeps the RLM's default."""
    settings = {} if max_concurrency is None else {"max_concurrency": max_concurrency}
    rlm = RLM("question -> answer", max_depth=1, max_llm_calls=200, interpreter_factory=factory, **settings)
    out: dict[str, Any] = {"max_concurrency": rlm.max_concurrency}
    with dspy.context(lm=lm):
        for mode in MODES:
            out[mode] = statistics.median(float(rlm(question=mode).answer) for _ in range(repeat))
    return {
        "max_concurrency": out["max_concurrency"],
        "llm_query_s": round(out["ONE_LLM"], 4),
        "llm_query_batched_16_s": round(out["BATCH_LLM"], 4),
        "llm_batched_ratio": round(out["BATCH_LLM"] / out["ONE_LLM"], 3),
        "rlm_query_child_s": round(out["ONE_RLM"], 4),
        "batch_rlm_query_8_s": round(out["BATCH_RLM"], 4),
        "rlm_batch_ratio": round(out["BATCH_RLM"] / out["ONE_RLM"], 3),
    }


def _no_netns() -> Any:
    from dspy_rlm.sandbox.backend import SubprocessREPL

    return SubprocessREPL(allow_network=True)


def measure_overhead(iterations: int) -> dict[str, Any]:
    rlm = RLM("question -> answer", max_iters=iterations)
    with dspy.context(lm=SleepLM(respond, 0.0)):
        rlm(question="warm-up")
        t0 = time.perf_counter()
        pred = rlm(question="overhead")
        wall = time.perf_counter() - t0
    its = pred.trace.iterations
    engine = [it.duration_s - it.lm_duration_s for it in its]
    return {
        "iterations": len(its),
        "result": pred.result.kind,
        "engine_ms_per_iteration": round(1000 * statistics.mean(engine), 3),
        "engine_ms_p90": round(1000 * sorted(engine)[int(0.9 * len(engine))], 3),
        "predictor_ms_per_iteration": round(1000 * statistics.mean(it.lm_duration_s for it in its), 3),
        "wall_ms_per_iteration": round(1000 * wall / len(its), 3),
    }


def measure_depth() -> dict[str, Any]:
    rlm = RLM("question -> answer", max_depth=3, max_llm_calls=100)
    with dspy.context(lm=SleepLM(respond, 0.0)):
        pred = rlm(question="DEPTH_TEST")
    levels = sorted({n.depth for n in pred.trace.walk() if n.kind == "rlm"})
    return {
        "result": pred.result.kind,
        "answer": pred.answer,
        "rlm_levels": levels,
        "sub_rlm_levels": len(levels) - 1,
        "trace_nodes": pred.trace.totals()["nodes"],
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--out", help="also write the JSON to this file")
    args = parser.parse_args(argv)
    default = RLM("question -> answer").max_concurrency
    warnings.simplefilter("ignore", DeprecationWarning)  # dspy 3.4 warns about BaseLM.forward subclasses
    result = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_avg_1m": round(os.getloadavg()[0], 2),
            "lm_delay_s": DELAY_S,
        },
        "command": "python -m benchmarks.concurrency " + " ".join(argv if argv is not None else sys.argv[1:]),
        "default_max_concurrency": default,
        # At the default: 16 batched calls take two waves of 8.
        "blocking_lm": measure_ratios(SleepLM(respond, DELAY_S), args.repeat),
        "async_lm": measure_ratios(AsyncSleepLM(respond, DELAY_S), args.repeat),
        "blocking_lm_max_concurrency_16": measure_ratios(SleepLM(respond, DELAY_S), args.repeat, max_concurrency=16),
        "async_lm_max_concurrency_16": measure_ratios(AsyncSleepLM(respond, DELAY_S), args.repeat, max_concurrency=16),
        # Diagnostic: the same with sandboxes that skip the network namespace (its creation serializes in
        # the kernel: ~200 ms for 8 concurrent starts), to separate the engine from the sandbox start.
        "blocking_lm_sandbox_without_netns": measure_ratios(
            SleepLM(respond, DELAY_S), args.repeat, _no_netns, max_concurrency=16
        ),
        "overhead": measure_overhead(args.iterations),
        "depth3": measure_depth(),
    }
    result["machine"]["load_avg_1m_at_end"] = round(os.getloadavg()[0], 2)
    text = json.dumps(result, indent=2)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    print(text)
    return result


if __name__ == "__main__":
    main()
