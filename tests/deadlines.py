"""One generous deadline for every test that waits on the wall clock (a browser page, a kernel start, a server).

Such a test waits on a condition (a page element, a kernel idle, a port answering) and fails only when it has
not come within :data:`WAIT_S` seconds -- long enough that a loaded machine (six browser tests once failed at
load ~12 on 2 cores with Playwright's 30 s ``Page.goto`` timeout) slows the suite down rather than failing it.
``VCPERF_TEST_WAIT_S`` overrides it (e.g. 600 on a very busy machine, 60 to find a hang fast). When such a
test fails, tests/conftest.py adds the machine's load average to its report (:func:`load_note`), so a
failure under load can be told from a real one.
"""

from __future__ import annotations

import os


def _wait_s() -> float:
    raw = os.environ.get("VCPERF_TEST_WAIT_S", "180")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"VCPERF_TEST_WAIT_S must be a number of seconds > 0; got {raw!r}") from None
    if not value > 0:
        raise ValueError(f"VCPERF_TEST_WAIT_S must be a number of seconds > 0; got {raw!r}")
    return value


#: Seconds any one wall-clock wait may take before the test fails (``VCPERF_TEST_WAIT_S``, default 180).
WAIT_S = _wait_s()
#: The same in milliseconds, as Playwright takes its timeouts.
WAIT_MS = int(WAIT_S * 1000)


def load_note() -> str:
    """The machine's load average and cores, for the report of a failed wall-clock test."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:  # no load average on this platform
        return f"load average: unavailable; {os.cpu_count()} cores; wait deadline {WAIT_S:g} s"
    return (f"load average {one:.2f} (1 min), {five:.2f} (5 min), {fifteen:.2f} (15 min) on {os.cpu_count()} cores; "
            f"wait deadline {WAIT_S:g} s (VCPERF_TEST_WAIT_S)")
