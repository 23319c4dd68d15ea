"""A regeneration run: overrides routed to notebooks, the staging copy, the worker pool, the swap.

Everything is written into a staging folder beside the target (a copy of the previous output, so
``--only`` keeps the other notebooks' results); only when every notebook succeeded is the staging
folder swapped in. On failure the target is untouched, the failing executed notebook is kept in
``<target>-failed/`` and the notebook and cell are named. On SIGINT/SIGTERM/SIGHUP queued notebooks
are cancelled, the workers and kernels killed, the staging folder removed and the target left as it was.

A run killed outright leaves its staging folder, its kernels' folder ``.<root>.kernels`` (their
connection files) or, killed between the two renames of the swap, the previous build as
``.<target>.old``: the next run removes the first two and puts the previous build back first.
Nothing is written through a symbolic link out of the build (:mod:`vcperf.regenerate.paths`).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from vcperf import _validate, fidelity, protocol, report
from vcperf import params as nbparams
from vcperf.params import skip_unused_format_checker
from vcperf.regenerate import schedule
from vcperf.regenerate.lock import HeldLock, build_lock
from vcperf.regenerate.notebook import (
    Failure,
    execute,
    fidelity_failure,
    say,
    warm_study,
    worker_init,
    write_fidelity,
)
from vcperf.regenerate.paths import check_links, check_target, lock_root, no_link, notebooks
from vcperf.regenerate.processes import Interrupted, Signals, stop_pool

#: Parameters regenerate sets itself (they decide where files are written).
RESERVED_PARAMETERS = ("output_dir",)
#: Notebooks skipped by the last :func:`run` because they declare none of the overrides (for the CLI).
SKIPPED: list[str] = []


def check_reserved(overrides: dict) -> None:
    """ValueError if ``overrides`` sets a parameter regenerate sets itself (:data:`RESERVED_PARAMETERS`)."""
    for key in RESERVED_PARAMETERS:
        if key in overrides:
            raise ValueError(f"parameter {key} is set by vcperf regenerate (the build folder); it cannot be "
                             "overridden: choose the folder with --output or --scenario")


def run(
    target: Path,
    only: list[str] | None = None,
    overrides: dict | None = None,
    jobs: int = 1,
    progress: bool = True,
) -> list[Failure]:
    """Regenerate notebooks into ``target`` (staged, swapped in only on success).

    Parameters
    ----------
    target : Path
        Output folder (``build/`` or a scenario folder); see :func:`check_target`.
    only : list of str, optional
        Notebook names to run (default: all).
    overrides : dict, optional
        Parameter overrides, validated against each selected notebook before anything runs
        (``output_dir`` is set by regenerate and cannot be overridden).
    jobs : int
        Notebooks executed in parallel (>= 1), each in a worker process.
    progress : bool
        Say on stderr what is done, from the first second: the notebooks and the calibration cache at the
        start, each calibration computed (a cold cache), each notebook started and finished (default True).

    Returns
    -------
    list of Failure
        Empty when everything succeeded.

    Raises
    ------
    ValueError
        Bad arguments or target (before any work).
    BuildLocked
        Another run is writing the same build root.
    UnsafePath
        A write would follow a symbolic link out of the build (a ValueError; nothing written).
    Interrupted
        SIGINT/SIGTERM/SIGHUP (in the main thread): workers and kernels killed, staging removed, target
        as it was.
    """
    jobs = _validate.integer("jobs", jobs, lo=1, hi=64)
    skip_unused_format_checker()
    available = notebooks()
    selected = only or list(available)
    for name in selected:
        if name not in available:
            raise ValueError(f"--only must name notebooks in notebooks/ ({', '.join(available)}); got {name!r}"
                             + nbparams.did_you_mean(name, available))
    overrides = overrides or {}
    check_reserved(overrides)
    selected, checked = route_overrides(available, selected, overrides, explicit=bool(only))
    target = check_target(Path(target))

    root = lock_root(target)
    with build_lock(root) as lock, Signals() as signals:
        return _run_locked(target, root, lock, selected, available, checked, jobs, progress, not overrides,
                           signals)


def route_overrides(available: dict, selected: list, overrides: dict, *, explicit: bool):
    """Send each override to the notebooks that declare it.

    Without ``--only`` (``explicit`` False), a notebook that declares none of the overridden
    parameters is skipped (listed in :data:`SKIPPED`) and each remaining notebook gets the overrides
    it declares; an override no notebook declares is an error. With ``--only``, every named notebook
    must declare every override (the user asked for exactly those). Values are checked against each
    notebook's declared unit, type and range before anything runs.

    Returns ``(notebooks to run, {notebook: checked overrides})``.
    """
    SKIPPED.clear()
    if not overrides or explicit:
        return selected, {name: nbparams.check_overrides(available[name], overrides) for name in selected}
    declared = {name: nbparams.read_parameters(available[name]) for name in selected}
    unknown = [k for k in overrides if not any(k in params for params in declared.values())]
    if unknown:
        known = sorted({k for params in declared.values() for k in params})
        hints = "".join(nbparams.did_you_mean(k, known) for k in unknown)
        raise ValueError(f"no notebook declares the parameter(s) {unknown}{hints}; see `vcperf params NOTEBOOK`")
    run_names, checked = [], {}
    for name in selected:
        mine = {k: val for k, val in overrides.items() if k in declared[name]}
        if not mine:
            SKIPPED.append(name)
            continue
        run_names.append(name)
        checked[name] = nbparams.check_overrides(available[name], mine)
    return run_names, checked


def kernels_dir(root: Path) -> Path:
    """The folder of a run's kernel connection files, ``.<root>.kernels`` beside the build root."""
    return root.with_name(f".{root.name}.kernels")


#: Errors of a full or read-only filesystem (the build's folder): reported as one line.
_DISK_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG}


def _tree_bytes(folder: Path) -> int:
    """Bytes of the regular files under ``folder`` (0 if it does not exist)."""
    total = 0
    for dirpath, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size
    return total


def _disk_error(err: BaseException, target: Path, staging: Path) -> OSError | None:
    """One-line ``OSError`` for a write that failed on a full or read-only filesystem, naming the
    folder and the space a run needs there (the previous build, copied to the staging folder); None
    for any other error. ``shutil.copytree`` raises ``shutil.Error`` with the list of every file it
    could not copy (60 KB on a full disk): only its first reason is kept."""
    first = err
    if isinstance(err, shutil.Error) and err.args and isinstance(err.args[0], list) and err.args[0]:
        why = str(err.args[0][0][-1])
        code = next((c for c in _DISK_ERRNOS if f"[Errno {c}]" in why), None)
        first = OSError(code, why) if code is not None else None
    if not isinstance(first, OSError) or first.errno not in _DISK_ERRNOS:
        return None
    folder = staging.parent
    try:
        free = f"{shutil.disk_usage(folder).free / 1e6:.1f} MB free"
    except OSError:
        free = "free space unknown"
    need = _tree_bytes(target)
    reason = os.strerror(first.errno).lower()
    return OSError(first.errno, f"cannot write the build in {folder} ({reason}): a run needs about "
                                f"{max(need, 1e6) / 1e6:.1f} MB there for its staging copy beside the previous "
                                f"build, plus the new outputs ({free}); the previous build is left as it was")


def _recover(target: Path, old: Path) -> None:
    """Put back the previous build if a run was killed between the two renames of its swap."""
    if not target.exists() and old.is_dir():
        old.rename(target)


def _run_locked(target: Path, root: Path, lock: HeldLock, selected, available, checked, jobs, progress,
                default_scenario, signals) -> list[Failure]:
    staging = no_link(target.with_name(f".{target.name}.staging"))
    failed_dir = no_link(target.with_name(f"{target.name}-failed"))
    old = no_link(target.with_name(f".{target.name}.old"))
    kernels = no_link(kernels_dir(root))
    if not default_scenario and target.parent.name == "scenarios":
        no_link(target.parent / "index.html")
    _recover(target, old)
    shutil.rmtree(kernels, ignore_errors=True)  # connection files of a killed run's kernels
    pool = None
    try:
        shutil.rmtree(staging, ignore_errors=True)
        if target.exists():
            shutil.copytree(target, staging, symlinks=True)
            check_links(staging, shown=target)  # nothing below is written through a link out of the build
        else:
            staging.mkdir(parents=True)
        kernels.mkdir(mode=0o700)
        for name in selected:  # stale outputs of a re-run notebook must not survive it
            for kind in ("figures", "tables"):
                shutil.rmtree(staging / kind / name, ignore_errors=True)
        (staging / "notebooks").mkdir(exist_ok=True)
        # The fidelity table and report describe the default scenario only.
        (staging / "fidelity.csv").unlink(missing_ok=True)

        failures: list[Failure] = []
        shared = default_scenario and protocol.cache_dir() is not None
        studies = fidelity.modelled_studies() if protocol.cache_dir() is not None else []
        cold = [s for s in studies if not protocol.cache.on_disk(s)]
        if progress:
            say(f"{len(selected)} notebook{'s' * (len(selected) > 1)} into {target}, {jobs} at a time; "
                + _cache_state(len(studies) - len(cold), len(studies)))
        pool = ProcessPoolExecutor(max_workers=jobs, initializer=worker_init,
                                   initargs=(os.getpid(), (lock.fd,) if lock.fd is not None else (), str(kernels)))
        # The fidelity table runs beside the notebooks (it recalibrates every model: seconds; the
        # notebooks wait for, never redo, a calibration it is computing: vcperf.protocol.cache). With a disk
        # cache, one task per study computes its rows first (a cold cache's calibrations and refits shared
        # by the workers) and the table is written last, from the cache.
        fid = pool.submit(write_fidelity, str(staging)) if default_scenario and not shared else None
        for study in studies if shared else ():
            pool.submit(warm_study, study, progress and bool(cold))
        # The API reference (pdoc, from the docstrings) of a whole default build, beside the notebooks.
        api = pool.submit(report.write_api, str(staging / "report" / "api")) \
            if default_scenario and set(selected) == set(available) else None
        futures = {pool.submit(schedule.timed, execute, n, str(available[n]), str(staging), checked[n], progress): n
                   for n in schedule.order(selected, available)}  # the costliest first
        if shared:
            fid = pool.submit(write_fidelity, str(staging))
        t0 = time.perf_counter()
        report.warm_up()  # the report's one-time costs while the notebooks run, not after the last one
        seconds = {}
        for done, fut in enumerate(as_completed(futures), start=1):
            f, seconds[futures[fut]] = fut.result()
            failures += [f] if f else []
            if progress:
                say(f"[{done}/{len(futures)}] {futures[fut]} {'failed' if f else 'done'} "
                    f"({time.perf_counter() - t0:.1f} s)")
        if fid is not None:
            failures += fidelity_failure(fid.result)
        if api is not None:
            api.result()  # a failure names pdoc's message
        pool.shutdown(wait=True)
        pool = None
        if not failures:
            schedule.remember(seconds)

        if failures:
            shutil.rmtree(kernels, ignore_errors=True)
            return _keep_failed(failures, failed_dir, staging)

        if not default_scenario:  # a scenario remembers what it changed, for build/scenarios/index.html
            params = {name: checked[name] for name in selected}
            (staging / "scenario.json").write_text(json.dumps(params, indent=1, sort_keys=True) + "\n")
        report.write_index(staging)  # a scenario's own pages: its figures and tables as the reader sees them
    except BaseException as err:
        signals.defer()
        if pool is not None:
            stop_pool(pool)
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(kernels, ignore_errors=True)
        if isinstance(err, Interrupted):
            err.target = target
        short = _disk_error(err, target, staging)
        if short is not None:
            raise short from None  # one line, not shutil's list of every file it could not copy
        raise

    signals.defer()  # the swap is not interrupted half way
    shutil.rmtree(kernels, ignore_errors=True)
    shutil.rmtree(old, ignore_errors=True)
    _swap(staging, target, old)
    shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(failed_dir, ignore_errors=True)
    if not default_scenario and target.parent.name == "scenarios":
        write_scenario_index(target.parent)
    if signals.pending is not None:
        raise Interrupted(signals.pending, target, committed=True)
    return []


def _keep_failed(failures: list[Failure], failed_dir: Path, staging: Path) -> list[Failure]:
    """Copy each failed notebook's executed copy into ``failed_dir`` (best effort: a copy that cannot be
    written, e.g. on a full disk, is reported in its failure, never instead of it), remove the staging
    folder and an empty ``failed_dir``; return the failures with where each copy is kept."""
    kept = []
    for f in failures:
        if f.kept is None or not f.kept.exists():
            kept.append(f)
            continue
        dest = failed_dir / f.kept.name
        try:
            failed_dir.mkdir(parents=True, exist_ok=True)
            dest.unlink(missing_ok=True)  # a link there is replaced, never followed
            shutil.copy2(f.kept, dest)
            kept.append(Failure(f.notebook, f.cell, f.message, dest))
        except OSError as err:
            dest.unlink(missing_ok=True)
            kept.append(Failure(f.notebook, f.cell, f"{f.message} (its executed copy not kept: "
                                                      f"{err.strerror or err})", None))
    shutil.rmtree(staging, ignore_errors=True)
    with contextlib.suppress(OSError):
        failed_dir.rmdir()  # only if empty
    return kept


def _swap(staging: Path, target: Path, old: Path) -> None:
    """``staging`` becomes ``target`` (the previous build moved to ``old`` first). If either rename fails
    (an immutable or read-only folder), the previous build is put back, ``staging`` is removed and the
    error raised, naming the target."""
    try:
        if target.exists():
            target.rename(old)
        try:
            staging.rename(target)
        except OSError:
            if old.is_dir() and not target.exists():
                old.rename(target)
            raise
    except OSError as err:
        shutil.rmtree(staging, ignore_errors=True)
        raise OSError(err.errno, f"the new build could not be swapped in ({err.strerror or err}); the previous "
                                 f"build is left as it was", str(target)) from None


def _cache_state(held: int, studies: int) -> str:
    """The calibration cache as the start line says it: where, and how many studies' calibrations it holds."""
    if protocol.cache_dir() is None:
        return "no calibration cache (VCPERF_NO_CACHE): every notebook calibrates its own models"
    where = f"calibration cache {protocol.cache_dir()}"
    if held == studies:
        return f"{where}: every calibration there"
    return (f"{where}: {held} of {studies} studies' calibrations there; the others are computed when "
            "first needed (minutes on 2 cores, once per change of the sources)")


def write_scenario_index(folder: Path) -> Path:
    """``<folder>/index.html``: every scenario under ``folder`` (:func:`vcperf.report.write_scenario_index`)."""
    return report.write_scenario_index(folder)
