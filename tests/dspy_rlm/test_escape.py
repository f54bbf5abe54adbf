"""Escape suite (issue 12, item 2): hostile code from a scripted model, through a whole RLM run.

Each case: the model's first block tries to escape, its second submits. The test asserts the host is alive,
the run went on and ended typed (``Submitted``), and nothing outside the sandbox's scratch changed (probe
files in the home and project directories, the checkpoint, a loopback server nobody may reach). A case the
isolation level reached on this machine cannot contain is an ``xfail`` that says why and is not run (running
it would harm the machine: a fork bomb, signals to every pid).
"""

from __future__ import annotations

import os
import socket
import threading
import uuid
from pathlib import Path

import dspy
import pytest

from dspy_rlm import RLM
from dspy_rlm.repl import zygote
from dspy_rlm.repl.sandbox import SubprocessREPL
from tests.dspy_rlm.scripted_lm import ScriptedLM, action

PROJECT = Path(__file__).resolve().parents[2]
SECRET = "sk-escape-test-" + uuid.uuid4().hex


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
    missing = [f for f in features if f.endswith("ns") and f not in have]
    if "pids" in features and level.get("pids_limit", "none") == "none":
        missing.append("a pids limit")
    if "procfs" in features and any("/proc" in n for n in level.get("notes", [])):
        missing.append("a private /proc")
    return f"isolation {level['isolation']!r} lacks {', '.join(missing)}" if missing else None


def _host_only_environ() -> list[str]:
    from dspy_rlm.repl.isolation import ENV_ALLOWLIST

    raw = Path("/proc/self/environ").read_bytes().decode(errors="replace").split("\0")
    return [
        e
        for e in raw
        if "=" in e and len(e) > 8 and e.split("=", 1)[0] not in ENV_ALLOWLIST and not e.startswith("LC_")
    ]


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
]


@pytest.mark.parametrize("name,template,features", CASES, ids=[c[0] for c in CASES])
def test_escape_is_contained(name, template, features, level, server, tmp_path, monkeypatch):
    why = _needs(level, *features)
    if why is not None:
        pytest.xfail(f"not run: {why}; on this machine the model's code could do this")
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
    for entry in _host_only_environ():  # what /proc/<host pid>/environ holds beyond the allowlist
        assert entry not in outputs, f"the host's environment reached the model: {entry[:40]}"
    assert all(r.isolation == level["isolation"] for r in repls)


def test_home_secret_paths_are_empty_inside(level):
    ssh = Path.home() / ".ssh"
    if not ssh.is_dir() or not any(ssh.iterdir()):
        pytest.skip("no ~/.ssh with files on this machine to hide")
    if _needs(level, "mountns"):
        pytest.xfail(f"isolation {level['isolation']!r} has no mount namespace: ~/.ssh is readable")
    with SubprocessREPL() as repl:
        res = repl.run(f"import os\nprint(os.listdir({str(ssh)!r}))")
    assert res.ok and res.stdout.strip() == "[]"


def test_repr_and_docs_state_the_level(level):
    with SubprocessREPL() as repl:
        assert f"isolation={level['isolation']!r}" in repr(repl)
    import dspy_rlm.repl.sandbox as sandbox

    assert level["isolation"] == "none" or level["isolation"] in sandbox.__doc__
