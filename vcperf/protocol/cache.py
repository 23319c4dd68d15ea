"""The calibration cache: default calibrations, refits and their uncertainty computed once per
process and once per source digest on disk, so every notebook kernel and ``vcperf fidelity`` share
one fit.

Processes that need the same result at the same time (the kernels of a parallel regeneration and
its fidelity table) compute it once: the first takes a lock on the result's file
(:func:`_disk_lock`), the others wait for it and read what it wrote.

The cache folder is writable by anyone who can write the user's files, so a file in it is untrusted
until proven ours: each entry is a pickle signed with HMAC-SHA256 under a random key of this
installation (``.key`` in the folder, created 0600; a new or the default folder 0700, entries 0600), and a pickle is
unpickled only after its signature verifies. A calibration read back is rebuilt through its
parameter dataclasses' constructors, so it passes the checks a fitted one passes. An entry that fails
either (forged, truncated, from another installation) is ignored with a ``RuntimeWarning`` and
recomputed. The choice over a data format (JSON/NPZ): the cache holds calibrations, but also frames,
arrays and uncertainty objects of several types; signing covers them all with one rule.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import hmac
import os
import pickle
import secrets
import stat
import warnings
from pathlib import Path
from typing import NamedTuple

try:
    import fcntl
except ImportError:  # Windows: no cross-process lock; a result may then be computed twice
    fcntl = None

from vcperf import data
from vcperf.protocol.targets import STUDY_MODULES, study_module

#: (study, what) -> cached result. Calibrations and refits are deterministic, so a process computes
#: each once; :func:`clear_caches` forgets them.
MEMORY_CACHE: dict = {}


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
    return _default_dir()


def _default_dir() -> Path:
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


#: The first bytes of a cache entry (format and version); the HMAC-SHA256 of the entry follows.
MAGIC = b"vcperf-cache-hmac-sha256-1\n"
#: The installation's signing key, in the cache folder (32 random bytes, mode 0600).
KEY_FILE = ".key"
#: Largest cache entry read, in bytes.
MAX_ENTRY_BYTES = 1 << 29
_KEYS: dict = {}
_OPEN_FLAGS = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


def _report(path, reason: str) -> None:
    warnings.warn(f"vcperf: ignored the cache file {path}: {reason}; recomputing it", RuntimeWarning,
                  stacklevel=4)


def _ours(info) -> bool:
    return not hasattr(os, "getuid") or info.st_uid == os.getuid()


def _private_folder(folder: Path) -> bool:
    """Create ``folder`` 0700 (the default ``.../vcperf`` folder made 0700 if it is not); False when another
    user owns it. A folder the user named (``$VCPERF_CACHE_DIR``) keeps its permissions: the entries are
    signed and the key is 0600 whatever the folder's."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = folder.stat()
    if not _ours(info):
        return False
    if stat.S_IMODE(info.st_mode) & 0o077 and folder == _default_dir():
        folder.chmod(0o700)
    return True


def _key(folder: Path):
    """The signing key of the cache in ``folder`` (created on first use), or None: no disk cache then."""
    if folder in _KEYS:
        return _KEYS[folder]
    key = None
    try:
        if _private_folder(folder):
            path = folder / KEY_FILE
            if not path.exists():
                tmp = folder / f"{KEY_FILE}.{os.getpid()}.tmp"
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
                try:
                    os.fchmod(fd, 0o600)
                    os.write(fd, secrets.token_bytes(32))
                finally:
                    os.close(fd)
                try:
                    os.link(tmp, path)  # atomic and never over another process's key
                except FileExistsError:
                    pass
                finally:
                    tmp.unlink()
            fd = os.open(path, os.O_RDONLY | _OPEN_FLAGS)
            try:
                info = os.fstat(fd)
                if stat.S_ISREG(info.st_mode) and _ours(info) and not stat.S_IMODE(info.st_mode) & 0o077:
                    key = os.read(fd, 64)
            finally:
                os.close(fd)
            if key is None or len(key) != 32:
                key = None
                warnings.warn(f"vcperf: the cache key {path} is not a private 32-byte file of this user: the "
                              f"disk cache is not used", RuntimeWarning, stacklevel=4)
        else:
            warnings.warn(f"vcperf: the cache folder {folder} belongs to another user: the disk cache is not "
                          f"used", RuntimeWarning, stacklevel=4)
    except OSError:
        key = None  # a read-only or missing home: the in-process cache still holds
    _KEYS[folder] = key
    return key


def _signature(key: bytes, path: Path, payload: bytes) -> bytes:
    return hmac.new(key, path.name.encode() + b"\0" + payload, hashlib.sha256).digest()


def _read(path):
    """The value of a cache entry whose signature verifies; ``_MISSING`` (reported when present but not
    ours) otherwise."""
    if path is None or not path.exists():
        return _MISSING
    key = _key(path.parent)
    if key is None:
        return _MISSING
    try:
        fd = os.open(path, os.O_RDONLY | _OPEN_FLAGS)
    except FileNotFoundError:
        return _MISSING
    except OSError as err:
        _report(path, err.strerror or str(err))
        return _MISSING
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ENTRY_BYTES:
            _report(path, "not a regular file of at most MAX_ENTRY_BYTES bytes")
            return _MISSING
        with os.fdopen(os.dup(fd), "rb") as f:
            blob = f.read(MAX_ENTRY_BYTES + 1)
    finally:
        os.close(fd)
    head = len(MAGIC) + 32
    if (len(blob) < head or not blob.startswith(MAGIC)
            or not hmac.compare_digest(blob[len(MAGIC):head], _signature(key, path, blob[head:]))):
        _report(path, "its signature does not verify (forged, truncated or written by another installation)")
        return _MISSING
    try:
        return pickle.loads(blob[head:])  # noqa: S301 - signed by this installation's key
    except Exception as err:  # noqa: BLE001 - e.g. a class renamed since: recomputed and replaced
        _report(path, f"it cannot be unpickled ({type(err).__name__})")
        return _MISSING


def _rebuilt(value):
    """``value`` with every dataclass in it constructed again (its ``__post_init__`` checks run)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return type(value)(**{f.name: _rebuilt(getattr(value, f.name)) for f in dataclasses.fields(value)
                              if f.init})
    return value


def _checked(module, what: str, value, path):
    """A calibration read from disk passes the checks of a fitted one: a ``module.Params`` built again
    through its constructors; anything else is ``_MISSING`` (reported)."""
    if value is _MISSING or not (what == "calibrate" or what.startswith("refit-")):
        return value
    params_type = getattr(module, "Params", None)
    if params_type is not None and not isinstance(value, params_type):
        _report(path, f"it holds a {type(value).__name__}, not a {params_type.__name__}")
        return _MISSING
    try:
        return _rebuilt(value)
    except (TypeError, ValueError) as err:
        _report(path, f"its parameters fail their checks ({' '.join(str(err).split())[:200]})")
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
            _private_folder(path.parent)
            handle = os.fdopen(os.open(path.with_suffix(".lock"), os.O_WRONLY | os.O_CREAT | os.O_APPEND
                                       | getattr(os, "O_NOFOLLOW", 0), 0o600), "a")
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


def cached_result(module, what: str, compute):
    """``compute()`` once per process, and once per source digest on disk (a signed pickle, written
    atomically, 0600).

    A process that finds the file missing takes its lock and looks again: another process computing
    the same result writes it before it lets go, so it is computed once however many processes ask.
    """
    key = (module.STUDY, what)
    if key in MEMORY_CACHE:
        return MEMORY_CACHE[key]
    path = _disk_path(module, what)
    value = _checked(module, what, _read(path), path)
    if value is _MISSING:
        with _disk_lock(path):
            value = _checked(module, what, _read(path), path)
            if value is _MISSING:
                value = compute()
                _write(path, value)
    MEMORY_CACHE[key] = value
    return value


def _write(path, value) -> None:
    """Store ``value`` at ``path``: MAGIC, its HMAC under the installation's key, the pickle (0600)."""
    if path is None:
        return
    try:
        key = _key(path.parent)
        if key is None:
            return
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o600)
            f.write(MAGIC + _signature(key, path, payload) + payload)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home: the in-process cache still holds


def calibrated_module(module):
    """``module.calibrate()`` (a study's subpackage) through :func:`cached_result`: once per process and per
    source digest on disk."""
    return cached_result(module, "calibrate", module.calibrate)


class _Study(NamedTuple):
    """What the cache reads of a study: its name and its ``Params`` type (a calibration read back must be one)."""

    STUDY: str
    Params: type


def cached_calibration(study: str, fit_on, fit, keys: tuple, params_type: type | None = None):
    """``fit(keys)``, a study's calibration on the resolved ``keys``, once per process and once per
    source digest on disk (:func:`cache_dir`), so every kernel of a regeneration and every notebook
    reads it instead of refitting (the vMotion fit takes seconds). The default one (``fit_on`` None) is
    stored as ``calibrate``; a refit on other keys (a notebook's leave-one-out, the ledger's loo rows)
    under ``refit-<digest of the keys>``. Each study's ``calibrate`` ends with this, naming its
    ``params_type`` (its ``Params``: then the study is not looked up in the registry)."""
    if study not in STUDY_MODULES:
        raise ValueError(f"study must be one of {list(STUDY_MODULES)}; got {study!r}")
    holder = study_module(study) if params_type is None else _Study(study, params_type)
    if fit_on is None:
        return cached_result(holder, "calibrate", lambda: fit(keys))
    digest = hashlib.sha256(repr(tuple(keys)).encode()).hexdigest()[:16]
    return cached_result(holder, f"refit-{digest}", lambda: fit(keys))


def calibrated(study: str):
    """The default calibration of ``study`` (cached): what model functions use when ``params=None``.

    Model files call this instead of importing their study's calibration, so that they never read
    ``data/`` themselves.
    """
    return calibrated_module(study_module(study))


def clear_caches() -> None:
    """Forget the in-process cached calibrations, refits and identifiability (the disk cache is keyed by
    :func:`source_digest`, so an edited file is never served stale)."""
    MEMORY_CACHE.clear()
    _KEYS.clear()
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
