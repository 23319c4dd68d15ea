"""The speed a user feels (issue 16): regeneration, the fidelity command, every what-if update, a Dask sweep.

Each function takes a ``measure(name, run, unit)`` callable (bench/measure.py, bound to the run's
load policy) and returns ``(headline value(s), measurement record(s))``:

- :func:`regenerate_warm` -- ``vcperf regenerate --jobs 2`` into a temporary build folder with the
  calibration cache warm (a warm-up regeneration first, unless the caller says the cache is warm).
- :func:`fidelity_cli` -- the ``vcperf fidelity`` command, warm, wall time of the subprocess (median of 3).
- :func:`whatif_updates` -- every ``*_update`` of ``vcperf.views.*`` with its defaults, headless:
  warm median of repeated calls (model + redraw), in ms.
- :func:`dask_speedup` -- the TPCx-HCI Monte Carlo (many seeds x 1000 replications of 18 runs) on a
  2-worker LocalCluster on 127.0.0.1 vs in-process; speed-up = in-process time / cluster time (the
  cluster's start is timed apart and not included; both give the same numbers).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.measure import median_time

ROOT = Path(__file__).resolve().parent.parent
Measure = Callable[..., dict]


def vcperf_command() -> list[str]:
    """The ``vcperf`` console script next to this interpreter, else ``python -m vcperf.cli``."""
    exe = Path(sys.executable).with_name("vcperf")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "vcperf.cli"]


# --------------------------------------------------------------------------------------------
# regenerate --jobs 2
# --------------------------------------------------------------------------------------------


FINISHED_RE = re.compile(r"^vcperf regenerate: \[(\d+)/(\d+)\] (\S+) (done|failed) \(([0-9.]+) s\)", re.M)


def notebooks_finished(stderr: str) -> dict:
    """Per notebook, when it finished (s after the pool started) and whether it failed, from regenerate's
    one line per finished notebook (it strips timings from the notebooks themselves)."""
    return {m.group(3): {"finished_at_s": float(m.group(5)), "status": m.group(4)}
            for m in FINISHED_RE.finditer(stderr)}


def regenerate_once(target: Path, jobs: int, root: Path = ROOT, env: dict | None = None,
                    command: list[str] | None = None) -> tuple[float | None, dict]:
    """One ``vcperf regenerate --jobs`` of the checkout ``root`` (``command``: how vcperf is started, in ``env``)
    into ``target``; its wall time and per-notebook finish times."""
    cmd = [*(command or vcperf_command()), "regenerate", "--jobs", str(jobs), "--output", str(target)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root, env=env, timeout=3600)
    wall = time.perf_counter() - t0
    detail = {"returncode": proc.returncode, "notebooks": notebooks_finished(proc.stderr)}
    if proc.returncode:
        detail["stderr_tail"] = proc.stderr[-1500:]
        return None, detail
    return wall, detail


def regenerate_warm(measure: Measure, jobs: int = 2, warmup: bool = True, root: Path = ROOT,
                    env: dict | None = None, command: list[str] | None = None, label: str = ""
                    ) -> tuple[float | None, dict]:
    """Warm ``vcperf regenerate --jobs`` of the checkout ``root`` (see :func:`regenerate_once`)."""
    scratch = Path(tempfile.mkdtemp(prefix="vcperf-bench-regen-"))

    def once(name: str) -> tuple[float | None, dict]:
        return regenerate_once(scratch / name, jobs, root=root, env=env, command=command)

    try:
        warm = {}
        if warmup:  # fills the calibration cache if the sources changed since it was last filled
            wall, detail = once("warm-up")
            warm = {"warmup_s": wall, "warmup_returncode": detail["returncode"]}
            print(f"  {label}regenerate warm-up: {wall if wall is None else round(wall, 1)} s", flush=True)
        counter = iter(range(1000))
        rec = measure(f"{label}regenerate --jobs {jobs}", lambda: once(f"timed-{next(counter)}"), unit="s")
        rec.update(warm)
        rec["notebooks"] = sorted(p.stem for p in (root / "notebooks").glob("*.py"))
        return rec["value"], rec
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# vcperf fidelity
# --------------------------------------------------------------------------------------------


def _fidelity_once() -> float:
    t0 = time.perf_counter()
    subprocess.run([*vcperf_command(), "fidelity"], check=True, cwd=ROOT, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, timeout=1800)
    return time.perf_counter() - t0


def fidelity_cli(measure: Measure, repeats: int = 3) -> tuple[float | None, dict]:
    warmup = _fidelity_once()  # a cold cache is filled here, not in the timed runs

    def run():
        samples = [_fidelity_once() for _ in range(repeats)]
        return statistics.median(samples), {"samples_s": samples}

    rec = measure("vcperf fidelity", run, unit="s")
    rec["warmup_s"] = warmup
    return rec["value"], rec


# --------------------------------------------------------------------------------------------
# what-if updates (model + redraw)
# --------------------------------------------------------------------------------------------


def update_functions() -> dict[str, Callable | str]:
    """``"<view module>.<name>"`` -> every ``*_update`` function of ``vcperf.views.*`` (a module, or a package
    and its submodules) callable with its defaults; or a string saying why it is not benchmarked."""
    import vcperf.views

    out: dict[str, Callable | str] = {}
    for info in pkgutil.iter_modules(vcperf.views.__path__):
        modname = f"vcperf.views.{info.name}"
        try:
            mod = importlib.import_module(modname)
        except Exception as err:  # noqa: BLE001 - a view under construction must not stop the bench
            out[info.name] = f"import error: {type(err).__name__}: {err}"
            continue
        for name, fn in sorted(vars(mod).items()):
            if not (name.endswith("_update") and inspect.isfunction(fn)
                    and (fn.__module__ == modname or fn.__module__.startswith(modname + "."))):
                continue  # a view package's panels are defined in its submodules
            missing = [p for p, prm in inspect.signature(fn).parameters.items()
                       if prm.default is inspect.Parameter.empty
                       and prm.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
            out[f"{info.name}.{name}"] = f"not benchmarked: needs {missing}" if missing else fn
    return out


def whatif_updates(measure: Measure, repeats: int = 7) -> tuple[dict[str, float], dict]:
    values, records = {}, {}
    for key, fn in update_functions().items():
        if isinstance(fn, str):
            records[key] = {"status": fn}
            continue

        def run(fn=fn):
            t0 = time.perf_counter()
            fn()
            cold = time.perf_counter() - t0  # first call of the attempt (cold only in the first attempt)
            t = median_time(fn, repeats=repeats, min_loop_s=0.0)
            return t["median_s"] * 1e3, {"first_call_ms": cold * 1e3, "min_ms": t["min_s"] * 1e3,
                                         "repeats": t["repeats"]}

        rec = measure(f"what-if {key}", run, unit="ms")
        records[key] = rec
        if rec["value"] is not None:
            values[key] = rec["value"]
    return values, records


# --------------------------------------------------------------------------------------------
# Dask: the TPCx-HCI Monte Carlo on a 2-worker LocalCluster vs in-process
# --------------------------------------------------------------------------------------------


def dask_speedup(measure: Measure, tasks: int = 8, replications: int = 1000, workers: int = 2
                 ) -> tuple[float | None, dict]:
    """Speed-up of ``tasks`` seeds x ``replications`` x 18 simulated TPCx-HCI runs on a Dask cluster."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        return None, {"status": "not measured: dask.distributed not installed"}
    from vcperf import vmotion

    sim = vmotion.tpcx_monte_carlo
    args = ("6.7", vmotion.calibrate_tpcx(), vmotion.tpcx_setup())
    kw = {"params": vmotion.calibrate(), "settings": vmotion.settings(), "replications": replications}
    seeds = list(range(1, tasks + 1))

    def summary(results) -> list[float]:
        return [r.expected_invalid_runs(18) for r in results]

    t0 = time.perf_counter()
    with LocalCluster(n_workers=workers, processes=True, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        start_s = time.perf_counter() - t0
        client.gather([client.submit(sim, *args, seed=0, **kw)])  # workers import vcperf once, untimed

        def run():
            t0 = time.perf_counter()
            local = summary(sim(*args, seed=s, **kw) for s in seeds)
            in_process_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            remote = summary(client.gather([client.submit(sim, *args, seed=s, **kw) for s in seeds]))
            cluster_s = time.perf_counter() - t0
            return in_process_s / cluster_s, {"in_process_s": in_process_s, "cluster_s": cluster_s,
                                               "same_results": local == remote}

        rec = measure(f"Dask {workers} workers vs in-process", run, unit="x")
    rec.update({"model": "vcperf.vmotion.tpcx_monte_carlo", "tasks": tasks, "replications_per_task": replications,
                "simulated_runs": tasks * replications * 18, "workers": workers, "cluster_start_s": start_s})
    return rec["value"], rec
