"""The time a user sees: from a control change in JupyterLab (headless Chromium) to the new image loaded.

For every what-if panel of every notebook with an ``if interactive:`` cell (the panels the browser
test drives, found the same way: a widget VBox with an <img> child and a slider), the bench types a
new value into the panel's first editable slider readout and presses Enter, as a user would, several
times (alternating between two values). The time of one change is measured inside the page:
``performance.now()`` at the Enter keydown to the ``load`` of the panel's image with a new ``src``
(fully decoded: ``complete`` and ``naturalWidth > 0``). Between changes the panel settles (kernel
idle, nothing changed for a second), so each change is timed alone. The panel's number is the median.

The JupyterLab server, Chromium flags, isolated settings and the panel-finding JavaScript are the
browser test's (tests/test_browser.py), imported from it, so bench and test drive the same thing.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def helpers():
    """tests/test_browser.py as a module (its server settings, Chromium flags and panel helpers)."""
    spec = importlib.util.spec_from_file_location("vcperf_bench_browser_helpers", ROOT / "tests" / "test_browser.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@contextlib.contextmanager
def lab_server(h, workdir: Path) -> Iterator[str]:
    """A JupyterLab server over a copy of notebooks/ (every notebook built from its source), set up like the
    browser test's fixture; yields its base URL and stops it (and its kernels) on exit."""
    import nbformat

    from vcperf.params import read_notebook

    root = workdir / "notebooks"
    shutil.copytree(h.NOTEBOOKS, root, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "*.ipynb"))
    for src in sorted(root.glob("*.py")):
        nbformat.write(read_notebook(src), root / f"{src.stem}.ipynb")
    names = {"JUPYTER_CONFIG_DIR": "config", "JUPYTER_DATA_DIR": "data", "JUPYTER_RUNTIME_DIR": "runtime",
             "IPYTHONDIR": "ipython", "MPLCONFIGDIR": "matplotlib", "JUPYTERLAB_SETTINGS_DIR": "lab-settings",
             "JUPYTERLAB_WORKSPACES_DIR": "lab-workspaces"}
    dirs = {var: workdir / sub for var, sub in names.items()}
    for d in dirs.values():
        d.mkdir()
    for rel, settings in h.LAB_SETTINGS.items():
        f = dirs["JUPYTERLAB_SETTINGS_DIR"] / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(settings))
    (dirs["JUPYTER_CONFIG_DIR"] / "jupyter_server_config.json").write_text(json.dumps(h.SERVER_CONFIG))
    app_settings = workdir / "app-settings"
    app_settings.mkdir()
    shutil.copy(ROOT / "binder" / "overrides.json", app_settings / "overrides.json")

    bindir = Path(sys.executable).parent
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "JPY_"))}
    env.update({k: str(v) for k, v in dirs.items()})
    env["PATH"] = str(bindir) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONUNBUFFERED"] = "1"
    port = h._free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [str(bindir / "jupyter"), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           "--ServerApp.port_retries=0", "--IdentityProvider.token=", "--ServerApp.allow_root=True",
           f"--ServerApp.root_dir={root}", f"--LabApp.app_settings_dir={app_settings}"]
    log = workdir / "server.log"
    with open(log, "wb") as logf:
        proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=logf, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + h.SERVER_START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with {proc.returncode}:\n{h._tail(log)}")
            try:
                with urllib.request.urlopen(f"{base}/api/status", timeout=2) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"JupyterLab not ready after {h.SERVER_START_TIMEOUT_S} s:\n{h._tail(log)}")
            time.sleep(0.2)
        yield base
    finally:
        h._stop(proc)


# Arms the stopwatch of one change: t0 at the Enter keydown in ``field``, t1 when the panel's image has a
# src other than ``prev`` and is decoded (its load event, and a frame-by-frame check in case it was cached).
_ARM_JS = """([box, field, prev]) => {
  const st = {t0: null, t1: null};
  window.__vcbench = st;
  const check = () => {
    if (window.__vcbench !== st || st.t0 === null || st.t1 !== null) return;
    const img = Array.from(box.children).find(c => c.tagName === 'IMG');
    if (img && img.src && img.src !== prev && img.complete && img.naturalWidth > 0) st.t1 = performance.now();
  };
  field.addEventListener('keydown', e => {
    if (window.__vcbench === st && e.key === 'Enter' && st.t0 === null) st.t0 = performance.now();
  }, true);
  box.addEventListener('load', e => { if (e.target.tagName === 'IMG') check(); }, true);
  const frame = () => { check(); if (window.__vcbench === st && st.t1 === null) requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
}"""
_READ_JS = "() => window.__vcbench && window.__vcbench.t0 !== null && window.__vcbench.t1 !== null ? " \
           "window.__vcbench.t1 - window.__vcbench.t0 : null"


def _first_editable_readout(box):
    sliders = box.locator(".widget-slider")
    for i in range(sliders.count()):
        field = sliders.nth(i).locator(".widget-readout")
        if field.count() and field.get_attribute("contenteditable") in ("true", ""):
            return field, sliders.nth(i).locator(".widget-label").first.inner_text().strip()
    raise RuntimeError("no editable slider readout in the panel")


def time_one_change(page, h, box, field, value: str) -> float | None:
    """Type ``value`` into ``field`` + Enter; ms from the Enter to the new image loaded (None: no new image)."""
    before = h._settle_generic(box)
    page.evaluate(_ARM_JS, [box.element_handle(), field.element_handle(), before["src"]])
    field.click()
    field.fill(value)
    field.press("Enter")
    try:
        page.wait_for_function(_READ_JS, timeout=h.UPDATE_TIMEOUT_MS)
    except Exception:  # noqa: BLE001 - the picture did not change (a clamped value): no sample
        return None
    ms = page.evaluate(_READ_JS)
    h._settle_generic(box)
    return ms


class PanelDriver:
    """One panel: finds a value that moves its first slider, then times changes alternating two values."""

    def __init__(self, page, h, box):
        self.page, self.h, self.box = page, h, box
        self.field, self.caption = _first_editable_readout(box)
        self.values: list[str] = []  # [new, original] once a moving value is known

    def changes(self, n: int) -> list[float]:
        samples: list[float] = []
        if not self.values:
            original = self.field.inner_text().strip()
            for value in self.h._candidates(original):
                ms = time_one_change(self.page, self.h, self.box, self.field, value)
                if ms is not None:
                    samples.append(ms)
                    self.values = [original, value]  # next change goes back to the original
                    break
            if not self.values:
                raise RuntimeError(f"typing into {self.caption!r} never changed the picture")
        while len(samples) < n:
            value = self.values[0]
            ms = time_one_change(self.page, self.h, self.box, self.field, value)
            self.values.reverse()
            if ms is None:
                raise RuntimeError(f"no new picture after typing {value!r} into {self.caption!r}")
            samples.append(ms)
        return samples


def bench_browser(measure_panel: Callable[[str, Callable[[], tuple[float, dict]]], dict], changes: int = 5,
                  log: Callable[[str], None] = print, notebooks: list[str] | None = None) -> dict:
    """Per panel ``"<notebook>[i]"``: ``measure_panel(name, run)``'s record, ``run()`` timing ``changes`` changes.

    Returns ``{"status": ..., "panels": {name: record}}``; status says why nothing was measured (no
    Chromium, no Playwright).
    """
    try:
        h = helpers()
    except Exception as err:  # noqa: BLE001
        return {"status": f"not measured: browser helpers unavailable ({type(err).__name__}: {err})", "panels": {}}
    if h.CHROMIUM is None:
        return {"status": "not measured: no Chromium (make browser)", "panels": {}}
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {"status": "not measured: playwright not installed", "panels": {}}

    panels: dict[str, dict] = {}
    errors: dict[str, str] = {}
    workdir = Path(tempfile.mkdtemp(prefix="vcperf-bench-browser-"))
    try:
        with lab_server(h, workdir) as base, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=h.CHROMIUM, headless=True, args=h.CHROMIUM_ARGS,
                                         timeout=30_000)
            try:
                page = browser.new_page(viewport={"width": 1280, "height": 1400})
                page.set_default_timeout(h.UPDATE_TIMEOUT_MS)
                for nb in notebooks or h.PANEL_NOTEBOOKS:
                    try:
                        _bench_notebook(page, h, base, nb, changes, measure_panel, panels, log)
                    except Exception as err:  # noqa: BLE001 - one notebook failing must not stop the others
                        errors[nb] = f"{type(err).__name__}: {str(err)[:500]}"
                        log(f"  browser {nb}: {errors[nb]}")
                    finally:
                        h._shutdown_kernels(page, base)
            finally:
                browser.close()
    except Exception as err:  # noqa: BLE001
        errors["server"] = f"{type(err).__name__}: {str(err)[:500]}"
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return {"status": "ok" if not errors else "partial", "panels": panels, "errors": errors, "changes": changes}


def _bench_notebook(page, h, base, nb, changes, measure_panel, panels, log) -> None:
    def step(msg: str) -> None:
        log(f"  browser {msg}")

    panel = h._open_and_run_all(page, base, f"{nb}.ipynb", step)
    deadline = time.monotonic() + h.UPDATE_TIMEOUT_MS / 1000
    while (n := panel.evaluate(h._MARK_PANELS_JS)) == 0:
        if time.monotonic() > deadline:
            raise RuntimeError("no what-if panel after Run All")
        time.sleep(0.2)
    for i in range(n):
        box = panel.locator(f"[data-vcpanel='{i}']")
        box.scroll_into_view_if_needed()
        driver = PanelDriver(page, h, box)

        def run(driver=driver):
            samples = driver.changes(changes)
            return statistics.median(samples), {"samples_ms": samples, "control": driver.caption,
                                                "values": sorted(driver.values)}

        panels[f"{nb}[{i}]"] = measure_panel(f"browser {nb}[{i}] ({driver.caption})", run)
