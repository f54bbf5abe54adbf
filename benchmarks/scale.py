"""Scaling out (issue 13): threads vs Ray for batches, a projection to many workers, Tier 3 via a server.

1. ``batch``: 200 scripted RLM tasks (one action step each, the LM sleeps 200 ms per call, a sandbox per
   task) through ``dspy_rlm.scale.run_batch`` on threads and on a local Ray instance, same concurrency:
   items/s, the per-item overhead (see below), driver memory (RSS peak; Ray's own processes apart).
2. ``ray_dispatch``: Ray's own cost per task: 200 no-op items (a program without an RLM), one at a time;
   (wall time - time inside the tasks) / items. This is the figure held to <= 50 ms.
3. ``projection``: tasks/hour at 8 / 64 / 512 workers from the measured per-item costs, on paper, with the
   assumptions written into the JSON, and the worker count at which the LM server becomes the limit.
4. ``tier3``: Tier 3 (constrained) calls of the embedded model through llama-cpp-python's server on loopback
   vs in-process ``OutlinesLM(engine="llamacpp")``: success % (parsed and valid) and latency per call.

Run (a few minutes on 2 cores):
    python -m benchmarks.scale --out benchmarks/results/scale.json      # prints one JSON object
    python -m benchmarks.scale --items 40 --skip tier3                    # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import dspy

from dspy_outlines.replies import chat_reply

DELAY_S = 0.2
ROOT = Path(__file__).resolve().parents[1]


class SleepSubmitLM(dspy.BaseLM):
    """Sleeps ``delay`` per call, then answers the action step with ``SUBMIT(answer=question[::-1])``."""

    def __init__(self, delay: float = DELAY_S):
        super().__init__("openai/sleep-submit", cache=False)
        self.delay = delay

    def forward(self, prompt=None, messages=None, **kwargs):
        time.sleep(self.delay)
        text = (
            "[[ ## reasoning ## ]]\nsubmit\n\n[[ ## code ## ]]\n```python\nSUBMIT(answer=question[::-1])\n```"
            "\n\n[[ ## completed ## ]]"
        )
        return chat_reply(self.model, text, prompt_tokens=100, completion_tokens=20, cost=0.0)


class NoOp(dspy.Module):
    """A program without an RLM or an LM call: what remains is the engine's own cost."""

    def forward(self, question: str) -> dspy.Prediction:
        return dspy.Prediction(answer=question)


class _RSSPeak:
    """Samples this process's RSS every 20 ms."""

    def __init__(self) -> None:
        import psutil

        self.proc, self.peak, self._stop = psutil.Process(), 0, threading.Event()
        self.start = self.proc.memory_info().rss
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.proc.memory_info().rss)
            self._stop.wait(0.02)

    def __enter__(self) -> _RSSPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()


def _batch(engine: str, program: Any, n: int, concurrency: int, **kwargs: Any) -> dict[str, Any]:
    from dspy_rlm.scale import run_batch

    examples = [{"question": f"q{i}"} for i in range(n)]
    with _RSSPeak() as rss:
        started = time.perf_counter()
        batch = run_batch(
            program, examples, engine=engine, max_concurrency=concurrency, progress=False, lm=SleepSubmitLM(), **kwargs
        )
        elapsed = time.perf_counter() - started
    seconds = [item.seconds for item in batch]
    expected = [f"q{i}" if isinstance(program, NoOp) else f"q{i}"[::-1] for i in range(n)]
    assert [item.outputs.get("answer") for item in batch] == expected, batch.counts
    return {
        "items": n,
        "concurrency": concurrency,
        "elapsed_s": round(elapsed, 3),
        "items_per_s": round(n / elapsed, 2),
        "counts": batch.counts,
        "item_s_median": round(statistics.median(seconds), 4),
        # slot time not spent inside items: dispatch, result transfer, ramp-up and the tail of the batch
        "overhead_ms_per_item": round((concurrency * elapsed - sum(seconds)) / n * 1000, 1),
        "driver_rss_mb": {
            "start": round(rss.start / 2**20, 1),
            "peak": round(rss.peak / 2**20, 1),
            "peak_over_start": round((rss.peak - rss.start) / 2**20, 1),
        },
        "workers": len({item.worker for item in batch}),
    }


def _ray_processes_rss_mb() -> float:
    import psutil

    total = 0
    for child in psutil.Process().children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.Error:
            pass
    return round(total / 2**20, 1)


def _warm(engine: str, program: Any, concurrency: int, **kwargs: Any) -> dict[str, Any]:
    """Run small batches until ``concurrency`` workers have served items (Ray starts its workers lazily)."""
    started, rounds, seen = time.perf_counter(), 0, 0
    while rounds < 4:
        rounds += 1
        seen = _batch(engine, program, 2 * concurrency, concurrency, **kwargs)["workers"]
        if engine == "threads" or seen >= concurrency:
            break
    return {"s": round(time.perf_counter() - started, 2), "rounds": rounds, "workers_seen": seen}


def bench_batches(n: int, concurrency: int) -> dict[str, Any]:
    import ray

    from dspy_rlm import RLM

    rlm = RLM("question -> answer", max_iters=3)
    out: dict[str, Any] = {"threads_warmup": _warm("threads", rlm, concurrency)}
    out["threads"] = _batch("threads", rlm, n, concurrency)
    started = time.perf_counter()
    # Items mostly wait on the LM: `concurrency` logical CPUs on this 2-core machine, one per task. (With
    # fractional task CPUs instead, Ray keeps only num_cpus idle workers and kills the rest between batches.)
    ray.init(
        num_cpus=concurrency,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}},
    )
    out["ray_init_s"] = round(time.perf_counter() - started, 2)
    options: dict[str, Any] = {}
    try:
        out["ray_warmup"] = _warm("ray", rlm, concurrency, **options)
        out["ray"] = _batch("ray", rlm, n, concurrency, **options)
        out["ray"]["ray_processes_rss_mb"] = _ray_processes_rss_mb()
        serial = _batch("ray", NoOp(), n, 1, **options)
        pipelined = _batch("ray", NoOp(), n, concurrency, **options)
        out["ray_dispatch"] = {
            "items": n,
            "note": "a no-op program (no RLM, no LM): what is left is Ray's and run_batch's own cost",
            "serial_ms_per_item": serial["overhead_ms_per_item"],
            "serial_what": "one task at a time: (wall - time inside tasks) / items = a task's added latency",
            "pipelined_ms_per_item": round(pipelined["elapsed_s"] / n * 1000, 1),
            "pipelined_what": f"{concurrency} in flight: wall / items = the driver's cost per item in a batch",
        }
    finally:
        ray.shutdown()
    out["ray_vs_threads_ms_per_item"] = round((out["ray"]["elapsed_s"] - out["threads"]["elapsed_s"]) / n * 1000, 1)
    return out


def projection(batches: dict[str, Any], tier3: dict[str, Any] | None) -> dict[str, Any]:
    item_s = batches["ray"]["item_s_median"]
    overhead_s = batches["ray_dispatch"]["serial_ms_per_item"] / 1000
    driver_s = batches["ray_dispatch"]["pipelined_ms_per_item"] / 1000
    assumptions = [
        "one item per worker slot (1 CPU each); items independent; the measured item time holds on every node",
        f"item = 1 LM call of {DELAY_S * 1000:.0f} ms + sandbox and loop (measured median item {item_s} s on a worker)",
        f"each item's slot also pays Ray's per-task latency, {overhead_s * 1000:.1f} ms (measured, no-op tasks one "
        "at a time)",
        f"one driver submits and collects every task at {driver_s * 1000:.1f} ms each (measured, no-op tasks "
        "pipelined on this 2-core machine, driver and workers sharing it): the driver limit",
        "LM server: latency stays flat until its capacity; capacity stated per scenario (an assumption)",
        "no failures or retries; the object store moves kilobytes per item (traces, outputs)",
    ]
    scenarios = {
        "scripted_200ms_lm": {
            "calls_per_item": 1,
            "call_s": DELAY_S,
            "item_s": item_s,
            "server_capacity_calls_per_s": 64 / DELAY_S,
            "server": "assumed: one vLLM-class server, 64 sequences at once at 200 ms",
        }
    }
    if tier3 is not None:
        call_s = tier3["server"]["latency_s_median"]
        scenarios["embedded_model_one_llamacpp_server"] = {
            "calls_per_item": 2.17,
            "call_s": call_s,
            "item_s": round(2.17 * call_s + item_s - DELAY_S, 3),
            "server_capacity_calls_per_s": round(1 / call_s, 3),
            "server": "measured: llama-cpp-python's server, one request at a time "
            "(2.17 calls/item from small_model.json)",
        }
    out: dict[str, Any] = {"assumptions": assumptions, "scenarios": {}}
    for name, sc in scenarios.items():
        per_worker = 3600 / (sc["item_s"] + overhead_s)
        lm_limit = sc["server_capacity_calls_per_s"] / sc["calls_per_item"] * 3600
        driver_limit = 3600 / driver_s
        rows = {}
        for workers in (8, 64, 512):
            ideal = workers * per_worker
            rows[str(workers)] = {
                "tasks_per_hour": round(min(ideal, lm_limit, driver_limit)),
                "limit": "workers"
                if ideal <= min(lm_limit, driver_limit)
                else "lm_server"
                if lm_limit <= driver_limit
                else "driver",
            }
        out["scenarios"][name] = {
            **sc,
            "tasks_per_hour_per_worker": round(per_worker),
            "lm_server_limit_tasks_per_hour": round(lm_limit),
            "driver_limit_tasks_per_hour": round(driver_limit),
            "workers_at_which_lm_server_limits": round(lm_limit / per_worker, 1),
            "workers": rows,
        }
    return out


def _tier3_cases() -> list[tuple[Any, dict[str, str], Any]]:
    import re
    from typing import Annotated

    from outlines.types import Regex

    code = dspy.Signature({"question": dspy.InputField(), "code": dspy.OutputField()}).with_updated_fields(
        "code", type_=Annotated[str, Regex(r"[A-Z]{3}-\d{3}")]
    )
    q = "The ticket code is ABC-123. Paris has 2 million people. What a great movie!"
    return [
        (
            dspy.Signature("review -> sentiment: Literal['positive', 'negative']"),
            {"review": q},
            lambda o: o.sentiment in ("positive", "negative"),
        ),
        (dspy.Signature("question -> answer: int"), {"question": q}, lambda o: isinstance(o.answer, int)),
        (code, {"question": q}, lambda o: re.fullmatch(r"[A-Z]{3}-\d{3}", o.code) is not None),
        (dspy.Signature("question -> answer"), {"question": q}, lambda o: bool(o.answer.strip())),
        (
            dspy.Signature("question -> answer: str, confidence: float"),
            {"question": q},
            lambda o: isinstance(o.confidence, float),
        ),
    ]


def _tier3_run(lm: Any, repeats: int) -> dict[str, Any]:
    from dspy_outlines import OutlinesAdapter

    adapter, latencies, ok = OutlinesAdapter(tiers=("tier3",)), [], 0
    with dspy.context(lm=lm, adapter=adapter):
        for _ in range(repeats):
            for signature, inputs, valid in _tier3_cases():
                started = time.perf_counter()
                try:
                    ok += bool(valid(dspy.Predict(signature)(**inputs)))
                except Exception:  # noqa: BLE001 - a failed call counts as a failure
                    pass
                latencies.append(time.perf_counter() - started)
    calls = len(latencies)
    return {
        "calls": calls,
        "success_pct": round(100 * ok / calls, 1),
        "latency_s_median": round(statistics.median(latencies), 3),
        "latency_s_max": round(max(latencies), 3),
    }


def bench_tier3(repeats: int) -> dict[str, Any]:
    import socket
    import subprocess
    import urllib.request

    from dspy_outlines import OutlinesLM
    from dspy_outlines.models import embedded_model_path
    from dspy_outlines.serving import ServerLM

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(embedded_model_path()),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "4096",
            "--n_threads",
            "1",
            "--verbose",
            "False",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}/v1"
        for _ in range(360):
            try:
                urllib.request.urlopen(f"{base}/models", timeout=2).close()
                break
            except OSError:
                time.sleep(0.5)
        server_lm = ServerLM(
            "smollm2", api_base=base, server="llama-cpp-python", max_tokens=32, temperature=0.0, cache=False
        )
        server = _tier3_run(server_lm, repeats)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    local = _tier3_run(OutlinesLM(engine="llamacpp", max_tokens=32, engine_options={"n_threads": 1}), repeats)
    return {
        "server": {**server, "what": "ServerLM(server='llama-cpp-python') -> python -m llama_cpp.server, loopback"},
        "in_process": {**local, "what": "OutlinesLM(engine='llamacpp'), Outlines logits processor"},
        "signatures": ["Literal choice", "int", "Regex field", "free str", "str + float (JSON object)"],
        "settings": "max_tokens=32, greedy, n_threads=1 on both; the in-process engine reuses its prefix cache "
        "between calls, the server runs without one (llama_cpp.server's --cache is off by default)",
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--tier3-repeats", type=int, default=2, help="times each of the 5 signatures is called")
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: tier3")
    parser.add_argument("--out", help="also write the JSON to this file")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", DeprecationWarning)  # dspy 3.4 warns about BaseLM.forward subclasses
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    result: dict[str, Any] = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_avg_1m": round(os.getloadavg()[0], 2),
            "lm_delay_s": DELAY_S,
        }
    }
    result["batch"] = bench_batches(args.items, args.concurrency)
    dispatch = result["batch"]["ray_dispatch"]
    result["ray_overhead_goal"] = {
        "goal_ms": 50,
        "serial_ms": dispatch["serial_ms_per_item"],
        "pipelined_ms": dispatch["pipelined_ms_per_item"],
        "met_serial": dispatch["serial_ms_per_item"] <= 50,
        "met_pipelined": dispatch["pipelined_ms_per_item"] <= 50,
    }
    tier3 = None if "tier3" in args.skip else bench_tier3(args.tier3_repeats)
    if tier3 is not None:
        result["tier3"] = tier3
    result["projection"] = projection(result["batch"], tier3)
    result["machine"]["load_avg_1m_at_end"] = round(os.getloadavg()[0], 2)
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return result


if __name__ == "__main__":
    main()
