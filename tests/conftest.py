"""Shared pytest hooks."""

import sys


def pytest_terminal_summary(terminalreporter):
    """Print how many fuzzed calls tests/test_fuzz.py made (the hardening note quotes it)."""
    fuzz = sys.modules.get("test_fuzz") or sys.modules.get("tests.test_fuzz")
    calls = getattr(fuzz, "CALLS", None)
    if calls:
        terminalreporter.write_line(f"fuzz: {sum(calls.values())} calls over {len(calls)} public functions")
