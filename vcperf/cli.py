"""Command line: vcperf regenerate | params | fidelity | data | sweep | plan."""

from __future__ import annotations

import argparse
import contextlib
import re
import signal
import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent


def _cmd_data(args) -> int:
    from vcperf import data, studies

    if args.action == "validate":
        targets, columns, broken = {}, {}, None
        try:  # the tables and columns the study targets name (building targets may itself read a broken table)
            for s in [args.study] if args.study else data.STUDIES:  # the studies whose data is validated
                for t in studies.module(s).targets():
                    targets.setdefault(t.table, f"target {t.key!r} of {s}")
                    for col, _ in t.conditions:
                        columns.setdefault(t.table, {}).setdefault(col, f"target {t.key!r} of {s}")
        except ValueError as err:
            broken = err
        print(data.validate_all(args.study, required=targets, columns=columns))
        if broken is not None:  # not a data-format problem validate_all names: report it as it is
            raise broken
    else:
        print("\n".join(data.table_names(args.study)))
    return 0


def _cmd_regenerate(args) -> int:
    from vcperf import regenerate

    return regenerate.main(args)


def _cmd_params(args) -> int:
    from vcperf import params, regenerate

    nbs = regenerate.notebooks()
    name = Path(args.notebook).name
    for suffix in (".ipynb", ".py"):  # robo_networks, robo_networks.ipynb and notebooks/robo_networks.py
        name = name.removesuffix(suffix)
    if name not in nbs:
        raise ValueError(f"notebook must be one of {list(nbs)} (with or without .ipynb); got {args.notebook!r}"
                         + params.did_you_mean(name, nbs))
    for p in params.read_parameters(nbs[name]).values():
        print(p.describe())
    return 0


README_START = "<!-- ledger-summary:start -->"
README_END = "<!-- ledger-summary:end -->"


def _cmd_fidelity(args) -> int:
    import os

    if args.no_cache:
        os.environ["VCPERF_NO_CACHE"] = "1"
    from vcperf import fidelity

    df = fidelity.table(args.study)
    if args.summary or args.readme:
        text = fidelity.format_summary(fidelity.summary(df))
        if args.readme:
            path = Path(args.readme)
            readme = path.read_text(encoding="utf-8")
            if README_START not in readme or README_END not in readme:
                raise ValueError(f"--readme file {path} has no {README_START} ... {README_END} block")
            head, rest = readme.split(README_START, 1)
            _, tail = rest.split(README_END, 1)
            path.write_text(f"{head}{README_START}\n{text}\n{README_END}{tail}", encoding="utf-8")
            print(f"vcperf fidelity: summary written into {path}")
        else:
            print(text)
        return 0
    if args.format == "csv":
        text = df.to_csv(index=False, float_format="%.6g", lineterminator="\n")
        if args.output:
            Path(args.output).write_text(text)
        else:
            sys.stdout.write(text)
        return 0
    print(format_rows(df))
    print()
    print(fidelity.format_summary_text(fidelity.summary(df)))
    return 0


def _num(x: float) -> str:
    if x != x:
        return "—"
    return f"{x:.4g}"


def terminal_width() -> int:
    """Columns of the terminal (``COLUMNS`` if set), at least 80; 100 when the output is not a terminal."""
    import os
    import shutil

    if not sys.stdout.isatty() and "COLUMNS" not in os.environ:
        return 100
    return max(80, shutil.get_terminal_size((100, 24)).columns)


def format_rows(df, width: int | None = None) -> str:
    """The ledger as a plain table that fits ``width`` columns (default: the terminal's): study, kind,
    where, what, paper and model in the unit the paper prints, error in percent or pass/FAIL. No text
    is cut: a long cell wraps onto continuation lines within its column, so every column of every row
    is shown whatever the terminal."""
    import textwrap

    from vcperf import data, report

    width = terminal_width() if width is None else width
    cols = [("study", 14, "<"), ("kind", 9, "<"), ("locator", 12, "<"), ("quantity", 0, "<"), ("paper", 9, ">"),
            ("model", 9, ">"), ("unit", 7, "<"), ("error", 7, ">")]
    if width < 100:  # a narrow terminal: study and locator wrap in 10 columns, the quantity keeps >= 12
        cols[0], cols[2] = ("study", 10, "<"), ("locator", 10, "<")
    fixed = sum(w for _, w, _ in cols) + len(cols) - 1
    widths = [w or max(12, width - fixed) for _, w, _ in cols]
    lines = [" ".join(f"{h:{a}{w}}" for (h, _, a), w in zip(cols, widths, strict=True))]
    for _, r in df.iterrows():
        err = "—" if r["rel_error"] != r["rel_error"] else f"{100 * r['rel_error']:+.1f}%"
        if r["kind"] == "bound":
            err = "pass" if r["passed"] else "FAIL"
        conditions = report.clean_conditions(r["conditions"])
        what = r["quantity"] + (f" ({conditions})" if conditions else "")
        factor = data.UNITS[r["display_unit"]][1]
        cells = [r["study"], r["kind"], r["locator"], what, _num(r["paper_value"] / factor),
                 _num(r["model_value"] / factor), r["display_unit"], err]
        wrapped = [textwrap.wrap(" ".join(str(c).split()), w, break_long_words=True, break_on_hyphens=False) or [""]
                   for c, w in zip(cells, widths, strict=True)]
        for i in range(max(len(x) for x in wrapped)):
            lines.append(" ".join(f"{(x[i] if i < len(x) else ''):{a}{w}}"
                                  for x, (_, _, a), w in zip(wrapped, cols, widths, strict=True)))
    return "\n".join(line.rstrip() for line in lines)


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP stopped a command (exit 128 + the signal number), after its clean-up ran."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.exit_code = 128 + signum


def _raise_stopped(signum, frame):
    for name in ("SIGTERM", "SIGHUP"):  # once: a second signal must not cut the clean-up short
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    raise Stopped(signum)


@contextlib.contextmanager
def _stop_on_termination():
    """SIGTERM/SIGHUP raise :class:`Stopped` (so ``finally`` and ``except`` clean-ups run) while inside."""
    names = ("SIGTERM", "SIGHUP")
    try:
        old = {s: signal.signal(s, _raise_stopped) for s in (getattr(signal, n) for n in names if hasattr(signal, n))}
    except ValueError:  # not the main thread: signals stay as they are
        old = {}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def _cmd_sweep(args) -> int:
    from vcperf import sweep

    grid = sweep.parse_grid(args.grid, args.model, seed=args.seed)  # every check before any work
    if args.scheduler and args.workers:
        raise ValueError("give either --scheduler or --workers, not both")
    if args.workers is not None and not 1 <= args.workers <= sweep.max_workers():
        raise ValueError(f"--workers must be an integer in [1, {sweep.max_workers()}] (4 per core); "
                         f"got {args.workers}")
    if args.chunk_size < 1:
        raise ValueError(f"--chunk-size must be an integer >= 1; got {args.chunk_size}")
    if args.dashboard and not args.workers:
        raise ValueError("--dashboard needs --workers (the dashboard of a local cluster)")
    sweep.check_memory(grid, args.chunk_size)
    sweep.check_size(grid, args.large)
    partial = Path(f"{args.out}.partial") if args.out else None  # renamed to --out only on success
    with _stop_on_termination(), contextlib.ExitStack() as stack:
        client = None
        if args.scheduler:
            client = stack.enter_context(sweep.connect(args.scheduler))
        elif args.workers:
            client = stack.enter_context(sweep.local_cluster(args.workers, dashboard=args.dashboard))
        out = stack.enter_context(open(partial, "w", newline="")) if partial else sys.stdout
        try:
            for i, frame in enumerate(sweep.iter_evaluate(args.model, grid, args.chunk_size, client)):
                frame.to_csv(out, index=False, header=i == 0, lineterminator="\n")
        except BaseException:
            if partial:
                out.close()
                partial.unlink(missing_ok=True)
            raise
    if partial:
        partial.replace(args.out)
    return 0


def _cmd_plan(args) -> int:
    from vcperf import site
    from vcperf.views import site as view

    plan = site.load(args.plan)  # every field checked before any work
    # the app's planner asks through the same function (the page and the command give the same answers)
    reverse = [view.solve(plan, args.solve, args.link, args.branch)] if args.solve else []
    sys.stdout.write(view.render(site.evaluate(plan), args.format, reverse))
    return 0


def _integer(text: str) -> int:
    """An integer argument written in ASCII digits (``int`` alone would take ``'１０'`` and ``'1_000'``)."""
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise argparse.ArgumentTypeError(f"must be an integer in ASCII digits; got {text!r}")
    return int(text)


PLAN_EPILOG = """a minimal plan (every field, its unit, range and default: docs/PLAN.md; JSON Schema:
docs/plan.schema.json; more plans: examples/*.yaml):

  links:
    - name: wan
      bandwidth: 10 Mbit/s    # a number alone is bit/s
      rtt: 80 ms              # a number alone is s
      loss: 0.01 %            # loss takes its unit
  branches:
    - {name: shop, link: wan, hosts: 20}
  targets:
    operation_latency_s: 5 s

  vcperf plan site.yaml --solve bandwidth --link wan   the smallest bandwidth of wan meeting the targets
"""

EXAMPLES = """examples:
  vcperf regenerate --jobs 2                       every notebook into build/ (open build/index.html)
  vcperf params robo_networks                      a notebook's parameters, units and ranges
  vcperf regenerate --only robo_networks -p whatif_bandwidth_mbps=10 -p whatif_rtt_ms=80 --scenario branch
                                                   a what-if scenario into build/scenarios/branch/
  vcperf fidelity --study robo2019                 paper vs model for one study
  vcperf fidelity --summary                        the per-study summary (as in the README)
  vcperf data validate                             check every data file"""


class Parser(argparse.ArgumentParser):
    """argparse with plain help (examples kept as written) and "did you mean" for a mistyped choice."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        from vcperf import params

        m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if m:
            message += params.did_you_mean(m.group(1), re.findall(r"'([^']*)'", m.group(2)))
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    from vcperf import __version__

    parser = Parser(prog="vcperf", description="vcperf: models of five VMware performance studies, their "
                    "notebooks, report and ledger.", epilog=EXAMPLES)
    parser.add_argument("--version", action="version", version=f"vcperf {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("data", help="validate or list the paper tables in data/")
    p.add_argument("action", choices=["validate", "list"])
    p.add_argument("--study", default=None, help="only this study")
    p.set_defaults(func=_cmd_data)

    p = sub.add_parser("regenerate", help="execute every notebook with papermill into build/",
                       description="Execute every notebook with papermill into build/ (figures, tables, the "
                       "report build/index.html); with -p/--params, a what-if scenario.",
                       epilog="examples:\n  vcperf regenerate --jobs 2\n  vcperf regenerate --only robo_networks "
                       "-p whatif_bandwidth_mbps=10 -p whatif_rtt_ms=80 --scenario branch\n"
                       "  vcperf regenerate -p whatif_layout=nfs_on_vcenter --scenario nfs")
    p.add_argument("--only", action="append", metavar="NAME", help="only this notebook (repeatable)")
    p.add_argument("--jobs", type=_integer, default=1, help="notebooks run in parallel (default 1)")
    p.add_argument("-p", action="append", metavar="KEY=VALUE",
                   help="parameter override (what-if scenario); each KEY once, numbers as decimal literals")
    p.add_argument("--params", metavar="FILE.yaml", help="parameter overrides from a YAML mapping")
    p.add_argument("--scenario", metavar="NAME",
                   help="with -p/--params: write into <output>/scenarios/NAME (a plain name; a what-if into "
                        "the default build/ goes to build/scenarios/whatif)")
    p.add_argument("--output", default=str(_ROOT / "build"),
                   help="output folder (default: build/); an existing one must be a previous build")
    p.set_defaults(func=_cmd_regenerate)

    p = sub.add_parser("params", help="list a notebook's parameters with defaults and units",
                       epilog="example:\n  vcperf params robo_operations")
    p.add_argument("notebook", help="notebook name, e.g. robo_networks")
    p.set_defaults(func=_cmd_params)

    p = sub.add_parser("fidelity", help="paper vs model for every number a model predicts",
                       description="Paper vs model for every number a model speaks to (the ledger), then a "
                       "summary per study. Kinds: fitted (used by the calibration), loo (predicted by a refit "
                       "without it), predicted (never fitted), derived (a function of other paper numbers), "
                       "bound (a stated inequality: pass or FAIL).",
                       epilog="examples:\n  vcperf fidelity --study vmotion2020\n  vcperf fidelity --summary\n"
                       "  vcperf fidelity --format csv -o ledger.csv\n  COLUMNS=160 vcperf fidelity | less -S")
    p.add_argument("--format", choices=["text", "csv"], default="text")
    p.add_argument("--output", "-o", default=None, help="write here instead of stdout (csv)")
    p.add_argument("--study", action="append", help="only this study (repeatable)")
    p.add_argument("--summary", action="store_true",
                   help="print only the per-study summary (Markdown; README shows exactly this)")
    p.add_argument("--readme", metavar="README.md", default=None,
                   help="write the summary into the ledger-summary block of this file")
    p.add_argument("--no-cache", action="store_true",
                   help="recompute every calibration and refit instead of reading the disk cache")
    p.set_defaults(func=_cmd_fidelity)

    p = sub.add_parser("sweep", help="evaluate a model function over a parameter grid (optionally on Dask)")
    p.add_argument("model", help="dotted path of a vcperf model function, e.g. vcperf.network.transfer_time_s")
    p.add_argument("--grid", required=True, metavar="GRID.yaml", help="parameters: lists or {lo, hi, n, scale}")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on this existing Dask cluster")
    where.add_argument("--workers", type=_integer, metavar="N", help="run on a local Dask cluster of N processes")
    p.add_argument("--dashboard", action="store_true",
                   help="with --workers: serve the Dask dashboard on 127.0.0.1 (a free port, printed)")
    p.add_argument("--large", action="store_true",
                   help="confirm a sweep of more than 10 million points (refused without it)")
    p.add_argument("--out", metavar="TABLE.csv", help="write the table here (default: stdout)")
    p.add_argument("--chunk-size", type=_integer, default=10_000, metavar="K", help="points per call/task (10000)")
    p.add_argument("--seed", type=_integer, default=None, help="seed of a latin_hypercube design (overrides the grid)")
    p.set_defaults(func=_cmd_sweep)

    p = sub.add_parser("plan", help="evaluate a site plan: every study's flows on the links they share",
                       description="Evaluate a site plan: every study's flows on the links they share, the targets "
                                   "met or missed, and (--solve) a reverse question.",
                       epilog=PLAN_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("plan", metavar="site.yaml", help="the site plan (format: docs/PLAN.md; more in examples/)")
    p.add_argument("--format", choices=["md", "csv", "json"], default="md")
    p.add_argument("--solve", choices=["bandwidth", "rtt", "hosts"],
                   help="a reverse question: smallest bandwidth / largest RTT of --link, most hosts of --branch")
    p.add_argument("--link", metavar="NAME", help="the link of --solve bandwidth|rtt")
    p.add_argument("--branch", metavar="NAME", help="the branch of --solve hosts (default: the first)")
    p.set_defaults(func=_cmd_plan)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run a command; every usage or input error is one ``vcperf: error: ...`` line and exit 2."""
    args = build_parser().parse_args(argv)
    import yaml

    try:
        return args.func(args)
    except BrokenPipeError:  # `vcperf fidelity | head`: the reader has all it wants
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (ValueError, yaml.YAMLError) as err:
        print(f"vcperf: error: {' '.join(str(err).split()) if isinstance(err, yaml.YAMLError) else err}",
              file=sys.stderr)
        return 2
    except OSError as err:
        where = f": {err.filename}" if getattr(err, "filename", None) else ""
        print(f"vcperf: error: {err.strerror or err}{where}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as err:
        print(f"vcperf {args.command}: interrupted", file=sys.stderr)
        return getattr(err, "exit_code", 130)


if __name__ == "__main__":
    sys.exit(main())
