"""The ``vcperf regenerate`` command: overrides from ``-p``/``--params``, the target folder, messages, exit codes.

Arguments are parsed by :mod:`vcperf.cli`; a failure prints one line per failing notebook and exits 1,
a locked build exits 1, an interrupted run exits 128 + the signal number (130 for SIGINT, 143 for SIGTERM).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from vcperf import _yaml
from vcperf import params as nbparams
from vcperf.regenerate import paths
from vcperf.regenerate.execute import SKIPPED, check_reserved, run
from vcperf.regenerate.lock import BuildLocked
from vcperf.regenerate.paths import check_scenario, check_target
from vcperf.regenerate.processes import Interrupted


def load_params_file(path: str) -> dict:
    """The mapping of parameter overrides in a YAML file; ValueError naming the file otherwise."""
    loaded = _yaml.load_file(path, f"--params file {path!r}")
    if not isinstance(loaded, dict):
        raise ValueError(f"--params file must hold a mapping of parameter: value; got {type(loaded).__name__}")
    bad = [k for k in loaded if not isinstance(k, str)]
    if bad:
        raise ValueError(f"--params file {path!r}: parameter names must be strings; got {bad[0]!r}")
    return loaded


def target_of(args, overrides: dict) -> Path:
    """Where a ``vcperf regenerate`` writes: ``--output``, or ``<output>/scenarios/<scenario>``.

    A what-if (overrides) without ``--scenario`` into the default ``build/`` goes to
    ``build/scenarios/whatif``, never over the default build.
    """
    output = Path(args.output).expanduser()
    if args.scenario is not None:
        check_scenario(args.scenario)
        if not overrides:
            raise ValueError("--scenario needs parameter overrides (-p KEY=VALUE or --params FILE.yaml)")
        return check_target(output.resolve() / "scenarios" / args.scenario)
    if overrides and output.resolve() == paths.BUILD.resolve():
        return check_target(paths.BUILD / "scenarios" / "whatif")
    return check_target(output)


def main(args) -> int:
    """Entry point of ``vcperf regenerate`` (arguments parsed by :mod:`vcperf.cli`)."""
    overrides = {}
    if args.params:
        overrides.update(load_params_file(args.params))
    given = set()
    for item in args.p or []:
        key, value = nbparams.parse_assignment(item)
        if key in given:
            raise ValueError(f"-p {key} is given twice; give each parameter once")
        given.add(key)
        overrides[key] = value
    check_reserved(overrides)
    target = target_of(args, overrides)
    start = time.perf_counter()
    SKIPPED.clear()  # this run's skipped notebooks only, never an earlier run's in the same process
    try:
        failures = run(target, only=args.only, overrides=overrides, jobs=args.jobs)
    except BuildLocked as err:
        print(f"vcperf: error: {err}", file=sys.stderr)
        return 1
    except Interrupted as err:
        if err.committed:
            print(f"vcperf regenerate: interrupted; {target} was already written", file=sys.stderr)
        else:
            print(f"vcperf regenerate: interrupted; {target} left as it was", file=sys.stderr)
        return err.exit_code
    if SKIPPED:
        print(f"vcperf regenerate: skipped {', '.join(SKIPPED)} (they declare none of the parameters given)",
              file=sys.stderr)
    if failures:
        for f in failures:
            cell = f"cell {f.cell}" if f.cell is not None else "before any cell"
            why = " ".join(str(f.message).split())  # one line, however the error was worded
            why = why if len(why) <= 300 else why[:297] + "..."
            print(f"vcperf regenerate: notebook {f.notebook} failed at {cell}: {why}", file=sys.stderr)
            if f.kept:
                print(f"  executed notebook kept for inspection: {f.kept}", file=sys.stderr)
        print(f"vcperf regenerate: {target} left as it was", file=sys.stderr)
        return 1
    print(f"vcperf regenerate: wrote {target} in {time.perf_counter() - start:.1f} s")
    return 0
