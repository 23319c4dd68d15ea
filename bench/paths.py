"""The paths a person waits for (issue 31), here and at the previous release, measured in the same run.

Each function takes a ``measure(name, run, unit)`` callable (bench/measure.py, bound to the run's
load policy) and a :class:`Tree` (this checkout, or the previous release checked out by
:func:`baseline_tree`), and returns ``(headline value, measurement record)``:

- :func:`regenerate_cold` -- ``vcperf regenerate --jobs 2`` with an empty ``VCPERF_CACHE_DIR`` (a fresh
  temporary folder per attempt: every calibration is fitted again).
- :func:`app_first_render` -- the Voilà app (``python -m vcperf.app``) on a free port with isolated
  ``JUPYTER_*`` folders, warmed by one page load; then in headless Chromium, per load, from
  ``page.goto(url)`` until the first tab's panel shows a readout or picture (:data:`FIRST_PANEL_READY_JS`);
  the median of a few loads.
- :func:`setup` -- ``make``'s ``$(STAMP)`` recipe into a temporary folder: a fresh venv, the installer of
  ``requirements/bootstrap.txt`` (uv), the lock, then vcperf editable. The previous release's recipe
  (pip) at the baseline. The installer's cache is used as found; whether it was warm is recorded.
- :func:`make_test` -- ``ruff check .`` then the suite as ``make test`` runs it
  (``python -m pytest -n auto --dist loadgroup``; the baseline: serial ``python -m pytest``), with
  the test count.
- :func:`plan_wall` -- ``vcperf plan examples/branch_20_hosts_10mbit.yaml``, the whole process (interpreter start,
  imports, the plan), warm: the median of a few runs after one untimed.

Every command runs with Python's default, bytecode written (``PYTHONDONTWRITEBYTECODE`` removed from the
environment), unless ``dontwrite``: then with ``PYTHONDONTWRITEBYTECODE=1`` set, as many container images and CI
runners set it, so that the warm regeneration, the plan and the app's first render are measured both ways
(issue 41: the set-up compiles the bytecode, so the two should agree within 10 %). Each such record says how many
of the tree's own modules had current bytecode when it was measured (:func:`bytecode_state`).

The previous release is a git ref (``bench/run.py --baseline``) checked out with ``git worktree add
--detach`` under build/bench/baseline and removed afterwards; a path it does not have is not measured.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bench.user import regenerate_once
from bench.user import regenerate_warm as regenerate_warm_in

ROOT = Path(__file__).resolve().parent.parent
BASELINE_DIR = ROOT / "build" / "bench" / "baseline"
DEFAULT_BASELINE = "e84b8cd"  # the last commit landed before wave 3 (issue 31)
Measure = Callable[..., dict]

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
SERVER_START_TIMEOUT_S = 120.0
PAGE_TIMEOUT_MS = 120_000

#: True once the first tab of the app (the site planner) shows its answer: inside the first ``.widget-tab``'s
#: contents (not its tab bar), a visible HTML readout holding the planner's "answer (90 %)" heading -- the
#: same condition as tests/test_browser.py's first-page test, and the same text at the baseline release.
READY_SELECTOR = ".widget-html"
READY_TEXT = "answer (90 %)"
FIRST_PANEL_READY_JS = """(selector) => {
  const tab = document.querySelector('.widget-tab');
  if (!tab) return false;
  const visible = el => el.getClientRects().length > 0 && el.offsetWidth > 0 && el.offsetHeight > 0
    && !el.closest('.lm-mod-hidden, .p-mod-hidden');
  for (const el of tab.querySelectorAll(selector)) {
    if (el.closest('.lm-TabBar, .p-TabBar') || !visible(el)) continue;
    if (el.textContent.includes(READY_TEXT)) return true;
  }
  return false;
}""".replace("READY_TEXT", repr(READY_TEXT))


@dataclass
class Tree:
    """A checkout whose paths are measured: this one (``now``) or the previous release (``previous``)."""

    root: Path
    label: str = "now"
    commit: str = ""
    notes: dict = field(default_factory=dict)

    def env(self, **extra: str) -> dict:
        """The environment its commands run in: its package first on PYTHONPATH (and in every kernel); Python's
        default of writing bytecode unless ``extra`` sets ``PYTHONDONTWRITEBYTECODE`` (:data:`DONT_WRITE`)."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("JUPYTER", "JPY_")) and k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPATH"] = str(self.root)
        env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
        env.setdefault("MPLBACKEND", "Agg")
        env.update(extra)
        return env

    def has(self, rel: str) -> bool:
        return (self.root / rel).exists()


def _git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@contextlib.contextmanager
def baseline_tree(ref: str, where: Path = BASELINE_DIR) -> Iterator[Tree]:
    """``git worktree add --detach`` of ``ref`` at ``where``; removed on exit (only this worktree: no prune)."""
    if where.exists():  # a run that was killed left it behind
        subprocess.run(["git", "worktree", "remove", "--force", str(where)], cwd=ROOT, capture_output=True)
        shutil.rmtree(where, ignore_errors=True)
    where.parent.mkdir(parents=True, exist_ok=True)
    commit = _git("rev-parse", "--verify", f"{ref}^{{commit}}")
    _git("worktree", "add", "--detach", str(where), commit)
    try:
        yield Tree(root=where, label="previous", commit=commit, notes={"ref": ref})
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(where)], cwd=ROOT, capture_output=True)
        shutil.rmtree(where, ignore_errors=True)


def this_tree() -> Tree:
    try:
        commit = _git("rev-parse", "HEAD")
    except (subprocess.CalledProcessError, OSError):
        commit = ""
    return Tree(root=ROOT, commit=commit)


CLI = [sys.executable, "-m", "vcperf.cli"]  # the checkout's vcperf, by PYTHONPATH (not the venv's console script)
#: ``Tree.env(**DONT_WRITE)``: no process writes bytecode (only what the set-up compiled is read).
DONT_WRITE = {"PYTHONDONTWRITEBYTECODE": "1"}
PLAN = "examples/branch_20_hosts_10mbit.yaml"


def bytecode_state(tree: Tree) -> dict:
    """How many of ``tree``'s vcperf modules have a current ``.pyc`` (timestamp-checked: the source's mtime and
    size in its header; hash-checked ones counted as current) -- what a process with PYTHONDONTWRITEBYTECODE=1
    can read instead of compiling."""
    import importlib.util

    sources = sorted((tree.root / "vcperf").rglob("*.py"))
    current = 0
    for src in sources:
        try:
            head = Path(importlib.util.cache_from_source(str(src))).read_bytes()[:16]
        except OSError:
            continue
        st = src.stat()
        flags = int.from_bytes(head[4:8], "little")
        if len(head) == 16 and head[:4] == importlib.util.MAGIC_NUMBER and (flags & 1 or (
                int.from_bytes(head[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
                and int.from_bytes(head[12:16], "little") == st.st_size & 0xFFFFFFFF)):
            current += 1
    return {"modules": len(sources), "with_current_pyc": current}


# --------------------------------------------------------------------------------------------
# regenerate --jobs 2, warm and cold
# --------------------------------------------------------------------------------------------


def regenerate_warm(measure: Measure, tree: Tree, jobs: int = 2, dontwrite: bool = False
                    ) -> tuple[float | None, dict]:
    """Warm regeneration of ``tree`` (a warm-up regeneration fills its calibration cache first); ``dontwrite``:
    with PYTHONDONTWRITEBYTECODE=1 set."""
    state = bytecode_state(tree)
    value, rec = regenerate_warm_in(measure, jobs, warmup=True, root=tree.root,
                                    env=tree.env(**(DONT_WRITE if dontwrite else {})), command=CLI,
                                    label=f"[{tree.label}] " + ("PYTHONDONTWRITEBYTECODE=1 " if dontwrite else ""))
    rec["bytecode"] = {**state, "dont_write": dontwrite}
    return value, rec


def regenerate_cold(measure: Measure, tree: Tree, jobs: int = 2) -> tuple[float | None, dict]:
    """``vcperf regenerate --jobs`` with a fresh, empty ``VCPERF_CACHE_DIR`` per attempt."""
    scratch = Path(tempfile.mkdtemp(prefix="vcperf-bench-cold-"))
    counter = iter(range(1000))

    def run():
        i = next(counter)
        cache = scratch / f"cache-{i}"
        cache.mkdir()
        return regenerate_once(scratch / f"out-{i}", jobs, root=tree.root,
                               env=tree.env(VCPERF_CACHE_DIR=str(cache)), command=CLI)

    try:
        rec = measure(f"[{tree.label}] regenerate --jobs {jobs} (cold cache)", run, unit="s")
        return rec["value"], rec
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# The Voilà app's first render
# --------------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: Path, n: int = 3000) -> str:
    try:
        return path.read_text(errors="replace")[-n:]
    except OSError:
        return ""


@contextlib.contextmanager
def voila_app(tree: Tree, workdir: Path, dontwrite: bool = False) -> Iterator[str]:
    """``python -m vcperf.app`` of ``tree`` on a free port, isolated ``JUPYTER_*`` folders; yields its URL
    (``dontwrite``: the server and its kernels with PYTHONDONTWRITEBYTECODE=1 set)."""
    extra = dict(DONT_WRITE) if dontwrite else {}
    for var, sub in [("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                     ("JUPYTER_RUNTIME_DIR", "runtime"), ("IPYTHONDIR", "ipython"), ("MPLCONFIGDIR", "matplotlib")]:
        (workdir / sub).mkdir(parents=True, exist_ok=True)
        extra[var] = str(workdir / sub)
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    log = workdir / "voila.log"
    cmd = [sys.executable, "-m", "vcperf.app", "--port", str(port), "--output", str(workdir / "app")]
    with open(log, "wb") as logf:
        proc = subprocess.Popen(cmd, cwd=tree.root, env=tree.env(**extra), stdout=logf, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"Voila exited with {proc.returncode}:\n{_tail(log)}")
            try:  # any answer from /voila/static/ means it serves ('/' would start a kernel)
                urllib.request.urlopen(f"{base}/voila/static/", timeout=2).close()
                break
            except urllib.error.HTTPError:
                break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"Voila not ready after {SERVER_START_TIMEOUT_S} s:\n{_tail(log)}")
            time.sleep(0.2)
        yield base
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen) -> None:
    """Stop the server and its kernels (its own process group, started by us)."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 15)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 9)
            proc.wait(timeout=10)


def time_first_render(browser, url: str, timeout_ms: int = PAGE_TIMEOUT_MS) -> float:
    """Seconds from ``page.goto(url)`` until the first tab's panel shows (a fresh browser context: no cache)."""
    context = browser.new_context(viewport={"width": 1280, "height": 1400})
    try:
        page = context.new_page()
        t0 = time.perf_counter()
        page.goto(url, wait_until="commit", timeout=timeout_ms)
        page.wait_for_function(FIRST_PANEL_READY_JS, arg=READY_SELECTOR, polling="raf", timeout=timeout_ms)
        return time.perf_counter() - t0
    finally:
        context.close()


def app_first_render(measure: Measure, tree: Tree, loads: int = 3, page_attempts: int = 3, dontwrite: bool = False
                     ) -> tuple[float | None, dict]:
    """Median over ``loads`` page loads of the app's first render, after one warm-up load (untimed); ``dontwrite``:
    the app started with PYTHONDONTWRITEBYTECODE=1 set."""
    if not tree.has("vcperf/app.py"):
        return None, {"status": "not measured: no vcperf/app.py"}
    if CHROMIUM is None:
        return None, {"status": "not measured: no Chromium (make browser)"}
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None, {"status": "not measured: playwright not installed"}
    workdir = Path(tempfile.mkdtemp(prefix="vcperf-bench-app-"))
    try:
        state = bytecode_state(tree)
        with voila_app(tree, workdir, dontwrite) as base, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, timeout=30_000)
            try:
                def one_load() -> float:  # Voila sometimes never finishes a page load: reload, as the browser test
                    for attempt in range(page_attempts):
                        try:
                            return time_first_render(browser, f"{base}/")
                        except PlaywrightError:
                            if attempt + 1 == page_attempts:
                                raise
                    raise AssertionError("not reached")

                warmup = one_load()

                def run():
                    samples = [one_load() for _ in range(loads)]
                    return statistics.median(samples), {"samples_s": samples}

                rec = measure(f"[{tree.label}] app first render" + (", PYTHONDONTWRITEBYTECODE=1" if dontwrite else ""),
                              run, unit="s")
                rec["warmup_s"] = warmup
                rec["selector"] = READY_SELECTOR
                rec["bytecode"] = {**state, "dont_write": dontwrite}
                return rec["value"], rec
            finally:
                browser.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# Set-up: a fresh venv with the lock and vcperf editable
# --------------------------------------------------------------------------------------------


def _cache_state(installer: str) -> dict:
    """Where the installer's cache is and whether it held anything before the set-up (warm)."""
    if installer == "uv":
        where = Path(os.environ.get("UV_CACHE_DIR") or Path.home() / ".cache" / "uv")
    else:
        where = Path(os.environ.get("PIP_CACHE_DIR") or Path.home() / ".cache" / "pip")
    warm = where.is_dir() and any(p.is_dir() for p in where.iterdir())
    links = os.environ.get("UV_FIND_LINKS" if installer == "uv" else "PIP_FIND_LINKS")  # a local wheel folder
    return {"installer": installer, "cache_dir": str(where), "cache_warm": bool(warm), "find_links": links}


def setup_commands(tree: Tree, venv: Path, installer: str) -> list[list[str]]:
    """The ``$(STAMP)`` recipe's commands, as ``make`` runs them (``installer``: ``uv`` now, ``pip`` before)."""
    base = shutil.which("python3.11") or sys.executable
    py, pip = str(venv / "bin" / "python"), [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                                              "--disable-pip-version-check"]
    cmds = [[base, "-m", "venv", str(venv)]]
    if installer == "uv":
        uv = str(venv / "bin" / "uv")
        cmds += [[*pip, "-r", "requirements/bootstrap.txt"],
                 [uv, "pip", "install", "--quiet", "--python", py, "-r", "requirements/lock.txt", "--compile-bytecode"],
                 [uv, "pip", "install", "--quiet", "--python", py, "--no-deps", "-e", "."]]
        if "-m compileall" in (tree.root / "Makefile").read_text():  # the package's bytecode (issue 41)
            cmds.append([py, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "timestamp", "vcperf"])
    else:
        cmds += [[*pip, "-r", "requirements/lock.txt"], [*pip, "--no-deps", "-e", "."]]
    return cmds


def setup(measure: Measure, tree: Tree, installer: str | None = None) -> tuple[float | None, dict]:
    """Wall time of the set-up recipe into a temporary venv (removed after); uv if the tree pins it, else pip."""
    installer = installer or ("uv" if tree.has("requirements/bootstrap.txt") else "pip")
    state = _cache_state(installer)
    scratch = Path(tempfile.mkdtemp(prefix="vcperf-bench-setup-"))
    counter = iter(range(1000))

    def run():
        venv = scratch / f"venv-{next(counter)}"
        steps = []
        t0 = time.perf_counter()
        env = {k: v for k, v in tree.env().items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        for cmd in setup_commands(tree, venv, installer):
            t1 = time.perf_counter()
            proc = subprocess.run(cmd, cwd=tree.root, env=env, capture_output=True, text=True, timeout=3600)
            steps.append({"command": " ".join(Path(c).name if i == 0 else c for i, c in enumerate(cmd[:4])),
                          "s": time.perf_counter() - t1})
            if proc.returncode:
                return None, {"steps": steps, "returncode": proc.returncode, "stderr_tail": proc.stderr[-1500:]}
        wall = time.perf_counter() - t0
        shutil.rmtree(venv, ignore_errors=True)
        return wall, {"steps": steps}

    try:
        rec = measure(f"[{tree.label}] set-up ({installer})", run, unit="s")
        rec.update(state)
        return rec["value"], rec
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# make test
# --------------------------------------------------------------------------------------------

_SUMMARY_RE = re.compile(r"(\d+) (passed|failed|skipped|xfailed|xpassed|errors?|deselected)\b")


def pytest_counts(output: str) -> dict[str, int]:
    """Outcome -> count from pytest's last summary line (``== 1772 passed, 3 skipped in 680.1s ==``)."""
    lines = [line for line in output.splitlines() if re.search(r"\b(passed|failed|error)\b.* in [0-9.]+s", line)]
    counts: dict[str, int] = {}
    for n, outcome in _SUMMARY_RE.findall(lines[-1] if lines else ""):
        key = "error" if outcome.startswith("error") else outcome
        counts[key] = counts.get(key, 0) + int(n)
    return counts


#: ``make test-fast``'s selection (the Makefile's FAST_MARKERS).
FAST_MARKERS = "not slow and not browser and not kernel"


def make_test(measure: Measure, tree: Tree, parallel: bool = True, pytest_args: tuple[str, ...] = (),
              fast: bool = False) -> tuple[float | None, dict]:
    """Wall time of ``ruff check .`` + the suite (``-n auto --dist loadgroup`` when ``parallel``); the test count
    (passed + failed + errors + skipped + xfailed + xpassed) is kept beside it. ``fast``: ``make test-fast``'s
    tier instead (``-n auto -m FAST_MARKERS``)."""
    ruff = Path(sys.executable).with_name("ruff")
    xdist = ["-n", "auto"] + ([] if fast else ["--dist", "loadgroup"]) if parallel else []
    tier = ["-m", FAST_MARKERS] if fast else []
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *xdist, *tier, *pytest_args]

    def run():
        cpu0 = _children_cpu_s()
        t0 = time.perf_counter()
        lint = subprocess.run([str(ruff) if ruff.exists() else "ruff", "check", "."], cwd=tree.root, env=tree.env(),
                              capture_output=True, text=True, timeout=600)
        lint_s = time.perf_counter() - t0
        proc = subprocess.run(pytest, cwd=tree.root, env=tree.env(), capture_output=True, text=True, timeout=7200)
        wall = time.perf_counter() - t0
        counts = pytest_counts(proc.stdout)
        detail = {"ruff_returncode": lint.returncode, "ruff_s": lint_s, "pytest_returncode": proc.returncode,
                  "counts": counts, "tests": sum(v for k, v in counts.items() if k != "deselected"),
                  "command": " ".join(["python", *pytest[1:]]), "mode": "parallel" if parallel else "serial",
                  "cpu_s": _children_cpu_s() - cpu0}
        if proc.returncode not in (0, 1) or not counts:  # 1: some test failed, the time still counts
            detail["stdout_tail"] = proc.stdout[-1500:]
            return None, detail
        return wall, detail

    what = "make test-fast" if fast else f"make test ({'parallel' if parallel else 'serial'})"
    rec = measure(f"[{tree.label}] {what}", run, unit="s")
    return rec["value"], rec


def _children_cpu_s() -> float:
    """CPU seconds (user + system) of the finished child processes of this one (the suite's workers included)."""
    t = os.times()
    return t.children_user + t.children_system


def make_test_fast(measure: Measure, tree: Tree, runs: int = 3) -> tuple[float | None, dict]:
    """``make test-fast`` (ruff + the fast tier on every core), ``runs`` times: the median wall time, with each
    run's record (its load, CPU seconds and test count) kept beside it. Not measured at a release without the
    tier's markers."""
    if "FAST_MARKERS" not in (tree.root / "Makefile").read_text():
        return None, {"status": "not measured: this release has no `make test-fast`"}
    recs = [make_test(measure, tree, fast=True)[1] for _ in range(max(1, runs))]
    done = sorted((r for r in recs if r["value"] is not None), key=lambda r: r["value"])
    if not done:
        return None, {**recs[-1], "runs": recs}
    mid = done[len(done) // 2]  # the median run's record (its load, CPU and count), every run beside it
    return mid["value"], {**mid, "runs_s": [r["value"] for r in done], "runs": recs}


# --------------------------------------------------------------------------------------------
# vcperf plan, the whole process
# --------------------------------------------------------------------------------------------


def plan_wall(measure: Measure, tree: Tree, repeats: int = 5, dontwrite: bool = False) -> tuple[float | None, dict]:
    """Wall time of the whole ``vcperf plan examples/branch_20_hosts_10mbit.yaml`` process (interpreter start,
    imports, the plan), warm: one untimed run (fills the calibration cache, writes bytecode unless ``dontwrite``),
    then the median of ``repeats`` runs."""
    if not (tree.has(PLAN) and tree.has("vcperf/site")):
        return None, {"status": f"not measured: no {PLAN} or vcperf/site"}
    env = tree.env(**(DONT_WRITE if dontwrite else {}))
    cmd = [*CLI, "plan", PLAN]

    def once() -> float:
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=tree.root, env=env, capture_output=True, text=True, timeout=600)
        wall = time.perf_counter() - t0
        if proc.returncode:
            raise RuntimeError(f"vcperf plan exited with {proc.returncode}: {proc.stderr[-1000:]}")
        return wall

    warmup = once()
    state = bytecode_state(tree)

    def run():
        samples = [once() for _ in range(repeats)]
        return statistics.median(samples), {"samples_s": samples}

    rec = measure(f"[{tree.label}] vcperf plan (whole process)" + (", PYTHONDONTWRITEBYTECODE=1" if dontwrite else ""),
                  run, unit="s")
    rec.update({"warmup_s": warmup, "command": f"python -m vcperf.cli plan {PLAN}",
                "bytecode": {**state, "dont_write": dontwrite}})
    return rec["value"], rec


# --------------------------------------------------------------------------------------------
# One checkout's paths
# --------------------------------------------------------------------------------------------

#: bench/run.py part -> headline keys it measures here (the warm regeneration of this checkout, unset, is
#: bench/user.py's).
PART_KEYS = {"cold": "regenerate_cold_s", "app": "app_first_render_s", "setup": "setup_s", "tests": "make_test_s",
             "plan": "plan_wall_s", "testfast": "make_test_fast_s"}
#: Part ``bytecode``: the same paths with PYTHONDONTWRITEBYTECODE=1 set, beside their unset rows (issue 41).
BYTECODE_KEYS = {"plan_wall_dontwrite_s": "plan_wall_s", "regenerate_warm_dontwrite_s": "regenerate_warm_s",
                 "app_first_render_dontwrite_s": "app_first_render_s"}


def measure_tree(measure: Measure, tree: Tree, parts: set[str], *, jobs: int = 2, app_loads: int = 3,
                 warm: bool = False, parallel: bool = True, pytest_args: tuple[str, ...] = (),
                 log: Callable[[str], None] = print) -> dict[str, tuple[float | None, dict]]:
    """Headline key -> ``(value, record)`` of the ``parts`` measured on ``tree`` (``warm``: also
    ``regenerate_warm_s``)."""
    steps = [("regenerate_warm_s", warm, f"vcperf regenerate --jobs {jobs} (warm)",
              lambda: regenerate_warm(measure, tree, jobs)),
             ("regenerate_cold_s", "cold" in parts, f"vcperf regenerate --jobs {jobs}, empty calibration cache",
              lambda: regenerate_cold(measure, tree, jobs)),
             ("app_first_render_s", "app" in parts, "Voila app: first render in Chromium",
              lambda: app_first_render(measure, tree, loads=app_loads)),
             ("setup_s", "setup" in parts, "set-up: fresh venv, lock, vcperf editable", lambda: setup(measure, tree)),
             ("make_test_s", "tests" in parts, f"make test ({'parallel' if parallel else 'serial'}; minutes)",
              lambda: make_test(measure, tree, parallel=parallel, pytest_args=pytest_args)),
             ("make_test_fast_s", "testfast" in parts, "make test-fast (3 runs; minutes)",
              lambda: make_test_fast(measure, tree)),
             ("plan_wall_s", "plan" in parts, "vcperf plan, whole process, warm", lambda: plan_wall(measure, tree)),
             ("plan_wall_dontwrite_s", "bytecode" in parts, "vcperf plan, whole process, PYTHONDONTWRITEBYTECODE=1",
              lambda: plan_wall(measure, tree, dontwrite=True)),
             ("regenerate_warm_dontwrite_s", "bytecode" in parts,
              f"vcperf regenerate --jobs {jobs} (warm), PYTHONDONTWRITEBYTECODE=1",
              lambda: regenerate_warm(measure, tree, jobs, dontwrite=True)),
             ("app_first_render_dontwrite_s", "bytecode" in parts, "Voila app first render, PYTHONDONTWRITEBYTECODE=1",
              lambda: app_first_render(measure, tree, loads=app_loads, dontwrite=True))]
    out: dict[str, tuple[float | None, dict]] = {}
    for key, wanted, what, step in steps:
        if not wanted:
            continue
        log(f"[{tree.label}] {what} ...")
        try:
            out[key] = step()
        except Exception as err:  # noqa: BLE001 - a path that cannot be measured shows "—"; the bench goes on
            out[key] = (None, {"status": f"not measured: {type(err).__name__}: {str(err)[:1000]}"})
            log(f"  {out[key][1]['status']}")
    return out
