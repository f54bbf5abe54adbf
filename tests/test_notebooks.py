"""The notebooks (issue 6 item 4, issue 23 item 3): stored without outputs, each says at its top how to run it,
runs top to bottom from any working directory (a fresh temporary one here) on the embedded model, using the
installed packages alone (no `benchmarks` import, no repository path), and ends with the right answer. The
last cell of each prints

    answer:   <the model's answer>
    expected: <the answer by plain Python>  (...)
    ended:    <Submitted | the tier that parsed it> (...)

and this test reads those lines from the executed notebook and checks them against an expected answer it computes
itself (``/etc/services`` is read here too), so a notebook that prints a wrong answer, or a wrong expectation, fails.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
TIMEOUT_S = 600  # per cell; each notebook takes under a minute on a 2-core CPU


def _services_port(service: str) -> int | None:
    """The port of ``service`` in this machine's ``/etc/services``, by the quickstart example's plain parse."""
    spec = importlib.util.spec_from_file_location("quickstart_example", ROOT / "examples" / "quickstart.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.services_port(Path(module.SERVICES).read_text(encoding="utf-8", errors="replace"), service)


#: notebook -> (the right answer, computed here; how the run must end: the first word of its ``ended:`` line)
ANSWERS = {
    "quickstart": (lambda: _services_port("submission"), "Submitted"),
    "real_file": (lambda: _services_port("ssh"), "Submitted"),
    "tiers": (lambda: "INC-4821", "tier3"),  # the incident ID in the notebook's log line
}


def test_notebooks_exist_and_are_stripped():
    nbformat = pytest.importorskip("nbformat")
    assert {p.stem for p in NOTEBOOKS} == set(ANSWERS), "each notebook needs its expected answer in ANSWERS"
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        top = nb.cells[0].source
        assert "How to run" in top and "jupyter execute" in top, f"{path.name} does not say at its top how to run it"
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, f"{path.name} has outputs"
                assert "benchmarks" not in cell.source and "DSPY_RLM_ROOT" not in cell.source, (
                    f"{path.name} reaches into the repository: it must run from the installed packages alone"
                )


def final_lines(nb) -> dict[str, str]:
    """The ``answer:`` / ``expected:`` / ``ended:`` lines the last code cell printed (name -> rest of the line)."""
    last = [c for c in nb.cells if c.cell_type == "code"][-1]
    text = "".join(o.text for o in last.outputs if o.output_type == "stream" and o.name == "stdout")
    return {m.group(1): m.group(2).strip() for m in re.finditer(r"^(answer|expected|ended):\s+(.*)$", text, re.M)}


@pytest.mark.real_model
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_ends_with_the_right_answer(path, tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("outlines", reason="the notebooks run the embedded model: the mlx or llamacpp extra")
    monkeypatch.delenv("DSPY_RLM_ROOT", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=TIMEOUT_S, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError on the first cell that raises
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    lines = final_lines(nb)
    assert set(lines) == {"answer", "expected", "ended"}, f"{path.name}'s last cell printed {lines}"
    right, ending = ANSWERS[path.stem]
    expected = str(right())
    assert lines["expected"].split()[0] == expected, lines  # the notebook's own expectation is the right one
    assert lines["answer"] == expected, lines  # ... and the model's answer equals it
    assert lines["ended"].split()[0] == ending, lines
    assert list(tmp_path.iterdir()) == [], "the notebook wrote into its working directory"
