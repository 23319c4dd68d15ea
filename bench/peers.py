"""Time the peer solver line-solver on the benchmark's closed network; print one JSON object.

Runs inside ``.venv-peers`` (requirements/bench-peers.txt), never inside the project's venv:
line-solver 3.0.8.0 needs pandas < 3. Called by bench/run.py as a subprocess::

    .venv-peers/bin/python bench/peers.py --populations 1,2,4 --repeats 5 --demands 0.30,0.05 --delay 0.90

The network is the one of bench/run.py: the host-RPC delay station (Delay, reference station of
the closed class), then the vpxd CPU and database queueing stations (processor sharing, exponential
demands), think time 0. Every solve uses ``MVA(model, 'exact')`` explicitly: line-solver's default
MVA method switches to an approximate method for larger populations. For comparison the default
method's throughput is recorded once per population too.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import platform
import statistics
import sys
import time


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--populations", required=True, help="comma-separated N")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--demands", required=True, help="queueing-station demands, seconds, comma-separated")
    ap.add_argument("--delay", type=float, required=True, help="delay-station demand, seconds")
    args = ap.parse_args(argv)
    populations = [int(x) for x in args.populations.split(",")]
    demands = [float(x) for x in args.demands.split(",")]

    chatter = io.StringIO()  # line-solver prints progress lines on stdout; keep stdout for the JSON
    with contextlib.redirect_stdout(chatter):
        t0 = time.perf_counter()
        import line_solver as ls
        from line_solver import MVA, ClosedClass, Delay, Exp, Network, Queue, SchedStrategy

        import_s = time.perf_counter() - t0
        with contextlib.suppress(Exception):
            ls.GlobalConstants.set_verbose(ls.VerboseLevel.SILENT)

        def build(n):
            model = Network("bench")
            host = Delay(model, "HostRPC")
            queues = [Queue(model, f"Q{k}", SchedStrategy.PS) for k in range(len(demands))]
            jobs = ClosedClass(model, "C", n, host)
            host.set_service(jobs, Exp(1.0 / args.delay))
            for q, d in zip(queues, demands, strict=True):
                q.set_service(jobs, Exp(1.0 / d))
            model.link(Network.serial_routing(host, *queues))
            return model

        def throughput(table) -> float:
            return float(table.Tput[0])  # one closed class: the same throughput at every station

        rows = []
        for n in populations:
            build_s, solve_s, x = [], [], None
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                model = build(n)
                t1 = time.perf_counter()
                table = MVA(model, "exact").avg_table()
                t2 = time.perf_counter()
                build_s.append(t1 - t0)
                solve_s.append(t2 - t1)
                x = throughput(table)
            resp = table.RespT.astype(float).tolist()
            try:
                x_default = throughput(MVA(build(n)).avg_table())
            except Exception as err:  # noqa: BLE001 - record, do not fail the benchmark
                x_default = f"error: {err}"
            rows.append({
                "n": n,
                "throughput_per_s": x,
                "response_time_s": sum(resp),  # every station visited once per cycle (think time 0)
                "station_response_time_s": resp,
                "build_s_median": statistics.median(build_s),
                "solve_s_median": statistics.median(solve_s),
                "total_s_median": statistics.median(b + s for b, s in zip(build_s, solve_s, strict=True)),
                "repeats": args.repeats,
                "throughput_default_method_per_s": x_default,
            })
    try:
        from importlib.metadata import version

        ls_version = version("line-solver")
    except Exception:  # noqa: BLE001
        ls_version = "unknown"
    import numpy
    import pandas

    json.dump({
        "tool": "line-solver",
        "version": ls_version,
        "method": "MVA(model, 'exact')",
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "pandas": pandas.__version__,
        "import_s": import_s,
        "results": rows,
    }, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
