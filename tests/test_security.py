"""Untrusted input and local neighbours (issue 43): the YAML loader, the calibration cache, cached results.

Each test plays an attacker on the same machine or a careless colleague: a file crafted to cost time
or memory, a forged cache file, a caller that mutates what a cache returned.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vcperf import _yaml, cli, site, sweep  # noqa: F401 - site imported here: timings are the loader's
from vcperf.regenerate import command  # noqa: F401
from vcperf.views import site as site_view  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
PLAN = "links:\n  - {name: wan, bandwidth: 2 Mbit/s, rtt: 30 ms}\nbranches:\n  - {name: b, link: wan}\n"
GRID = "parameters:\n  arrival_rate_per_s: [1.0]\n  service_rate_per_s: [5.0]\n"
#: A 9-level billion-laughs document: ~400 bytes, 9**9 strings once its aliases are expanded.
ALIAS_BOMB = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8))


def _argv(kind: str, path: Path, tmp_path: Path) -> list[str]:
    return {"plan": ["plan", str(path)],
            "params": ["regenerate", "--only", "robo_networks", "--params", str(path), "--output",
                       str(tmp_path / "b")],
            "grid": ["sweep", "vcperf.queueing.mm1", "--grid", str(path), "--out", str(tmp_path / "t.csv")]}[kind]


def _one_line_error(kind: str, path: Path, tmp_path: Path, capsys) -> str:
    """Run the CLI on a hostile file: exit 2 within 1 s of CPU, one ``vcperf: error:`` line naming the file.

    CPU time, not wall time: the refusal must do little work (no alias expansion, no recursion), and a loaded
    machine only delays it."""
    start = time.process_time()
    assert cli.main(_argv(kind, path, tmp_path)) == 2
    elapsed = time.process_time() - start
    err = capsys.readouterr().err
    assert elapsed < 1.0, f"{kind}: {elapsed:.2f} s of CPU"
    assert err.startswith("vcperf: error:") and err.count("\n") == 1 and "Traceback" not in err, err
    assert len(err) < 400, err
    assert not (tmp_path / "b").exists() and not (tmp_path / "t.csv").exists()
    return err


KINDS = ["plan", "params", "grid"]


@pytest.mark.parametrize("kind", KINDS)
def test_alias_bomb_is_refused_at_once(kind, tmp_path, capsys):
    path = tmp_path / "bomb.yaml"
    path.write_text(ALIAS_BOMB)
    assert len(ALIAS_BOMB) < 600
    err = _one_line_error(kind, path, tmp_path, capsys)
    assert "anchors and aliases are not allowed" in err and "bomb.yaml" in err
    assert "lol, lol" not in err  # never the expanded value


@pytest.mark.parametrize("kind", KINDS)
def test_string_alias_bomb_is_refused(kind, tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text('a: &a "' + "x" * 1000 + '"\n' + "".join(f"k{i}: *a\n" for i in range(1000)))
    assert "aliases are not allowed" in _one_line_error(kind, path, tmp_path, capsys)


@pytest.mark.parametrize("kind", KINDS)
def test_ten_megabyte_file_is_refused_before_reading(kind, tmp_path, capsys):
    path = tmp_path / "big.yaml"
    path.write_text(PLAN + "#" + "x" * (10 * 2**20) + "\n")
    err = _one_line_error(kind, path, tmp_path, capsys)
    assert f"is too large: {path.stat().st_size} bytes (at most {_yaml.MAX_BYTES})" in err


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("text", ["[" * 20000 + "]" * 20000, "x:\n" + "- " * 20000 + "1\n",
                                  "x: " + "{a: " * 20000 + "1" + "}" * 20000])
def test_deep_nesting_is_refused_without_recursion_error(kind, text, tmp_path, capsys):
    path = tmp_path / "deep.yaml"
    path.write_text(text)
    assert f"nested deeper than {_yaml.MAX_DEPTH} levels" in _one_line_error(kind, path, tmp_path, capsys)


@pytest.mark.parametrize("kind", ["params", "grid"])  # a plan path must be an existing file (is_file)
def test_dev_zero_and_a_fifo_are_refused_without_blocking(kind, tmp_path, capsys):
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    for path, what in ((Path("/dev/zero"), "a character device"), (fifo, "a FIFO")):
        err = _one_line_error(kind, path, tmp_path, capsys)
        assert f"cannot be read: {what}, not a regular file" in err or "must be the path of" in err, err


@pytest.mark.parametrize("path", ["/dev/zero", "fifo"])
def test_plan_of_a_device_or_fifo_is_one_line(path, tmp_path, capsys):
    if path == "fifo":
        path = tmp_path / "fifo.yaml"
        os.mkfifo(path)
    err = _one_line_error("plan", Path(path), tmp_path, capsys)
    assert "path must be an existing plan file" in err


def test_loader_refuses_a_fifo_and_a_device_itself(tmp_path):
    """The loader's own check, whatever its caller checked before (a FIFO is never opened for reading)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    start = time.monotonic()
    with pytest.raises(ValueError, match=r"^file '.*fifo' cannot be read: a FIFO, not a regular file$"):
        _yaml.load_file(fifo)
    with pytest.raises(ValueError, match="cannot be read: a character device, not a regular file"):
        _yaml.load_file("/dev/zero")
    with pytest.raises(ValueError, match="cannot be read: a folder, not a regular file"):
        _yaml.load_file(tmp_path)
    assert time.monotonic() - start < 1.0


@pytest.mark.parametrize(("text", "match"), [
    ("n: " + "9" * 500 + "\n", r"integer too large .* at n \(line 1"),
    ("x: [1, -" + "1" * 400 + "]\n", r"integer too large .* at x\[1\]"),
    ("x: 1.0e+999\n", r"number too large for a float; got '1.0e\+999' at x"),
    ("a: 1\nb: {c: 1, c: 2}\n", r"found duplicate key 'c' at b \(line 2"),
    ("a: !!python/object/apply:os.system ['true']\n", "is not valid YAML"),
    ("a: [1, 2\nb: {\n", r"is not valid YAML: .* \(line 2, column 2\)"),
])
def test_loader_refuses_in_one_line_naming_the_field(text, match):
    with pytest.raises(ValueError, match=match) as info:
        _yaml.loads(text, "plan 'p.yaml'")
    message = str(info.value)
    assert message.startswith("plan 'p.yaml'") and "\n" not in message and len(message) < 300


def test_loader_keeps_ordinary_yaml():
    assert _yaml.loads("a: .inf\nb: -3\nc: 9223372036854775807\nd: 'x'\n") == {
        "a": float("inf"), "b": -3, "c": 2**63 - 1, "d": "x"}


def test_huge_integer_in_a_sweep_grid_is_one_line(tmp_path, capsys):
    path = tmp_path / "g.yaml"
    path.write_text("parameters:\n  arrival_rate_per_s: {lo: 0.1, hi: 0.5, n: " + "7" * 400 + "}\n"
                    "  service_rate_per_s: [5.0]\n")
    assert "parameters.arrival_rate_per_s.n" in _one_line_error("grid", path, tmp_path, capsys)


def test_plan_link_given_as_a_list_names_the_field(tmp_path, capsys):
    path = tmp_path / "p.yaml"
    path.write_text(PLAN.replace("link: wan", "link: [wan]"))
    err = _one_line_error("plan", path, tmp_path, capsys)
    assert "branches[0].link must name one of the plan's links ['wan']; got ['wan']" in err


def test_console_script_prints_one_line_for_a_bomb(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(ALIAS_BOMB)
    exe = Path(sys.executable).parent / "vcperf"
    proc = subprocess.run([str(exe), "plan", str(path)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("vcperf: error: plan bomb.yaml: YAML anchors")


# -- the calibration disk cache: nothing unpickled unless signed by this installation ---------------------------------

CACHE_STUDY = "contentlib2015"  # the fastest fit


class _Exploit:
    """A pickle that runs a command when loaded."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A private cache folder with the honest calibration of CACHE_STUDY written in it."""
    from vcperf import protocol

    folder = tmp_path / "cache"
    monkeypatch.setenv("VCPERF_CACHE_DIR", str(folder))
    monkeypatch.delenv("VCPERF_NO_CACHE", raising=False)
    mod = protocol.study_module(CACHE_STUDY)
    protocol.clear_caches()
    honest = mod.calibrate()
    (path,) = folder.glob(f"{CACHE_STUDY}-calibrate-*.pickle")
    protocol.clear_caches()
    yield mod, honest, path
    protocol.clear_caches()


def _reread(mod, path, reason):
    """``calibrate()`` in a fresh process state: a warning naming the file and ``reason``, a recomputed fit."""
    from vcperf import protocol

    protocol.clear_caches()
    with pytest.warns(RuntimeWarning, match=f"ignored the cache file .*{path.name}: {reason}"):
        got = mod.calibrate()
    protocol.clear_caches()
    return got


def test_cache_files_are_private(cache):
    _, _, path = cache
    folder = path.parent
    assert folder.stat().st_mode & 0o777 == 0o700
    assert (folder / ".key").stat().st_mode & 0o777 == 0o600 and (folder / ".key").stat().st_size == 32
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.with_suffix(".lock").stat().st_mode & 0o777 == 0o600


def test_a_crafted_pickle_is_never_unpickled(cache, tmp_path):
    import pickle

    from vcperf import protocol

    mod, honest, path = cache
    marker = tmp_path / "pwned"
    path.write_bytes(pickle.dumps(_Exploit(marker)))  # a plain pickle, as the old cache read
    assert _reread(mod, path, "its signature does not verify") == honest
    # with the header but a forged signature
    path.write_bytes(protocol.cache.MAGIC + b"\0" * 32 + pickle.dumps(_Exploit(marker)))
    assert _reread(mod, path, "its signature does not verify") == honest
    assert not marker.exists()
    assert protocol.cache._read(path) == honest  # replaced by the recomputed, signed fit


def test_forged_values_are_ignored_and_reported(cache):
    import pickle

    from vcperf import protocol

    mod, honest, path = cache
    forged = protocol.with_values(honest, {"nfc_efficiency": 0.01})
    blob = path.read_bytes()
    head = len(protocol.cache.MAGIC) + 32
    path.write_bytes(blob[:head] + pickle.dumps(forged))  # a real signature over other bytes
    assert _reread(mod, path, "its signature does not verify") == honest
    other = path.with_name(path.name.replace("calibrate", "refit-0123456789abcdef"))
    protocol.cache._write(other, forged)  # signed, but for another entry: not valid under this name
    other.replace(path)
    assert _reread(mod, path, "its signature does not verify") == honest


def test_a_signed_calibration_still_passes_the_parameter_checks(cache):
    """A loaded calibration passes the checks of a fitted one (its constructors run again)."""
    import copy

    from vcperf import protocol

    mod, honest, path = cache
    bad = copy.copy(honest)
    object.__setattr__(bad, "nfc_efficiency", -150.0)  # built around the constructor's check
    protocol.cache._write(path, bad)
    assert _reread(mod, path, "its parameters fail their checks .*nfc_efficiency") == honest
    protocol.cache._write(path, {"nfc_efficiency": 0.5})  # a dict is not a calibration
    assert _reread(mod, path, "it holds a dict, not a Params") == honest


def test_a_truncated_cache_file_is_recomputed(cache):
    from vcperf import protocol

    mod, honest, path = cache
    path.write_bytes(path.read_bytes()[:-20])
    assert _reread(mod, path, "its signature does not verify") == honest
    assert protocol.cache._read(path) == honest


def test_a_cache_key_readable_by_others_disables_the_disk_cache(cache):
    from vcperf import protocol

    mod, honest, path = cache
    (path.parent / ".key").chmod(0o644)
    protocol.clear_caches()
    with pytest.warns(RuntimeWarning, match="is not a private 32-byte file"):
        assert mod.calibrate() == honest
    protocol.clear_caches()


# -- cached results are read-only --------------------------------------------------------------------------------------


def _cached_functions():
    from vcperf import contentlib, ft, robo, vcha
    from vcperf import vmotion as vm

    return {"vmotion.limits": vm.limits, "vmotion.settings": vm.settings, "vmotion.workloads": vm.workloads,
            "vmotion.tpcx_setup": vm.tpcx_setup, "vmotion.testbed": vm.testbed,
            "vcha.inventory_sizes": vcha.inventory_sizes, "vcha.testbed": vcha.testbed,
            "robo.testbed": robo.testbed, "ft.testbed": ft.testbed, "ft.model_values": ft.model_values,
            "contentlib.testbed": contentlib.testbed}


def _try_to_mutate(value, where: str, mutable: list, depth: int = 0) -> int:
    """Try to change every container reachable from ``value``; record the ones that let it. Returns the
    number of attempts."""
    import dataclasses

    import numpy as np

    attempts = 0
    if depth > 6:
        return attempts
    if isinstance(value, dict):
        for key in list(value)[:3]:
            for mutate in (lambda d, k=key: d.__setitem__(k, 10**6), lambda d, k=key: d.__delitem__(k),
                           lambda d: d.clear(), lambda d: d.update({"x": 1}), lambda d: d.pop(next(iter(d)))):
                attempts += 1
                try:
                    mutate(value)
                    mutable.append(f"{where}: a dict")
                except TypeError:
                    pass
        for key, item in value.items():
            attempts += _try_to_mutate(item, f"{where}[{key!r}]", mutable, depth + 1)
    elif isinstance(value, list | set):
        mutable.append(f"{where}: a {type(value).__name__}")
    elif isinstance(value, tuple):
        for i, item in enumerate(value[:5]):
            attempts += _try_to_mutate(item, f"{where}[{i}]", mutable, depth + 1)
    elif isinstance(value, np.ndarray):
        attempts += 1
        if value.size:
            try:
                value.flat[0] = -1
                mutable.append(f"{where}: an array")
            except ValueError:
                pass
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            attempts += 1
            try:
                setattr(value, field.name, None)
                mutable.append(f"{where}.{field.name}: a settable field")
            except AttributeError:
                pass
            attempts += _try_to_mutate(getattr(value, field.name), f"{where}.{field.name}", mutable, depth + 1)
    return attempts


@pytest.mark.parametrize("name", list(_cached_functions()))
def test_mutating_a_cached_result_does_not_change_the_next_answer(name):
    import pickle

    fn = _cached_functions()[name]
    before = pickle.dumps(fn())
    mutable: list = []
    assert _try_to_mutate(fn(), name, mutable) > 0
    assert not mutable, mutable
    assert pickle.dumps(fn()) == before


def test_the_reported_mutations_raise_and_leave_the_answers():
    from vcperf import robo, vcha
    from vcperf import vmotion as vm

    with pytest.raises(TypeError, match="read-only"):
        vm.limits().max_concurrent_per_host["7.0u1"] = 10**6
    assert vm.settings().limits.max_concurrent_per_host["7.0u1"] == 8
    with pytest.raises(TypeError, match="read-only"):
        vcha.inventory_sizes()["small"]["vcpus"] = 0
    assert vcha.appliance("small")["vcpus"] == vcha.inventory_sizes()["small"]["vcpus"] > 0
    with pytest.raises(ValueError, match="read-only"):
        vm.tpcx_setup().vcpus[0] = 10**6
    mix = dict(robo.testbed().mix)  # a copy is an ordinary dict
    mix.clear()
    assert robo.testbed().mix


# -- the Voila app: bounded kernels, never-connected pages culled, cross-site requests refused -------------------------


def _get(url: str, timeout_s: float = 2.0, headers: dict | None = None, bodies: list | None = None):
    """HTTP status of a GET (None when the client gave up first), as a browser tab closed early would; the
    body of an error answer is appended to ``bodies``."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=timeout_s) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as err:
        if bodies is not None:
            bodies.append(err.read().decode("utf-8", "replace"))
        return err.code
    except (urllib.error.URLError, OSError):
        return None


def test_ninety_quick_gets_leave_at_most_the_cap_of_kernels(tmp_path):
    """90 GETs of the app's page with a 2 s client timeout (10 at a time): never more than the cap of kernels
    alive, the surplus answered "503 busy", the server still answering at once; the kernels of the pages
    that never connected are shut down and a page is served again; a cross-site request starts nothing."""
    from concurrent.futures import ThreadPoolExecutor

    from test_browser import _kernels, _voila_server, _wait_kernels

    cap = 3
    with _voila_server(tmp_path, max_kernels=cap, unconnected_timeout_s=5, cull_interval_s=1) as (base, log, server):
        try:
            _wait_kernels(server, 1)  # the pre-heated kernel has run the notebook
            assert _get(f"{base}/", headers={"Sec-Fetch-Site": "cross-site"}) == 403
            assert _get(f"{base}/", headers={"Origin": "http://evil.example"}) == 403
            assert len(_kernels(server)) == 1  # refused before any kernel was taken or started
            peak, bodies = 0, []
            with ThreadPoolExecutor(max_workers=10) as pool:
                futures = [pool.submit(_get, f"{base}/", bodies=bodies) for _ in range(90)]
                while not all(f.done() for f in futures):
                    peak = max(peak, len(_kernels(server)))
                    time.sleep(0.05)
            statuses = [f.result() for f in futures]
            peak = max(peak, len(_kernels(server)))
            print(f"peak {peak} kernels (cap {cap}); statuses {sorted(statuses, key=str)}")
            assert peak <= cap, (peak, statuses)
            assert statuses.count(503) >= 90 - 3 * cap, statuses  # busy, not a kernel each
            assert "busy" in bodies[0].lower() and "try again" in bodies[0], bodies[0][-2000:]
            start = time.monotonic()
            assert _get(f"{base}/voila/static/", timeout_s=5) is not None  # the server answers at once
            assert time.monotonic() - start < 2.0
            assert _get(f"{base}/") in (200, 503, None)
            deadline = time.monotonic() + 90
            while len(_kernels(server)) > 1 or _get(f"{base}/", timeout_s=60) != 200:
                assert time.monotonic() < deadline, f"kernels of unconnected pages kept: {_kernels(server)}"
                time.sleep(1.0)
            assert len(_kernels(server)) <= cap
        except AssertionError as err:
            raise AssertionError(f"{err}\nvoila log (tail):\n{log.read_text()[-3000:]}") from err


def test_app_command_bounds_kernels_and_checks_the_origin(monkeypatch):
    from vcperf import app

    cmd = app.voila_command(Path("app.ipynb"), 8866, max_kernels=5, unconnected_timeout_s=30)
    assert "--AppKernelManager.max_kernels=5" in cmd and "--AppKernelManager.unconnected_timeout=30" in cmd
    assert "--Voila.identity_provider_class=vcperf.app.SameOriginIdentityProvider" in cmd
    assert "--Voila.ip=127.0.0.1" in cmd
    for bad in (1, 0, 1001, 2.5, True, "4"):
        with pytest.raises(ValueError, match="max_kernels must be an integer in"):
            app.voila_command(Path("app.ipynb"), 8866, max_kernels=bad)
    monkeypatch.delenv(app.MAX_KERNELS_ENV, raising=False)
    assert app.default_max_kernels() == max(4, 2 * (os.cpu_count() or 1))
    assert f"--AppKernelManager.max_kernels={app.default_max_kernels()}" in app.voila_command(Path("a.ipynb"))
    monkeypatch.setenv(app.MAX_KERNELS_ENV, "7")
    assert app.default_max_kernels() == 7
    for bad in ("1", "x", "-3", "1e3"):
        monkeypatch.setenv(app.MAX_KERNELS_ENV, bad)
        with pytest.raises(ValueError, match=app.MAX_KERNELS_ENV):
            app.default_max_kernels()
    monkeypatch.setenv(app.MAX_KERNELS_ENV, "0")
    with pytest.raises(SystemExit, match="VCPERF_APP_MAX_KERNELS must be"):
        app.main(["--build-only"])
    monkeypatch.delenv(app.MAX_KERNELS_ENV)
    with pytest.raises(SystemExit, match="max_kernels must be an integer"):
        app.main(["--build-only", "--max-kernels", "1"])


# -- vcperf sweep --workers: a cluster only this process can use ------------------------------------------------------

_PROBE = """
import sys, time
from dask.distributed import Client
from distributed.security import Security
address, how = sys.argv[1], sys.argv[2]
try:
    client = Client(address, timeout=5, security=Security.temporary() if how == "own-cert" else None)
    print("RAN", client.submit(sum, [20, 22]).result(timeout=10), flush=True)
except BaseException as err:
    print("refused", type(err).__name__, flush=True)
import os
os._exit(0)
"""


def _listening_ports(pids) -> set:
    import psutil

    ports = set()
    for pid in pids:
        try:
            ports |= {c.laddr.port for c in psutil.Process(pid).net_connections(kind="inet") if c.status == "LISTEN"}
        except psutil.Error:
            continue
    return ports


def test_a_second_local_process_cannot_run_code_on_the_sweep_cluster():
    pytest.importorskip("distributed")
    import psutil


    with sweep.local_cluster(2) as client:
        address = client.scheduler.address
        assert address.startswith("tls://127.0.0.1:")
        assert client.submit(sum, [1, 2]).result(timeout=60) == 3  # the sweep's own client runs tasks
        tries = {"no credentials": address, "plain TCP": address.replace("tls://", "tcp://"),
                 "own-cert": address}
        for how, target in tries.items():
            done = subprocess.run([sys.executable, "-c", _PROBE, target, how], capture_output=True, text=True,
                                  timeout=120)
            assert "RAN" not in done.stdout and "refused" in done.stdout, (how, done.stdout, done.stderr[-2000:])
        me = psutil.Process()
        ports = _listening_ports([me.pid] + [p.pid for p in me.children(recursive=True)])
        assert 8787 not in ports, ports  # no dashboard port unless asked for


@pytest.mark.parametrize("workers", [0, "max+1", 10**6])
def test_sweep_workers_are_bounded(workers, tmp_path, capsys):

    n = sweep.max_workers() + 1 if workers == "max+1" else workers
    grid = tmp_path / "grid.yaml"
    grid.write_text(GRID)
    assert cli.main(["sweep", "vcperf.queueing.mm1", "--grid", str(grid), "--workers", str(n)]) == 2
    err = capsys.readouterr().err
    assert err == f"vcperf: error: --workers must be an integer in [1, {sweep.max_workers()}] (4 per core); got {n}\n"
    with pytest.raises(ValueError, match=f"workers must be at most {sweep.max_workers()}"):
        sweep.local_cluster(sweep.max_workers() + 1)


def test_a_large_sweep_needs_an_explicit_flag(tmp_path, capsys, monkeypatch):

    grid = tmp_path / "grid.yaml"
    grid.write_text("parameters:\n  arrival_rate_per_s: {lo: 0.1, hi: 0.5, n: 100000}\n"
                    "  service_rate_per_s: {lo: 5.0, hi: 6.0, n: 10000}\n")  # 10**9 points
    out = tmp_path / "t.csv"
    assert cli.main(["sweep", "vcperf.queueing.mm1", "--grid", str(grid), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("vcperf: error: the sweep has 1000000000 points (more than 10000000)")
    assert "confirm with --large" in err and err.count("\n") == 1 and not tmp_path.joinpath("t.csv.partial").exists()
    parsed = sweep.parse_grid(grid, "vcperf.queueing.mm1")
    sweep.check_size(parsed, large=True)  # confirmed: no error
    small = tmp_path / "small.yaml"
    small.write_text(GRID)
    assert cli.main(["sweep", "vcperf.queueing.mm1", "--grid", str(small), "--out", str(out)]) == 0
    assert out.read_text().count("\n") == 2  # header and one point, no flag needed


def test_the_default_cache_folder_is_made_private_and_a_named_one_is_left_alone(tmp_path, monkeypatch):
    from vcperf import protocol

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("VCPERF_CACHE_DIR", raising=False)
    monkeypatch.delenv("VCPERF_NO_CACHE", raising=False)
    default = tmp_path / "xdg" / "vcperf"
    default.mkdir(parents=True, mode=0o755)
    default.chmod(0o755)
    named = tmp_path / "mine"
    named.mkdir(mode=0o755)
    named.chmod(0o755)
    try:
        assert protocol.cache_dir() == default
        for folder in (default, named):
            protocol.cache._write(folder / "x-probe-0.pickle", {"a": 1})
            assert protocol.cache._read(folder / "x-probe-0.pickle") == {"a": 1}
            assert (folder / "x-probe-0.pickle").stat().st_mode & 0o777 == 0o600
        assert default.stat().st_mode & 0o777 == 0o700
        assert named.stat().st_mode & 0o777 == 0o755
    finally:
        protocol.clear_caches()
