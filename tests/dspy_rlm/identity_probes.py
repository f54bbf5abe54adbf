"""Run inside another identity by tests/dspy_rlm/test_identities.py (``python -c`` as that uid): plant secrets
where this user keeps them, start the default sandbox, try to read, write, connect and signal out of it, and
print one JSON line: the level reached and, per probe, whether it got through.

Argument (``sys.argv[1]``, JSON): ``{"isolation": "auto" | "landlock", "rlm": bool}``.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import uuid

TAG = uuid.uuid4().hex
HOME = os.environ.get("HOME", "")


def plant() -> dict[str, str]:
    """Secrets of this user: in the home directory (when it can be written) and the working directory."""
    files = {}
    wanted = {
        "home_token": os.path.join(HOME, ".rlm-secret-token"),
        "home_ssh": os.path.join(HOME, ".ssh", "id_ed25519"),
        "home_config": os.path.join(HOME, ".config", "app", "credentials"),
        "cwd_dotenv": os.path.join(os.getcwd(), ".env"),
    }
    for name, path in wanted.items():
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as fh:
                fh.write(f"secret-{name}-{TAG}\n")
            files[name] = path
        except OSError:
            pass
    return files


class Listener:
    """A TCP server on loopback and a UDP socket, both of this user's process, counting what reaches them."""

    def __init__(self) -> None:
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.tcp.settimeout(0.2)
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.udp.settimeout(0.2)
        self.hits = 0
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._serve, args=(s,), daemon=True) for s in (self.tcp, self.udp)]
        for t in self._threads:
            t.start()

    def _serve(self, sock: socket.socket) -> None:
        while not self._stop.is_set():
            try:
                if sock.type == socket.SOCK_STREAM:
                    sock.accept()[0].close()
                else:
                    sock.recv(64)
                self.hits += 1
            except OSError:
                continue

    def close(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join()
        self.tcp.close()
        self.udp.close()


def probes(files: dict[str, str], tcp_port: int, udp_port: int) -> dict[str, str]:
    """name -> code; a probe prints what it got (a leak shows the secret tag or 'GOT')."""
    out = {f"read-{name}": f"print(open({path!r}).read())" for name, path in files.items()}
    out.update(
        {
            "read-home-by-expanduser": "import os\nprint(open(os.path.expanduser('~/.rlm-secret-token')).read())",
            "list-home": f"import os\nprint('GOT', os.listdir({HOME!r}))",
            "write-home": f"open({os.path.join(HOME, 'escaped')!r}, 'w').write('x')\nprint('GOT')",
            "read-host-environ": f"print(open('/proc/{os.getpid()}/environ').read())",
            "read-host-cmdline": f"print('GOT', open('/proc/{os.getpid()}/cmdline').read())",
            "read-etc-passwd": "print('GOT', open('/etc/passwd').read()[:20])",
            "tcp-connect": (
                f"import socket\nsocket.create_connection(('127.0.0.1', {tcp_port}), timeout=2)\nprint('GOT')"
            ),
            "tcp-ctypes": (
                "import ctypes, socket, struct\nlibc = ctypes.CDLL(None)\nfd = libc.socket(2, 1, 0)\n"
                f"addr = struct.pack('<HH4s8x', 2, socket.htons({tcp_port}), bytes([127, 0, 0, 1]))\n"
                "print('GOT' if libc.connect(fd, addr, 16) == 0 else 'refused')"
            ),
            "udp-send": (
                "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'import socket; "
                f'socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", {udp_port}))\'])'
            ),
            # judged by what follows: the worker's parent (the zygote, or the namespace's init) must live on
            "kill-parent": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)",
            "fork-bomb": (
                "import os, time\nn = 0\ntry:\n    while n < 400:\n        if os.fork() == 0:\n"
                "            time.sleep(5)\n            os._exit(0)\n        n += 1\nexcept OSError:\n    pass\n"
                "print('GOT' if n >= 400 else f'stopped at {n}')"
            ),
            "signal-host": f"import os\nos.kill({os.getpid()}, 0)\nprint('GOT')",  # signal 0: permission only
        }
    )
    return out


def main() -> None:
    args = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    files = plant()
    listener = Listener()
    report: dict = {"uid": os.getuid(), "planted": sorted(files), "probes": {}}
    from dspy_rlm.sandbox.backend import SubprocessREPL

    try:
        repl = SubprocessREPL(timeout_s=20, isolation=args.get("isolation", "auto"))
        repl.start()
    except Exception as exc:  # noqa: BLE001 - reported: the test asserts on it
        report["start_error"] = f"{type(exc).__name__}: {exc}"
        listener.close()
        if args.get("rlm"):
            report["rlm"] = rlm_run()
        print(json.dumps(report))
        return
    report["isolation"] = repl.isolation
    report["info"] = {k: str(v) for k, v in repl.isolation_info.items()}
    try:
        for name, code in probes(files, listener.tcp.getsockname()[1], listener.udp.getsockname()[1]).items():
            res = repl.run(code)
            text = res.stdout + (res.error.message if res.error else "")
            report["probes"][name] = "LEAK" if (TAG in text or "GOT" in text) else "blocked"
        report["written"] = os.path.exists(os.path.join(HOME, "escaped"))
        report["network_hits"] = listener.hits
        report["ok_run"] = repl.run("print(sum(range(10)))").stdout.strip()
        report["restarts"] = repl.restarts
    finally:
        repl.shutdown()
        listener.close()
    if args.get("rlm"):
        report["rlm"] = rlm_run()
    print(json.dumps(report))


def rlm_run() -> dict:
    """One run of the RLM on the embedded model, with the default sandbox (as the quickstart runs it)."""
    import dspy

    from dspy_outlines import OutlinesLM
    from dspy_rlm import RLM

    document = "\n".join(f"service-{i} uses port {4000 + i}" for i in range(40)) + "\nvault uses port 8201\n"
    rlm = RLM("context, query -> answer: int", max_iters=4, max_llm_calls=5)
    with dspy.context(lm=OutlinesLM(max_tokens=256)):
        try:
            pred = rlm(context=document, query="Which port does the vault service use?")
        except Exception as exc:  # noqa: BLE001 - reported: the test asserts on it
            return {"error": f"{type(exc).__name__}: {exc}"}
    return {"answer": str(pred.answer), "ended": pred.result.kind}


if __name__ == "__main__":
    main()
