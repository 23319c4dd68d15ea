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

Neighbours (:class:`AppKernelManager`, :class:`SameOriginIdentityProvider`): every page costs a kernel
(~200 MB), so the server holds at most ``--max-kernels`` (:func:`default_max_kernels`, or
``$VCPERF_APP_MAX_KERNELS``) kernels, the pre-heated one included; past it a page gets "503 busy, try
again" instead of a new kernel. A kernel whose page never connected to it (a GET whose client went away)
is shut down after :data:`UNCONNECTED_TIMEOUT_S` seconds, busy or not. And a page is served only to a
request that is not cross-site (the browser's ``Sec-Fetch-Site`` header, and ``Origin`` when sent): a web
page the user visits cannot make the browser open the app (an image, a frame, a fetch, a link) and start
kernels. A same-origin check rather than a per-server token: the app is a local tool opened by typing or
clicking its printed URL (``Sec-Fetch-Site: none``), with nothing to copy; a token would be one more
thing to leak in shell history and logs, and on Binder the app runs behind the Jupyter server, whose
own token/cookie authenticates the user and whose proxy keeps pages same-origin.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

from vcperf import protocol, studies
from vcperf.params import read_notebook, skip_unused_format_checker

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "notebooks" / "app.py"
DEFAULT_DIR = ROOT / "build" / "app"
DEFAULT_PORT = 8866
#: A kernel whose page is closed (no browser connected) and that has been idle this long is shut down (a
#: page that is open keeps its kernel however long it idles). Voilà's own shut-down request when a page
#: closes is refused (no XSRF token), so without this every closed page kept its kernel until the server stopped.
CULL_IDLE_TIMEOUT_S = 120
#: How often Voilà looks for such kernels (and for kernels no page ever connected to).
CULL_INTERVAL_S = 5
#: A kernel no page has connected to this long after it left the pre-heated pool (its page's client went
#: away before the page loaded) is shut down, busy or not: a page connects within seconds of being served.
UNCONNECTED_TIMEOUT_S = 45
#: The environment variable overriding :func:`default_max_kernels`.
MAX_KERNELS_ENV = "VCPERF_APP_MAX_KERNELS"


def default_max_kernels() -> int:
    """The most kernels the app runs at once, the pre-heated one included: ``$VCPERF_APP_MAX_KERNELS``, else
    ``max(4, 2 x cores)`` (a kernel mostly waits for its page; a closed page's kernel lives until culled).

    Examples
    --------
    >>> default_max_kernels() >= 2
    True
    """
    text = os.environ.get(MAX_KERNELS_ENV, "").strip()
    if text:
        if not text.isdecimal() or not 2 <= int(text) <= 1000:
            raise ValueError(f"{MAX_KERNELS_ENV} must be an integer in [2, 1000]; got {text!r}")
        return int(text)
    return max(4, 2 * (os.cpu_count() or 1))


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
                  cull_interval_s: int = CULL_INTERVAL_S, max_kernels: int | None = None,
                  unconnected_timeout_s: int = UNCONNECTED_TIMEOUT_S) -> list[str]:
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
    max_kernels : int, optional
        Most kernels at once, >= 2 (default :func:`default_max_kernels`); past it a page is "busy".
    unconnected_timeout_s : int
        Seconds (>= 1) before a kernel that no page ever connected to is shut down.

    Examples
    --------
    >>> cmd = voila_command(Path("app.ipynb"), 8866, cull_idle_timeout_s=120)
    >>> "--MappingKernelManager.cull_idle_timeout=120" in cmd and "--Voila.ip=127.0.0.1" in cmd
    True
    """
    for name, value in (("cull_idle_timeout_s", cull_idle_timeout_s), ("cull_interval_s", cull_interval_s),
                        ("unconnected_timeout_s", unconnected_timeout_s)):
        if not (isinstance(value, int) and not isinstance(value, bool) and value >= 1):
            raise ValueError(f"{name} must be an integer number of seconds >= 1; got {value!r}")
    max_kernels = default_max_kernels() if max_kernels is None else max_kernels
    if not (isinstance(max_kernels, int) and not isinstance(max_kernels, bool) and 2 <= max_kernels <= 1000):
        raise ValueError(f"max_kernels must be an integer in [2, 1000]; got {max_kernels!r}")
    voila = Path(sys.executable).parent / "voila"
    return [str(voila) if voila.exists() else "voila", str(notebook), "--no-browser", "--Voila.ip=127.0.0.1",
            f"--port={port}", "--Voila.port_retries=0", "--strip_sources=True",
            "--preheat_kernel=True", "--pool_size=1",
            # the importable name, not __name__ (which is __main__ under `python -m vcperf.app`)
            "--VoilaConfiguration.multi_kernel_manager_class=vcperf.app.AppKernelManager",
            f"--MappingKernelManager.cull_idle_timeout={cull_idle_timeout_s}",
            f"--MappingKernelManager.cull_interval={cull_interval_s}",
            "--MappingKernelManager.cull_connected=False", "--MappingKernelManager.cull_busy=False",
            f"--AppKernelManager.max_kernels={max_kernels}",
            f"--AppKernelManager.unconnected_timeout={unconnected_timeout_s}",
            "--Voila.identity_provider_class=vcperf.app.SameOriginIdentityProvider",
            # jupytext's JupyterLab extension has no notebook panel to attach to in Voila (a console error,
            # RUNTIME-012): not loaded; the page's template without CDN style sheets where the set-up installed it.
            "--VoilaConfiguration.extension_denylist=['jupyterlab-jupytext']",
            *([f"--VoilaConfiguration.template={TEMPLATE}"] if _template_installed() else [])]


#: The app's Voila template (binder/voila/templates/vcperf: Voila's lab template without CDN style sheets),
#: which the set-up installs into the environment's share/jupyter/voila/templates/.
TEMPLATE = "vcperf"


def _template_installed() -> bool:
    from jupyter_core.paths import jupyter_path

    return any((Path(d) / "index.html.j2").is_file() for d in jupyter_path("voila", "templates", TEMPLATE))


def _app_classes() -> dict:
    """The Voilà classes of the app (:class:`SameOriginIdentityProvider`, :class:`AppKernelManager`), built when
    Voilà first asks for them: ``python -m vcperf.app`` itself never imports the Jupyter server (seconds of
    imports before it can print its URL)."""
    from jupyter_server.auth.identity import PasswordIdentityProvider
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
    from tornado.web import HTTPError
    from traitlets import Integer, default

    class SameOriginIdentityProvider(PasswordIdentityProvider):
        """Voilà's identity provider, refusing (403) a request a browser marks as cross-site.

        ``Sec-Fetch-Site`` (sent by every current browser) is ``none`` for a URL typed or opened from outside
        a page and ``same-origin`` for the app's own requests; ``cross-site`` or ``same-site`` (another port
        of 127.0.0.1 is the same site) means another page asked, and no kernel is started for it. An
        ``Origin`` header, when sent, must be the app's own. A client that sends neither (``curl``, a local
        program) is served: it could reach the kernels' host anyway.
        """

        def get_user(self, handler):
            request = handler.request
            site = request.headers.get("Sec-Fetch-Site", "").strip().lower()
            origin = request.headers.get("Origin")
            foreign = origin is not None and origin.split("://", 1)[-1] != request.host
            if site in ("cross-site", "same-site") or foreign:
                raise HTTPError(403, "cross-site request refused: open the app's address directly",
                                reason="Cross-site request refused")
            return super().get_user(handler)


    class AppKernelManager(AsyncMappingKernelManager):
        """Voilà's kernel manager for the app: a bounded number of kernels, and idle clocks that suit a pool.

        - At most :attr:`max_kernels` kernels at once (starting ones included). A page that would need one
          more is answered "503 busy, try again"; refilling the pre-heated pool waits for a free slot.
        - A pre-heated kernel may wait in the pool for hours (Voilà never culls it there); once a page takes it,
          its last activity is that old, so the culler could shut it down before the page's browser has even
          connected. Here the first cull check that sees a kernel outside the pool restarts its idle clock: it
          is culled only after :data:`CULL_IDLE_TIMEOUT_S` more seconds idle with no page connected.
        - A kernel no page has connected to :attr:`unconnected_timeout` seconds after it left the pool is
          shut down, busy or not (its client went away before the page loaded).
        """

        max_kernels = Integer(config=True, help="Most kernels at once, the pre-heated ones included (>= 2).")
        unconnected_timeout = Integer(UNCONNECTED_TIMEOUT_S, config=True,
                                      help="Seconds before a kernel no page connected to is shut down.")

        @default("max_kernels")
        def _default_max_kernels(self):
            return default_max_kernels()

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self._unpooled_since: dict = {}
            self._connected: set = set()
            self._starting = 0
            rendered = getattr(self, "get_rendered_notebook", None)
            if rendered is not None:  # Voilà's pre-heating subclass: a page taking the pooled kernel

                async def get_rendered_notebook(notebook_name, *args, **kwargs):
                    pool = getattr(self, "_pools", {}).get(notebook_name) or []
                    if self.at_capacity() and not (pool and pool[0].done()):
                        self._busy()  # the next pre-heated kernel waits for a slot: do not wait with it
                    return await rendered(notebook_name, *args, **kwargs)

                self.get_rendered_notebook = get_rendered_notebook

        def at_capacity(self) -> bool:
            """True when :attr:`max_kernels` kernels run or start."""
            return len(self._kernels) + self._starting >= self.max_kernels

        def _busy(self):
            self.log.warning("vcperf app: %d kernels running (the most): a page is answered busy", len(self._kernels))
            raise HTTPError(503, f"busy: {self.max_kernels} kernels in use; try again in a minute",
                            reason="Busy, try again in a minute")

        async def start_kernel(self, *args, **kwargs):
            pooled = (kwargs.get("env") or {}).get("VOILA_PREHEAT") == "True"
            while self.at_capacity():
                if not pooled:
                    self._busy()
                await asyncio.sleep(1.0)  # refilling the pool: wait for a page's kernel to be shut down
            self._starting += 1
            try:
                return await super().start_kernel(*args, **kwargs)
            finally:
                self._starting -= 1

        async def shutdown_kernel(self, kernel_id, *args, **kwargs):
            self._unpooled_since.pop(kernel_id, None)
            self._connected.discard(kernel_id)
            return await super().shutdown_kernel(kernel_id, *args, **kwargs)

        async def cull_kernel_if_idle(self, kernel_id):
            if self._kernel_connections.get(kernel_id, 0) > 0:
                self._connected.add(kernel_id)
            if kernel_id not in self._unpooled_since:
                self._unpooled_since[kernel_id] = time.monotonic()
                kernel = self._kernels.get(kernel_id)
                if kernel is not None and hasattr(kernel, "last_activity"):
                    from jupyter_server._tz import utcnow

                    kernel.last_activity = utcnow()
                return None
            if kernel_id not in self._connected and \
                    time.monotonic() - self._unpooled_since[kernel_id] >= self.unconnected_timeout:
                self.log.warning("vcperf app: shutting down kernel %s: no page connected to it in %d s", kernel_id,
                                 self.unconnected_timeout)
                await self.shutdown_kernel(kernel_id)
                return None
            return await super().cull_kernel_if_idle(kernel_id)

    for cls in (SameOriginIdentityProvider, AppKernelManager):
        cls.__module__ = __name__  # the importable names Voilà is given (also under python -m)
    return {"SameOriginIdentityProvider": SameOriginIdentityProvider, "AppKernelManager": AppKernelManager}


def __getattr__(name: str):
    """``vcperf.app.SameOriginIdentityProvider`` and ``vcperf.app.AppKernelManager`` (:func:`_app_classes`), built
    once on first access."""
    if name in ("SameOriginIdentityProvider", "AppKernelManager"):
        globals().update(_app_classes())
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def warm_cache() -> None:
    """Compute every study's calibration and its uncertainty into the disk cache (:func:`vcperf.protocol.calibrated`,
    :func:`vcperf.protocol.uncertainty`), so the app's kernels read them and never refit (seconds once per
    source change, milliseconds after). A study's what-if bands may also read refits of its own (its
    ``EXTRA_CALIBRATIONS``: vMotion's two that bound what the paper leaves open): they are warmed too."""
    for name in studies.names():
        protocol.calibrated(name)
        protocol.uncertainty(name)
        for extra in getattr(protocol.study_module(name), "EXTRA_CALIBRATIONS", ()):
            extra()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vcperf.app", description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port on 127.0.0.1 (default {DEFAULT_PORT})")
    ap.add_argument("--output", type=Path, default=DEFAULT_DIR, help="folder for the built app.ipynb")
    ap.add_argument("--build-only", action="store_true", help="write the .ipynb and exit")
    ap.add_argument("--max-kernels", type=int, default=None,
                    help=f"most kernels at once (default ${MAX_KERNELS_ENV} or max(4, 2 x cores)); past it a page "
                         f"is answered busy")
    args = ap.parse_args(argv)
    if not 1 <= args.port <= 65535:
        raise SystemExit(f"--port must be in 1..65535; got {args.port}")
    try:
        max_kernels = default_max_kernels() if args.max_kernels is None else args.max_kernels
        voila_command(Path("check.ipynb"), args.port, max_kernels=max_kernels)
    except ValueError as err:
        raise SystemExit(f"python -m vcperf.app: error: {err}") from None
    skip_unused_format_checker()  # nbformat validates without format checks: no IRI grammars built (seconds)
    nb = build_notebook(args.output)
    print(f"vcperf app: {nb}", file=sys.stderr)
    if args.build_only:
        return 0
    warm_cache()
    cmd = voila_command(nb, args.port, max_kernels=max_kernels)
    print(f"vcperf app: http://127.0.0.1:{args.port}/  ({' '.join(cmd)})", file=sys.stderr, flush=True)
    os.execv(cmd[0], cmd) if os.path.isabs(cmd[0]) else os.execvp(cmd[0], cmd)
    return 0  # not reached


if __name__ == "__main__":
    raise SystemExit(main())
