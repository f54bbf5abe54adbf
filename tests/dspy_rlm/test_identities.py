"""The sandbox as our users run it: a regular uid, uid 65534 (nobody), and a regular uid whose kernel refuses
user namespaces (Docker's default seccomp profile, Ubuntu >= 23.10's AppArmor default), and one that has
neither namespaces nor Landlock (an old kernel in a container).

Each identity runs tests/dspy_rlm/identity_probes.py as that uid (tests/identity.py starts it; CI runs as
root, so these tests need root and would otherwise not test what they name): it plants secrets in its own
home and working directory, starts the default sandbox, tries to read, list, write, connect (TCP and UDP to
its own loopback listeners) and signal out, and runs the RLM on the embedded model. A control run with
``isolation="none"`` shows that every probe does get through where nothing holds it.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

from tests.identity import IDENTITIES, NO_SANDBOX, NO_USERNS, NOBODY, REGULAR, Identity, run_as

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux identities (setuid, seccomp)"),
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root to start processes as other users"),
]

FULL = "userns+pidns+mountns+netns+newroot+nobody"
PROBE = (
    "import runpy, sys; sys.argv = ['identity_probes', {arg!r}]; "
    "runpy.run_module('tests.dspy_rlm.identity_probes', run_name='__main__')"
)


def probe(who: Identity, **args) -> dict:
    return run_as(who, PROBE.format(arg=json.dumps(args)))


@pytest.fixture(scope="module", params=IDENTITIES, ids=lambda who: who.name)
def report(request) -> dict:
    return {**probe(request.param, rlm=True), "who": request.param}


@pytest.mark.real_model
def test_nothing_gets_out_and_the_rlm_runs(report):
    assert report["probes"], report
    leaks = [name for name, outcome in report["probes"].items() if outcome != "blocked"]
    assert leaks == [], f"{report['isolation']}: {leaks}"
    assert report["written"] is False
    assert report["network_hits"] == 0
    assert report["ok_run"] == "45"
    assert report["restarts"] == 0  # the kill and the fork bomb left the worker and its parent standing
    assert set(report["planted"]) >= {"home_token", "home_ssh", "home_config", "cwd_dotenv"}
    assert report["rlm"] == {"answer": "8201", "ended": "submitted"}, report["rlm"]


def test_each_identity_reaches_the_level_its_kernel_allows(report):
    expected = {REGULAR: FULL, NOBODY: FULL, NO_USERNS: "landlock"}[report["who"]]
    assert report["isolation"] == expected, report["info"]
    if expected == "landlock":
        assert report["info"]["landlock"].startswith("abi "), report["info"]
        assert "sockets" in report["info"]["seccomp"]
        assert "refused (Operation not permitted)" in report["info"]["notes"]  # says why
    assert "exited with code" not in report["_stderr"]


def test_the_probes_do_get_through_where_nothing_holds_them():
    """The control: unsandboxed, the same probes read the secrets and reach the listeners."""
    got = probe(NO_USERNS, isolation="none")
    assert got["isolation"] == "none"
    leaked = {name for name, outcome in got["probes"].items() if outcome == "LEAK"}
    expected = {"read-home_token", "read-home_ssh", "read-cwd_dotenv", "read-host-cmdline", "list-home", "write-home"}
    assert expected | {"tcp-ctypes", "signal-host"} <= leaked
    assert got["restarts"] >= 1  # the kill of the worker's parent (the zygote) got through
    assert got["network_hits"] == 2  # TCP through ctypes and UDP from a child process (the audit hook is Python's)


@pytest.mark.real_model
def test_without_namespaces_or_landlock_the_rlm_runs_in_deno_or_refuses():
    got = probe(NO_SANDBOX, rlm=True)
    assert got["start_error"].startswith("SandboxUnavailable: no sandbox is available here"), got
    for way_out in ("pip install deno", "isolation='none'", "user namespaces", "Landlock"):
        assert way_out in got["start_error"]
    assert got["probes"] == {}  # no model code ran unsandboxed
    assert "Deno/Pyodide" in got["_stderr"]  # said once which sandbox the run took, and why
    assert got["rlm"] == {"answer": "8201", "ended": "submitted"}, got


@pytest.mark.parametrize("home", ["missing", "readonly"])
def test_a_missing_or_read_only_home_still_runs_sandboxed(home):
    who = Identity(f"uid 1501, home {home}", 1501, 1501, refuse_userns=True, home=home)
    got = probe(who)
    assert got["isolation"] == "landlock", got
    assert got["ok_run"] == "45"
    assert all(outcome == "blocked" for outcome in got["probes"].values()), got["probes"]


def test_a_mount_the_user_cannot_read_is_refused_with_the_cause():
    code = (
        "import json, os\nfrom dspy_rlm import SubprocessREPL\n"
        "os.makedirs('closed'); os.chmod('closed', 0)\n"
        "try:\n    SubprocessREPL(mounts={'closed': '/data'})\n    out = 'accepted'\n"
        "except ValueError as exc:\n    out = str(exc)\n"
        "print(json.dumps({'error': out}))"
    )
    got = run_as(REGULAR, code)
    assert "you cannot read the host path 'closed' (uid 1501)" in got["error"]
