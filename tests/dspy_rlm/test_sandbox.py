"""Escape and failure cases for the default sandbox: each one is a recoverable error, never a crash."""

import os
import socket
import sys
import threading
import time

import pytest

from dspy_rlm.sandbox.backend import SubprocessREPL


@pytest.fixture
def sandbox():
    repl = SubprocessREPL({"echo": lambda x: x}, ["answer"], timeout_s=1.5, memory_mb=512, max_output_chars=2_000)
    repl.load_inputs({"context": "the inputs survive restarts"})
    repl.start()
    yield repl
    repl.shutdown()


def _missing_level(why):
    """The isolation this test needs is missing here: an xfail, a failure under CI=true (CI has it)."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true: {why}")
    pytest.xfail(why)


def _assert_alive_with_inputs(repl):
    res = repl.run("print(context)")
    assert res.ok and res.stdout.strip() == "the inputs survive restarts"


def test_python_infinite_loop_times_out_and_keeps_state(sandbox):
    sandbox.run("keep = 1")
    res = sandbox.run("while True:\n    pass")
    assert res.error.type == "TimeoutError" and res.error.line in (1, 2)
    assert not res.restarted
    assert sandbox.run("print(keep)").stdout.strip() == "1"


def test_c_level_hang_kills_and_restarts_the_worker(sandbox):
    sandbox.run("mine = [1, 2]")
    t0 = time.monotonic()
    res = sandbox.run("import time\ntime.sleep(60)")  # sleep is interruptible: ends as TimeoutError in-worker
    assert res.error.type == "TimeoutError" and time.monotonic() - t0 < 10
    # The model's code switches our timer off: the host notices and kills the worker after a grace period.
    res = sandbox.run("import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nwhile True:\n    pass")
    assert res.error.type == "TimeoutError"
    assert res.restarted and "mine" in res.lost_variables and "mine" in res.error.message
    _assert_alive_with_inputs(sandbox)


@pytest.mark.parametrize("bomb", ["x = bytearray(8 * 1024**3)", "x = [0] * (2 * 10**9)", "x = 'a' * (10**10)"])
def test_memory_bomb_is_a_memory_error(sandbox, bomb):
    res = sandbox.run(bomb)
    assert res.error is not None and res.error.type == "MemoryError"
    _assert_alive_with_inputs(sandbox)


@pytest.mark.parametrize(
    "kill",
    [
        "import os; os._exit(3)",
        "import ctypes; ctypes.string_at(0)",
        "import os, signal; os.kill(os.getpid(), signal.SIGKILL)",
    ],
)
def test_worker_death_is_recoverable_and_names_lost_variables(sandbox, kill):
    sandbox.run("a = 1\nb = 'two'")
    res = sandbox.run(kill)
    assert res.error.type == "WorkerDied" and res.restarted
    assert set(res.lost_variables) >= {"a", "b"}
    assert "a, b" in res.error.message
    _assert_alive_with_inputs(sandbox)
    assert sandbox.run("print(a)").error.type == "NameError"


def test_huge_output_is_capped(sandbox):
    res = sandbox.run("for i in range(50000):\n    print('line', i)")
    assert res.ok and len(res.stdout) < 3_000
    assert res.truncated_chars > 500_000
    assert "line 49999" in res.stdout  # the tail is kept


@pytest.fixture
def loopback_server():
    """A real TCP server on 127.0.0.1 (in the host's network namespace) counting accepted connections."""
    srv = socket.create_server(("127.0.0.1", 0))
    srv.settimeout(0.1)
    accepted, stop = [], threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            accepted.append(1)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield srv.getsockname()[1], accepted
    stop.set()
    thread.join()
    srv.close()


@pytest.mark.parametrize(
    "attempt",
    [
        "import socket; socket.create_connection(('127.0.0.1', PORT), timeout=1)",
        "import urllib.request; urllib.request.urlopen('http://127.0.0.1:PORT/', timeout=1)",
        # ctypes goes under the Python audit hook: only a network namespace stops it
        "import ctypes, socket, struct; libc = ctypes.CDLL(None, use_errno=True); fd = libc.socket(2, 1, 0); "
        "rc = libc.connect(fd, struct.pack('<HH4s8x', 2, socket.htons(PORT), bytes([127, 0, 0, 1])), 16)\n"
        "if rc != 0: raise OSError(ctypes.get_errno(), 'connect refused')",
    ],
)
def test_network_is_refused_by_a_network_namespace(sandbox, attempt, loopback_server):
    port, accepted = loopback_server
    if sys.platform.startswith("linux") and "netns" not in sandbox.network_isolation:
        _missing_level(f"this kernel gave no network namespace ({sandbox.network_isolation}): ctypes can connect")
    assert sandbox.network_isolation in ("netns", "userns+netns")
    res = sandbox.run(attempt.replace("PORT", str(port)))
    time.sleep(0.2)  # let the server thread count a connection that did arrive
    assert accepted == [], "the sandbox reached a server on the host's loopback"
    assert res.error is not None, res.stdout


def test_system_exit_does_not_kill_the_worker(sandbox):
    res = sandbox.run("import sys; sys.exit(0)")
    assert res.error.type == "SystemExit" and not res.restarted
    _assert_alive_with_inputs(sandbox)


def test_unpicklable_tool_argument_is_a_clear_error(sandbox):
    res = sandbox.run("echo(lambda: 1)")
    assert res.error.type == "TypeError" and "plain data" in res.error.message


def _tree_pss() -> int:
    """PSS of this process and all its descendants. A fork shares the host's pages and so lowers the host's
    PSS by what the child now carries: only the sum over the whole tree is conserved (the host of a full test
    run holds GBs, so host + worker alone read -19x after a fork there)."""
    psutil = pytest.importorskip("psutil")
    me = psutil.Process()
    total = 0
    for proc in [me, *me.children(recursive=True)]:
        try:
            total += proc.memory_full_info().pss
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return total


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PSS is read from /proc (Linux)")
@pytest.mark.parametrize("start_method, low, high", [("fork", -1.0, 0.7), ("zygote", 0.5, 1.6), ("spawn", 0.5, 1.6)])
def test_inputs_are_bound_once_never_copied_twice(start_method, low, high):
    # Physical memory the sandbox adds (PSS of the host's whole process tree, after - before), as a multiple of
    # the input: "fork" shares the host's pages copy-on-write (no copy: ~0, under 1 whatever the host), the
    # zygote and spawn workers unpickle one copy (~1). A second copy (a kept pickle buffer, a re-send) would
    # read >= 2. In a full CI run the forked child also copies-on-write part of the host's own heap (a host of
    # several GB: 0.39x of the 64 MB input measured), hence the fork bound of 0.7, still below one copy.
    # The worker's own interpreter (its imports, tens of MB under spawn) is measured with a one-byte input and
    # taken off: without that, a spawn worker's footprint alone moved the figure from ~1.1 to 1.78 in one CI run.
    size = 64 * 1024 * 1024
    with SubprocessREPL() as warm:  # the zygote runs before we measure
        warm.run("x = 1")
    extra = (_added_pss(start_method, "x" * size) - _added_pss(start_method, "x")) / size
    assert low < extra < high, f"{start_method}: the sandbox added {extra:.2f}x the input"


def _added_pss(start_method: str, text: str) -> int:
    """The PSS a started sandbox holding ``text`` adds to this process tree, in bytes."""
    repl = SubprocessREPL(timeout_s=5, start_method=start_method)
    repl.load_inputs({"context": text})
    before = _tree_pss()
    repl.start()
    try:
        assert repl.run("print(len(context))").stdout.strip() == str(len(text))
        return _tree_pss() - before
    finally:
        repl.shutdown()


def _gone(pid, within_s=3.0):
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.01)
    return False


def test_shutdown_reaps_the_worker():
    repl = SubprocessREPL()
    repl.load_inputs({})
    repl.start()
    pids = repl.worker_pids()
    assert pids and repl.run("x = 1").ok
    repl.shutdown()
    assert all(_gone(pid) for pid in pids)


SYSCALL_PROBE = """
import ctypes, subprocess, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
def err(rc):
    return 0 if rc == 0 else ctypes.get_errno()
# unshare(CLONE_NEWUSER) refuses a multithreaded caller with EINVAL whatever the filter, and the worker may have
# threads: the nested user namespace is tried in a fresh single-threaded child (the filter is inherited)
userns = ("import ctypes; c = ctypes.CDLL(None, use_errno=True); "
          "print(0 if c.unshare(0x10000000) == 0 else ctypes.get_errno())")
t = threading.Thread(target=lambda: None); t.start(); t.join()
print(subprocess.run([sys.executable, '-c', userns], capture_output=True, text=True).stdout.strip(),
      err(libc.syscall(298, 0, 0, -1, -1, 0)),
      subprocess.run(['echo', 'ok'], capture_output=True, text=True).stdout.strip())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp is Linux-only")
def test_seccomp_refuses_what_the_namespaces_allow():
    """With the filter, a nested user namespace and perf_event_open fail with EPERM (1) while threads and
    subprocesses still work; without it the worker could create a user namespace of its own."""
    outcomes = {}
    for on in (True, False):
        repl = SubprocessREPL(timeout_s=20, seccomp=on)
        repl.load_inputs({})
        repl.start()
        try:
            outcomes[on] = (repl.isolation_info["seccomp"], repl.run(SYSCALL_PROBE).stdout.split())
        finally:
            repl.shutdown()
    label, probe = outcomes[True]
    assert label.startswith("deny-list") and probe == ["1", "1", "ok"]
    assert outcomes[False][0] == "off" and outcomes[False][1][0] == "0"  # namespaces alone let it through


@pytest.fixture
def corpus(tmp_path):
    data = tmp_path / "corpus"
    data.mkdir()
    (data / "a.txt").write_text("the corpus")
    data.chmod(0o777)  # writable by the sandbox's uid: only the mount's read-only flag stops a write
    (data / "a.txt").chmod(0o644)
    return data


def test_mounts_show_a_host_directory_read_only(corpus):
    repl = SubprocessREPL(mounts={str(corpus): "/data"})
    assert f"{str(corpus)!r}: '/data:ro'" in repr(repl)
    with repl:
        if "newroot" not in repl.isolation:
            _missing_level(f"isolation {repl.isolation!r} has no minimal root: mounts are not applied")
        assert repl.run("print(open('/data/a.txt').read())").stdout.strip() == "the corpus"
        res = repl.run("open('/data/new.txt', 'w')")
        listing = repl.run(f"import os\nprint(os.path.exists({str(corpus)!r}))").stdout.strip()
    assert res.error is not None and "Read-only file system" in res.error.message
    assert not (corpus / "new.txt").exists()
    assert listing == "False"  # the host path itself is not there: only /data


def test_a_writable_mount_writes_to_the_host(corpus):
    with SubprocessREPL(mounts={str(corpus): "/data:rw"}) as repl:
        if "newroot" not in repl.isolation:
            _missing_level(f"isolation {repl.isolation!r} has no minimal root: mounts are not applied")
        assert repl.run("open('/data/new.txt', 'w').write('from the sandbox')").ok
    assert (corpus / "new.txt").read_text() == "from the sandbox"


@pytest.mark.parametrize(
    "mounts, error, says",
    [
        ({"/no/such/dir": "/data"}, ValueError, "does not exist"),
        ({"/usr": "data"}, ValueError, "must be absolute"),
        ({"/usr": "/proc/x"}, ValueError, "under /proc"),
        ({"/usr": "/tmp"}, ValueError, "not one of"),
        ([("/usr", "/data")], TypeError, "must be a dict"),
    ],
)
def test_bad_mounts_are_refused_with_the_fix(mounts, error, says):
    with pytest.raises(error, match=says):
        SubprocessREPL(mounts=mounts)


@pytest.mark.parametrize("name", ["cpu_s_per_block", "cpu_s_per_run"])
def test_bad_cpu_limits_are_refused(name):
    with pytest.raises(ValueError, match=name):
        SubprocessREPL(**{name: 0})


def test_an_rlm_reads_a_directory_given_on_purpose(corpus):
    """The README's example: a scripted model's code reads a mounted file and submits it."""
    import dspy

    from dspy_rlm import RLM
    from tests.dspy_rlm.scripted_lm import ScriptedLM, action

    steps = iter(["print(open('/data/a.txt').read())", "SUBMIT(answer=open('/data/a.txt').read())"])
    lm = ScriptedLM(lambda call: action(next(steps)))
    rlm = RLM(
        "question -> answer", max_iters=3, interpreter_factory=lambda: SubprocessREPL(mounts={str(corpus): "/data"})
    )
    with dspy.context(lm=lm):
        pred = rlm(question="What does the corpus say?")
    assert pred.result.kind == "submitted" and pred.answer == "the corpus"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="namespaces are Linux-only")
def test_a_refused_pivot_root_is_named_in_the_level(monkeypatch):
    """Where the kernel refuses pivot_root, the level lacks ``+newroot``, the notes say why, and the fallback
    (the host's root read-only, secrets masked by name) still runs. A forked worker inherits the patch."""
    from dspy_rlm.sandbox import rootfs

    monkeypatch.setattr(rootfs, "_SYS_PIVOT_ROOT", {})  # as on an architecture we do not know
    with SubprocessREPL(start_method="fork") as repl:
        if "mountns" not in repl.isolation:
            _missing_level(f"isolation {repl.isolation!r} has no mount namespace")
        res = repl.run("open('/usr/escape-probe', 'w')")
        level, notes = repl.isolation, repl.isolation_info["notes"]
    assert "+newroot" not in level and level.startswith("userns+pidns+mountns")
    assert any("no minimal root" in note and "pivot_root" in note for note in notes), notes
    assert res.error is not None and res.error.type in ("OSError", "PermissionError")
