"""Speed of the embedded model through the engines OutlinesLM really uses, plus raw llama-cpp-python.

Prints ONE JSON object (and writes it with ``--out``). Each engine runs in its own subprocess (what it
loads is process-wide), through ``OutlinesLM(engine=...).engine.generate`` -- the path every DSPy call
takes -- and reports, as medians over ``--repeats`` runs:

* ``load_s``: building ``OutlinesLM`` (model load included);
* ``prompt_tok_s``: prompt tokens / seconds to the first token, at 512 / 2k / 8k prompt tokens, with the
  prefix cache off (every run prefills the whole prompt);
* ``gen_tok_s``: decoded tokens / decode seconds, unconstrained and Outlines-constrained, 512-token prompt;
* ``prefix_cache``: an RLM-like sequence of calls whose prompt only grows at the end (instructions, then a
  history one step longer each call): first-token latency per call with and without the prefix cache, side
  by side, and the share of prompt tokens served from the cache from call 2 on (goal: >= 80%).

``llamacpp_raw`` is llama-cpp-python itself on the same token ids (``Llama.eval`` / ``sample``), the
yardstick for our llama.cpp engine (goal: within 1.1x).

    nice -n 10 python -m benchmarks.model_speed --out benchmarks/results/model_speed.json
    python -m benchmarks.model_speed --quick --engines mlx      # short prompts, for smoke tests
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

PROMPT_TEXT = "The history of the city of Paris begins with a small settlement on an island. " * 1200
# One DFA state: cheap to index, and it never forces the generation to end early.
CONSTRAINT = r"[A-Za-z ,.']+"
INSTRUCTIONS = (
    "You are the root of a recursive language model. You write Python in ```repl``` blocks to explore a "
    "large context held in the variable `context`, call llm_query(prompt) for sub-questions, print what you "
    "need, and finish with SUBMIT(answer). Keep each step short. Never print the whole context. "
) * 12
STEP = ("```repl\nprint(context[{i}000:{i}500])\n```\nOutput: the section {i} describes the trade routes, the "
        "river crossings and the markets of the old city in some detail; nothing about the question yet.\n")


def _median(values: list[float], digits: int = 1) -> float:
    return round(statistics.median(values), digits)


def _ids(encode, n: int) -> list[int]:
    ids = encode(PROMPT_TEXT)
    while len(ids) < n:
        ids = ids + ids
    return ids[:n]


def _engine_speed(engine, sizes: list[int], gen_tokens: int, repeats: int) -> dict:
    from outlines.types import Regex

    from dspy_outlines.engines import GenerationRequest

    engine.generate(_ids(engine.encode, 32), GenerationRequest(max_tokens=4))  # warm-up (compiled traces)
    prompt = {}
    for n in sizes:
        ids = _ids(engine.encode, n)
        runs = [engine.generate(ids, GenerationRequest(max_tokens=1)) for _ in range(repeats)]
        prompt[str(n)] = {"tok_s": _median([n / r.timings["prefill_s"] for r in runs]),
                          "seconds": [r.timings["prefill_s"] for r in runs]}
    gen = {}
    ids = _ids(engine.encode, 512)
    for name, constraint in (("unconstrained", None), ("constrained", Regex(CONSTRAINT))):
        engine.generate(ids[:32], GenerationRequest(max_tokens=4, constraint=constraint))  # the constraint's index
        runs = [engine.generate(ids, GenerationRequest(max_tokens=gen_tokens, constraint=constraint))
                for _ in range(repeats)]
        gen[name] = {"tok_s": _median([(r.completion_tokens - 1) / r.timings["decode_s"] for r in runs], 2),
                     "completion_tokens": [r.completion_tokens for r in runs]}
    return {"prompt_tok_s": prompt, "gen_tok_s": gen}


def _rlm_prompts(engine, calls: int) -> list[list[int]]:
    prompts = []
    for k in range(calls):
        history = "".join(STEP.format(i=i) for i in range(k + 1))
        messages = [{"role": "system", "content": INSTRUCTIONS},
                    {"role": "user", "content": f"Question: where was the first bridge?\n\nHistory:\n{history}"}]
        prompts.append(engine.encode(engine.render_prompt(messages)))
    return prompts


def _prefix_cache(cached, uncached, calls: int) -> dict:
    from dspy_outlines.engines import GenerationRequest

    request = GenerationRequest(max_tokens=8)
    rows, same_text = [], True
    for ids in _rlm_prompts(cached, calls):
        without, with_cache = uncached.generate(ids, request), cached.generate(ids, request)
        same_text &= with_cache.text == without.text
        rows.append({"prompt_tokens": len(ids), "cached_tokens": with_cache.cached_tokens,
                     "first_token_s_without": without.timings["prefill_s"],
                     "first_token_s_with": with_cache.timings["prefill_s"]})
    later = rows[1:]
    share = sum(r["cached_tokens"] for r in later) / max(1, sum(r["prompt_tokens"] for r in later))
    return {
        "calls": rows,
        "cached_share_from_call_2": round(share, 3),
        "median_first_token_s_without": _median([r["first_token_s_without"] for r in later], 3),
        "median_first_token_s_with": _median([r["first_token_s_with"] for r in later], 3),
        "same_text_with_and_without": same_text,
        "engine_stats": cached.stats(),
    }


def _child_engine(name: str, sizes: list[int], gen_tokens: int, repeats: int, calls: int) -> dict:
    from dspy_outlines.lm import OutlinesLM

    options = {"n_ctx": max(max(sizes) + gen_tokens + 64, 4096)} if name == "llamacpp" else {}
    start = time.perf_counter()
    lm = OutlinesLM(engine=name, engine_options={**options, "prefix_cache_mb": 0})
    result = {"load_s": round(time.perf_counter() - start, 2), "engine": lm.engine.name}
    if name == "mlx":
        from dspy_outlines.models.blas import fast_blas_status
        from dspy_outlines.models.fused import is_fused

        result.update(blas=fast_blas_status()["library"], fused=is_fused(lm.mlx_model),
                      prefill_chunk=lm.engine.prefill_chunk)
    result.update(_engine_speed(lm.engine, sizes, gen_tokens, repeats))
    cached = OutlinesLM(engine=name, engine_options=options).engine
    result["prefix_cache"] = _prefix_cache(cached, lm.engine, calls)
    return result


def _child_raw(sizes: list[int], gen_tokens: int, repeats: int) -> dict:
    """llama-cpp-python alone: ``eval`` of the prompt, then ``sample`` / ``eval`` per generated token."""
    from llama_cpp import Llama

    from dspy_outlines.models import embedded_model_path

    start = time.perf_counter()
    threads = os.cpu_count() or 1  # as our llama.cpp engine
    llm = Llama(str(embedded_model_path()), n_ctx=max(sizes) + gen_tokens + 64, n_threads=threads,
                n_threads_batch=threads, verbose=False)
    result = {"load_s": round(time.perf_counter() - start, 2), "n_threads": llm.n_threads}
    encode = lambda text: llm.tokenize(text.encode(), add_bos=False, special=True)  # noqa: E731

    def prefill(ids: list[int]) -> float:
        llm.reset()
        started = time.perf_counter()
        llm.eval(ids)
        return time.perf_counter() - started

    prefill(_ids(encode, 32))
    result["prompt_tok_s"] = {str(n): {"tok_s": _median([n / prefill(_ids(encode, n)) for _ in range(repeats)])}
                              for n in sizes}
    speeds = []
    for _ in range(repeats):
        prefill(_ids(encode, 512))
        started = time.perf_counter()
        for _ in range(gen_tokens - 1):
            llm.eval([llm.sample(temp=0.0)])
        speeds.append((gen_tokens - 1) / (time.perf_counter() - started))
    result["gen_tok_s"] = {"unconstrained": {"tok_s": _median(speeds, 2)}}
    return result


def _run(extra: list[str]) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.model_speed", *extra]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-3:] or [f"exit {out.returncode}"]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _load() -> float | None:
    return round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engines", default="mlx,llamacpp", help="comma-separated: mlx, llamacpp")
    parser.add_argument("--sizes", default="512,2048,8000", help="prompt lengths in tokens")
    parser.add_argument("--gen-tokens", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement (medians reported)")
    parser.add_argument("--calls", type=int, default=8, help="calls in the RLM-like prefix-cache sequence")
    parser.add_argument("--no-raw", action="store_true", help="skip the raw llama-cpp-python row")
    parser.add_argument("--quick", action="store_true", help="128/512-token prompts, 32 tokens, 1 repeat, 4 calls")
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.quick:
        args.sizes, args.gen_tokens, args.repeats, args.calls = "128,512", 32, 1, 4
    sizes = [int(n) for n in args.sizes.split(",")]
    if args.child == "raw":
        print(json.dumps(_child_raw(sizes, args.gen_tokens, args.repeats)))
        return
    if args.child:
        print(json.dumps(_child_engine(args.child, sizes, args.gen_tokens, args.repeats, args.calls)))
        return
    common = ["--sizes", args.sizes, "--gen-tokens", str(args.gen_tokens), "--repeats", str(args.repeats),
              "--calls", str(args.calls)]
    result = {
        "command": " ".join(["python -m benchmarks.model_speed", *sys.argv[1:]]),
        "platform": {"system": platform.system(), "machine": platform.machine(),
                     "python": platform.python_version(), "cpus": os.cpu_count(), "load_avg_1m_start": _load()},
        "sizes": sizes, "gen_tokens": args.gen_tokens, "repeats": args.repeats, "constraint": CONSTRAINT,
        "engines": {},
    }
    engines = [name.strip() for name in args.engines.split(",") if name.strip()]
    for name in engines:
        result["engines"][name] = _run(["--child", name, *common])
    if "llamacpp" in engines and not args.no_raw:
        result["llamacpp_raw"] = _run(["--child", "raw", *common])
    result["platform"]["load_avg_1m_end"] = _load()
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
