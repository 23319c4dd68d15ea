"""``make app``: the what-if planner (``notebooks/app.py``) as a Voilà app on 127.0.0.1.

Voilà's own server reads files with Jupyter's plain contents manager, which opens a jupytext
``.py`` as one code cell (the title and prose would be lost). So the app's ``.ipynb`` is built first
from its percent source, deterministically (cell ids ``cell-NN``, no outputs), into
``build/app/app.ipynb``; every study's calibration is computed into the disk cache (the app's kernels
read it, never refit); then Voilà serves it, without code, on 127.0.0.1::

    python -m vcperf.app [--port 8866] [--output build/app]

A page opens at once: one kernel is kept pre-heated (the notebook already run, the first tab -- the
site planner -- built; the other tabs are built when first opened). A kernel whose page is closed is
shut down after :data:`CULL_IDLE_TIMEOUT_S` idle seconds (:func:`voila_command`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from vcperf import protocol, studies
from vcperf.params import read_notebook
from vcperf.regenerate.forkserver import skip_unused_format_checker

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "notebooks" / "app.py"
DEFAULT_DIR = ROOT / "build" / "app"
DEFAULT_PORT = 8866
#: A kernel whose page is closed (no browser connected) and that has been idle this long is shut down (a
#: page that is open keeps its kernel however long it idles). Voilà's own shut-down request when a page
#: closes is refused (no XSRF token), so without this every closed page kept its kernel until the server stopped.
CULL_IDLE_TIMEOUT_S = 120
#: How often Voilà looks for such kernels.
CULL_INTERVAL_S = 30


def build_notebook(output: Path = DEFAULT_DIR, source: Path = SOURCE) -> Path:
    """Write ``<output>/<source stem>.ipynb`` from the jupytext source; return its path.

    Byte-identical from run to run (the same bytes are not rewritten, so its time stamp stays).
    """
    import nbformat

    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    nb = read_notebook(source)
    target = output / f"{Path(source).stem}.ipynb"
    text = nbformat.writes(nb) + "\n"
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")
    return target


def voila_command(notebook: Path, port: int = DEFAULT_PORT, cull_idle_timeout_s: int = CULL_IDLE_TIMEOUT_S,
                  cull_interval_s: int = CULL_INTERVAL_S) -> list[str]:
    """The Voilà command line serving ``notebook`` on 127.0.0.1:``port`` (no browser, no code).

    One kernel is kept pre-heated (the notebook already run in it, its first tab built), so a page
    opens at once; another is started after each page is served. A kernel that no page is connected to
    any more (a closed tab, a lost connection) is shut down after ``cull_idle_timeout_s`` seconds of
    idleness, checked every ``cull_interval_s`` seconds (the pre-heated kernel is never culled).

    Parameters
    ----------
    notebook : pathlib.Path
        The ``.ipynb`` to serve (:func:`build_notebook`).
    port : int
        Port on 127.0.0.1.
    cull_idle_timeout_s, cull_interval_s : int
        Seconds (>= 1) before an idle, unconnected kernel is shut down; seconds between checks.

    Examples
    --------
    >>> cmd = voila_command(Path("app.ipynb"), 8866, cull_idle_timeout_s=120)
    >>> "--MappingKernelManager.cull_idle_timeout=120" in cmd and "--Voila.ip=127.0.0.1" in cmd
    True
    """
    for name, value in (("cull_idle_timeout_s", cull_idle_timeout_s), ("cull_interval_s", cull_interval_s)):
        if not (isinstance(value, int) and value >= 1):
            raise ValueError(f"{name} must be an integer number of seconds >= 1; got {value!r}")
    voila = Path(sys.executable).parent / "voila"
    return [str(voila) if voila.exists() else "voila", str(notebook), "--no-browser", "--Voila.ip=127.0.0.1",
            f"--port={port}", "--Voila.port_retries=0", "--strip_sources=True",
            "--preheat_kernel=True", "--pool_size=1",
            # the importable name, not __name__ (which is __main__ under `python -m vcperf.app`)
            "--VoilaConfiguration.multi_kernel_manager_class=vcperf.app.AppKernelManager",
            f"--MappingKernelManager.cull_idle_timeout={cull_idle_timeout_s}",
            f"--MappingKernelManager.cull_interval={cull_interval_s}",
            "--MappingKernelManager.cull_connected=False", "--MappingKernelManager.cull_busy=False"]


def _app_kernel_manager():
    """The class :data:`AppKernelManager`, built when Voilà first asks for it: ``python -m vcperf.app`` itself
    never imports the Jupyter server (seconds of imports before it can print its URL)."""
    from jupyter_server._tz import utcnow
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

    class AppKernelManager(AsyncMappingKernelManager):
        """Voilà's kernel manager for the app: a kernel's idle time is counted from when it left the pre-heated
        pool.

        A pre-heated kernel may wait in the pool for hours (Voilà never culls it there); once a page takes it,
        its last activity is that old, so the culler could shut it down before the page's browser has even
        connected. Here the first cull check that sees a kernel outside the pool restarts its idle clock: it
        is culled only after :data:`CULL_IDLE_TIMEOUT_S` more seconds idle with no page connected.
        """

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self._seen_unpooled: set = set()

        async def cull_kernel_if_idle(self, kernel_id):
            if kernel_id not in self._seen_unpooled:
                self._seen_unpooled.add(kernel_id)
                kernel = self._kernels.get(kernel_id)
                if kernel is not None and hasattr(kernel, "last_activity"):
                    kernel.last_activity = utcnow()
                return None
            return await super().cull_kernel_if_idle(kernel_id)

    AppKernelManager.__module__ = "vcperf.app"  # the importable name Voilà is given (also under python -m)
    AppKernelManager.__qualname__ = "AppKernelManager"
    return AppKernelManager


def __getattr__(name: str):
    """``vcperf.app.AppKernelManager`` (:func:`_app_kernel_manager`), built once on first access."""
    if name == "AppKernelManager":
        cls = globals()["AppKernelManager"] = _app_kernel_manager()
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def warm_cache() -> None:
    """Compute every study's calibration and its uncertainty into the disk cache (:func:`vcperf.protocol.calibrated`,
    :func:`vcperf.protocol.uncertainty`), so the app's kernels read them and never refit (seconds once per
    source change, milliseconds after)."""
    for name in studies.names():
        protocol.calibrated(name)
        protocol.uncertainty(name)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vcperf.app", description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port on 127.0.0.1 (default {DEFAULT_PORT})")
    ap.add_argument("--output", type=Path, default=DEFAULT_DIR, help="folder for the built app.ipynb")
    ap.add_argument("--build-only", action="store_true", help="write the .ipynb and exit")
    args = ap.parse_args(argv)
    if not 1 <= args.port <= 65535:
        raise SystemExit(f"--port must be in 1..65535; got {args.port}")
    skip_unused_format_checker()  # nbformat validates without format checks: no IRI grammars built (seconds)
    nb = build_notebook(args.output)
    print(f"vcperf app: {nb}", file=sys.stderr)
    if args.build_only:
        return 0
    warm_cache()
    cmd = voila_command(nb, args.port)
    print(f"vcperf app: http://127.0.0.1:{args.port}/  ({' '.join(cmd)})", file=sys.stderr, flush=True)
    os.execv(cmd[0], cmd) if os.path.isabs(cmd[0]) else os.execvp(cmd[0], cmd)
    return 0  # not reached


if __name__ == "__main__":
    raise SystemExit(main())
