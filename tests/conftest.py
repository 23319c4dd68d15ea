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


#: Tests kept out of ``make test-fast`` (marked ``slow`` as they are collected), each for a reason; ``make test``, the
#: CI gate, runs them all. The fast tier is the edit-test loop (its goal: 90 s on 2 cores); these took a second or
#: more of CPU each on the 2-core machine. A node id prefix matches the test and all its parameter cases
#: (tests/test_environment.py checks that every prefix still names a collected test).
SLOW = {
    # hostile-input fuzz of every public function (~57,000 calls) and the check of its per-function baselines
    "tests/test_fuzz.py::test_fuzz_parameter": "fuzz",
    "tests/test_fuzz.py::test_fuzz_hostile_inputs": "fuzz",
    "tests/test_fuzz.py::test_every_function_has_a_valid_baseline": "fuzz",
    # refits: the vMotion fit from a denser start grid, twice for determinism; a no-constant-row sweep of FT's fit
    "tests/test_vmotion.py::test_fit_reaches_the_lowest_minimum_of_a_denser_start_grid": "refits",
    "tests/test_vmotion.py::test_calibration_is_deterministic_and_named": "refits",
    "tests/test_ft.py::test_no_row_is_a_constant_by_construction": "refits",
    # each corrupts a copy of data/ and runs `vcperf data validate` in a new process
    "tests/test_data.py::test_each_issue30_corruption_is_caught_by_vcperf_data_validate_with_file_and_row": "processes",
    "tests/test_data.py::test_a_unit_of_the_wrong_dimension_is_rejected_by_vcperf_data_validate": "processes",
    # servers, clusters and processes: a Voilà server taking 90 requests, a Dask cluster, the cache shared across
    # processes, pytest run inside pytest
    "tests/test_security.py::test_ninety_quick_gets_leave_at_most_the_cap_of_kernels": "servers",
    "tests/test_security.py::test_a_second_local_process_cannot_run_code_on_the_sweep_cluster": "servers",
    "tests/test_protocol.py::test_disk_cache_is_shared_and_keyed_by_the_source_digest": "processes",
    "tests/test_environment.py::test_make_test_runs_one_worker_more_than_the_cores": "processes",
    "tests/test_environment.py::test_tests_sharing_an_expensive_fixture_run_on_one_worker": "processes",
    "tests/test_environment.py::test_every_slow_prefix_of_the_conftest_names_a_collected_test": "processes",
    # dense sweeps and simulations (the fast tier keeps each module's lighter property tests)
    "tests/test_traffic.py::test_branch_delays_are_continuous_up_to_saturation": "sweeps",
    "tests/test_queueing.py::test_mva_matches_simulation[16]": "simulation",
    "tests/test_queueing.py::test_mva_matches_simulation[64]": "simulation",
    "tests/test_queueing.py::test_mva_refuses_a_solution_larger_than_memory_allows_before_any_work": "memory",
    "tests/test_vmotion_tpcx.py::test_count_moves_continuously_with_the_peak_load": "sweeps",
    "tests/test_vmotion_tpcx.py::test_sampling_variance_of_the_counts_matches_the_monte_carlo": "simulation",
    "tests/test_widgets.py::test_site_planner_figure_is_the_plans_own_whatever_came_before": "sweeps",
}


def _slow_reason(nodeid: str) -> str | None:
    for prefix, reason in SLOW.items():
        if nodeid == prefix or nodeid.startswith(prefix + "["):
            return reason
    return None


def pytest_collection_modifyitems(config, items):
    """Mark the tests of :data:`SLOW` ``slow`` (out of ``make test-fast``; ``make test`` runs them)."""
    for item in items:
        reason = _slow_reason(item.nodeid)
        if reason:
            item.add_marker(pytest.mark.slow(reason=reason))


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
