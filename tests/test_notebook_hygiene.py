"""Notebooks have one source each: a jupytext percent file ``notebooks/<name>.py``.

Regeneration builds the ``.ipynb`` from it (outputs go to build/), so no ``.ipynb`` is committed and
what a user edits in JupyterLab is what ``make reproduce`` runs. Every notebook keeps the uniform
shape: a title, exactly one ``parameters`` cell of literals (first code cell), and code that calls vcperf.
"""

import ast
import subprocess
from pathlib import Path

import pytest

from vcperf.params import read_notebook, read_parameters

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))


def test_notebooks_folder_has_notebooks():
    assert NOTEBOOKS, "notebooks/ holds no notebook source"


def test_no_ipynb_is_committed():
    tracked = subprocess.run(["git", "ls-files", "*.ipynb"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    assert tracked.stdout.strip() == "", f"commit notebooks as notebooks/<name>.py only:\n{tracked.stdout}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_shape(path):
    nb = read_notebook(path)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# "), "first cell: a title"
    code = [c for c in nb.cells if c.cell_type == "code"]
    tagged = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, f"{path.name} needs exactly one cell tagged 'parameters'"
    assert code[0] is tagged[0], "the parameters cell is the first code cell"
    for node in ast.parse(tagged[0].source).body:
        assert isinstance(node, ast.Assign), f"{path.name}: parameters cell may only assign literals"
        ast.literal_eval(node.value)
    params = read_parameters(path)
    assert {"interactive", "output_dir"} <= set(params)
    assert any("vcperf" in c.source for c in code[1:]), "the notebook calls into vcperf"
    assert all(not c.get("outputs") for c in code), "no outputs in the source"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_cell_ids_are_stable(path):
    assert [c["id"] for c in read_notebook(path).cells] == [c["id"] for c in read_notebook(path).cells]
