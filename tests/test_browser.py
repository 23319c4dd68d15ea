"""Real-browser test: the ROBO what-if panel of robo_networks.ipynb in JupyterLab, driven by Chromium.

A JupyterLab server (from the venv running pytest) serves a temporary copy of notebooks/, with every
Jupyter/IPython/matplotlib directory isolated in a temporary folder, autosave off, windowing off and no
outside requests. Playwright opens the notebook, runs all cells, and then uses the panel like a user:
types an RTT into the slider's readout and picks the LAN preset, checking that the readout and the
figure follow. Screenshots of the panel go to build/screenshots/.

Skipped only when no Chromium is installed (``make browser`` installs it from Debian).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
NOTEBOOK = "robo_networks.ipynb"  # built in the temporary copy from its source:
SOURCE = "robo_networks.py"
SCREENSHOTS = REPO / "build" / "screenshots"


def _find_chromium() -> str | None:
    if Path("/usr/bin/chromium").is_file():
        return "/usr/bin/chromium"
    return shutil.which("chromium")


CHROMIUM = _find_chromium()

# Keep Chromium quiet and local (without the networking flags it keeps reaching for outside hosts).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

SERVER_START_TIMEOUT_S = 40
SERVER_STOP_TIMEOUT_S = 15
PAGE_TIMEOUT_MS = 30_000  # page load, kernel start
RUN_ALL_TIMEOUT_MS = 60_000  # Run All until the panel is visible
UPDATE_TIMEOUT_MS = 20_000  # one redraw (model + matplotlib figure) after a control changes
SETTLE_QUIET_S = 1.0  # the panel counts as settled when nothing changed for this long

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="browser test skipped: no Chromium at /usr/bin/chromium or on PATH "
        "(install it with `make browser`, i.e. apt-get install chromium)",
    ),
]

# JupyterLab user settings: every cell stays in the DOM, nothing is written back to the notebook,
# no news or update checks (outside requests).
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}
# Server side of the same: no news feed, no update check.
# The read-only extension manager never queries PyPI.
SERVER_CONFIG = {
    "LabApp": {
        "news_url": None,
        "check_for_updates_class": "jupyterlab.handlers.announcements.NeverCheckForUpdate",
        "extension_manager": "readonly",
    }
}

TIME_RE = re.compile(r": ([0-9.eE+-]+) s \(TCP throughput ")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: Path, n: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return "(no log)"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _transfer_time_s(readout: str) -> float:
    m = TIME_RE.search(readout)
    assert m, f"no transfer time in readout {readout!r}"
    return float(m.group(1))


def _stop(proc: subprocess.Popen) -> None:
    """Terminate the server we started (it shuts its kernels down); kill it if it does not exit in time."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=SERVER_STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=SERVER_STOP_TIMEOUT_S)
        # Killed, it could not shut its kernels down: end them too (the server ran in its own process group).
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory):
    """A JupyterLab server over a temporary copy of notebooks/; yields ``(base_url, root_dir, log)``."""
    tmp = tmp_path_factory.mktemp("jupyterlab")
    root = tmp / "notebooks"
    shutil.copytree(NOTEBOOKS, root, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    # The notebook as regeneration builds it from its one source, notebooks/<name>.py (jupytext).
    import nbformat

    from vcperf.params import read_notebook

    nbformat.write(read_notebook(root / SOURCE), root / NOTEBOOK)
    dirs = {
        name: tmp / sub
        for name, sub in [
            ("JUPYTER_CONFIG_DIR", "config"),
            ("JUPYTER_DATA_DIR", "data"),
            ("JUPYTER_RUNTIME_DIR", "runtime"),
            ("IPYTHONDIR", "ipython"),
            ("MPLCONFIGDIR", "matplotlib"),
            ("JUPYTERLAB_SETTINGS_DIR", "lab-settings"),
            ("JUPYTERLAB_WORKSPACES_DIR", "lab-workspaces"),
        ]
    }
    for d in dirs.values():
        d.mkdir()
    for rel, settings in LAB_SETTINGS.items():
        f = dirs["JUPYTERLAB_SETTINGS_DIR"] / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(settings))
    (dirs["JUPYTER_CONFIG_DIR"] / "jupyter_server_config.json").write_text(json.dumps(SERVER_CONFIG))

    bindir = Path(sys.executable).parent  # not resolved: a venv's bin/python is a symlink
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "JPY_"))}
    env.update({k: str(v) for k, v in dirs.items()})
    env["PATH"] = str(bindir) + os.pathsep + env.get("PATH", "")
    env["PYTHONUNBUFFERED"] = "1"

    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [
        str(bindir / "jupyter"),
        "lab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        "--IdentityProvider.token=",
        "--ServerApp.allow_root=True",  # CI containers run as root; a no-op otherwise
        f"--ServerApp.root_dir={root}",
    ]
    log = tmp / "server.log"
    with open(log, "wb") as logf:
        proc = subprocess.Popen(
            cmd,
            cwd=tmp,
            env=env,
            stdout=logf,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"JupyterLab exited with {proc.returncode} during start-up:\n{_tail(log)}")
            try:
                with urllib.request.urlopen(f"{base}/api/status", timeout=2) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"JupyterLab not ready after {SERVER_START_TIMEOUT_S} s:\n{_tail(log)}")
            time.sleep(0.2)
        yield base, root, log
    finally:
        _stop(proc)


def test_robo_whatif_panel_in_jupyterlab(lab_server):
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import expect, sync_playwright

    base, root, log = lab_server
    committed_sha = _sha256(NOTEBOOKS / SOURCE)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / "robo_networks_failure_page.png").unlink(missing_ok=True)
    problems: list[str] = []  # browser-side errors, shown if the test fails
    t0 = time.monotonic()
    steps: list[str] = []  # "elapsed  step" lines, printed (pytest -s / on failure)

    def step(name: str) -> None:
        steps.append(f"{time.monotonic() - t0:6.1f} s  {name}")
        print(steps[-1])

    def context_for_failure() -> str:
        return (
            "\nsteps:\n"
            + "\n".join(steps)
            + "\nbrowser errors:\n"
            + "\n".join(problems[-20:])
            + f"\nserver log (tail):\n{_tail(log)}"
        )

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, timeout=30_000)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1400})
            page.set_default_timeout(UPDATE_TIMEOUT_MS)
            page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
            page.on("console", lambda m: problems.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
            try:
                _drive(page, base, expect, step)
            except (AssertionError, PlaywrightError) as e:
                try:
                    page.screenshot(path=str(SCREENSHOTS / "robo_networks_failure_page.png"))
                except PlaywrightError:
                    pass
                raise AssertionError(f"{e}{context_for_failure()}") from e
        finally:
            browser.close()

    assert _sha256(NOTEBOOKS / SOURCE) == committed_sha, "the committed notebook source was modified"
    saved = json.loads((root / NOTEBOOK).read_text())
    assert not any(c.get("outputs") for c in saved["cells"]), "autosave wrote outputs into the notebook copy"


def _drive(page, base: str, expect, step) -> None:
    # Open the notebook and wait until its kernel is idle.
    step("open notebook")
    page.goto(f"{base}/lab/tree/{NOTEBOOK}", wait_until="domcontentloaded", timeout=PAGE_TIMEOUT_MS)
    panel = page.locator(".jp-NotebookPanel").first
    expect(panel).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    # The indicator reads 'idle' already while the session is still "No Kernel | Initializing" (Run All
    # then opens a Select Kernel dialog), so also wait for the kernel's name: it is set just before the
    # kernel connects, after which the status goes connecting -> busy -> idle.
    expect(panel.locator(".jp-Toolbar-kernelName")).not_to_have_text(
        re.compile(r"^\s*(No Kernel)?\s*$"), timeout=PAGE_TIMEOUT_MS
    )
    expect(panel.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")).to_have_count(
        1, timeout=PAGE_TIMEOUT_MS
    )

    # Run ▸ Run All Cells, through the menu bar.
    step("kernel idle; Run All Cells")
    page.get_by_role("menuitem", name="Run", exact=True).click()
    run_all = page.locator(".lm-Menu-item").filter(
        has=page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$"))
    )
    expect(run_all).to_be_visible(timeout=UPDATE_TIMEOUT_MS)
    expect(run_all).not_to_have_class(re.compile(r"lm-mod-disabled"), timeout=UPDATE_TIMEOUT_MS)
    run_all.click()

    # The what-if panel: the VBox holding the network dropdown.
    box = panel.locator(".widget-vbox").filter(has=page.locator(".widget-dropdown")).first
    expect(box).to_be_visible(timeout=RUN_ALL_TIMEOUT_MS)
    readout = box.locator(".widget-label", has_text=" MB over ")
    img = box.locator("img")
    choose = box.locator(".widget-dropdown select")
    expect(readout).to_contain_text("RTT 100 ms", timeout=UPDATE_TIMEOUT_MS)  # the dsl_512k preset
    _wait_image_loaded(page, img, previous_src=None)
    # The log sliders snap the preset's bandwidth and payload to their step grid and echo the snapped
    # values back; the panel must treat that echo as no change: still the DSL preset, exact values.
    step("panel rendered")
    text0, src0 = _settle(box)
    step(f"panel settled: {text0}")
    assert choose.input_value() == "DSL", choose.input_value()  # ipywidgets 8: <option> values are labels
    assert text0.startswith("3.5 MB over 0.5 Mbps, RTT 100 ms"), text0
    box.screenshot(path=str(SCREENSHOTS / "robo_networks_whatif_before.png"))

    # Type a new RTT into the slider's readout and press Enter, as a user would.
    rtt = box.locator(".widget-slider").filter(has=page.locator(".widget-label", has_text="RTT ms"))
    field = rtt.locator(".widget-readout")
    field.click()
    field.fill("600")
    field.press("Enter")
    step("typed RTT 600")
    expect(readout).to_contain_text("RTT 600 ms", timeout=UPDATE_TIMEOUT_MS)
    _wait_image_loaded(page, img, previous_src=src0)
    text1, src1 = _settle(box)
    step(f"redrawn: {text1}")
    assert text1 != text0
    assert "RTT 600 ms" in text1, text1
    assert _transfer_time_s(text1) > _transfer_time_s(text0), (text0, text1)
    assert src1 != src0
    expect(field).to_have_text(re.compile(r"^\s*600(\.0*)?\s*$"), timeout=UPDATE_TIMEOUT_MS)
    expect(choose).to_have_value("custom", timeout=UPDATE_TIMEOUT_MS)  # a moved slider leaves the preset
    box.screenshot(path=str(SCREENSHOTS / "robo_networks_whatif_after.png"))

    # Pick the LAN preset from the dropdown: bandwidth 1 Gbps, RTT 1 ms, loss 0.01 %.
    choose.select_option(label="LAN")
    step("picked LAN")
    expect(readout).to_contain_text("RTT 1 ms", timeout=UPDATE_TIMEOUT_MS)
    _wait_image_loaded(page, img, previous_src=src1)
    text2, src2 = _settle(box)
    step(f"redrawn: {text2}")
    assert "1e+03 Mbps" in text2 and "RTT 1 ms" in text2, text2
    assert _transfer_time_s(text2) < _transfer_time_s(text1), (text1, text2)
    assert src2 != src1
    expect(field).to_have_text(re.compile(r"^\s*1(\.0*)?\s*$"), timeout=UPDATE_TIMEOUT_MS)
    expect(choose).to_have_value("LAN", timeout=UPDATE_TIMEOUT_MS)
    box.screenshot(path=str(SCREENSHOTS / "robo_networks_whatif_lan.png"))
    step("done")


# One look at the panel: readout text, image src and whether it is decoded, and the kernel's status.
_PANEL_STATE_JS = """(box) => {
  const label = Array.from(box.querySelectorAll('.widget-label')).find(e => e.textContent.includes(' MB over '));
  const img = box.querySelector('img');
  const ind = box.closest('.jp-NotebookPanel')?.querySelector('.jp-Notebook-ExecutionIndicator');
  return {
    text: label ? label.textContent.trim() : '',
    src: img ? img.src : '',
    loaded: !!img && img.complete && img.naturalWidth > 0,
    kernel: ind ? ind.getAttribute('data-status') : '',
  };
}"""


def _settle(box, quiet_s: float = SETTLE_QUIET_S, timeout_s: float = UPDATE_TIMEOUT_MS / 1000) -> tuple[str, str]:
    """Wait until the kernel is idle and the readout and picture have not changed for ``quiet_s``."""
    deadline = time.monotonic() + timeout_s
    last, since = None, time.monotonic()
    while True:
        state = box.evaluate(_PANEL_STATE_JS)
        now = time.monotonic()
        if state != last:
            last, since = state, now
        elif state["kernel"] == "idle" and state["loaded"] and state["text"] and now - since >= quiet_s:
            return state["text"], state["src"]
        assert now < deadline, f"what-if panel did not settle within {timeout_s} s: {state}"
        time.sleep(0.1)


def _wait_image_loaded(page, img, previous_src: str | None) -> str:
    """Wait until the panel's <img> shows a new, fully decoded picture; return its src."""
    handle = img.element_handle(timeout=UPDATE_TIMEOUT_MS)
    page.wait_for_function(
        "([el, prev]) => el.isConnected && el.src && el.src !== prev && el.complete && el.naturalWidth > 0",
        arg=[handle, previous_src],
        timeout=UPDATE_TIMEOUT_MS,
    )
    return handle.get_attribute("src")
