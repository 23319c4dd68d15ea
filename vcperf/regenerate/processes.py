"""Signals and processes of a regeneration: SIGINT/SIGTERM/SIGHUP handling, pool workers, killing process trees.

SIGINT/SIGTERM/SIGHUP raise :class:`Interrupted` in the main thread (or are held back while the new
build is swapped in); the pool workers and their kernels are then killed with everything under them
(:func:`kill_tree`), so no process of an interrupted run survives it.

A run killed outright (SIGKILL, or a crash) cannot clean up, so every worker dies with it
(:func:`worker_init`: ``PR_SET_PDEATHSIG`` on Linux, a watcher thread elsewhere), and every kernel
with its worker (ipykernel exits when its parent process changes). What they leave (the staging
folder, the kernels' connection files in the run's own folder) is removed by the next run.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

#: Seconds given to killed workers and kernels to disappear.
KILL_WAIT_S = 5.0
#: ``prctl`` option: the signal a process gets when its parent dies (linux/prctl.h).
PR_SET_PDEATHSIG = 1
#: Seconds between two looks at the parent, where there is no ``PR_SET_PDEATHSIG``.
PARENT_POLL_S = 0.5


class Interrupted(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP stopped a run: workers killed, staging removed, target left as it was.

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


class Signals:
    """SIGINT/SIGTERM/SIGHUP raise :class:`Interrupted` in the main thread, or are held back (``defer``)."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM, *((signal.SIGHUP,) if hasattr(signal, "SIGHUP") else ()))

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


def worker_init(parent: int, close_fds: tuple[int, ...] = (), scratch: str | None = None) -> None:
    """Pool worker set-up.

    Parameters
    ----------
    parent : int
        Pid of the main process: the worker dies with it (:func:`die_with_parent`).
    close_fds : tuple of int
        Descriptors inherited from the main process that the worker must not keep (the build lock:
        only the main process holds it, so it ends with the main process).
    scratch : str, optional
        Folder for the worker's temporary files (the kernels' connection files), removed by the
        run, or by the next one after a kill.

    The worker gets its own process group (a terminal's Ctrl-C goes to the main process only, which
    stops the workers itself) and default signal handling.
    """
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    die_with_parent(parent)
    for fd in close_fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    if scratch is not None:
        tempfile.tempdir = scratch  # jupyter_client writes a kernel's connection file with mkstemp
    for s in Signals.SIGNALS:
        signal.signal(s, signal.default_int_handler if s == signal.SIGINT else signal.SIG_DFL)


def die_with_parent(parent: int) -> None:
    """Make this process die (SIGKILL) when process ``parent`` does, even if it is killed outright.

    Linux: ``prctl(PR_SET_PDEATHSIG, SIGKILL)``; elsewhere a daemon thread watches the parent pid.
    If the parent is already gone, exit now.
    """
    armed = False
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            armed = ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    if os.getppid() != parent:  # the parent died before the death signal was armed
        os._exit(1)
    if not armed:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="vcperf-parent-watch").start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    os.kill(os.getpid(), signal.SIGKILL)


def parents() -> dict[int, int]:
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
    """The ``-f <file>.json`` connection file of a kernel process (left behind when it is killed)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    if not any(b"kernel" in a for a in argv):
        return None
    for flag, value in zip(argv, argv[1:], strict=False):
        if flag == b"-f" and value.endswith(b".json"):
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
        frontier = [pid for pid, ppid in parents().items() if ppid in known and pid not in known]
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


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel queued work and kill the pool's workers and everything they started."""
    workers = list(getattr(pool, "_processes", None) or {})
    pool.shutdown(wait=False, cancel_futures=True)
    kill_tree(workers)
    with contextlib.suppress(Exception):
        pool.shutdown(wait=True)  # the manager thread notices the dead workers and ends
