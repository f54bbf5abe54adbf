"""Shell scripts as records (dspy_rlm.library.shellformat): the options of a ``*-config`` script's ``case`` over its
arguments, its usage text's options, its top-level variables and functions; detection only for a shell's shebang or
a text that is clearly shell; a few questions through the scripted policy. Invented scripts only."""

import pytest

from dspy_rlm.library.shellformat import parse_shell
from dspy_rlm.library.shellwords import looks_shell
from dspy_rlm.library.structure import _detect, detect
from tests.dspy_rlm.scripted import ask_scripted

KILN_CONFIG = """#! /bin/sh
# kilnctl-config: how to build against libkiln

prefix="/opt/kiln"
exec_prefix="${prefix}"
exec_prefix_set=no
libdir="${prefix}/lib/x86_64-linux-gnu"
version='4.7.19'

usage()
{
    cat <<EOF
Usage: kilnctl-config [OPTION]...

Known values for OPTION are:

  --prefix            print the installation prefix
  --libdir            print the library directory
  --cflags            print pre-processor and compiler flags
  --libs              print the linker flags for libkiln
  --glaze=NAME        choose a glaze backend (one of the
                      following: matte gloss crackle)
  -h, --help          display this help and exit
  --version           output version information
EOF
    exit $1
}

if test $# -eq 0; then
    usage 1 1>&2
fi

while test $# -gt 0; do
    case "$1" in
    -*=*) optarg=`echo "$1" | sed 's/[-_a-zA-Z0-9]*=//'` ;;
    *) optarg= ;;
    esac

    case "$1" in
    --prefix=*)
        prefix=$optarg
        if [ $exec_prefix_set = no ]; then
            exec_prefix=$optarg
        fi
        ;;
    --prefix)
        echo $prefix
        ;;
    --libdir)
        echo "${libdir}"
        ;;
    --version)
        echo 4.7.19
        exit 0
        ;;
    --cflags)
        echo -I${prefix}/include/kiln -DKILN_SHARED=1
        ;;
    --libs)
        echo -L${libdir} -lkiln -lm
        ;;
    --glaze=*)
        glaze=$optarg
        ;;
    -h|--help)
        usage 0
        ;;
    *)
        usage 1 1>&2
        ;;
    esac
    shift
done

exit 0
"""

INIT_SCRIPT = """#!/bin/sh
### BEGIN INIT INFO
# Provides:          emberd
### END INIT INFO

DAEMON=/usr/sbin/emberd
NAME=emberd
PIDFILE=/run/emberd.pid
DESC="ember relay daemon"

do_start() {
    start-stop-daemon --start --quiet --pidfile $PIDFILE --exec $DAEMON
}

case "$1" in
  start)
    echo "Starting $DESC"
    do_start
    ;;
  stop)
    echo "Stopping $DESC"
    start-stop-daemon --stop --quiet --pidfile $PIDFILE
    ;;
  restart|force-reload)
    $0 stop
    $0 start
    ;;
  status)
    status_of_proc -p $PIDFILE $DAEMON $NAME && exit 0 || exit $?
    ;;
  *)
    echo "Usage: $0 {start|stop|restart|force-reload|status}" >&2
    exit 3
    ;;
esac
"""

NO_SHEBANG = """# kiln prompt helpers, sourced by ~/.bashrc
kiln_prompt_color=auto
kiln_prompt_char='>'

kiln_status() {
    if [ -r /run/kiln.state ]; then
        cat /run/kiln.state
    fi
}

kiln_mode() {
    case "$1" in
    fire) echo hot ;;
    cool) echo cold ;;
    esac
    if [ -n "$KILN_DEBUG" ]; then
        echo debug
    fi
}

for f in ~/.kiln.d/*.sh; do
    if [ -r "$f" ]; then
        . "$f"
    fi
done
"""


def _by_key(text: str) -> dict:
    return {r.key: r for r in detect(text).records}


def test_a_config_script_reads_as_its_options_variables_and_usage():
    s = detect(KILN_CONFIG)
    assert (s.kind, s.detail) == ("assignments", "shell")
    r = _by_key(KILN_CONFIG)
    assert r["prefix"].get("prefix") == "/opt/kiln" and r["prefix"].line == 4
    assert r["libdir"].get("libdir") == "${prefix}/lib/x86_64-linux-gnu"
    assert r["version"].get("version") == "4.7.19"
    assert r["--version"].get("prints") == "4.7.19" and r["--version"].get("exits") == "0"
    assert r["--version"].get("help") == "output version information"
    assert (r["--version"].line, r["--version"].end_line) == (52, 55)
    assert r["--libdir"].get("prints") == "${libdir}" and r["--libdir"].get("help") == "print the library directory"
    assert r["--prefix"].get("prints") == "$prefix"
    assert r["--cflags"].get("prints") == "-I${prefix}/include/kiln -DKILN_SHARED=1"
    assert r["--prefix=*"].get("sets").startswith("prefix=$optarg") and r["--prefix=*"].get("prints") is None
    assert r["--glaze=*"].get("sets") == "glaze=$optarg"
    assert r["-h"].get("aliases") == "--help" and r["-h"].get("runs") == "usage 0"
    assert r["-h"].get("help") == "display this help and exit"
    glaze = r["--glaze=NAME"]  # the usage text's own option: not the case's pattern as written
    assert glaze.get("help").startswith("choose a glaze backend") and glaze.get("help").endswith("crackle)")
    assert (glaze.line, glaze.end_line) == (21, 22)
    assert "usage" not in r  # the function holding the usage text: its options are the records
    assert "*" not in r and "-*=*" not in r  # the catch-all and the glob are no options
    assert sum(1 for x in s.records if x.get("help")) == 7


def test_an_init_script_reads_as_its_actions():
    r = _by_key(INIT_SCRIPT)
    assert r["DESC"].get("DESC") == "ember relay daemon"
    assert r["start"].get("prints") == "Starting $DESC" and r["start"].get("runs") == "do_start"
    assert r["restart"].get("aliases") == "force-reload"
    assert r["status"].get("exits") is None  # "&& exit 0 || exit $?": no status of its own
    assert r["do_start"].get("runs").startswith("start-stop-daemon --start")
    assert (r["stop"].line, r["stop"].end_line) == (20, 23)


def test_a_sourced_script_without_a_shebang_is_shell_when_clearly_so():
    assert looks_shell(NO_SHEBANG.split("\n")) == 0.9
    s = detect(NO_SHEBANG)
    assert s.detail == "shell"
    assert {"kiln_prompt_color", "kiln_prompt_char", "kiln_status", "kiln_mode"} <= {r.key for r in s.records}
    assert _by_key(NO_SHEBANG)["kiln_prompt_char"].get("kiln_prompt_char") == ">"


MAKEFILE = """# build kiln
CC = gcc
CFLAGS = -O2 -Wall
PREFIX = /usr/local

all: kiln

install: kiln
\tif [ -d $(PREFIX) ]; then \\
\t  install -m 755 kiln $(PREFIX)/bin; \\
\tfi
\tcase "$(CC)" in gcc) echo gnu ;; *) echo other ;; esac
\tfor f in a b; do echo $$f; done

clean:
\tif [ -f kiln ]; then rm kiln; fi
"""

PYTHON = """import sys


def main(argv):
    if len(argv) > 1:
        case = argv[1]
    for arg in argv:
        print(arg)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
"""

PROSE = """In case of fire, leave the kiln closed.
If the glaze runs, then scrape it off and fire again.
Case studies in the appendix show why; esac is no word here.
Then the kiln cools, and if it cracks, fi is what the potter says.
"""


@pytest.mark.parametrize("text", [MAKEFILE, PYTHON, PROSE])
def test_detection_refuses_other_formats(text):
    assert looks_shell(text.split("\n")) == 0.0
    assert detect(text).detail != "shell"


def test_a_shebang_of_another_interpreter_or_a_python_trampoline_is_no_shell():
    assert looks_shell(["#!/usr/bin/perl -w", "if ($x) { print 1; }"]) == 0.0
    assert looks_shell(["#!/bin/sh", "'''exec' python3 \"$0\" \"$@\"", "'''", "import os"]) == 0.0
    for line in ("#!/bin/sh", "#! /bin/bash -e", "#!/usr/bin/env bash", "#!/bin/dash", "#!/usr/bin/env zsh"):
        assert looks_shell([line, "echo hi"]) == 1.0


def test_every_value_is_a_span_and_every_record_lies_on_its_lines():
    for text in (KILN_CONFIG, INIT_SCRIPT, NO_SHEBANG):
        lines = text.split("\n")
        s = _detect(text)
        for r in s.records:
            assert 1 <= r.line <= r.end_line <= len(lines)
            assert r.key.split(" ")[0] in "\n".join(lines[r.line - 1 : r.end_line])
            assert all(v in text for _, v in r.fields), r


def test_quotes_heredocs_and_here_strings_do_not_confuse_the_commands():
    text = (
        '#!/bin/bash\nmsg="a \\"quoted\\" ;; esac | word"\nread -r x <<< "$msg"\ncount=$(echo "$msg" | wc -c)\n'
        "case $1 in\n  --show) cat <<'END'\nline one\nEND\n  ;;\n  --count) printf '%s\\n' \"$count\" ;;\nesac\n"
        "last=1\n"
    )
    raws, _ = parse_shell(text.split("\n"))
    got = {key: dict(fields) for _, _, fields, key, _ in raws}
    assert got["msg"]["msg"] == 'a \\"quoted\\" ;; esac | word' and got["count"]["count"] == '$(echo "$msg" | wc -c)'
    assert got["--show"]["prints"] == "line one" and got["--count"]["prints"] == "$count"
    assert got["last"]["last"] == "1"


@pytest.mark.parametrize(
    "question, answer",
    [
        ("What version does kilnctl-config print for --version?", "4.7.19"),
        ("What is the default prefix in kilnctl-config?", "/opt/kiln"),
        ("What does the help text say --libs does?", "print the linker flags for libkiln"),
    ],
)
def test_questions_about_a_config_script(question, answer):
    # read right; Extracted, as every read of a shell script's records is until a calibration fit measures them
    # (dspy_rlm.profiles.calibration.UNMEASURED_DETAILS)
    assert ask_scripted(question, KILN_CONFIG) == (answer, "extracted")


@pytest.mark.parametrize(
    "question, answer",
    [
        ("Which kilnctl-config option prints the library directory?", "--libdir"),  # a reverse lookup by meaning
        ("According to its usage text, what does --libs do?", "print the linker flags for libkiln"),
        ("Which option is described as 'print the library directory'?", "--libdir"),  # the help lies off its lines
    ],
)
def test_questions_the_policy_is_unsure_of_are_never_submitted_wrong(question, answer):
    got, ending = ask_scripted(question, KILN_CONFIG)
    assert ending != "submitted" or got == answer, got


def test_what_an_option_reports_is_what_it_prints():
    # xmlsec1-config's --version: "report" named none of prints, help, exits (no version variable to read)
    text = KILN_CONFIG.replace("version='4.7.19'\n", "")
    assert ask_scripted("What version does kilnctl-config report for --version?", text) == ("4.7.19", "extracted")


def test_a_count_of_every_record_of_a_script_is_unsure():
    # its options, variables and functions are all records: 14 had been Submitted for "how many options" (7)
    got, ending = ask_scripted("How many options does the usage text list?", KILN_CONFIG, "int")
    assert ending != "submitted" or got == 7, got
