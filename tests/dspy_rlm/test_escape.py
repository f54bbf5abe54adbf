"""Escape suite (issues 12 and 21): hostile code from a scripted model, through a whole RLM run.

Each case: the model's first block tries to escape, its second submits. The test asserts the host is alive,
the run went on and ended typed (``Submitted``), nothing outside the sandbox's scratch changed (probe files in
the home and project directories, the checkpoint, a loopback server nobody may reach), and nothing secret of
the host reached the model (an environment variable, a file under the home directory, a dotenv file in the
working directory, the checkpoint key, ``/etc/shadow``, the names in ``/root`` and ``/home``). A case the
isolation level reached on this machine cannot contain is an ``xfail`` that says why and is not run (running
it would harm the machine: a fork bomb, signals to every pid); under ``CI=true`` it fails instead: CI must
reach the full level.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
import uuid
from pathlib import Path

import dspy
import pytest

from dspy_rlm import RLM
from dspy_rlm.sandbox import zygote
from dspy_rlm.sandbox.backend import SubprocessREPL
from tests.dspy_rlm.scripted_lm import ScriptedLM, action

PROJECT = Path(__file__).resolve().parents[2]
SECRET = "sk-escape-test-" + uuid.uuid4().hex
FULL = ("userns", "pidns", "mountns", "netns", "newroot", "nobody")


def _not_contained(why: str) -> None:
    """A case this machine's isolation cannot contain: an xfail, or a failure under ``CI=true``."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true: {why}; CI must reach the full isolation level {'+'.join(FULL)!r}")
    pytest.xfail(f"not run: {why}; on this machine the model's code could do this")


@pytest.fixture(scope="module")
def level() -> dict:
    with SubprocessREPL() as repl:
        return {"isolation": repl.isolation, **repl.isolation_info}


class LoopbackServer:
    """A real TCP server on 127.0.0.1 that counts the connections it accepts."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self):
        self._stop.set()
        self._thread.join()
        self.sock.close()


@pytest.fixture
def server():
    srv = LoopbackServer()
    yield srv
    srv.close()


def _needs(level: dict, *features: str) -> str | None:
    """Why this machine's isolation cannot contain the case (None if it can)."""
    have = set(level["isolation"].split("+"))
    missing = [f for f in features if f in FULL and f not in have]
    if "pids" in features and level.get("pids_limit", "none") == "none":
        missing.append("a pids limit")
    if "procfs" in features and any("/proc" in n for n in level.get("notes", [])):
        missing.append("a private /proc")
    return f"isolation {level['isolation']!r} lacks {', '.join(missing)}" if missing else None


def _host_only_environ() -> list[str]:
    from dspy_rlm.sandbox.isolation import ENV_ALLOWLIST

    raw = Path("/proc/self/environ").read_bytes().decode(errors="replace").split("\0")
    return [
        e
        for e in raw
        if "=" in e and len(e) > 8 and e.split("=", 1)[0] not in ENV_ALLOWLIST and not e.startswith("LC_")
    ]


@pytest.fixture(scope="module")
def host_secrets():
    """What a reading escape would hand on: a credentials file under ~/.config and a dotenv file in the
    working directory (both made here, removed after), this user's checkpoint key, /etc/shadow's lines."""
    from dspy_rlm.checkpoint import checkpoint_key

    tag = uuid.uuid4().hex
    app = Path.home() / ".config" / f"escape-test-{tag[:8]}"
    app.mkdir(parents=True)
    cred = app / "credentials"
    cred.write_text(f"home-secret-{tag}\n")
    dotenv = Path.cwd() / f".env.escape-{tag[:8]}"
    dotenv.write_text(f"API_KEY=dotenv-secret-{tag}\n")
    key = checkpoint_key()  # created on first use, as a checkpointed run does
    key_path = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "dspy-rlm" / "checkpoint.key"
    try:
        shadow = [line for line in Path("/etc/shadow").read_text().splitlines() if line.strip()]
    except OSError:  # not readable by this user, nor by anything it starts
        shadow = []
    yield {
        "paths": {"home_file": str(cred), "dotenv": str(dotenv), "key": str(key_path)},
        "strings": [f"home-secret-{tag}", f"dotenv-secret-{tag}", key.hex(), *shadow],
    }
    cred.unlink()
    app.rmdir()
    dotenv.unlink()


LISTED = ("/root", "/home")


def _listing_leaks(outputs: str, level: dict) -> list[str]:
    """Names the model listed in /root or /home that exist there on the host and are not on the way to a bind."""
    leaks = []
    for line in outputs.splitlines():
        if not line.startswith("LS:"):
            continue
        _, where, name = line.split(":", 2)
        inside = [*level.get("binds", []), *level.get("mounts", {})]
        on_the_way = {p[len(where) + 1 :].split("/")[0] for p in inside if p.startswith(where + "/")}
        try:
            on_host = set(os.listdir(where))
        except OSError:
            on_host = set()
        if name in on_host and name not in on_the_way:
            leaks.append(f"{where}/{name}")
    return leaks


# (id, code template, features the containment needs)
CASES = [
    ("kill-parent", "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)", ()),
    ("stop-parent", "import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)", ("pidns",)),
    ("kill-host-pid", "import os, signal\nos.kill({host_pid}, signal.SIGKILL)", ("pidns",)),
    ("kill-zygote-pid", "import os, signal\nos.kill({zygote_pid}, signal.SIGKILL)", ("pidns",)),
    (
        "signal-every-pid",
        "import os, signal\nfor p in range(1, 5000):\n    try:\n        os.kill(p, signal.SIGTERM)\n"
        "    except OSError:\n        pass",
        ("pidns",),
    ),
    ("fork-bomb", "import os\nwhile True:\n    os.fork()", ("pidns", "pids")),
    (
        "thread-bomb",
        "import threading, time\nwhile True:\n    threading.Thread(target=time.sleep, args=(3600,), "
        "daemon=True).start()",
        (),
    ),
    ("write-home", "open({home_probe!r}, 'w').write('escaped')", ("mountns",)),
    ("write-project", "open({project_probe!r}, 'w').write('escaped')", ("mountns",)),
    # the host rewrites the checkpoint itself every iteration: the write is checked on a file beside it
    ("write-checkpoint", "open({checkpoint!r} + '.escaped', 'w').write('escaped')", ("mountns",)),
    ("read-host-environ", "print(open('/proc/{host_pid}/environ').read())", ("pidns", "mountns", "procfs")),
    ("secrets-in-env", "import os\nprint(dict(os.environ))", ()),
    ("network-socket", "import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)", ()),
    (
        "network-subprocess",
        "import subprocess, sys\nprint(subprocess.run([sys.executable, '-c', 'import socket; "
        'socket.create_connection(("127.0.0.1", {port}), timeout=2)\'], capture_output=True, '
        "text=True).returncode)",
        ("netns",),
    ),
    (
        "network-ctypes",
        "import ctypes, socket, struct\nlibc = ctypes.CDLL(None)\nfd = libc.socket(2, 1, 0)\n"
        "addr = struct.pack('<HH4s8x', 2, socket.htons({port}), bytes([127, 0, 0, 1]))\n"
        "print(libc.connect(fd, addr, 16))",
        ("netns",),
    ),
    ("stdout-100mb", "print('x' * 100_000_000)", ()),
    ("sleep-forever", "import time\ntime.sleep(10**9)", ()),
    ("regex-catastrophe", "import re\nre.match(r'(a+)+$', 'a' * 64 + 'b')", ()),
    ("mmap-exhaustion", "import mmap\nmaps = [mmap.mmap(-1, 1 << 30) for _ in range(64)]", ()),
    (
        "scratch-disk-fill",
        "with open('fill.bin', 'wb') as f:\n    while True:\n        f.write(b'x' * (1 << 24))",
        ("mountns",),
    ),
    ("read-home-file", "print(open({home_file!r}).read())", ("mountns", "newroot")),
    ("read-dotenv", "print(open({dotenv!r}).read())", ("mountns", "newroot")),
    ("read-checkpoint-key", "print(open({key!r}, 'rb').read().hex())", ("mountns", "newroot")),
    ("read-etc-shadow", "print(open('/etc/shadow').read())", ("mountns", "newroot")),
    ("list-root", "import os\nfor n in os.listdir('/root'):\n    print('LS:/root:' + n)", ("mountns", "newroot")),
    ("list-home", "import os\nfor n in os.listdir('/home'):\n    print('LS:/home:' + n)", ("mountns", "newroot")),
]


@pytest.mark.parametrize("name,template,features", CASES, ids=[c[0] for c in CASES])
def test_escape_is_contained(name, template, features, level, server, host_secrets, tmp_path, monkeypatch):
    why = _needs(level, *features)
    if why is not None:
        _not_contained(why)
    monkeypatch.setenv("ESCAPE_TEST_API_KEY", SECRET)
    home_probe = Path.home() / f".dspy_rlm_escape_{uuid.uuid4().hex}"
    project_probe = PROJECT / f"escape_probe_{uuid.uuid4().hex}.txt"
    checkpoint = tmp_path / "run.ckpt.json"
    zyg = zygote.get_zygote()
    SubprocessREPL().shutdown()  # make sure a zygote runs, to name its pid
    code = template.format(
        host_pid=os.getpid(),
        zygote_pid=zyg.pid or 0,
        port=server.port,
        home_probe=str(home_probe),
        project_probe=str(project_probe),
        checkpoint=str(checkpoint),
        **host_secrets["paths"],
    )
    repls: list[SubprocessREPL] = []

    def factory():
        repls.append(SubprocessREPL(timeout_s=3, memory_mb=1024, scratch_mb=64))
        return repls[-1]

    steps = iter([code])
    lm = ScriptedLM(lambda call: action(next(steps, "SUBMIT(answer='survived')")))
    rlm = RLM("question -> answer", max_iters=4, interpreter_factory=factory, checkpoint=checkpoint)
    with dspy.context(lm=lm):
        pred = rlm(question="Try it.")

    assert pred.result.kind == "submitted" and pred.answer == "survived", pred.result
    assert server.accepted == 0, "the sandbox reached a loopback server"
    assert not home_probe.exists() and not project_probe.exists()
    assert not Path(f"{checkpoint}.escaped").exists(), "the sandbox wrote into the checkpoint's folder"
    outputs = "\n".join(str(step.get("output", "")) for step in pred.trajectory)
    assert SECRET not in outputs, "a host secret reached the model"
    for secret in host_secrets["strings"]:
        assert secret not in outputs, f"a host file's content reached the model: {secret[:12]}..."
    assert not _listing_leaks(outputs, level), "the model listed host entries"
    for entry in _host_only_environ():  # what /proc/<host pid>/environ holds beyond the allowlist
        assert entry not in outputs, f"the host's environment reached the model: {entry[:40]}"
    assert all(r.isolation == level["isolation"] for r in repls)


def test_home_secret_paths_are_empty_inside(level):
    ssh = Path.home() / ".ssh"
    if not ssh.is_dir() or not any(ssh.iterdir()):
        pytest.skip("no ~/.ssh with files on this machine to hide")
    if _needs(level, "mountns"):
        _not_contained(f"isolation {level['isolation']!r} has no mount namespace: ~/.ssh is readable")
    with SubprocessREPL() as repl:
        res = repl.run(f"import os\np = {str(ssh)!r}\nprint(os.listdir(p) if os.path.isdir(p) else [])")
    assert res.ok and res.stdout.strip() == "[]"


def test_repr_and_docs_state_the_level(level):
    with SubprocessREPL() as repl:
        assert f"isolation={level['isolation']!r}" in repr(repl)
    import dspy_rlm.sandbox.backend as sandbox

    assert level["isolation"] == "none" or level["isolation"] in sandbox.__doc__


def test_mountinfo_names_no_host_path_outside_the_binds(level, tmp_path):
    why = _needs(level, "mountns", "newroot")
    if why is not None:
        _not_contained(why)
    from dspy_rlm.sandbox.rootfs import DEVICES

    data = tmp_path / "corpus"
    data.mkdir()
    with SubprocessREPL(mounts={str(data): "/data"}) as repl:
        binds = repl.isolation_info["binds"]
        text = repl.run("print(open('/proc/self/mountinfo').read())").stdout
    inside = {"/", "/tmp", "/proc", "/dev/shm", "/data", *binds, *(f"/dev/{d}" for d in DEVICES)}
    sources = [*binds, str(data.resolve()), *(f"/{d}" for d in DEVICES), *(f"/dev/{d}" for d in DEVICES)]
    lines = [line.split() for line in text.splitlines() if line.strip()]
    assert len(lines) >= len(binds) + 4
    for fields in lines:
        root, point, fstype = fields[3], fields[4], fields[fields.index("-") + 1]
        assert point in inside, f"a mount the sandbox did not make: {point}"
        if fstype not in ("tmpfs", "proc"):  # a host file system: only what was bound
            assert any(root == s or root.startswith(s.rstrip("/") + "/") for s in sources), root


def _cpu_ticks(pids: list[int]) -> int:
    """utime + stime (clock ticks) of these processes, threads included, read from /proc."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total


BURNER = (
    "import threading\ndef spin():\n    while True:\n        pass\nthreading.Thread(target=spin, daemon=True).start()"
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="CPU time is read from /proc (Linux-only)")
def test_a_thread_started_in_one_block_burns_no_cpu_until_the_next():
    with SubprocessREPL(timeout_s=30) as repl:
        assert repl.run(BURNER).ok
        pids = repl.worker_pids()
        before = _cpu_ticks(pids)
        time.sleep(1.0)  # the LM writing the next block
        between = _cpu_ticks(pids) - before
        res = repl.run("import time\nt0 = time.process_time()\ntime.sleep(1.0)\nprint(time.process_time() - t0)")
    assert float(res.stdout) > 0.05, "the thread should run while a block runs (else this test sees nothing)"
    assert between <= 2, f"the worker used {between} ticks of CPU between blocks"


def test_a_block_over_its_cpu_limit_ends_with_a_recoverable_error():
    with SubprocessREPL(timeout_s=120, cpu_s_per_block=1) as repl:
        repl.run("keep = 1")
        res = repl.run("while True:\n    pass")
        assert res.error is not None and res.error.type == "TimeoutError" and "CPU time" in res.error.message
        assert res.error.recoverable and not res.restarted
        assert repl.run("print(keep)").stdout.strip() == "1"


def test_the_run_cpu_limit_ends_the_worker_and_it_restarts():
    with SubprocessREPL(timeout_s=120, cpu_s_per_block=None, cpu_s_per_run=1) as repl:
        res = repl.run("while True:\n    pass")
        assert res.error is not None and res.error.type == "WorkerDied" and res.restarted
        assert repl.run("print('again')").stdout.strip() == "again"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/etc/shadow: Linux-only")
def test_root_only_files_stay_unreadable_through_a_bind(level):
    shadow = Path("/etc/shadow")
    if not shadow.exists() or shadow.stat().st_mode & 0o004:
        pytest.skip("no root-only /etc/shadow on this machine (Linux-only check)")
    why = _needs(level, "mountns", "newroot", "nobody")
    if why is not None:
        _not_contained(why)
    with SubprocessREPL(mounts={"/etc": "/hostetc"}) as repl:
        res = repl.run("print(open('/hostetc/shadow').read())")
    assert res.error is not None and res.error.type == "PermissionError", res.stdout[:40]
