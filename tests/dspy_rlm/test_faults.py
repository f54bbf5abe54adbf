"""Fault injection (issue 12 item 4): every fault ends the run typed, and nothing already paid for is lost.

The LM faults go through a real OpenAI-compatible HTTP server on loopback, called by a real ``dspy.LM``
(litellm), so the exceptions are litellm's own (``RateLimitError`` from a 429, ``ContextWindowExceededError``
from a 400 with the provider's message, ``Timeout`` from a call that hangs past its per-call timeout,
``APIError`` / ``InternalServerError`` from garbage). Host faults run a host process in a subprocess
(``python -m tests.dspy_rlm.test_faults``): SIGTERM / SIGINT mid-iteration, then ``resume``; a disk that fills
while the checkpoint is written (a real 64 KiB tmpfs in a private mount namespace where the kernel allows it).
The worker is SIGKILLed mid-block from the host; a child dies inside ``batch_rlm_query``.

Each test asserts the typed ending, what was kept (variables, history, the answers already paid for) and that
no paid call was repeated.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import dspy
import outlines.types.dsl  # noqa: F401
import psutil
import pytest

import dspy_outlines.adapter  # noqa: F401 - one-time imports of the extraction (outlines: ~2 s), not timed
from dspy_rlm import RLM, Extracted, Failed, Submitted
from dspy_rlm.sandbox.backend import SubprocessREPL
from tests.dspy_rlm.scripted_lm import ScriptedLM, action

ROOT = Path(__file__).resolve().parents[2]


# -- a real OpenAI-compatible server on loopback whose answers can fail ------------------------------
class FaultServer:
    """``/v1/chat/completions`` on 127.0.0.1. ``respond(messages) -> text`` gives the normal answer;
    ``fault(messages) -> kind | None`` picks a fault for this request: ``"rate_limit"`` (429),
    ``"context_window"`` (400, OpenAI's context-length message), ``"hang"`` (no answer until closed),
    ``"garbage"`` (200, not JSON), ``"empty"`` (200, empty content), ``"server_error"`` (500)."""

    def __init__(self, respond, fault=lambda messages: None):
        self.respond, self.fault = respond, fault
        self.requests: list[tuple[str | None, list[dict]]] = []
        self.lock = threading.Lock()
        self.closing = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                messages = body["messages"]
                kind = server.fault(messages)
                with server.lock:
                    server.requests.append((kind, messages))
                if kind == "hang":
                    server.closing.wait(60)
                    return
                if kind == "rate_limit":
                    return self._json(
                        429,
                        {
                            "error": {
                                "message": "Rate limit reached for requests",
                                "type": "requests",
                                "code": "rate_limit_exceeded",
                            }
                        },
                    )
                if kind == "context_window":
                    return self._json(
                        400,
                        {
                            "error": {
                                "message": "This model's maximum context length is 8192 tokens. However, your messages "
                                "resulted in 9000 tokens. Please reduce the length of the messages.",
                                "type": "invalid_request_error",
                                "code": "context_length_exceeded",
                            }
                        },
                    )
                if kind == "server_error":
                    return self._json(500, {"error": {"message": "upstream exploded", "type": "server_error"}})
                if kind == "garbage":
                    return self._raw(200, b"<html>\x00\xff not json at all")
                text = "" if kind == "empty" else server.respond(messages)
                self._json(
                    200,
                    {
                        "id": "c1",
                        "object": "chat.completion",
                        "created": 0,
                        "model": "fault",
                        "choices": [
                            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
                        ],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                    },
                )

            def _json(self, status, payload):
                self._raw(status, json.dumps(payload).encode(), "application/json")

            def _raw(self, status, data, ctype="text/html"):
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def lm(self, **kwargs) -> dspy.LM:
        return dspy.LM(
            "openai/fault-model",
            api_base=f"http://127.0.0.1:{self.httpd.server_port}/v1",
            api_key="sk-test",
            cache=False,
            num_retries=0,
            **kwargs,
        )

    def close(self):
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def _role(messages: list[dict]) -> str:
    """'llm' (a plain sub-LM prompt), 'extract' (fallback extraction) or 'action'."""
    if len(messages) == 1:
        return "llm"
    return (
        "extract" if "reached its limit" in messages[0]["content"] or "fallback" in messages[0]["content"] else "action"
    )


def _iteration(messages: list[dict]) -> int:
    import re

    m = re.search(r"\[\[ ## iteration ## \]\]\s*(\d+)/", messages[-1]["content"])
    return int(m.group(1)) if m else 0


def _chat(**fields) -> str:
    return "\n\n".join(f"[[ ## {k} ## ]]\n{v}" for k, v in fields.items()) + "\n\n[[ ## completed ## ]]"


_WARM: list[bool] = []


def _warm_up() -> None:
    """One whole run against a healthy server first, so the first-use imports of litellm / openai (cost and
    usage code, the async client: seconds on a loaded 2-core machine) and the sandbox's zygote start are not
    counted against a timed run's max_time."""
    if _WARM:
        return
    code = "n = llm_query('warm')\nSUBMIT(answer=n)"
    healthy = FaultServer(lambda m: "w" if _role(m) == "llm" else _chat(reasoning="w", code=f"```python\n{code}\n```"))
    try:
        with dspy.context(lm=healthy.lm()):
            assert RLM("question -> answer", max_iters=2)(question="q").answer == "w"
    finally:
        healthy.close()
    _WARM.append(True)


LM_FAULTS = ["rate_limit", "context_window", "garbage", "empty", "server_error"]
#: The exception the model is shown for each fault (DSPy 3.4 wraps litellm's: RateLimitError -> LMRateLimitError).
SHOWN_AS = {
    "rate_limit": "RateLimitError",
    "context_window": "ContextWindowExceededError",
    "garbage": "LMProviderError",
    "empty": "AdapterParseError",
    "server_error": "LMServerError",
}


def _three_step_server(run_key: str, fault_kind: str, persistent: bool) -> FaultServer:
    """Iteration 1 stores a value and pays for an llm_query; iteration 2 (and, if persistent, every later call)
    meets the fault; the next good iteration submits what iteration 1 kept."""
    steps = {
        1: f"key = {run_key!r}\nnote = llm_query('remember this')\nprint(key, note)",
        "submit": "SUBMIT(answer=key + '|' + note)",
    }

    def respond(messages):
        role = _role(messages)
        if role == "llm":
            return "NOTE-42"
        if role == "extract":
            return _chat(answer=f"{run_key}|extracted")
        code = steps[1] if _iteration(messages) == 1 else steps["submit"]
        return _chat(reasoning="step", code=f"```python\n{code}\n```")

    def fault(messages):
        it = _iteration(messages)
        if _role(messages) == "llm":
            return None
        if persistent and (it >= 2 or _role(messages) == "extract"):
            return fault_kind
        return fault_kind if it == 2 else None

    return FaultServer(respond, fault)


@pytest.mark.parametrize("kind", LM_FAULTS)
def test_a_transient_lm_fault_is_shown_to_the_model_and_the_run_submits(kind):
    key = f"RUN-{uuid.uuid4().hex[:8]}"
    server = _three_step_server(key, kind, persistent=False)
    try:
        rlm = RLM("question -> answer", max_iters=6)
        with dspy.context(lm=server.lm()):
            pred = rlm(question="q")
    finally:
        server.close()
    assert isinstance(pred.result, Submitted), pred.result
    assert pred.answer == f"{key}|NOTE-42"  # iteration 1's variables survived the fault
    faulted = [it for it in pred.trace.iterations if it.index == 2]
    assert faulted and "could not be used" in faulted[0].output and SHOWN_AS[kind] in faulted[0].output
    # Paid calls: iteration 1's action + llm_query and iteration 3's action were each made once.
    good = [(r, _iteration(m)) for k, m in server.requests if k is None for r in [_role(m)]]
    assert good == [("action", 1), ("llm", 0), ("action", 3)], good


@pytest.mark.parametrize("kind", LM_FAULTS)
def test_a_persistent_lm_fault_ends_failed_with_the_history_kept(kind):
    key = f"RUN-{uuid.uuid4().hex[:8]}"
    server = _three_step_server(key, kind, persistent=True)
    try:
        rlm = RLM("question -> answer", max_iters=8)
        with dspy.context(lm=server.lm()):
            pred = rlm(question="q")
    finally:
        server.close()
    assert isinstance(pred.result, Failed), pred.result
    assert "LM failed" in pred.result.reason or "lm_errors" in str(pred.result.limit)
    history = json.dumps(pred.result.history, default=str)
    assert key in history and "NOTE-42" in history  # what iteration 1 computed and paid for is in the result
    assert len(pred.trace.iterations) >= 2


# -- an LM call that hangs: the per-call timeout comes from max_time ---------------------------------
@pytest.mark.parametrize("persistent", [False, True], ids=["step-hangs", "everything-hangs"])
def test_a_hanging_lm_call_is_cut_by_the_run_deadline(persistent):
    """A dspy.LM call gets ``timeout=`` the seconds left before the step deadline (max_time minus the extraction
    reserve): the hung request is abandoned, and the run ends typed within max_time, not after the 60 s hang."""
    key = f"RUN-{uuid.uuid4().hex[:8]}"
    server = _three_step_server(key, "hang", persistent=persistent)
    max_time = 8.0
    try:
        _warm_up()
        rlm = RLM("question -> answer", max_iters=6, max_time=max_time)
        t0 = time.monotonic()
        with dspy.context(lm=server.lm()):
            pred = rlm(question="q")
        elapsed = time.monotonic() - t0
    finally:
        server.close()
    assert elapsed < max_time + 4.0, elapsed  # MIN_API_TIMEOUT_S and a thread hop of slack, nowhere near 60 s
    faulted = [it for it in pred.trace.iterations if it.index == 2]
    assert faulted and "timed out" in faulted[0].output  # litellm/lm15 read timeout at the step deadline
    if persistent:  # the extraction hangs too: Failed, with iteration 1 in the history
        assert isinstance(pred.result, Failed) and key in json.dumps(pred.result.history, default=str)
    else:  # the time limit forces the answer out of the history: Extracted, by the extraction call
        assert isinstance(pred.result, Extracted) and pred.result.limit == "time"
        assert pred.answer == f"{key}|extracted"


# -- the worker SIGKILLed mid-block -----------------------------------------------------------------
def test_worker_sigkilled_mid_block_is_restarted_and_the_run_submits():
    repls: list[SubprocessREPL] = []
    killed: list[int] = []

    def factory():
        repl = SubprocessREPL(timeout_s=30)
        repls.append(repl)
        return repl

    def block_started() -> str:
        """Called by the model's block: the host OOM-kills the worker while the block runs."""

        def kill():
            time.sleep(0.3)
            pid = repls[0]._pid
            killed.append(pid)
            os.kill(pid, signal.SIGKILL)

        threading.Thread(target=kill, daemon=True).start()
        return "ok"

    steps = {
        1: "kept = 'before the kill'\nprint(kept)",
        2: "block_started()\nimport time\ntime.sleep(25)\nprint('never')",
        3: "SUBMIT(answer='after:' + str('kept' in globals()))",
    }
    lm = ScriptedLM(lambda call: action(steps[min(call.iteration, 3)]))
    rlm = RLM("question -> answer", max_iters=5, tools=[block_started], interpreter_factory=factory)
    t0 = time.monotonic()
    with dspy.context(lm=lm):
        pred = rlm(question="q")
    assert time.monotonic() - t0 < 20  # the dead worker was noticed at once, not at the 30 s block limit
    assert isinstance(pred.result, Submitted) and pred.answer == "after:False"  # typed; the loss is stated
    out = pred.trace.iterations[1].output
    assert "WorkerDied" in out and "restarted" in out and "kept" in out  # the lost variable is named
    assert killed  # ... and that process is gone (reaped by the REPL's restart)
    assert not psutil.pid_exists(killed[0]) or psutil.Process(killed[0]).status() == psutil.STATUS_ZOMBIE
    assert [c.role for c in lm.calls] == ["action"] * 3  # no LM call repeated


# -- a child crashing inside batch_rlm_query ---------------------------------------------------------
def test_a_crashing_child_in_batch_rlm_query_loses_only_its_own_answer():
    """Child A answers; child B's worker segfaults in its first block (restarted, B still answers); child C's
    LM raises on every call (C ends Failed, its item is an error). The root keeps all three results."""

    def respond(call):
        if call.role == "action":
            if call.iteration == 1:
                return action("res = batch_rlm_query(['child A', 'child B', 'child C'])\nprint(res)")
            return action("SUBMIT(answer=' || '.join(res))")
        if "child C" in call.user:
            raise RuntimeError("child C's provider is down")
        if call.role == "extract":
            return _chat(answer="extracted")
        if "child A" in call.user:
            return action("SUBMIT(answer='A-ok')")
        if call.iteration == 1:  # child B: the worker dies of SIGSEGV mid-block
            return action("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)")
        return action("SUBMIT(answer='B-recovered')")

    lm = ScriptedLM(respond)
    rlm = RLM("question -> answer", max_iters=4, max_depth=1, sub_max_iters=4)
    with dspy.context(lm=lm):
        pred = rlm(question="q")
    assert isinstance(pred.result, Submitted), pred.result
    a, b, c = pred.answer.split(" || ")
    assert (a, b) == ("A-ok", "B-recovered")
    assert c.startswith("[ERROR]") or "failed" in c.lower(), c
    assert "provider is down" in c  # the child's own failure, typed for the root model


# -- host faults: a host process in a subprocess ------------------------------------------------------
VICTIM_STEPS = {
    1: "x = 41\nfirst = llm_query('remember the first note')\nprint(first)",
    2: "second = llm_query('and the second one')\nfault_here()\nprint(second)",
    3: "SUBMIT(answer=f'{x + 1}|{first}|{second}')",
}


def victim(ckpt: str, log: str, fault: str) -> None:
    """A host process running one RLM with a checkpoint; ``fault`` happens in iteration 2, after its action and
    its llm_query were answered: ``SIGTERM`` / ``SIGINT`` (sent to itself), ``fill`` (the disk holding the
    checkpoint fills up: a tmpfs, or simulated by fsync raising ENOSPC when ``FAULTS_SIMULATE_ENOSPC`` is set)
    or ``none``. Every LM call appends ``role iteration digest`` to ``log``; the REPL worker's host pid goes to
    ``log + '.pids'``. Prints the result as one JSON line."""
    import errno
    import hashlib

    repls: list[SubprocessREPL] = []

    def respond(call):
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"{call.role} {call.iteration} {hashlib.sha1(call.user.encode()).hexdigest()[:10]}\n")
        if call.role == "llm":
            return "NOTE<" + call.user.split()[-1] + ">"
        return action(VICTIM_STEPS[min(call.iteration, 3)])

    def factory():
        repls.append(SubprocessREPL(timeout_s=30))
        return repls[-1]

    def fault_here() -> str:
        """Injects the host fault while the model's block runs."""
        with open(log + ".pids", "a", encoding="utf-8") as f:
            f.write(" ".join(str(r._pid) for r in repls if r._pid) + "\n")
        if fault in ("SIGTERM", "SIGINT"):
            os.kill(os.getpid(), getattr(signal, fault))
            time.sleep(5)  # the signal arrives while the block is still running
        elif fault == "fill":
            if os.environ.get("FAULTS_SIMULATE_ENOSPC"):

                def no_space(fd):
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

                os.fsync = no_space
            else:
                with open(Path(ckpt).parent / "filler", "wb") as f:
                    try:
                        while True:
                            f.write(b"\0" * 4096)
                            f.flush()
                    except OSError:
                        pass
        return "ok"

    dspy.configure(lm=ScriptedLM(respond))
    rlm = RLM("context, query -> answer", max_iters=6, tools=[fault_here], checkpoint=ckpt, interpreter_factory=factory)
    inputs = {"context": "a long document " * 50, "query": "combine the notes"}
    pred = rlm(**inputs)
    print(json.dumps({"answer": pred.answer, "kind": pred.result.kind, "warnings": pred.trace.warnings}))
    if fault == "fill":  # what is on the (full) disk now, seen from inside the mount namespace
        from dspy_rlm.checkpoint import Checkpoint, fingerprint

        snap = Checkpoint(ckpt, fingerprint(rlm.signature, inputs)).load()
        journal = Path(ckpt + ".journal")
        records = [json.loads(line) for line in journal.read_text().splitlines()] if journal.exists() else []
        print(
            json.dumps(
                {
                    "tmpfs": not os.environ.get("FAULTS_SIMULATE_ENOSPC"),
                    "iterations_done": snap.iterations_done,
                    "result_saved": snap.result is not None,
                    "files": sorted(p.name for p in Path(ckpt).parent.iterdir()),
                    "journal": [[r["kind"], r["iteration"]] for r in records],
                }
            )
        )


def _victim(
    ckpt: Path, log: Path, fault: str, *, prefix: tuple[str, ...] = (), env: dict | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    args = [*prefix, sys.executable, "-m", "tests.dspy_rlm.test_faults", str(ckpt), str(log), fault]
    return subprocess.run(
        args,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )


def _pids_gone(log: Path) -> list[int]:
    """The worker pids the victim recorded that are still alive (they must all be gone)."""
    pids = [int(p) for line in Path(str(log) + ".pids").read_text().split("\n") for p in line.split()]
    assert pids
    deadline = time.monotonic() + 5
    alive = pids
    while alive and time.monotonic() < deadline:
        alive = [p for p in alive if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
        time.sleep(0.1)
    return alive


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_host_signalled_mid_run_resumes_without_repeating_paid_calls(tmp_path, sig):
    ckpt, log = tmp_path / "run.ckpt", tmp_path / "calls.log"
    first = _victim(ckpt, log, sig)
    assert first.returncode != 0 and first.stdout.strip() == "", (first.returncode, first.stderr[-2000:])
    paid = log.read_text().splitlines()
    # iteration 1 (action + llm_query) and iteration 2's action + llm_query were paid for before the signal
    assert [c.split()[:2] for c in paid] == [["action", "1"], ["llm", "0"], ["action", "2"], ["llm", "0"]]
    assert ckpt.exists() and Path(str(ckpt) + ".journal").exists()  # flushed: iteration 1 + iteration 2's answers
    assert _pids_gone(log) == []  # the host's death took its sandbox worker with it

    second = _victim(ckpt, log, "none")
    assert second.returncode == 0, second.stderr[-2000:]
    out = json.loads(second.stdout.strip().splitlines()[-1])
    assert out["kind"] == "submitted" and out["answer"] == "42|NOTE<note>|NOTE<one>"
    calls = log.read_text().splitlines()
    assert len(calls) == len(set(calls)) == 5, calls  # only iteration 3's action is new: nothing paid twice
    assert calls[-1].split()[:2] == ["action", "3"]


def _tiny_tmpfs_prefix(mount: Path) -> tuple[str, ...] | None:
    """``unshare`` arguments that run a command with a 64 KiB tmpfs at ``mount`` in a private mount namespace
    (as root, or as a user mapped to root in a new user namespace), or None where the kernel refuses."""
    import shutil

    if shutil.which("unshare") is None:
        return None
    for flags in (("-m",), ("-r", "-m")) if os.geteuid() == 0 else (("-r", "-m"),):
        script = f'mount -t tmpfs -o size=64k tmpfs "{mount}" && exec "$0" "$@"'
        probe = subprocess.run(["unshare", *flags, "sh", "-c", script, "true"], capture_output=True)
        if probe.returncode == 0:
            return ("unshare", *flags, "sh", "-c", script)
    return None


def test_disk_full_while_checkpointing_keeps_the_previous_checkpoint(tmp_path):
    """The disk holding the checkpoint fills in iteration 2: the run still submits (a failed write is a trace
    warning), the checkpoint on disk is iteration 1's and still loads, no temporary file is left behind, the
    journal keeps iteration 2's paid answers for a resume, and no paid LM answer was thrown away and re-bought."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    ckpt, log = mount / "run.ckpt", tmp_path / "calls.log"
    prefix = _tiny_tmpfs_prefix(mount)
    env = {} if prefix else {"FAULTS_SIMULATE_ENOSPC": "1"}  # a kernel without mount namespaces: ENOSPC simulated
    run = _victim(ckpt, log, "fill", prefix=prefix or (), env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.strip().splitlines()
    out, disk = json.loads(lines[-2]), json.loads(lines[-1])
    assert out["kind"] == "submitted" and out["answer"] == "42|NOTE<note>|NOTE<one>"
    assert any("Checkpoint not written" in w and "No space left" in w for w in out["warnings"]), out["warnings"]
    calls = [c.split()[:2] for c in log.read_text().splitlines()]
    assert calls == [["action", "1"], ["llm", "0"], ["action", "2"], ["llm", "0"], ["action", "3"]], calls
    assert disk["tmpfs"] == bool(prefix)
    assert disk["iterations_done"] == 1 and disk["result_saved"] is False  # the previous checkpoint survived
    assert not [n for n in disk["files"] if n.endswith(".tmp")]  # no half-written temporary file
    assert disk["journal"][:2] == [["action", 2], ["llm", 2]]  # iteration 2's answers, kept for a resume


# -- the embedded model: its context window overflows --------------------------------------------------
@pytest.mark.real_model
def test_real_model_context_window_overflow_ends_typed():
    """The embedded model through the llama.cpp engine with a context far too small for the RLM's prompt: every
    call is refused by the engine before any generation, and the run ends Failed, typed, the reason naming the
    context, in seconds (no hang, no crash). Issue 12's "many runs on the real model" is
    tests/dspy_rlm/test_many_runs_real.py; the real model's deadlines are in test_deadline.py."""
    try:
        from dspy_outlines import OutlinesLM

        lm = OutlinesLM(engine="llamacpp", max_tokens=16, engine_options={"n_ctx": 128})
    except (ImportError, FileNotFoundError) as exc:
        pytest.skip(f"embedded model unavailable: {exc}")
    rlm = RLM("context, query -> answer", max_iters=4)
    t0 = time.monotonic()
    with dspy.context(lm=lm):
        pred = rlm(context="The incident ID is INC-4821. " * 40, query="Which incident ID is mentioned?")
    assert time.monotonic() - t0 < 120
    assert isinstance(pred.result, Failed), pred.result
    assert "context of 128" in pred.result.reason, pred.result.reason
    assert all("context of 128" in it.output for it in pred.trace.iterations)  # each step saw the same cause


if __name__ == "__main__":
    # the victim's SIGINT must be a Ctrl-C even when the test process started with SIGINT ignored (nohup, a
    # background job): a child inherits the ignored disposition, and Python then installs no handler of its own
    signal.signal(signal.SIGINT, signal.default_int_handler)
    victim(sys.argv[1], sys.argv[2], sys.argv[3])
