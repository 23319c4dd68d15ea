"""Notebooks are committed without outputs; outputs are regenerated into build/."""

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


def test_notebooks_folder_has_notebooks():
    assert NOTEBOOKS, "notebooks/ holds no notebook"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_committed_without_outputs(path):
    nb = json.loads(path.read_text())
    for i, cell in enumerate(nb["cells"]):
        assert not cell.get("outputs"), f"{path.name} cell {i} has outputs: strip them"
        assert not cell.get("execution_count"), f"{path.name} cell {i} has an execution count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_has_one_parameters_cell_of_literals(path):
    import ast

    nb = json.loads(path.read_text())
    tagged = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, f"{path.name} needs exactly one cell tagged 'parameters'"
    tree = ast.parse("".join(tagged[0]["source"]))
    for node in tree.body:
        assert isinstance(node, ast.Assign), f"{path.name}: parameters cell may only assign literals"
        ast.literal_eval(node.value)
