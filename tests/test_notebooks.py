"""The notebooks (issue 6, item 4) are stored without outputs and execute top to bottom (nbclient)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
TIMEOUT_S = 600  # per cell; each notebook takes a few minutes on a 2-core CPU


def test_notebooks_exist_and_are_stripped():
    nbformat = pytest.importorskip("nbformat")
    assert {p.stem for p in NOTEBOOKS} >= {"quickstart", "tiers"}
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        assert "How to run" in nb.cells[0].source, f"{path.name} does not say at its top how to run it"
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, f"{path.name} has outputs"


@pytest.mark.real_model
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path, tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("mlx", reason="the notebooks run the embedded model, which needs MLX")
    monkeypatch.delenv("DSPY_RLM_ROOT", raising=False)  # the kernel runs in tmp_path: it finds the repo itself
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=TIMEOUT_S, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
