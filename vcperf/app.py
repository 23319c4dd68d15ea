"""``make app``: the what-if planner (``notebooks/app.py``) as a Voilà app on 127.0.0.1.

Voilà's own server reads files with Jupyter's plain contents manager, which opens a jupytext
``.py`` as one code cell (the title and prose would be lost). So the app's ``.ipynb`` is built first
from its percent source, deterministically (cell ids ``cell-NN``, no outputs), into
``build/app/app.ipynb``; then Voilà serves it, without code, on 127.0.0.1::

    python -m vcperf.app [--port 8866] [--output build/app]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from vcperf.params import read_notebook

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "notebooks" / "app.py"
DEFAULT_DIR = ROOT / "build" / "app"
DEFAULT_PORT = 8866


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


def voila_command(notebook: Path, port: int = DEFAULT_PORT) -> list[str]:
    """The Voilà command line serving ``notebook`` on 127.0.0.1:``port`` (no browser, no code)."""
    voila = Path(sys.executable).parent / "voila"
    return [str(voila) if voila.exists() else "voila", str(notebook), "--no-browser", "--Voila.ip=127.0.0.1",
            f"--port={port}", "--Voila.port_retries=0", "--strip_sources=True"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vcperf.app", description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port on 127.0.0.1 (default {DEFAULT_PORT})")
    ap.add_argument("--output", type=Path, default=DEFAULT_DIR, help="folder for the built app.ipynb")
    ap.add_argument("--build-only", action="store_true", help="write the .ipynb and exit")
    args = ap.parse_args(argv)
    if not 1 <= args.port <= 65535:
        raise SystemExit(f"--port must be in 1..65535; got {args.port}")
    nb = build_notebook(args.output)
    print(f"vcperf app: {nb}", file=sys.stderr)
    if args.build_only:
        return 0
    cmd = voila_command(nb, args.port)
    print(f"vcperf app: http://127.0.0.1:{args.port}/  ({' '.join(cmd)})", file=sys.stderr, flush=True)
    os.execv(cmd[0], cmd) if os.path.isabs(cmd[0]) else os.execvp(cmd[0], cmd)
    return 0  # not reached


if __name__ == "__main__":
    raise SystemExit(main())
