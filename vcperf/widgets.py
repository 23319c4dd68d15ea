"""The what-if panel toolkit (ipywidgets + an Agg canvas); each study's panels are in ``vcperf.views``.

A panel is built from a pure *update* function (model + redraw -> readout text, PNG bytes) so that
the same path can be timed headless (``make bench``) and tested without a browser. The toolkit: the
one persistent figure (:class:`PanelFigure`, rendered by :class:`PanelCanvas`), the one slider-echo
guard (:class:`ExactSliders`, :func:`within_steps`), the wrapping readout and the generic panel
(:func:`whatif_panel`). Numbers are written by :mod:`vcperf.views.format`.
"""

from __future__ import annotations

import functools
import io

from vcperf import plotting
from vcperf.plotting import use_style


def png_bytes(fig, dpi: float | None = None) -> bytes:
    """Render a matplotlib figure to PNG bytes (no software tag) and close it.

    ``dpi``: pixels per inch of the PNG (default: the saved-figure setting, ``savefig.dpi``).
    """
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    # Fast zlib level: the image lives for one redraw; size matters less than the ~10 ms saved.
    kwargs = {} if dpi is None else {"dpi": dpi}
    fig.savefig(buf, format="png", metadata={"Software": None}, pil_kwargs={"compress_level": 1}, **kwargs)
    plt.close(fig)
    return buf.getvalue()


def opaque_png_bytes(rgba) -> bytes:
    """PNG bytes of an opaque image (e.g. an Agg canvas' ``buffer_rgba()``) as 8-bit RGB.

    Rows unfiltered and zlib level 1: about half the time of Pillow's PNG writer (whose adaptive row
    filters cost more than they save on a plot's flat colours) and a smaller file; the same pixels.

    Parameters
    ----------
    rgba : array_like
        ``(height, width, 4)`` uint8 pixels, every alpha 255.

    Examples
    --------
    >>> import numpy as np
    >>> png = opaque_png_bytes(np.full((2, 3, 4), 255, np.uint8))
    >>> png[:4] == b"\\x89PNG", png_size(png)
    (True, (3, 2))
    """
    import struct
    import zlib

    import numpy as np

    a = np.asarray(rgba)
    if a.ndim != 3 or a.shape[2] != 4 or a.dtype != np.uint8 or a[..., 3].min(initial=255) < 255:
        raise ValueError(f"rgba must be opaque (height, width, 4) uint8 pixels; got {a.dtype} {a.shape}")
    h, w = a.shape[:2]
    rows = np.empty((h, 3 * w + 1), np.uint8)  # each row: filter type 0 (none), then its RGB bytes
    rows[:, 0] = 0
    rgb = np.arange(4 * w).reshape(w, 4)[:, :3].ravel()  # a gather by index is faster than a strided copy
    np.take(a.reshape(h, 4 * w), rgb, axis=1, out=rows[:, 1:])

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b""))


#: Device pixels per CSS pixel that panel pictures are rendered for (:func:`set_screen_scale`): 1, the
#: default, is what headless runs save; the app renders for 2x (HiDPI) displays.
_SCREEN = {"scale": 1.0}


def set_screen_scale(scale: float) -> None:
    """Render every panel picture from now on at ``scale`` device pixels per CSS pixel.

    A picture is shown at its figure's own width in CSS pixels (:func:`side_by_side`: 100 per inch) and
    rendered at ``scale`` times that many pixels, so it is sharp on a display of that pixel ratio
    (``window.devicePixelRatio``; 2 on a HiDPI laptop). Headless runs keep 1 (their saved PNGs do not move).

    Parameters
    ----------
    scale : float
        Device pixels per CSS pixel, in [1, 4].

    Examples
    --------
    >>> set_screen_scale(2); screen_scale()
    2.0
    >>> set_screen_scale(1)
    """
    if not 1.0 <= float(scale) <= 4.0:
        raise ValueError(f"scale must be in [1, 4] device pixels per CSS pixel; got {scale!r}")
    _SCREEN["scale"] = float(scale)


def screen_scale() -> float:
    """Device pixels per CSS pixel of panel pictures (:func:`set_screen_scale`)."""
    return _SCREEN["scale"]


def png_size(png: bytes) -> tuple[int, int]:
    """``(width, height)`` in pixels of PNG bytes (read from the IHDR chunk).

    Examples
    --------
    >>> png_size(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(8) + (640).to_bytes(4, "big") + (360).to_bytes(4, "big"))
    (640, 360)
    """
    if len(png) < 24 or bytes(png[:8]) != b"\x89PNG\r\n\x1a\n":
        raise ValueError("png must be the bytes of a PNG image")
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def style_sliders(*sliders, description_width: str = "110px", width: str = "460px") -> None:
    """Give sliders a uniform label width and length."""
    for s in sliders:
        s.style.description_width = description_width
        s.layout.width = width


def fast_redraw(update):
    """Decorate a panel's ``*_update`` function so its figure uses the cheap widget layout."""
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
    those of a full draw; the PNG is written as :func:`vcperf.widgets.png_bytes` writes it, or by
    ``encode`` (a callable of the canvas' RGBA buffer, e.g. :func:`opaque_png_bytes`).
    """

    def __init__(self, fig, dynamic, encode=None):
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
        self._encode = encode

    def png(self, key=()) -> bytes:
        """PNG bytes of the figure as it is now; ``key``: whatever else the background depends on."""
        import matplotlib.image

        use_style()
        canvas = self.fig.canvas
        full_key = (tuple((ax.get_xlim(), ax.get_ylim()) for ax in self.fig.axes), self.fig.dpi, key)
        if full_key != self._key:
            # a spine places itself on first use (after ax.clear(), in the middle of the draw) and resets its
            # Axis' ticks when it does, which would bring back the grid lines hidden below: place them now
            for ax in self.fig.axes:
                for spine in ax.spines.values():
                    spine.get_spine_transform()
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
        if self._encode is not None:
            return self._encode(canvas.buffer_rgba())
        buf = io.BytesIO()
        # as FigureCanvasAgg.print_png with png_bytes' settings (no software tag, fast zlib level)
        matplotlib.image.imsave(buf, canvas.buffer_rgba(), format="png", origin="upper", dpi=self.fig.dpi,
                                metadata={"Software": None}, pil_kwargs={"compress_level": 1})
        return buf.getvalue()


class PanelFigure:
    """The one persistent what-if figure: built once per panel kind, updated in place on every redraw.

    Building a figure (axes, ticks, legend) and laying out its text is most of a redraw; keeping one
    figure and its Agg canvas lets a redraw move only the data. A subclass builds its artists in
    ``__init__`` (after ``super().__init__(figsize, ncols)``, which makes :attr:`fig` and :attr:`axes`
    with :func:`panel_figure`) and moves them in its ``draw``. With :meth:`keep_background` the figure
    is rendered by a :class:`PanelCanvas` (only the artists that move are redrawn); without it every
    :meth:`png` is a full draw (:func:`png_bytes`). :meth:`shared` is the one instance of a panel kind
    that its what-if update reuses.
    """

    _instances: dict = {}

    def __init__(self, figsize, ncols: int = 1, **subplot_kw):
        self.fig, self.axes = panel_figure(figsize, ncols, **subplot_kw)
        self.canvas = None
        self._dpi = self.fig.dpi  # pixels per inch at screen scale 1 (what headless runs save)

    @classmethod
    def shared(cls):
        """The one instance of this panel kind (built on first use, kept for the process)."""
        panel = PanelFigure._instances.get(cls)
        if panel is None:
            panel = PanelFigure._instances[cls] = cls()
        return panel

    def keep_background(self, dynamic, encode=None) -> None:
        """Render with a :class:`PanelCanvas`: ``dynamic`` are the artists an update moves; ``encode``
        (default: as :func:`png_bytes`) turns the canvas' RGBA buffer into PNG bytes (e.g.
        :func:`opaque_png_bytes`)."""
        self.canvas = PanelCanvas(self.fig, dynamic, encode)

    @staticmethod
    def rescale(*axes) -> None:
        """Autoscale each of ``axes`` to the data its artists now hold."""
        for ax in axes:
            ax.relim()
            ax.autoscale_view()

    def png(self, key=()) -> bytes:
        """PNG bytes of the figure as it is now (``key``: what else the kept background depends on), at
        :func:`screen_scale` device pixels per CSS pixel."""
        scale = screen_scale()
        if self.canvas is None:
            return png_bytes(self.fig) if scale == 1.0 else png_bytes(self.fig, dpi=self._dpi * scale)
        if self.fig.dpi != self._dpi * scale:
            self.fig.set_dpi(self._dpi * scale)
        return self.canvas.png(key=key)


def within_steps(slider, a: float, b: float, steps: float) -> bool:
    """Whether slider values ``a`` and ``b`` are within ``steps`` of the slider's steps of each other.

    A log slider's step is one of its exponent (``FloatLogSlider``: ``|log_base(b / a)| <= steps * step``);
    another slider's is one of its value. A front end that snaps a value to the step grid moves it by
    less than one step of a log slider, half a step of a linear one.
    """
    import math

    if hasattr(slider, "base"):
        return a > 0 and b > 0 and abs(math.log(b / a, slider.base)) <= steps * slider.step
    return abs(b - a) <= steps * slider.step


class ExactSliders:
    """Sliders whose exact values the model reads, guarded against the browser's echo of a rounded value.

    A log slider rounds its value to its step (0.5 Mbit/s shows as 0.501) and the browser echoes the
    rounded value back: a change within half a step of the exact value (a log slider: of its exponent)
    is that echo, not the user, and is ignored. The front end rounds to the nearest step, so an echo
    moves the value by at most half a step, and a user's move of one step (from the rounded value the
    slider shows) by more: it is never taken for an echo. :attr:`state`
    holds the exact values (slider units); a real move updates it and calls ``on_move(key)``;
    :meth:`set` moves state and sliders together without calling it (e.g. when a preset is picked).

    Parameters
    ----------
    sliders : dict
        Key -> ipywidgets slider.
    on_move : callable
        ``on_move(key)``, called after the user moved slider ``key`` (:attr:`state` already updated).
    state : dict, optional
        The exact starting values (default: the sliders' values).
    """

    def __init__(self, sliders: dict, on_move, state: dict | None = None):
        self.sliders = dict(sliders)
        self.state = {k: s.value for k, s in self.sliders.items()} if state is None else dict(state)
        self._on_move = on_move
        self._quiet = False
        for key, slider in self.sliders.items():
            slider.observe(functools.partial(self._changed, key), names="value")

    def is_echo(self, key, new) -> bool:
        """Whether ``new`` for slider ``key`` is within half a step of the exact state (an echo)."""
        return within_steps(self.sliders[key], self.state[key], new, 0.5)

    def set(self, **values) -> None:
        """Set exact values and move the sliders to them, without calling ``on_move``."""
        self.state.update(values)
        self._quiet = True
        try:
            for key, value in values.items():
                self.sliders[key].value = value
        finally:
            self._quiet = False

    def _changed(self, key, change) -> None:
        if self._quiet or self.is_echo(key, change["new"]):
            return
        self.state[key] = change["new"]
        self._on_move(key)


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


#: Readout format of a float slider: 4 significant digits with trailing zeros trimmed (d3-format's
#: type-less ``.4``: 0.5 shows as 0.5, not 0.500; 1000 as 1000, not 1.00e+3; 80 ms as 80, not 80.00); a log
#: slider's step is :func:`typed_step`.
TYPED_FORMAT = ".4"


def typed_step(base: float = 10.0, digits: int = 4) -> float:
    """The step of a log slider's exponent at which a typed value shows as typed.

    A front end snaps a log slider's value to its step grid and shows the snapped value (step 0.01
    shows a typed 0.5 as 0.501, 3.5 as 3.47). This is the largest power of ten for the exponent whose
    snap (at most half a step) moves a value by less than half a unit in the last of ``digits``
    significant digits, so the readout (:data:`TYPED_FORMAT`: ``digits`` = 4) shows what was typed.

    Parameters
    ----------
    base : float
        The slider's base (> 1).
    digits : int
        Significant digits of the readout (1..6).

    Examples
    --------
    >>> typed_step(10, 3), typed_step(), typed_step(2)
    (0.0001, 1e-05, 0.0001)
    """
    import math

    if not base > 1:
        raise ValueError(f"base must be > 1; got {base!r}")
    if not 1 <= int(digits) <= 6:
        raise ValueError(f"digits must be in [1, 6]; got {digits!r}")
    largest = 2 * math.log(1 + 0.5 * 10.0 ** -int(digits), base)
    return 10.0 ** math.floor(math.log10(largest))


def lazy_tabs(makers: dict):
    """A Tab whose first page is built at once and every other page when its tab is first selected.

    Each page is a VBox holding a placeholder until its panel is built (``makers[title]()``), so the
    first page shows without waiting for the others.

    Parameters
    ----------
    makers : dict
        Tab title -> panel constructor (called with no arguments, at most once).

    Examples
    --------
    >>> built = []
    >>> tabs = lazy_tabs({t: (lambda t=t: built.append(t) or __import__("ipywidgets").Label(t)) for t in "ab"})
    >>> built, tabs.titles
    (['a'], ('a', 'b'))
    >>> tabs.selected_index = 1
    >>> built, tabs.children[1].children[0].value
    (['a', 'b'], 'b')
    """
    import ipywidgets as w

    titles = tuple(makers)
    pages = [w.VBox([w.HTML(f"<i>Building the {title} panel…</i>")]) for title in titles]
    built = set()

    def build(index) -> None:
        if index is None or index in built:
            return
        pages[index].children = (makers[titles[index]](),)
        built.add(index)

    build(0)
    tabs = w.Tab(children=pages, titles=titles)
    tabs.observe(lambda change: build(change["new"]), names="selected_index")
    return tabs


#: Width (CSS px) of a panel's control column in :func:`side_by_side`: a slider (:func:`style_sliders`)
#: with its label and readout.
CONTROLS_WIDTH_PX = 470


def side_by_side(panel, controls_width_px: int = CONTROLS_WIDTH_PX):
    """Lay a what-if panel out for a laptop screen (1280x800): controls left, picture right, readout below.

    The picture is shown at its figure's own width (:func:`screen_scale`: the PNG's pixels over the
    scale, 100 CSS px per figure inch), shrunk to the column if it is wider; the readout (the
    panel's visible Label/HTML children) spans both columns under them. Only CSS grid placement is
    set: the children and their order stay (a panel is driven the same way). Returns ``panel``.

    Parameters
    ----------
    panel : ipywidgets.Box
        A what-if panel: controls, readout, one Image, style (:func:`whatif_panel`).
    controls_width_px : int
        Width of the control column (CSS px).

    Examples
    --------
    >>> import ipywidgets as w
    >>> png = b"\\x89PNG\\r\\n\\x1a\\n" + bytes(8) + (640).to_bytes(4, "big") + (360).to_bytes(4, "big")
    >>> box = side_by_side(w.VBox([w.IntSlider(), w.Label("x"), w.Image(value=png, format="png")]))
    >>> box.layout.display, box.children[2].layout.grid_area, box.children[2].layout.width
    ('grid', '1 / 2 / span 2 / 3', '640px')
    """
    import ipywidgets as w

    kids = list(panel.children)
    images = [c for c in kids if isinstance(c, w.Image)]
    if len(images) != 1:
        raise ValueError(f"panel must hold exactly one Image; got {len(images)}")
    image = images[0]
    shown = [c for c in kids if c is not image and c.layout.display != "none"]
    text = [c for c in shown if isinstance(c, w.Label | w.HTML | w.HTMLMath)]
    controls = [c for c in shown if all(c is not t for t in text)]
    n = max(len(controls), 1)
    panel.layout.display = "grid"
    panel.layout.grid_template_columns = f"{int(controls_width_px)}px minmax(0, 1fr)"
    # one row per control and a flexible one after them: a picture taller than the controls grows that row,
    # not the controls' rows
    panel.layout.grid_template_rows = f"repeat({n}, auto) 1fr"
    panel.layout.grid_gap = "2px 16px"
    panel.layout.align_items = "flex-start"
    # grid-area (row-start / column-start / row-end / column-end), not grid-row and grid-column: a widget's
    # layout view clears grid-area after those two, and with it the placement they set
    for c in controls:
        c.layout.grid_area = "auto / 1 / auto / 2"
    for c in text:
        c.layout.grid_area = "auto / 1 / auto / 3"
        c.layout.max_width = "none"
    image.layout.grid_area = f"1 / 2 / span {n + 1} / 3"
    if image.value:
        image.layout.width = f"{round(png_size(image.value)[0] / screen_scale())}px"
    image.layout.max_width = "100%"
    image.layout.height = "auto"
    return panel


def whatif_panel(controls, update):
    """A what-if panel: ``controls``, a readout Label (wrapping) and an Image; every change redraws.

    Parameters
    ----------
    controls : sequence of ipywidgets value widgets
        Shown in this order; their ``.value`` s are passed to ``update`` in the same order. A float
        slider's value is its exact one (:class:`ExactSliders`: the browser's echo of a value rounded to
        the slider's step is not a move).
    update : callable
        ``update(*values) -> (readout_text, png_bytes)`` (model + redraw; unit conversions here).

    The VBox's children are ``[*controls, readout, image, style]`` (``style``: :func:`readout_style`).
    """
    import ipywidgets as w

    readout = readout_label()
    image = w.Image(format="png")

    def redraw(*_):
        readout.value, image.value = update(*(exact.state.get(i, c.value) for i, c in enumerate(controls)))

    exact = ExactSliders({i: c for i, c in enumerate(controls) if isinstance(c, w.FloatSlider | w.FloatLogSlider)},
                         redraw)
    for i, c in enumerate(controls):
        if i not in exact.sliders:
            c.observe(redraw, names="value")
    redraw()
    return w.VBox([*controls, readout, image, readout_style()])
