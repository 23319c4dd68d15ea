"""One ``vcperf regenerate`` per build root at a time: an exclusive lock beside the build.

The lock is an exclusive ``flock`` on ``.<root>.lock`` beside the build root (a scenario under
``build/`` locks ``build/``, whose staging copy would otherwise race with it). An OS lock: the kernel
releases it when the last descriptor of its owner closes, so a killed run never holds it. Pool
workers inherit the descriptor when they are forked and close it at once
(:func:`vcperf.regenerate.processes.worker_init`), so only the main process holds the lock. The lock
file is opened without following a symbolic link.
"""

from __future__ import annotations

import contextlib
import errno
import os
from dataclasses import dataclass
from pathlib import Path

from vcperf.regenerate.paths import UnsafePath

try:
    import fcntl
except ImportError:  # not POSIX: no lock
    fcntl = None


class BuildLocked(RuntimeError):
    """Another ``vcperf regenerate`` holds the lock of this build root."""


@dataclass(frozen=True)
class HeldLock:
    """The lock file and the descriptor holding its lock (None where there is no ``flock``)."""

    path: Path
    fd: int | None


def lock_path(root: Path) -> Path:
    """The lock file of build root ``root``: ``.<root>.lock`` beside it."""
    return root.with_name(f".{root.name}.lock")


@contextlib.contextmanager
def build_lock(root: Path):
    """Hold an exclusive lock on ``.<root>.lock`` beside ``root`` (yields a :class:`HeldLock`).

    Raises :class:`BuildLocked` if another run holds it, :class:`~vcperf.regenerate.paths.UnsafePath`
    if the lock file is a symbolic link.
    """
    path = lock_path(root)
    if fcntl is None:
        yield HeldLock(path, None)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise UnsafePath(f"the lock file {path} is a symbolic link (to {os.readlink(path)}): refusing to "
                             "follow it; remove the link") from None
        raise
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BuildLocked(f"another vcperf regenerate is writing {root} (lock {path}); "
                              "wait for it to finish") from None
        try:
            yield HeldLock(path, fd)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)  # also for forked workers that share the descriptor
    finally:
        os.close(fd)
