"""The one deadline of the wall-clock tests (tests/deadlines.py) and the load average in their failure reports."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _wait_s(value: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "VCPERF_TEST_WAIT_S"}
    if value is not None:
        env["VCPERF_TEST_WAIT_S"] = value
    return subprocess.run([sys.executable, "-c", "import deadlines; print(deadlines.WAIT_S, deadlines.WAIT_MS)"],
                          cwd=HERE, env=env, capture_output=True, text=True, timeout=60)


def test_the_deadline_is_generous_and_overridable():
    """180 s by default (a page load that took 30 s at load 12 on 2 cores passes), VCPERF_TEST_WAIT_S overrides it;
    anything but a positive number is refused naming the variable."""
    assert _wait_s(None).stdout.split() == ["180.0", "180000"]
    assert _wait_s("600").stdout.split() == ["600.0", "600000"]
    for bad in ("abc", "0", "-5", "nan"):
        done = _wait_s(bad)
        assert done.returncode != 0 and "VCPERF_TEST_WAIT_S must be a number of seconds > 0" in done.stderr, bad


def test_browser_test_timeouts_come_from_the_one_deadline():
    text = (HERE / "test_browser.py").read_text()
    assert "from deadlines import WAIT_MS, WAIT_S" in text
    for name in ("SERVER_START_TIMEOUT_S = WAIT_S", "PAGE_TIMEOUT_MS = WAIT_MS", "RUN_ALL_TIMEOUT_MS = WAIT_MS",
                 "UPDATE_TIMEOUT_MS = WAIT_MS", "VOILA_LOAD_TIMEOUT_MS = WAIT_MS"):
        assert name in text, name
    assert "30_000" not in text and "timeout_s: float = 120.0" not in text


def test_a_failed_wall_clock_test_reports_the_load_average(tmp_path):
    """A failing test marked browser or kernel gets a 'load average at the failure' section; another does not."""
    for name in ("conftest.py", "deadlines.py"):
        shutil.copy(HERE / name, tmp_path / name)
    (tmp_path / "test_x.py").write_text("import pytest\n\n\n@pytest.mark.kernel\ndef test_kernel():\n"
                                        "    assert False\n\n\ndef test_plain():\n    assert False\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=",
                           "-o", "markers=kernel: k", "test_x.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1, done.stdout[-2000:]
    out = done.stdout
    assert out.count("load average at the failure") == 1, out[-3000:]
    section = out.split("load average at the failure", 1)[1]
    if hasattr(os, "getloadavg"):
        assert "(1 min)" in section.split("\n", 2)[1] and "cores" in section.split("\n", 2)[1]
    assert out.index("load average at the failure") < out.index("test_plain")  # in test_kernel's report


@pytest.mark.parametrize("path", ["test_hardening.py", "test_sweep.py"])
def test_other_wall_clock_waits_use_the_deadline(path):
    assert "WAIT_S" in (HERE / path).read_text()
