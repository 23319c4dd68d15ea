"""Write the thin notebooks in notebooks/ from tools/notebook_specs/<name>.py (each defines CELLS).

Kept so that notebooks stay uniform: title and context, one parameters cell, paper beside model,
fidelity rows, what-if panel. Outputs are never written.
"""

import sys
from pathlib import Path

import nbformat

NB_DIR = Path(__file__).resolve().parent.parent / "notebooks"


def notebook(cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for kind, src, *tags in cells:
        cell = nbformat.v4.new_markdown_cell(src) if kind == "md" else nbformat.v4.new_code_cell(src)
        if tags:
            cell.metadata["tags"] = list(tags)
        nb.cells.append(cell)
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:02d}"
    return nb


def specs() -> dict:
    """Notebook name -> cell list, one spec module per notebook in tools/notebook_specs/."""
    out = {}
    for path in sorted((Path(__file__).resolve().parent / "notebook_specs").glob("*.py")):
        scope: dict = {}
        exec(compile(path.read_text(), str(path), "exec"), scope)  # noqa: S102 - our own spec files
        out[path.stem] = scope["CELLS"]
    return out


if __name__ == "__main__":
    available = specs()
    for name in sys.argv[1:] or list(available):
        nbformat.write(notebook(available[name]), NB_DIR / f"{name}.ipynb")
        print(f"wrote notebooks/{name}.ipynb")
