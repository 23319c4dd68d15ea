"""Shared helpers for the what-if panels (ipywidgets); each study's panels are in ``vcperf.views``.

A panel is built from a pure *update* function (model + redraw -> readout text, PNG bytes) so that
the same path can be timed headless (``make bench``) and tested without a browser.
"""

from __future__ import annotations

import io

from vcperf.plotting import use_style


def png_bytes(fig) -> bytes:
    """Render a matplotlib figure to PNG bytes (no software tag) and close it."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    # Fast zlib level: the image lives for one redraw; size matters less than the ~10 ms saved.
    fig.savefig(buf, format="png", metadata={"Software": None}, pil_kwargs={"compress_level": 1})
    plt.close(fig)
    return buf.getvalue()


def style_sliders(*sliders, description_width: str = "110px", width: str = "460px") -> None:
    """Give sliders a uniform label width and length."""
    for s in sliders:
        s.style.description_width = description_width
        s.layout.width = width


def fast_redraw(update):
    """Decorate a panel's ``*_update`` function so its figure uses the cheap widget layout."""
    import functools

    from vcperf import plotting

    @functools.wraps(update)
    def wrapper(*args, **kwargs):
        with plotting.fast():
            return update(*args, **kwargs)

    return wrapper


# --- persistent panel figures: build once, move only the data, redraw only what moves ----------


def panel_figure(figsize, ncols: int = 1, **subplot_kw):
    """A figure for a what-if panel, outside pyplot, with its own Agg canvas (built once, kept)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    use_style()
    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, ncols, **subplot_kw)
    return fig, axes


class _Gridlines:
    """The grid lines of an Axis whose ticks and labels stay in the background but whose grid is drawn
    over artists below the Axis' z-order (e.g. bars): the grid is hidden in the background draw and
    its lines, as that draw placed them, are drawn with the foreground."""

    def __init__(self, axis):
        self.axis = axis
        self.lines = []
        self._was = {}

    def hide(self):
        self._was = {}
        for ticks in (self.axis.majorTicks, self.axis.minorTicks):
            self._was.update({id(t.gridline): t.gridline.get_visible() for t in ticks})
            for t in ticks:
                t.gridline.set_visible(False)  # ticks the draw creates copy their first tick's visibility

    def show(self):
        for ticks in (self.axis.majorTicks, self.axis.minorTicks):
            first = self._was.get(id(ticks[0].gridline), True) if ticks else True
            for t in ticks:
                t.gridline.set_visible(self._was.get(id(t.gridline), first))
        # the ticks the background draw just drew (the limits are those of that draw)
        self.lines = [t.gridline for t in self.axis._update_ticks() if t.gridline.get_visible()]

    def set_animated(self, _flag):
        pass

    def draw(self, renderer):
        for line in self.lines:
            line.draw(renderer)


class PanelCanvas:
    """Renders a persistent panel figure, redrawing only what an update can move.

    Most of a redraw is tick-label and label text, which depends only on each Axes' view limits.
    The figure is drawn in two layers: a background (everything below the lowest ``dynamic`` artist
    of each Axes: patch, grid, ticks, labels), fully drawn and kept while the view limits and
    ``key`` are unchanged, and a foreground (every Axes child from that z-order up, the y labels of
    the Axes drawn after the first such Axes, as they can reach into it, then the figure's own texts
    and legends, in the order a full draw uses) drawn over it on every update. The pixels are
    those of a full draw; the PNG is written as :func:`vcperf.widgets.png_bytes` writes it.
    """

    def __init__(self, fig, dynamic):
        from operator import attrgetter

        from matplotlib.axis import Axis

        self.fig = fig
        self.foreground = []
        self._late_labels = []
        # Figure.draw's order: its children by z-order (Axes 0, texts 3, legends 5); Axes.draw's order inside
        for child in sorted((c for c in fig.get_children() if c is not fig.patch), key=attrgetter("zorder")):
            if child not in fig.axes:
                self.foreground.append(child)  # figure texts are drawn over the Axes
                continue
            if self.foreground:
                # this Axes' y label may reach into the Axes on its left, drawn (in part) in the foreground
                self._late_labels.append(child.yaxis.label)
                self.foreground.append(child.yaxis.label)
            mine = [a for a in dynamic if a.axes is child]
            if mine:
                z = min(a.get_zorder() for a in mine)
                self.foreground += [_Gridlines(a) if isinstance(a, Axis) else a
                                    for a in sorted((a for a in child.get_children()
                                                     if a is not child.patch and a.get_zorder() >= z),
                                                    key=attrgetter("zorder"))]
        self._grids = [a for a in self.foreground if isinstance(a, _Gridlines)]
        for a in self.foreground:
            a.set_animated(True)  # skipped by canvas.draw(), drawn by png()
        self._key = None
        self._background = None

    def png(self, key=()) -> bytes:
        """PNG bytes of the figure as it is now; ``key``: whatever else the background depends on."""
        import matplotlib.image

        use_style()
        canvas = self.fig.canvas
        full_key = (tuple((ax.get_xlim(), ax.get_ylim()) for ax in self.fig.axes), key)
        if full_key != self._key:
            for label in self._late_labels:  # drawn by their Axis, whatever its animated flag
                label.set_visible(False)
            for grid in self._grids:
                grid.hide()
            try:
                canvas.draw()
            finally:
                for label in self._late_labels:
                    label.set_visible(True)
                for grid in self._grids:
                    grid.show()
            self._background = canvas.copy_from_bbox(self.fig.bbox)
            self._key = full_key
        else:
            canvas.restore_region(self._background)
        renderer = canvas.get_renderer()
        for a in self.foreground:
            a.draw(renderer)
        buf = io.BytesIO()
        # as FigureCanvasAgg.print_png with png_bytes' settings (no software tag, fast zlib level)
        matplotlib.image.imsave(buf, canvas.buffer_rgba(), format="png", origin="upper", dpi=self.fig.dpi,
                                metadata={"Software": None}, pil_kwargs={"compress_level": 1})
        return buf.getvalue()


#: CSS that lets a panel's readout Label wrap at the panel's width (a Label is one clipped line by default).
READOUT_CSS = (".vcperf-readout.widget-label, .vcperf-readout.widget-label-basic, .vcperf-readout "
               "{white-space: normal !important; height: auto !important; line-height: 1.4; max-width: 100%; "
               "overflow: visible !important; text-overflow: clip !important;}")


def readout_label(value: str = ""):
    """A panel readout: a Label that wraps (with :func:`readout_style` in the same panel)."""
    import ipywidgets as w

    label = w.Label(value=value, layout=w.Layout(width="100%", max_width="960px", height="auto"))
    label.add_class("vcperf-readout")
    return label


def readout_style():
    """The hidden element carrying :data:`READOUT_CSS`, put last in every panel, so readouts wrap in
    JupyterLab, the classic notebook and Voila alike (no page-wide stylesheet needed)."""
    import ipywidgets as w

    style = w.HTMLMath(value=f"<style>{READOUT_CSS}</style>", layout=w.Layout(display="none"))
    style.add_class("vcperf-style")
    return style


def whatif_panel(controls, update):
    """A what-if panel: ``controls``, a readout Label (wrapping) and an Image; every change redraws.

    Parameters
    ----------
    controls : sequence of ipywidgets value widgets
        Shown in this order; their ``.value`` s are passed to ``update`` in the same order.
    update : callable
        ``update(*values) -> (readout_text, png_bytes)`` (model + redraw; unit conversions here).

    The VBox's children are ``[*controls, readout, image, style]`` (``style``: :func:`readout_style`).
    """
    import ipywidgets as w

    readout = readout_label()
    image = w.Image(format="png")

    def redraw(*_):
        readout.value, image.value = update(*(c.value for c in controls))

    for c in controls:
        c.observe(redraw, names="value")
    redraw()
    return w.VBox([*controls, readout, image, readout_style()])


# --- numbers for people -------------------------------------------------------------------------


def fmt_num(x: float, sig: int = 3) -> str:
    """``x`` to at most ``sig`` significant digits, thousands separated, never in exponent notation,
    no trailing zeros: ``1234567 -> "1,230,000"``, ``0.000123 -> "0.000123"``, ``3.50 -> "3.5"``, NaN -> "n/a"."""
    import math

    x = float(x)
    if not math.isfinite(x):
        return "n/a" if math.isnan(x) else ("∞" if x > 0 else "-∞")
    if x == 0:
        return "0"
    digits = sig - 1 - math.floor(math.log10(abs(x)))
    r = round(x, digits)
    if r != 0 and math.floor(math.log10(abs(r))) != math.floor(math.log10(abs(x))):  # 9.996 -> 10.0
        digits -= 1
        r = round(x, digits)
    text = f"{r:,.{max(digits, 0)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text  # "3.50" -> "3.5", "10.0" -> "10"


def fmt_duration(t_s: float) -> str:
    """A time for people: ``"850 ms"``, ``"12.3 s"``, ``"2 min 10 s"``, ``"1 h 05 min"``, ``"3.2 days"``."""
    import math

    t = float(t_s)
    if not math.isfinite(t):
        return "n/a" if math.isnan(t) else "∞"
    if t < 0:
        return "-" + fmt_duration(-t)
    if t < 1.0:
        return f"{fmt_num(t * 1e3)} ms" if t >= 1e-3 else f"{fmt_num(t * 1e6)} µs"
    if t < 100.0:
        return f"{fmt_num(t)} s"
    if t < 3600.0:
        m, s = divmod(round(t), 60)
        return f"{m} min {s:02d} s" if m < 60 else "1 h 00 min"
    if t < 86400.0 * 2:
        h, m = divmod(round(t / 60.0), 60)
        return f"{h} h {m:02d} min"
    return f"{fmt_num(t / 86400.0)} days"


def fmt_bps(bps: float) -> str:
    """A link or flow rate: ``"64 kbps"``, ``"0.5 Mbps"``, ``"1.5 Mbps"``, ``"10 Gbps"``."""
    b = float(bps)
    for unit, scale in (("Tbps", 1e12), ("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if abs(b) >= (0.1e6 if unit == "Mbps" else scale):  # links from 100 kbps in Mbps, as Table 1 does
            return f"{fmt_num(b / scale)} {unit}"
    return f"{fmt_num(b)} bps"


def fmt_bytes(n: float) -> str:
    """A size in decimal units: ``"3.5 MB"``, ``"39 GB"``, ``"420 KB"``."""
    b = float(n)
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if abs(b) >= scale:
            return f"{fmt_num(b / scale)} {unit}"
    return f"{fmt_num(b)} B"


def fmt_band(value: float, low: float, high: float, fmt=None, interval: float = 0.9) -> str:
    """A model value with its predictive interval: ``"56.2 s (51.6–61.2 s, 90 %)"``.

    ``fmt`` (default :func:`fmt_duration`) formats each number with its unit; the unit is written once
    when both bounds are a plain "number unit" in the same unit. Without an interval (NaN bounds: the
    paper's numbers do not determine the output) the text says so instead of showing a band.
    """
    import math

    fmt = fmt_duration if fmt is None else fmt
    v_s = fmt(value)
    if not (math.isfinite(float(low)) and math.isfinite(float(high))):
        return f"{v_s} (no interval: not estimable)"
    lo_s, hi_s = fmt(low), fmt(high)
    lo_parts, hi_parts = lo_s.split(" "), hi_s.split(" ")
    if len(lo_parts) == 2 and len(hi_parts) == 2 and lo_parts[1] == hi_parts[1]:
        lo_s = lo_parts[0]
    return f"{v_s} ({lo_s}–{hi_s}, {100 * interval:.0f} %)"
