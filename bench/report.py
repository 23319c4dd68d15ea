"""Tables of a ``make bench`` run, from its results.json, and the performance block of docs/PERFORMANCE.md.

``python bench/report.py`` prints the tables of ``build/bench/results.json``;
``python bench/report.py --readme docs/PERFORMANCE.md`` (``make bench-readme``) writes them between the
``<!-- bench:start -->`` and ``<!-- bench:end -->`` markers. Only the results file is read: the
table is the last bench run's, with the goals met or missed and the load it ran under.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "build" / "bench" / "results.json"
README_START = "<!-- bench:start -->"
README_END = "<!-- bench:end -->"
#: The top-level README's short speed paragraph (:func:`speed_summary`), between these markers.
SUMMARY_START = "<!-- speed:start -->"
SUMMARY_END = "<!-- speed:end -->"
#: The rows the README's paragraph names, in its order, with the words it uses.
SUMMARY_ROWS = {
    "regenerate_warm_s": "`vcperf regenerate --jobs 2` warm",
    "regenerate_cold_s": "with an empty calibration cache",
    "app_first_render_s": "the app's first answer",
    "plan_wall_s": "`vcperf plan` (whole process)",
    "plan_wall_dontwrite_s": "the same with `PYTHONDONTWRITEBYTECODE=1`",
    "make_test_fast_s": "`make test-fast`",
    "make_test_s": "`make test`",
}

#: The user-facing goals of issues 16 and 31: headline key -> (comparison, goal, what it measures).
HEADLINE = {
    "regenerate_warm_s": ("<=", 20.0, "`vcperf regenerate --jobs 2`, warm cache, into a temporary build folder"),
    "regenerate_cold_s": ("<=", 40.0, "`vcperf regenerate --jobs 2`, empty calibration cache (every fit redone)"),
    "app_first_render_s": ("<=", 2.0, "Voilà app, warm server: page opened to the first tab's panel shown"),
    "setup_s": ("<=", 30.0, "set-up: fresh venv, the lock, vcperf editable (`make`'s recipe)"),
    "make_test_s": ("<=", 360.0, "`make test`: `ruff check .` + the whole suite"),
    "make_test_fast_s": ("<=", 90.0, "`make test-fast`: `ruff check .` + the fast tier (median of 3 runs)"),
    "fidelity_cli_s": ("<=", 2.0, "`vcperf fidelity`, warm cache (command wall time)"),
    "whatif_update_ms": ("<=", 50.0, "what-if update (model + redraw), warm"),
    "browser_update_ms": ("<=", 150.0, "seen in the browser, change to new image"),
    "dask_speedup": (">", 1.0, "Dask speed-up, 2-worker LocalCluster vs in-process"),
    "plan_wall_s": ("<=", 1.0, "`vcperf plan examples/branch_20_hosts_10mbit.yaml`, warm: the whole process (wall)"),
    "plan_wall_dontwrite_s": ("<=", 1.0, "the same plan with `PYTHONDONTWRITEBYTECODE=1` set"),
    "regenerate_warm_dontwrite_s": ("<=", 20.0, "`vcperf regenerate --jobs 2`, warm, with `PYTHONDONTWRITEBYTECODE=1` "
                                    "set"),
    "app_first_render_dontwrite_s": ("<=", 2.0, "the app's first render (Voilà), server started with "
                                     "`PYTHONDONTWRITEBYTECODE=1` set"),
}
UNITS = {"regenerate_warm_s": "s", "regenerate_cold_s": "s", "app_first_render_s": "s", "setup_s": "s",
         "make_test_s": "s", "make_test_fast_s": "s",
         "fidelity_cli_s": "s", "whatif_update_ms": "ms", "browser_update_ms": "ms",
         "dask_speedup": "x", "plan_wall_s": "s", "plan_wall_dontwrite_s": "s", "regenerate_warm_dontwrite_s": "s",
         "app_first_render_dontwrite_s": "s"}
#: Rows measured with PYTHONDONTWRITEBYTECODE=1 set -> the same path with Python's default; goal: within 10 %.
DONT_WRITE_PAIRS = {"plan_wall_dontwrite_s": "plan_wall_s", "regenerate_warm_dontwrite_s": "regenerate_warm_s",
                    "app_first_render_dontwrite_s": "app_first_render_s"}
DONT_WRITE_GOAL = 1.10


def goal_status(value, op: str, goal: float) -> str:
    """``"met"`` / ``"missed (1.3x)"`` / ``"—"`` (no value)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    ok = value <= goal if op == "<=" else value > goal
    if ok:
        return "met"
    ratio = value / goal if op == "<=" else (goal / value if value > 0 else math.inf)
    return f"missed ({ratio:.1f}x)"


def _fmt(value, unit: str) -> str:
    if value is None:
        return "not measured"
    if unit == "x":
        return f"{value:.2f}x"
    return f"{value:.3g} {unit}"


def ratio_cell(now, previous) -> str:
    """``now / previous`` as ``"0.45"`` (two significant decimals), ``"—"`` when either is missing or not positive."""
    if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in (now, previous)) or previous <= 0:
        return "—"
    return f"{now / previous:.2f}"


def _load_cells(rec: dict | None) -> dict:
    """Load before the kept attempt (marked busy), other processes' CPU during it, and the attempts made."""
    if not rec or not rec.get("attempts"):
        return {"load": "—", "others": "—", "attempts": "—"}
    kept = rec["attempts"][rec.get("kept", -1)]
    load, others = kept.get("load_1m_before"), kept.get("others_cores")
    cell = "?" if load is None else f"{load:.2f}"
    if rec.get("busy"):
        cell += " (busy)"
    return {"load": cell, "others": "?" if others is None else f"{others:.1f}", "attempts": str(len(rec["attempts"]))}


def _panel_note(rec: dict | None) -> str:
    """What was moved or run, from the kept attempt's detail: the control and how many changes (median), or the
    Dask model."""
    if not rec or not rec.get("attempts"):
        return ""
    detail = rec["attempts"][rec.get("kept", -1)].get("detail", {})
    if "control" in detail:
        return f" ({detail['control']}, median of {len(detail.get('samples_ms', []))})"
    if "counts" in detail:
        return f" ({detail.get('tests', 0):,} tests, {detail.get('mode', 'parallel')})"
    if "installer" in rec:
        return f" ({rec['installer']}, its cache {'warm' if rec.get('cache_warm') else 'empty'})"
    if "samples_s" in detail and "selector" in rec:
        return f" (median of {len(detail['samples_s'])} loads)"
    if "model" in rec:
        return (f" ({rec['model'].rsplit('.', 1)[-1]}, {rec.get('simulated_runs', 0):,} runs; "
                f"in-process {detail.get('in_process_s', float('nan')):.2g} s)")
    return ""


def headline_rows(results: dict) -> list[dict]:
    """One row per headline number (panels one row each): what, value, goal, status, load, attempts."""
    rows = []
    records = results.get("measurements", {})
    previous = results.get("previous", {}).get("values", {})
    for key, (op, goal, what) in HEADLINE.items():
        unit = UNITS[key]
        value = results.get(key)
        prev = previous.get(key)
        if isinstance(value, dict) or key in ("whatif_update_ms", "browser_update_ms"):
            value = value or {}
            recs = records.get(key, {})
            prev = prev if isinstance(prev, dict) else {}
            if not value:
                rows.append({"key": key, "what": what, "value": None, "unit": unit, "op": op, "goal": goal,
                             "status": "—", "previous": None, "ratio": "—", **_load_cells(None)})
            for panel, v in value.items():
                rows.append({"key": f"{key}.{panel}", "what": f"{what}: `{panel}`{_panel_note(recs.get(panel))}",
                             "value": v, "unit": unit, "op": op, "goal": goal, "status": goal_status(v, op, goal),
                             "previous": prev.get(panel), "ratio": ratio_cell(v, prev.get(panel)),
                             **_load_cells(recs.get(panel))})
        else:
            rows.append({"key": key, "what": what + _panel_note(records.get(key)), "value": value, "unit": unit,
                         "op": op, "goal": goal, "status": goal_status(value, op, goal), "previous": prev,
                         "ratio": ratio_cell(value, prev), **_load_cells(records.get(key))})
    return rows


def headline_table(results: dict) -> str:
    """The goals table: measured value, goal met/missed, the previous release's value of the same path measured in
    the same run and the ratio now / previous, 1-min load average before the kept attempt, other processes' CPU
    (cores) during it, attempts made."""
    lines = ["| measurement | measured | goal | previous | ratio (now / previous) | load (1 min) "
             "| others' CPU (cores) | attempts |",
             "|---|---:|---|---:|---:|---:|---:|---:|"]
    for r in headline_rows(results):
        goal = f"{'≤' if r['op'] == '<=' else '>'} {_fmt(r['goal'], r['unit'])}"
        status = f"{goal}: {r['status']}" if r["value"] is not None else goal
        prev = "—" if r["previous"] is None else _fmt(r["previous"], r["unit"])
        lines.append(f"| {r['what']} | {_fmt(r['value'], r['unit'])} | {status} | {prev} | {r['ratio']} "
                     f"| {r['load']} | {r['others']} | {r['attempts']} |")
    return "\n".join(lines)


def dont_write_line(results: dict) -> str:
    """The ratio of each PYTHONDONTWRITEBYTECODE=1 row to its unset row (goal: within 10 %), or ``""``.

    >>> dont_write_line({"plan_wall_s": 0.8, "plan_wall_dontwrite_s": 0.84})
    '*`PYTHONDONTWRITEBYTECODE=1` set / unset* (goal ≤ 1.10, bytecode compiled at set-up): plan 1.05 (met).'
    """
    cells = []
    for dont, unset in DONT_WRITE_PAIRS.items():
        ratio = ratio_cell(results.get(dont), results.get(unset))
        if ratio != "—":
            cells.append(f"{unset.split('_')[0]} {ratio} ({'met' if float(ratio) <= DONT_WRITE_GOAL else 'missed'})")
    if not cells:
        return ""
    return (f"*`PYTHONDONTWRITEBYTECODE=1` set / unset* (goal ≤ {DONT_WRITE_GOAL:.2f}, bytecode compiled at set-up): "
            + ", ".join(cells) + ".")


def machine_line(results: dict) -> str:
    m = results.get("machine", {})
    if not m:
        return ""
    loads = [a.get("load_1m_before") for rec in _all_records(results) for a in rec.get("attempts", [])]
    loads = [x for x in loads if x is not None]
    span = f"{min(loads):.1f}–{max(loads):.1f}" if loads else "not recorded"
    recorded = [rec["policy"] for rec in _all_records(results) if rec.get("policy")]  # each measurement's own
    policies = {(p["busy_load"], p.get("busy_others"), p["attempts"]) for p in recorded or [results.get("policy")]
                if p}
    rule = "; ".join(f"a measurement started while the 1-min load exceeded {busy:g}"
                     + (f" or during which other processes used more than {others:g} cores" if others else "")
                     + f" is repeated (up to {attempts} attempts)" for busy, others, attempts in sorted(
                         policies, key=lambda p: (p[0], p[1] or 0.0, p[2])))
    rule = f"; {rule}" if rule else ""
    prev = results.get("previous", {})
    baseline = (f" *Previous*: the release `{prev.get('ref')}` ({(prev.get('commit') or '?')[:7]}) checked out beside "
                f"it and measured in the same run." if prev.get("values") else "")
    return (f"Measured with `make bench` on {m.get('date_utc', '?')[:10]} on an \"{m.get('cpu_model', '?')}\" machine, "
            f"{m.get('cores', '?')} cores, Python {m.get('python', '?')}, numpy "
            f"{m.get('versions', {}).get('numpy', '?')}; 1-min load average {span} at the start of the "
            f"measurements{rule}.{baseline}")


def _all_records(results: dict):
    for rec in results.get("measurements", {}).values():
        if isinstance(rec, dict) and "attempts" in rec:
            yield rec
        elif isinstance(rec, dict):
            yield from (r for r in rec.values() if isinstance(r, dict) and "attempts" in r)


LEGEND = (
    "*Seen in the browser*: JupyterLab in headless Chromium, from the Enter that types a new value into the panel's "
    "first slider to the panel's new image loaded (measured in the page). *Load (1 min)*: the load average when the "
    "kept attempt started, marked *busy* when every attempt was (the rule above); *others' CPU*: cores' worth of "
    "CPU that processes outside the bench (and its notebooks, kernels and browser) used during it."
)


def readme_block(results: dict) -> str:
    """README's performance block: machine and load, the goals table, then the detailed tables of the run."""
    parts = [machine_line(results), headline_table(results), dont_write_line(results), LEGEND]
    detail = results.get("table_markdown")
    if detail:
        parts.append(detail)
    return "\n\n".join(p for p in parts if p)


def speed_summary(results: dict) -> str:
    """The README's speed paragraph, from a bench run: each measured headline row of :data:`SUMMARY_ROWS` with its
    goal (met or missed), the previous release's value from the same run where measured, the slowest what-if update,
    the machine and the load.

    >>> print(speed_summary({"machine": {"date_utc": "2026-11-28T12:00:00Z", "cpu_model": "X", "cores": 2},
    ...                      "plan_wall_s": 0.9, "measurements": {"plan_wall_s": {"attempts": [
    ...                          {"load_1m_before": 3.0}], "kept": 0}}, "previous": {"values": {"plan_wall_s": 1.8}}}))
    ... # doctest: +NORMALIZE_WHITESPACE
    `make bench` on 2026-11-28, 2-core "X" machine, 1-min load 3.0: `vcperf plan` (whole process) 0.9 s
    (goal ≤ 1 s: met; previous release 1.8 s).
    """
    m = results.get("machine", {})
    previous = results.get("previous", {}).get("values", {})
    loads = [a.get("load_1m_before") for rec in _all_records(results) for a in rec.get("attempts", [])]
    loads = [x for x in loads if x is not None]
    span = "not recorded" if not loads else (f"{min(loads):.1f}" if min(loads) == max(loads)
                                             else f"{min(loads):.1f}–{max(loads):.1f}")
    cells = []
    for key, words in SUMMARY_ROWS.items():
        value = results.get(key)
        if value is None:
            continue
        op, goal, _ = HEADLINE[key]
        unit = UNITS[key]
        prev = previous.get(key)
        was = "" if prev is None else f"; previous release {_fmt(prev, unit)}"
        cells.append(f"{words} {_fmt(value, unit)} (goal {'≤' if op == '<=' else '>'} {_fmt(goal, unit)}: "
                     f"{goal_status(value, op, goal)}{was})")
    updates = results.get("whatif_update_ms") or {}
    if updates:
        worst = max(updates, key=updates.get)
        cells.append(f"every what-if update at most {_fmt(updates[worst], 'ms')} (`{worst}`; goal ≤ 50 ms: "
                     f"{goal_status(updates[worst], '<=', 50.0)})")
    busy = [rec for rec in _all_records(results) if rec.get("busy")]
    others = [a.get("others_cores") for rec in busy for a in rec.get("attempts", []) if a.get("others_cores")]
    caveat = ("" if not busy else
              f" The machine was busy during {len(busy)} of these measurements (other processes used up to "
              f"{max(others or [0.0]):.1f} cores), so their absolute times are long; the previous release, measured "
              f"in the same run under the same load, is the comparison that holds.")
    return (f"`make bench` on {m.get('date_utc', '?')[:10]}, {m.get('cores', '?')}-core \"{m.get('cpu_model', '?')}\" "
            f"machine, 1-min load {span}: " + ", ".join(cells) + "." + caveat)


def _replace_block(path: Path, start: str, end: str, text: str) -> None:
    """Replace what lies between the markers ``start`` and ``end`` of ``path`` with ``text``."""
    old = path.read_text(encoding="utf-8")
    if start not in old or end not in old:
        raise ValueError(f"{path} has no {start} ... {end} block")
    head, rest = old.split(start, 1)
    _, tail = rest.split(end, 1)
    path.write_text(f"{head}{start}\n{text}\n{end}{tail}", encoding="utf-8")


def write_summary(path: Path, results: dict) -> None:
    """Replace the text between the speed markers of ``path`` (the README) with :func:`speed_summary`."""
    _replace_block(path, SUMMARY_START, SUMMARY_END, speed_summary(results))


def write_readme(path: Path, results: dict) -> None:
    """Replace the text between the bench markers of ``path`` with :func:`readme_block`."""
    _replace_block(path, README_START, README_END, readme_block(results))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=str(RESULTS), help="results.json of a bench run")
    ap.add_argument("--readme", help="write the tables into this README's bench block instead of printing them")
    ap.add_argument("--summary", help="write the short speed paragraph into this README's speed block")
    args = ap.parse_args(argv)
    path = Path(args.results)
    if not path.exists():
        print(f"no bench results at {path}: run `make bench` first", file=sys.stderr)
        return 1
    results = json.loads(path.read_text())
    if args.summary:
        write_summary(Path(args.summary), results)
        print(f"speed paragraph of {path} written into {args.summary}")
    if args.readme:
        write_readme(Path(args.readme), results)
        print(f"bench tables of {path} written into {args.readme}")
    elif not args.summary:
        print(readme_block(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
