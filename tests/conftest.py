"""Shared pytest fixtures and hooks.

``make test`` runs the suite on every core (pytest-xdist, ``-n auto --dist loadgroup``), with one worker
more than there are cores (:func:`pytest_xdist_auto_num_workers`). Tests that share an expensive fixture
(a whole regeneration, a JupyterLab or Voila server, a built wheel) are sent to one worker as a group
(:data:`GROUPS`), so each such fixture is built once per run; every other test is handed out one at a
time to whichever worker is free.
"""

import contextlib
import ctypes
import os
import signal
import subprocess
import sys

import pytest

#: Fixture name -> the xdist group of every test that uses it (one worker builds the fixture once).
GROUPS = {
    "default_build": "build",
    "lab_server": "lab",
    "voila_app": "voila",
    "wheel": "wheel",
}


@pytest.hookimpl(optionalhook=True)  # an xdist hook: the suite also runs without xdist (-p no:xdist)
def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker per core plus one. The browser tests spend much of their time waiting (for a
    page, a kernel, a panel to settle) and a regeneration waits on its kernels; the extra worker runs
    other tests on the core a waiting worker leaves idle (on the 2-core machine: 7:54 with 3 workers
    against 9:00 with 2, for the same CPU time)."""
    return (os.cpu_count() or 1) + 1


def pytest_itemcollected(item):
    """Mark a test that uses a fixture of :data:`GROUPS` with its xdist group (as each item is collected:
    before xdist reads the marks in its ``pytest_collection_modifyitems``); without xdist (``-p no:xdist``) there
    are no groups (nor the mark)."""
    if not item.config.pluginmanager.hasplugin("xdist"):
        return
    for fixture, group in GROUPS.items():
        if fixture in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group(group))
            break


#: Regeneration runners the tests started (:func:`start_runner`), ended when the session ends.
_RUNNERS: list[subprocess.Popen] = []
#: ``prctl`` option: the signal a process gets when its parent dies (linux/prctl.h).
_PR_SET_PDEATHSIG = 1


def _die_with(parent: int):
    """A ``preexec_fn``: the child gets SIGTERM when ``parent`` (this test process) dies, however it dies
    (SIGKILL of a CI timeout included; Linux ``PR_SET_PDEATHSIG``); `vcperf regenerate` then stops its
    workers and kernels and removes its staging, as on any SIGTERM."""
    def arm():
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # the test process died before the signal was armed
            os._exit(1)
    return arm


def start_runner(argv, **popen_kw) -> subprocess.Popen:
    """``subprocess.Popen(argv, **popen_kw)`` of a regeneration runner (it may take its own process group,
    ``start_new_session=True``) that ends with the test session however the session ends: on a normal
    end or an interrupt :func:`end_runners` stops it (SIGTERM to its group, then SIGKILL); if the test
    process is killed outright, the kernel sends the runner SIGTERM (:func:`_die_with`)."""
    proc = subprocess.Popen(argv, preexec_fn=_die_with(os.getpid()), **popen_kw)  # noqa: PLW1509 - no threads fork here
    _RUNNERS.append(proc)
    return proc


def end_runners(wait_s: float = 10.0) -> list[int]:
    """Stop every runner of :func:`start_runner` still running (its process group if it leads one);
    returns their pids."""
    ended = []
    for proc in _RUNNERS:
        if proc.poll() is not None:
            continue
        ended.append(proc.pid)
        own_group = os.getpgid(proc.pid) == proc.pid
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, sig) if own_group else proc.send_signal(sig)
            try:
                proc.wait(timeout=wait_s)
                break
            except subprocess.TimeoutExpired:
                continue
    _RUNNERS.clear()
    return ended


@pytest.fixture
def runner():
    """:func:`start_runner` for a test; its runners are ended when the test ends (and at the latest with
    the session, :func:`pytest_sessionfinish`)."""
    yield start_runner
    end_runners()


#: Marks of the tests that wait on the wall clock (a browser, a Jupyter kernel or server).
WALL_CLOCK_MARKS = ("browser", "kernel")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed wall-clock test (:data:`WALL_CLOCK_MARKS`) reports the machine's load average beside its error
    (tests/deadlines.py), so a machine too busy to answer within the deadline is told from a real failure."""
    report = yield
    if report.failed and any(item.get_closest_marker(m) for m in WALL_CLOCK_MARKS):
        from deadlines import load_note  # here: tests/test_environment.py runs this file alone, without it

        report.sections.append(("load average at the failure", load_note()))
    return report


@pytest.fixture(scope="session")
def default_build(tmp_path_factory):
    """One default regeneration (``vcperf regenerate --jobs 2``) into a scratch build folder, shared by
    every test that reads a whole build (its tests run on one worker: :data:`GROUPS`)."""
    from vcperf import regenerate

    target = tmp_path_factory.mktemp("default-build") / "build"
    assert regenerate.run(target, jobs=2) == []
    return target


def _fuzz_calls() -> dict:
    fuzz = sys.modules.get("test_fuzz") or sys.modules.get("tests.test_fuzz")
    return dict(getattr(fuzz, "CALLS", None) or {})


def pytest_sessionfinish(session):
    """End the regeneration runners tests started (:func:`end_runners`: also after an interrupt or a
    failure); on an xdist worker, hand the fuzz counts to the controller (the summary is printed there)."""
    end_runners()
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["fuzz_calls"] = _fuzz_calls()


_WORKER_CALLS: dict = {}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """Controller: add up the fuzz counts of each finished xdist worker."""
    for name, n in getattr(node, "workeroutput", {}).get("fuzz_calls", {}).items():
        _WORKER_CALLS[name] = _WORKER_CALLS.get(name, 0) + n


def pytest_terminal_summary(terminalreporter):
    """Print how many fuzzed calls tests/test_fuzz.py made (the hardening note quotes it)."""
    calls = _fuzz_calls() or _WORKER_CALLS
    if calls:
        terminalreporter.write_line(f"fuzz: {sum(calls.values())} calls over {len(calls)} public functions")
