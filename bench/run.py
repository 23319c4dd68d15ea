"""`make bench`: measure vcperf's hot paths side by side with peer tools; write build/bench/results.json.

One run measures, on this machine (CPU model, cores, Python and numpy versions are recorded):

1. **Exact MVA on one closed network** at N = 1, 2, 4, 8, 64, 256, 1024: ``vcperf.queueing.mva`` vs
   the peer line-solver (``MVA(model, 'exact')``, in its own venv, bench/peers.py) and vs a SimPy
   discrete-event simulation run until the 95 % confidence half-width of the throughput is <= 1 %.
   The network is the vCenter-like one of the queueing tests: vpxd CPU (0.30 s) and database
   (0.05 s) queueing stations and a host-RPC delay station (0.90 s), think time 0 (VCbench-style
   clients issue their next operation at once; the RPC delay plays the part of a think time).
2. **Vectorized sweep**: X(N) and R(N) for 10^4 parameter sets x N = 1..1024 in one batched
   ``mva`` call.
3. ``import vcperf`` in a fresh interpreter (median of several).
4. Every notebook what-if path: each ``*_update`` function of ``vcperf.views.*``, called with its
   defaults, headless (MPLBACKEND=Agg); first call (cold caches) and median of warm calls.
5. ``vcperf.vmotion.precopy`` on a grid of 10^6 cases and the TPCx-HCI Monte Carlo (18 runs), if present.
6. ``vcperf.sweep.evaluate`` on 10^6 points of ``transfer_time_s``: in-process vs a 2-worker Dask cluster.
7. ``vcperf regenerate --jobs 2`` into a scratch folder, wall time (a warm-up run, then the timed run).

Times are medians of repeated runs; ratios are peer time / vcperf time measured in the same run
(> 1: vcperf is faster). Nothing here is asserted by a test: wall-clock times are machine-dependent.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import json
import math
import os
import pkgutil
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")  # no INFO lines from the Dask cluster

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "bench"

#: The benchmark network (seconds): queueing stations vpxd CPU and DB, then the host-RPC delay station.
DEMANDS_S = (0.30, 0.05, 0.90)
DELAY_STATIONS = (False, False, True)
THINK_S = 0.0
POPULATIONS = (1, 2, 4, 8, 64, 256, 1024)

GOALS = {
    "mva_n256_s": 1e-3,
    "sweep_s": 0.15,
    "import_s": 0.5,
    "whatif_s": 0.05,
    "regenerate_s": 30.0,
}


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def median_time(fn, repeats: int = 7, min_loop_s: float = 0.02) -> dict:
    """Median seconds per call: ``repeats`` timings of a loop long enough to time reliably."""
    fn()  # warm-up
    t0 = time.perf_counter()
    fn()
    once = time.perf_counter() - t0
    number = max(1, int(min_loop_s / max(once, 1e-9)))
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - t0) / number)
    return {"median_s": statistics.median(samples), "min_s": min(samples), "repeats": repeats, "loops": number}


def machine() -> dict:
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {}
    for mod in ("numpy", "scipy", "pandas", "simpy", "dask", "distributed", "matplotlib"):
        try:
            versions[mod] = importlib.import_module(mod).__version__
        except ImportError:
            versions[mod] = None
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu_model": cpu,
        "cores": os.cpu_count(),
        "cores_usable": affinity,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "versions": versions,
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load_average_1m_at_start": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }


# --------------------------------------------------------------------------------------------
# 1. Exact MVA: vcperf vs line-solver vs SimPy
# --------------------------------------------------------------------------------------------


def simulate(n: int, seed: int, rel_half_width: float = 0.01, batch_completions: int = 2000,
             min_batches: int = 20, max_batches: int = 5000) -> dict:
    """Discrete-event simulation (SimPy) of the benchmark network: throughput with a 95 % CI.

    FCFS single servers with exponential service stand for the PS stations: by the BCMP theorem
    both give the same product-form means. Warm-up of 5 pessimistic cycle times (and at least 1000
    completions), then batch means over batches of ~``batch_completions`` cycles until the 95 %
    half-width is below ``rel_half_width`` of the mean (at least ``min_batches`` batches).
    """
    import simpy
    from scipy import stats

    dq = [d for d, is_delay in zip(DEMANDS_S, DELAY_STATIONS, strict=True) if not is_delay]
    dd = sum(d for d, is_delay in zip(DEMANDS_S, DELAY_STATIONS, strict=True) if is_delay)
    rnd = random.Random(seed)
    env = simpy.Environment()
    servers = [simpy.Resource(env, capacity=1) for _ in dq]
    done = [0]

    def customer():
        while True:
            yield env.timeout(rnd.expovariate(1.0 / dd) if dd > 0 else 0.0)
            for srv, d in zip(servers, dq, strict=True):
                with srv.request() as req:
                    yield req
                    yield env.timeout(rnd.expovariate(1.0 / d))
            done[0] += 1

    for _ in range(n):
        env.process(customer())
    x_upper = min(n / (sum(dq) + dd + THINK_S), 1.0 / max(dq))  # asymptotic bounds size the batches
    cycle_upper = n * sum(dq) + dd + THINK_S
    t = max(5.0 * cycle_upper, 1000.0 / x_upper)
    env.run(until=t)
    batch_s = batch_completions / x_upper
    rates = []
    last = done[0]
    while True:
        t += batch_s
        env.run(until=t)
        rates.append((done[0] - last) / batch_s)
        last = done[0]
        if len(rates) >= min_batches:
            mean = statistics.fmean(rates)
            hw = stats.t.ppf(0.975, len(rates) - 1) * statistics.stdev(rates) / math.sqrt(len(rates))
            if hw <= rel_half_width * mean or len(rates) >= max_batches:
                return {"throughput_per_s": mean, "half_width_95_per_s": float(hw), "batches": len(rates),
                        "simulated_s": t, "completions": done[0]}


def bench_mva(peers_python: str | None, repeats: int, sim_repeats: int) -> dict:
    from vcperf import queueing

    out = {"network": {"demands_s": DEMANDS_S, "delay_stations": DELAY_STATIONS, "think_time_s": THINK_S},
           "rows": []}
    vc = {}
    for n in POPULATIONS:
        res = queueing.mva(DEMANDS_S, n, THINK_S, DELAY_STATIONS)
        timing = median_time(lambda n=n: queueing.mva(DEMANDS_S, n, THINK_S, DELAY_STATIONS), repeats)
        vc[n] = {"throughput_per_s": float(res.throughput_per_s[-1]),
                 "response_time_s": float(res.response_time_s[-1]), **timing}

    peer = {"available": False}
    if peers_python and Path(peers_python).exists():
        cmd = [peers_python, str(ROOT / "bench" / "peers.py"), "--populations", ",".join(map(str, POPULATIONS)),
               "--repeats", str(max(3, repeats // 2)),
               "--demands", ",".join(str(d) for d, q in zip(DEMANDS_S, DELAY_STATIONS, strict=True) if not q),
               "--delay", str(sum(d for d, q in zip(DEMANDS_S, DELAY_STATIONS, strict=True) if q))]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, cwd=ROOT)
        if proc.returncode == 0:
            peer = json.loads(proc.stdout.strip().splitlines()[-1])
            peer["available"] = True
        else:
            peer = {"available": False, "error": proc.stderr[-2000:]}
    else:
        peer["error"] = f"peer interpreter not found: {peers_python} (run `make bench`, which creates .venv-peers)"
    out["line_solver"] = {k: v for k, v in peer.items() if k != "results"}
    peer_rows = {r["n"]: r for r in peer.get("results", [])}

    for n in POPULATIONS:
        row = {"n": n, "vcperf": vc[n]}
        x = vc[n]["throughput_per_s"]
        if n in peer_rows:
            p = peer_rows[n]
            row["line_solver"] = {
                "throughput_per_s": p["throughput_per_s"],
                "response_time_s": p["response_time_s"],
                "median_s": p["total_s_median"],
                "solve_only_median_s": p["solve_s_median"],
                "rel_error_throughput": p["throughput_per_s"] / x - 1.0,
                "throughput_default_method_per_s": p["throughput_default_method_per_s"],
                "rel_error_default_method": (p["throughput_default_method_per_s"] / x - 1.0
                                             if isinstance(p["throughput_default_method_per_s"], float) else None),
                "ratio_peer_over_vcperf": p["total_s_median"] / vc[n]["median_s"],
            }
        sims = []
        for k in range(sim_repeats):
            t0 = time.perf_counter()
            s = simulate(n, seed=1000 * n + k)
            s["wall_s"] = time.perf_counter() - t0
            sims.append(s)
        sim_x = statistics.median(s["throughput_per_s"] for s in sims)
        sim_t = statistics.median(s["wall_s"] for s in sims)
        row["simpy"] = {
            "throughput_per_s": sim_x,
            "half_width_95_per_s": statistics.median(s["half_width_95_per_s"] for s in sims),
            "median_s": sim_t,
            "runs": sims,
            "rel_error_throughput": sim_x / x - 1.0,
            "within_ci": [abs(s["throughput_per_s"] - x) <= s["half_width_95_per_s"] for s in sims],
            "ratio_peer_over_vcperf": sim_t / vc[n]["median_s"],
        }
        out["rows"].append(row)
        print(f"  mva N={n}: vcperf {vc[n]['median_s'] * 1e3:.3f} ms", flush=True)
    return out


# --------------------------------------------------------------------------------------------
# 2. Vectorized sweep
# --------------------------------------------------------------------------------------------


def bench_sweep(repeats: int, n_sets: int = 10_000, n_max: int = 1024) -> dict:
    from vcperf import queueing

    rng = np.random.default_rng(2020)
    # 10^4 networks around the benchmark one: each demand scaled by a factor in [0.5, 2].
    demands = np.asarray(DEMANDS_S) * rng.uniform(0.5, 2.0, (n_sets, len(DEMANDS_S)))

    def run(mod):
        res = mod.mva(demands, n_max, THINK_S, DELAY_STATIONS)
        return res.throughput_per_s, res.response_time_s

    out = {"networks": n_sets, "n_max": n_max, "stations": len(DEMANDS_S), "what": "X(N), R(N) from one mva call"}
    t = median_time(lambda: run(queueing), repeats=max(3, repeats // 2), min_loop_s=0.0)
    out["current"] = t
    print(f"  sweep: {t['median_s']:.3f} s", flush=True)
    return out


# --------------------------------------------------------------------------------------------
# 3. import time
# --------------------------------------------------------------------------------------------


def bench_import(repeats: int) -> dict:
    out = {}
    for what in ("vcperf", "vcperf.queueing", "vcperf.sweep"):
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


# --------------------------------------------------------------------------------------------
# 4. what-if update paths
# --------------------------------------------------------------------------------------------


def bench_whatif(repeats: int) -> dict:
    import vcperf.views

    out = {}
    for info in pkgutil.iter_modules(vcperf.views.__path__):
        modname = f"vcperf.views.{info.name}"
        try:
            mod = importlib.import_module(modname)
        except Exception as err:  # noqa: BLE001 - a view under construction must not stop the bench
            out[modname] = {"status": f"import error: {type(err).__name__}: {err}"}
            continue
        for name, fn in sorted(vars(mod).items()):
            if not (name.endswith("_update") and inspect.isfunction(fn) and fn.__module__ == modname):
                continue
            key = f"{modname}.{name}"
            sig = inspect.signature(fn)
            missing = [p for p, prm in sig.parameters.items()
                       if prm.default is inspect.Parameter.empty
                       and prm.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
            if missing:
                out[key] = {"status": "not benchmarked: needs defaults", "missing": missing}
                continue
            try:
                t0 = time.perf_counter()
                fn()
                cold = time.perf_counter() - t0
                t = median_time(fn, repeats=max(3, repeats // 2), min_loop_s=0.0)
            except Exception as err:  # noqa: BLE001
                out[key] = {"status": f"error: {type(err).__name__}: {err}"}
                continue
            out[key] = {"status": "ok", "cold_s": cold, **t}
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
# 7. regenerate
# --------------------------------------------------------------------------------------------


def _notebook_durations(folder: Path) -> dict:
    """Per executed notebook: papermill's duration, the sum of its cells and its slowest cell."""
    out = {}
    for path in sorted(folder.glob("*.ipynb")):
        try:
            nb = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        cells = [(i, c.get("metadata", {}).get("papermill", {}).get("duration") or 0.0)
                 for i, c in enumerate(nb.get("cells", []))]
        slowest = max(cells, key=lambda c: c[1], default=(None, 0.0))
        out[path.stem] = {"duration_s": nb.get("metadata", {}).get("papermill", {}).get("duration"),
                          "cells_s": sum(c[1] for c in cells), "slowest_cell": slowest[0],
                          "slowest_cell_s": slowest[1]}
    return out


def bench_regenerate(jobs: int = 2) -> dict:
    vcperf_exe = Path(sys.executable).with_name("vcperf")
    cmd = [str(vcperf_exe) if vcperf_exe.exists() else sys.executable, *([] if vcperf_exe.exists() else
           ["-m", "vcperf.cli"]), "regenerate", "--jobs", str(jobs)]
    scratch = Path(tempfile.mkdtemp(prefix="vcperf-bench-regen-"))
    runs = []
    try:
        for label in ("warm-up", "timed"):
            target = scratch / label
            t0 = time.perf_counter()
            proc = subprocess.run([*cmd, "--output", str(target)], capture_output=True, text=True, cwd=ROOT,
                                  timeout=3600)
            runs.append({"run": label, "wall_s": time.perf_counter() - t0, "returncode": proc.returncode,
                         "stderr_tail": proc.stderr[-1500:] if proc.returncode else "",
                         "notebooks": _notebook_durations(target / "notebooks")})
            print(f"  regenerate {label}: {runs[-1]['wall_s']:.1f} s (rc {proc.returncode})", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    notebooks = sorted(p.stem for p in (ROOT / "notebooks").glob("*.py"))
    return {"jobs": jobs, "notebooks": notebooks, "runs": runs, "median_s": runs[-1]["wall_s"],
            "ok": runs[-1]["returncode"] == 0}


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------


def _ms(s):
    return "—" if s is None else (f"{s * 1e3:.3g} ms" if s < 1 else f"{s:.3g} s")


def _goal(value, goal):
    if value is None:
        return "—"
    return f"≤ {_ms(goal)}: " + ("met" if value <= goal else f"missed ({value / goal:.1f}x)")


def table(results: dict) -> str:
    m = results["machine"]
    lines = [
        f"Machine: {m['cpu_model']}, {m['cores']} cores ({m['cores_usable']} usable), Python {m['python']}, "
        f"numpy {m['versions']['numpy']}, {m['platform']}; {m['date_utc']}; load average (1 min) "
        f"{m['load_average_1m_at_start']:.1f} at start, {m.get('load_average_1m_at_end', float('nan')):.1f} at end.",
        "",
        "Exact MVA, one closed network (vpxd CPU 0.30 s + DB 0.05 s queueing, host RPC 0.90 s delay, Z = 0); "
        "time per solve (median); ratio = peer time / vcperf time; error = X_peer / X_vcperf - 1.",
        "",
        "| N | X vcperf (1/s) | vcperf | line-solver exact | ratio | error | SimPy (±1 % CI) | ratio | error |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in results["mva"]["rows"]:
        v, p, s = row["vcperf"], row.get("line_solver"), row["simpy"]
        lines.append(
            f"| {row['n']} | {v['throughput_per_s']:.6g} | {_ms(v['median_s'])} | "
            + (f"{_ms(p['median_s'])} | {p['ratio_peer_over_vcperf']:.0f}x | {p['rel_error_throughput']:.1e} | "
               if p else "n/a | — | — | ")
            + f"{_ms(s['median_s'])} | {s['ratio_peer_over_vcperf']:.0f}x | {s['rel_error_throughput']:+.2%} |"
        )
    n256 = next(r for r in results["mva"]["rows"] if r["n"] == 256)["vcperf"]["median_s"]
    sw = results["sweep"]
    imp = results["import"]["vcperf"]["median_s"]
    reg = results.get("regenerate")
    lines += [
        "",
        "| benchmark | measured | goal |",
        "|---|---:|---|",
        f"| exact MVA N=256, in-process | {_ms(n256)} | {_goal(n256, GOALS['mva_n256_s'])} |",
        f"| sweep 10^4 networks x N=1..1024 (X, R), current | {_ms(sw['current']['median_s'])} | "
        f"{_goal(sw['current']['median_s'], GOALS['sweep_s'])} |",
    ]
    lines.append(f"| `import vcperf` (fresh interpreter) | {_ms(imp)} | {_goal(imp, GOALS['import_s'])} |")
    for key, w in results["whatif"].items():
        short = key.replace("vcperf.views.", "")
        if w.get("status") == "ok":
            lines.append(f"| what-if `{short}` (warm; cold {_ms(w['cold_s'])}) | {_ms(w['median_s'])} | "
                         f"{_goal(w['median_s'], GOALS['whatif_s'])} |")
        else:
            lines.append(f"| what-if `{short}` | {w['status'].split(':')[0] if 'error' in w['status'] else w['status']}"
                         f" | ≤ 50 ms |")
    vm = results["vmotion"]
    pg = vm["precopy_grid"]
    lines.append("| vMotion pre-copy, 10^6 cases | "
                 + (f"{_ms(pg['median_s'])} | — |" if pg.get("status") == "ok" else f"{pg['status']} | — |"))
    mc = vm["tpcx_monte_carlo"]
    lines.append(f"| TPCx-HCI Monte Carlo, {mc.get('runs', 18)} runs | "
                 + (f"{_ms(mc['median_s'])} | — |" if mc.get("status") == "ok" else f"{mc['status']} | — |"))
    sm = results.get("sweep_module")
    if sm:
        lines.append(f"| `vcperf.sweep.evaluate`, transfer_time_s on {sm['points']:.0e} points, in-process | "
                     f"{_ms(sm['in_process_s'])} | — |")
        if sm["dask"].get("status") == "ok":
            d = sm["dask"]
            same = "same table" if d["equal_to_in_process"] else "TABLES DIFFER"
            lines.append(f"| same on a 2-worker Dask LocalCluster (start {_ms(d['cluster_start_s'])} not "
                         f"included; {same}) | {_ms(d['run_s'])} | — |")
    if reg:
        status = "" if reg["ok"] else " (FAILED, see results.json)"
        lines.append(f"| `vcperf regenerate --jobs 2`, {len(reg['notebooks'])} notebooks, warm{status} | "
                     f"{_ms(reg['median_s'])} | {_goal(reg['median_s'], GOALS['regenerate_s'])} |")
    ls = results["mva"]["line_solver"]
    if ls.get("available"):
        default = ", ".join(
            f"N={r['n']}: {r['line_solver']['rel_error_default_method']:.1e}"
            for r in results["mva"]["rows"]
            if r.get("line_solver") and abs(r["line_solver"].get("rel_error_default_method") or 0.0) > 1e-12
        )
        sims = [ok for r in results["mva"]["rows"] for ok in r["simpy"]["within_ci"]]
        lines += ["", f"line-solver {ls['version']} (Python {ls['python']}, numpy {ls['numpy']}, "
                      f"pandas {ls['pandas']}), import {ls['import_s']:.2f} s; its times include building the model. "
                      f"Its default MVA method (not 'exact') deviates from exact MVA: {default or 'nowhere here'}.",
                  f"SimPy: {sum(sims)} of {len(sims)} runs hold the exact throughput inside their 95 % interval."]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peers-python", default=str(ROOT / ".venv-peers" / "bin" / "python"),
                    help="interpreter of the peers venv (line-solver)")
    ap.add_argument("--repeats", type=int, default=7, help="timed repetitions per measurement (median)")
    ap.add_argument("--sim-repeats", type=int, default=3, help="SimPy runs (seeds) per population")
    ap.add_argument("--skip-regenerate", action="store_true", help="do not time `vcperf regenerate`")
    ap.add_argument("--out", default=str(OUT / "results.json"))
    args = ap.parse_args(argv)

    results = {"machine": machine(), "goals": GOALS}
    print("machine:", results["machine"]["cpu_model"], flush=True)
    print("import time ...", flush=True)
    results["import"] = bench_import(args.repeats)
    print("exact MVA vs line-solver vs SimPy ...", flush=True)
    results["mva"] = bench_mva(args.peers_python, args.repeats, args.sim_repeats)
    print("vectorized sweep ...", flush=True)
    results["sweep"] = bench_sweep(args.repeats)
    print("what-if updates ...", flush=True)
    results["whatif"] = bench_whatif(args.repeats)
    print("vMotion grid and TPCx-HCI Monte Carlo ...", flush=True)
    results["vmotion"] = bench_vmotion(args.repeats)
    print("vcperf.sweep, 10^6 points ...", flush=True)
    results["sweep_module"] = bench_sweep_module()
    if not args.skip_regenerate:
        print("vcperf regenerate --jobs 2 ...", flush=True)
        results["regenerate"] = bench_regenerate(2)
    results["machine"]["load_average_1m_at_end"] = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    text = table(results)
    results["table_markdown"] = text
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, default=float) + "\n")
    print()
    print(text)
    print(f"\nwritten: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
