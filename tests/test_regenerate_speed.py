"""What makes a regeneration fast stays exact: forked kernels print the bytes started ones print, refits
and calibrations are computed once across processes, and the costliest notebooks start first."""

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from vcperf import protocol
from vcperf.regenerate import forkserver, notebook, schedule

ROOT = Path(__file__).resolve().parent.parent

_PROBE = '''# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% tags=["parameters"]
output_dir = "../build"

# %%
# %matplotlib inline
import os, sys
import matplotlib.pyplot as plt
import pandas as pd
print(pd.get_option("display.max_columns"), os.path.basename(os.getcwd()), sys.argv[0], sys.path,
      os.environ.get("PYDEVD_USE_FRAME_EVAL"))  # set by the debugger ipykernel imports at start
pd.DataFrame({f"column_{i}": [i * 1.5] * 3 for i in range(30)})

# %%
fig, ax = plt.subplots()
ax.plot([0, 1], [1, 0])
plt.show()
'''


@pytest.mark.kernel
@pytest.mark.skipif(not hasattr(os, "fork"), reason="kernels are forked only where there is fork()")
def test_a_forked_kernel_prints_and_draws_what_a_started_kernel_does(tmp_path):
    """The same notebook executed by a kernel started as a process and by one forked from the kernel
    server (pandas' Jupyter display width, the inline figure, the working folder, argv, sys.path) is
    byte-identical, whatever the process that starts the server had imported (and what the server's own
    imports put in its environment)."""
    src = tmp_path / "nbs" / "probe.py"
    src.parent.mkdir()
    src.write_text(_PROBE)
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        import pandas  # imported outside any kernel, as a test runner may have it: kernels must not inherit it
        from vcperf.regenerate import forkserver, notebook
        if sys.argv[1] == "fork":
            forkserver.start()
        out = Path(sys.argv[2]); (out / "notebooks").mkdir(parents=True)
        assert notebook.execute("probe", {str(src)!r}, str(out), {{}}) is None
        print(forkserver.REAPED_CPU["s"] > 0)
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("MPLBACKEND", None)
    used = {}
    for how in ("start", "fork"):
        done = subprocess.run([sys.executable, "-c", script, how, str(tmp_path / how)], env=env, capture_output=True,
                              text=True, timeout=180)
        assert done.returncode == 0, done.stderr
        used[how] = done.stdout.split()[-1]
    assert used == {"start": "False", "fork": "True"}  # the second kernel was the server's child
    started = (tmp_path / "start" / "notebooks" / "probe.ipynb").read_bytes()
    forked = (tmp_path / "fork" / "notebooks" / "probe.ipynb").read_bytes()
    assert forked == started
    executed = json.loads(started)
    assert "20 nbs" in "".join(executed["cells"][2]["outputs"][0]["text"])  # a kernel's display width, its folder
    assert any("image/png" in o.get("data", {}) for o in executed["cells"][3]["outputs"])


def test_only_an_ipykernel_command_of_this_interpreter_is_forked():
    assert forkserver._launcher_args([sys.executable, "-m", "ipykernel_launcher", "-f", "c.json"]) == ["-f", "c.json"]
    assert forkserver._launcher_args(["/other/python", "-m", "ipykernel_launcher", "-f", "c.json"]) is None
    assert forkserver._launcher_args([sys.executable, "-m", "other_kernel", "-f", "c.json"]) is None
    assert notebook.worker_init is not None


@pytest.mark.parametrize("study", ["contentlib2015", "ft2016"])
def test_a_refit_is_read_from_the_disk_cache(study, tmp_path, monkeypatch):
    """A refit on explicit keys (a notebook's leave-one-out) is stored once per key set and source digest:
    a fresh process reads it back instead of fitting again; other keys are another entry."""
    monkeypatch.setenv("VCPERF_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("VCPERF_NO_CACHE", raising=False)
    mod = protocol.study_module(study)
    keys = protocol.fit_keys(mod)
    protocol.clear_caches()
    try:
        honest = mod.calibrate(fit_on=keys[1:])
        files = sorted(tmp_path.glob(f"{study}-refit-*.pickle"))
        assert len(files) == 1 and protocol.cache._read(files[0]) == honest
        name = protocol.param_names(honest)[0]  # poison it (signed, valid): only a read of the disk returns it
        poisoned = protocol.with_values(honest, {name: protocol.param_vector(honest)[0] * 1.5})
        protocol.cache._write(files[0], poisoned)
        protocol.clear_caches()
        assert mod.calibrate(fit_on=keys[1:]) == poisoned != honest
        assert mod.calibrate(fit_on=keys[:-1]) != poisoned
        assert len(list(tmp_path.glob(f"{study}-refit-*.pickle"))) == 2
    finally:
        protocol.clear_caches()


@pytest.mark.skipif(sys.platform == "win32", reason="flock")
def test_a_result_another_process_is_computing_is_waited_for_not_recomputed(tmp_path, monkeypatch):
    """While another process holds a result's lock, a process that needs it waits and reads what the
    other wrote: the computation runs once across the processes of a regeneration."""
    monkeypatch.setenv("VCPERF_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("VCPERF_NO_CACHE", raising=False)
    mod = protocol.study_module("contentlib2015")
    path = protocol.cache._disk_path(mod, "probe")
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import fcntl, sys, time
        from pathlib import Path
        from vcperf.protocol import cache
        path = Path({str(path)!r})
        with open(path.with_suffix(".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            print("locked", flush=True)
            time.sleep(1.0)
            cache._write(path, "computed by the other process")  # signed with the installation's key
    """)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    calls = []
    protocol.clear_caches()
    try:
        got = protocol.cache.cached_result(mod, "probe", lambda: calls.append(1) or "computed here")
    finally:
        protocol.clear_caches()
    holder.wait(timeout=30)
    assert got == "computed by the other process" and calls == []


def test_the_costliest_recorded_notebook_starts_first(tmp_path, monkeypatch):
    monkeypatch.setenv("VCPERF_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("VCPERF_NO_CACHE", raising=False)
    sources = {}
    for name, size in (("small", 10), ("big", 1000), ("new", 5)):
        sources[name] = tmp_path / f"{name}.py"
        sources[name].write_text("x" * size)
    assert schedule.order(["small", "big", "new"], sources) == ["big", "small", "new"]  # by size, untimed
    schedule.remember({"small": 9.0, "big": 2.0})
    assert schedule.recorded() == {"small": 9.0, "big": 2.0}
    assert schedule.order(["small", "big", "new"], sources) == ["new", "small", "big"]  # never timed first
    (tmp_path / schedule.RECORD).write_text("not json")
    assert schedule.recorded() == {}
    result, cpu = schedule.timed(sum, range(10**6))
    assert result == sum(range(10**6)) and cpu >= 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG")
def test_a_kernel_server_dies_with_its_worker_killed_during_start_up():
    """A pool worker SIGKILLed while its kernel server is still importing its modules (seconds): the server
    dies with it at once, instead of finishing its imports first."""
    import signal

    from vcperf.regenerate.processes import _dead

    worker = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import time
        from vcperf.regenerate import forkserver
        forkserver.start()
        print(forkserver._SERVER["proc"].pid, flush=True)
        time.sleep(120)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        server = int(worker.stdout.readline())
        time.sleep(0.3)  # the server is running its first lines or importing
        assert not _dead(server)
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)
        deadline = time.monotonic() + 3.0
        while not _dead(server):
            assert time.monotonic() < deadline, f"kernel server {server} outlived its worker by 3 s"
            time.sleep(0.05)
    finally:
        worker.kill()
        worker.wait()
