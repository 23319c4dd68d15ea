"""Command line: ``vcperf regenerate | params | fidelity | data``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent


def _cmd_data(args) -> int:
    from vcperf import data

    if args.action == "validate":
        print(data.validate_all())
    else:
        print("\n".join(data.table_names(args.study)))
    return 0


def _cmd_regenerate(args) -> int:
    from vcperf import regenerate

    return regenerate.main(args)


def _cmd_params(args) -> int:
    from vcperf import params, regenerate

    nbs = regenerate.notebooks()
    if args.notebook not in nbs:
        raise ValueError(f"notebook must be one of {list(nbs)}; got {args.notebook!r}")
    for p in params.read_parameters(nbs[args.notebook]).values():
        print(p.describe())
    return 0


def _cmd_fidelity(args) -> int:
    from vcperf import fidelity

    df = fidelity.table(args.study)
    if args.format == "csv":
        text = df.to_csv(index=False, float_format="%.6g", lineterminator="\n")
        if args.output:
            Path(args.output).write_text(text)
        else:
            sys.stdout.write(text)
        return 0
    import pandas as pd

    with pd.option_context("display.width", 200, "display.max_rows", None, "display.max_colwidth", 40):
        print(df[["study", "locator", "quantity", "paper_value", "model_value", "rel_error", "fitted"]])
    print()
    print(fidelity.format_summary(fidelity.summary(df)))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vcperf", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("data", help="validate or list the paper tables in data/")
    p.add_argument("action", choices=["validate", "list"])
    p.add_argument("--study", default=None, help="only this study (list)")
    p.set_defaults(func=_cmd_data)

    p = sub.add_parser("regenerate", help="execute every notebook with papermill into build/")
    p.add_argument("--only", action="append", metavar="NAME", help="only this notebook (repeatable)")
    p.add_argument("--jobs", type=int, default=1, help="notebooks run in parallel (default 1)")
    p.add_argument("-p", action="append", metavar="KEY=VALUE", help="parameter override (what-if scenario)")
    p.add_argument("--params", metavar="FILE.yaml", help="parameter overrides from a YAML mapping")
    p.add_argument("--scenario", metavar="NAME", help="scenario folder under build/scenarios/ (with -p/--params)")
    p.add_argument("--output", default=str(_ROOT / "build"), help="output folder (default: build/)")
    p.set_defaults(func=_cmd_regenerate)

    p = sub.add_parser("params", help="list a notebook's parameters with defaults and units")
    p.add_argument("notebook", help="notebook name, e.g. robo_networks")
    p.set_defaults(func=_cmd_params)

    p = sub.add_parser("fidelity", help="paper vs model for every number a model predicts")
    p.add_argument("--format", choices=["text", "csv"], default="text")
    p.add_argument("--output", "-o", default=None, help="write here instead of stdout (csv)")
    p.add_argument("--study", action="append", help="only this study (repeatable)")
    p.set_defaults(func=_cmd_fidelity)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ValueError as err:
        print(f"vcperf: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
