"""Speed of the REPL helpers on a 100 MB text (issue 5), in-process and inside the sandbox worker.

Targets: ``search`` (literal and regex) and ``count_matches`` at >= 200 MB/s, ``peek`` <= 1 ms, and
``find_relevant`` by BM25 over 10,000 chunks (index build + query) <= 2 s. The text is generated from a
fixed seed; MB here means 10**6 bytes (the text is ASCII, so one char is one byte).

``root_prompt``: the first action prompt (all messages, as DSPy's ChatAdapter formats them) that
``RLM("a0, ..., a9, query -> answer")`` sends for 10 str variables totalling 1 GiB (each its own real
~102 MB string, built as benchmarks/repl_overhead.py builds its context), with and without ``auto_chunk``;
target <= 3,000 tokens (estimated as chars / 4).

Run:
    python benchmarks/helpers.py                # 100 MB, in-process and in SubprocessREPL
    python benchmarks/helpers.py --mb 10 --repeat 1 --no-sandbox --root-prompt-mb 100

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import string
import sys
import time

NEEDLE = "QUOKKA-4711"
RELEVANT = "The zebra quokka migration crossed the savanna at dawn; rangers counted every quokka and zebra in the herd."
QUERY = "quokka zebra migration"

# The measurement code is the same string in both places: exec'd here, or run by the sandbox worker.
MEASURE = r"""
import json as _json, time as _time
def _best(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = _time.perf_counter(); value = fn(); best = min(best, _time.perf_counter() - t0)
    return best, value
_mb = len(text) / 1e6
_out = {}
for _name, _fn in [
    ("search_literal", lambda: search(text, NEEDLE)),
    ("search_regex", lambda: search(text, r"QUOKKA-\d{4}", regex=True)),
    ("search_ignore_case", lambda: search(text, "quokka-4711", ignore_case=True)),
    ("count_matches_literal", lambda: count_matches(text, COMMON)),
    ("count_matches_regex", lambda: count_matches(text, COMMON_RX, regex=True)),
    ("count_matches_regex_no_literal_prefix", lambda: count_matches(text, r"[A-Z]{3,}-\d+", regex=True)),
]:
    _t, _v = _best(_fn, REPEAT)
    _out[_name] = {"s": round(_t, 4), "mb_per_s": round(_mb / _t, 1),
                   "result": _v if isinstance(_v, int) else len(_v)}
_mid = len(text) // 2
_t0 = _time.perf_counter()
for _ in range(1000):
    peek(text, _mid, _mid + 1000)
_out["peek_1000_chars_mid_ms"] = round((_time.perf_counter() - _t0), 6)  # 1000 calls: total s == ms/call
_fresh = make_helpers()["find_relevant"]
_t0 = _time.perf_counter(); _r = _fresh(small, QUERY, top_k=5, method="bm25"); _build = _time.perf_counter() - _t0
_t0 = _time.perf_counter(); _fresh(small, "savanna rangers herd", top_k=5, method="bm25")
_again = _time.perf_counter() - _t0
_out["find_relevant_bm25"] = {"chunks": N_CHUNKS, "build_and_query_s": round(_build, 3),
                              "second_query_cached_s": round(_again, 3), "method": _r[0]["method"],
                              "top1_is_planted_chunk": _r[0]["start"] <= PLANTED < _r[0]["end"]}
print("BENCH" + _json.dumps(_out))
"""


def make_text(n_chars: int, seed: int = 0) -> str:
    """Paragraphs of random lowercase words (5,000-word vocabulary), lines of ~12 words."""
    rng = random.Random(seed)
    vocab = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 10))) for _ in range(5000)]
    paragraphs = []
    for _ in range(2000):
        words = rng.choices(vocab, k=rng.randint(40, 200))
        lines = [" ".join(words[i : i + 12]) for i in range(0, len(words), 12)]
        paragraphs.append("\n".join(lines))
    pieces, total = [], 0
    while total < n_chars:
        piece = rng.choice(paragraphs)
        pieces.append(piece)
        total += len(piece) + 2
    return "\n\n".join(pieces)[:n_chars]


def plant(text: str, at: int, what: str) -> str:
    at = text.find("\n\n", at) + 2  # at a paragraph start, so the planted words stay whole
    return text[:at] + what + "\n\n" + text[at + len(what) + 2 :]


def build_inputs(mb: float) -> dict:
    text = plant(make_text(int(mb * 1e6), seed=0), int(mb * 1e6 * 0.99), f"alert {NEEDLE} alert")
    small = make_text(10_000_000, seed=1)
    planted = int(len(small) * 0.73)
    small = plant(small, planted, RELEVANT)
    planted = small.find(RELEVANT)
    common = max(set(text[:200_000].split()), key=lambda w: (len(w) >= 5, text[:200_000].count(w)))
    return {"text": text, "small": small, "PLANTED": planted, "COMMON": common, "COMMON_RX": rf"\b{common}\b"}


def run_in_process(inputs: dict, repeat: int) -> dict:
    from dspy_rlm.library.helpers import make_helpers
    from dspy_rlm.library.textkit import _chunk_spans

    namespace = {
        **inputs,
        **make_helpers(),
        "make_helpers": make_helpers,
        "NEEDLE": NEEDLE,
        "QUERY": QUERY,
        "REPEAT": repeat,
        "N_CHUNKS": len(_chunk_spans(inputs["small"], 1000, 0)),
        "print": _capture,
    }
    exec(compile(MEASURE, "<measure>", "exec"), namespace)
    return _captured.pop()


_captured: list = []


def _capture(line: str) -> None:
    _captured.append(json.loads(line[len("BENCH") :]))


def run_in_sandbox(inputs: dict, repeat: int) -> dict:
    from dspy_rlm.library.textkit import _chunk_spans
    from dspy_rlm.sandbox.backend import SubprocessREPL

    consts = {
        "NEEDLE": NEEDLE,
        "QUERY": QUERY,
        "REPEAT": repeat,
        "N_CHUNKS": len(_chunk_spans(inputs["small"], 1000, 0)),
    }
    setup = "".join(f"{k} = {v!r}\n" for k, v in consts.items())
    setup += "from dspy_rlm.library.helpers import make_helpers\n"
    repl = SubprocessREPL(output_fields=["answer"], timeout_s=300, memory_mb=8192)
    try:
        repl.load_inputs(inputs)
        t0 = time.perf_counter()
        result = repl.run(setup + MEASURE)
        wall = time.perf_counter() - t0
    finally:
        repl.shutdown()
    if result.error is not None:
        raise RuntimeError(result.error.format_for_model())
    line = next(x for x in result.stdout.splitlines() if x.startswith("BENCH"))
    out = json.loads(line[len("BENCH") :])
    out["block_wall_s"] = round(wall, 2)
    out["network_isolation"] = repl.network_isolation
    return out


def root_prompt(total_mb: float = 1024.0, n_vars: int = 10, auto_chunk: bool = False) -> dict:
    """Size of the first action prompt of an RLM over ``n_vars`` str inputs of ``total_mb`` MiB in all.

    The same measurement as ``repl_overhead.root_prompt_chars`` (a scripted LM that SUBMITs at once; the
    prompt read back from its history), with many variables instead of one.
    """
    import dspy
    from dspy.utils import DummyLM

    from benchmarks.repl_overhead import MB as MIB
    from benchmarks.repl_overhead import _context
    from dspy_rlm import RLM

    names = [f"a{i}" for i in range(n_vars)]
    inputs = {name: f"[{name}]\n" + _context(total_mb / n_vars) for name in names}  # distinct real strings
    lm = DummyLM([{"reasoning": "r", "code": "SUBMIT(answer='x')"}])
    rlm = RLM(", ".join(names) + ", query -> answer", max_iters=2, auto_chunk=auto_chunk)
    t0 = time.perf_counter()
    with dspy.context(lm=lm):
        pred = rlm(**inputs, query="How many invoices are overdue?")
    wall = time.perf_counter() - t0
    messages = lm.history[0]["messages"]
    chars = sum(len(str(m["content"])) for m in messages)
    return {
        "variables": n_vars,
        "total_input_mib": round(sum(map(len, inputs.values())) / MIB, 1),
        "auto_chunk": auto_chunk,
        "messages": len(messages),
        "chars": chars,
        "tokens_est": chars // 4,
        "le_3000_tokens": chars // 4 <= 3000,
        "run_s": round(wall, 2),
        "result": pred.result.kind,
    }


def verdict(m: dict) -> dict:
    return {
        "search_literal_ge_200MBps": m["search_literal"]["mb_per_s"] >= 200,
        "search_regex_ge_200MBps": m["search_regex"]["mb_per_s"] >= 200,
        "count_matches_literal_ge_200MBps": m["count_matches_literal"]["mb_per_s"] >= 200,
        "count_matches_regex_ge_200MBps": m["count_matches_regex"]["mb_per_s"] >= 200,
        "peek_le_1ms": m["peek_1000_chars_mid_ms"] <= 1.0,
        "find_relevant_bm25_10k_le_2s": m["find_relevant_bm25"]["build_and_query_s"] <= 2.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=100.0, help="size of the big text, in 10**6 chars")
    parser.add_argument("--repeat", type=int, default=3, help="best of N for each throughput figure")
    parser.add_argument("--no-sandbox", action="store_true", help="measure in-process only")
    parser.add_argument(
        "--root-prompt-mb",
        type=float,
        default=1024.0,
        help="total MiB of the 10 variables for the root prompt measurement (0: skip)",
    )
    args = parser.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

    t0 = time.perf_counter()
    inputs = build_inputs(args.mb)
    report = {
        "benchmark": "helpers",
        "command": "python " + " ".join(sys.argv),
        "text_mb": round(len(inputs["text"]) / 1e6, 1),
        "generate_s": round(time.perf_counter() - t0, 1),
        "seed": 0,
        "repeat": args.repeat,
        "needle_offset": inputs["text"].find(NEEDLE),
        "common_word": inputs["COMMON"],
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
        "where": ["in-process"] if args.no_sandbox else ["in-process", "sandbox"],
    }
    report["in_process"] = run_in_process(inputs, args.repeat)
    report["targets_in_process"] = verdict(report["in_process"])
    if not args.no_sandbox:
        report["sandbox"] = run_in_sandbox(inputs, args.repeat)
        report["targets_sandbox"] = verdict(report["sandbox"])
    del inputs
    if args.root_prompt_mb > 0:
        report["root_prompt"] = {
            "default": root_prompt(args.root_prompt_mb),
            "auto_chunk": root_prompt(args.root_prompt_mb, auto_chunk=True),
        }
        report["targets_root_prompt"] = {
            "root_prompt_le_3000_tokens": all(r["le_3000_tokens"] for r in report["root_prompt"].values())
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
