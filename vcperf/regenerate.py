"""``vcperf regenerate``: execute every notebook with papermill into ``build/``, safely.

Layout of the output::

    build/notebooks/<nb>.ipynb           executed copies
    build/figures/<nb>/<figure>.png|svg  written by the notebooks (vcperf.plotting.save_figure)
    build/tables/<nb>/<table>.csv        written by the notebooks (vcperf.plotting.save_table)
    build/fidelity.csv                   vcperf.fidelity.table(), the same as `vcperf fidelity`
    build/index.html                     one static page with everything (vcperf.report)

Safety: everything is written into a staging folder beside the target (a copy of the previous
output, so ``--only`` keeps the other notebooks' results); only when every notebook succeeded is the
staging folder swapped in. On failure the target is untouched, the failing executed notebook is
kept in ``<target>-failed/`` and the notebook and cell are named.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from vcperf import params as nbparams

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
KERNEL = "python3"
CELL_TIMEOUT_S = 600
KERNEL_START_RETRIES = 2


@dataclass(frozen=True)
class Failure:
    notebook: str
    cell: int | None
    message: str
    kept: Path | None


def notebooks() -> dict[str, Path]:
    """Notebook name -> path of its source, for every notebook in ``notebooks/``.

    The source of a notebook is its jupytext percent file ``notebooks/<name>.py``; regeneration
    builds the ``.ipynb`` from it (:func:`vcperf.params.read_notebook`), so what a user edits is what runs.
    """
    return {p.stem: p for p in sorted(NOTEBOOK_DIR.glob("*.py"))}


def _execute(name: str, src: str, out_dir: str, overrides: dict) -> Failure | None:
    """Run one notebook (in a worker process). Returns None on success."""
    import papermill as pm
    from papermill.exceptions import PapermillExecutionError

    out_dir = Path(out_dir)
    executed = out_dir / "notebooks" / f"{name}.ipynb"
    parameters = {"interactive": False, "output_dir": str(out_dir.resolve()), **overrides}
    for attempt in range(KERNEL_START_RETRIES + 1):
        try:
            pm.execute_notebook(
                nbparams.read_notebook(Path(src)), str(executed), parameters=parameters, kernel_name=KERNEL,
                cwd=str(NOTEBOOK_DIR),
                execution_timeout=CELL_TIMEOUT_S, progress_bar=False, log_output=False,
                request_save_on_cell_execute=False,
                # Quiet kernel log: jupyter_client interrupts every kernel before shutting it down,
                # which ipykernel would report as "ERROR | KeyboardInterrupt caught in kernel".
                extra_arguments=["--IPKernelApp.log_level=CRITICAL"],
            )
            return None
        except PapermillExecutionError as err:
            return Failure(name, err.cell_index, f"{err.ename}: {err.evalue}", executed)
        except RuntimeError as err:  # kernel failed to start (e.g. a port clash): try again
            if "kernel" not in str(err).lower() or attempt == KERNEL_START_RETRIES:
                return Failure(name, None, f"{type(err).__name__}: {err}", executed if executed.exists() else None)
            time.sleep(1.0 + attempt)
        except Exception as err:  # noqa: BLE001 - report any failure with the notebook named
            return Failure(name, None, f"{type(err).__name__}: {err}", executed if executed.exists() else None)
    return None


def _write_fidelity(out_dir: str) -> None:
    """Compute the fidelity table (in a worker, beside the notebooks) into ``<out_dir>/fidelity.csv``."""
    from vcperf import fidelity

    path = Path(out_dir) / "fidelity.csv"
    fidelity.table().to_csv(path, index=False, float_format="%.6g", lineterminator="\n")


def _fidelity_failure(compute) -> list[Failure]:
    """Run the fidelity computation; a model error becomes a Failure naming it, like a notebook's."""
    try:
        compute()
    except Exception as err:  # noqa: BLE001 - reported with the step named, build/ left intact
        return [Failure("fidelity table", None, f"{type(err).__name__}: {err}", None)]
    return []


def run(
    target: Path,
    only: list[str] | None = None,
    overrides: dict | None = None,
    jobs: int = 1,
    progress: bool | None = None,
) -> list[Failure]:
    """Regenerate notebooks into ``target`` (staged, swapped in only on success).

    Parameters
    ----------
    target : Path
        Output folder (``build/`` or a scenario folder).
    only : list of str, optional
        Notebook names to run (default: all).
    overrides : dict, optional
        Parameter overrides, validated against each selected notebook before anything runs.
    jobs : int
        Notebooks executed in parallel (>= 1).
    progress : bool, optional
        Show a progress bar; default: only on a terminal and not under CI.

    Returns
    -------
    list of Failure
        Empty when everything succeeded.
    """
    from vcperf import _validate as v

    jobs = v.integer("jobs", jobs, lo=1, hi=64)
    available = notebooks()
    selected = only or list(available)
    for name in selected:
        if name not in available:
            raise ValueError(f"--only must name notebooks in notebooks/ ({', '.join(available)}); got {name!r}")
    overrides = overrides or {}
    checked = {name: nbparams.check_overrides(available[name], overrides) for name in selected}

    target = Path(target).resolve()
    staging = target.with_name(f".{target.name}.staging")
    failed_dir = target.with_name(f"{target.name}-failed")
    shutil.rmtree(staging, ignore_errors=True)
    if target.exists():
        shutil.copytree(target, staging)
    else:
        staging.mkdir(parents=True)
    for name in selected:  # stale outputs of a re-run notebook must not survive it
        for kind in ("figures", "tables"):
            shutil.rmtree(staging / kind / name, ignore_errors=True)
    (staging / "notebooks").mkdir(exist_ok=True)

    if progress is None:
        progress = sys.stderr.isatty() and not os.environ.get("CI")
    from tqdm import tqdm

    failures: list[Failure] = []
    # The fidelity table and report describe the default scenario only.
    default_scenario = not overrides
    (staging / "fidelity.csv").unlink(missing_ok=True)
    bar = tqdm(total=len(selected), desc="notebooks", unit="nb", disable=not progress)
    if jobs == 1:
        for name in selected:
            bar.set_postfix_str(name)
            f = _execute(name, str(available[name]), str(staging), checked[name])
            failures += [f] if f else []
            bar.update()
        if default_scenario and not failures:
            failures += _fidelity_failure(lambda: _write_fidelity(str(staging)))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            # The fidelity table runs beside the notebooks (it recalibrates every model: seconds).
            fid = pool.submit(_write_fidelity, str(staging)) if default_scenario else None
            futures = {pool.submit(_execute, n, str(available[n]), str(staging), checked[n]): n for n in selected}
            for fut in as_completed(futures):
                f = fut.result()
                failures += [f] if f else []
                bar.set_postfix_str(futures[fut])
                bar.update()
            if fid is not None:
                failures += _fidelity_failure(fid.result)
    bar.close()

    if failures:
        failed_dir.mkdir(parents=True, exist_ok=True)
        kept = []
        for f in failures:
            if f.kept is not None and f.kept.exists():
                dest = failed_dir / f.kept.name
                shutil.copy2(f.kept, dest)
                kept.append(Failure(f.notebook, f.cell, f.message, dest))
            else:
                kept.append(f)
        shutil.rmtree(staging, ignore_errors=True)
        return kept

    if default_scenario:
        from vcperf import report

        report.write_index(staging)
    old = target.with_name(f".{target.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    staging.rename(target)
    shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(failed_dir, ignore_errors=True)
    return []


def main(args) -> int:
    """Entry point of ``vcperf regenerate`` (arguments parsed by :mod:`vcperf.cli`)."""
    import yaml

    overrides = {}
    if args.params:
        loaded = yaml.safe_load(Path(args.params).read_text())
        if not isinstance(loaded, dict):
            raise ValueError(f"--params file must hold a mapping of parameter: value; got {type(loaded).__name__}")
        overrides.update(loaded)
    for item in args.p or []:
        key, value = nbparams.parse_assignment(item)
        overrides[key] = value
    target = Path(args.output)
    if overrides and args.output == str(ROOT / "build"):
        scenario = args.scenario or "whatif"
        target = ROOT / "build" / "scenarios" / scenario
    start = time.perf_counter()
    failures = run(target, only=args.only, overrides=overrides, jobs=args.jobs)
    if failures:
        for f in failures:
            cell = f"cell {f.cell}" if f.cell is not None else "before any cell"
            print(f"vcperf regenerate: notebook {f.notebook} failed at {cell}: {f.message}", file=sys.stderr)
            if f.kept:
                print(f"  executed notebook kept for inspection: {f.kept}", file=sys.stderr)
        print(f"vcperf regenerate: {target} left as it was", file=sys.stderr)
        return 1
    print(f"vcperf regenerate: wrote {target} in {time.perf_counter() - start:.1f} s")
    return 0
