"""The example notebooks run from top to bottom (in a scratch directory,
with a real Jupyter kernel), so they cannot rot."""

from __future__ import annotations

import shutil

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import REPO

NOTEBOOKS = sorted((REPO / "examples").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, tmp_path):
    shutil.copy(path, tmp_path / path.name)
    nb = nbformat.read(tmp_path / path.name, as_version=4)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    # It drew its figures.
    assert any("image/png" in o.get("data", {}) for o in outputs), "no figure drawn"
