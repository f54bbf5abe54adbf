"""Speed of the embedded model on this machine: load, prompt and generation tokens/s, BLAS GFLOP/s.

Prints ONE JSON object. Each measurement that depends on process-wide state (which BLAS MLX bound
to, OpenBLAS thread count, quantized vs float32 weights) runs in its own subprocess.

    python -m benchmarks.model_speed            # full run (a few minutes on 2 cores)
    python -m benchmarks.model_speed --quick    # shorter prompt/generation, for smoke tests
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

PROMPT_TEXT = "The history of the city of Paris begins with a small settlement on an island. " * 64


def _gflops(size: int = 512, repeats: int = 50) -> float:
    import mlx.core as mx

    a, b = mx.random.normal((size, size)), mx.random.normal((size, size))
    mx.eval(a @ b)
    start = time.perf_counter()
    for _ in range(repeats):
        mx.eval(a @ b)
    return 2 * size**3 * repeats / (time.perf_counter() - start) / 1e9


def _compile_mlps(model) -> None:
    """Fuse each MLP (gate, up, SwiGLU, down) into one compiled graph."""
    import mlx.core as mx

    for layer in model.layers:
        layer.mlp = _Compiled(layer.mlp, mx.compile(layer.mlp.__call__))


class _Compiled:
    """Stand-in for an MLP module that calls its compiled forward (kept only for this benchmark)."""

    def __init__(self, module, fn) -> None:
        self.module, self.fn = module, fn

    def __call__(self, x):
        return self.fn(x)


def _model_speed(prompt_tokens: int, gen_tokens: int, dequantize: bool, compile_: bool) -> dict:
    start = time.perf_counter()
    from dspy_outlines.models import load_model

    model, tokenizer = load_model(dequantize=dequantize)
    load_s = time.perf_counter() - start
    import mlx.core as mx
    from mlx_lm.generate import generate_step
    from mlx_lm.models.cache import make_prompt_cache

    if compile_:
        _compile_mlps(model)
    ids = tokenizer.encode(PROMPT_TEXT, add_special_tokens=False)
    while len(ids) < prompt_tokens:
        ids = ids + ids
    prompt = mx.array(ids[:prompt_tokens])

    def prefill() -> float:
        cache = make_prompt_cache(model)
        t = time.perf_counter()
        mx.eval(model(prompt[None], cache=cache))
        return prompt_tokens / (time.perf_counter() - t)

    def generate() -> float:
        steps = generate_step(prompt[:32], model, max_tokens=gen_tokens + 1)
        next(steps)  # prefill + first token excluded
        t = time.perf_counter()
        n = sum(1 for _ in steps)
        return n / (time.perf_counter() - t)

    prefill()  # warm-up (allocations, compilation)
    prompt_tps = max(prefill() for _ in range(2))
    gen_tps = max(generate() for _ in range(2))
    return {"load_s": round(load_s, 2), "prompt_tok_s": round(prompt_tps, 1), "gen_tok_s": round(gen_tps, 2)}


def _child(args: argparse.Namespace) -> dict:
    if args.child == "gflops":
        from dspy_outlines.models.blas import ensure_fast_blas, fast_blas_status

        ensure_fast_blas()
        return {"gflops": round(_gflops(), 1), "blas": fast_blas_status()}
    return _model_speed(args.prompt_tokens, args.gen_tokens, args.dequantize == 1, args.compile == 1)


def _run(extra: list[str], env: dict[str, str] | None = None) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.model_speed", *extra]
    out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **(env or {})}, check=False)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1:] or [f"exit {out.returncode}"]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="128-token prompt, 32 generated tokens")
    parser.add_argument("--prompt-tokens", type=int, default=512)
    parser.add_argument("--gen-tokens", type=int, default=128)
    parser.add_argument("--child", choices=["gflops", "model"], help=argparse.SUPPRESS)
    parser.add_argument("--dequantize", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--compile", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.child:
        print(json.dumps(_child(args)))
        return
    if args.quick:
        args.prompt_tokens, args.gen_tokens = 128, 32
    sizes = ["--prompt-tokens", str(args.prompt_tokens), "--gen-tokens", str(args.gen_tokens)]
    model = ["--child", "model", *sizes]
    result = {
        "platform": {
            "system": platform.system(),
            "machine": platform.machine(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_avg_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        },
        "prompt_tokens": args.prompt_tokens,
        "gen_tokens": args.gen_tokens,
        "matmul_512_gflops": {
            "openblas": _run(["--child", "gflops"]),
            "reference_blas": _run(["--child", "gflops"], {"DSPY_OUTLINES_NO_OPENBLAS": "1"}),
        },
        "float32_openblas": _run([*model, "--dequantize", "1"]),
        "float32_openblas_1_thread": _run([*model, "--dequantize", "1"], {"OPENBLAS_NUM_THREADS": "1"}),
        "float32_openblas_compiled_mlp": _run([*model, "--dequantize", "1", "--compile", "1"]),
        "quantized": _run([*model, "--dequantize", "0"]),
    }
    result["platform"]["load_avg_1m_end"] = round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
