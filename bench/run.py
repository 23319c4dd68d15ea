"""`make bench`: how fast vcperf is for its users and on its hot paths; writes build/bench/results.json.

One run measures, on this machine (CPU model, cores, Python and numpy versions are recorded):

The speed a user feels (issue 16; bench/user.py, bench/browser.py), each with its goal met or missed:

- ``regenerate_warm_s``: ``vcperf regenerate --jobs 2``, calibration cache warm, into a temporary folder.
- ``fidelity_cli_s``: the ``vcperf fidelity`` command, warm (wall time of the subprocess).
- ``whatif_update_ms``: per panel, the ``*_update`` function of ``vcperf.views`` (model + redraw), warm.
- ``browser_update_ms``: per panel, in JupyterLab in headless Chromium, from the Enter that changes a
  slider to the new image loaded (median of several changes).
- ``dask_speedup``: the TPCx-HCI Monte Carlo on a 2-worker LocalCluster vs in-process.

The paths a person waits for (issue 31; bench/paths.py), part names in brackets (``--only``):

- ``regenerate_cold_s`` [cold]: ``vcperf regenerate --jobs 2`` with an empty calibration cache.
- ``app_first_render_s`` [app]: the Voilà app on a warm server, page opened to the first tab's panel shown
  (headless Chromium, median of ``--app-loads``).
- ``setup_s`` [setup]: ``make``'s set-up recipe (fresh venv, the lock with uv, vcperf editable) into a temporary
  folder; whether the installer's cache was warm is recorded.
- ``make_test_s`` [tests, opt-in: ``--with-tests``]: ``ruff check .`` + ``python -m pytest -n auto --dist
  loadgroup``, with the test count.
- ``make_test_fast_s`` [testfast]: ``make test-fast`` (ruff + ``pytest -n auto -m "not slow and not browser and
  not kernel"``), three runs, the median, each run's CPU seconds kept; the previous release had no such tier.
- ``plan_wall_s`` [plan]: ``vcperf plan examples/branch_20_hosts_10mbit.yaml``, the whole process, warm.
- [bytecode] (issue 41): ``plan_wall_dontwrite_s``, ``regenerate_warm_dontwrite_s``, ``app_first_render_dontwrite_s``:
  the plan, the warm regeneration and the app's first render with ``PYTHONDONTWRITEBYTECODE=1`` set (no process
  writes bytecode: only what the set-up compiled is read), beside the same rows measured with Python's default
  (every other row); the ratio set / unset is printed under the goals table.
- [imports] (also with hotpaths): ``import vcperf.site`` and ``python -X importtime`` of ``import vcperf.site``,
  ``vcperf plan --help`` and ``vcperf plan``: modules imported and their own import time summed.

The previous release (``--baseline REF``, default e84b8cd; ``--no-baseline`` to skip) is checked out with ``git
worktree add --detach`` under build/bench/baseline and the same paths are measured there in the same run
(its warm and cold regeneration, its app, its set-up recipe with pip, its suite run serially as its ``make test``
did); results.json keeps them under ``previous`` and the goals table shows them with the ratio now / previous.

Each goes through bench/measure.py: the 1-minute load average is recorded before and after every
attempt, and an attempt that started while the machine was busy (1-min load above the number of
cores, by default) is repeated, up to ``--attempts``; all attempts are kept in results.json under
``measurements``. The headline values sit at the top level of results.json under the keys above.

Then the hot paths beside peer tools (bench/mva.py, bench/hotpaths.py): exact MVA vs line-solver and
SimPy, the batched 10^4-network sweep, ``import vcperf``, the vMotion grid and the TPCx-HCI Monte
Carlo, ``vcperf.sweep.evaluate`` on 10^6 points.

Times are medians of repeated runs. Nothing here is asserted by a test: wall-clock times are
machine-dependent. ``python bench/report.py --readme docs/PERFORMANCE.md`` (``make bench-readme``) writes the
tables of results.json into the performance block of docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys
import time
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")  # no INFO lines from the Dask cluster

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python bench/run.py`: the bench package sits beside vcperf
    sys.path.insert(0, str(ROOT))

from bench import browser, hotpaths, mva, paths, report, user  # noqa: E402
from bench.measure import Policy, cores, load_1m, measure  # noqa: E402

OUT = ROOT / "build" / "bench"

#: Goals of the hot paths (the user-facing goals are bench.report.HEADLINE).
GOALS = {
    "mva_n256_s": 1e-3,
    "sweep_s": 0.15,
    "import_s": 0.5,
}


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
# The hot-path tables (the user-facing goals table is bench/report.py's)
# --------------------------------------------------------------------------------------------


def _ms(s):
    return "—" if s is None else (f"{s * 1e3:.3g} ms" if s < 1 else f"{s:.3g} s")


def _goal(value, goal):
    if value is None:
        return "—"
    return f"≤ {_ms(goal)}: " + ("met" if value <= goal else f"missed ({value / goal:.1f}x)")


def detail_table(results: dict) -> str:
    """Exact MVA beside line-solver and SimPy, then the other hot paths (each section only if measured)."""
    lines = []
    if "mva" in results:
        lines += [
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
        lines.append("")
    header = len(lines)
    lines += ["| hot path | measured | goal |", "|---|---:|---|"]
    if "mva" in results:
        n256 = next(r for r in results["mva"]["rows"] if r["n"] == 256)["vcperf"]["median_s"]
        lines.append(f"| exact MVA N=256, in-process | {_ms(n256)} | {_goal(n256, GOALS['mva_n256_s'])} |")
    if "sweep" in results:
        sw = results["sweep"]["current"]["median_s"]
        lines.append(f"| sweep 10^4 networks x N=1..1024 (X, R) | {_ms(sw)} | {_goal(sw, GOALS['sweep_s'])} |")
    if "import" in results:
        imp = results["import"]["vcperf"]["median_s"]
        lines.append(f"| `import vcperf` (fresh interpreter) | {_ms(imp)} | {_goal(imp, GOALS['import_s'])} |")
        if site := results["import"].get("vcperf.site"):
            lines.append(f"| `import vcperf.site` (fresh interpreter) | {_ms(site['median_s'])} | — |")
    for label, it in results.get("importtime", {}).items():
        slowest = ", ".join(f"{n} {_ms(t)}" for n, t in it.get("slowest_self", [])[:3])
        lines.append(f"| `{label}`: {it['modules']} modules imported, their own import time summed (python -X "
                     f"importtime; slowest: {slowest}; load {it['load_1m']:.2f}) | {_ms(it['self_s'])} | — |")
    vm = results.get("vmotion", {})
    if pg := vm.get("precopy_grid"):
        lines.append("| vMotion pre-copy, 10^6 cases | "
                     + (f"{_ms(pg['median_s'])} | — |" if pg.get("status") == "ok" else f"{pg['status']} | — |"))
    if mc := vm.get("tpcx_monte_carlo"):
        lines.append(f"| TPCx-HCI Monte Carlo, {mc.get('runs', 18)} runs | "
                     + (f"{_ms(mc['median_s'])} | — |" if mc.get("status") == "ok" else f"{mc['status']} | — |"))
    if sm := results.get("sweep_module"):
        lines.append(f"| `vcperf.sweep.evaluate`, transfer_time_s on {sm['points']:.0e} points, in-process | "
                     f"{_ms(sm['in_process_s'])} | — |")
        if sm["dask"].get("status") == "ok":
            d = sm["dask"]
            same = "same table" if d["equal_to_in_process"] else "TABLES DIFFER"
            lines.append(f"| same on a 2-worker Dask LocalCluster (start {_ms(d['cluster_start_s'])} not "
                         f"included; {same}) | {_ms(d['run_s'])} | — |")
    if len(lines) == header + 2:  # no hot path measured
        del lines[header:]
    ls = results.get("mva", {}).get("line_solver", {})
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


# --------------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------------

PARTS = ("user", "browser", "hotpaths", "imports", "plan", "bytecode", "cold", "app", "setup", "testfast", "tests")
OPT_IN = {"tests"}  # minutes: only with --with-tests or --only tests


def record_previous(results: dict, tree, measured: dict) -> None:
    """The previous release's values (``results["previous"]``) and records (``measurements["previous"]``)."""
    earlier = results.get("previous", {})  # --update: an earlier run's, kept where not measured again
    results["previous"] = {"ref": tree.notes.get("ref"), "commit": tree.commit,
                           "values": {**earlier.get("values", {}), **{k: v for k, (v, _) in measured.items()}}}
    rec = results["measurements"]
    rec["previous"] = {**rec.get("previous", {}), **{k: r for k, (_, r) in measured.items()}}


def start_from(earlier: dict, fresh: dict) -> dict:
    """Results of an earlier run as the start of this one (``--update``): its measurements and notes stay
    until this run measures the same keys again; machine, policy and goals are this run's."""
    return {**earlier, **fresh, "measurements": dict(earlier.get("measurements", {})),
            "notes": dict(earlier.get("notes", {}))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peers-python", default=str(ROOT / ".venv-peers" / "bin" / "python"),
                    help="interpreter of the peers venv (line-solver)")
    ap.add_argument("--repeats", type=int, default=7, help="timed repetitions per measurement (median)")
    ap.add_argument("--sim-repeats", type=int, default=3, help="SimPy runs (seeds) per population")
    ap.add_argument("--only", action="append", choices=PARTS,
                    help="measure only these parts (repeatable; default: all but tests)")
    ap.add_argument("--with-tests", action="store_true",
                    help="also time `make test` (ruff + the whole suite; minutes, twice with the baseline)")
    ap.add_argument("--baseline", default=paths.DEFAULT_BASELINE,
                    help="git ref of the previous release, measured side by side (default: %(default)s)")
    ap.add_argument("--no-baseline", action="store_true", help="do not measure the previous release")
    ap.add_argument("--app-loads", type=int, default=3, help="page loads timed for the app's first render (median)")
    ap.add_argument("--skip-regenerate", action="store_true", help="do not time `vcperf regenerate`")
    ap.add_argument("--no-regenerate-warmup", action="store_true",
                    help="the calibration cache is known to be warm: no warm-up regeneration")
    ap.add_argument("--browser-changes", type=int, default=5, help="control changes timed per panel in the browser")
    ap.add_argument("--attempts", type=int, default=3, help="attempts per measurement while the machine is busy")
    ap.add_argument("--busy-load", type=float, default=float(cores()),
                    help="busy: 1-minute load average above this at the start of an attempt (default: cores)")
    ap.add_argument("--busy-others", type=float, default=0.25 * cores(),
                    help="busy: other processes used more cores than this during an attempt (default: cores / 4)")
    ap.add_argument("--wait", type=float, default=30.0,
                    help="seconds to wait, before each attempt, for the load to fall to --busy-load")
    ap.add_argument("--out", default=str(OUT / "results.json"))
    ap.add_argument("--update", action="store_true",
                    help="keep what --out already holds and replace only the parts measured now (with --only)")
    args = ap.parse_args(argv)
    parts = set(args.only or set(PARTS) - OPT_IN) | ({"tests"} if args.with_tests else set())

    policy = Policy(busy_load=args.busy_load, busy_others=args.busy_others, attempts=args.attempts, wait_s=args.wait)

    def measured(name, run, unit="s"):
        return measure(name, run, policy, log=lambda s: print(s, flush=True), unit=unit)

    results: dict = {"machine": machine(), "goals": {**GOALS, **{k: v[1] for k, v in report.HEADLINE.items()}},
                     "policy": {"busy_load": policy.busy_load, "busy_others": policy.busy_others,
                                "attempts": policy.attempts, "wait_s": policy.wait_s},
                     "measurements": {}, "notes": {}}
    out = Path(args.out)
    if args.update and out.exists():
        results = start_from(json.loads(out.read_text()), results)
    rec = results["measurements"]
    print("machine:", results["machine"]["cpu_model"], f"load {load_1m()}", flush=True)

    if "user" in parts:
        print("what-if updates (model + redraw) ...", flush=True)
        results["whatif_update_ms"], rec["whatif_update_ms"] = user.whatif_updates(measured, args.repeats)
        print("vcperf fidelity (warm) ...", flush=True)
        results["fidelity_cli_s"], rec["fidelity_cli_s"] = user.fidelity_cli(measured)
        print("Dask: TPCx-HCI Monte Carlo, 2 workers vs in-process ...", flush=True)
        results["dask_speedup"], rec["dask_speedup"] = user.dask_speedup(measured)
        if not args.skip_regenerate:
            print("vcperf regenerate --jobs 2 (warm) ...", flush=True)
            results["regenerate_warm_s"], rec["regenerate_warm_s"] = user.regenerate_warm(  # bytecode written
                measured, 2, warmup=not args.no_regenerate_warmup, env=paths.this_tree().env())
        else:
            results["notes"]["regenerate_warm_s"] = "skipped (--skip-regenerate)"
    if "browser" in parts:
        print("browser: control change -> new image, every panel in JupyterLab ...", flush=True)
        b = browser.bench_browser(lambda name, run: measured(name, run, unit="ms"), changes=args.browser_changes)
        rec["browser_update_ms"] = b["panels"]
        results["browser_update_ms"] = {k: r["value"] for k, r in b["panels"].items() if r["value"] is not None}
        results["notes"]["browser_update_ms"] = {k: v for k, v in b.items() if k != "panels"}
    if "hotpaths" in parts or "imports" in parts:
        print("import time ...", flush=True)
        results["import"] = hotpaths.bench_import(args.repeats)
        print("python -X importtime of import vcperf.site, vcperf plan --help, vcperf plan ...", flush=True)
        results["importtime"] = hotpaths.bench_importtime(ROOT, paths.this_tree().env())
    if "hotpaths" in parts:
        print("exact MVA vs line-solver vs SimPy ...", flush=True)
        results["mva"] = mva.bench_mva(args.peers_python, args.repeats, args.sim_repeats)
        print("vectorized sweep ...", flush=True)
        results["sweep"] = mva.bench_sweep(args.repeats)
        print("vMotion grid and TPCx-HCI Monte Carlo ...", flush=True)
        results["vmotion"] = hotpaths.bench_vmotion(args.repeats)
        print("vcperf.sweep, 10^6 points ...", flush=True)
        results["sweep_module"] = hotpaths.bench_sweep_module()
        print("site planner: one evaluation, one reverse question ...", flush=True)
        results["site"] = hotpaths.bench_site(args.repeats)

    log = lambda s: print(s, flush=True)  # noqa: E731
    now = paths.measure_tree(measured, paths.this_tree(), parts, app_loads=args.app_loads, log=log)
    for key, (value, record) in now.items():
        results[key], rec[key] = value, record
    warm_too = "user" in parts and not args.skip_regenerate
    if not args.no_baseline and (warm_too or parts & {*paths.PART_KEYS, "bytecode"}):
        print(f"previous release {args.baseline}: git worktree under {paths.BASELINE_DIR} ...", flush=True)
        try:
            with paths.baseline_tree(args.baseline) as base:
                record_previous(results, base, paths.measure_tree(
                    measured, base, parts, app_loads=args.app_loads, warm=warm_too, parallel=False, log=log))
        except Exception as err:  # noqa: BLE001 - no baseline: the "previous" column shows "—"
            results["notes"]["previous"] = f"not measured: {type(err).__name__}: {err}"
            print(f"  previous release: {results['notes']['previous']}", flush=True)

    results["machine"]["load_average_1m_at_end"] = load_1m()
    results["table_markdown"] = detail_table(results)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, default=float) + "\n")
    print()
    print(report.readme_block(results))
    print(f"\nwritten: {out}  (tables: python bench/report.py --readme docs/PERFORMANCE.md)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
