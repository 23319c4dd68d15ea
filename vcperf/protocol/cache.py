"""The calibration cache: default calibrations, refits and their uncertainty computed once per
process and once per source digest on disk, so every notebook kernel and ``vcperf fidelity`` share
one fit."""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
from pathlib import Path

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


def _cached(module, what: str, compute):
    """``compute()`` once per process, and once per source digest on disk (pickled, written atomically)."""
    key = (module.STUDY, what)
    if key in _CACHE:
        return _CACHE[key]
    path = _disk_path(module, what)
    if path is not None and path.exists():
        try:
            _CACHE[key] = pickle.loads(path.read_bytes())  # our own cache, keyed by the source digest
            return _CACHE[key]
        except Exception:  # noqa: BLE001 - a corrupt or foreign file is recomputed and replaced
            pass
    _CACHE[key] = value = compute()
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only home: the in-process cache still holds
    return value


def _calibrated(module):
    return _cached(module, "calibrate", module.calibrate)


def cached_calibration(study: str, fit_on, fit, keys: tuple):
    """``fit(keys)``, a study's calibration on the resolved ``keys``; the default one (``fit_on`` None)
    once per process and once per source digest on disk (:func:`cache_dir`), so every kernel of a
    regeneration and every notebook reads it instead of refitting (the vMotion fit takes seconds).
    Each study's ``calibrate`` ends with this."""
    if fit_on is not None:
        return fit(keys)
    return _cached(study_module(study), "calibrate", lambda: fit(keys))


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
