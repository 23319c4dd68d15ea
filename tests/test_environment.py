"""The dependency lists of pyproject, the lock, environment.yml and binder/ must agree."""

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent


def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _runtime_requirements():
    return {canonicalize_name(Requirement(r).name): Requirement(r) for r in _pyproject()["project"]["dependencies"]}


def _lock():
    pins = {}
    for line in (ROOT / "requirements" / "lock.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"lock line not pinned with ==: {line!r}"
            pins[canonicalize_name(name)] = version
    return pins


def _conda_pins(path):
    env = yaml.safe_load(path.read_text())
    conda, pip = {}, {}
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            for item in dep["pip"]:
                if item.startswith("-e"):
                    continue
                name, _, version = item.partition("==")
                pip[canonicalize_name(name)] = version
        else:
            name, _, version = dep.partition("=")
            conda[canonicalize_name(name)] = version
    return env, conda, pip


def test_lock_pins_every_direct_dependency_within_its_range():
    lock = _lock()
    extras = _pyproject()["project"]["optional-dependencies"]["test"]
    for req in list(_runtime_requirements().values()) + [Requirement(r) for r in extras]:
        name = canonicalize_name(req.name)
        assert name in lock, f"{name} missing from requirements/lock.txt"
        assert req.specifier.contains(lock[name]), f"lock pins {name}=={lock[name]}, pyproject wants {req}"


def test_environment_yml_matches_pyproject_and_lock():
    env, conda, pip = _conda_pins(ROOT / "environment.yml")
    assert "conda-forge" in env["channels"]
    assert conda.pop("python") == "3.11"
    conda.pop("pip")
    docs = {canonicalize_name(Requirement(r).name) for r in _pyproject()["project"]["optional-dependencies"]["docs"]}
    assert set(conda) == set(_runtime_requirements()) | docs  # what `make reproduce` needs (docs: the API reference)
    lock = _lock()
    for name, version in conda.items():
        assert version == lock[name], f"environment.yml pins {name}={version}, lock has {lock[name]}"
    assert not pip, "environment.yml's pip section should only install the package itself (-e .)"


def test_binder_matches_pyproject_and_lock_and_installs_the_package():
    _, conda, pip = _conda_pins(ROOT / "binder" / "environment.yml")
    assert conda.get("python") == "3.11"
    lock = _lock()
    assert set(pip) == set(lock), "binder/environment.yml must pin the whole lock: " + str(set(lock) ^ set(pip))
    for name, version in pip.items():
        assert version == lock[name], f"binder pins {name}=={version}, lock has {lock[name]}"
    post = (ROOT / "binder" / "postBuild").read_text()
    assert re.search(r"^set -e$", post, re.M)
    assert re.search(r"pip install .*-e \.", post)
    assert os.access(ROOT / "binder" / "postBuild", os.X_OK)
    assert re.search(r"^python -c 'from vcperf import app; app.warm_cache\(\)'$", post, re.M)  # the cache, filled
    assert "links the studies as .ipynb" not in post  # the landing notebook links the .py sources


def test_console_script_is_declared():
    assert _pyproject()["project"]["scripts"]["vcperf"] == "vcperf.cli:main"


@pytest.mark.slow
def test_binder_pip_list_builds_a_venv_that_imports_vcperf(tmp_path):
    """Do what Binder does, minus conda: a fresh venv from binder/'s pip list, then postBuild."""
    _, _, pip = _conda_pins(ROOT / "binder" / "environment.yml")
    venv = tmp_path / "binder-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    reqs = [f"{name}=={version}" for name, version in sorted(pip.items())]
    # The same pins as Binder's pip installs, resolved and installed by the set-up's uv where it is (about
    # 4x faster; `make` installs it from requirements/bootstrap.txt), else by pip.
    uv = Path(sys.executable).parent / "uv"
    if uv.exists():
        subprocess.run([str(uv), "pip", "install", "--quiet", "--python", str(py), *reqs], check=True)
    else:
        subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *reqs], check=True)
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    # Binder runs postBuild in its own clone: do the same in a copy, so the checkout gets no built notebooks.
    import shutil

    repo = tmp_path / "repo"
    shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns(".git", ".venv*", "build", "build-failed", "*.ipynb",
                                                              "__pycache__", "*.egg-info"))
    subprocess.run(["bash", str(repo / "binder" / "postBuild")], cwd=repo, env=env, check=True)
    assert sorted(p.stem for p in (repo / "notebooks").glob("*.ipynb")) == sorted(
        p.stem for p in (repo / "notebooks").glob("*.py"))
    out = subprocess.run(
        [str(py), "-c", "import vcperf, vcperf.network, vcperf.data; print(vcperf.data.validate_all())"],
        cwd=tmp_path, env=env, check=True, capture_output=True, text=True,
    )
    assert "rows valid" in out.stdout


def test_binder_opens_py_notebooks_as_notebooks_and_builds_the_linked_ipynb():
    """binder/overrides.json makes the jupytext viewer the default for .py files (a viewer jupytext's lab
    extension really registers), postBuild installs it and builds the .ipynb the README badges open."""
    import json

    overrides = json.loads((ROOT / "binder" / "overrides.json").read_text())
    viewer = overrides["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]["python"]
    assert viewer == "Jupytext Notebook"
    labext = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "jupyterlab-jupytext" / "static"
    if labext.is_dir():
        assert any(f'"{viewer}"' in p.read_text(errors="replace") for p in labext.glob("*.js")), viewer
    post = (ROOT / "binder" / "postBuild").read_text()
    assert "share/jupyter/lab/settings" in post and "overrides.json" in post
    assert "build_notebook" in post
    readme = (ROOT / "README.md").read_text()
    urlpaths = re.findall(r"https://mybinder\.org/v2/gh/[^)\s]+\?urlpath=([^)\s]+)", readme)
    assert "lab/tree/notebooks/index.ipynb" in urlpaths and "voila/render/notebooks/app.ipynb" in urlpaths, urlpaths
    for path in urlpaths:
        stem = path.rsplit("/", 1)[-1].removesuffix(".ipynb")
        assert (ROOT / "notebooks" / f"{stem}.py").exists(), path


def test_local_jupyterlab_opens_py_notebooks_as_notebooks_like_binder():
    """The set-up (`make`'s .venv stamp) copies binder/overrides.json into the venv's JupyterLab settings
    (the app settings folder JupyterLab reads, <prefix>/share/jupyter/lab/settings), so a local `make lab`
    opens notebooks/*.py as notebooks by default, as Binder does."""
    make = (ROOT / "Makefile").read_text()
    stamp = make.split("$(STAMP):", 1)[1].split("\n\n", 1)[0]
    assert "binder/overrides.json" in stamp.splitlines()[0]  # a changed setting re-runs the set-up
    assert "cp binder/overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json" in stamp
    assert "\nlab: $(STAMP)\n\t$(BIN)/jupyter lab notebooks/" in make
    from jupyterlab.labapp import LabApp

    app_settings = Path(LabApp().app_settings_dir).resolve()
    assert app_settings == (Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings").resolve()


def test_setup_installs_the_lock_with_pinned_uv_and_falls_back_to_pip():
    """Set-up speed (issue 31): the lock goes in with uv (pinned, itself installed by pip), and the same
    lock with pip if uv fails; a change of the pin re-runs the set-up."""
    make = (ROOT / "Makefile").read_text()
    stamp = make.split("$(STAMP):", 1)[1].split("\n\n", 1)[0]
    assert "requirements/bootstrap.txt" in stamp.splitlines()[0]
    pins = [ln for ln in (ROOT / "requirements" / "bootstrap.txt").read_text().splitlines() if ln and ln[0] != "#"]
    assert len(pins) == 1 and re.fullmatch(r"uv==\d+\.\d+\.\d+", pins[0]), pins
    assert "$(BIN)/uv pip install --quiet --python $(BIN)/python -r requirements/lock.txt" in stamp
    assert "|| \\\n\t{ echo \"note: uv failed; installing with pip\"" in stamp
    assert "$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements/lock.txt" in stamp



def test_setup_leaves_bytecode_even_with_pythondontwritebytecode(tmp_path):
    """Bytecode at install (issue 41): uv compiles what it installs, pip does by default, and the editable
    package is compiled by compileall (Binder's postBuild too). The stamp's compileall command, run here
    with PYTHONDONTWRITEBYTECODE=1 set as many images and CI runners set it, still writes the .pyc files
    (without them every process compiles every module it imports from source, every time)."""
    make = (ROOT / "Makefile").read_text()
    stamp = make.split("$(STAMP):", 1)[1].split("\n\n", 1)[0]
    assert "-r requirements/lock.txt --compile-bytecode" in stamp
    assert "--no-compile" not in stamp  # pip's fallback compiles by default
    compile_lines = [ln.strip() for ln in stamp.splitlines() if "-m compileall" in ln]
    assert len(compile_lines) == 1 and compile_lines[0].endswith(" vcperf"), compile_lines
    post = (ROOT / "binder" / "postBuild").read_text()
    assert re.search(r"^python -m compileall .* vcperf$", post, re.M)
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("X = 1\n")
    (package / "mod.py").write_text("Y = 2\n")
    command = compile_lines[0].replace("$(BIN)/python", sys.executable).removesuffix(" vcperf") + " pkg"
    subprocess.run(command.split(), cwd=tmp_path, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}, check=True)
    assert sorted(p.name.split(".")[0] for p in (package / "__pycache__").glob("*.pyc")) == ["__init__", "mod"]



def test_setup_says_what_it_does_from_its_first_line():
    """`make reproduce` on a fresh clone shows progress from its first second (issue 39): the set-up's first
    command says what it makes and how long it may take, and each step after it says what it does."""
    make = (ROOT / "Makefile").read_text()
    stamp = make.split("$(STAMP):", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    assert stamp[0].startswith('\t@echo "set-up: a virtual environment'), stamp[0]
    said = [ln for ln in stamp if ln.startswith('\t@echo "set-up:')]
    assert len(said) >= 4 and stamp[-1].startswith('\t@echo "set-up: done'), said


def _make_dry_run(*args: str) -> str:
    done = subprocess.run(["make", "-n", "--no-print-directory", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(not shutil.which("make"), reason="needs make")
def test_make_lab_takes_a_port_and_arguments_and_runs_as_root():
    """`make lab` (issue 39): LAB_PORT and LAB_ARGS reach JupyterLab, and as root (a container) it passes
    --allow-root, without which Jupyter refuses to start; not as another user."""
    line = _make_dry_run("lab", "LAB_PORT=9999", "LAB_ARGS=--no-browser --ServerApp.base_url=/x/").splitlines()[-1]
    assert line.startswith(".venv/bin/jupyter lab notebooks/ "), line
    assert "--port=9999" in line.split() and line.endswith("--no-browser --ServerApp.base_url=/x/"), line
    assert ("--allow-root" in line.split()) == (os.geteuid() == 0), line
    assert "--port=8888" in _make_dry_run("lab").splitlines()[-1].split()


@pytest.mark.skipif(not shutil.which("make"), reason="needs make")
def test_make_test_fast_leaves_out_the_marked_heavy_tests_and_make_test_runs_everything():
    """`make test-fast` (issue 40): lint, then pytest without the tests marked slow (wheels, venvs,
    regenerations), browser or kernel (notebooks executed); markers declared in pyproject; `make test`
    (the CI gate) still selects nothing out; the README names both."""
    fast = _make_dry_run("test-fast").splitlines()
    assert fast[-2] == ".venv/bin/ruff check ."
    assert fast[-1] == '.venv/bin/python -m pytest -n auto -m "not slow and not browser and not kernel"', fast[-1]
    declared = {m.split(":")[0] for m in _pyproject()["tool"]["pytest"]["ini_options"]["markers"]}
    assert {"slow", "browser", "kernel"} <= declared
    full = _make_dry_run("test").splitlines()
    assert full[-1] == ".venv/bin/python -m pytest -n auto --dist loadgroup", full[-1]
    readme = (ROOT / "README.md").read_text()
    assert "make test-fast" in readme and "make test " in readme


def test_data_check_needs_nothing_outside_the_checkout():
    make = (ROOT / "Makefile").read_text()
    assert "../" not in make and "shared/" not in make
    target = make.split("\ndata-check:", 1)[1].split("\n\n", 1)[0]
    assert "vcperf data validate" in target


def test_make_test_runs_one_worker_more_than_the_cores(tmp_path):
    """`make test`'s `-n auto` starts cores + 1 workers (tests/conftest.py): a worker waiting on a browser or a
    kernel leaves its core to the extra one."""
    (tmp_path / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text())
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "auto", "-o", "addopts=",
                           "test_one.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    n = (os.cpu_count() or 1) + 1
    assert re.search(rf"\b{n} workers\b", done.stdout), done.stdout[-3000:]


def test_tests_sharing_an_expensive_fixture_run_on_one_worker(tmp_path):
    """`make test` runs on every core (pytest-xdist, --dist loadgroup); the tests using a fixture of
    tests/conftest.py's GROUPS must all run on one worker, so that fixture is built once per run."""
    (tmp_path / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text())
    (tmp_path / "test_grouping.py").write_text(
        "import pytest\n\n\n@pytest.fixture(scope='module')\ndef wheel():\n    return 1\n\n\n"
        + "".join(f"def test_uses_{i}(wheel):\n    pass\n\n\ndef test_alone_{i}():\n    pass\n\n\n" for i in range(4)))
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup",
                           "-v", "-o", "addopts=", "test_grouping.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    workers = set(re.findall(r"\[(gw\d+)\].*PASSED test_grouping\.py::test_uses_\d+@wheel", done.stdout))
    assert len(workers) == 1, done.stdout[-3000:]
    assert len(re.findall(r"PASSED test_grouping\.py::test_uses_\d+@wheel", done.stdout)) == 4


def test_every_slow_prefix_of_the_conftest_names_a_collected_test():
    """tests/conftest.py's SLOW keeps named tests out of `make test-fast`; a renamed or deleted test must not leave
    a stale entry behind (nor can a typo silently keep a heavy test in the fast tier)."""
    import conftest

    files = sorted({prefix.split("::")[0] for prefix in conftest.SLOW})
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-n", "0",
                           *files], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    for prefix in conftest.SLOW:
        assert any(conftest._slow_reason(i) for i in ids if i.startswith(prefix)), f"SLOW names no test: {prefix}"
    marked = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                             "-n", "0", "-m", "not slow", *files],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    kept = [line for line in marked.stdout.splitlines() if "::" in line]
    assert kept and not any(conftest._slow_reason(i) for i in kept), kept[:5]
