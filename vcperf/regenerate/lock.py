"""One ``vcperf regenerate`` per build root at a time: an exclusive lock beside the build.

The lock is an exclusive ``flock`` on ``.<root>.lock`` beside the build root (a scenario under
``build/`` locks ``build/``, whose staging copy would otherwise race with it).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: no lock
    fcntl = None


class BuildLocked(RuntimeError):
    """Another ``vcperf regenerate`` holds the lock of this build root."""


def lock_path(root: Path) -> Path:
    """The lock file of build root ``root``: ``.<root>.lock`` beside it."""
    return root.with_name(f".{root.name}.lock")


@contextlib.contextmanager
def build_lock(root: Path):
    """Hold an exclusive lock on ``.<root>.lock`` beside ``root``, or raise :class:`BuildLocked`."""
    if fcntl is None:
        yield None
        return
    path = lock_path(root)
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
