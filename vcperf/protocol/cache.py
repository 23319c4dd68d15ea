"""The calibration cache: default calibrations, refits and their uncertainty computed once per
process and once per source digest on disk, so every notebook kernel and ``vcperf fidelity`` share
one fit.

Processes that need the same result at the same time (the kernels of a parallel regeneration and
its fidelity table) compute it once: the first takes a lock on the result's file
(:func:`_disk_lock`), the others wait for it and read what it wrote.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no cross-process lock; a result may then be computed twice
    fcntl = None

from vcperf import data
from vcperf.protocol.targets import STUDY_MODULES, study_module

#: (study, what) -> cached result. Calibrations and refits are deterministic, so a process computes
#: each once; :func:`clear_caches` forgets them.
_CACHE: dict = {}


@functools.cache
def source_digest() -> str:
    """SHA-256 of every vcperf source file and every data table: the key of the disk cache.

    Any edit to a model, a calibration or a data file changes it, so a stale result is never read.
    """
    h = hashlib.sha256()
    pkg = Path(__file__).resolve().parent.parent  # the vcperf package
    files = sorted(pkg.rglob("*.py")) + sorted(Path(data.DATA_DIR).rglob("*.csv")) + sorted(
        Path(data.DATA_DIR).rglob("*.json"))
    for path in files:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def cache_dir():
    """Folder of the disk cache of calibrations and leave-one-out refits, or None when disabled.

    ``$VCPERF_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/vcperf`` (``~/.cache/vcperf``). Setting
    ``VCPERF_NO_CACHE=1`` (or ``vcperf fidelity --no-cache``) recomputes everything. Every kernel of a
    regeneration and every ``vcperf fidelity`` share it, so the same fits are not redone.
    """
    if os.environ.get("VCPERF_NO_CACHE", "") not in ("", "0"):
        return None
    if os.environ.get("VCPERF_CACHE_DIR"):
        return Path(os.environ["VCPERF_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "vcperf"


def _disk_path(module, what: str):
    folder = cache_dir()
    if folder is None or module.STUDY not in STUDY_MODULES:
        return None
    return folder / f"{module.STUDY}-{what}-{source_digest()[:20]}.pickle"


#: A missing or unreadable disk entry.
_MISSING = object()
#: Lock files this process holds (a result computed inside its own computation, e.g. ``calibrate``
#: through :func:`calibrated`, must not wait for itself: ``flock`` locks are per open file).
_HELD: set = set()


def _read(path):
    if path is None or not path.exists():
        return _MISSING
    try:
        return pickle.loads(path.read_bytes())  # our own cache, keyed by the source digest
    except Exception:  # noqa: BLE001 - a corrupt or foreign file is recomputed and replaced
        return _MISSING


@contextlib.contextmanager
def _disk_lock(path):
    """Hold an exclusive lock on ``<path>.lock`` (or nothing where the folder cannot hold one).

    A computation nested in another takes a lower-level result's lock (a leave-one-out table takes its
    refits' and the calibration's, never the reverse), so two processes never wait for each other.
    """
    handle = None
    if path is not None and fcntl is not None and path not in _HELD:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle = open(path.with_suffix(".lock"), "a")  # noqa: SIM115 - closed below
            fcntl.flock(handle, fcntl.LOCK_EX)
        except OSError:
            if handle is not None:
                handle.close()
            handle = None
    if handle is not None:
        _HELD.add(path)
    try:
        yield
    finally:
        if handle is not None:
            _HELD.discard(path)
            handle.close()  # releases the lock


def _cached(module, what: str, compute):
    """``compute()`` once per process, and once per source digest on disk (pickled, written atomically).

    A process that finds the file missing takes its lock and looks again: another process computing
    the same result writes it before it lets go, so it is computed once however many processes ask.
    """
    key = (module.STUDY, what)
    if key in _CACHE:
        return _CACHE[key]
    path = _disk_path(module, what)
    value = _read(path)
    if value is _MISSING:
        with _disk_lock(path):
            value = _read(path)
            if value is _MISSING:
                value = compute()
                _write(path, value)
    _CACHE[key] = value
    return value


def _write(path, value) -> None:
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home: the in-process cache still holds


def _calibrated(module):
    return _cached(module, "calibrate", module.calibrate)


def cached_calibration(study: str, fit_on, fit, keys: tuple):
    """``fit(keys)``, a study's calibration on the resolved ``keys``, once per process and once per
    source digest on disk (:func:`cache_dir`), so every kernel of a regeneration and every notebook
    reads it instead of refitting (the vMotion fit takes seconds). The default one (``fit_on`` None) is
    stored as ``calibrate``; a refit on other keys (a notebook's leave-one-out, the ledger's loo rows)
    under ``refit-<digest of the keys>``. Each study's ``calibrate`` ends with this."""
    if fit_on is None:
        return _cached(study_module(study), "calibrate", lambda: fit(keys))
    digest = hashlib.sha256(repr(tuple(keys)).encode()).hexdigest()[:16]
    return _cached(study_module(study), f"refit-{digest}", lambda: fit(keys))


def calibrated(study: str):
    """The default calibration of ``study`` (cached): what model functions use when ``params=None``.

    Model files call this instead of importing their study's calibration, so that they never read
    ``data/`` themselves.
    """
    return _calibrated(study_module(study))


def clear_caches() -> None:
    """Forget the in-process cached calibrations, refits and identifiability (the disk cache is keyed by
    :func:`source_digest`, so an edited file is never served stale)."""
    _CACHE.clear()
    getattr(source_digest, "cache_clear", lambda: None)()


def on_disk(study: str, what: str = "calibrate") -> bool:
    """Whether the disk cache holds ``study``'s ``what`` (default: its calibration) for the current sources.

    Only looks for the file (nothing is read or computed): ``vcperf regenerate`` says with it, before any
    work, whether the calibrations are to be computed first.

    Examples
    --------
    >>> isinstance(on_disk("robo2019"), bool)
    True
    """
    path = _disk_path(study_module(study), what)
    return path is not None and path.exists()
