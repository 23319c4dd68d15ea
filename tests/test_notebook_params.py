"""Notebook parameters are checked inside the run: papermill direct, Binder and the CLI alike (issue 30).

Every notebook's second code cell starts with ``vcperf.params.check_notebook_parameters(globals(), name)``,
which re-reads the ``# unit, range [lo, hi]: meaning`` comments of its parameters cell."""

import ast
from pathlib import Path

import pytest

from vcperf import params

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_checks_its_parameters_first_thing_after_them(path):
    nb = params.read_notebook(path)
    code = [c for c in nb.cells if c.cell_type == "code"]
    first = [ln for ln in code[1].source.splitlines() if ln.strip() and not ln.startswith("%")][0]
    call = ast.parse(first).body[-1].value
    assert ast.unparse(call.func).endswith("check_notebook_parameters")
    assert ast.unparse(call.args[0]) == "globals()" and call.args[1].value == path.stem


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_each_notebooks_defaults_pass_its_own_check(path):
    ns = {name: p.default for name, p in params.read_parameters(path).items()}
    assert params.check_notebook_parameters(ns, path) == ns


@pytest.mark.parametrize(("notebook", "name", "bad", "message"), [
    ("robo_networks", "whatif_network", "mars", "must be one of"),
    ("robo_background_and_statistics", "planner_hosts", 10**7, r"must be in \[1, 500\]"),
    ("vmotion_precopy", "whatif_working_set_gib", 6000.5e3, r"must be in \[0.25, whatif_memory_gib = 64\.0\]"),
    ("vmotion_precopy", "whatif_memory_gib", float("nan"), "must be finite"),
    ("vcha_overhead", "whatif_clients", 8.5, "must be an integer"),
])
def test_a_bad_value_is_refused_naming_notebook_parameter_and_range(notebook, name, bad, message):
    path = ROOT / "notebooks" / f"{notebook}.py"
    ns = {n: p.default for n, p in params.read_parameters(path).items()} | {name: bad}
    with pytest.raises(ValueError, match=f"notebook {notebook}: parameter {name} {message}"):
        params.check_notebook_parameters(ns, notebook)


def test_a_working_set_larger_than_the_vm_is_refused_at_the_vms_memory():
    """Issue 30: a 6000 GiB working set on a 4 GiB VM is refused inside the run (the range's upper end
    names the memory parameter)."""
    path = ROOT / "notebooks" / "vmotion_precopy.py"
    ns = {n: p.default for n, p in params.read_parameters(path).items()} | {"whatif_memory_gib": 4.0,
                                                                            "whatif_working_set_gib": 6000.0}
    with pytest.raises(ValueError, match=r"whatif_working_set_gib must be in \[0.25, whatif_memory_gib = 4\.0\]"):
        params.check_notebook_parameters(ns, "vmotion_precopy")


def test_an_int_for_a_float_parameter_is_widened_in_the_namespace():
    ns = {n: p.default for n, p in params.read_parameters(ROOT / "notebooks" / "robo_networks.py").items()}
    ns["whatif_payload_bytes"] = 10**6
    params.check_notebook_parameters(ns, "robo_networks")
    assert isinstance(ns["whatif_payload_bytes"], float)


def test_a_missing_parameter_and_a_bad_notebook_argument_are_clear():
    with pytest.raises(ValueError, match="namespace must hold every parameter of notebook robo_networks; interactive"):
        params.check_notebook_parameters({}, "robo_networks")
    with pytest.raises(ValueError, match="namespace must be"):
        params.check_notebook_parameters([], "robo_networks")


@pytest.mark.kernel
def test_papermill_run_directly_stops_at_the_check(tmp_path):
    """``papermill`` with a bad parameter (no vcperf CLI in between) fails in the notebook's second code
    cell, naming the parameter, before any model runs."""
    pm = pytest.importorskip("papermill")
    from papermill.exceptions import PapermillExecutionError

    src = ROOT / "notebooks" / "robo_networks.py"
    nb = params.read_notebook(src)
    with pytest.raises(PapermillExecutionError) as err:
        pm.execute_notebook(nb, str(tmp_path / "out.ipynb"),
                            cwd=str(tmp_path), kernel_name="python3", progress_bar=False,
                            parameters={"whatif_network": "mars", "output_dir": str(tmp_path)})
    assert err.value.ename == "ValueError"
    assert "parameter whatif_network must be one of" in err.value.evalue and "'mars'" in err.value.evalue


def test_a_range_bound_may_name_an_earlier_parameter(tmp_path):
    """A working set no larger than the VM's memory: 6000 GiB on a 4 GiB VM is refused, by the CLI's
    override check and inside the run alike."""
    nb = tmp_path / "sized.py"
    nb.write_text('# %% [markdown]\n# # t\n\n# %% tags=["parameters"]\n'
                  'memory_gib = 64.0  # GiB, range [2, 6144]: guest memory\n'
                  'working_set_gib = 25.0  # GiB, range [0.25, memory_gib]: working set\n\n# %%\nx = 1\n')
    p = params.read_parameters(nb)
    assert p["working_set_gib"].hi == "memory_gib"
    assert "in [0.25, memory_gib]" in p["working_set_gib"].describe()
    with pytest.raises(ValueError, match=r"working_set_gib must be in \[0.25, memory_gib = 4.0\] GiB; got 6000.0"):
        params.check_notebook_parameters({"memory_gib": 4.0, "working_set_gib": 6000.0}, nb)
    with pytest.raises(ValueError, match=r"working_set_gib must be in \[0.25, memory_gib = 4.0\]"):
        params.check_overrides(nb, {"memory_gib": 4.0})  # the default working set no longer fits
    assert params.check_overrides(nb, {"memory_gib": 4.0, "working_set_gib": 2}) == {"memory_gib": 4.0,
                                                                                      "working_set_gib": 2.0}
    bad = tmp_path / "bad.py"
    bad.write_text(nb.read_text().replace("memory_gib]", "memory]"))
    with pytest.raises(ValueError, match="range bound 'memory' must name an earlier parameter"):
        params.read_parameters(bad)


def _jupytext_parameters_cell(path):
    cells = [c for c in params.read_notebook(path).cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(cells) == 1, path
    return cells[0].source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_quick_reader_finds_jupytexts_parameters_cell(path, tmp_path):
    """parameters_cell reads a plain percent file (and a .ipynb) without jupytext (whose imports cost seconds in
    every kernel): the same cell as jupytext's, as .py and as the .ipynb built from it (up to trailing blanks)."""
    import nbformat

    sources = params._tagged_sources(path)
    assert sources is not None, f"{path.name}: the quick reader fell back to jupytext"
    assert [s.rstrip() for s in sources] == [_jupytext_parameters_cell(path).rstrip()]
    assert params.parameters_cell(path) == sources[0]
    ipynb = tmp_path / f"{path.stem}.ipynb"
    nbformat.write(params.read_notebook(path), ipynb)
    assert params._tagged_sources(ipynb) == [_jupytext_parameters_cell(path)]
    assert params.read_parameters(ipynb) == params.read_parameters(path)


@pytest.mark.parametrize("marker", ['# %% tags=["parameters"] title', "# %% tags=[parameters]",
                                    '#%% tags=["parameters"]', '# %% [markdown] tags=["parameters"]'])
def test_the_quick_reader_leaves_an_unusual_file_to_jupytext(marker, tmp_path):
    """A tagged cell whose marker is not plain ``# %% tags=[...]``, one holding an escaped magic, a file
    without a percent header: jupytext reads them (the quick reader answers None)."""
    header = "# ---\n# jupyter:\n#   jupytext:\n#     text_representation:\n#       extension: .py\n" \
             "#       format_name: percent\n# ---\n\n"
    path = tmp_path / "nb.py"
    path.write_text(f"{header}{marker}\na = 1  # -: a\n\n# %%\nb = 2\n")
    assert params._tagged_sources(path) is None
    path.write_text(f'{header}# %% tags=["parameters"]\n# %time\na = 1  # -: a\n\n# %%\nb = 2\n')
    assert params._tagged_sources(path) is None
    path.write_text('# %% tags=["parameters"]\na = 1  # -: a\n\n# %%\nb = 2\n')
    assert params._tagged_sources(path) is None
    assert params.parameters_cell(path).strip() == "a = 1  # -: a"  # through jupytext


def test_checking_a_notebooks_parameters_imports_no_jupytext():
    """Every notebook kernel checks its parameters first thing: without jupytext, nbformat and jsonschema
    (jsonschema alone took seconds to import: its format checkers build a grammar)."""
    import subprocess
    import sys

    code = ("import sys, vcperf.params as p\n"
            f"ns = {{k: v.default for k, v in p.read_parameters({str(NOTEBOOKS[0])!r}).items()}}\n"
            f"p.check_notebook_parameters(ns, {str(NOTEBOOKS[0])!r})\n"
            "heavy = ('jupytext', 'nbformat', 'jsonschema', 'pandas', 'matplotlib')\n"
            "print(sorted(m for m in heavy if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_an_interactive_run_writes_nothing_unless_given_a_folder(tmp_path):
    """JupyterLab runs a notebook with its defaults (``interactive = True``, ``output_dir = "../build"``): the
    check hands it ``output_dir = None``, and vcperf.plotting's save functions write nothing for None, so an
    edited what-if never changes the files the report links to. A folder set by hand is kept (asked for), and a
    regeneration (``interactive = False``) keeps its own."""
    import pandas as pd

    from vcperf import plotting

    src = ROOT / "notebooks" / "robo_networks.py"
    ns = {n: p.default for n, p in params.read_parameters(src).items()}
    assert ns["interactive"] is True and ns["output_dir"] == "../build"
    assert params.check_notebook_parameters(ns, src)["output_dir"] is None and ns["output_dir"] is None
    asked = {**{n: p.default for n, p in params.read_parameters(src).items()}, "output_dir": str(tmp_path)}
    assert params.check_notebook_parameters(asked, src)["output_dir"] == str(tmp_path)
    regen = {**{n: p.default for n, p in params.read_parameters(src).items()}, "interactive": False}
    assert params.check_notebook_parameters(regen, src)["output_dir"] == "../build"
    assert pd.get_option("display.max_colwidth") is None  # notes shown in full, not cut at 50 characters
    plt = plotting.pyplot()
    fig, _ = plt.subplots()
    png = b"\x89PNG\r\n\x1a\n" + b"0" * 8
    before = sorted(tmp_path.rglob("*"))
    assert plotting.save_figure(fig, None, "robo_networks", "f") == []
    assert plotting.save_table(pd.DataFrame({"a": [1]}), None, "robo_networks", "t") is None
    assert plotting.save_png(png, None, "robo_networks", "p") is None
    plt.close(fig)
    assert sorted(tmp_path.rglob("*")) == before
    assert plotting.save_table(pd.DataFrame({"a": [1]}), tmp_path, "robo_networks", "t").is_file()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebooks_write_files_only_through_output_dir(path):
    """Every file a notebook writes goes through vcperf.plotting's save functions and its ``output_dir`` (None in an
    interactive run): no ``to_csv``, ``savefig``, ``open(`` or ``write_`` of its own."""
    code = "\n".join(c.source for c in params.read_notebook(path).cells if c.cell_type == "code")
    for call in (".to_csv(", ".savefig(", "open(", ".write_text(", ".write_bytes(", ".to_excel(", ".to_json("):
        assert call not in code, (path.stem, call)
