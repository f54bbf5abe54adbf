"""What a Tier-3 constraint costs, per constraint backend: constrained against unconstrained generation of the
same prompt and token count, the processor build on first and second use, and the backend comparison
(``python -m benchmarks.tiers --backends``) that chose :data:`dspy_outlines.processors.DEFAULT_BACKEND`."""

from __future__ import annotations

import contextlib
import os
import platform
import statistics
import time
from typing import Any

import pydantic

from benchmarks.tier_cases import signatures


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


class Generation(pydantic.BaseModel):
    """One timed generation: tokens, wall seconds, prompt and generation speeds (tokens/s)."""

    completion_tokens: int
    seconds: float
    prompt_tps: float
    generation_tps: float


def generate(lm: Any, prompt: str, output_type: Any, max_tokens: int, backend: str | None = None) -> Generation:
    """One greedy generation from an already-templated ``prompt`` on ``lm``'s engine (the one generation loop),
    constrained by ``output_type`` with the constraint backend ``backend`` (``None``: the engine's own)."""
    from dspy_outlines.engines import GenerationRequest

    engine = lm.engine
    prefix_cache = getattr(engine, "prefix_cache", None)
    if prefix_cache is not None:  # every generation prefills its whole prompt, as in the first use of a prompt
        prefix_cache.clear()
    own = engine.backend
    engine.backend = backend or own  # the engine reads it per generation; restored below
    try:
        ids = engine.encode(prompt)
        started = time.perf_counter()
        done = engine.generate(ids, GenerationRequest(max_tokens=max_tokens, constraint=output_type))
        seconds = time.perf_counter() - started
    finally:
        engine.backend = own
    prefill, decode = done.timings.get("prefill_s", 0.0), done.timings.get("decode_s", 0.0)
    return Generation(
        completion_tokens=done.completion_tokens,
        seconds=seconds,
        prompt_tps=len(ids) / prefill if prefill else 0.0,
        generation_tps=done.completion_tokens / decode if decode else 0.0,
    )


def constrained_vs_unconstrained(
    lm: Any, prompt: str, output_type: Any, backend: str, max_tokens: int
) -> dict[str, Any]:
    """Time ``prompt`` constrained, then unconstrained with the same token count."""
    constrained = generate(lm, prompt, output_type, max_tokens, backend)
    budget = max(constrained.completion_tokens, 1)
    free = generate(lm, prompt, None, budget)
    per_token = (constrained.seconds / budget) / (free.seconds / max(free.completion_tokens, 1))
    return {
        "tokens": budget,
        "constrained_s": constrained.seconds,
        "unconstrained_s": free.seconds,
        "ratio": constrained.seconds / free.seconds,
        "ratio_per_token": per_token,
        "prompt_tps": free.prompt_tps,
        "generation_tps": free.generation_tps,
    }


def build_times(lm: Any, output_type: Any, backend: str) -> dict[str, float]:
    """First (index/grammar built) and second (cached) use of a constraint, in milliseconds."""
    from dspy_outlines.processors import _backend_object, get_logits_processor

    _backend_object(lm.outlines_model, backend)  # the per-tokenizer vocabulary is built once per model, not per schema
    times = []
    for _ in range(2):
        started = time.perf_counter()
        get_logits_processor(lm.outlines_model, output_type, backend)
        times.append((time.perf_counter() - started) * 1000)
    return {"first_ms": times[0], "second_ms": times[1]}


def _first_step_ms(lm: Any, output_type: Any, backend: str, prompt_ids: list[int]) -> float:
    """A cached processor's per-generation setup plus its first token mask, in milliseconds.

    llguidance compiles its grammar here (an ``LLMatcher`` per generation), outlines_core makes a Guide
    over the cached index: this, not the cache lookup, is what a second use of a constraint costs.
    """
    import mlx.core as mx

    from dspy_outlines.cpu_bitmask import install_cpu_bitmask
    from dspy_outlines.processors import get_logits_processor

    install_cpu_bitmask()
    vocab = lm.mlx_model.args.vocab_size if hasattr(lm.mlx_model, "args") else len(lm.tokenizer.vocabulary)
    ids, logits = mx.array(prompt_ids), mx.zeros((1, vocab))
    started = time.perf_counter()
    processor = get_logits_processor(lm.outlines_model, output_type, backend)
    mx.eval(processor(ids, logits))
    return (time.perf_counter() - started) * 1000


def backend_choice(n_samples: int = 5, n_generations: int = 3, max_tokens: int = 16) -> dict[str, Any]:
    """Compare the torch-free backends on the six signatures, after a warm-up round.

    Per signature and backend: constraint build on first use (fresh cache; the per-tokenizer
    vocabulary is built beforehand) and second use (cache hit), ``n_samples`` each; per-call setup
    plus first token mask of a cached constraint; and constrained generation time of the signature's
    Tier-3 prompt and the time of each token mask inside it, ``n_generations`` each, backends interleaved in
    alternating order so a busy machine hurts both alike. Medians are reported.
    """
    from dspy_outlines import OutlinesAdapter, OutlinesLM
    from dspy_outlines import processors as cache
    from dspy_outlines.constraints import build_constraint
    from dspy_outlines.processors import available_backends

    lm = OutlinesLM(engine="mlx", max_tokens=max_tokens)  # MLX internals below
    backends = [b for b in available_backends() if b != "xgrammar"]
    cases = {}
    for name, (signature, values) in signatures().items():
        output_type = build_constraint(signature).output_type
        inputs = {next(iter(signature.input_fields)): values[0]}
        with contextlib.suppress(Exception):  # only the Tier-3 prompt is wanted; 1 token rarely parses
            OutlinesAdapter(tiers=("tier3",))(lm, {"max_tokens": 1}, signature, [], inputs)
        prompt = lm.render_prompt(lm.history[-1]["messages"])
        cases[name] = (output_type, prompt, lm.tokenizer.encode(prompt, add_special_tokens=False))
    rows: dict[str, Any] = {}
    for rnd in range(n_samples + 1):  # round 0 is the warm-up, not recorded
        for name, (output_type, _, ids) in cases.items():
            for backend in backends if rnd % 2 else backends[::-1]:
                with cache._lock:  # drop the processors, keep the per-tokenizer vocabularies
                    cache._processors.clear()
                first = build_times(lm, output_type, backend)
                step = _first_step_ms(lm, output_type, backend, ids)
                if rnd:
                    row = rows.setdefault(name, {}).setdefault(
                        backend, {"first_ms": [], "second_ms": [], "call_setup_ms": [], "gen_s": []}
                    )
                    row["first_ms"].append(first["first_ms"])
                    row["second_ms"].append(first["second_ms"])
                    row["call_setup_ms"].append(step)
    steps: list[float] = []
    real_get = cache.get_logits_processor

    def timed_processor(*args: Any, **kwargs: Any) -> Any:  # times each token mask (the backend's own work)
        import mlx.core as mx

        processor = real_get(*args, **kwargs)

        def call(ids: Any, logits: Any) -> Any:
            mx.eval(logits)  # the model's forward pass is not the mask's cost
            started = time.perf_counter()
            out = processor(ids, logits)
            mx.eval(out)
            steps.append(time.perf_counter() - started)
            return out

        return call

    cache.get_logits_processor = timed_processor
    try:
        for rnd in range(n_generations + 1):
            for name, (output_type, prompt, _) in cases.items():
                for backend in backends if rnd % 2 else backends[::-1]:
                    steps.clear()
                    gen = generate(lm, prompt, output_type, max_tokens, backend)
                    if rnd:
                        row = rows[name][backend]
                        row["gen_s"].append(gen.seconds)
                        row["tokens"] = [*row.get("tokens", []), gen.completion_tokens]
                        row["mask_ms_per_token"] = [
                            *row.get("mask_ms_per_token", []),
                            1000 * sum(steps) / max(len(steps), 1),
                        ]
    finally:
        cache.get_logits_processor = real_get
    table = {name: {b: {k: median(v) for k, v in r.items()} for b, r in per.items()} for name, per in rows.items()}
    summary = {
        b: {
            k: median([table[n][b][k] for n in table])
            for k in ("first_ms", "second_ms", "call_setup_ms", "gen_s", "mask_ms_per_token")
        }
        | {
            "second_ms_max": max(table[n][b]["second_ms"] for n in table),
            "gen_s_total": sum(table[n][b]["gen_s"] for n in table),
        }
        for b in backends
    }
    return {
        "signatures": table,
        "summary": summary,
        "setup": {
            "model": lm.model_name,
            "samples": n_samples,
            "generations": n_generations,
            "max_tokens": max_tokens,
            "backends": backends,
            "machine": f"{platform.machine()} {platform.system()}, {os.cpu_count()} cores",
        },
    }
