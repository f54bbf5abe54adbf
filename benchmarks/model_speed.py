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
yardstick for our llama.cpp engine (goal: within 1.1x). It runs in the llama.cpp engine's process,
interleaved with it (ours, raw, ours, raw... on the same prompt), so both see the same machine load: on a
shared 2-core machine llama.cpp's spinning thread barriers make throughput swing 3-5x with the load, and
two runs minutes apart are not comparable. ``raw_over_ours`` is the ratio of the medians.

``--merge`` updates ``--out`` in place: the engines measured replace their rows, the others are kept (each
engine row records its own command, date and load average).

    nice -n 10 python -m benchmarks.model_speed --out benchmarks/results/model_speed.json
    nice -n 10 python -m benchmarks.model_speed --engines llamacpp --merge --out benchmarks/results/model_speed.json
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
STEP = (
    "```repl\nprint(context[{i}000:{i}500])\n```\nOutput: the section {i} describes the trade routes, the "
    "river crossings and the markets of the old city in some detail; nothing about the question yet.\n"
)


def _median(values: list[float], digits: int = 1) -> float:
    return round(statistics.median(values), digits)


def _ids(encode, n: int) -> list[int]:
    ids = encode(PROMPT_TEXT)
    while len(ids) < n:
        ids = ids + ids
    return ids[:n]


def _engine_speed(engine, sizes: list[int], gen_tokens: int, repeats: int, raw=None) -> dict:
    """Prompt and generation speed of ``engine``; with ``raw`` (a ``Llama``), raw llama-cpp-python's too,
    each of its runs right after the engine's on the same token ids."""
    from outlines.types import Regex

    from dspy_outlines.engines import GenerationRequest

    engine.generate(_ids(engine.encode, 32), GenerationRequest(max_tokens=4))  # warm-up (compiled traces)
    if raw is not None:
        _raw_prefill(raw, _ids(engine.encode, 32))
    prompt, raw_prompt = {}, {}
    for n in sizes:
        ids, runs, raw_s = _ids(engine.encode, n), [], []
        for _ in range(repeats):
            runs.append(engine.generate(ids, GenerationRequest(max_tokens=1)))
            if raw is not None:
                raw_s.append(_raw_prefill(raw, ids))
        prompt[str(n)] = {
            "tok_s": _median([n / r.timings["prefill_s"] for r in runs]),
            "seconds": [r.timings["prefill_s"] for r in runs],
        }
        if raw is not None:
            raw_prompt[str(n)] = {"tok_s": _median([n / s for s in raw_s]), "seconds": [round(s, 4) for s in raw_s]}
    gen, raw_gen = {}, []
    ids = _ids(engine.encode, 512)
    for name, constraint in (("unconstrained", None), ("constrained", Regex(CONSTRAINT))):
        engine.generate(ids[:32], GenerationRequest(max_tokens=4, constraint=constraint))  # the constraint's index
        runs = []
        for _ in range(repeats):
            runs.append(engine.generate(ids, GenerationRequest(max_tokens=gen_tokens, constraint=constraint)))
            if raw is not None and constraint is None:
                raw_gen.append(_raw_decode(raw, ids, gen_tokens))
        gen[name] = {
            "tok_s": _median([(r.completion_tokens - 1) / r.timings["decode_s"] for r in runs], 2),
            "completion_tokens": [r.completion_tokens for r in runs],
        }
    result = {"prompt_tok_s": prompt, "gen_tok_s": gen}
    if raw is not None:
        result["raw"] = {"prompt_tok_s": raw_prompt, "gen_tok_s": {"unconstrained": {"tok_s": _median(raw_gen, 2)}}}
    return result


def _raw_prefill(llm, ids: list[int]) -> float:
    """Seconds for raw llama-cpp-python to read ``ids`` from an empty context (``Llama.eval``)."""
    llm.reset()
    started = time.perf_counter()
    llm.eval(ids)
    return time.perf_counter() - started


def _raw_decode(llm, ids: list[int], gen_tokens: int) -> float:
    """Raw llama-cpp-python's greedy decoding tokens/s after reading ``ids`` (the first token not counted)."""
    _raw_prefill(llm, ids)
    llm.eval([llm.sample(temp=0.0)])
    started = time.perf_counter()
    for _ in range(gen_tokens - 1):
        llm.eval([llm.sample(temp=0.0)])
    return (gen_tokens - 1) / (time.perf_counter() - started)


def _rlm_prompts(engine, calls: int) -> list[list[int]]:
    prompts = []
    for k in range(calls):
        history = "".join(STEP.format(i=i) for i in range(k + 1))
        messages = [
            {"role": "system", "content": INSTRUCTIONS},
            {"role": "user", "content": f"Question: where was the first bridge?\n\nHistory:\n{history}"},
        ]
        prompts.append(engine.encode(engine.render_prompt(messages)))
    return prompts


def _prefix_cache(cached, uncached, calls: int) -> dict:
    from dspy_outlines.engines import GenerationRequest

    request = GenerationRequest(max_tokens=8)
    rows, same_text = [], True
    for ids in _rlm_prompts(cached, calls):
        without, with_cache = uncached.generate(ids, request), cached.generate(ids, request)
        same_text &= with_cache.text == without.text
        rows.append(
            {
                "prompt_tokens": len(ids),
                "cached_tokens": with_cache.cached_tokens,
                "first_token_s_without": without.timings["prefill_s"],
                "first_token_s_with": with_cache.timings["prefill_s"],
            }
        )
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


def _child_engine(name: str, sizes: list[int], gen_tokens: int, repeats: int, calls: int, with_raw: bool) -> dict:
    from dspy_outlines.lm import OutlinesLM

    started_at, load_start = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), _load()

    options = {"n_ctx": max(max(sizes) + gen_tokens + 64, 4096)} if name == "llamacpp" else {}
    start = time.perf_counter()
    lm = OutlinesLM(engine=name, engine_options={**options, "prefix_cache_mb": 0})
    result = {
        "load_s": round(time.perf_counter() - start, 2),
        "engine": lm.engine.name,
        "date": started_at,
        "load_avg_1m_start": load_start,
    }
    if name == "mlx":
        from dspy_outlines.models.blas import fast_blas_status
        from dspy_outlines.models.fused import is_fused

        result.update(
            blas=fast_blas_status()["library"], fused=is_fused(lm.mlx_model), prefill_chunk=lm.engine.prefill_chunk
        )
    raw = None
    if name == "llamacpp" and with_raw:
        from llama_cpp import Llama

        engine = lm.engine  # the same model file, context and threads as our engine
        raw = Llama(
            engine.source,
            n_ctx=engine.n_ctx,
            n_threads=engine.n_threads,
            n_threads_batch=engine.n_threads,
            verbose=False,
        )
        result["n_threads"] = engine.n_threads
    result.update(_engine_speed(lm.engine, sizes, gen_tokens, repeats, raw))
    del raw
    cached = OutlinesLM(engine=name, engine_options=options).engine
    result["prefix_cache"] = _prefix_cache(cached, lm.engine, calls)
    result["load_avg_1m_end"] = _load()
    return result


def _run(extra: list[str]) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.model_speed", *extra]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-3:] or [f"exit {out.returncode}"]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _ratios(raw: dict, ours: dict) -> dict:
    """Raw llama-cpp-python's median tok/s over our engine's, per prompt size and for generation."""
    ratios = {n: round(r["tok_s"] / ours["prompt_tok_s"][n]["tok_s"], 3) for n, r in raw["prompt_tok_s"].items()}
    ratios["gen"] = round(raw["gen_tok_s"]["unconstrained"]["tok_s"] / ours["gen_tok_s"]["unconstrained"]["tok_s"], 3)
    return ratios


def _merged(old: dict, new: dict) -> dict:
    """``old`` with the engines (and raw row) measured in ``new`` replaced; the runs merged are listed."""
    merged = {**old, "engines": {**old.get("engines", {}), **new["engines"]}}
    if "llamacpp_raw" in new:
        merged["llamacpp_raw"] = new["llamacpp_raw"]
    runs = old.get("runs") or [
        {"command": old.get("command"), "platform": old.get("platform"), "engines": sorted(old.get("engines", {}))}
    ]
    merged["runs"] = [
        *runs,
        {"command": new["command"], "platform": new["platform"], "engines": sorted(new["engines"])},
    ]
    return merged


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
    parser.add_argument(
        "--merge", action="store_true", help="keep the rows of --out for engines not measured now (replace the others)"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.quick:
        args.sizes, args.gen_tokens, args.repeats, args.calls = "128,512", 32, 1, 4
    sizes = [int(n) for n in args.sizes.split(",")]
    if args.child:
        print(json.dumps(_child_engine(args.child, sizes, args.gen_tokens, args.repeats, args.calls, not args.no_raw)))
        return
    common = [
        "--sizes",
        args.sizes,
        "--gen-tokens",
        str(args.gen_tokens),
        "--repeats",
        str(args.repeats),
        "--calls",
        str(args.calls),
    ]
    result = {
        "command": " ".join(["python -m benchmarks.model_speed", *sys.argv[1:]]),
        "platform": {
            "system": platform.system(),
            "machine": platform.machine(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_avg_1m_start": _load(),
        },
        "sizes": sizes,
        "gen_tokens": args.gen_tokens,
        "repeats": args.repeats,
        "constraint": CONSTRAINT,
        "engines": {},
    }
    engines = [name.strip() for name in args.engines.split(",") if name.strip()]
    for name in engines:
        row = _run(["--child", name, *common] + (["--no-raw"] if args.no_raw else []))
        raw = row.pop("raw", None)
        row["command"] = result["command"]
        result["engines"][name] = row
        if raw is not None:
            result["llamacpp_raw"] = {**raw, "n_threads": row.get("n_threads"), "paired_with": "llamacpp"}
            result["llamacpp_raw"]["raw_over_ours"] = _ratios(raw, row)
    result["platform"]["load_avg_1m_end"] = _load()
    if args.merge and args.out and args.out.exists():
        result = _merged(json.loads(args.out.read_text()), result)
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
