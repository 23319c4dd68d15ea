"""Model hot paths beyond MVA: ``import vcperf``, the vMotion pre-copy grid, the TPCx-HCI Monte Carlo,
``vcperf.sweep.evaluate`` on 10^6 points (in-process and on a 2-worker Dask cluster), and the site planner
(one plan evaluation, goal <= 50 ms; one reverse question, goal <= 1 s)."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

import numpy as np

from bench.measure import median_time

# --------------------------------------------------------------------------------------------
# 3. import time
# --------------------------------------------------------------------------------------------


def bench_import(repeats: int) -> dict:
    out = {}
    for what in ("vcperf", "vcperf.queueing", "vcperf.sweep", "vcperf.site"):
        code = f"import time; t = time.perf_counter(); import {what}; print(time.perf_counter() - t)"
        samples = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
            wall = time.perf_counter() - t0
            samples.append((float(proc.stdout.strip()), wall))
        out[what] = {"median_s": statistics.median(s[0] for s in samples),
                     "interpreter_wall_median_s": statistics.median(s[1] for s in samples), "repeats": repeats}
    return out



#: The commands whose imports ``python -X importtime`` breaks down (run from the checkout: the example's path).
IMPORT_PATHS = {
    "import vcperf.site": ["-c", "import vcperf.site"],
    "vcperf plan --help": ["-m", "vcperf.cli", "plan", "--help"],
    "vcperf plan (warm)": ["-m", "vcperf.cli", "plan", "examples/branch_20_hosts_10mbit.yaml"],
}


def parse_importtime(stderr: str) -> dict:
    """``python -X importtime``'s lines -> modules imported, the sum of their own times (s) and the five slowest
    (own time), and the top-level packages taking most cumulative time.

    >>> out = parse_importtime("import time: self [us] | cumulative | imported package\\n"
    ...                        "import time:       100 |        100 |   a.b\\n"
    ...                        "import time:       200 |        300 | a\\n")
    >>> out["modules"], out["self_s"], out["slowest_self"][0]
    (2, 0.0003, ['a', 0.0002])
    """
    rows = []
    for line in stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if not line.startswith("import time:") or len(parts) != 3 or not parts[0].strip().isdigit():
            continue
        name = parts[2].rstrip()
        rows.append((name.strip(), int(parts[0]) / 1e6, int(parts[1]) / 1e6, len(name) - len(name.lstrip())))
    top = {}
    for name, _, cumulative, indent in rows:
        if indent == 1:  # imported by the command itself (one space after the bar)
            root = name.split(".")[0]
            top[root] = top.get(root, 0.0) + cumulative
    return {"modules": len(rows), "self_s": round(sum(r[1] for r in rows), 6),
            "slowest_self": [[n, round(t, 6)] for n, t, _, _ in sorted(rows, key=lambda r: -r[1])[:5]],
            "heaviest_packages": [[n, round(t, 6)] for n, t in sorted(top.items(), key=lambda kv: -kv[1])[:5]]}


def bench_importtime(root, env: dict | None = None) -> dict:
    """``python -X importtime`` of :data:`IMPORT_PATHS` (one run each, after one untimed run that writes any
    missing bytecode), with the 1-min load average: what each path imports and what it costs."""
    import os

    out = {}
    for label, args in IMPORT_PATHS.items():
        cmd = [sys.executable, "-X", "importtime", *args]
        subprocess.run(cmd, capture_output=True, text=True, cwd=root, env=env, timeout=600)
        load = os.getloadavg()[0]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root, env=env, timeout=600)
        wall = time.perf_counter() - t0
        out[label] = {"wall_s": round(wall, 4), "load_1m": load, "returncode": proc.returncode,
                      **parse_importtime(proc.stderr)}
    return out


# --------------------------------------------------------------------------------------------
# 5. vMotion grid and TPCx-HCI Monte Carlo
# --------------------------------------------------------------------------------------------


def bench_vmotion(repeats: int) -> dict:
    out = {}
    try:
        from vcperf import vmotion
    except Exception as err:  # noqa: BLE001
        return {"precopy_grid": {"status": f"not available yet ({type(err).__name__})"},
                "tpcx_monte_carlo": {"status": "not available yet"}}
    precopy = getattr(vmotion, "precopy", None)
    if callable(precopy):
        # 10^6 cases: 100 memory sizes (64 GB .. 4 TB) x 100 dirty rates (0 .. 8 GB/s) x 100 links (10 .. 400 Gbit/s)
        mem, dirty, link = np.meshgrid(np.geomspace(64e9, 4e12, 100), np.linspace(0.0, 8e9, 100),
                                       np.geomspace(10e9, 400e9, 100), indexing="ij")
        mem, dirty, link = mem.ravel(), dirty.ravel(), link.ravel()
        try:
            kw = {"params": vmotion.calibrate(), "settings": vmotion.settings()}
            t = median_time(lambda: precopy(mem, dirty, link, **kw), repeats=3, min_loop_s=0.0)
            out["precopy_grid"] = {"status": "ok", "cases": mem.size, **t,
                                   "per_case_s": t["median_s"] / mem.size}
        except Exception as err:  # noqa: BLE001
            out["precopy_grid"] = {"status": f"error: {type(err).__name__}: {err}"}
    else:
        out["precopy_grid"] = {"status": "not available yet"}
    mc = getattr(vmotion, "tpcx_monte_carlo", None)
    cal = getattr(vmotion, "calibrate_tpcx", None)
    if callable(mc) and callable(cal):
        try:
            t0 = time.perf_counter()
            peak = cal()
            cal_s = time.perf_counter() - t0
            setup = vmotion.tpcx_setup()
            runs = int(setup.runs)
            kw = {"params": vmotion.calibrate(), "settings": vmotion.settings()}
            t = median_time(lambda: mc("6.7", peak, setup, replications=1, **kw), repeats=max(3, repeats // 2),
                            min_loop_s=0.0)
            out["tpcx_monte_carlo"] = {"status": "ok", "runs": runs, "calibration_once_s": cal_s, **t}
        except Exception as err:  # noqa: BLE001
            out["tpcx_monte_carlo"] = {"status": f"error: {type(err).__name__}: {err}"}
    else:
        out["tpcx_monte_carlo"] = {"status": "not available yet"}
    return out


# --------------------------------------------------------------------------------------------
# 6. vcperf.sweep on a large grid: in-process vs a 2-worker Dask LocalCluster
# --------------------------------------------------------------------------------------------


def bench_sweep_module(points_per_axis: int = 100, chunk_size: int = 100_000) -> dict:
    from vcperf import sweep

    model = "vcperf.network.transfer_time_s"
    spec = {"parameters": {
        "size_bytes": {"lo": 1e3, "hi": 1e10, "n": points_per_axis, "scale": "log"},
        "rtt_s": {"lo": 1e-4, "hi": 0.6, "n": points_per_axis, "scale": "log"},
        "bandwidth_bps": {"lo": 1e6, "hi": 1e10, "n": points_per_axis, "scale": "log"},
    }}
    grid = sweep.parse_grid(spec, model)
    out = {"model": model, "points": grid.size, "chunk_size": chunk_size}
    t0 = time.perf_counter()
    local = sweep.evaluate(model, grid, chunk_size, progress=False)
    out["in_process_s"] = time.perf_counter() - t0
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        out["dask"] = {"status": "not installed"}
        return out
    t0 = time.perf_counter()
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        start_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        remote = sweep.evaluate(model, grid, chunk_size, client=client, progress=False)
        run_s = time.perf_counter() - t0
    out["dask"] = {"status": "ok", "workers": 2, "cluster_start_s": start_s, "run_s": run_s,
                   "equal_to_in_process": bool(remote.equals(local))}
    print(f"  sweep module: in-process {out['in_process_s']:.2f} s, 2 Dask workers {run_s:.2f} s", flush=True)
    return out




# --------------------------------------------------------------------------------------------
# 7. site planner: one evaluation of each example plan, one reverse question
# --------------------------------------------------------------------------------------------


def bench_site(repeats: int) -> dict:
    """Each example plan (``examples/*.yaml``): one evaluation without and with intervals, and the smallest
    bandwidth of its first link (the reverse question bisects the evaluation without intervals)."""
    try:
        from vcperf import site
        from vcperf.views import site as views
    except Exception as err:  # noqa: BLE001
        return {"status": f"not available yet ({type(err).__name__})"}
    out = {}
    for name in views.example_names():
        plan = views.example(name)
        site.evaluate(plan)  # warm: calibrations and uncertainty loaded
        link = plan.links[0].name
        out[name] = {
            "evaluate": median_time(lambda plan=plan: site.evaluate(plan, intervals=False), repeats=repeats),
            "evaluate_with_intervals": median_time(lambda plan=plan: site.evaluate(plan), repeats=3, min_loop_s=0.0),
            "smallest_bandwidth": (
                median_time(lambda plan=plan, link=link: site.smallest_bandwidth(plan, link), repeats=3, min_loop_s=0.0)
                if plan.targets else {"status": "no targets"}),
        }
    return out
