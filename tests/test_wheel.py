"""vcperf as an installed package, not only as a checkout.

``import vcperf`` stays light and lists every submodule. The slow tests build the wheel from a copy
of the source tree, check that it ships every package (``vcperf.views``, the study subpackages) and
every table of ``data/`` (as ``vcperf/_data``), install it into a fresh venv (dependencies from the
running interpreter's site-packages, through a ``.pth`` file, so no network is needed) and run
vcperf there from a folder outside the checkout, with ``PYTHONPATH`` unset.
"""

from __future__ import annotations

import os
import pkgutil
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

import vcperf

ROOT = Path(__file__).resolve().parent.parent
STUDY_PACKAGES = ("vcha", "robo", "ft", "contentlib", "vmotion")
HEAVY = ("numpy", "pandas", "scipy", "matplotlib", "ipywidgets")


def _checkout_env() -> dict[str, str]:
    """Environment whose ``import vcperf`` is this checkout's package."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path}


def test_import_vcperf_is_light():
    code = (
        "import sys; before = set(sys.modules); import vcperf; "
        "print(vcperf.__file__); print(' '.join(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run([sys.executable, "-c", code], env=_checkout_env(), cwd=ROOT,
                         check=True, capture_output=True, text=True).stdout.splitlines()
    assert Path(out[0]).resolve().is_relative_to(ROOT / "vcperf")
    loaded = set(out[1].split())
    assert not {m.split(".")[0] for m in loaded} & set(HEAVY), f"import vcperf loaded {sorted(loaded)}"


def test_every_public_submodule_is_exposed_lazily():
    public = {m.name for m in pkgutil.iter_modules(vcperf.__path__) if not m.name.startswith("_")}
    assert public == set(vcperf._SUBMODULES), "vcperf/__init__.py _SUBMODULES must list every public submodule"
    assert set(STUDY_PACKAGES) <= set(vcperf._SUBMODULES)
    assert set(vcperf._SUBMODULES) <= set(dir(vcperf))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        vcperf.nope  # noqa: B018


# ---------------------------------------------------------------- the wheel, in a fresh venv (slow)

_IGNORE = shutil.ignore_patterns(".git", ".venv*", "build", "dist", "*.egg-info", "__pycache__", ".*_cache",
                                 ".ipynb_checkpoints", "node_modules")


def _build_wheel(src: Path, out: Path) -> Path:
    """``python -m build --wheel --no-isolation`` (offline) if this interpreter can build without
    isolation (setuptools>=70.1, or the ``wheel`` package), else an isolated build (pip fetches the
    build backend)."""
    base = [sys.executable, "-m", "build", "--wheel", "--outdir", str(out)]
    errors = []
    for extra in (["--no-isolation"], []):
        run = subprocess.run([*base, *extra, str(src)], cwd=src, capture_output=True, text=True)
        if run.returncode == 0:
            (wheel,) = out.glob("vcperf-*.whl")
            return wheel
        errors.append(f"$ {' '.join([*base, *extra])}\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}")
    pytest.fail("could not build the wheel:\n" + "\n".join(errors))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built from a copy of the tree (the build writes build/ and *.egg-info beside the
    sources; the checkout's build/ is regenerate's output folder)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=_IGNORE)
    return _build_wheel(src, tmp / "dist")


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory):
    """A fresh venv with only the wheel installed; its dependencies come from this interpreter's
    site-packages through a .pth file (added to sys.path, their own .pth files not run)."""
    tmp = tmp_path_factory.mktemp("venv")
    env_dir = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    py = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    shared = dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))
    (site / "vcperf-test-shared-deps.pth").write_text("".join(f"{p}\n" for p in shared))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    # pip runs outside the checkout and without PYTHONPATH: with the checkout on its sys.path (its root as
    # the working directory, or PYTHONPATH), `python -m pip` sees the set-up's vcperf.egg-info (the editable
    # install's metadata), takes vcperf as installed elsewhere and puts nothing in the venv.
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--quiet", "--no-deps",
                    "--no-index", "--disable-pip-version-check", str(wheel)], check=True, cwd=tmp, env=env)
    assert (site / "vcperf" / "__init__.py").is_file(), "the wheel was not installed into the venv"
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env['PATH']}"
    env["MPLBACKEND"] = "Agg"
    outside = tmp / "elsewhere"  # a working directory outside the checkout
    outside.mkdir()

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(list(args), cwd=outside, env=env, capture_output=True, text=True, timeout=300)

    run.python, run.site = str(py), site
    return run


def _source_files(folder: Path, pattern: str) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob(pattern) if "__pycache__" not in p.parts)


@pytest.mark.slow
def test_wheel_ships_every_package_and_every_table(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    code = _source_files(ROOT / "vcperf", "*.py")
    missing = [f"vcperf/{f}" for f in code if f"vcperf/{f}" not in names]
    assert not missing, f"the wheel misses {missing}"
    views = _source_files(ROOT / "vcperf" / "views", "*.py")
    assert views and all(f"vcperf/views/{f}" in names for f in views)
    for study in STUDY_PACKAGES:  # the studies that are subpackages in this tree
        if (ROOT / "vcperf" / study / "__init__.py").exists():
            assert f"vcperf/{study}/__init__.py" in names, f"the wheel misses the subpackage vcperf.{study}"
    tables = _source_files(ROOT / "data", "*/*.csv") + _source_files(ROOT / "data", "*/*.json")
    assert len(tables) >= 2 * 5, "data/ should hold tables for five studies"
    shipped = {n.removeprefix("vcperf/_data/") for n in names if n.startswith("vcperf/_data/")}
    assert shipped == {*tables, "README.md"}, "the wheel's vcperf/_data must be exactly data/'s tables"


@pytest.mark.slow
def test_installed_wheel_finds_and_validates_its_own_tables(venv):
    from vcperf import data

    expected = data.validate_all()  # the checkout's tables, validated here
    out = venv(venv.python, "-c",
               "import vcperf, vcperf.data as d; print(vcperf.__file__); print(d.DATA_DIR); print(d.validate_all())")
    assert out.returncode == 0, out.stderr
    module, data_dir, summary = out.stdout.splitlines()
    assert Path(module).is_relative_to(venv.site), f"imported {module}, not the installed wheel"
    assert Path(data_dir) == venv.site / "vcperf" / "_data"
    assert not Path(data_dir).resolve().is_relative_to(ROOT)
    assert summary == expected
    out = venv(venv.python, "-m", "vcperf.cli", "data", "validate")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == expected
    out = venv("vcperf", "data", "list", "--study", "robo2019")
    assert out.returncode == 0, out.stderr
    assert "robo2019/table01_networks" in out.stdout.split()


@pytest.mark.slow
def test_installed_wheel_imports_every_submodule_and_runs_fidelity(venv):
    """The acceptance of the issue: ``vcperf fidelity`` from the installed wheel, outside the checkout."""
    out = venv(venv.python, "-c", "import importlib, vcperf\n"
               "for name in vcperf._SUBMODULES: importlib.import_module(f'vcperf.{name}')")
    assert out.returncode == 0, out.stderr
    out = venv("vcperf", "fidelity", "--summary")
    assert out.returncode == 0, out.stderr
    assert "| study |" in out.stdout
