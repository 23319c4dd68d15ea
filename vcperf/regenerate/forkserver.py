"""Notebook kernels forked from a process that has already imported what every notebook imports.

A kernel started as ``python -m ipykernel_launcher`` spends over a second of CPU importing IPython,
numpy, pandas, scipy, matplotlib and vcperf before a notebook's first line runs; eleven notebooks pay
it eleven times. Each pool worker instead starts a *kernel server* (a new interpreter)
(:func:`start`): it imports :data:`PRELOAD` once (nothing else: no kernel, no socket, no thread,
no calibration), then forks one child per kernel, which runs ``ipykernel_launcher`` exactly as
the command line would (its arguments, environment and working folder; a session of its own; the
standard input closed). Every notebook still runs in a fresh kernel process of its own: what it
inherits is modules imported and nothing computed, so it prints and draws the same bytes.

:func:`kernel_manager_class` (papermill's ``kernel_manager_class``) asks the server for a kernel instead of
starting a process when the command is this interpreter's ``ipykernel_launcher``, and starts it the
usual way otherwise or when the server is gone. The server dies with its worker and a kernel with
its server (``PR_SET_PDEATHSIG``, and ipykernel's own parent poll), so killing a worker's process
tree (:func:`vcperf.regenerate.processes.kill_tree`) still takes every kernel with it.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import gc
import importlib
import importlib.util
import io
import multiprocessing.util
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection

from vcperf.params import skip_unused_format_checker
from vcperf.regenerate.processes import die_with_parent

#: What the kernel server imports before it forks kernels: the kernel itself and what the notebooks import.
#: Not modules that act on the running kernel when imported (``matplotlib_inline.backend_inline`` hooks
#: the figures' display, ``ipywidgets`` registers its comm target): a kernel imports those itself.
#: ``ipykernel.debugger``: every kernel imports it at start (debugpy, 0.15 s); ``jupytext``: every notebook's first
#: cell reads its own parameters cell with it (:func:`vcperf.params.check_notebook_parameters`).
PRELOAD = ("IPython", "ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.debugger", "numpy", "pandas",
           "scipy.optimize", "scipy.stats", "matplotlib.pyplot", "jupytext", "vcperf.fidelity", "vcperf.plotting",
           "vcperf.prose", "vcperf.protocol",
           *(f"vcperf.{name}" for name in ("vcha", "robo", "ft", "contentlib", "vmotion", "site")))
#: The module a kernel command runs (``python -m ipykernel_launcher -f <connection file> ...``).
LAUNCHER = "ipykernel_launcher"

#: What the :data:`PRELOAD` imports put in the server's environment (debugpy: ``PYDEVD_USE_FRAME_EVAL``): a kernel
#: sets it again where its environment does not have it, as its own imports would.
_IMPORTED_ENV: dict = {}
_SERVER: dict = {}  # "conn": this worker's end of the pipe to its server, "pid": the server's pid
_LOCK = threading.Lock()
#: CPU seconds (user + system) of the kernels this worker's server has reaped (not in this process's
#: ``RUSAGE_CHILDREN``: the kernels are the server's children).
REAPED_CPU = {"s": 0.0}


def start() -> None:
    """Start this worker's kernel server (once; from :func:`vcperf.regenerate.notebook.worker_init`).

    The server is a new interpreter (``python -c``), not a fork of the worker: what a kernel inherits
    must not depend on what the process that started the run had imported (a test runner's pandas, imported
    outside a kernel, prints tables as wide as a terminal).
    """
    if _SERVER or not hasattr(os, "fork"):
        return
    mine, theirs = socket.socketpair()
    # Dies with this worker from its first line (a worker killed while the server still imports its modules
    # must not leave it running): PR_SET_PDEATHSIG before any import, then the check that the worker is alive.
    code = (f"import ctypes, os, sys\n"
            f"if sys.platform.startswith('linux'):\n"
            f"    try: ctypes.CDLL(None).prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL\n"
            f"    except Exception: pass\n"
            f"if os.getppid() != {os.getpid()}: os._exit(1)\n"
            f"from vcperf.regenerate import forkserver; forkserver.serve({theirs.fileno()}, {os.getpid()})")
    try:
        proc = subprocess.Popen([sys.executable, "-c", code], pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL)
    except OSError:
        mine.close()
        return
    finally:
        theirs.close()
    _SERVER.update(conn=Connection(mine.detach()), proc=proc)
    multiprocessing.util.Finalize(None, stop, exitpriority=10)  # run when the pool worker exits


def stop(wait_s: float = 5.0) -> None:
    """End this worker's kernel server and reap it (its kernels' CPU time then counts in this process's
    ``RUSAGE_CHILDREN``, as started kernels' would)."""
    conn, proc = _SERVER.pop("conn", None), _SERVER.pop("proc", None)
    if conn is not None:
        conn.close()  # the server sees the end of its socket and exits
    if proc is None:
        return
    try:
        proc.wait(timeout=wait_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def serve(fd: int, parent: int | None = None) -> None:
    """The kernel server's main: import :data:`PRELOAD`, then fork a kernel for each request on socket ``fd``;
    it dies with ``parent`` (its worker's pid; default its parent now)."""
    try:
        _serve(Connection(fd), os.getppid() if parent is None else parent)
    except BaseException:  # noqa: BLE001 - the server ends quietly; its worker starts kernels itself
        os._exit(1)
    os._exit(0)


def _serve(conn, parent: int) -> None:
    die_with_parent(parent)  # exits at once if the worker is gone already
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the worker stops it (kill_tree), not a terminal's Ctrl-C
    # What ipykernel does before matplotlib is first imported in a kernel (kernelapp.init_gui_pylab), and
    # the parent a kernel's poller watches (read when ipykernel.kernelapp is imported): this server.
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    os.environ["JPY_PARENT_PID"] = str(os.getpid())
    # pandas decides at import whether it runs in a Jupyter kernel (display.max_columns 20, not the terminal's
    # width): it asks the `get_ipython` built-in that a kernel defines; answer as the kernel will.
    builtins.get_ipython = _KernelShell
    skip_unused_format_checker()
    before = dict(os.environ)
    try:
        # Import-time warnings (debugpy's about frozen modules) are not the user's: a started kernel writes them to
        # its output stream before any cell, where no notebook shows them.
        with contextlib.redirect_stderr(io.StringIO()):
            for name in PRELOAD:
                with contextlib.suppress(ImportError):
                    importlib.import_module(name)
    finally:
        del builtins.get_ipython
    _IMPORTED_ENV.update({k: v for k, v in os.environ.items() if before.get(k) != v})
    # The imported modules' objects never die: out of the garbage collector's reach, a kernel's collections do not
    # walk (and copy, page by page, from this process) the hundreds of thousands of objects it inherits.
    gc.freeze()
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):  # the worker is gone
            return
        if request[0] == "fork":
            conn.send(_fork_kernel(*request[1:], conn))
        elif request[0] == "poll":
            conn.send(_reap(request[1]))


class _KernelShell:
    """What ``get_ipython()`` answers in a kernel, as far as an import asks: it has a ``kernel``."""

    kernel = True

    def __new__(cls):
        return cls


def _flush() -> None:
    """Flush Python's output buffers before a fork, so the child does not write them a second time."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def _fork_kernel(args: list[str], env: dict, cwd: str, conn) -> int:
    _flush()
    pid = os.fork()
    if pid != 0:
        return pid
    code = 1
    try:  # the kernel: as `python -m ipykernel_launcher ARGS` started in its own session would be
        conn.close()
        os.setsid()
        die_with_parent(os.getppid())
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
            signal.signal(s, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        for key, value in _IMPORTED_ENV.items():
            os.environ.setdefault(key, value)
        os.environ["JPY_PARENT_PID"] = str(os.getppid())
        script = sys.argv[0] if sys.argv and sys.argv[0] not in ("", "-c", "-m") else ""
        if sys.path and not sys.flags.safe_path and sys.path[0] in ("", os.path.dirname(os.path.abspath(script))):
            del sys.path[0]  # this process's script folder: not on a kernel's path (ipykernel_launcher drops its own)
        spec = importlib.util.find_spec(LAUNCHER)  # `python -m` puts the module's file in argv[0]
        sys.argv[:] = [spec.origin if spec is not None and spec.origin else LAUNCHER, *args]
        from ipykernel import kernelapp

        kernelapp.launch_new_instance()
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    except BaseException:  # noqa: BLE001 - a kernel that cannot start dies; its manager reports it
        code = 1
    finally:
        _flush()
        os._exit(code)


def _reap(pid: int):
    """``None`` while kernel ``pid`` runs, else ``(exit code, CPU seconds)``."""
    try:
        done, status, usage = os.wait4(pid, os.WNOHANG)
    except ChildProcessError:
        return (0, 0.0)
    if done == 0:
        return None
    return (os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime)


def _ask(*request):
    """The server's answer, or None when there is no server (never started, or dead)."""
    conn = _SERVER.get("conn")
    if conn is None:
        return None
    with _LOCK:
        try:
            conn.send(request)
            return conn.recv()
        except (EOFError, OSError):
            _SERVER.clear()
            return None


class Forked:
    """A kernel forked by the server, with the part of :class:`subprocess.Popen` a provisioner uses."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            answer = _ask("poll", self.pid)
            if answer is None and not _SERVER:  # no server to ask: is the process still there?
                answer = None if _exists(self.pid) else (0, 0.0)
            if answer is not None:
                self.returncode, cpu = answer
                REAPED_CPU["s"] += cpu
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(LAUNCHER, timeout)
            time.sleep(0.02)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def _launcher_args(cmd: list[str]) -> list[str] | None:
    """The arguments after ``-m ipykernel_launcher`` when ``cmd`` runs it with this interpreter, else None."""
    if len(cmd) >= 3 and cmd[1:3] == ["-m", LAUNCHER] and os.path.realpath(cmd[0]) == os.path.realpath(sys.executable):
        return list(cmd[3:])
    return None


@functools.cache
def kernel_manager_class():
    """An ``AsyncKernelManager`` that has its kernel forked by this worker's kernel server when there is one
    (papermill's ``kernel_manager_class``; made on first use: jupyter_client is imported by the workers only)."""
    from jupyter_client import AsyncKernelManager

    class KernelManager(AsyncKernelManager):
        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw) -> None:
            args = _launcher_args(kernel_cmd)
            env, cwd = kw.get("env"), kw.get("cwd") or os.getcwd()  # papermill changes this process's folder
            pid = None
            if args is not None and env is not None:
                pid = _ask("fork", args, dict(env), str(cwd))
            if pid is None:
                await super()._async_launch_kernel(kernel_cmd, **kw)
                return
            prov = self.provisioner
            prov.process, prov.pid, prov.pgid, prov.cwd = Forked(pid), pid, pid, cwd
            self._reconcile_connection_info(prov.connection_info)

    return KernelManager
