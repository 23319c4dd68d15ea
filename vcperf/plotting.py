"""Deterministic figure and table output for notebooks.

Every figure is saved as ``<output_dir>/figures/<notebook>/<name>.png`` and ``.svg`` and every table as
``<output_dir>/tables/<notebook>/<name>.csv``, byte-identical from run to run: SVG without a date and
with a fixed hash salt, PNG without the software tag, the bundled DejaVu Sans font, fixed DPI, and
floats in CSVs written with a fixed format.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np

_FAST = {"on": False}

#: Matplotlib settings applied by :func:`use_style`: fixed font, size and SVG ids.
RC = {
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "figure.figsize": (6.4, 3.6),
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "svg.hashsalt": "vcperf",
    "svg.fonttype": "path",
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
}

#: Paper values are drawn as black markers; model curves as lines in this colour cycle.
PAPER_STYLE = {"color": "black", "marker": "o", "linestyle": "none", "markersize": 5, "zorder": 5}


def use_style() -> None:
    """Apply :data:`RC` to matplotlib's global settings."""
    import matplotlib

    matplotlib.rcParams.update(RC)


def pyplot():
    """``matplotlib.pyplot`` with :data:`RC` applied: what a figure function draws a saved figure with."""
    import matplotlib.pyplot as plt

    use_style()
    return plt


def _dir(output_dir, kind: str, notebook: str) -> Path:
    if not notebook or "/" in notebook:
        raise ValueError(f"notebook must be a plain name; got {notebook!r}")
    path = Path(output_dir) / kind / notebook
    path.mkdir(parents=True, exist_ok=True)
    return path


def save_figure(fig, output_dir, notebook: str, name: str) -> list[Path]:
    """Save ``fig`` as PNG and SVG under ``<output_dir>/figures/<notebook>/``; return the paths (none when
    ``output_dir`` is None: an interactive run, :func:`vcperf.params.check_notebook_parameters`).

    In an IPython kernel, showing the figure afterwards (``plt.show()``, ``display(fig)``) shows the PNG
    just written instead of drawing the figure once more, as long as nothing in it changed since
    (:func:`_show_saved_png`).

    Examples
    --------
    >>> import tempfile
    >>> plt = pyplot()
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([0, 1], [1, 0])
    >>> with tempfile.TemporaryDirectory() as out:
    ...     paths = save_figure(fig, out, "demo", "line")
    ...     [p.name for p in paths], paths[0].read_bytes() == saved_png(fig)
    (['line.png', 'line.svg'], True)
    >>> ax.set_title("changed")  # doctest: +ELLIPSIS
    Text(...)
    >>> saved_png(fig) is None  # changed since it was saved: it would be drawn again
    True
    >>> plt.close(fig)
    """
    import io

    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    if output_dir is None:
        return []
    folder = _dir(output_dir, "figures", notebook)
    png, svg = folder / f"{name}.png", folder / f"{name}.svg"
    if isinstance(fig.get_layout_engine(), PlaceHolderLayoutEngine):
        # What ``tight_layout`` leaves behind: a layout engine that does nothing, yet makes every savefig draw
        # the figure once more before drawing it (as it must for a real engine). Without it: the same bytes.
        fig.set_layout_engine(None)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    data = buf.getvalue()
    png.write_bytes(data)
    fig.savefig(svg, metadata={"Date": None, "Creator": None})
    # Both files show the figure as it is now; any later change to an artist marks the figure stale again.
    fig._vcperf_saved_png = data
    fig.stale = False
    _show_saved_png()
    return [png, svg]


def saved_png(fig) -> bytes | None:
    """The PNG :func:`save_figure` wrote for ``fig`` if nothing in the figure changed since, else None."""
    data = getattr(fig, "_vcperf_saved_png", None)
    return None if data is None or fig.stale else data


def _show_saved_png() -> None:
    """In an IPython shell, have a figure's PNG display use :func:`saved_png` when there is one.

    The inline backend draws every shown figure again (about a third of a notebook's drawing time): a
    figure just saved, unchanged since, shows the saved PNG instead; any other figure is drawn by the
    formatter that was there before (installed once per shell).
    """
    import sys

    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or not hasattr(shell, "display_formatter"):
        return
    from binascii import b2a_base64

    from matplotlib.figure import Figure

    formatter = shell.display_formatter.formatters["image/png"]
    try:
        before = formatter.lookup_by_type(Figure)
    except KeyError:
        return  # this shell shows figures some other way (no PNG): leave it
    if getattr(before, "shows_saved_png", False):
        return

    def png(fig):
        data = saved_png(fig)
        return before(fig) if data is None else b2a_base64(data, newline=False).decode("ascii")

    png.shows_saved_png = True
    formatter.for_type(Figure, png)


def save_png(png: bytes, output_dir, notebook: str, name: str) -> Path | None:
    """Write PNG bytes (a what-if panel's image, :func:`vcperf.widgets.png_bytes`) under
    ``<output_dir>/figures/<notebook>/``, so a headless scenario saves exactly what the panel shows (nothing,
    None, when ``output_dir`` is None)."""
    if not isinstance(png, bytes | bytearray) or not bytes(png[:8]) == b"\x89PNG\r\n\x1a\n":
        raise ValueError("png must be the bytes of a PNG image")
    if output_dir is None:
        return None
    path = _dir(output_dir, "figures", notebook) / f"{name}.png"
    path.write_bytes(bytes(png))
    return path


def save_table(df, output_dir, notebook: str, name: str) -> Path | None:
    """Write a DataFrame as CSV under ``<output_dir>/tables/<notebook>/`` (6 significant digits); nothing (None)
    when ``output_dir`` is None."""
    if output_dir is None:
        return None
    path = _dir(output_dir, "tables", notebook) / f"{name}.csv"
    df.to_csv(path, index=False, float_format="%.6g", lineterminator="\n")
    return path


def fast_layout(fig, left: float = 0.11, right: float = 0.98, bottom: float = 0.13, top: float = 0.96) -> None:
    """Fixed margins and no minor ticks on log axes: a layout cheap enough for widget redraws.

    ``tight_layout`` and the dozens of minor ticks of a log axis cost hundreds of milliseconds per
    redraw; fixed margins and decade ticks keep a what-if update well under 100 ms.
    """
    from matplotlib.ticker import NullLocator

    for ax in fig.axes:
        for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
            if scale == "log":
                axis.set_minor_locator(NullLocator())
    fig.subplots_adjust(left=left, right=right, bottom=bottom, top=top)


@contextlib.contextmanager
def fast():
    """Within this block :func:`finish` lays figures out with :func:`fast_layout` (widget redraws)."""
    before = _FAST["on"]
    _FAST["on"] = True
    try:
        yield
    finally:
        _FAST["on"] = before


def finish(fig) -> None:
    """Lay out a finished figure: ``tight_layout`` for saved figures, :func:`fast_layout` in :func:`fast`."""
    if _FAST["on"]:
        fast_layout(fig)
    else:
        fig.tight_layout()


def interval_sweep(ax, x, curves, *, xlabel: str, ylabel: str, measured_x=(), paper=(), logx: bool = True,
                   logy: bool = False, legend_loc: str = "best") -> None:
    """Model curves swept over one input, each with its shaded 90 % band, into ``ax``.

    The "How far to trust it" figures of the notebooks: ``curves`` is a list of ``(label, value, low,
    high)`` arrays over ``x`` (e.g. from :func:`vcperf.protocol.with_interval`); ``measured_x`` are
    the inputs the paper measured (dotted verticals: beyond them the model extrapolates); ``paper`` a
    list of ``(x, y, label)`` paper points (black markers).
    """
    x = np.asarray(x, dtype=float)
    for label, value, low, high in curves:
        (line,) = ax.plot(x, value, marker=".", label=f"{label} (90 % band shaded)")
        ax.fill_between(x, low, high, alpha=0.22, color=line.get_color(), lw=0)
    for xm in measured_x:
        ax.axvline(xm, color="grey", lw=0.8, ls=":")
    for px, py, plabel in paper:
        ax.plot([px], [py], label=plabel, **PAPER_STYLE)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7, loc=legend_loc)
