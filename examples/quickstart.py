"""Quickstart: an RLM over a real file of your machine, with the embedded local model on CPU.

The default demo asks which port the ``submission`` service uses, over ``/etc/services`` (a table every Linux
and macOS machine has; this project did not write it; the expected answer is read from the file itself).
With ``--demo log`` it searches a 5,000-line generated server log for the incident an ERROR line opened.
The document never enters the prompt: it lives as the variable ``context`` in a sandboxed REPL, and the
model (SmolLM2-135M-Instruct, bundled, run by llama.cpp on Linux / MLX on Apple Silicon) writes Python to
look at it: under the small-model profile, one grounded move a step -- read the record the query names,
then SUBMIT a value it printed. A value the reads do not support ends ``Extracted`` with low confidence
rather than as a confident ``Submitted``. Every run ends
*typed*: ``Submitted`` (it called SUBMIT), ``Extracted`` (a limit was hit and the answer was extracted from
its REPL history and variables) or ``Failed``. The trace goes to an HTML file you can open in a browser.

Run (seconds to a minute on a 2-core CPU after the model loads; no network):
    python examples/quickstart.py
    python examples/quickstart.py --demo log
    python examples/quickstart.py --lm openai/gpt-4o-mini --max-iters 6    # a real model does better
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import sys
import tempfile
import time
from pathlib import Path

INCIDENT = "INC-4821"
SERVICES = "/etc/services"
SERVICE = "submission"


def services_port(text: str, service: str) -> int | None:
    """The port of ``service`` in an ``/etc/services`` text (``name  port/proto  aliases  # comment``)."""
    for line in text.splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) >= 2 and fields[0] == service:
            return int(fields[1].split("/")[0])
    return None


def line_count(text: str) -> int:
    """Lines as ``wc -l`` counts them (361 for /etc/services), plus an unended last line (the generated log)."""
    return text.count("\n") + (bool(text) and not text.endswith("\n"))


def demo_task(demo: str, lines: int) -> tuple[str, str, str, object]:
    """``(document, query, signature, expected answer)`` of a demo (the log demo where the file is missing)."""
    if demo == "file" and os.path.isfile(SERVICES):
        text = Path(SERVICES).read_text(encoding="utf-8", errors="replace")
        port = services_port(text, SERVICE)
        if port is not None:
            query = f"Which port number does the {SERVICE} service use?"
            return text, query, "context, query -> answer: int", port
    query = "Which incident ID was opened by the ERROR line?"
    return make_document(lines), query, "context, query -> answer", INCIDENT


def make_document(n_lines: int = 5000, seed: int = 7) -> str:
    """A server log of ``n_lines`` INFO/DEBUG lines with one ERROR line naming the incident."""
    rng = random.Random(seed)
    services = ["auth", "search", "billing", "cart", "inventory", "mailer"]
    msgs = ["request served in {} ms", "cache hit ratio {}%", "heartbeat ok ({} peers)", "queue depth {}"]
    lines = [
        f"2024-05-{1 + i * 30 // n_lines:02d} {rng.choice(['INFO', 'DEBUG'])} {rng.choice(services)}: "
        + rng.choice(msgs).format(rng.randint(1, 999))
        for i in range(n_lines)
    ]
    lines.insert(
        rng.randrange(n_lines // 3, n_lines),
        f"2024-05-17 ERROR payment-gateway: card processor timeout, opened incident {INCIDENT}",
    )
    return "\n".join(lines)


def make_lm(name: str, max_tokens: int):
    """``embedded`` (the bundled SmolLM2 via OutlinesLM) or a LiteLLM model string."""
    if name == "embedded":
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from dspy_outlines import OutlinesLM

        return OutlinesLM(max_tokens=max_tokens)
    import dspy

    return dspy.LM(name, max_tokens=max_tokens)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lm", default="embedded", help="embedded (default) or a LiteLLM model string")
    parser.add_argument("--demo", choices=("file", "log"), default="file", help="a real file (default) or a log")
    parser.add_argument("--lines", type=int, default=5000, help="log demo: document length in lines")
    parser.add_argument("--max-iters", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=96, help="completion tokens per LM call")
    parser.add_argument("--max-time", type=float, default=60.0, help="seconds before the loop stops and extracts")
    parser.add_argument("--html", default=None, help="trace HTML path (default: a temp file)")
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the live progress line on stderr (default: only when stderr is a terminal)",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

    import dspy

    from dspy_outlines import OutlinesAdapter
    from dspy_rlm import RLM
    from dspy_rlm.progress import progress_display

    document, query, signature, expected = demo_task(args.demo, args.lines)
    source = SERVICES if signature.endswith("int") else "a generated server log"
    print(f"document: {source}, {len(document):,} characters, {line_count(document):,} lines")
    print(f"query:    {query}")
    t0 = time.perf_counter()
    lm = make_lm(args.lm, args.max_tokens)
    print(f"model:    {getattr(lm, 'model_name', None) or lm.model} (loaded in {time.perf_counter() - t0:.1f}s)")

    adapter = OutlinesAdapter(tiers="auto")  # the fallback extraction step: Tier 3 at once for a local model
    # The embedded model gets the small-model profile on its own (profile="auto": compact prompt, each step's
    # code held to grounded moves, grounded SUBMIT); an API model keeps the default profile.
    # The action step of the small profile is Tier 3 alone; it is made here (as the profile would) so its
    # calls are counted in the tier line below.
    action_adapter = (
        OutlinesAdapter(tiers=("tier3",))
        if args.lm == "embedded"
        else dspy.ChatAdapter(use_json_adapter_fallback=False)
    )
    rlm = RLM(
        signature,
        max_iters=args.max_iters,
        max_llm_calls=args.max_iters + 1,
        max_time=args.max_time,
        extract_adapter=adapter,
        action_adapter=action_adapter,
    )
    # Progress is for a person watching: on a terminal only, unless asked; piped, stderr stays empty.
    show_progress = sys.stderr.isatty() if args.progress is None else args.progress
    progress = progress_display() if show_progress else contextlib.nullcontext(None)
    with progress as callback, dspy.context(lm=lm, callbacks=[callback] if callback else []):
        pred = rlm(context=document, query=query)

    result = pred.result
    print()
    answer = " ".join(str(pred.answer).split())  # one line, however the model formatted it
    answer = answer if len(answer) <= 100 else answer[:100] + "..."
    found = "right" if str(expected) == str(pred.answer) else "wrong"
    print(f"answer:     {answer!r}  (expected {expected!r}, read from the document: {found})")
    detail = {
        "submitted": lambda: f"via {result.source}",
        "extracted": lambda: f"limit={result.limit}, confidence={result.confidence:.2f}",
        "failed": lambda: f"reason={result.reason[:120]}",
    }[result.kind]()
    print(f"result:     {type(result).__name__} ({detail})")
    usage = pred.trace.totals()
    print(
        f"iterations: {usage['iterations']}  LM calls: {usage['lm_calls_total']}  "
        f"tokens: {usage['prompt_tokens'] + usage['completion_tokens']:,}  time: {pred.trace.duration_s:.1f}s"
    )
    adapters = [a for a in (action_adapter, adapter) if isinstance(a, OutlinesAdapter)]
    counts = {
        t: [sum(a.metrics[t][k] for a in adapters) for k in ("success", "failure")] for t in ("tier1", "tier2", "tier3")
    }
    print("tiers:      " + ", ".join(f"{t} {ok} ok / {failed} failed" for t, (ok, failed) in counts.items()))
    # A fresh 0700 directory of this user's: no fixed name in the shared temp directory (another user's file
    # there would refuse the write; a planted symlink would redirect it).
    html = Path(args.html or Path(tempfile.mkdtemp(prefix="rlm-quickstart-")) / "trace.html")
    try:
        from dspy_rlm.viewer import write_html

        print(f"trace:      {write_html(pred.trace, html)}  (open it in a browser)")
    except ImportError:
        path = pred.trace.to_json(html.with_suffix(".json")) and html.with_suffix(".json")
        print(f"trace:      {path} (JSON; the HTML viewer is not installed)")
    return 0 if result.kind != "failed" else 3


if __name__ == "__main__":
    sys.exit(main())
