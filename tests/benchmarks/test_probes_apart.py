"""A probe is a first contact only if no evaluation file is among its files: every probe but those
:data:`benchmarks.first_contact.NOT_FIRST_CONTACT` names reads none of the corpus test split's files, compared as
resolved paths (probe 38 missed this by searching the manifest for names it builds from path parts); and a probe
written after it reads no training file either (probe 19 reads ``ubuntu.csv``, a training file: kept in the pool,
written before this check); nor a file of the held-out cases (``heldout.json``), which every scripted host check
reads (probe 50 read five: left out of the pool)."""

from __future__ import annotations

import json
import re
import sysconfig
from pathlib import Path

from benchmarks.corpus.manifest import TEST, TRAIN
from benchmarks.first_contact import NOT_FIRST_CONTACT

_ASKED = Path(__file__).resolve().parents[2] / "benchmarks" / "asked"


def _probe_files(probe: Path) -> set[str]:
    site = sysconfig.get_paths()["purelib"]
    return {str(Path(c["file"].replace("{site-packages}", site)).resolve()) for c in json.loads(probe.read_text())}


def _located(files: tuple) -> set[str]:
    return {str(p.resolve()) for f in files if (p := f.locate()) is not None}


def test_no_probe_reads_a_file_of_the_test_split_and_new_ones_no_training_file():
    test, train = _located(TEST), _located(TRAIN)
    held = _probe_files(_ASKED / "heldout.json")  # the held-out cases: every scripted host check reads them
    assert test and train and held, "the manifest's files are on this machine"
    for probe in sorted(_ASKED.glob("probe*.json")):
        files = _probe_files(probe)
        if probe.stem in NOT_FIRST_CONTACT:
            shared = files & (test | held)
            assert shared, f"{probe.stem} is listed as no first contact but shares no test or held-out file"
            continue
        assert not files & held, f"{probe.stem} reads held-out files {sorted(files & held)}"
        assert not files & test, f"{probe.stem} reads test-split files {sorted(files & test)}"
        number = int(re.sub(r"\D", "", probe.stem) or 0)
        assert number <= 38 or not files & train, f"{probe.stem} reads training files {sorted(files & train)}"
