"""Scenarios change outputs: every what-if parameter a notebook declares is read by the code a
regeneration runs (not only by the interactive panel). The slow counterpart, which runs each notebook
with its what-if parameters changed and compares its saved tables and figures with the default build,
is tests/test_regenerate.py::test_every_notebooks_whatif_parameters_change_its_saved_outputs."""

import ast

import pytest

from vcperf import params as nbparams
from vcperf import regenerate

#: Parameters every notebook has: set by regeneration, not scenario parameters.
PLUMBING = ("interactive", "output_dir")


def scenario_parameters(path) -> list[str]:
    return [p for p in nbparams.read_parameters(path) if p not in PLUMBING]


def names_read_headless(path) -> set[str]:
    """Names the notebook's code reads when ``interactive`` is False: ``if interactive:`` bodies removed
    (their ``else`` kept), the parameters cell skipped."""

    class DropInteractive(ast.NodeTransformer):
        def visit_If(self, node):
            if isinstance(node.test, ast.Name) and node.test.id == "interactive":
                node.body = [ast.Pass()]
            self.generic_visit(node)
            return node

    names = set()
    for cell in nbparams.read_notebook(path).cells:
        if cell.cell_type != "code" or "parameters" in cell.metadata.get("tags", []):
            continue
        src = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
        tree = DropInteractive().visit(ast.parse(src))
        names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return names


@pytest.mark.parametrize("name", list(regenerate.notebooks()))
def test_every_scenario_parameter_is_read_by_a_regeneration(name):
    path = regenerate.notebooks()[name]
    unread = [p for p in scenario_parameters(path) if p not in names_read_headless(path)]
    assert not unread, f"{name}: {unread} only feed the interactive panel; a scenario setting them changes nothing"


def test_the_check_sees_a_parameter_read_only_by_the_panel(tmp_path):
    nb = tmp_path / "nb.py"
    nb.write_text('# %% tags=["parameters"]\ninteractive = True  # -: panel\nwhatif_x = 1.0  # s, range [0, 2]: x\n'
                  "whatif_y = 1.0  # s, range [0, 2]: y\n\n# %%\nif interactive:\n    show(whatif_x)\n"
                  "else:\n    save(whatif_y)\n")
    assert "whatif_y" in names_read_headless(nb) and "whatif_x" not in names_read_headless(nb)


def test_robo_notebooks_take_a_custom_link_as_scenario_parameters():
    nbs = regenerate.notebooks()
    for name in ("robo_networks", "robo_operations"):
        checked = nbparams.check_overrides(nbs[name], {"whatif_bandwidth_mbps": 10, "whatif_rtt_ms": 80,
                                                       "whatif_loss_percent": 0.1})
        assert checked == {"whatif_bandwidth_mbps": 10.0, "whatif_rtt_ms": 80.0, "whatif_loss_percent": 0.1}
    assert {"planner_bandwidth_mbps", "planner_rtt_ms", "planner_loss_percent"} <= set(
        nbparams.read_parameters(nbs["robo_background_and_statistics"]))


def non_default(p: nbparams.Parameter, declared: dict | None = None):
    """A valid value of parameter ``p`` other than its default (moderate: x1.5 inside the range). A range
    end that names another parameter (``range [0.25, whatif_memory_gib]``) is that parameter's default."""
    d = p.default
    if isinstance(d, bool):
        return not d
    if p.choices:
        return next(c for c in p.choices if c != d)
    if isinstance(d, (int, float)):
        lo, hi = p.lo if p.lo is not None else -float("inf"), p.hi if p.hi is not None else float("inf")
        lo, hi = (declared[e].default if isinstance(e, str) else e for e in (lo, hi))
        x = d * 1.5 if d else lo + 0.1 * (hi - lo)
        if x > hi:
            x = (d + lo) / 2 if d != lo else (d + hi) / 2
        if isinstance(d, int):
            x = round(x)
            if x == d:
                x = d + 1 if d + 1 <= hi else d - 1
            return int(x)
        return float(x)
    raise ValueError(f"no non-default value for {p.name}")


def test_non_default_values_are_valid_and_differ():
    for name, path in regenerate.notebooks().items():
        declared = nbparams.read_parameters(path)
        overrides = {p: non_default(declared[p], declared) for p in scenario_parameters(path)}
        nbparams.check_overrides(path, overrides)
        assert all(overrides[k] != declared[k].default for k in overrides), name
