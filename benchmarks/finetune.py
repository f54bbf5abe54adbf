"""LoRA fine-tuning of the embedded model, and what its adapter costs at inference on both engines.

Prints ONE JSON object (and writes it with ``--out``):

* ``training``: one row per configuration (rank, layers, batch x max_length), each trained in its own
  subprocess (``resource.getrusage`` peak RSS is per process) on synthetic chat examples of about
  ``max_length`` tokens: ``train_tokens_per_s`` (every token of the batches, prompt and answer, through the
  forward and backward pass, per second of the steps alone: no model load), ``loss_tokens_per_s`` (the answer
  tokens only, what mlx-lm's progress reports), ``peak_rss_mb``, ``adapter_bytes`` (``adapters.safetensors``),
  the first and last losses. ``goal`` compares the best configuration with >= 300 train tokens/s.
* ``inference``: the first configuration's adapter (rank 8, q/v, all 30 blocks: the most LoRA work per token)
  on the MLX engine (merged into the weights) and on llama.cpp as a GGUF LoRA (``adapter_mode="lora"``) and as
  a fused GGUF (``"fused"``): load seconds (the llama.cpp form written first, then loaded again from the
  cache), the GGUF's size, decode tokens/s (one forward pass per token, the same 64 tokens teacher-forced
  after a 127-token prompt) and prompt tokens/s, medians of ``--repeats`` rounds in which every engine runs
  once (interleaved: all see the same load), against no adapter.
* ``token_identical``: 16 short prompts, 32 greedy tokens each: the share of prompts whose outputs on MLX and
  llama.cpp are identical, without an adapter and with the same adapter (both llama.cpp modes).

    python -m benchmarks.finetune --out benchmarks/results/finetune.json     # ~12 minutes on 2 cores
    python -m benchmarks.finetune --quick                                     # two short configurations
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.report import emit

GOAL_TRAIN_TOKENS_PER_S = 300
# (name, rank, layers, batch_size, max_length, answer_logits_only, fast_kernels); "_all_logits": the vocabulary
# projection at every position, as mlx-lm's default loss does (the same loss: tests/dspy_outlines/test_finetune.py);
# "_exact": MLX's own exp, SiLU and attention, and glibc's default malloc (dspy_outlines/models/cpu_kernels.py)
CONFIGS = [
    ("r8_qv_30layers_4x256", 8, 30, 4, 256, True, True),
    ("r8_qv_30layers_4x256_exact", 8, 30, 4, 256, True, False),
    ("r8_qv_30layers_4x256_all_logits", 8, 30, 4, 256, False, False),
    ("r8_qv_last8_4x256", 8, 8, 4, 256, True, True),
    ("r8_qv_last8_4x256_exact", 8, 8, 4, 256, True, False),
    ("r8_qv_last4_4x256", 8, 4, 4, 256, True, True),
    ("r8_qv_last4_4x256_exact", 8, 4, 4, 256, True, False),
    ("r8_qv_30layers_4x128", 8, 30, 4, 128, True, True),
    ("r8_qv_last8_4x512", 8, 8, 4, 512, True, True),  # the shape of benchmarks/train_small_policy.py's examples
    ("r8_qv_last8_4x512_exact", 8, 8, 4, 512, True, False),
]
TOPICS = ["rivers", "mountains", "bridges", "forests", "harbours", "deserts", "castles", "islands"]
PROMPTS = [
    f"In one sentence, what is special about {t} in {p}?"
    for t in ("rivers", "bridges", "castles", "islands")
    for p in ("France", "Japan", "Peru", "Norway")
]


def examples(max_length: int) -> list[dict]:
    """Chat examples of a little under ``max_length`` tokens (SmolLM2 reads ~1.3 tokens a word here)."""
    words = int((max_length - 60) / 1.35)
    out = []
    for i, topic in enumerate(TOPICS * 2):
        text = " ".join(f"{topic} number {i} has a long and winding history of trade and travel".split() * 40)
        question = " ".join(text.split()[:words]) + f"\nSummarize the notes on {topic}."
        answer = f"SUMMARY: the notes describe {topic}, their trade and their travel, in plain words, item {i}."
        out.append({"messages": [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]})
    return out


def train_one(
    name: str,
    rank: int,
    layers: int,
    batch: int,
    max_length: int,
    answer_only: bool,
    fast: bool,
    steps: int,
    out_dir: str,
) -> dict:
    """Runs in a subprocess: one configuration, its numbers."""
    from dspy_outlines.lora import train
    from dspy_outlines.models import embedded_model_path

    data = examples(max_length)
    settings = {"steps": steps, "batch_size": batch, "layers": layers, "rank": rank, "max_length": max_length}
    settings |= {"answer_logits_only": answer_only, "fast_kernels": fast}
    path = train(embedded_model_path(), data, settings | {"seed": 0, "learning_rate": 2e-4, "output_dir": out_dir})
    config = json.loads((path / "adapter_config.json").read_text())
    per_example = config["train_tokens"] / config["examples"]
    seen = steps * batch * per_example  # every example is about as long: each batch holds ~batch * that
    return {
        "config": name,
        "rank": rank,
        "layers": layers,
        "keys": ["q_proj", "v_proj"],
        "batch_size": batch,
        "max_length": max_length,
        "answer_logits_only": answer_only,
        "fast_kernels": fast,
        "tokens_per_example": round(per_example, 1),
        "steps": steps,
        "train_s": config["train_s"],
        "train_tokens_per_s": round(seen / config["train_s"], 1),
        "loss_tokens_per_s": config["loss_tokens_per_s"],
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "adapter_bytes": (path / "adapters.safetensors").stat().st_size,
        "loss_first": config["losses"][0],
        "loss_last": config["losses"][-1],
        "adapter": str(path),
    }


def measure_training(configs: list, steps: int, work: Path) -> list[dict]:
    rows = []
    for name, rank, layers, batch, max_length, answer_only, fast in configs:
        args = json.dumps([name, rank, layers, batch, max_length, answer_only, fast, steps, str(work / name)])
        done = subprocess.run(
            [sys.executable, "-m", "benchmarks.finetune", "--train-one", args],
            capture_output=True,
            text=True,
            check=True,
            timeout=900,
        )
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"{name}: {rows[-1]['train_tokens_per_s']} train tokens/s", file=sys.stderr)
    return rows


def _speed_once(engine, ids: list[int], follow: list[int]) -> tuple[float, float]:
    """(prompt tokens/s, decode tokens/s): the prompt read in one batch, then one forward pass per token of
    ``follow`` (teacher-forced: the same 64 tokens whatever the adapter would answer; a tuned model may stop
    after a few)."""
    if hasattr(engine, "llama"):
        llama = engine.llama
        llama.reset()
        started = time.perf_counter()
        llama.eval(ids)
        middle = time.perf_counter()
        for token in follow:
            llama.eval([token])
    else:
        import mlx.core as mx
        from mlx_lm.models.cache import make_prompt_cache

        model = engine.mlx_model
        cache = make_prompt_cache(model)
        started = time.perf_counter()
        mx.eval(model(mx.array([ids]), cache=cache))
        middle = time.perf_counter()
        for token in follow:
            mx.eval(model(mx.array([[token]]), cache=cache))
    ended = time.perf_counter()
    return len(ids) / (middle - started), len(follow) / (ended - middle)


def _greedy(engine, n_tokens: int) -> list[str]:
    from dspy_outlines.engines import GenerationRequest

    request = GenerationRequest(max_tokens=n_tokens)
    messages = [[{"role": "user", "content": p}] for p in PROMPTS]
    return [engine.generate(engine.encode(engine.render_prompt(m)), request).text for m in messages]


def measure_inference(adapter: str, repeats: int, cache: Path) -> dict:
    """Loads each engine (timed; a throwaway load first, so the first timed one pays no import), then times
    them in interleaved rounds (each round runs every engine once: they all see the same machine load)."""
    from dspy_outlines.engines.llamacpp import LlamaCppEngine
    from dspy_outlines.engines.mlx import MLXEngine

    def timed(build):
        started = time.perf_counter()
        engine = build()
        return engine, round(time.perf_counter() - started, 3)

    options = {"prefix_cache_mb": 0, "persist_prefix": False}
    builders = {
        "llamacpp": lambda extra: LlamaCppEngine(None, **options, **extra),
        "mlx": lambda extra: MLXEngine(None, **options, **extra),
    }
    engines, out = {}, {"llamacpp": {}, "mlx": {}}
    for family, modes in (("llamacpp", ("none", "lora", "fused")), ("mlx", ("none", "adapter"))):
        # a warm-up load, dropped at once (MLX: the adapter's private copy, so the plain model's timed load is
        # not served from the process-wide model cache)
        timed(lambda: builders[family]({} if family == "llamacpp" else {"adapter": adapter}))  # noqa: B023
        gc.collect()
        for mode in modes:
            extra = {} if mode == "none" else {"adapter": adapter}
            if family == "llamacpp" and mode != "none":
                extra |= {"adapter_mode": mode, "adapter_cache": str(cache)}
            row: dict = {}
            if family == "llamacpp" and mode != "none":  # the first load writes the llama.cpp form
                engine, row["first_load_s"] = timed(lambda: builders[family](extra))  # noqa: B023
                del engine
                gc.collect()
                row["gguf_bytes"] = sum(f.stat().st_size for f in cache.glob(f"*-{mode}*.gguf"))
            engines[(family, mode)], row["load_s"] = timed(lambda: builders[family](extra))  # noqa: B023
            out[family][mode] = row
    long_prompt = [{"role": "user", "content": "Tell me about the rivers of France. " * 12}]
    any_engine = engines[("llamacpp", "none")]
    ids = any_engine.encode(any_engine.render_prompt(long_prompt))
    follow = any_engine.encode(" and the river flows on through the old town" * 8)[:64]
    runs: dict = {key: [] for key in engines}
    for _ in range(repeats + 1):  # the first round warms up and is dropped
        for key, engine in engines.items():
            runs[key].append(_speed_once(engine, ids, follow))
    for (family, mode), rows in runs.items():
        row = out[family][mode]
        row["prompt_tok_s"] = round(statistics.median(r[0] for r in rows[1:]), 1)
        row["decode_tok_s"] = round(statistics.median(r[1] for r in rows[1:]), 1)
        row["decode_tok_s_runs"] = [round(r[1], 1) for r in rows[1:]]
    for rows in out.values():
        for mode, row in rows.items():
            if mode != "none":
                row["decode_tok_s_vs_none"] = round(row["decode_tok_s"] / rows["none"]["decode_tok_s"], 3)
    out["prompt_tokens"], out["decoded_tokens"] = len(ids), len(follow)
    texts = {f"{family}_{mode}": _greedy(engine, 32) for (family, mode), engine in engines.items()}

    def same(a: str, b: str) -> float:
        pairs = list(zip(texts[a], texts[b], strict=True))
        return round(sum(x == y for x, y in pairs) / len(pairs), 3)

    identical = {
        "prompts": len(PROMPTS),
        "max_tokens": 32,
        "no_adapter": same("mlx_none", "llamacpp_none"),
        "adapter_lora": same("mlx_adapter", "llamacpp_lora"),
        "adapter_fused": same("mlx_adapter", "llamacpp_fused"),
        "lora_vs_fused_llamacpp": same("llamacpp_lora", "llamacpp_fused"),
        "adapter_changed_mlx_outputs": round(1 - same("mlx_none", "mlx_adapter"), 3),
    }
    return {"inference": out, "token_identical": identical}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out")
    parser.add_argument("--quick", action="store_true", help="two short configurations, 2 steps, 1 repeat")
    parser.add_argument("--steps", type=int, default=None, help="training steps per configuration (default 10)")
    parser.add_argument("--repeats", type=int, default=None, help="speed rounds (default 5)")
    parser.add_argument("--train-one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.train_one:
        print(json.dumps(train_one(*json.loads(args.train_one))))
        return
    configs = [CONFIGS[0], CONFIGS[7]] if args.quick else CONFIGS
    steps = args.steps or (2 if args.quick else 10)
    repeats = args.repeats or (1 if args.quick else 5)
    started, load_before = time.time(), os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="dspy-finetune-bench-") as tmp:
        work = Path(tmp)
        training = measure_training(configs, steps, work)
        inference = measure_inference(training[0]["adapter"], repeats, work / "gguf")
    for row in training:
        del row["adapter"]
    best = max(training, key=lambda r: r["train_tokens_per_s"])
    result = {
        "command": "python -m benchmarks.finetune" + (" --quick" if args.quick else ""),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "load_before": load_before},
        "model": "SmolLM2-135M-Instruct Q4_1 GGUF (embedded); trained as float32 on MLX (CPU)",
        "training": training,
        "goal": {
            "train_tokens_per_s_goal": GOAL_TRAIN_TOKENS_PER_S,
            "best_config": best["config"],
            "best_train_tokens_per_s": best["train_tokens_per_s"],
            "met": best["train_tokens_per_s"] >= GOAL_TRAIN_TOKENS_PER_S,
        },
        **inference,
        "load_after": os.getloadavg(),
        "wall_s": round(time.time() - started, 1),
    }
    emit(result, args.out)


if __name__ == "__main__":
    main()
