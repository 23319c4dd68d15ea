"""``vcperf regenerate``: execute every notebook with papermill into ``build/``, safely.

Layout of the output::

    build/notebooks/<nb>.ipynb           executed copies (normalised: no timings, no absolute paths)
    build/figures/<nb>/<figure>.png|svg  written by the notebooks (vcperf.plotting.save_figure)
    build/tables/<nb>/<table>.csv        written by the notebooks (vcperf.plotting.save_table)
    build/fidelity.csv                   vcperf.fidelity.table(), the same as `vcperf fidelity`
    build/report/<page>.html             each executed notebook rendered by nbconvert (code hidden), a nav
    build/report/index.html, index.html  the report's index: ledger summary, misses, links (vcperf.report)
    build/scenarios/<name>/              what-if scenarios (``-p``/``--params`` with ``--scenario``)

Safety: everything is written into a staging folder beside the target (a copy of the previous
output, so ``--only`` keeps the other notebooks' results); only when every notebook succeeded is the
staging folder swapped in. On failure the target is untouched, the failing executed notebook is
kept in ``<target>-failed/`` and the notebook and cell are named.

Hardening:

* Paths: a scenario is a plain name (:data:`SCENARIO_NAME`); ``output_dir`` is set by regenerate,
  never by the user; a target that is a filesystem root, the checkout, the home or current folder
  (or one of their parents), or an existing folder that does not look like a build is refused.
* One run per build root at a time: an exclusive ``flock`` on ``.<root>.lock`` beside it (a
  scenario under ``build/`` locks ``build/``, whose staging copy would otherwise race with it).
* SIGINT/SIGTERM: queued notebooks are cancelled, the pool workers and their kernels are killed
  (all processes under them), the staging folder is removed and the target left as it was
  (:class:`Interrupted`; ``vcperf regenerate`` prints one line and exits 130 or 143).
* Determinism: executed notebooks are normalised in the worker (no papermill timings, no
  per-cell execution timestamps, cell ids ``cell-NN``, the absolute staging path replaced by the
  path of the build relative to the notebook, ``..``), so two runs give a byte-identical build.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from vcperf import params as nbparams

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
BUILD = ROOT / "build"
KERNEL = "python3"
CELL_TIMEOUT_S = 600
KERNEL_START_RETRIES = 2
#: A scenario is a plain folder name under ``build/scenarios/`` (no separators, not ``.``/``..``).
SCENARIO_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
#: Parameters regenerate sets itself (they decide where files are written).
RESERVED_PARAMETERS = ("output_dir",)
#: What a build folder may hold; an existing target with anything else is not replaced.
BUILD_ENTRIES = {"notebooks", "figures", "tables", "scenarios", "bench", "report", "app", "screenshots",
                 "fidelity.csv", "index.html", "scenario.json"}
#: In the executed notebooks, the build folder as seen from ``<build>/notebooks/<nb>.ipynb``.
BUILD_FROM_NOTEBOOK = ".."
#: Seconds given to killed workers and kernels to disappear.
KILL_WAIT_S = 5.0


@dataclass(frozen=True)
class Failure:
    notebook: str
    cell: int | None
    message: str
    kept: Path | None


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM stopped a run: workers killed, staging removed, target left as it was.

    ``committed`` is True when the signal came while the new build was being swapped in (the
    swap is finished first, so the target holds the complete new build).
    """

    def __init__(self, signum: int, target: Path | None = None, committed: bool = False):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.target = target
        self.committed = committed

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


class BuildLocked(RuntimeError):
    """Another ``vcperf regenerate`` holds the lock of this build root."""


def notebooks() -> dict[str, Path]:
    """Notebook name -> path of its source, for every notebook in ``notebooks/``.

    The source of a notebook is its jupytext percent file ``notebooks/<name>.py``; regeneration
    builds the ``.ipynb`` from it (:func:`vcperf.params.read_notebook`), so what a user edits is what runs.
    """
    return {p.stem: p for p in sorted(NOTEBOOK_DIR.glob("*.py"))}


# --------------------------------------------------------------------------------------------
# Paths
# --------------------------------------------------------------------------------------------


def check_scenario(name: str) -> str:
    """``name`` if it is a plain scenario name, else ValueError."""
    if not isinstance(name, str) or not SCENARIO_NAME.fullmatch(name):
        raise ValueError(f"--scenario must be a plain name (letters, digits, '_', '.', '-'; up to 64 characters, "
                         f"starting with a letter or digit); got {name!r}")
    return name


def check_target(target: Path) -> Path:
    """The resolved ``target``, or ValueError if replacing it could destroy anything but a build.

    Refused: a filesystem root; the checkout, its ``notebooks/`` or ``vcperf/`` folder, the home
    folder, or a parent of any of these; an existing non-folder; an existing folder holding
    anything a build does not (see :data:`BUILD_ENTRIES`; dot files are allowed).
    """
    raw = target
    target = Path(target).expanduser().resolve()
    if target.parent == target:
        raise ValueError(f"--output must not be a filesystem root; got {str(raw)!r}")
    protected = {ROOT, NOTEBOOK_DIR.resolve(), ROOT / "vcperf", Path.home().resolve()}
    for p in protected:
        if target == p or target in p.parents:
            raise ValueError(f"--output {str(raw)!r} is (or contains) {p}: refusing to replace it; "
                             "give a build folder such as build/")
    if target.exists() and not target.is_dir():
        raise ValueError(f"--output {str(raw)!r} exists and is not a folder")
    build = BUILD.resolve()
    if target.is_dir() and not (target == build or build in target.parents):
        foreign = sorted(p.name for p in target.iterdir() if p.name not in BUILD_ENTRIES and not p.name.startswith("."))
        if foreign:
            shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
            raise ValueError(f"--output {target} is not a vcperf build (it holds {shown}): refusing to replace it; "
                             "give an empty or new folder, or a previous build")
    return target


def _lock_root(target: Path) -> Path:
    """The build root whose lock covers ``target``: the build holding a scenario, else the target.

    A scenario ``<build>/scenarios/<name>`` shares the lock of ``<build>``, whose staging copy
    includes it.
    """
    build = BUILD.resolve()
    if build in target.parents:
        return build
    return target.parent.parent if target.parent.name == "scenarios" else target


@contextlib.contextmanager
def _build_lock(root: Path):
    """Hold an exclusive lock on ``.<root>.lock`` beside ``root``, or raise :class:`BuildLocked`."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        yield None
        return
    path = root.with_name(f".{root.name}.lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BuildLocked(f"another vcperf regenerate is writing {root} (lock {path}); "
                              "wait for it to finish") from None
        try:
            yield path
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)  # also for forked workers that share the descriptor
    finally:
        os.close(fd)


# --------------------------------------------------------------------------------------------
# Signals and processes
# --------------------------------------------------------------------------------------------


class _Signals:
    """SIGINT/SIGTERM raise :class:`Interrupted` in the main thread, or are held back (``defer``)."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        self.deferred = False
        self.pending: int | None = None
        self._old: dict = {}

    def _handler(self, signum, frame):
        if self.deferred:
            self.pending = self.pending or signum
            return
        self.deferred = True  # a second signal must not interrupt the clean-up
        raise Interrupted(signum)

    def defer(self) -> None:
        self.deferred = True

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self._old = {s: signal.signal(s, self._handler) for s in self.SIGNALS}
        return self

    def __exit__(self, *exc):
        for s, h in self._old.items():
            signal.signal(s, h)
        return False


def _worker_init() -> None:
    """Pool worker set-up: its own process group (a terminal's Ctrl-C goes to the main process only,
    which stops the workers itself) and default signal handling."""
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process (Linux /proc, else psutil, else nothing)."""
    out = {}
    proc = Path("/proc")
    if proc.is_dir():
        for d in proc.iterdir():
            if d.name.isdigit():
                try:
                    stat = (d / "stat").read_text()
                except OSError:
                    continue
                out[int(d.name)] = int(stat[stat.rindex(")") + 2:].split()[1])
        return out
    try:
        import psutil
    except ImportError:
        return out
    for p in psutil.process_iter(["ppid"]):
        out[p.pid] = p.info["ppid"]
    return out


def _kernel_connection_file(pid: int) -> Path | None:
    """The ``-f kernel-*.json`` connection file of a kernel process (left behind when it is killed)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    for flag, value in zip(argv, argv[1:], strict=False):
        if flag == b"-f" and value.endswith(b".json") and b"kernel-" in value:
            return Path(os.fsdecode(value))
    return None


def kill_tree(roots: list[int], wait_s: float = KILL_WAIT_S) -> list[int]:
    """Stop ``roots`` and every process under them, then kill them all; return the pids killed.

    Each generation is stopped (SIGSTOP) before its children are listed, so no process can start
    a new one between the listing and the kill; kernels live in their own session, so they are
    found by parent pid, not by process group.
    """
    found: list[int] = []
    frontier = [p for p in roots if p and p != os.getpid()]
    for _ in range(32):  # generations
        for pid in frontier:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGSTOP)
        found += frontier
        known = set(found)
        frontier = [pid for pid, ppid in _parents().items() if ppid in known and pid not in known]
        if not frontier:
            break
    files = [f for f in map(_kernel_connection_file, found) if f is not None]
    for pid in found:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + wait_s
    for pid in found:  # dead = gone or a zombie (multiprocessing reaps its workers, init the kernels)
        while time.monotonic() < deadline and not _dead(pid):
            time.sleep(0.02)
    for f in files:
        with contextlib.suppress(OSError):
            f.unlink()
    return found


def _dead(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        if Path("/proc").is_dir():
            return True
        try:
            os.kill(pid, 0)
        except OSError:
            return True
        return False
    return stat[stat.rindex(")") + 2] in "ZX"


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel queued work and kill the pool's workers and everything they started."""
    workers = list(getattr(pool, "_processes", None) or {})
    pool.shutdown(wait=False, cancel_futures=True)
    kill_tree(workers)
    with contextlib.suppress(Exception):
        pool.shutdown(wait=True)  # the manager thread notices the dead workers and ends


# --------------------------------------------------------------------------------------------
# One notebook (in a worker)
# --------------------------------------------------------------------------------------------


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


def _execute(name: str, src: str, out_dir: str, overrides: dict) -> Failure | None:
    """Run one notebook (in a worker process). Returns None on success."""
    import papermill as pm
    from papermill.exceptions import PapermillExecutionError

    out_dir = Path(out_dir)
    executed = out_dir / "notebooks" / f"{name}.ipynb"
    parameters = {"interactive": False, **overrides, "output_dir": str(out_dir.resolve())}
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


# --------------------------------------------------------------------------------------------
# A run
# --------------------------------------------------------------------------------------------


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
        Output folder (``build/`` or a scenario folder); see :func:`check_target`.
    only : list of str, optional
        Notebook names to run (default: all).
    overrides : dict, optional
        Parameter overrides, validated against each selected notebook before anything runs
        (``output_dir`` is set by regenerate and cannot be overridden).
    jobs : int
        Notebooks executed in parallel (>= 1), each in a worker process.
    progress : bool, optional
        Show a progress bar; default: only on a terminal and not under CI.

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
    Interrupted
        SIGINT/SIGTERM (in the main thread): workers and kernels killed, staging removed, target as it was.
    """
    from vcperf import _validate as v

    jobs = v.integer("jobs", jobs, lo=1, hi=64)
    available = notebooks()
    selected = only or list(available)
    for name in selected:
        if name not in available:
            raise ValueError(f"--only must name notebooks in notebooks/ ({', '.join(available)}); got {name!r}")
    overrides = overrides or {}
    for key in RESERVED_PARAMETERS:
        if key in overrides:
            raise ValueError(f"parameter {key} is set by vcperf regenerate (the build folder); it cannot be "
                             "overridden: choose the folder with --output or --scenario")
    selected, checked = route_overrides(available, selected, overrides, explicit=bool(only))
    target = check_target(Path(target))

    if progress is None:
        progress = sys.stderr.isatty() and not os.environ.get("CI")
    with _build_lock(_lock_root(target)), _Signals() as signals:
        return _run_locked(target, selected, available, checked, jobs, progress, not overrides, signals)


#: Notebooks skipped by the last :func:`run` because they declare none of the overrides (for the CLI).
SKIPPED: list[str] = []


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
        raise ValueError(f"no notebook declares the parameter(s) {unknown}; see `vcperf params NOTEBOOK`")
    run_names, checked = [], {}
    for name in selected:
        mine = {k: val for k, val in overrides.items() if k in declared[name]}
        if not mine:
            SKIPPED.append(name)
            continue
        run_names.append(name)
        checked[name] = nbparams.check_overrides(available[name], mine)
    return run_names, checked


def _run_locked(target, selected, available, checked, jobs, progress, default_scenario, signals) -> list[Failure]:
    from tqdm import tqdm

    staging = target.with_name(f".{target.name}.staging")
    failed_dir = target.with_name(f"{target.name}-failed")
    pool = None
    bar = None
    try:
        shutil.rmtree(staging, ignore_errors=True)
        if target.exists():
            shutil.copytree(target, staging, symlinks=True)
        else:
            staging.mkdir(parents=True)
        for name in selected:  # stale outputs of a re-run notebook must not survive it
            for kind in ("figures", "tables"):
                shutil.rmtree(staging / kind / name, ignore_errors=True)
        (staging / "notebooks").mkdir(exist_ok=True)
        # The fidelity table and report describe the default scenario only.
        (staging / "fidelity.csv").unlink(missing_ok=True)

        failures: list[Failure] = []
        bar = tqdm(total=len(selected), desc="notebooks", unit="nb", disable=not progress)
        pool = ProcessPoolExecutor(max_workers=jobs, initializer=_worker_init)
        # The fidelity table runs beside the notebooks (it recalibrates every model: seconds).
        fid = pool.submit(_write_fidelity, str(staging)) if default_scenario else None
        futures = {pool.submit(_execute, n, str(available[n]), str(staging), checked[n]): n for n in selected}
        t0 = time.perf_counter()
        for done, fut in enumerate(as_completed(futures), start=1):
            f = fut.result()
            failures += [f] if f else []
            bar.set_postfix_str(futures[fut])
            bar.update()
            if not progress:  # one line per finished notebook where there is no bar (a pipe, CI)
                status = "failed" if f else "done"
                print(f"vcperf regenerate: [{done}/{len(futures)}] {futures[fut]} {status} "
                      f"({time.perf_counter() - t0:.1f} s)", file=sys.stderr, flush=True)
        if fid is not None:
            failures += _fidelity_failure(fid.result)
        pool.shutdown(wait=True)
        pool = None
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
        else:  # a scenario remembers what it changed, for build/scenarios/index.html
            import json

            params = {name: checked[name] for name in selected}
            (staging / "scenario.json").write_text(json.dumps(params, indent=1, sort_keys=True) + "\n")
    except BaseException as err:
        signals.defer()
        if bar is not None:
            bar.close()
        if pool is not None:
            _stop_pool(pool)
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(err, Interrupted):
            err.target = target
        raise

    signals.defer()  # the swap is not interrupted half way
    old = target.with_name(f".{target.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    staging.rename(target)
    shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(failed_dir, ignore_errors=True)
    if not default_scenario and target.parent.name == "scenarios":
        write_scenario_index(target.parent)
    if signals.pending is not None:
        raise Interrupted(signals.pending, target, committed=True)
    return []


def write_scenario_index(folder: Path) -> Path:
    """``<folder>/index.html``: every scenario under ``folder`` with the parameters it changed."""
    import html
    import json

    rows = []
    for scen in sorted(p for p in Path(folder).iterdir() if p.is_dir() and (p / "scenario.json").exists()):
        params = json.loads((scen / "scenario.json").read_text())
        changed = "<br>".join(
            f"<b>{html.escape(nb)}</b>: " + ", ".join(f"{html.escape(k)} = {html.escape(repr(val))}"
                                                      for k, val in ps.items())
            for nb, ps in params.items())
        figs = "".join(f"<li><a href='{html.escape(f.relative_to(folder).as_posix())}'>{html.escape(f.stem)}</a></li>"
                       for f in sorted((scen / "figures").rglob("*.png")))
        rows.append(f"<tr><td>{html.escape(scen.name)}</td><td>{changed}</td><td><ul>{figs}</ul></td></tr>")
    page = ("<!doctype html><html><head><meta charset='utf-8'><title>vcperf scenarios</title><style>"
            "body{font-family:sans-serif;max-width:1100px;margin:2em auto}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top}</style></head><body>"
            "<h1>What-if scenarios</h1><p>Each scenario is a regeneration with changed notebook parameters "
            "(<code>vcperf regenerate -p KEY=VALUE --scenario NAME</code>).</p><table><tr><th>scenario</th>"
            "<th>parameters changed</th><th>figures</th></tr>" + "".join(rows) + "</table></body></html>\n")
    out = Path(folder) / "index.html"
    out.write_text(page, encoding="utf-8")
    return out


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def load_params_file(path: str) -> dict:
    """The mapping of parameter overrides in a YAML file; ValueError naming the file otherwise."""
    import yaml

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise ValueError(f"--params file {path!r} cannot be read: {reason}") from None
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise ValueError(f"--params file {path!r} is not valid YAML: {' '.join(str(err).split())}") from None
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
    if overrides and output.resolve() == BUILD.resolve():
        return check_target(BUILD / "scenarios" / "whatif")
    return check_target(output)


def main(args) -> int:
    """Entry point of ``vcperf regenerate`` (arguments parsed by :mod:`vcperf.cli`)."""
    overrides = {}
    if args.params:
        overrides.update(load_params_file(args.params))
    for item in args.p or []:
        key, value = nbparams.parse_assignment(item)
        overrides[key] = value
    for key in RESERVED_PARAMETERS:
        if key in overrides:
            raise ValueError(f"parameter {key} is set by vcperf regenerate (the build folder); it cannot be "
                             "overridden: choose the folder with --output or --scenario")
    target = target_of(args, overrides)
    start = time.perf_counter()
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
            print(f"vcperf regenerate: notebook {f.notebook} failed at {cell}: {f.message}", file=sys.stderr)
            if f.kept:
                print(f"  executed notebook kept for inspection: {f.kept}", file=sys.stderr)
        print(f"vcperf regenerate: {target} left as it was", file=sys.stderr)
        return 1
    print(f"vcperf regenerate: wrote {target} in {time.perf_counter() - start:.1f} s")
    return 0
