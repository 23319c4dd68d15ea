"""Exact MVA of one closed network: vcperf vs the peer line-solver vs a SimPy simulation; the batched sweep.

The network is the vCenter-like one of the queueing tests: vpxd CPU (0.30 s) and database (0.05 s)
queueing stations and a host-RPC delay station (0.90 s), think time 0 (VCbench-style clients issue
their next operation at once; the RPC delay plays the part of a think time). line-solver runs in
its own venv (bench/peers.py); SimPy runs until the 95 % half-width of the throughput is <= 1 %.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np

from bench.measure import median_time

ROOT = Path(__file__).resolve().parent.parent

#: The benchmark network (seconds): queueing stations vpxd CPU and DB, then the host-RPC delay station.
DEMANDS_S = (0.30, 0.05, 0.90)
DELAY_STATIONS = (False, False, True)
THINK_S = 0.0
POPULATIONS = (1, 2, 4, 8, 64, 256, 1024)


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

