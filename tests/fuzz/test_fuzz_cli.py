"""Fuzz the ``dspy-rlm`` command line: its arguments and its context files, in process through ``cli.main``.

The LM is a scripted one that submits the size of what it was given (``len(context)`` or ``len(files)``), so a
run takes one sandboxed iteration and its answer says what the CLI actually handed to the model. Properties:
``main`` returns an exit code from the documented set (0 answered, 2 usage error, 3 failed) or argparse exits 2,
never a traceback; every file (binary, non-UTF-8, empty, huge, odd names) is read or refused with a one-line
UsageError; a directory of 10,000 files arrives whole.
"""

from __future__ import annotations

import os
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dspy_rlm import cli
from tests.dspy_rlm.scripted_lm import ScriptedLM, action
from tests.fuzz.conftest import count, examples

SIZE_CODE = "try:\n    n = len(context)\nexcept NameError:\n    n = len(files)\nSUBMIT(answer=str(n))"
EXIT_CODES = {cli.EXIT_OK, cli.EXIT_USAGE, cli.EXIT_FAILED}


@pytest.fixture(autouse=True)
def scripted(monkeypatch):
    """The CLI's LM is a scripted one; the CLI must not reconfigure the test process's logging."""
    lm = ScriptedLM(lambda call: action(SIZE_CODE) if call.role != "llm" else "ok")
    monkeypatch.setattr(cli, "resolve_lm", lambda name, max_tokens: lm)
    monkeypatch.setattr(cli, "_setup_logging", lambda verbose: None)
    return lm


def _main(argv: list[str]) -> int:
    try:
        return cli.main(argv)
    except SystemExit as exc:  # argparse's usage errors: exit 2 with its own message
        assert exc.code == cli.EXIT_USAGE, argv
        return cli.EXIT_USAGE


def _answer(capsys) -> str:
    return capsys.readouterr().out.strip()


# -- arguments ----------------------------------------------------------------------------------------
NUMERIC_FLAGS = ["--max-iters", "--max-llm-calls", "--max-tokens", "--max-time", "--budget-usd", "--max-file-mb"]
number_text = st.one_of(
    st.integers(-3, 50).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.sampled_from(["", "1e400", "0x10", "1_000", " 5", "٣", "-0", "+2", "1.5", "nan", "inf"]),
    st.text(max_size=6),
)


@settings(max_examples=examples(40), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(NUMERIC_FLAGS), number_text), max_size=3), st.text(max_size=40))
@example([("--max-iters", "-1")], "q")  # RLM raised ValueError (a traceback) for these before the argparse types
@example([("--max-iters", "0")], "q")
@example([("--budget-usd", "-5")], "q")
@example([("--max-llm-calls", "-3")], "q")
@example([("--max-time", "nan")], "q")  # accepted, and ran with a NaN deadline
@example([("--max-file-mb", "nan")], "q")  # ValueError: cannot convert float NaN to integer
def test_numeric_arguments(tmp_path_factory, capsys, flags, query):
    count("cli.arguments")
    doc = tmp_path_factory.mktemp("cli") / "doc.txt"
    doc.write_text("hello world")
    argv = ["run", "--context", str(doc), "--query", query, "-q"]
    for flag, value in flags:
        argv += [f"{flag}={value}"]
    code = _main(argv)
    assert code in EXIT_CODES
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    if code == cli.EXIT_OK:
        assert out.strip() == "11"


@pytest.mark.parametrize(
    "flag, path, message",
    [
        ("--trace", "{tmp}", "is a directory"),
        ("--trace", "{tmp}/missing/dir/t.json", "does not exist"),
        ("--html", "{tmp}/missing/t.html", "does not exist"),
    ],
)
def test_unwritable_outputs_are_refused_before_the_run(tmp_path, capsys, scripted, flag, path, message):
    """Regression: a --trace / --html path that could not be written raised after the run, and the answer was lost."""
    doc = tmp_path / "doc.txt"
    doc.write_text("abc")
    assert _main(["run", "--context", str(doc), "--query", "q", "-q", flag, path.format(tmp=tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert scripted.calls == []  # refused before any LM call


def test_an_output_that_fails_after_the_run_still_prints_the_answer(tmp_path, capsys, monkeypatch):
    doc = tmp_path / "doc.txt"
    doc.write_text("abcd")

    def disk_full(self, path):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr("dspy_rlm.trace.TraceNode.to_json", disk_full)
    code = _main(["run", "--context", str(doc), "--query", "q", "-q", "--trace", str(tmp_path / "t.json")])
    out, err = capsys.readouterr()
    assert code == cli.EXIT_USAGE and out.strip() == "4"
    assert "could not write" in err and "No space left" in err and "Traceback" not in err


# -- context files ------------------------------------------------------------------------------------
@settings(max_examples=examples(60), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.binary(max_size=4096)
    | st.text(max_size=300).map(lambda t: t.encode("utf-16"))
    | st.text(max_size=300).map(lambda t: t.encode("latin-1", "replace"))
)
@example(b"")
@example(b"\xff\xfe\x00\x00" * 100)
@example(b"\x00" * 5000)
@example("名前 é".encode("cp932", "replace") + b"\x80\x81")
def test_any_file_is_read_as_text(tmp_path_factory, data):
    count("cli.load_context")
    path = tmp_path_factory.mktemp("ctx") / "f.bin"
    path.write_bytes(data)
    from dspy_rlm.files import _binary_kind

    if _binary_kind(data[:8192]) is not None:  # NUL bytes (not UTF-16), a PDF, a zip...: refused in one line
        with pytest.raises(cli.UsageError, match="dspy-rlm reads text"):
            cli.load_context(path)
        return
    name, value = cli.load_context(path)
    assert name == "context" and isinstance(value, str)
    codec = "utf-16" if data.startswith((b"\xff\xfe", b"\xfe\xff")) else "utf-8"
    assert value == data.decode(codec, "replace").replace("\r\n", "\n").replace("\r", "\n")  # text mode


file_name = st.text(string.ascii_letters + string.digits + "é名 -_.", min_size=1, max_size=12).filter(
    lambda n: n not in (".", "..")
)


@settings(max_examples=examples(40), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(file_name, st.binary(max_size=300), min_size=1, max_size=8))
def test_any_directory_is_read_or_refused_in_one_line(tmp_path_factory, files):
    count("cli.load_context")
    root = tmp_path_factory.mktemp("dir")
    for name, data in files.items():
        (root / name).write_bytes(data)
    from dspy_rlm.files import COMPRESSED, _binary_kind

    texts = {  # no binary, no .git, no (random bytes named) .gz / .bz2 / .xz
        n
        for n, d in files.items()
        if _binary_kind(d[:8192]) is None and n not in cli.SKIP_DIRS and Path(n).suffix.lower() not in COMPRESSED
    }
    try:
        name, value = cli.load_context(root)
    except cli.UsageError as exc:
        assert "no readable text files" in str(exc) and not texts
        return
    assert name == "files" and set(value) == texts


@pytest.mark.parametrize(
    "data, expected",
    [
        (b"", "0"),
        ("café".encode("latin-1"), "4"),
        (b"\xef\xbb\xbfBOM", "4"),
    ],
    ids=["empty", "latin-1", "bom"],
)
def test_runs_on_odd_files_end_with_an_answer(tmp_path, capsys, data, expected):
    doc = tmp_path / "doc"
    doc.write_bytes(data)
    assert _main(["run", "--context", str(doc), "--query", "how long?", "-q"]) == cli.EXIT_OK
    assert _answer(capsys) == expected


def test_a_binary_file_is_refused_in_one_line(tmp_path, capsys):
    doc = tmp_path / "doc"
    doc.write_bytes(b"\x00\x01\x02binary\xff")
    assert _main(["run", "--context", str(doc), "--query", "how long?", "-q"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "binary data (NUL bytes); dspy-rlm reads text" in err[0]


def test_a_huge_file_is_refused_with_the_fix(tmp_path, capsys):
    huge = tmp_path / "huge.log"
    with huge.open("wb") as f:  # sparse: 30 GB on paper, nothing on disk
        f.truncate(30 * 10**9)
    assert _main(["run", "--context", str(huge), "--query", "q", "-q"]) == cli.EXIT_USAGE
    assert "raise --max-file-mb" in capsys.readouterr().err
    (tmp_path / "small.txt").write_text("ok")
    assert cli.load_context(tmp_path) == ("files", {"small.txt": "ok"})  # in a directory it is skipped


def test_a_directory_of_10000_files_arrives_whole(tmp_path, capsys):
    root = tmp_path / "many"
    for i in range(100):
        sub = root / f"d{i:02d}"
        sub.mkdir(parents=True)
        for j in range(100):
            (sub / f"f{j:02d}.txt").write_text(f"file {i} {j}")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("skipped")
    (root / "blob.bin").write_bytes(b"\0" * 10)
    assert _main(["run", "--context", str(root), "--query", "how many files?", "-q"]) == cli.EXIT_OK
    assert _answer(capsys) == "10000"


def test_unreadable_file_in_a_directory_is_skipped(tmp_path, capsys):
    if os.geteuid() == 0:  # root reads anything: make the file a dangling symlink instead
        (tmp_path / "gone.txt").symlink_to(tmp_path / "nowhere")
    else:
        locked = tmp_path / "locked.txt"
        locked.write_text("secret")
        locked.chmod(0)
    (tmp_path / "ok.txt").write_text("fine")
    assert cli.load_context(tmp_path) == ("files", {"ok.txt": "fine"})
