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
