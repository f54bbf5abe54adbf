"""Speed of the embedded model on this machine, through the path OutlinesLM really uses.

Prints ONE JSON object (and writes it with ``--out``). Every variant runs in its own subprocess,
because what it changes is process-wide (which BLAS MLX bound to, the gemv shim, fused decoding
steps, quantized vs float32 weights). For each variant, unconstrained and Outlines-constrained
generations run ``--repeats`` times from the same prompt through
``dspy_outlines.backends.generate`` -- ``mlx_lm.stream_generate`` with the sampler, plus the
Outlines logits processor when constrained: exactly what ``OutlinesLM.forward`` runs -- and the
medians of mlx-lm's own prompt and generation tokens/s are reported.

    python -m benchmarks.model_speed --out benchmarks/results/model_speed.json
    python -m benchmarks.model_speed --quick    # shorter prompt/generation, for smoke tests
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

PROMPT_TEXT = "The history of the city of Paris begins with a small settlement on an island. " * 64
# One DFA state: cheap to index, and it never forces the generation to end early.
CONSTRAINT = r"[A-Za-z ,.']+"

# name -> (environment, --dequantize)
VARIANTS = {
    "default": ({}, 1),
    "no_fused_decode": ({"DSPY_OUTLINES_NO_FUSED_DECODE": "1"}, 1),
    "no_gemv_shim": ({"DSPY_OUTLINES_NO_GEMV_SHIM": "1"}, 1),
    "plain_openblas": ({"DSPY_OUTLINES_NO_GEMV_SHIM": "1", "DSPY_OUTLINES_NO_FUSED_DECODE": "1"}, 1),
    "openblas_1_thread": ({"OPENBLAS_NUM_THREADS": "1"}, 1),
    "quantized": ({}, 0),
}


def _median_ms(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1000, 3)


def _blas() -> dict:
    """512x512 matmul GFLOP/s and one row times the 49152x576 lm_head matrix (decoding's shape)."""
    from dspy_outlines.models.blas import ensure_fast_blas, fast_blas_status

    ensure_fast_blas()
    import mlx.core as mx

    a, b = mx.random.normal((512, 512)), mx.random.normal((512, 512))
    row, head = mx.random.normal((1, 576)), mx.random.normal((49152, 576))
    mx.eval(a, b, row, head)
    matmul_ms = _median_ms(lambda: mx.eval(a @ b), 50)
    return {
        "matmul_512_gflops": round(2 * 512**3 / matmul_ms / 1e6, 1),
        "row_x_lm_head_ms": _median_ms(lambda: mx.eval(row @ head.T), 20),
        "blas": fast_blas_status(),
    }


def _generation(prompt_tokens: int, gen_tokens: int, repeats: int, dequantize: bool) -> dict:
    start = time.perf_counter()
    from dspy_outlines import backends
    from dspy_outlines.lm import OutlinesLM
    from dspy_outlines.models.blas import fast_blas_status
    from dspy_outlines.models.fused import is_fused

    lm = OutlinesLM(dequantize=dequantize)
    load_s = time.perf_counter() - start
    from outlines.types import Regex

    ids = lm.tokenizer.encode(PROMPT_TEXT, add_special_tokens=False)
    while len(ids) < prompt_tokens:
        ids = ids + ids
    ids = ids[:prompt_tokens]
    result = {"load_s": round(load_s, 2), "blas": fast_blas_status(), "fused_decode": is_fused(lm.mlx_model)}
    for name, output_type in (("unconstrained", None), ("constrained", Regex(CONSTRAINT))):
        # warm-up: allocations, compiled traces, the constraint's index
        backends.generate(lm.model, ids[:32], output_type, max_tokens=4)
        runs = [backends.generate(lm.model, ids, output_type, max_tokens=gen_tokens) for _ in range(repeats)]
        result[name] = {
            "prompt_tok_s": round(statistics.median(r.prompt_tps for r in runs), 1),
            "gen_tok_s": round(statistics.median(r.generation_tps for r in runs), 2),
            "gen_tok_s_runs": [round(r.generation_tps, 2) for r in runs],
            "prompt_tok_s_runs": [round(r.prompt_tps, 1) for r in runs],
            "completion_tokens": [r.completion_tokens for r in runs],
        }
    return result


def _run(extra: list[str], env: dict[str, str] | None = None) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.model_speed", *extra]
    env = {**os.environ, **(env or {})}
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1:] or [f"exit {out.returncode}"]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _load() -> float | None:
    return round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="128-token prompt, 32 tokens, 2 repeats")
    parser.add_argument("--prompt-tokens", type=int, default=512)
    parser.add_argument("--gen-tokens", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=5, help="generations per variant (medians reported)")
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"subset of {', '.join(VARIANTS)}")
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    parser.add_argument("--child", choices=["blas", "generation"], help=argparse.SUPPRESS)
    parser.add_argument("--dequantize", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.child == "blas":
        print(json.dumps(_blas()))
        return
    if args.child == "generation":
        speed = _generation(args.prompt_tokens, args.gen_tokens, args.repeats, args.dequantize == 1)
        print(json.dumps(speed))
        return
    if args.quick:
        args.prompt_tokens, args.gen_tokens, args.repeats = 128, 32, 2
    sizes = ["--prompt-tokens", str(args.prompt_tokens), "--gen-tokens", str(args.gen_tokens)]
    result = {
        "command": " ".join(["python -m benchmarks.model_speed", *sys.argv[1:]]),
        "platform": {
            "system": platform.system(),
            "machine": platform.machine(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_avg_1m_start": _load(),
        },
        "prompt_tokens": args.prompt_tokens,
        "gen_tokens": args.gen_tokens,
        "repeats": args.repeats,
        "constraint": CONSTRAINT,
        "blas": {
            "openblas_gemv_shim": _run(["--child", "blas"]),
            "openblas": _run(["--child", "blas"], {"DSPY_OUTLINES_NO_GEMV_SHIM": "1"}),
            "reference_blas": _run(["--child", "blas"], {"DSPY_OUTLINES_NO_OPENBLAS": "1"}),
        },
        "generation": {},
    }
    for name in args.variants.split(","):
        env, dequantize = VARIANTS[name]
        repeats = args.repeats if dequantize else 1  # the quantized path is several times slower
        extra = ["--child", "generation", *sizes, "--repeats", str(repeats)]
        extra += ["--dequantize", str(dequantize)]
        result["generation"][name] = {"env": env, **_run(extra, env)}
    result["platform"]["load_avg_1m_end"] = _load()
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
