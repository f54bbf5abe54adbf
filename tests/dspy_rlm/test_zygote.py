"""The zygote start method: workers come from a clean fork server, never from the (threaded) host."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from dspy_rlm.sandbox import zygote
from dspy_rlm.sandbox.backend import SubprocessREPL

pytestmark = pytest.mark.skipif(not zygote.available(), reason="the zygote start method is Linux-only")
HOST_ONLY_OBJECT = "host-only-object-0xC0FFEE"


def _gone(pid: int, within_s: float = 5.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.01)
    return False


def _memfds(pid: int | str = "self") -> list[str]:
    out = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if "dspy-rlm-inputs" in target:
            out.append(target)
    return out


def test_default_start_method_is_the_zygote_and_the_worker_is_not_our_child():
    with SubprocessREPL() as repl:
        assert repl.start_method == "zygote"
        zyg = zygote.current()
        assert zyg is not None and zyg.pid not in (None, os.getpid())
        for pid in repl.worker_pids():  # the sandbox's processes descend from the zygote, not from us
            with open(f"/proc/{pid}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            assert ppid != os.getpid()
        assert repl.run("x = 1").ok


def test_host_memory_is_not_in_the_worker_unlike_fork():
    # A forked worker is a copy of this process: the test module (and any secret held in memory) is there.
    code = f"import sys; print({__name__!r} in sys.modules)"
    with SubprocessREPL(start_method="fork") as forked:
        assert forked.run(code).stdout.strip() == "True"
    with SubprocessREPL() as clean:
        assert clean.run(code).stdout.strip() == "False"


def test_inputs_arrive_through_a_memfd_that_is_released_after_loading():
    big = "y" * (20 * 1024 * 1024)
    with SubprocessREPL() as repl:
        repl.load_inputs({"context": big, "n": 3})
        assert repl.run("print(len(context), n)").stdout.split() == [str(len(big)), "3"]
        assert _memfds() == []  # the host kept no descriptor (the file's pages are freed)
        for pid in repl.worker_pids():
            assert _memfds(pid) == []


def test_many_repls_start_at_once_from_threads():
    results: list[str] = []
    errors: list[BaseException] = []

    def one(i: int) -> None:
        try:
            with SubprocessREPL() as repl:
                repl.load_inputs({"i": i})
                results.append(repl.run("print(i * 2)").stdout.strip())
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors and sorted(results, key=int) == [str(i * 2) for i in range(8)]


def test_a_killed_zygote_is_started_again_and_running_workers_end_typed():
    repl = SubprocessREPL(timeout_s=5)
    repl.load_inputs({"context": "still here"})
    repl.start()
    repl.run("mine = 1")
    zyg = zygote.get_zygote()
    old, workers = zyg.pid, repl.worker_pids()
    os.kill(old, signal.SIGKILL)
    assert all(_gone(pid) for pid in workers)  # its workers die with it (PR_SET_PDEATHSIG)
    res = repl.run("print(context)")
    # The worker died with its zygote; the run gets a typed error naming the lost variable, then goes on.
    assert res.error is not None and res.error.type == "WorkerDied" and "mine" in res.lost_variables
    assert repl.run("print(context)").stdout.strip() == "still here"
    assert zyg.pid != old
    repl.shutdown()


def test_the_zygote_and_its_workers_die_with_the_host(tmp_path):
    script = textwrap.dedent("""
        import os, sys, time
        from dspy_rlm.sandbox.backend import SubprocessREPL
        from dspy_rlm.sandbox import zygote
        repl = SubprocessREPL()
        repl.start()
        print(zygote.current().pid, *repl.worker_pids(), flush=True)
        time.sleep(60)
    """)
    host = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    pids = [int(p) for p in host.stdout.readline().split()]
    assert len(pids) >= 2
    host.kill()
    host.wait()
    assert all(_gone(pid) for pid in pids), pids


def test_spawn_still_works():
    with SubprocessREPL(start_method="spawn") as repl:
        repl.load_inputs({"context": "spawned"})
        assert repl.run("print(context)").stdout.strip() == "spawned"


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="start_method"):
        SubprocessREPL(start_method="forkserver")
    with pytest.raises(ValueError, match="isolation"):
        SubprocessREPL(isolation="max")
    with pytest.raises(TypeError, match="sandbox_env"):
        SubprocessREPL(sandbox_env={"A": 1})
    with pytest.raises(ValueError, match="max_processes"):
        SubprocessREPL(max_processes=0)
