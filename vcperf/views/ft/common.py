"""What the FT views share: the model's axes, the bar colours and the drawing helpers of the paper figures
(ledger rows, their 90 % intervals as error bars, paper markers, bar values, outside legends, captions)."""

from __future__ import annotations

import textwrap

import numpy as np

from vcperf import plotting
from vcperf.plotting import PAPER_STYLE

#: Checkpoint-interval axis of the latency figures: 0.5 ms .. 50 ms.
INTERVAL_GRID_S = np.logspace(np.log10(5e-4), np.log10(5e-2), 60)
#: Receive-rate axis of the FT logging figure: 0 .. 10 Gbit/s.
RECEIVE_GRID_BPS = np.linspace(0.0, 10e9, 81)
#: FT link speeds drawn in the latency figure.
LINK_SPEEDS_BPS = (1e9, 10e9, 25e9)
#: Bar colours: FT off, FT on, FT logging traffic.
OFF, ON, LOG, MEAN = "#9ab", "#357", "#c63", "#5b8db8"
#: Paper markers by the relation the seed states ("=", "~": a number; "<": below; ">": above).
_MARKERS = {"=": "o", "~": "o", "<": "v", "<=": "v", ">": "^", ">=": "^"}


def ledger_row(fid, key):
    """The ledger row of target ``key`` under the default calibration (not its loo row)."""
    rows = fid[(fid["key"] == key) & (fid["kind"] != "loo")]
    if rows.empty:
        raise ValueError(f"key must be a row of the FT ledger; got {key!r}")
    return rows.iloc[0]


def interval_halfwidths(row, scale=1.0, value=None):
    """Error-bar half-widths ``[[below], [above]]`` of a ledger row's 90 % interval, times ``scale``.

    ``value`` is where the bar is drawn (default the row's model value times ``scale``).
    """
    m = row["model_value"] * scale if value is None else value
    lo, hi = row["model_low"] * scale, row["model_high"] * scale
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return None
    return [[max(m - lo, 0.0)], [max(hi - m, 0.0)]]


def paper_errorbar(ax, x, y, yerr, label="model 90 % interval (ledger)"):
    """The ledger's 90 % interval of a model value at ``x`` as an error bar (nothing when ``yerr`` is None)."""
    if yerr is not None:
        ax.errorbar([x], [y], yerr=yerr, fmt="none", ecolor="black", elinewidth=1, capsize=4, zorder=4, label=label)


def mark_paper(ax, x, y, relation, label):
    """A paper marker: a number (``o``), an upper bound (``v``) or a lower bound (``^``)."""
    style = {**PAPER_STYLE, "marker": _MARKERS.get(relation, "o"), "markersize": 7}
    ax.plot([x], [y], label=label, **style)


def bar_values(ax, xs, vals, fmt="{:.3g}", tops=None):
    """Bar values where no marker or error bar goes: inside the bar, at its base, for bars taller than
    a fifth of the axis (white, vertical), above the bar -- or above ``tops``, the highest marker or
    error bar on it -- otherwise. Call after the y limits are final."""
    lo, hi = ax.get_ylim()
    log = ax.get_yscale() == "log"
    lift = 1.0 if tops is None else 6.0  # points: clear of a marker's half height
    tops = np.atleast_1d(vals) if tops is None else np.maximum(np.atleast_1d(tops), np.atleast_1d(vals))
    for x, val, top in zip(np.atleast_1d(xs), np.atleast_1d(vals), tops, strict=True):
        share = (np.log(val / lo) / np.log(hi / lo)) if log else (val - lo) / (hi - lo)
        if share > 0.2:
            base = lo * (hi / lo) ** 0.02 if log else lo + 0.02 * (hi - lo)
            ax.text(x, base, fmt.format(val), ha="center", va="bottom", rotation=90, fontsize=7, color="white",
                    zorder=6)
        else:
            ax.annotate(fmt.format(val), (x, top), xytext=(0, lift), textcoords="offset points", ha="center",
                        va="bottom", fontsize=7, zorder=6)


def bar_pair(ax, x, off, on, width=0.38, off_label="model, FT off", on_label="model, FT on"):
    """FT-off and FT-on bars at ``x``; returns their centres (label them with :func:`bar_values`)."""
    x = np.asarray(x, dtype=float)
    ax.bar(x - width / 2, off, width, color=OFF, label=off_label)
    ax.bar(x + width / 2, on, width, color=ON, label=on_label)
    return x - width / 2, x + width / 2


def bar_pair_values(ax, xs, off, on, fmt):
    """The values of FT-off and FT-on bars (:func:`bar_pair`'s centres ``xs``) written on them."""
    bar_values(ax, np.concatenate(xs), np.concatenate([np.atleast_1d(off), np.atleast_1d(on)]).astype(float), fmt)


def legend_outside(ax, below=False, ncol=2, also=(), **kw):
    """Legend outside ``ax`` (right of it, or below it with ``below``), one entry per label; ``also``:
    further Axes whose entries it lists (one legend for a figure)."""
    handles, labels = [], []
    for a in (*also, ax):
        h, lab = a.get_legend_handles_labels()
        handles += h
        labels += lab
    seen = {}
    for h, lab in zip(handles, labels, strict=True):
        seen.setdefault(lab, h)
    if below:
        kw = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.2), "ncol": ncol, **kw}
    else:
        kw = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0, **kw}
    ax.legend(list(seen.values()), list(seen), frameon=False, fontsize=7, **kw)


def axis_caption(ax, text, width=80):
    """The figure's caption as the x label of a categorical axis (laid out below the tick labels)."""
    ax.set_xlabel(textwrap.fill(text, width), fontsize=7, loc="left", labelpad=6)


def headroom(ax, factor=1.18):
    """Raise the top of ``ax``'s y axis by ``factor`` (room for the bars' labels)."""
    lo, hi = ax.get_ylim()
    ax.set_ylim(lo, hi * factor)


def new_figure(size=(7.6, 3.8), ncols=1, **kw):
    """A new figure of ``ncols`` Axes in a row (:func:`vcperf.plotting.pyplot`)."""
    return plotting.pyplot().subplots(1, ncols, figsize=size, **kw)
