"""Hardening of the pipeline: paths, locks, signals, error messages, determinism, sweep guards.

Notebook runs use what-if scenarios (overrides skip the fidelity table) or slow notebooks in a
temporary NOTEBOOK_DIR, so they do not depend on every study model.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from deadlines import WAIT_S

from vcperf import cli, regenerate, sweep

ROOT = Path(__file__).resolve().parent.parent
SCENARIO_NB = "contentlib_deploy"  # a converted study: its notebook runs on every branch


def _files(folder: Path) -> dict[str, str]:
    """sha256 of every file under ``folder`` (relative path -> hash)."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _regen(*argv: str) -> list[str]:
    return ["regenerate", "--only", SCENARIO_NB, *argv]


# --------------------------------------------------------------------------------------------
# 1. Nothing is written outside the build folder
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["..", ".", "../../../x", "a/b", "/tmp/x", "", "_x", "a" * 65, "sp ace", "é"])
def test_scenario_must_be_a_plain_name(name, tmp_path, capsys):
    out = tmp_path / "build"
    argv = _regen("-p", "whatif_vcenter_vcpus=8", "--scenario", name, "--output", str(out))
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("vcperf: error: --scenario must be a plain name") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # refused before any work


def test_output_dir_is_not_a_user_parameter(tmp_path, capsys):
    elsewhere = tmp_path / "elsewhere"
    assert cli.main(_regen("-p", f"output_dir={elsewhere}", "--output", str(tmp_path / "b"))) == 2
    assert "output_dir is set by vcperf regenerate" in capsys.readouterr().err
    params = tmp_path / "p.yaml"
    params.write_text(f"output_dir: {elsewhere}\n")
    assert cli.main(_regen("--params", str(params), "--output", str(tmp_path / "b"))) == 2
    assert "output_dir is set by vcperf regenerate" in capsys.readouterr().err
    with pytest.raises(ValueError, match="output_dir is set by vcperf regenerate"):
        regenerate.run(tmp_path / "b", only=[SCENARIO_NB], overrides={"output_dir": str(elsewhere)})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.yaml"]


def test_scenario_needs_overrides(tmp_path, capsys):
    assert cli.main(_regen("--scenario", "t", "--output", str(tmp_path / "b"))) == 2
    assert "--scenario needs parameter overrides" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["/", str(ROOT), str(ROOT / "notebooks"), str(ROOT.parent), "~", "foreign"])
def test_dangerous_outputs_are_refused(where, tmp_path, capsys):
    if where == "foreign":
        (tmp_path / "mine").mkdir()
        (tmp_path / "mine" / "thesis.tex").write_text("precious")
        where = str(tmp_path / "mine")
    before = _files(tmp_path)
    assert cli.main(_regen("--output", where, "-p", "whatif_vcenter_vcpus=8")) == 2
    err = capsys.readouterr().err
    assert err.startswith("vcperf: error: --output") and ("refusing" in err or "root" in err), err
    assert _files(tmp_path) == before


def test_scenario_path_is_resolved_under_the_output(tmp_path):
    output = str(tmp_path / "x" / ".." / "b")
    args = cli.build_parser().parse_args(["regenerate", "--scenario", "t", "--output", output])
    assert regenerate.target_of(args, {"a": 1}) == (tmp_path / "b" / "scenarios" / "t").resolve()
    default = cli.build_parser().parse_args(["regenerate"])
    assert regenerate.target_of(default, {"a": 1}) == regenerate.paths.BUILD / "scenarios" / "whatif"
    # A scenario shares the lock of its build (the build's staging copy holds the scenario).
    assert regenerate.paths.lock_root(tmp_path / "b" / "scenarios" / "t") == tmp_path / "b"


def _tree(folder: Path) -> dict[str, str]:
    """Every entry under ``folder`` (links not followed): files by hash, folders and links by kind."""
    out = {}
    for p in sorted(folder.rglob("*")):
        key = p.relative_to(folder).as_posix()
        out[key] = ("link " + os.readlink(p) if p.is_symlink() else "dir" if p.is_dir()
                    else hashlib.sha256(p.read_bytes()).hexdigest())
    return out


#: Where a symbolic link out of the build may sit, and the command line that would write through it.
_LINKS = {
    "figures": ("build/figures", []),
    "notebook tables": ("build/tables/" + SCENARIO_NB, []),
    "notebooks": ("build/notebooks", []),
    "scenarios": ("build/scenarios", ["--scenario", "s"]),
    "scenario index": ("build/scenarios/index.html", ["--scenario", "s"]),
    "lock": (".build.lock", []),
    "staging": (".build.staging", []),
    "old": (".build.old", []),
    "failed": ("build-failed", []),
    "kernels": (".build.kernels", []),
}


@pytest.mark.parametrize("where", list(_LINKS))
def test_no_write_follows_a_symbolic_link_out_of_the_build(where, tmp_path, capsys):
    """A link in (or beside) the build that points outside it is refused with a clear error naming it,
    before any notebook runs; nothing outside changes (and the build is left as it was)."""
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "precious.txt").write_text("keep me\n")
    (outside / "sub" / "index.html").write_text("mine\n")
    build = tmp_path / "build"
    (build / "tables" / "other").mkdir(parents=True)
    (build / "tables" / "other" / "t.csv").write_text("a\n1\n")
    link, extra = _LINKS[where]
    link = tmp_path / link
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside / "sub" / "index.html" if where == "scenario index" else
                    outside / "lockfile" if where == "lock" else outside)
    before_outside, before_build = _tree(outside), _tree(build)
    code = cli.main(_regen("-p", "whatif_vcenter_vcpus=8", "--output", str(build), *extra))
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("vcperf: error: ") and err.count("\n") == 1 and "symbolic link" in err, err
    named = build / "scenarios" / "s" if where == "scenarios" else link  # the scenario resolves through it
    assert str(named) in err, err
    assert _tree(outside) == before_outside
    assert _tree(build) == before_build
    assert not (tmp_path / ".build.staging").is_dir() or where == "staging"


def test_a_swap_cut_between_its_renames_is_undone_by_the_next_run(tmp_path):
    """Killed after moving the old build aside and before moving the new one in: the next run puts
    the old build back first (here, the next run is refused later, so only the recovery shows)."""
    build = tmp_path / "build"
    old = tmp_path / ".build.old"
    (old / "tables" / "x").mkdir(parents=True)
    (old / "tables" / "x" / "t.csv").write_text("a\n1\n")
    (tmp_path / "build-failed").symlink_to(tmp_path)  # refused after the recovery
    args = cli.build_parser().parse_args(_regen("-p", "whatif_vcenter_vcpus=8", "--output", str(build)))
    with pytest.raises(ValueError, match="symbolic link"):
        regenerate.main(args)
    assert not build.exists()  # refused before: the recovery runs under the lock
    (tmp_path / "build-failed").unlink()
    (tmp_path / "stop").symlink_to(tmp_path)
    (old / "tables" / "x" / "link").symlink_to(tmp_path / "stop")  # a link out: refused after recovery
    with pytest.raises(ValueError, match="symbolic link"):
        regenerate.main(args)
    assert (build / "tables" / "x" / "t.csv").read_text() == "a\n1\n" and not old.exists()


# --------------------------------------------------------------------------------------------
# 4. Every CLI error is one line, exit 2
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (None, "cannot be read"),  # missing file
        ("dir", "cannot be read"),  # a folder
        ("whatif_vcenter_vcpus: !!python/object/apply:os.system ['true']\n", "is not valid YAML"),
        ("a: [1, 2\nb: {\n", "is not valid YAML"),
        (b"\xff\xfe\x00bad", "cannot be read"),
        ("1: 2\n", "parameter names must be strings"),
        ("whatif_vcenter_vcpus: 8\nwhatif_vcenter_vcpus: 16\n", "found duplicate key 'whatif_vcenter_vcpus'"),
    ],
)
def test_bad_params_file_is_one_error_line(content, match, tmp_path, capsys):
    path = tmp_path / "p.yaml"
    if content == "dir":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    assert cli.main(_regen("--params", str(path), "--output", str(tmp_path / "b"))) == 2
    err = capsys.readouterr().err
    assert err.startswith("vcperf: error: --params file") and match in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "b").exists()


def test_cli_os_errors_are_one_line(tmp_path, capsys):
    grid = tmp_path / "grid.yaml"
    grid.write_text("parameters:\n  arrival_rate_per_s: [1.0]\n  service_rate_per_s: [5.0]\n")
    out = tmp_path / "no" / "such" / "folder" / "t.csv"
    assert cli.main(["sweep", "vcperf.queueing.mm1", "--grid", str(grid), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"vcperf: error: No such file or directory: {out}.partial\n"


def test_console_script_error_has_no_traceback(tmp_path):
    exe = Path(sys.executable).parent / "vcperf"
    bad = tmp_path / "p.yaml"
    bad.write_text("x: !!python/name:os.system\n")
    proc = subprocess.run([str(exe), *_regen("--params", str(bad), "--output", str(tmp_path / "b"))],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2
    assert proc.stderr.startswith("vcperf: error:") and "Traceback" not in proc.stderr


# --------------------------------------------------------------------------------------------
# 3. One run per build root; SIGINT / SIGTERM
# --------------------------------------------------------------------------------------------


def test_a_second_run_on_a_locked_build_is_refused(tmp_path, capsys):
    import fcntl

    target = tmp_path / "build"
    (target / "tables").mkdir(parents=True)
    (target / "tables" / "keep.csv").write_text("a\n1\n")
    before = _files(target)
    with open(tmp_path / ".build.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert cli.main(_regen("-p", "whatif_vcenter_vcpus=8", "--output", str(target))) == 1
        err = capsys.readouterr().err
        lock = tmp_path / ".build.lock"
        assert err == (f"vcperf: error: another vcperf regenerate is writing {target} (lock {lock}); "
                       "wait for it to finish\n")
        # A scenario under that build shares its lock.
        assert cli.main(_regen("-p", "whatif_vcenter_vcpus=8", "--scenario", "s", "--output", str(target))) == 1
        assert "another vcperf regenerate is writing" in capsys.readouterr().err
    assert _files(target) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [".build.lock", "build"]
    assert not (tmp_path / ".build.staging").exists()


_SLOW = '''# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% tags=["parameters"]
interactive = True  # -: widgets
output_dir = "."  # path: outputs
delay_s = 0.0  # s, range [0, 600]: sleep in the slow cell

# %%
import pathlib, time
folder = pathlib.Path(output_dir, "tables", "{name}")
folder.mkdir(parents=True, exist_ok=True)
if delay_s > 0:  # the marker the signal test waits for (a good build, delay 0, must not leave one)
    (folder / "started").touch()
time.sleep(delay_s)
(folder / "t.csv").write_text("x\\n{name}\\n")
'''

_RUNNER = """import sys
from pathlib import Path
from vcperf import cli, regenerate
regenerate.paths.NOTEBOOK_DIR = Path(sys.argv[1])
sys.exit(cli.main(sys.argv[2:]))
"""


@pytest.fixture()
def slow_notebooks(tmp_path, monkeypatch):
    """Three slow notebooks in a temporary NOTEBOOK_DIR, and a good build of them (delay 0)."""
    nbdir = tmp_path / "notebooks"
    nbdir.mkdir()
    for name in ("slow_a", "slow_b", "slow_c"):
        (nbdir / f"{name}.py").write_text(_SLOW.replace("{name}", name))
    (tmp_path / "runner.py").write_text(_RUNNER)
    monkeypatch.setattr(regenerate.paths, "NOTEBOOK_DIR", nbdir)
    target = tmp_path / "build"
    assert regenerate.run(target, overrides={"delay_s": 0.0}, jobs=2) == []
    return tmp_path


def _process_tree(root: int) -> set[int]:
    parents = regenerate.processes.parents()
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZX"


@pytest.mark.slow
@pytest.mark.kernel
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_stops_workers_and_kernels_and_leaves_the_build(slow_notebooks, signum, code, runner):
    tmp = slow_notebooks
    target = tmp / "build"
    before = _files(target)
    proc = runner(
        [sys.executable, str(tmp / "runner.py"), str(tmp / "notebooks"), "regenerate", "-p", "delay_s=120.0",
         "--output", str(target), "--jobs", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    staging = tmp / ".build.staging"
    deadline = time.monotonic() + WAIT_S  # tests/deadlines.py: generous, a loaded machine only slows it
    while len(list(staging.glob("tables/*/started"))) < 2:  # both workers' kernels are in the sleep
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    children = _process_tree(proc.pid)
    assert len(children) >= 4  # two workers, two kernels
    t0 = time.monotonic()
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=30)
    stopped_s = time.monotonic() - t0
    assert proc.returncode == code
    # the progress lines of the run (its start, each notebook started), then the interruption, and nothing else
    assert err.endswith(f"vcperf regenerate: interrupted; {target} left as it was\n"), err
    assert all(line.startswith("vcperf regenerate: ") for line in err.splitlines()), err
    assert stopped_s < 5, f"took {stopped_s:.1f} s to stop"
    for _ in range(50):  # killed kernels are reaped by their new parent
        left = [pid for pid in children if _alive(pid)]
        if not left:
            break
        time.sleep(0.1)
    assert left == [], "processes left running"
    assert _files(target) == before
    assert not staging.exists()
    assert not (tmp / "build-failed").exists()


@pytest.mark.slow
@pytest.mark.kernel
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGHUP], ids=["SIGKILL", "SIGHUP"])
def test_a_killed_run_never_blocks_the_next(slow_notebooks, signum, runner):
    """SIGKILL (or SIGHUP) to the process group of `vcperf regenerate --jobs 2` mid-run: its workers and
    kernels die with it, and a new run into the same build succeeds at once, cleaning the staging
    folder and the kernel connection files the killed run left."""
    tmp = slow_notebooks
    target = tmp / "build"
    before = _files(target)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = runner(
        [sys.executable, str(tmp / "runner.py"), str(tmp / "notebooks"), "regenerate", "-p", "delay_s=120.0",
         "--output", str(target), "--jobs", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True,
    )  # no pipes: an orphaned worker would hold them open
    staging = tmp / ".build.staging"
    deadline = time.monotonic() + WAIT_S  # tests/deadlines.py: generous, a loaded machine only slows it
    while len(list(staging.glob("tables/*/started"))) < 2:  # both workers' kernels are in the sleep
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.1)
    children = _process_tree(proc.pid)
    assert len(children) >= 4  # two workers, two kernels
    os.killpg(proc.pid, signum)
    assert proc.wait(timeout=30) != 0
    try:
        for _ in range(100):  # workers die with their parent, kernels with their worker (within a second)
            left = [pid for pid in children if _alive(pid)]
            if not left:
                break
            time.sleep(0.1)
        assert left == [], "processes of the killed run left running"
    finally:
        regenerate.kill_tree([pid for pid in children if _alive(pid)])
    assert _files(target) == before  # the build is as it was
    t0 = time.monotonic()
    again = subprocess.run(
        [sys.executable, str(tmp / "runner.py"), str(tmp / "notebooks"), "regenerate", "--only", "slow_a",
         "-p", "delay_s=0.0", "--output", str(target)],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert again.returncode == 0, again.stderr
    assert time.monotonic() - t0 < 60
    assert (target / "tables" / "slow_a" / "t.csv").read_text() == "x\nslow_a\n"
    assert not staging.exists()
    assert sorted(p.name for p in tmp.iterdir() if p.name.startswith(".")) == [".build.lock"]  # no kernels left


# --------------------------------------------------------------------------------------------
# 5. Determinism: every file of two builds, byte for byte
# --------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_two_scenario_builds_are_byte_identical_including_notebooks(tmp_path):
    first, second = tmp_path / "one", tmp_path / "two" / "deeper"
    for target in (first, second):
        argv = _regen("-p", "whatif_vcenter_vcpus=8", "--scenario", "t", "--output", str(target))
        assert cli.main(argv) == 0
    a, b = _files(first / "scenarios" / "t"), _files(second / "scenarios" / "t")
    assert f"notebooks/{SCENARIO_NB}.ipynb" in a and len(a) >= 3
    assert a == b
    text = (first / "scenarios" / "t" / "notebooks" / f"{SCENARIO_NB}.ipynb").read_text()
    assert str(tmp_path) not in text and "staging" not in text
    assert '"start_time"' not in text and '"duration"' not in text and "iopub" not in text
    assert 'output_dir = \\"..\\"' in text


def test_normalise_notebook_strips_timings_and_paths(tmp_path):
    import nbformat

    build = tmp_path / ".build.staging"
    nb = nbformat.v4.new_notebook()
    nb.metadata["papermill"] = {"start_time": "t", "end_time": "t", "duration": 1.0, "parameters":
                                {"output_dir": str(build)}, "input_path": "x", "output_path": str(build / "n.ipynb")}
    cell = nbformat.v4.new_code_cell(f'output_dir = "{build}"')
    cell.metadata["execution"] = {"iopub.status.busy": "t"}
    cell.metadata["papermill"] = {"start_time": "t", "end_time": "t", "duration": 0.1, "status": "completed"}
    cell.outputs = [nbformat.v4.new_output("stream", text=f"saved {build}/figures/x.png\n")]
    nb.cells = [cell]
    path = tmp_path / "n.ipynb"
    nbformat.write(nb, path)
    regenerate.normalise_notebook(path, build)
    out = nbformat.read(path, as_version=4)
    assert out.metadata.papermill == {"parameters": {"output_dir": ".."}}
    c = out.cells[0]
    assert c.id == "cell-00" and "execution" not in c.metadata and c.metadata.papermill == {"status": "completed"}
    assert c.source == 'output_dir = ".."' and c.outputs[0].text == "saved ../figures/x.png\n"


# --------------------------------------------------------------------------------------------
# 2. Dask local cluster: loopback only
# --------------------------------------------------------------------------------------------


def _listening(pids: set[int]) -> list[tuple[str, int]]:
    """(address, port) of every listening TCP socket of ``pids``."""
    try:
        import psutil
    except ImportError:
        psutil = None
    if psutil is not None:
        out = []
        for pid in pids:
            try:
                conns = psutil.Process(pid).net_connections(kind="inet")
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            out += [(c.laddr.ip, c.laddr.port) for c in conns if c.status == psutil.CONN_LISTEN]
        return out
    inodes = set()
    for pid in pids:
        fd_dir = Path(f"/proc/{pid}/fd")
        for fd in fd_dir.iterdir() if fd_dir.exists() else []:
            try:
                link = os.readlink(fd)
            except OSError:
                continue
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
    out = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            f = line.split()
            if f[3] == "0A" and f[9] in inodes:  # LISTEN
                addr, port = f[1].split(":")
                ip = ("127.0.0.1" if addr == "0100007F" else "::1" if addr == "0" * 24 + "01000000"
                      else "0.0.0.0" if set(addr) == {"0"} else addr)
                out.append((ip, int(port, 16)))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("dashboard", [False, True])
def test_cli_local_cluster_listens_on_loopback_only(dashboard, tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    seen = {}
    real = sweep.local_cluster

    import contextlib

    @contextlib.contextmanager
    def spy(workers, *, dashboard=False):
        with real(workers, dashboard=dashboard) as client:
            pids = {os.getpid()} | _process_tree(os.getpid())
            seen["sockets"] = _listening(pids)
            seen["dashboard"] = client.cluster.dashboard_link if dashboard else None
            yield client

    monkeypatch.setattr(sweep, "local_cluster", spy)
    grid = tmp_path / "grid.yaml"
    grid.write_text("parameters:\n  arrival_rate_per_s: [1.0, 2.0]\n  service_rate_per_s: [5.0]\n")
    argv = ["sweep", "vcperf.queueing.mm1", "--grid", str(grid), "--workers", "2", "--out", str(tmp_path / "t.csv")]
    assert cli.main(argv + (["--dashboard"] if dashboard else [])) == 0
    sockets = seen["sockets"]
    assert len(sockets) >= 3  # scheduler and two workers (and their nannies)
    assert all(ip in ("127.0.0.1", "::1") for ip, _ in sockets), sockets
    if dashboard:
        assert seen["dashboard"].startswith("http://127.0.0.1:")
        port = int(seen["dashboard"].split(":")[2].split("/")[0])
        assert ("127.0.0.1", port) in sockets


def test_dashboard_needs_workers(tmp_path, capsys):
    grid = tmp_path / "grid.yaml"
    grid.write_text("parameters:\n  arrival_rate_per_s: [1.0]\n  service_rate_per_s: [5.0]\n")
    assert cli.main(["sweep", "vcperf.queueing.mm1", "--grid", str(grid), "--dashboard"]) == 2
    assert "--dashboard needs --workers" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# 6. Sweep memory guard
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ({"parameters": {"arrival_rate_per_s": {"lo": 0.1, "hi": 0.9, "n": 10**9}, "service_rate_per_s": [5.0]}},
         r"arrival_rate_per_s: the grid axes need about 7\.45 GiB of memory; the limit is 1\.00 GiB"),
        ({"design": "latin_hypercube", "samples": 10**9, "parameters": {
            "arrival_rate_per_s": {"lo": 0.1, "hi": 0.9}, "service_rate_per_s": {"lo": 1.0, "hi": 2.0}}},
         r"latin_hypercube of 1000000000 samples x 2 parameters needs about 44\.70 GiB.*samples must be at most"),
    ],
)
def test_grids_too_big_for_memory_are_refused_before_allocating(spec, match):
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=match):
        sweep.parse_grid(spec, "vcperf.queueing.mm1")
    assert time.perf_counter() - t0 < 1.0  # nothing was allocated


def test_chunk_too_big_for_memory_is_refused(tmp_path, capsys):
    grid = tmp_path / "grid.yaml"
    grid.write_text("parameters:\n  arrival_rate_per_s: {lo: 0.1, hi: 0.9, n: 100000}\n"
                    "  service_rate_per_s: {lo: 1.0, hi: 2.0, n: 10000}\n")
    out = tmp_path / "t.csv"
    argv = ["sweep", "vcperf.queueing.mm1", "--grid", str(grid), "--chunk-size", str(10**9), "--out", str(out)]
    assert cli.main(argv) == 2
    assert "chunk_size 1000000000 needs about" in capsys.readouterr().err
    assert not out.exists()
    g = sweep.parse_grid(grid, "vcperf.queueing.mm1")  # 1e9 points, streamed: fine with small chunks
    assert g.size == 10**9
    sweep.check_memory(g, 10_000)


# -- issue 30: raw errors of the validation layer become clear ValueErrors --

@pytest.mark.parametrize("value", [2**1024, -(2**1024), 10**400])
def test_an_integer_beyond_float_range_is_a_clear_error(value):
    from vcperf import _validate, network

    with pytest.raises(ValueError, match=r"rtt_s must be a real number in float range .* got an integer of \d+ bits"):
        _validate.check_range("rtt_s", value)
    with pytest.raises(ValueError, match=r"n must be in \[1, inf\] \(an integer of at most 64 bits\)"):
        _validate.integer("n", value, 1)
    with pytest.raises(ValueError, match="rtt_s"):
        network.Link(bandwidth_bps=1e9, rtt_s=value)
    assert float(_validate.check_range("x", 10**30)) == 1e30  # a big int in float range is a number


@pytest.mark.parametrize("value", [np.timedelta64(1, "s"), np.datetime64("2020-01-01"), [np.timedelta64(5, "ms")]])
def test_timedelta_and_datetime_are_not_numbers(value):
    from vcperf import _validate

    with pytest.raises(ValueError, match="x must be a real number"):
        _validate.check_range("x", value)
    if not isinstance(value, list):
        with pytest.raises(ValueError, match=r"n must be an integer in \[0, inf\]"):
            _validate.integer("n", value)


@pytest.mark.parametrize("value", [[[1, 2], [3]], [1, [2, 3]], [[1e9], 1e9]])
def test_ragged_lists_are_a_clear_error(value):
    from vcperf import _validate, ft

    with pytest.raises(ValueError, match="x must be a real number"):
        _validate.check_range("x", value)
    with pytest.raises(ValueError, match="memory_bytes must be a real number"):
        ft.turn_on_time_s(1e9, value)


@pytest.mark.parametrize("fit_on", [1, 1.5, object(), [["a"]], [None], [1], b"fit"])
def test_calibrate_fit_on_that_is_not_keys_is_a_clear_error(fit_on):
    from vcperf import protocol

    targets = protocol.study_module("ft2016").targets()
    with pytest.raises(ValueError, match="fit_on must be"):
        protocol.resolve_fit_on("ft2016", targets, fit_on)


def test_a_retried_kernel_start_is_not_reported_twice():
    """nbclient logs a kernel that died at start before `execute` retries it (and names the error itself if
    every try fails): the workers drop that log line, so an interrupted run still prints its one line."""
    import logging

    from vcperf.regenerate import notebook

    drop = notebook._RetriedKernelStart()
    died = "Error occurred while starting new kernel client for kernel k1: Kernel died before replying to kernel_info"
    assert not drop.filter(logging.LogRecord("papermill", logging.ERROR, __file__, 1, died, None, None))
    assert drop.filter(logging.LogRecord("papermill", logging.ERROR, __file__, 1, "Executing notebook", None, None))


# -- issue 42: one clear line for hostile values, parameter sets in range, no unbounded call --

_PARAM_SETS = ("VcbenchParams", "FailoverParams", "EnableParams", "WalParams", "DiskParams", "MemoryParams")


@pytest.mark.parametrize("cls", _PARAM_SETS)
@pytest.mark.parametrize("bad", [-500.0, float("nan"), float("inf"), 10**400, __import__("datetime").timedelta(1),
                                 1 + 0j, "5", True])
def test_every_vcha_parameter_set_refuses_an_unphysical_field(cls, bad):
    import dataclasses

    from vcperf import vcha

    p = vcha.calibrate()
    part = next(getattr(p, f.name) for f in dataclasses.fields(p) if type(getattr(p, f.name)).__name__ == cls)
    for f in dataclasses.fields(part):
        with pytest.raises(ValueError, match=rf"{cls}: {f.name} must be .*(\[0, inf\)|\(0, inf\)|real number)"):
            dataclasses.replace(part, **{f.name: bad})
    # arrays of valid values pass (a batched evaluation stacks parameter values)
    first = dataclasses.fields(part)[0].name
    arr = dataclasses.replace(part, **{first: np.array([1.0, 2.0])})
    assert np.array_equal(getattr(arr, first), [1.0, 2.0])


@pytest.mark.parametrize("bad", [-1.0, float("nan"), 10**400, __import__("datetime").timedelta(1)])
def test_other_parameter_sets_refuse_an_unphysical_field(bad):
    import dataclasses

    from vcperf import contentlib, ft, robo, vmotion

    cases = [(vmotion.calibrate(), "vcpu_stop_cost_s"), (vmotion.calibrate(), "checkpoint_time_s"),
             (vmotion.calibrate().tpcx, "dirty_scale"), (robo.calibrate().ops, "round_trips_per_call"),
             (robo.calibrate().stats, "bytes_per_sample"), (ft.calibrate(), "checkpoint_interval_s"),
             (contentlib.calibrate(), "nfc_efficiency")]
    for params, name in cases:
        with pytest.raises(ValueError, match=rf"{name} must be"):
            dataclasses.replace(params, **{name: bad})


def test_hostile_values_name_the_argument():
    """The cases of issue 42: each a ValueError/TypeError naming the user's argument."""
    import datetime

    from vcperf import _validate, contentlib, ft, robo, vmotion
    from vcperf.robo import operations

    rag = [[1.0], [2.0, 3.0]]
    with pytest.raises(ValueError, match="network_bps .*ragged"):
        contentlib.concurrent_deploy_time_s("streaming", 1e9, 4, network_bps=rag)
    with pytest.raises(ValueError, match="memory_bytes .*ragged"):
        vmotion.link_for_downtime(1.0, rag, 12, 25 * 2**30, 4500.0, "7.0u1", params=vmotion.calibrate(),
                                  settings=vmotion.settings())
    with pytest.raises(ValueError, match="messages must be a sequence"):
        operations.calls_from_sequence(np.array("x", dtype=object))
    with pytest.raises(TypeError, match=r"n must be an integer .*0-d|n must be an integer .*ndarray"):
        _validate.integer("n", np.array(1.0, dtype=object))
    big = np.longdouble("1e4000")
    if np.isfinite(big):  # x86: an 80-bit long double holds it
        with pytest.raises(ValueError, match="x must be a real number in float range"):
            _validate.check_range("x", big)
    for bad in (1 + 0j, datetime.timedelta(1), datetime.datetime(2026, 1, 1)):
        with pytest.raises(TypeError, match="x must be a real number"):
            _validate.real("x", bad)
    with pytest.raises(ValueError, match="stats_level"):
        _validate.choice("stats_level", 1 + 0j, (1, 2, 3, 4))
    for bad in ("abc", "", -1, float("nan"), float("inf"), True, datetime.timedelta(1), 1 + 0j):
        with pytest.raises(ValueError, match="powered_on_vms"):
            robo.host_operation_time_s("add_host", robo.preset("t1"), powered_on_vms=bad)
    with pytest.raises(ValueError, match="vcpus"):
        ft.limit_flags(10e9, float("inf"), 1.0)
    with pytest.raises(ValueError, match="lun_disks"):
        ft.iometer(64e3, lun_disks=float("inf"), vcpus=4, checkpoint_interval_s=5e-3)


def _within(seconds: float, fn, *args, **kw):
    """``fn(*args, **kw)`` (or its ValueError), asserting it took under ``seconds`` of this process's CPU
    time: a hang is a loop, and CPU time does not grow with the other jobs of a shared machine."""
    start = time.process_time()
    try:
        out = fn(*args, **kw)
    except ValueError as exc:
        out = exc
    took = time.process_time() - start
    assert took < seconds, f"{fn.__name__} took {took:.2f} s of CPU"
    return out


def test_no_reverse_question_runs_unbounded():
    """Degenerate targets answer at once; a tolerance at float resolution is refused (issue 42)."""
    from vcperf import robo, site

    robo.most_hosts({"statistics_delay": 60.0}, "t1")  # warm the calibration: the limit times the search
    for q in ("operation_latency", "statistics_delay", "deployment_time"):
        r = _within(2.0, robo.largest_rtt_s, {q: 60.0}, "t1", 10, powered_on_vms=0, transfers_bytes=[1e8])
        assert isinstance(r, robo.BranchLimit)
        r = _within(2.0, robo.most_hosts, {q: 60.0}, "dsl_512k", operation_rate_per_s=0, powered_on_vms=0)
        assert isinstance(r, robo.BranchLimit) and float(r.value).is_integer()
    plan = site.from_dict({"links": [{"name": "wan", "bandwidth": 10e6, "rtt": 0.08}],
                           "branches": [{"name": "shop", "link": "wan", "hosts": 4}],
                           "targets": {"statistics_delay_s": 60.0}})
    err = _within(2.0, site.smallest_bandwidth, plan, "wan", rel_tol=5e-324)
    assert isinstance(err, ValueError) and "rel_tol must be in [1e-09, 1)" in str(err)
    err = _within(2.0, site.largest_rtt, plan, "wan", abs_tol_s=5e-324)
    assert isinstance(err, ValueError) and "abs_tol_s" in str(err)
    r = _within(2.0, site.smallest_bandwidth, plan, "wan", rel_tol=1e-9)
    assert r.evaluation.ok


def test_most_hosts_whole_search_is_logarithmic():
    from vcperf.robo import reverse

    calls = []

    def meets(n):
        calls.append(n)
        return n <= 73_123

    assert reverse._largest_whole(meets, 1, 100_000) == 73_123  # an estimate far off: O(log) calls
    assert len(calls) < 60
    assert reverse._largest_whole(lambda n: n <= 5, 90_000, 100_000) == 5
    assert reverse._largest_whole(lambda n: False, 10, 100_000) == 0
    assert reverse._largest_whole(lambda n: True, 10, 100_000) == 100_000


@pytest.mark.parametrize(("key", "item", "match"), [
    ("links", {"name": "l", "bandwidth": 1e7, "rtt": 0.08}, "at most 64 links"),
    ("branches", {"name": "b", "link": "wan", "hosts": 1}, "at most 200 branches"),
    ("deployments", {"name": "d", "link": "wan", "size": 1e9}, "at most 200 workloads"),
])
def test_a_huge_plan_is_refused_within_a_second(key, item, match):
    from vcperf import site

    plan = {"links": [{"name": "wan", "bandwidth": 1e7, "rtt": 0.08}], "targets": {"statistics_delay_s": 60.0}}
    plan[key] = [dict(item, name=f"{item['name']}{i}") for i in range(100_000)]
    start = time.perf_counter()
    with pytest.raises(ValueError, match=match):
        site.from_dict(plan)
    assert time.perf_counter() - start < 1.0
    plan[key] = plan[key][:3]
    if key == "links":
        plan["links"][0]["name"] = "wan"
    assert site.from_dict(plan).links  # a plan within the limits loads


@pytest.mark.parametrize("value", ["0x10", "1_000", "0o20", "0b1", "1j", "[1, 0x2]"])
def test_p_numbers_are_decimal_literals_only(value, tmp_path, capsys):
    from vcperf import params

    with pytest.raises(ValueError, match=r"-p whatif_rtt_ms: a number must be a plain decimal literal"):
        params.parse_assignment(f"whatif_rtt_ms={value}")
    assert cli.main(_regen("-p", f"whatif_rtt_ms={value}", "--output", str(tmp_path / "b"))) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "plain decimal literal" in err[0], err
    assert not (tmp_path / "b").exists()
    for ok, want in (("16", 16), ("-1.5e3", -1500.0), (".5", 0.5), ("'0x10'", "0x10"), ("abc", "abc")):
        assert params.parse_assignment(f"k={ok}") == ("k", want)


def test_a_p_key_given_twice_is_refused(tmp_path, capsys):
    argv = _regen("-p", "whatif_rtt_ms=10", "-p", "whatif_rtt_ms=20", "--output", str(tmp_path / "b"))
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "-p whatif_rtt_ms is given twice" in err[0], err
    assert not (tmp_path / "b").exists()


def _previous_build(target: Path, n_files: int = 240, size: int = 50_000) -> dict[str, str]:
    """A previous build of ``n_files`` figures of ``size`` bytes each (12 MB by default)."""
    rng = np.random.default_rng(42)
    for i in range(n_files):
        f = target / "figures" / f"nb{i % 8}" / f"fig{i}.png"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(rng.bytes(size))
    (target / "index.html").write_text("<html>previous build</html>\n")
    return _files(target)


@pytest.fixture
def tiny_fs(tmp_path):
    """A 20 MB tmpfs (root only; skipped where it cannot be mounted), unmounted at the end."""
    where = tmp_path / "tiny"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", str(where)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_a_full_disk_is_one_line_and_keeps_the_previous_build(tiny_fs, capsys):
    target = tiny_fs / "build"
    before = _previous_build(target)  # 12 MB: its staging copy cannot fit in the 8 MB left
    assert cli.main(_regen("--output", str(target))) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert f"cannot write the build in {tiny_fs} (no space left on device)" in err[0]
    assert "MB there for its staging copy" in err[0] and len(err[0]) < 400
    assert _files(target) == before  # byte-identical
    assert sorted(p.name for p in tiny_fs.iterdir()) == [".build.lock", "build"]  # no staging, no kernels left


def test_a_copy_error_list_is_one_line(tmp_path, monkeypatch, capsys):
    """shutil.copytree's Error carries every file it could not copy: the run prints its first reason only."""
    import shutil

    target = tmp_path / "build"
    before = _previous_build(target, n_files=4, size=100)

    def full(src, dst, **kw):
        Path(dst).mkdir(parents=True)
        raise shutil.Error([(f"{src}/f{i}", f"{dst}/f{i}", "[Errno 28] No space left on device") for i in range(2000)])

    monkeypatch.setattr(regenerate.execute.shutil, "copytree", full)
    assert cli.main(_regen("--output", str(target))) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"cannot write the build in {tmp_path} (no space left on device)" in err[0], err
    assert _files(target) == before
    assert not (tmp_path / ".build.staging").exists()


def test_a_read_only_folder_is_one_line(tmp_path, monkeypatch, capsys):
    import errno

    target = tmp_path / "build"
    before = _previous_build(target, n_files=4, size=100)

    def read_only(src, dst, **kw):
        raise OSError(errno.EROFS, "Read-only file system", str(dst))

    monkeypatch.setattr(regenerate.execute.shutil, "copytree", read_only)
    assert cli.main(_regen("--output", str(target))) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"cannot write the build in {tmp_path} (read-only file system)" in err[0], err
    assert _files(target) == before


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux")
def test_runners_end_with_a_killed_test_session(tmp_path):
    """A test process killed outright (a CI timeout's SIGKILL) takes the runners it started with it: the
    runner, in its own process group, gets SIGTERM (tests/conftest.py start_runner)."""
    script = tmp_path / "session.py"
    script.write_text(
        "import sys, time\n"
        f"sys.path.insert(0, {str(ROOT / 'tests')!r})\n"
        "import conftest\n"
        "p = conftest.start_runner([sys.executable, '-c', 'import time; time.sleep(120)'], start_new_session=True)\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(120)\n")
    session = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    child = int(session.stdout.readline())
    assert _alive(child)
    session.kill()
    session.wait(timeout=10)
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the runner outlived its killed test session"


def test_end_runners_stops_a_runner_group(tmp_path):
    import conftest

    proc = conftest.start_runner([sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True)
    assert conftest.end_runners(wait_s=5.0) == [proc.pid]
    assert proc.returncode == -signal.SIGTERM
    assert conftest.end_runners() == []
