"""The llama.cpp engine against raw llama-cpp-python, and what its prefix cache saves.

Prints ONE JSON object (and writes it with ``--out``):

* ``speed``: prompt and generation tokens/s on the same ~512-token prompt (greedy, unconstrained, the prompt
  read from scratch each time), medians over ``--repeats``: ``LlamaCppEngine.generate`` (what
  ``OutlinesLM(engine="llamacpp")`` runs) vs ``Llama.create_completion(stream=True)`` on a second ``Llama``
  with the same options. Prompt tok/s is prompt tokens / time to the first token; generation tok/s counts
  the tokens after the first.
* ``prefix_cache``: two ~600-token prompts alternating (an action step, then an extraction, ...), 4 calls each,
  8 new tokens a call: mean time to the first token and the share of prompt tokens served from cache with
  the cache off (``prefix_cache_mb=0``), the live context only (saved states disabled), and saved states.
* ``prefill_cpu`` (``--sections prefill_cpu``): prompt tokens per CPU-second of the reading thread, one
  thread each (``n_threads=1``: llama.cpp computes on the calling thread, so ``time.thread_time`` counts all
  of it), ours (``generate`` with ``max_tokens=1``) and raw (``Llama.eval`` + one ``sample``) alternating on
  the same prompt: what the engine adds to the prefill, independent of the machine's load (wall-clock
  tok/s on a shared 2-core machine swings 3-5x with it; llama.cpp's threads spin at their barriers).

    python -m benchmarks.llamacpp_speed --out benchmarks/results/llamacpp_speed.json
    python -m benchmarks.llamacpp_speed --sections prefill_cpu --sizes 512,2048 --out /tmp/prefill_cpu.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

PROMPT_TEXT = "The history of the city of Paris begins with a small settlement on an island. " * 30
STORY = [{"role": "user", "content": PROMPT_TEXT + "\nContinue this history in detail."}]
INTERLEAVED = [
    [
        {"role": "system", "content": "You are an agent writing Python. " + PROMPT_TEXT},
        {"role": "user", "content": "Step."},
    ],
    [
        {"role": "system", "content": "Extract the answer as JSON. " + "Fields: answer, reason. " * 60},
        {"role": "user", "content": "Extract."},
    ],
]


def _engine(**options):
    from dspy_outlines.engines.llamacpp import LlamaCppEngine

    return LlamaCppEngine(None, **options)


def measure_speed(repeats: int, max_tokens: int) -> dict:
    from llama_cpp import Llama

    from dspy_outlines.engines import GenerationRequest

    engine = _engine(prefix_cache_mb=0)
    ids = engine.encode(engine.render_prompt(STORY))
    raw = Llama(
        engine.source, n_ctx=engine.n_ctx, n_threads=engine.n_threads, n_threads_batch=engine.n_threads, verbose=False
    )
    ours, theirs = [], []
    request = GenerationRequest(max_tokens=max_tokens)
    for _ in range(repeats + 1):  # the first round warms both up and is dropped
        c = engine.generate(ids, request)
        ours.append((len(ids) / c.timings["prefill_s"], (c.completion_tokens - 1) / c.timings["decode_s"]))
        raw.reset()
        started, first, n = time.perf_counter(), None, 0
        for _chunk in raw.create_completion(ids, max_tokens=max_tokens, temperature=0.0, stream=True):
            n += 1
            first = first or time.perf_counter() - started
        total = time.perf_counter() - started
        theirs.append((len(ids) / first, (n - 1) / (total - first)))

    def medians(rows):
        rows = rows[1:]
        return {
            "prompt_tps": round(statistics.median(r[0] for r in rows), 1),
            "generation_tps": round(statistics.median(r[1] for r in rows), 1),
        }

    result = {"prompt_tokens": len(ids), "max_tokens": max_tokens, "ours": medians(ours), "raw": medians(theirs)}
    result["raw_over_ours"] = {k: round(result["raw"][k] / result["ours"][k], 3) for k in result["ours"]}
    return result


def measure_prefix_cache(rounds: int) -> dict:
    from dspy_outlines.engines import GenerationRequest

    results = {}
    for mode in ("off", "live_context", "saved_states"):
        engine = _engine(prefix_cache_mb=0 if mode == "off" else 256)
        if mode == "live_context":
            engine._save_live = lambda: None  # only the one live context
        prompts = [engine.encode(engine.render_prompt(m)) for m in INTERLEAVED]
        firsts, cached, total = [], 0, 0
        for i in range(rounds * 2):
            c = engine.generate(prompts[i % 2], GenerationRequest(max_tokens=8))
            if i >= 2:  # from the second round on
                firsts.append(c.timings["prefill_s"])
                cached, total = cached + c.cached_tokens, total + c.prompt_tokens
        stats = engine.stats()
        results[mode] = {
            "first_token_s_mean": round(statistics.mean(firsts), 4),
            "cached_share": round(cached / total, 3),
            "save_s": round(stats["save_s"], 4),
            "restore_s": round(stats["restore_s"], 4),
            "saved_bytes": stats["saved_bytes"],
        }
    results["prompt_tokens"] = [len(p) for p in prompts]
    return results


def measure_prefill_cpu(sizes: list[int], repeats: int) -> dict:
    from llama_cpp import Llama

    from dspy_outlines.engines import GenerationRequest

    engine = _engine(prefix_cache_mb=0, n_threads=1)
    raw = Llama(engine.source, n_ctx=engine.n_ctx, n_threads=1, n_threads_batch=1, verbose=False)
    text = engine.encode(PROMPT_TEXT * 40)
    warm = text[:32]
    engine.generate(warm, GenerationRequest(max_tokens=1))
    raw.eval(warm)
    result = {}
    for n in sizes:
        ids, ours, theirs = text[:n], [], []
        for _ in range(repeats):
            started = time.thread_time()
            engine.generate(ids, GenerationRequest(max_tokens=1))
            ours.append(n / (time.thread_time() - started))
            raw.reset()
            started = time.thread_time()
            raw.eval(ids)
            raw.sample(temp=0.0)
            theirs.append(n / (time.thread_time() - started))
        ours_tps, raw_tps = statistics.median(ours), statistics.median(theirs)
        result[str(n)] = {
            "ours_tok_per_cpu_s": round(ours_tps, 1),
            "raw_tok_per_cpu_s": round(raw_tps, 1),
            "raw_over_ours": round(raw_tps / ours_tps, 3),
            "ours_runs": [round(x, 1) for x in ours],
            "raw_runs": [round(x, 1) for x in theirs],
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument(
        "--sections", default="speed,prefix_cache", help="comma-separated: speed, prefix_cache, prefill_cpu"
    )
    parser.add_argument("--sizes", default="512,2048", help="prompt lengths (tokens) for prefill_cpu")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import llama_cpp

    sections = {s.strip() for s in args.sections.split(",") if s.strip()}
    result = {
        "command": " ".join(["python -m benchmarks.llamacpp_speed", *sys.argv[1:]]),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "load_avg_1m": os.getloadavg()[0]},
        "llama_cpp_python": llama_cpp.__version__,
    }
    if "speed" in sections:
        result["speed"] = measure_speed(args.repeats, args.max_tokens)
    if "prefix_cache" in sections:
        result["prefix_cache"] = measure_prefix_cache(args.rounds)
    if "prefill_cpu" in sections:
        result["prefill_cpu"] = measure_prefill_cpu([int(n) for n in args.sizes.split(",")], args.repeats)
    result["machine"]["load_avg_1m_end"] = os.getloadavg()[0]
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
