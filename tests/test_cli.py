"""``dspy-rlm`` CLI (issue 6, item 5): exit codes, one-line errors, file/dir contexts, trace + HTML output,
progress lines, ``view`` and ``bench`` dispatch; end to end in a subprocess with the embedded model."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import dspy
import pytest

from dspy_rlm import cli
from dspy_rlm.trace import TraceNode

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONWARNINGS": "ignore"}


def _example():
    spec = importlib.util.spec_from_file_location("rlm_optimize_example_cli", ROOT / "examples" / "optimize.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dspy_rlm.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=ENV,
        cwd=ROOT,
    )


def _one_line_error(proc: subprocess.CompletedProcess) -> str:
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert "Traceback" not in proc.stderr
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("dspy-rlm: error:")
    return lines[0]


@pytest.fixture(autouse=True)
def _keep_logging(monkeypatch):
    """In-process runs must not reconfigure the test process's logging (the subprocess runs do)."""
    monkeypatch.setattr(cli, "_setup_logging", lambda verbose: None)


@pytest.fixture
def scripted(monkeypatch):
    """Route the CLI's LM to the scripted word-counting policy of examples/optimize.py."""
    ex = _example()
    monkeypatch.setattr(cli, "resolve_lm", lambda name, max_tokens: ex.scripted_lm())
    return ex


# -- errors -------------------------------------------------------------------------------------------
def test_bad_path_is_one_line_and_exit_2(tmp_path):
    proc = _cli("run", "--context", str(tmp_path / "missing.txt"), "--query", "x")
    assert proc.returncode == cli.EXIT_USAGE
    assert "context path not found" in _one_line_error(proc)


def test_bad_lm_name_is_one_line_and_exit_2(tmp_path):
    doc = tmp_path / "doc.txt"
    doc.write_text("hello")
    proc = _cli("run", "--context", str(doc), "--query", "x", "--lm", "no-such-provider/model-x")
    assert proc.returncode == cli.EXIT_USAGE
    assert "unknown LM" in _one_line_error(proc)
    assert proc.stdout == ""


def test_fifo_context_is_one_line_and_exit_2(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # reading it would block: refused before any read
    proc = _cli("run", "--context", str(fifo), "--query", "x")
    assert proc.returncode == cli.EXIT_USAGE
    assert "neither a regular file nor a directory" in _one_line_error(proc)


def test_unreadable_context_file_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    doc = tmp_path / "doc.txt"
    doc.write_text("secret")
    real_read = Path.read_bytes

    def read_bytes(self, *args, **kwargs):  # root ignores chmod 000, so the OS error is simulated
        if self == doc:
            raise PermissionError(13, "Permission denied", str(self))
        return real_read(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    assert cli.main(["run", "--context", str(doc), "--query", "x"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [f"dspy-rlm: error: cannot read context {doc}: Permission denied"]
    with pytest.raises(cli.UsageError, match="no readable text files"):  # a directory skips such files
        cli.load_context(tmp_path)


def test_lm_path_loads_local_model_with_outlines_lm(tmp_path, monkeypatch):
    import dspy_outlines

    loaded = []

    class FakeOutlinesLM:
        def __init__(self, model=None, *, max_tokens=512):
            loaded.append((model, max_tokens))

    monkeypatch.setattr(dspy_outlines, "OutlinesLM", FakeOutlinesLM)
    gguf, folder = tmp_path / "m.Q4.gguf", tmp_path / "model-dir"
    gguf.write_bytes(b"GGUF")
    folder.mkdir()
    for name in (str(gguf), str(folder)):
        assert isinstance(cli.resolve_lm(name, 64), FakeOutlinesLM)
    assert isinstance(cli.resolve_lm("embedded", 32), FakeOutlinesLM)
    assert loaded == [(gguf, 64), (folder, 64), (None, 32)]
    with pytest.raises(cli.UsageError, match="model file not found"):
        cli.resolve_lm(str(tmp_path / "missing.gguf"), 64)


def test_corrupt_gguf_is_one_line_and_exit_2(tmp_path):
    pytest.importorskip("mlx", reason="loading a local model needs MLX")
    doc, bad = tmp_path / "doc.txt", tmp_path / "broken.gguf"
    doc.write_text("hello")
    bad.write_bytes(b"not a gguf file at all")
    proc = _cli("run", "--context", str(doc), "--query", "x", "--lm", str(bad))
    assert proc.returncode == cli.EXIT_USAGE
    assert "cannot load the model" in _one_line_error(proc)


def test_view_rejects_non_trace(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    assert cli.main(["view", str(bad), "--no-open"]) == cli.EXIT_USAGE
    assert cli.main(["view", str(tmp_path / "nope.json"), "--no-open"]) == cli.EXIT_USAGE


def test_argparse_usage_error_is_exit_2():
    with pytest.raises(SystemExit) as info:
        cli.main(["run", "--query", "x"])  # --context missing
    assert info.value.code == 2


# -- inputs -------------------------------------------------------------------------------------------
def test_directory_becomes_files_dict(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("print('a')")
    (tmp_path / "README.md").write_text("# readme")
    (tmp_path / "blob.bin").write_bytes(b"\0\1\2binary")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]")
    name, files = cli.load_context(tmp_path)
    assert name == "files"
    assert files == {"README.md": "# readme", "src/a.py": "print('a')"}
    assert cli.load_context(tmp_path / "README.md") == ("context", "# readme")


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz"])
def test_compressed_text_is_decompressed_in_a_file_and_in_a_directory(tmp_path, suffix):
    import bz2
    import gzip
    import lzma

    compress = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}[suffix]
    text = "line one\nERROR opened INC-4821\n" * 50
    path = tmp_path / f"log.txt{suffix}"
    path.write_bytes(compress(text.encode()))
    assert cli.load_context(path) == ("context", text)
    assert cli.load_context(tmp_path) == ("files", {f"log.txt{suffix}": text})
    with pytest.raises(cli.UsageError, match="raise --max-file-mb"):  # bounded while decompressing
        cli.load_context(path, max_file_mb=100 / 1e6)
    path.write_bytes(b"not compressed at all")
    with pytest.raises(cli.UsageError, match=f"not a readable {suffix} file"):
        cli.load_context(path)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"%PDF-1.7\n%\xe2\xe3\n1 0 obj", "PDF"),
        (b"PK\x03\x04\x14\x00zip", "zip archive"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary data"),
    ],
)
def test_a_binary_file_is_refused_with_what_it_is(tmp_path, data, says):
    path = tmp_path / "document"
    path.write_bytes(data)
    with pytest.raises(cli.UsageError, match=f"{says}.*dspy-rlm reads text"):
        cli.load_context(path)
    import gzip

    (tmp_path / "packed.gz").write_bytes(gzip.compress(data))
    with pytest.raises(cli.UsageError, match="decompresses to"):
        cli.load_context(tmp_path / "packed.gz")


def test_cli_refuses_a_compressed_binary_with_exit_2(tmp_path, capsys):
    import gzip

    (tmp_path / "README.gz").write_bytes(gzip.compress(b"\x00\x01\x02" * 100))
    assert cli.main(["run", "--context", str(tmp_path / "README.gz"), "--query", "q"]) == cli.EXIT_USAGE
    assert "decompresses to binary data" in capsys.readouterr().err


# -- runs with the scripted LM (in process) -----------------------------------------------------------
def test_run_submitted_writes_trace_html_and_progress(scripted, tmp_path, capsys):
    ex = scripted.make_examples(1, seed=3)[0]
    doc = tmp_path / "doc.txt"
    doc.write_text(ex.context)
    trace, page = tmp_path / "t.json", tmp_path / "t.html"
    code = cli.main(["run", "--context", str(doc), "--query", ex.query, "--trace", str(trace), "--html", str(page)])
    out, err = capsys.readouterr()
    assert code == cli.EXIT_OK
    assert out.strip() == ex.answer
    assert "[rlm] thinking | iteration 1/6 | depth 0/1" in err  # plain progress lines: not a TTY
    assert "result: submitted (submit)" in err
    loaded = TraceNode.from_json(trace)
    assert loaded.result_kind == "submitted" and len(loaded.iterations) == 2
    assert page.read_text().startswith("<!DOCTYPE html>")
    assert cli.main(["view", str(trace), "--out", str(tmp_path / "v.html"), "--no-open"]) == cli.EXIT_OK
    assert (tmp_path / "v.html").exists()


def test_run_json_output(scripted, tmp_path, capsys):
    ex = scripted.make_examples(1, seed=4)[0]
    doc = tmp_path / "doc.txt"
    doc.write_text(ex.context)
    assert cli.main(["run", "--context", str(doc), "--query", ex.query, "--json", "-q"]) == cli.EXIT_OK
    out, err = capsys.readouterr()
    payload = json.loads(out)
    assert payload["answer"] == ex.answer and payload["result"]["kind"] == "submitted"
    assert "[rlm]" not in err


def test_extracted_exit_codes(scripted, tmp_path, capsys):
    ex = scripted.make_examples(1)[0]
    doc = tmp_path / "doc.txt"
    doc.write_text(ex.context)
    args = ["run", "--context", str(doc), "--query", ex.query, "--max-iters", "1"]
    assert cli.main(args) == cli.EXIT_OK
    assert "result: extracted (iterations)" in capsys.readouterr().err
    assert cli.main([*args, "--strict"]) == cli.EXIT_EXTRACTED_STRICT


def test_failed_run_exit_3(monkeypatch, tmp_path, capsys):
    class Broken(dspy.BaseLM):
        def forward(self, prompt=None, messages=None, **kwargs):
            raise RuntimeError("LM offline")

    monkeypatch.setattr(cli, "resolve_lm", lambda name, max_tokens: Broken("local/broken"))
    doc = tmp_path / "doc.txt"
    doc.write_text("hello")
    assert cli.main(["run", "--context", str(doc), "--query", "x", "-q"]) == cli.EXIT_FAILED
    out, err = capsys.readouterr()
    assert out == ""
    assert "error: the run failed" in err and "result: failed" in err
    assert "Traceback" not in err


def test_bench_dispatches_to_the_benchmark(capsys):
    assert cli.main(["bench", "longcontext", "--help"]) == 0
    assert "benchmarks.longcontext" in capsys.readouterr().out


# -- end to end with the embedded model ---------------------------------------------------------------
@pytest.mark.real_model
@pytest.mark.timeout(1200)
def test_end_to_end_embedded_model(tmp_path):
    """The CLI on the embedded model takes the small profile, as the quickstart does (#15 item 5), and finds the
    fact: a grounded read for a phrase of the query, then SUBMIT of the value it printed (#10 item 6)."""
    lines = [f"Entry {i}: routine maintenance, nothing unusual." for i in range(60)]
    lines.insert(41, "Entry 41: the vault access code is 31337.")
    doc = tmp_path / "log.txt"
    doc.write_text("\n".join(lines))
    trace = tmp_path / "trace.json"
    # --max-time only bounds a run on a very busy machine: a quiet 2-core CPU takes a few seconds per step.
    proc = _cli(
        "run",
        "--context",
        str(doc),
        "--query",
        "What is the vault access code?",
        "--max-iters",
        "4",
        "--max-tokens",
        "96",
        "--max-time",
        "300",
        "--trace",
        str(trace),
        "--json",
        timeout=900,
    )
    assert proc.returncode == cli.EXIT_OK, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert "[rlm] thinking | iteration 1/4" in proc.stderr
    assert "LM calls 1 |" in proc.stderr  # the spend moves after each LM call
    payload = json.loads(proc.stdout)
    assert payload["result"]["kind"] == "submitted" and payload["answer"] == "31337", payload
    assert "result: submitted" in proc.stderr
    data = json.loads(trace.read_text())
    assert data["result_kind"] == "submitted" and "profile: small" in data["warnings"]
    first = data["iterations"][0]["code_executions"][0]["code"]
    assert first.startswith(("print(search(", "print(record_of(", "print(field_of(")), first  # a grounded read


# -- the newcomer's list (issue 31) -------------------------------------------------------------------
@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_query_is_refused_at_once(tmp_path, capsys, query):
    doc = tmp_path / "doc.txt"
    doc.write_text("first line of the file\n")
    assert cli.main(["run", "--context", str(doc), "--query", query]) == cli.EXIT_USAGE
    out, err = capsys.readouterr()
    assert out == "" and err.strip().splitlines() == [
        "dspy-rlm: error: --query is empty: ask a question, e.g. --query 'Which port does ssh use?'"
    ]


def test_an_api_lm_without_its_key_is_a_configuration_error_exit_2_printed_once(tmp_path):
    doc = tmp_path / "doc.txt"
    doc.write_text("hello")
    env = {k: v for k, v in ENV.items() if k != "OPENAI_API_KEY"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "dspy_rlm.cli",
            "run",
            "--context",
            str(doc),
            "--query",
            "x",
            "--lm",
            "openai/gpt-4o-mnii",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )
    assert proc.returncode == cli.EXIT_USAGE, proc.stderr
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.count("To fix:") == 1 and proc.stderr.count("no API key found") == 1, proc.stderr  # once
    assert "dspy-rlm: error: the LM is not configured" in proc.stderr
    assert "iteration 2/" not in proc.stderr  # no second try


def test_help_says_the_limits_and_refusals():
    run = cli.build_parser()._subparsers._group_actions[0].choices["run"]
    text = " ".join(run.format_help().split())
    assert "over --max-file-mb (default 20 MB" in text and "Refused, exit 2" in text and "empty --query" in text
    assert "skipped" in text


def test_view_never_overwrites_a_page_it_did_not_write(scripted, tmp_path, capsys):
    ex = scripted.make_examples(1, seed=3)[0]
    doc, trace, page = tmp_path / "doc.txt", tmp_path / "out.json", tmp_path / "out.html"
    doc.write_text(ex.context)
    args = ["run", "--context", str(doc), "--query", ex.query, "--trace", str(trace), "--html", str(page), "-q"]
    assert cli.main(args) == cli.EXIT_OK
    written_by_run = page.read_bytes()
    assert cli.main(["view", str(trace), "--no-open"]) == cli.EXIT_OK
    assert page.read_bytes() == written_by_run  # run --html's page is left alone
    viewed = tmp_path / "out.view.html"
    assert capsys.readouterr().out.strip().splitlines()[-1] == str(viewed) and viewed.exists()
    assert cli.main(["view", str(trace), "--no-open"]) == cli.EXIT_OK  # its own page: rewritten in place
    assert sorted(p.name for p in tmp_path.glob("*.html")) == ["out.html", "out.view.html"]
    mine = tmp_path / "notes.html"
    mine.write_text("<p>my notes</p>")
    assert cli.main(["view", str(trace), "--out", str(mine), "--no-open"]) == cli.EXIT_USAGE
    assert mine.read_text() == "<p>my notes</p>" and "not written by dspy-rlm view" in capsys.readouterr().err
    assert cli.main(["view", str(trace), "--out", str(viewed), "--no-open"]) == cli.EXIT_OK


INTERRUPTIBLE = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "  # a background job ignores it
    "from dspy_rlm.cli import main; sys.exit(main(sys.argv[1:]))"
)


@pytest.mark.real_model
@pytest.mark.timeout(600)
def test_ctrl_c_stops_the_lm_step_and_still_writes_the_trace_and_json(tmp_path):
    """SIGINT during the embedded model's first (cold, several-second) step: exit 130 within seconds, with the
    trace and the --json result (failed, interrupted) written."""
    import signal
    import time

    doc, trace = tmp_path / "services.txt", tmp_path / "t.json"
    doc.write_text(Path("/etc/services").read_text() if Path("/etc/services").exists() else "ssh 22/tcp\n" * 300)
    env = {**ENV, "XDG_CACHE_HOME": str(tmp_path / "cache")}  # no stored prefix: the first step is slow
    proc = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTIBLE, "run", "--context", str(doc), "--query", "Which port does ssh use?"]
        + ["--trace", str(trace), "--json", "--max-tokens", "96"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    seen = ""
    while "iteration 1/" not in seen:  # the model is loaded and the first LM step has begun
        line = proc.stderr.readline()
        assert line, f"the run ended before its first step: {seen}"
        seen += line
    time.sleep(0.5)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    took = time.monotonic() - sent
    assert proc.returncode == cli.EXIT_INTERRUPTED, seen + err
    assert took < 5, f"{took:.1f} s from SIGINT to exit"  # the step alone takes longer; ~1-2 s here under load
    payload = json.loads(out)
    assert payload["result"]["kind"] == "failed" and payload["result"]["reason"] == "interrupted"
    assert payload["trace"] == str(trace)
    assert json.loads(trace.read_text())["result_kind"] == "failed"
    assert "dspy-rlm: interrupted" in err and "Traceback" not in err


def test_no_sandbox_is_a_one_line_usage_error_naming_the_ways_out(monkeypatch, tmp_path, capsys):
    from dspy_rlm.sandbox import choose
    from dspy_rlm.sandbox.errors import SandboxUnavailable

    def refuse():
        raise SandboxUnavailable(choose.unavailable_message({"notes": ["user namespaces refused (EPERM)"]}))

    monkeypatch.setattr(choose, "choose", refuse)
    monkeypatch.setattr(cli, "resolve_lm", lambda name, max_tokens: dspy.utils.DummyLM([{"answer": "x"}]))
    doc = tmp_path / "doc.txt"
    doc.write_text("hello")
    assert cli.main(["run", "--context", str(doc), "--query", "x", "-q"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert "no sandbox is available here" in err and "pip install deno" in err and "Traceback" not in err
