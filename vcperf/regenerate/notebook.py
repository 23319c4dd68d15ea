"""One step of a regeneration, run in a pool worker: execute one notebook, or write the fidelity table.

A notebook is executed by papermill from its jupytext source into ``<build>/notebooks/<nb>.ipynb``
and normalised (:func:`normalise_notebook`: no papermill timings, no per-cell execution timestamps,
cell ids ``cell-NN``, the absolute staging path replaced by the path of the build relative to the
notebook, ``..``), so two runs give a byte-identical build. A failure is returned as a
:class:`Failure` naming the notebook and cell, never raised.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from vcperf import fidelity
from vcperf import params as nbparams
from vcperf.regenerate import forkserver, processes

KERNEL = "python3"
CELL_TIMEOUT_S = 600
KERNEL_START_RETRIES = 2
#: In the executed notebooks, the build folder as seen from ``<build>/notebooks/<nb>.ipynb``.
BUILD_FROM_NOTEBOOK = ".."


@dataclass(frozen=True)
class Failure:
    """A notebook (or the fidelity table) that failed: the cell, the error, the executed copy kept."""

    notebook: str
    cell: int | None
    message: str
    kept: Path | None


def normalise_notebook(path: Path, build: Path) -> None:
    """Make an executed notebook the same from run to run, in place.

    Removes papermill's timings and paths and nbclient's per-cell execution timestamps, numbers the
    cell ids ``cell-NN`` and replaces the absolute build path (e.g. the injected ``output_dir``) with
    the build as seen from the notebook (:data:`BUILD_FROM_NOTEBOOK`).
    """
    import nbformat

    nb = nbformat.read(path, as_version=4)
    pm = nb.metadata.get("papermill", {})
    for key in ("start_time", "end_time", "duration", "input_path", "output_path", "environment_variables"):
        pm.pop(key, None)
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:02d}"
        cell.metadata.pop("execution", None)
        cpm = cell.metadata.get("papermill")
        if cpm is not None:
            for key in ("start_time", "end_time", "duration"):
                cpm.pop(key, None)
    text = json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False)
    for absolute in sorted({str(build), str(Path(build).resolve())}, key=len, reverse=True):
        for form in (absolute, json.dumps(absolute)[1:-1]):  # as is, and JSON-escaped
            text = text.replace(form, BUILD_FROM_NOTEBOOK)
    nbformat.write(nbformat.reads(text, as_version=4), path)


def say(message: str) -> None:
    """One progress line of ``vcperf regenerate`` on stderr, at once (from the parent or a worker)."""
    print(f"vcperf regenerate: {message}", file=sys.stderr, flush=True)


def execute(name: str, src: str, out_dir: str, overrides: dict, announce: bool = False) -> Failure | None:
    """Run one notebook (in a worker process), its working folder the one of its source; with ``announce``,
    say when it starts (the parent says when it finishes).

    Returns None on success.
    """
    if announce:
        say(f"started {name}")
    import papermill as pm
    from papermill.exceptions import PapermillExecutionError

    out_dir = Path(out_dir)
    executed = out_dir / "notebooks" / f"{name}.ipynb"
    parameters = {"interactive": False, **overrides, "output_dir": str(out_dir.resolve())}
    for attempt in range(KERNEL_START_RETRIES + 1):
        try:
            pm.execute_notebook(
                nbparams.read_notebook(Path(src)), str(executed), parameters=parameters, kernel_name=KERNEL,
                cwd=str(Path(src).parent),
                execution_timeout=CELL_TIMEOUT_S, progress_bar=False, log_output=False,
                request_save_on_cell_execute=False, kernel_manager_class=forkserver.kernel_manager_class(),
                # Quiet kernel log: jupyter_client interrupts every kernel before shutting it down,
                # which ipykernel would report as "ERROR | KeyboardInterrupt caught in kernel".
                extra_arguments=["--IPKernelApp.log_level=CRITICAL"],
            )
            normalise_notebook(executed, out_dir)
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


class _RetriedKernelStart(logging.Filter):
    """Drops nbclient's "Error occurred while starting new kernel client" record: :func:`execute` retries
    a kernel that died at start and reports the notebook as failed, naming the error, if every try
    fails, so the line would only be noise on the user's terminal (and in a signal's one-line report)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Error occurred while starting new kernel client")


def worker_init(parent: int, close_fds: tuple[int, ...] = (), scratch: str | None = None) -> None:
    """Pool worker set-up (:func:`vcperf.regenerate.processes.worker_init`), then its kernel server
    (:func:`vcperf.regenerate.forkserver.start`: kernels forked with the notebooks' imports done)."""
    processes.worker_init(parent, close_fds, scratch)
    for name in ("papermill", "traitlets", "nbclient"):  # papermill hands its logger to nbclient
        logging.getLogger(name).addFilter(_RetriedKernelStart())
    forkserver.start()


def warm_study(study: str, announce: bool = False) -> None:
    """Compute one study's ledger rows into the disk cache (in a worker; a cold cache's calibrations and
    leave-one-out refits, one study per task, so the workers share them instead of one computing all five).
    With ``announce``, say when it starts and ends (a cold cache: these are the minutes before the first
    notebook can finish).

    An error is left to :func:`write_fidelity`, which meets it again and reports it with the step named.
    """
    if announce:
        say(f"calibrating for {study}: its ledger rows (the calibrations they use, leave-one-out refits)")
    start = time.perf_counter()
    try:
        fidelity.rows([study])
    except Exception:  # noqa: BLE001, S110 - reported by write_fidelity, which computes the same rows
        pass
    if announce:
        say(f"calibrated for {study} ({time.perf_counter() - start:.1f} s)")


def write_fidelity(out_dir: str) -> None:
    """Compute the fidelity table (in a worker, beside the notebooks) into ``<out_dir>/fidelity.csv``."""
    path = Path(out_dir) / "fidelity.csv"
    fidelity.table().to_csv(path, index=False, float_format="%.6g", lineterminator="\n")


def fidelity_failure(compute) -> list[Failure]:
    """Run the fidelity computation; a model error becomes a Failure naming it, like a notebook's."""
    try:
        compute()
    except Exception as err:  # noqa: BLE001 - reported with the step named, build/ left intact
        return [Failure("fidelity table", None, f"{type(err).__name__}: {err}", None)]
    return []
