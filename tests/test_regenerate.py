"""vcperf regenerate: outputs, determinism, parameter checks, and safety on failure."""

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from vcperf import cli, params, regenerate

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parent.parent


def _digest(folder: Path) -> dict[str, str]:
    """sha256 of every file under ``folder`` (relative path -> hash): CSV, PNG, SVG, HTML and the
    executed notebooks."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def built(default_build):
    """The session's one default regeneration (``--jobs 2``; tests/conftest.py), shared by the tests below
    and the browser's report test."""
    return default_build


def test_writes_executed_notebooks_figures_tables_fidelity_and_index(built):
    for name in regenerate.notebooks():
        assert (built / "notebooks" / f"{name}.ipynb").exists()
    assert (built / "figures" / "robo_networks" / "transfer_time_vs_payload.png").stat().st_size > 10_000
    assert (built / "figures" / "robo_networks" / "transfer_time_vs_payload.svg").exists()
    assert (built / "tables" / "robo_networks" / "table01_networks_model.csv").exists()
    index = (built / "index.html").read_text()
    assert "figures/robo_networks/transfer_time_vs_payload.png" in index
    assert "notebooks/robo_networks.ipynb" in index
    import re

    from vcperf import studies

    assert not re.search(r"""src=["']https?://|<link[^>]*href=["']https?://""", index)  # no external assets
    # the only links out of the report: the papers' URLs in their citations
    assert set(re.findall(r"""href=["'](https?://[^"']*)""", index)) <= {s.url for s in studies.STUDIES.values()}


def test_build_fidelity_csv_equals_cli_output(built, tmp_path):
    out = tmp_path / "fid.csv"
    assert cli.main(["fidelity", "--format", "csv", "-o", str(out)]) == 0
    assert out.read_bytes() == (built / "fidelity.csv").read_bytes()


def test_regenerating_twice_is_byte_identical(built, tmp_path):
    """A second regeneration, one notebook at a time, gives the same bytes as the shared one (two workers)."""
    second = tmp_path / "build2"
    assert regenerate.run(second, jobs=1) == []
    first_files, second_files = _digest(built), _digest(second)
    assert len(first_files) >= 5
    assert any(name.endswith(".ipynb") for name in first_files)
    assert first_files == second_files


def test_unknown_parameter_is_rejected_before_running_and_lists_parameters(built):
    before = _digest(built)
    with pytest.raises(ValueError, match="has no parameter 'bogus'") as err:
        regenerate.run(built, only=["robo_networks"], overrides={"bogus": 1})
    assert "whatif_payload_bytes" in str(err.value)
    with pytest.raises(ValueError, match=r"whatif_payload_bytes must be in \[1000, 1e\+10\]"):
        regenerate.run(built, only=["robo_networks"], overrides={"whatif_payload_bytes": -5.0})
    with pytest.raises(ValueError, match="one of"):
        regenerate.run(built, only=["robo_networks"], overrides={"whatif_network": "carrier_pigeon"})
    with pytest.raises(ValueError, match="--only"):
        regenerate.run(built, only=["no_such_notebook"])
    assert _digest(built) == before


def test_cli_rejects_bad_parameter_with_exit_code_2(capsys):
    argv = ["regenerate", "--only", "robo_networks", "-p", "whatif_network=mars", "--output", "/nonexistent/x"]
    assert cli.main(argv) == 2
    assert "whatif_network" in capsys.readouterr().err


def test_params_lists_defaults_and_units(capsys):
    assert cli.main(["params", "robo_networks"]) == 0
    out = capsys.readouterr().out
    assert "whatif_payload_bytes = 3500000.0  [bytes] in [1000, 1e+10]" in out
    assert "interactive = True" in out


def test_parameter_comment_grammar():
    assert params.parse_assignment("rtt_s=0.5") == ("rtt_s", 0.5)
    assert params.parse_assignment("network=lan") == ("network", "lan")
    with pytest.raises(ValueError, match="key=value"):
        params.parse_assignment("no-equals")


def _failing_notebook(path: Path):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell('interactive = True  # -: widgets\noutput_dir = "."  # path: outputs')
    cell.metadata["tags"] = ["parameters"]
    nb.cells = [cell, nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_code_cell("raise RuntimeError('boom')")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    import jupytext

    jupytext.write(nb, path, fmt="py:percent")


def test_failing_notebook_names_cell_keeps_it_and_leaves_build_intact(tmp_path, monkeypatch):
    nbdir = tmp_path / "notebooks"
    nbdir.mkdir()
    shutil.copy(ROOT / "notebooks" / "robo_networks.py", nbdir)
    monkeypatch.setattr(regenerate.paths, "NOTEBOOK_DIR", nbdir)
    target = tmp_path / "build"
    assert regenerate.run(target, jobs=1) == []
    before = _digest(target)

    _failing_notebook(nbdir / "zz_broken.py")
    failures = regenerate.run(target, jobs=2)
    assert [f.notebook for f in failures] == ["zz_broken"]
    failure = failures[0]
    assert failure.cell is not None and "boom" in failure.message
    assert failure.kept.exists() and failure.kept.parent.name == "build-failed"
    kept = json.loads(failure.kept.read_text())
    assert any("boom" in json.dumps(c.get("outputs", [])) for c in kept["cells"])
    assert _digest(target) == before
    assert not (target / "notebooks" / "zz_broken.ipynb").exists()


def test_scenario_goes_to_its_own_folder(tmp_path):
    target = tmp_path / "scenario"
    assert regenerate.run(target, only=["robo_networks"], overrides={"whatif_payload_bytes": 1e9}) == []
    assert (target / "tables" / "robo_networks" / "table01_networks_model.csv").exists()
    assert not (target / "fidelity.csv").exists()  # the fidelity table describes the default scenario


def test_console_script_runs():
    exe = Path(sys.executable).parent / "vcperf"
    out = subprocess.run([str(exe), "params", "robo_networks"], capture_output=True, text=True, check=True)
    assert "whatif_network" in out.stdout


def test_params_file_is_validated_before_running(tmp_path, capsys):
    bad = tmp_path / "scenario.yaml"
    bad.write_text("whatif_payload_bytes: -1.0\n")
    argv = ["regenerate", "--only", "robo_networks", "--params", str(bad), "--output", str(tmp_path / "out")]
    assert cli.main(argv) == 2
    assert "whatif_payload_bytes must be in" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    not_a_mapping = tmp_path / "list.yaml"
    not_a_mapping.write_text("- 1\n- 2\n")
    assert cli.main(["regenerate", "--params", str(not_a_mapping), "--output", str(tmp_path / "out")]) == 2
    assert "mapping" in capsys.readouterr().err


def test_overrides_go_to_the_notebooks_that_declare_them():
    available = regenerate.notebooks()
    names, checked = regenerate.route_overrides(available, list(available), {"whatif_layout": "nfs_on_vcenter"},
                                                explicit=False)
    assert names == ["contentlib_deploy"]
    assert checked == {"contentlib_deploy": {"whatif_layout": "nfs_on_vcenter"}}
    assert set(regenerate.SKIPPED) == set(available) - {"contentlib_deploy"}
    with pytest.raises(ValueError, match="no notebook declares"):
        regenerate.route_overrides(available, list(available), {"whatif_nope": 1}, explicit=False)
    with pytest.raises(ValueError, match="has no parameter"):  # --only names notebooks: all must declare it
        regenerate.route_overrides(available, ["index"], {"whatif_layout": "nfs_on_vcenter"}, explicit=True)


def test_readme_scenario_example_changes_outputs_and_is_indexed(tmp_path, capfd):
    """The README's what-if example writes at least one file that differs from the default build, says
    which notebooks it skipped, and build/scenarios/index.html lists it with its parameters."""
    import re
    import shlex

    readme = (ROOT / "README.md").read_text()
    line = next(ln for ln in readme.splitlines() if "regenerate -p " in ln and "--scenario" in ln)
    argv = shlex.split(line.split("#")[0])[1:]  # drop .venv/bin/vcperf
    build = tmp_path / "build"
    assert cli.main(["regenerate", "--only", "contentlib_deploy", "--output", str(build)]) == 0
    capfd.readouterr()
    assert cli.main([*argv, "--output", str(build)]) == 0
    err = capfd.readouterr().err
    assert re.search(r"skipped .*robo_networks", err), err
    assert "[1/1] contentlib_deploy done" in err  # one progress line per notebook when not a terminal
    # progress from the start (issue 39): first the notebooks and the calibration cache (once the arguments are
    # checked: an input error stays one line), then each notebook started (by its worker) and finished
    said = [ln for ln in err.splitlines() if ln.startswith("vcperf regenerate: ")]
    assert re.fullmatch(r"vcperf regenerate: 1 notebook into .*, 1 at a time; (calibration cache|no calibration).*",
                        said[0]), said
    assert said.index("vcperf regenerate: started contentlib_deploy") < next(
        i for i, ln in enumerate(said) if "[1/1] contentlib_deploy done" in ln), said
    name = argv[argv.index("--scenario") + 1]
    scen = build / "scenarios" / name
    default, changed = _digest(build / "tables" / "contentlib_deploy"), _digest(scen / "tables" / "contentlib_deploy")
    assert any(default[k] != changed[k] for k in default.keys() & changed.keys())
    index = (build / "scenarios" / "index.html").read_text()
    assert name in index and "whatif_layout" in index and "nfs_on_vcenter" in index


def test_every_notebooks_whatif_parameters_change_its_saved_outputs(built, tmp_path):
    """Each notebook that declares scenario parameters, run once with all of them at a non-default value
    (tests/test_scenarios.py checks each one is read by a regeneration), saves tables, figures or cell
    outputs of its executed notebook (what its report page shows) that differ from the default build's."""
    from test_scenarios import non_default, scenario_parameters

    from vcperf import params as nbparams

    paths = regenerate.notebooks()
    wanted, declared = {}, {}  # notebook -> its scenario parameters at a non-default value; its parameters
    for name, path in paths.items():
        declared[name] = nbparams.read_parameters(path)
        overrides = {p: non_default(declared[name][p], declared[name]) for p in scenario_parameters(path)}
        if overrides:
            wanted[name] = overrides
    # One scenario run (two workers) for all notebooks: regenerate sends each notebook the overrides it
    # declares, so a name several notebooks declare takes one value, valid and not the default in each
    # (one of their own non-default values). A name with no such value is left out of the shared run and
    # the notebooks declaring it run alone afterwards with their own values.
    shared, conflicts = {}, set()
    for p in sorted({p for o in wanted.values() for p in o}):
        users = [n for n in wanted if p in wanted[n]]
        for candidate in dict.fromkeys(wanted[n][p] for n in users):
            try:
                if all(nbparams.check_overrides(paths[n], {p: candidate}) and candidate != declared[n][p].default
                       for n in users):
                    shared[p] = candidate
                    break
            except ValueError:
                continue
        else:
            conflicts.add(p)
    alone = [n for n in wanted if conflicts & set(wanted[n])]
    together = tmp_path / "together"
    assert regenerate.run(together, overrides=shared, jobs=2) == []
    for name in alone:
        assert regenerate.run(tmp_path / name, only=[name], overrides=wanted[name]) == [], name
    unchanged = []
    for name in wanted:
        target = tmp_path / name if name in alone else together
        assert (target / "notebooks" / f"{name}.ipynb").exists(), name
        default = {**_digest(built / "tables" / name), **_digest(built / "figures" / name),
                   **_cell_outputs(built / "notebooks" / f"{name}.ipynb")}
        changed = {**_digest(target / "tables" / name), **_digest(target / "figures" / name),
                   **_cell_outputs(target / "notebooks" / f"{name}.ipynb")}
        if not any(default.get(k) != v for k, v in changed.items()):
            unchanged.append(name)
    assert not unchanged, f"scenario outputs identical to the default build: {unchanged}"


def test_report_links_all_resolve_and_reader_facing_html_is_clean(built):
    """The link check over the whole build (every page, figure, table and notebook link resolves), every
    study page has a References section, and no page shows a seed file name or build-process wording."""
    from test_report import reader_facing_problems

    from vcperf import report, studies

    assert report.broken_links(built) == []
    assert (built / "scenarios" / "index.html").exists() and 'href="scenarios/index.html"' in (
        built / "index.html").read_text()
    for name in regenerate.notebooks():
        study = report.STUDY_OF_PREFIX.get(name.split("_")[0])
        if study:
            page = (built / "report" / report.page_of(name)).read_text()
            assert '<h2>References</h2>' in page and studies.STUDIES[study].full_title in page, name
    assert reader_facing_problems(built) == []


def _cell_outputs(path: Path) -> dict[str, str]:
    """sha256 of each code cell's outputs in an executed notebook (cell id -> hash)."""
    import json

    import nbformat

    nb = nbformat.read(path, as_version=4)
    return {f"{path.name}#{c.id}": hashlib.sha256(json.dumps(c.outputs, sort_keys=True).encode()).hexdigest()
            for c in nb.cells if c.cell_type == "code"}


def test_a_saved_figure_is_shown_as_the_png_written(built):
    """A notebook shows each figure it saved as the very PNG in figures/ (not drawn a second time), with the
    figure's own text, so the report and JupyterLab show what the build holds."""
    import base64

    nb = nbformat.read(built / "notebooks" / "robo_networks.ipynb", as_version=4)
    shown = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
             if "image/png" in o.get("data", {})]
    saved = {p.read_bytes() for p in (built / "figures" / "robo_networks").glob("*.png")}
    assert shown and saved
    assert all(base64.b64decode(o["data"]["image/png"]) in saved for o in shown)
    assert all(o["data"]["text/plain"].startswith("<Figure size") for o in shown)


def _builds(tmp_path):
    target, staging, old = tmp_path / "build", tmp_path / ".build.staging", tmp_path / ".build.old"
    target.mkdir(parents=True)
    (target / "index.html").write_text("previous")
    staging.mkdir()
    (staging / "index.html").write_text("new")
    return target, staging, old


@pytest.mark.parametrize("refused", ["target", "staging"])
def test_a_failed_swap_keeps_the_previous_build_and_removes_staging(refused, tmp_path, monkeypatch):
    """An immutable or read-only build folder (``chattr +i``): the swap's rename fails; the previous build
    stays in place, ``.build.staging`` is removed, and the error names the target."""
    import errno
    from pathlib import Path

    from vcperf.regenerate import execute

    target, staging, old = _builds(tmp_path)
    real = Path.rename
    bad = target if refused == "target" else staging

    def rename(self, dest):
        if self == bad:
            raise PermissionError(errno.EPERM, "Operation not permitted", str(self))
        return real(self, dest)

    monkeypatch.setattr(Path, "rename", rename)
    with pytest.raises(OSError, match="the new build could not be swapped in") as err:
        execute._swap(staging, target, old)
    assert err.value.filename == str(target)
    assert (target / "index.html").read_text() == "previous"
    assert not staging.exists() and not old.exists()
    monkeypatch.setattr(Path, "rename", real)
    target2, staging2, old2 = _builds(tmp_path / "ok")
    execute._swap(staging2, target2, old2)
    assert (target2 / "index.html").read_text() == "new" and not staging2.exists()


def test_failed_notebooks_are_reported_even_when_their_copies_cannot_be_kept(tmp_path, monkeypatch):
    """On a full disk the executed copies cannot be kept: each failure is still returned with its reason,
    and no empty ``build-failed/`` is left."""
    import errno

    from vcperf.regenerate import execute
    from vcperf.regenerate.notebook import Failure

    staging = tmp_path / ".build.staging"
    staging.mkdir()
    executed = [staging / f"nb{i}.ipynb" for i in range(2)]
    for path in executed:
        path.write_text("{}")
    failures = [Failure("nb0", 3, "ValueError: bad", executed[0]), Failure("nb1", None, "boom", executed[1]),
                Failure("fidelity", None, "no copy", None)]

    def full(src, dest, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(dest))

    monkeypatch.setattr(execute.shutil, "copy2", full)
    kept = execute._keep_failed(failures, tmp_path / "build-failed", staging)
    assert [f.notebook for f in kept] == ["nb0", "nb1", "fidelity"]
    assert kept[0].message == "ValueError: bad (its executed copy not kept: No space left on device)"
    assert all(f.kept is None for f in kept)
    assert not (tmp_path / "build-failed").exists() and not staging.exists()
    monkeypatch.undo()
    staging.mkdir()
    (staging / "nb0.ipynb").write_text("{}")
    kept = execute._keep_failed([Failure("nb0", 1, "x", staging / "nb0.ipynb")], tmp_path / "build-failed", staging)
    assert kept[0].kept == tmp_path / "build-failed" / "nb0.ipynb" and kept[0].kept.read_text() == "{}"


def test_each_failed_notebook_is_one_line(tmp_path, monkeypatch, capsys):
    from vcperf.regenerate import command
    from vcperf.regenerate.notebook import Failure

    failures = [Failure("robo_networks", 4, "ValueError: a\nmulti-line\n  message " + "x" * 500, None),
                Failure("vcha_overhead", None, "OSError: [Errno 28] No space left on device", None)]
    monkeypatch.setattr(command, "run", lambda *a, **k: failures)
    assert cli.main(["regenerate", "--output", str(tmp_path / "b")]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("vcperf regenerate: notebook robo_networks failed at cell 4: ValueError: a multi-line "
                               "message xxx") and lines[0].endswith("...") and len(lines[0]) < 400
    assert lines[1] == ("vcperf regenerate: notebook vcha_overhead failed at before any cell: OSError: [Errno 28] No "
                        "space left on device")
    assert lines[2].endswith("left as it was") and len(lines) == 3
