"""Shared pytest fixtures and hooks.

``make test`` runs the suite on every core (pytest-xdist, ``--dist loadgroup``). Tests that share an
expensive fixture (a whole regeneration, a JupyterLab or Voila server, a built wheel) are sent to one
worker as a group (:data:`GROUPS`), so each such fixture is built once per run; every other test is
handed out one at a time to whichever worker is free.
"""

import sys

import pytest

#: Fixture name -> the xdist group of every test that uses it (one worker builds the fixture once).
GROUPS = {
    "default_build": "build",
    "lab_server": "lab",
    "voila_app": "voila",
    "wheel": "wheel",
}


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group marks
def pytest_collection_modifyitems(config, items):
    for item in items:
        for fixture, group in GROUPS.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.xdist_group(group))
                break


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
    """On an xdist worker, hand the fuzz counts to the controller (the summary is printed there)."""
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["fuzz_calls"] = _fuzz_calls()


_WORKER_CALLS: dict = {}


def pytest_testnodedown(node, error):
    """Controller: add up the fuzz counts of each finished xdist worker."""
    for name, n in getattr(node, "workeroutput", {}).get("fuzz_calls", {}).items():
        _WORKER_CALLS[name] = _WORKER_CALLS.get(name, 0) + n


def pytest_terminal_summary(terminalreporter):
    """Print how many fuzzed calls tests/test_fuzz.py made (the hardening note quotes it)."""
    calls = _fuzz_calls() or _WORKER_CALLS
    if calls:
        terminalreporter.write_line(f"fuzz: {sum(calls.values())} calls over {len(calls)} public functions")
