"""Real-browser tests, driven by Chromium: the what-if panels in JupyterLab and Voila, the landing notebook, the report.

First the ROBO what-if panel of robo_networks.ipynb in JupyterLab, in detail.

A JupyterLab server (from the venv running pytest) serves a temporary copy of notebooks/, with every
Jupyter/IPython/matplotlib directory isolated in a temporary folder, autosave off, windowing off and no
outside requests. Playwright opens the notebook, runs all cells, and then uses the panel like a user:
types an RTT into the slider's readout and picks the LAN preset, checking that the readout and the
figure follow. Screenshots of the panel go to build/screenshots/.

Skipped only when no Chromium is installed (``make browser`` installs it from Debian).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from deadlines import WAIT_MS, WAIT_S

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

# Every wait on the wall clock (a server, a page, a kernel, Run All, a redraw) ends at a condition, or fails
# after the one generous deadline of tests/deadlines.py (VCPERF_TEST_WAIT_S, default 180 s): a loaded machine
# slows these tests down instead of failing them (a failure's report gives the load: tests/conftest.py).
SERVER_START_TIMEOUT_S = WAIT_S
SERVER_STOP_TIMEOUT_S = 15  # a stop that hangs is killed after this (not a wait for the test's condition)
PAGE_TIMEOUT_MS = WAIT_MS  # page load, kernel start
RUN_ALL_TIMEOUT_MS = WAIT_MS  # Run All until the panel is visible
UPDATE_TIMEOUT_MS = WAIT_MS  # one redraw (model + matplotlib figure) after a control changes
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

TIME_RE = re.compile(r": ([^:(]+?) (?:\([^)]*90 %\) )?\(TCP throughput ")  # the value, before its 90 % band
_UNITS_S = {"µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0, "days": 86400.0}


def _duration_s(text: str) -> float:
    """Seconds of a duration as the panels print it: "850 ms", "12.3 s", "2 min 10 s", "1 h 05 min", "3 days"."""
    parts = re.findall(r"([0-9][0-9,]*(?:\.[0-9]+)?)\s*(µs|ms|s|min|h|days)\b", text)
    assert parts, f"no duration in {text!r}"
    return sum(float(n.replace(",", "")) * _UNITS_S[u] for n, u in parts)


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
    return _duration_s(m.group(1))


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
    # Every other notebook too, as binder/postBuild does (the landing notebook links them as .ipynb).
    for src in sorted(root.glob("*.py")):
        if not (root / f"{src.stem}.ipynb").exists():
            nbformat.write(read_notebook(src), root / f"{src.stem}.ipynb")
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
    # JupyterLab's application settings as binder/postBuild installs them: .py files open as Jupytext Notebooks.
    app_settings = tmp / "app-settings"
    app_settings.mkdir()
    shutil.copy(REPO / "binder" / "overrides.json", app_settings / "overrides.json")

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
        f"--LabApp.app_settings_dir={app_settings}",
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
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, timeout=WAIT_MS)
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
    assert text0.startswith("3.5 MB over 500 kbit/s, RTT 100 ms"), text0
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

    # Pick the LAN preset from the dropdown: bandwidth 1 Gbit/s, RTT 1 ms, loss 0.01 %.
    choose.select_option(label="LAN")
    step("picked LAN")
    expect(readout).to_contain_text("RTT 1 ms", timeout=UPDATE_TIMEOUT_MS)
    _wait_image_loaded(page, img, previous_src=src1)
    text2, src2 = _settle(box)
    step(f"redrawn: {text2}")
    assert "1 Gbit/s" in text2 and "RTT 1 ms" in text2, text2
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


# ============================================================================================
# Every what-if panel, generically: found by DOM (a widget VBox with an <img> child and a slider),
# not by study names, so model and control changes in the studies do not break the test.
# ============================================================================================

#: Notebooks with interactive panels: a source with an ``if interactive:`` cell. The app (one tab per
#: panel of the other notebooks) is driven in Voila below.
PANEL_NOTEBOOKS = sorted(
    p.stem for p in NOTEBOOKS.glob("*.py")
    if p.stem != "app" and re.search(r"^if interactive:", p.read_text(encoding="utf-8"), re.M)
)
NOTEBOOK_RUN_TIMEOUT_MS = max(240_000, WAIT_MS)  # Run All of a whole study notebook on a shared machine
VOILA_LOAD_TIMEOUT_MS = WAIT_MS  # Voila runs the app's cells before the widgets show
VOILA_PAGE_ATTEMPTS = 3  # a Voila page load sometimes never finishes (see docs): reload

# Marks each what-if panel under ``root`` that is visible (data-vcpanel = 0, 1, ...); returns how many.
_MARK_PANELS_JS = """(root) => {
  root.querySelectorAll('[data-vcpanel]').forEach(e => e.removeAttribute('data-vcpanel'));
  const boxes = Array.from(root.querySelectorAll('.widget-vbox')).filter(b =>
    Array.from(b.children).some(c => c.tagName === 'IMG') && b.querySelector('.widget-slider')
    && b.offsetParent !== null);
  boxes.forEach((b, i) => b.setAttribute('data-vcpanel', String(i)));
  return boxes.length;
}"""

# A panel's state: its readout text (its own Label/HTML children), picture and whether it is decoded.
_GENERIC_STATE_JS = """(box) => {
  const own = Array.from(box.children).filter(c =>
    c.matches('.widget-label, .widget-label-basic, .widget-html, .widget-htmlmath') && !c.matches('.vcperf-style'));
  const img = Array.from(box.children).find(c => c.tagName === 'IMG');
  const ind = box.closest('.jp-NotebookPanel')?.querySelector('.jp-Notebook-ExecutionIndicator');
  return {
    text: own.map(e => e.textContent.trim()).join(' | '),
    src: img ? img.src : '',
    loaded: !!img && img.complete && img.naturalWidth > 0,
    kernel: ind ? ind.getAttribute('data-status') : 'idle',
  };
}"""

_ERRORS_JS = """(root) => Array.from(root.querySelectorAll(
  "[data-mime-type='application/vnd.jupyter.stderr'], .jp-OutputArea-output.jp-mod-error"))
  .map(e => e.textContent.slice(0, 300))"""


def _settle_generic(box, timeout_s: float = UPDATE_TIMEOUT_MS / 1000) -> dict:
    deadline = time.monotonic() + timeout_s
    last, since = None, time.monotonic()
    while True:
        state = box.evaluate(_GENERIC_STATE_JS)
        now = time.monotonic()
        if state != last:
            last, since = state, now
        elif state["kernel"] == "idle" and state["loaded"] and now - since >= SETTLE_QUIET_S:
            return state
        assert now < deadline, f"what-if panel did not settle within {timeout_s} s: {state}"
        time.sleep(0.1)


def _candidates(text: str) -> list[str]:
    """Values to type into a slider readout showing ``text``: double, half, +1, -1 (same int/float kind)."""
    m = re.search(r"[-+]?\d[\d,]*(\.\d*)?([eE][-+]?\d+)?", text)
    v = float(m.group(0).replace(",", "")) if m else 0.0
    is_int = m is not None and not m.group(1) and not m.group(2)
    raw = [v * 2, v / 2, v + 1, v - 1] if v else [1.0, 0.5, 2.0]
    out = []
    for x in raw:
        s = str(int(round(x))) if is_int else f"{x:.6g}"
        if s not in out and s != text.strip():
            out.append(s)
    return out


# The panel's own controls, in order (direct children: sliders, dropdowns, checkboxes), each marked
# data-vccontrol = 0, 1, ... ; returns [[kind, caption], ...].
_MARK_CONTROLS_JS = """(box) => Array.from(box.children).map(c => {
  const kind = c.matches('.widget-slider') ? 'slider' : c.matches('.widget-dropdown') ? 'dropdown'
             : c.matches('.widget-checkbox') ? 'checkbox' : '';
  return [c, kind];
}).filter(([c, kind]) => kind).map(([c, kind], i) => {
  c.setAttribute('data-vccontrol', String(i));
  const cap = c.querySelector('.widget-label, label');
  return [kind, ((cap && cap.textContent) || '').trim()];
})"""

# True once the panel's readout or picture differs from ``before`` and the picture is decoded.
_CHANGED_JS = """([box, before]) => {
  const own = Array.from(box.children).filter(c =>
    c.matches('.widget-label, .widget-label-basic, .widget-html, .widget-htmlmath') && !c.matches('.vcperf-style'));
  const text = own.map(e => e.textContent.trim()).join(' | ');
  const img = Array.from(box.children).find(c => c.tagName === 'IMG');
  const loaded = !!img && img.complete && img.naturalWidth > 0;
  return loaded && (text !== before.text || img.src !== before.src);
}"""


def _move_control(page, box, i: int, kind: str, caption: str):
    """Move control ``i`` of ``box``; yields each value set (the caller checks the panel after each)."""
    control = box.locator(f":scope > [data-vccontrol='{i}']")
    if kind == "checkbox":
        control.locator("input[type=checkbox]").click()
        yield "toggled"
    elif kind == "dropdown":
        select = control.locator("select")
        current = select.input_value()
        options = [o.strip() for o in select.locator("option").all_inner_texts()]
        options = [o for o in options if o not in (current, "custom")]  # "custom" names the sliders' state
        assert options, f"dropdown {caption!r}: no other option"
        for label in options[:3]:
            select.select_option(label=label)
            yield label
    else:
        field = control.locator(".widget-readout")
        assert field.count() == 1 and field.get_attribute("contenteditable") in ("true", ""), (
            f"slider {caption!r} without an editable readout")
        old = field.inner_text().strip()
        for value in _candidates(old):
            field.click()
            field.fill(value)
            field.press("Enter")
            try:
                page.wait_for_function("([f, old]) => f.textContent.trim() !== old",
                                       arg=[field.element_handle(), old], timeout=5_000)
            except Exception:  # noqa: BLE001 - clamped to the same value: try the next candidate
                continue
            new = field.inner_text().strip()
            yield f"{old} -> {new}"
            old = new


def _drive_every_control(page, box, name: str, step) -> None:
    """Move every control of ``box`` in turn: after each move the readout or the picture must change (a
    control that changes neither is a bug, not skipped); no error output. Screenshots before and after."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    before = _settle_generic(box)
    assert before["text"], f"{name}: panel without readout"
    box.screenshot(path=str(SCREENSHOTS / f"{name}_before.png"))
    first_src = before["src"]
    controls = box.evaluate(_MARK_CONTROLS_JS)
    assert controls, f"{name}: panel without controls"
    for i, (kind, caption) in enumerate(controls):
        moved = False
        for value in _move_control(page, box, i, kind, caption):
            try:
                page.wait_for_function(_CHANGED_JS, arg=[box.element_handle(), before], timeout=UPDATE_TIMEOUT_MS)
            except Exception:  # noqa: BLE001 - this value changed nothing: try another (asserted below)
                step(f"{name}: {caption} = {value}: nothing changed")
                continue
            after = _settle_generic(box)
            step(f"{name}: {kind} {caption!r} = {value}: {after['text'][:100]}")
            before, moved = after, True
            break
        assert moved, f"{name}: moving {kind} {caption!r} changed neither the readout nor the picture"
        if kind == "checkbox":  # tick it back, as a person would, so the controls after it are live again
            box.locator(f":scope > [data-vccontrol='{i}'] input[type=checkbox]").click()
            page.wait_for_function(_CHANGED_JS, arg=[box.element_handle(), before], timeout=UPDATE_TIMEOUT_MS)
            before = _settle_generic(box)
            step(f"{name}: {caption!r} toggled back: {before['text'][:100]}")
    box.screenshot(path=str(SCREENSHOTS / f"{name}_after.png"))
    assert before["src"] != first_src, f"{name}: the picture never changed"
    assert not box.evaluate(_ERRORS_JS), f"{name}: error output"


def _stepper(t0: float, steps: list[str]):
    def step(name: str) -> None:
        steps.append(f"{time.monotonic() - t0:6.1f} s  {name}")
        print(steps[-1])

    return step


def _shutdown_kernels(page, base: str) -> None:
    """End the sessions (and kernels) the page opened, as JupyterLab's own 'Shut Down All' does."""
    page.evaluate(
        """async (base) => {
          const xsrf = (document.cookie.match(/_xsrf=([^;]+)/) || [])[1] || '';
          const r = await fetch(base + '/api/sessions');
          for (const s of await r.json()) {
            await fetch(base + '/api/sessions/' + s.id, {method: 'DELETE', headers: {'X-XSRFToken': xsrf}});
          }
        }""",
        base,
    )


@pytest.fixture
def browser_page():
    """A fresh Chromium page; yields ``(page, problems)`` and closes the browser."""
    from playwright.sync_api import sync_playwright

    problems: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, timeout=WAIT_MS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1400})
            page.set_default_timeout(UPDATE_TIMEOUT_MS)
            page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
            yield page, problems
        finally:
            browser.close()


def _open_and_run_all(page, base: str, notebook: str, step):
    from playwright.sync_api import expect

    page.goto(f"{base}/lab/tree/{notebook}?reset", wait_until="domcontentloaded", timeout=PAGE_TIMEOUT_MS)
    panel = page.locator(".jp-NotebookPanel:visible").first
    expect(panel).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    expect(panel.locator(".jp-Toolbar-kernelName")).not_to_have_text(
        re.compile(r"^\s*(No Kernel)?\s*$"), timeout=PAGE_TIMEOUT_MS)
    expect(panel.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")).to_have_count(
        1, timeout=PAGE_TIMEOUT_MS)
    step(f"{notebook}: kernel idle; Run All Cells")
    page.get_by_role("menuitem", name="Run", exact=True).click()
    run_all = page.locator(".lm-Menu-item").filter(
        has=page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")))
    expect(run_all).not_to_have_class(re.compile(r"lm-mod-disabled"), timeout=UPDATE_TIMEOUT_MS)
    run_all.click()
    # Wait for the whole notebook: the first cell is running at once, the indicator returns to idle at the end.
    page.wait_for_timeout(500)
    expect(panel.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")).to_have_count(
        1, timeout=NOTEBOOK_RUN_TIMEOUT_MS)
    expect(panel.locator(".jp-InputArea-prompt:has-text('[*]')")).to_have_count(0, timeout=NOTEBOOK_RUN_TIMEOUT_MS)
    return panel


@pytest.mark.parametrize("notebook", PANEL_NOTEBOOKS)
def test_every_whatif_panel_in_jupyterlab(lab_server, browser_page, notebook):
    """Run All, then in every what-if panel move every control in turn: the readout or the picture follows."""
    from playwright.sync_api import Error as PlaywrightError

    base, root, log = lab_server
    page, problems = browser_page
    steps: list[str] = []
    step = _stepper(time.monotonic(), steps)
    try:
        panel = _open_and_run_all(page, base, f"{notebook}.ipynb", step)
        deadline = time.monotonic() + UPDATE_TIMEOUT_MS / 1000
        while (n := panel.evaluate(_MARK_PANELS_JS)) == 0:
            assert time.monotonic() < deadline, f"{notebook}: no what-if panel after Run All"
            time.sleep(0.2)
        step(f"{notebook}: {n} panel(s)")
        for i in range(n):
            box = panel.locator(f"[data-vcpanel='{i}']")
            box.scroll_into_view_if_needed()
            _drive_every_control(page, box, f"jupyterlab_{notebook}_{i}", step)
        errors = panel.evaluate(_ERRORS_JS)
        assert not errors, f"{notebook}: error output in the notebook: {errors}"
    except (AssertionError, PlaywrightError) as e:
        raise AssertionError(f"{e}\nsteps:\n" + "\n".join(steps) + "\nbrowser errors:\n" + "\n".join(problems[-20:])
                             + f"\nserver log (tail):\n{_tail(log)}") from e
    finally:
        _shutdown_kernels(page, base)


def test_landing_notebook_links_open_every_study_in_jupyterlab(lab_server, browser_page):
    """The landing notebook renders (as Binder opens it: index.py as a Jupytext Notebook, and index.ipynb), and
    each of its notebook links opens that study's notebook, titled as its source says."""
    from playwright.sync_api import expect

    from vcperf.params import read_notebook
    from vcperf.report import notebook_title

    base, root, log = lab_server
    page, problems = browser_page
    steps: list[str] = []
    step = _stepper(time.monotonic(), steps)
    try:
        # binder/overrides.json: a .py notebook opens as a notebook, not in the text editor.
        page.goto(f"{base}/lab/tree/index.py?reset", wait_until="domcontentloaded", timeout=PAGE_TIMEOUT_MS)
        expect(page.locator(".jp-NotebookPanel:visible .jp-RenderedMarkdown h1").first).to_contain_text(
            "vcperf", timeout=PAGE_TIMEOUT_MS)
        assert page.locator(".jp-FileEditor:visible").count() == 0
        step("index.py opened as a notebook")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.set_viewport_size({"width": 1280, "height": 800})
        page.screenshot(path=str(SCREENSHOTS / "jupyterlab_index_py_1280x800.png"))
        page.goto(f"{base}/lab/tree/index.ipynb?reset", wait_until="domcontentloaded", timeout=PAGE_TIMEOUT_MS)
        landing = page.locator(".jp-NotebookPanel:visible").first
        expect(landing.locator(".jp-RenderedMarkdown h1").first).to_contain_text("vcperf", timeout=PAGE_TIMEOUT_MS)
        # JupyterLab rewrites a local link's href to the file's download URL (/files/<path>) and opens the
        # file in a new tab when it is clicked.
        # The links name the sources (robo_networks.py): they exist in a clone, and JupyterLab opens them as
        # notebooks (binder/overrides.json; `make lab` installs it locally).
        hrefs = landing.evaluate("""(p) => Array.from(p.querySelectorAll('.jp-RenderedMarkdown a')).map(a => {
            const m = (a.getAttribute('href') || '').match(/\\/files\\/([^?#]+)/);
            const path = m ? decodeURIComponent(m[1]) : '';
            if (/^[\\w.-]+\\.(ipynb|py)$/.test(path)) a.setAttribute('data-vclink', path);
            return path; }).filter(h => /^[\\w.-]+\\.(ipynb|py)$/.test(h))""")
        links = list(dict.fromkeys(hrefs))
        studies = sorted(p.stem for p in NOTEBOOKS.glob("*.py") if p.stem not in ("index", "app"))
        stems = [h.rsplit(".", 1)[0] for h in links]
        assert sorted(s for s in stems if s in studies) == studies, f"landing links {links}"
        step(f"landing links: {links}")
        for href in links:
            landing_tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text="index.ipynb")
            landing_tab.click()
            link = page.locator(f".jp-NotebookPanel:visible .jp-RenderedMarkdown a[data-vclink='{href}']").first
            link.scroll_into_view_if_needed()
            link.click()
            title = notebook_title(read_notebook(NOTEBOOKS / f"{href.rsplit('.', 1)[0]}.py"))
            opened = page.locator(".jp-NotebookPanel:visible .jp-RenderedMarkdown h1").first
            expect(opened).to_contain_text(title[:40], timeout=PAGE_TIMEOUT_MS)
            expect(page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")).to_contain_text(href)
            step(f"opened {href}: {title[:60]}")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text="index.ipynb").click()
        page.locator(".jp-NotebookPanel:visible").first.screenshot(path=str(SCREENSHOTS / "jupyterlab_landing.png"))
    except AssertionError as e:
        raise AssertionError(f"{e}\nsteps:\n" + "\n".join(steps) + f"\nserver log (tail):\n{_tail(log)}") from e
    finally:
        _shutdown_kernels(page, base)


# --------------------------------------------------------------------------------------------
# The Voila app (make app): every tab's panel
# --------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _voila_server(tmp: Path, **cull):
    """``python -m vcperf.app``'s Voila server (``app.voila_command``, ``cull``: its culling arguments) on a
    free port, over a temporary folder; yields ``(base_url, log, process)`` and stops it."""
    from vcperf import app

    nb = app.build_notebook(tmp / "app")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "JPY_"))}
    for var, sub in [("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_RUNTIME_DIR", "runtime"), ("IPYTHONDIR", "ipython"),
                     ("MPLCONFIGDIR", "matplotlib")]:
        (tmp / sub).mkdir()
        env[var] = str(tmp / sub)
    bindir = Path(sys.executable).parent
    env["PATH"] = str(bindir) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp / "voila.log"
    with open(log, "wb") as logf:
        proc = subprocess.Popen(app.voila_command(nb, port, **cull), cwd=tmp, env=env, stdout=logf,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"Voila exited with {proc.returncode} during start-up:\n{_tail(log)}")
            try:  # any answer from /voila/static/ means it is serving ('/' would start a kernel)
                urllib.request.urlopen(f"{base}/voila/static/", timeout=2).close()
                break
            except urllib.error.HTTPError:
                break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"Voila not ready after {SERVER_START_TIMEOUT_S} s:\n{_tail(log)}")
            time.sleep(0.2)
        yield base, log, proc
    finally:
        _stop(proc)


@pytest.fixture(scope="module")
def voila_app(tmp_path_factory):
    """``python -m vcperf.app``'s Voila server on a free port; yields ``(base_url, log, process)``. Its tests
    open the page a dozen times within minutes and a closed page's kernel lives until culled, so the kernel
    cap is raised above the machine's default (the cap itself: tests/test_security.py)."""
    with _voila_server(tmp_path_factory.mktemp("voila"), max_kernels=16) as (base, log, proc):
        yield base, log, proc


def _kernels(server: subprocess.Popen) -> list[int]:
    """Process ids of the kernels a server started (its child processes running ipykernel; Linux /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == server.pid and b"ipykernel" in cmdline:
            out.append(int(stat.parent.name))
    return sorted(out)


def _cpu_ticks(pids) -> int:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime + stime
    return total


def _wait_kernels(server: subprocess.Popen, count: int | None = None, timeout_s: float = WAIT_S,
                  quiet_s: float = 1.5) -> list[int]:
    """Wait until the server runs ``count`` kernels (default: any, at least one) and none of them used CPU for
    ``quiet_s`` (the pre-heated one has run the notebook); return their process ids."""
    deadline = time.monotonic() + timeout_s
    last, since = None, time.monotonic()
    while True:
        pids = _kernels(server)
        state = (pids, _cpu_ticks(pids))
        now = time.monotonic()
        if state != last:
            last, since = state, now
        elif (len(pids) == count if count is not None else len(pids) >= 1) and now - since >= quiet_s:
            return pids
        assert now < deadline, f"expected {count} idle kernel(s) within {timeout_s} s; have {pids}"
        time.sleep(0.25)


#: The app's own tabs (one per panel), not the tabs of a panel's form (the planner's plan form is a Tab too).
APP_TABS = ".widget-tab:not(.widget-tab .widget-tab) > .lm-TabBar .lm-TabBar-tab"
#: The app's first page is usable this soon after its URL is opened (a warm server: its kernel pre-heated).
FIRST_RENDER_GOAL_S = 2.0
FIRST_RENDER_LOADS = 3


# Where a panel's controls and picture sit on the screen (the page scrolled to the top).
_SEEN_AT_ONCE_JS = """(box) => {
  const controls = Array.from(box.children).filter(c => c.matches('.widget-slider, .widget-dropdown, .widget-checkbox, '
                                                                + '.widget-hbox'));
  const img = Array.from(box.children).find(c => c.tagName === 'IMG');
  const r = img.getBoundingClientRect();
  return {view_height: window.innerHeight,
          controls_bottom: Math.round(Math.max(...controls.map(c => c.getBoundingClientRect().bottom))),
          controls_right: Math.round(Math.max(...controls.map(c => c.getBoundingClientRect().right))),
          image_left: Math.round(r.left), image_bottom: Math.round(r.bottom), image_width: Math.round(r.width),
          natural_width: img.naturalWidth};
}"""


def test_every_tab_of_the_voila_app(voila_app, browser_page):
    """The planner in Voila: no code shown; in every tab, every control moved in turn changes readout or picture."""
    from playwright.sync_api import Error as PlaywrightError

    base, log, _server = voila_app
    page, problems = browser_page
    steps: list[str] = []
    step = _stepper(time.monotonic(), steps)
    try:
        tabs = page.locator(APP_TABS)
        for attempt in range(1, VOILA_PAGE_ATTEMPTS + 1):
            page.goto(f"{base}/", wait_until="domcontentloaded", timeout=PAGE_TIMEOUT_MS)
            try:
                tabs.first.wait_for(timeout=VOILA_LOAD_TIMEOUT_MS)
                break
            except PlaywrightError:
                step(f"Voila page load {attempt} did not finish")
                assert attempt < VOILA_PAGE_ATTEMPTS, "the Voila app never rendered"
        titles = [t.strip() for t in tabs.all_inner_texts()]
        step(f"tabs: {titles}")
        assert len(titles) >= 7, titles
        assert page.locator(".jp-CodeMirrorEditor, .jp-InputArea-editor").count() == 0, "Voila shows code"
        assert "import " not in page.locator("body").inner_text(), "Voila shows code"
        root = page.locator("body")
        page.set_viewport_size({"width": 1280, "height": 800})  # a laptop screen
        for i, title in enumerate(titles):
            tabs.nth(i).click()
            deadline = time.monotonic() + UPDATE_TIMEOUT_MS / 1000
            while root.evaluate(_MARK_PANELS_JS) != 1:
                assert time.monotonic() < deadline, f"tab {title!r}: not exactly one visible panel"
                time.sleep(0.2)
            box = page.locator("[data-vcpanel='0']")
            slug = re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")
            _settle_generic(box)
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(SCREENSHOTS / f"voila_tab_{i}_{slug}_1280x800.png"))
            seen = box.evaluate(_SEEN_AT_ONCE_JS)
            step(f"{title}: {seen}")
            assert seen["controls_bottom"] <= seen["view_height"], f"tab {title!r}: controls below the screen {seen}"
            assert seen["image_bottom"] <= seen["view_height"], f"tab {title!r}: picture below the screen {seen}"
            assert seen["image_left"] >= seen["controls_right"], f"tab {title!r}: picture not beside controls {seen}"
            # shown at (or below) its own width, rendered at 2x: sharp on a HiDPI screen, never stretched
            assert seen["natural_width"] >= 2 * seen["image_width"] - 1, f"tab {title!r}: picture stretched {seen}"
            _drive_every_control(page, box, f"voila_{i}_{slug}", step)
        errors = root.evaluate(_ERRORS_JS)
        assert not errors, f"error output in the app: {errors}"
    except (AssertionError, PlaywrightError) as e:
        raise AssertionError(f"{e}\nsteps:\n" + "\n".join(steps) + "\nbrowser errors:\n" + "\n".join(problems[-20:])
                             + f"\nvoila log (tail):\n{_tail(log)}") from e


def test_voila_app_first_page_shows_the_site_planner_and_records_its_time(voila_app, browser_page):
    """Each fresh browser profile (nothing cached) opening the app's URL on a warm server (its pre-heated
    kernel ready) gets the site planner's readout; the time from opening the URL until it is visible is
    recorded in build/screenshots/voila_first_render.json with the machine's load, beside the 2 s goal.
    The goal itself is judged by ``make bench`` (``app_first_render_s``), never by a test: a wall time
    depends on the machine and its load."""
    base, log, server = voila_app
    page, problems = browser_page
    browser = page.context.browser
    samples = []
    try:
        for attempt in range(FIRST_RENDER_LOADS + 1):  # the first load warms the server (and Chromium) up
            _wait_kernels(server)  # the pre-heated kernel has run the notebook
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            try:
                fresh = context.new_page()
                t0 = time.monotonic()
                fresh.goto(f"{base}/", wait_until="commit", timeout=PAGE_TIMEOUT_MS)
                fresh.locator(".widget-html").filter(has_text="answer (90 %)").first.wait_for(
                    state="visible", timeout=VOILA_LOAD_TIMEOUT_MS)
                elapsed = time.monotonic() - t0
                if attempt:
                    samples.append(round(elapsed, 3))
                fresh.close(run_before_unload=True)  # as a person closing the tab
            finally:
                context.close()
        load, cpus = os.getloadavg()[0], os.cpu_count() or 1
        record = {"what": "Voila app: URL opened -> site planner readout visible (warm server, fresh browser)",
                  "samples_s": samples, "median_s": statistics.median(samples), "best_s": min(samples),
                  "goal_s": FIRST_RENDER_GOAL_S, "load_1min": load, "cpus": cpus}
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        (SCREENSHOTS / "voila_first_render.json").write_text(json.dumps(record, indent=2) + "\n")
        print(record)
        assert len(samples) == FIRST_RENDER_LOADS, record
    except AssertionError as e:
        raise AssertionError(f"{e}\nbrowser errors:\n" + "\n".join(problems[-20:])
                             + f"\nvoila log (tail):\n{_tail(log)}") from e


def test_voila_culls_the_kernel_of_a_closed_page(tmp_path, browser_page):
    """A closed page leaves its kernel idle and unconnected (Voila's own shut-down request on closing is
    refused, and a crashed tab or a lost connection sends none); Voila shuts it down after the idle timeout
    (here 15 s) instead of keeping it until the server stops. An open page's kernel stays however long it
    idles; the pre-heated kernel stays."""
    page, problems = browser_page
    idle_s = 15
    with _voila_server(tmp_path, cull_idle_timeout_s=idle_s, cull_interval_s=1) as (base, log, server):
        try:
            (heated,) = _wait_kernels(server, 1)
            context = page.context.browser.new_context()
            viewer = context.new_page()
            viewer.goto(f"{base}/", wait_until="commit", timeout=PAGE_TIMEOUT_MS)
            viewer.locator(".widget-html").filter(has_text="answer (90 %)").first.wait_for(
                state="visible", timeout=VOILA_LOAD_TIMEOUT_MS)
            pids = _wait_kernels(server, 2)  # the page's (the one pre-heated) and a new pre-heated one
            assert heated in pids, pids
            time.sleep(idle_s + 5)  # past the idle timeout: an open page keeps its kernel
            assert heated in _kernels(server), "the kernel of an open page was culled"
            viewer.close(run_before_unload=False)
            context.close()
            deadline = time.monotonic() + 60
            while heated in _kernels(server):
                assert time.monotonic() < deadline, "the closed page's kernel is still running after 60 s"
                time.sleep(0.5)
            assert len(_kernels(server)) == 1, _kernels(server)  # the new pre-heated kernel stays
        except AssertionError as e:
            raise AssertionError(f"{e}\nvoila log (tail):\n{_tail(log)}") from e


def test_voila_app_opens_on_the_site_planner(voila_app, browser_page):
    """The app's first tab is the site planner: the link entered once (its rate typed into the slider's
    readout) changes every workload's answer that crosses it; screenshots before and after."""
    from playwright.sync_api import Error as PlaywrightError

    base, log, _server = voila_app
    page, problems = browser_page
    try:
        page.goto(f"{base}/", wait_until="domcontentloaded", timeout=PAGE_TIMEOUT_MS)
        tabs = page.locator(APP_TABS)
        tabs.first.wait_for(timeout=VOILA_LOAD_TIMEOUT_MS)
        assert tabs.first.inner_text().strip() == "Site planner"
        readout = page.locator(".widget-html").filter(has_text="answer (90 %)").first
        readout.wait_for(timeout=VOILA_LOAD_TIMEOUT_MS)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "voila_site_planner_before.png"), full_page=True)

        def rows():
            return [r for r in readout.inner_text().splitlines() if "\t" in r][1:]  # the table's rows

        before = rows()
        assert len(before) >= 5, before  # branch (2), migration (2), deployment, VCHA of the default plan
        for value in ("2", "100"):
            field = page.locator(".widget-slider").filter(has_text="rate Mbit/s").locator(".widget-readout").first
            field.click()
            page.keyboard.press("Control+A")
            page.keyboard.type(value)
            page.keyboard.press("Enter")
            deadline = time.monotonic() + UPDATE_TIMEOUT_MS / 1000
            while rows() == before:
                assert time.monotonic() < deadline, f"rate {value} Mbit/s changed no answer"
                time.sleep(0.3)
            time.sleep(1.0)
            after = rows()
            assert f"at {value} Mbit/s" in readout.inner_text()
            # every workload on the link moves, except a downtime bounded by the switch-over goal
            changed = [a for a, b in zip(after, before, strict=True) if a != b]
            assert len(changed) >= len(before) - 1, (before, after)
            before = after
        page.screenshot(path=str(SCREENSHOTS / "voila_site_planner_after.png"), full_page=True)
        assert not page.locator("body").evaluate(_ERRORS_JS), "error output in the app"
    except (AssertionError, PlaywrightError) as e:
        raise AssertionError(f"{e}\nbrowser errors:\n" + "\n".join(problems[-20:])
                             + f"\nvoila log (tail):\n{_tail(log)}") from e


#: A plan a person brings: the default example under another name (its loss, hosts and target edited in the page).
MY_PLAN = (REPO / "examples" / "branch_20_hosts_10mbit.yaml").read_text(encoding="utf-8").replace(
    "name: 20-host branch on 10 Mbit/s, 80 ms", "name: My shop")


def test_voila_planner_takes_my_plan_and_answers_as_vcperf_plan_does(voila_app, browser_page, tmp_path):
    """The planner is a planner, driven as a person would at 1280x800: upload a plan file, change the link's
    loss, the branch's hosts and a target in the form, ask "smallest link", download the plan and the
    answers; the downloaded answers (CSV, JSON) are what ``vcperf plan`` prints for the downloaded plan, and
    the page's reverse answer is the command's. Screenshots of each step in build/screenshots/."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import expect

    base, log, _server = voila_app
    page, problems = browser_page
    steps: list[str] = []
    step = _stepper(time.monotonic(), steps)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def shot(name: str, locator=None) -> None:
        if locator is not None:
            locator.scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENSHOTS / f"voila_planner_{name}_1280x800.png"))

    try:
        page.set_viewport_size({"width": 1280, "height": 800})
        for attempt in range(1, VOILA_PAGE_ATTEMPTS + 1):
            page.goto(f"{base}/", wait_until="domcontentloaded", timeout=PAGE_TIMEOUT_MS)
            try:
                page.locator(".widget-html").filter(has_text="answer (90 %)").first.wait_for(
                    timeout=VOILA_LOAD_TIMEOUT_MS)
                break
            except PlaywrightError:
                step(f"Voila page load {attempt} did not finish")
                assert attempt < VOILA_PAGE_ATTEMPTS, "the Voila app never rendered"
        readout = page.locator(".widget-html").filter(has_text="answer (90 %)").first
        form = page.locator(".vcperf-plan-form")
        shot("0_opened")
        mine = tmp_path / "my_shop.yaml"
        mine.write_text(MY_PLAN, encoding="utf-8")
        with page.expect_file_chooser(timeout=UPDATE_TIMEOUT_MS) as chooser:  # the button opens the file dialog
            page.locator(".vcperf-upload").click()
        chooser.value.set_files(str(mine))
        expect(readout).to_contain_text("My shop — link wan at 10 Mbit/s", timeout=UPDATE_TIMEOUT_MS)
        step("uploaded")
        shot("1_uploaded")

        def edit(tab: str, key: str, value: str, expect_text: str):
            form.locator(".lm-TabBar-tab").filter(has_text=re.compile(f"^{re.escape(tab)}$")).click()
            field = form.locator(".widget-text").filter(
                has=page.locator("label", has_text=re.compile(f"^{re.escape(key)}$"))).locator("input").first
            before = readout.inner_text()
            field.fill(value)
            field.press("Enter")
            expect(readout).to_contain_text(expect_text, timeout=UPDATE_TIMEOUT_MS)
            deadline = time.monotonic() + UPDATE_TIMEOUT_MS / 1000
            while readout.inner_text() == before:
                assert time.monotonic() < deadline, f"{tab} {key} = {value}: the readout did not change"
                time.sleep(0.2)
            assert page.locator(".vcperf-plan-message").inner_text().strip() == "", (
                page.locator(".vcperf-plan-message").inner_text())
            step(f"{tab}.{key} = {value}")
            return field

        # a loss without its unit: the plan's own error in the page, beside the form (no traceback); nothing applied
        form.locator(".lm-TabBar-tab").filter(has_text=re.compile("^Links$")).click()
        loss = form.locator(".widget-text").filter(has=page.locator("label", has_text=re.compile("^loss$")))
        before = readout.inner_text()
        loss.locator("input").fill("0.05")
        loss.locator("input").press("Enter")
        expect(page.locator(".vcperf-plan-message")).to_contain_text("links[0].loss must carry its unit",
                                                                     timeout=UPDATE_TIMEOUT_MS)
        assert readout.inner_text() == before and "Traceback" not in page.locator("body").inner_text()
        shot("2_refused", loss)
        field = edit("Links", "loss", "0.05 %", "My shop (edited) — link wan at 10 Mbit/s down / 10 Mbit/s up, "
                     "RTT 80 ms, loss 0.05 %")
        shot("3_loss", field)
        field = edit("Branches", "hosts", "30", "(edited)")
        field = edit("Targets", "operation_latency_s", "8 s", "8 s")
        shot("4_target", field)
        # a list item added and removed again (the form rebuilt twice; the plan as before)
        form.locator(".lm-TabBar-tab").filter(has_text=re.compile("^Branches$")).click()
        form.locator(".widget-button").filter(has_text=re.compile("^add a branch$")).click()
        expect(readout).to_contain_text("branch-1", timeout=UPDATE_TIMEOUT_MS)
        form.locator(".widget-button").filter(has_text=re.compile("^remove branch$")).nth(1).click()
        expect(readout).not_to_contain_text("branch-1", timeout=UPDATE_TIMEOUT_MS)
        step("a branch added and removed")
        page.locator(".widget-button").filter(has_text=re.compile("^smallest link$")).click()
        answer = page.locator(".vcperf-reverse")
        expect(answer).to_contain_text("smallest bandwidth of wan:", timeout=UPDATE_TIMEOUT_MS)
        step(f"asked: {answer.inner_text()[:200]}")
        shot("5_smallest_link", answer)
        files = {}
        for label in ("plan (YAML)", "answers (CSV)", "answers (JSON)"):
            with page.expect_download(timeout=UPDATE_TIMEOUT_MS) as info:
                page.locator(".vcperf-downloads a").filter(has_text=label).click()
            download = info.value
            path = tmp_path / download.suggested_filename
            download.save_as(path)
            files[label] = path
        step(f"downloaded {sorted(p.name for p in files.values())}")
        plan_file = files["plan (YAML)"]
        text = plan_file.read_text(encoding="utf-8")
        assert "loss: 0.05 %" in text and "hosts: 30" in text and "operation_latency_s: 8 s" in text, text
        vcperf = [str(Path(sys.executable).parent / "vcperf")]
        solve = ["--solve", "bandwidth", "--link", "wan"]
        for fmt, label in (("csv", "answers (CSV)"), ("json", "answers (JSON)")):
            out = subprocess.run([*vcperf, "plan", str(plan_file), "--format", fmt, *solve], capture_output=True,
                                 text=True, check=True, timeout=WAIT_S).stdout
            assert out == files[label].read_text(encoding="utf-8"), fmt
        md = subprocess.run([*vcperf, "plan", str(plan_file), *solve], capture_output=True, text=True, check=True,
                            timeout=WAIT_S).stdout
        asked = next(line for line in md.splitlines() if line.startswith("- ↔ smallest bandwidth of wan: "))
        value = asked.split(": ", 1)[1].split(",")[0].split(" — ")[0]
        assert f"smallest bandwidth of wan: {value}" in answer.inner_text(), (asked, answer.inner_text())
        doc = json.loads(files["answers (JSON)"].read_text(encoding="utf-8"))
        assert doc["name"] == "My shop" and doc["reverse"][0]["question"] == "smallest bandwidth"
        assert not page.locator("body").evaluate(_ERRORS_JS), "error output in the app"
        assert "Traceback" not in page.locator("body").inner_text()
    except (AssertionError, PlaywrightError) as e:
        raise AssertionError(f"{e}\nsteps:\n" + "\n".join(steps) + "\nbrowser errors:\n" + "\n".join(problems[-20:])
                             + f"\nvoila log (tail):\n{_tail(log)}") from e


# --------------------------------------------------------------------------------------------
# The report of a regeneration
# --------------------------------------------------------------------------------------------

REPORT_WIDTH_PX = 1280
_WIDE_TABLES_JS = f"""() => Array.from(document.querySelectorAll('table'))
  .map(t => {{ const r = t.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.right),
                                                          (t.innerText || '').slice(0, 60)]; }})
  .filter(x => x[0] > {REPORT_WIDTH_PX} || x[1] > {REPORT_WIDTH_PX})"""


def test_report_has_a_nav_and_no_table_wider_than_the_page(default_build, browser_page):
    """The report of the session's one default regeneration (tests/conftest.py)."""
    page, problems = browser_page
    page.set_viewport_size({"width": REPORT_WIDTH_PX, "height": 800})  # a laptop screen
    index = default_build / "report" / "index.html"
    page.goto(index.as_uri())
    assert page.locator("nav").count() >= 1, "the report index has no <nav>"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "report_index.png"))
    hrefs = page.locator("nav a").evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert len(hrefs) >= 8, hrefs
    for href in dict.fromkeys(["index.html", *hrefs]):
        page.goto((index.parent / href).as_uri())
        # a redirect page (pdoc's api/index.html) is judged by the page it leads to, once the browser is there
        page.wait_for_function("() => !document.querySelector('meta[http-equiv=\"refresh\"]')", timeout=WAIT_MS)
        page.wait_for_load_state()
        assert page.locator("nav").count() == 1, href
        assert page.evaluate(_WIDE_TABLES_JS) == [], f"{href}: tables wider than {REPORT_WIDTH_PX} px"
        assert page.evaluate("document.documentElement.scrollWidth") <= REPORT_WIDTH_PX, href
        assert page.locator("h1").first.inner_text().strip(), href
    page.goto((index.parent / "robo_networks.html").as_uri())
    page.screenshot(path=str(SCREENSHOTS / "report_robo_networks.png"))
    assert not problems, problems


#: In every table of a page: each number (with its unit or %) must sit on one line, and a note must be whole.
#: A token is broken when its characters' boxes lie on more than one line (Range.getClientRects tops).
_TABLE_PROBLEMS_JS = r"""() => {
  const UNIT = UNIT_JSON;
  const token = new RegExp("[-+−]?\\d[\\d,.]*(?:[eE][-+]?\\d+)?(?:[ \\u00a0]?" + UNIT + ")?", "g");
  const out = {broken: [], cut: [], enotation: []};
  for (const cell of document.querySelectorAll('main table td, main table th')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(token)) {
        const r = document.createRange();
        r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
        const tops = new Set(Array.from(r.getClientRects()).filter(b => b.width > 0).map(b => Math.round(b.top)));
        if (tops.size > 1) out.broken.push(m[0] + ' in "' + cell.innerText.slice(0, 60) + '"');
      }
    }
    if (cell.classList.contains('vc-note') && /(\.\.\.|…)\s*$/.test(cell.innerText))
      out.cut.push(cell.innerText.slice(-60));
  }
  for (const t of document.querySelectorAll('main table.vc-frame')) {
    const head = Array.from(t.rows[0] ? t.rows[0].cells : []).map(c => c.innerText.trim());
    const cols = head.map((h, i) => /^(paper|model)( value)?\b/.test(h) ? i : -1).filter(i => i >= 0);
    for (const row of Array.from(t.rows).slice(1))
      for (const i of cols)
        if (row.cells[i] && /\d[eE][-+]?\d/.test(row.cells[i].innerText)) out.enotation.push(row.cells[i].innerText);
  }
  return out;
}""".replace("UNIT_JSON", json.dumps(__import__("vcperf.report.tables", fromlist=["_UNIT"])._UNIT))


SHOWN_TABLES = ("vcha_overhead", "vmotion_precopy", "robo_operations", "ft_checkpointing")


def test_report_tables_keep_numbers_whole_notes_in_full_and_no_e_notation(default_build, browser_page):
    """At 1280 x 800, on every page of the report (the regeneration's): no table cell breaks a number or its unit
    across lines, no note ends cut with "..." and no paper or model value of a paper-vs-model table is printed in
    e-notation. Screenshots of the widest paper-vs-model tables go to build/screenshots/ (report_table_*.png)."""
    page, problems = browser_page
    page.set_viewport_size({"width": REPORT_WIDTH_PX, "height": 800})
    report_dir = default_build / "report"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    found = {}
    for html_page in sorted(report_dir.glob("*.html")):
        page.goto(html_page.as_uri())
        result = page.evaluate(_TABLE_PROBLEMS_JS)
        if any(result.values()):
            found[html_page.name] = result
        frames = page.locator("main table.vc-frame")
        if html_page.stem in SHOWN_TABLES and frames.count():
            widest = max(range(frames.count()), key=lambda i: frames.nth(i).bounding_box()["width"])
            frames.nth(widest).screenshot(path=str(SCREENSHOTS / f"report_table_{html_page.stem}.png"))
    assert not found, found
    assert not problems, problems


def test_voila_app_asks_no_outside_host_and_logs_no_console_error(voila_app, browser_page):
    """The app's page loads everything from its own server (no FontAwesome from a CDN: vcperf.app's Voila template)
    and its browser console shows no error (no jupytext extension failing, RUNTIME-012: it is not loaded)."""
    from playwright.sync_api import Error as PlaywrightError

    base, log, _server = voila_app
    page, problems = browser_page
    outside, console = [], []
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith((base, "data:", "blob:")) else None)
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}") if m.type == "error" else None)
    tabs = page.locator(".widget-tab .lm-TabBar-tab")
    for attempt in range(1, VOILA_PAGE_ATTEMPTS + 1):
        page.goto(f"{base}/", wait_until="domcontentloaded", timeout=PAGE_TIMEOUT_MS)
        try:
            tabs.first.wait_for(timeout=VOILA_LOAD_TIMEOUT_MS)
            break
        except PlaywrightError:
            assert attempt < VOILA_PAGE_ATTEMPTS, f"the Voila app never rendered:\n{_tail(log)}"
    page.wait_for_timeout(2000)  # late extension loads and their errors
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.screenshot(path=str(SCREENSHOTS / "voila_first_page_1280x800.png"))
    assert not outside, f"requests to outside hosts: {outside}"
    assert not [c for c in console if "jupytext" in c.lower() or "RUNTIME-012" in c], console
    assert not console, console
    assert not problems, problems
