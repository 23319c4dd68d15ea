"""Deterministic figure and table output for notebooks.

Every figure is saved as ``<output_dir>/figures/<notebook>/<name>.png`` and ``.svg`` and every table as
``<output_dir>/tables/<notebook>/<name>.csv``, byte-identical from run to run: SVG without a date and
with a fixed hash salt, PNG without the software tag, the bundled DejaVu Sans font, fixed DPI, and
floats in CSVs written with a fixed format.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

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


def _dir(output_dir, kind: str, notebook: str) -> Path:
    if not notebook or "/" in notebook:
        raise ValueError(f"notebook must be a plain name; got {notebook!r}")
    path = Path(output_dir) / kind / notebook
    path.mkdir(parents=True, exist_ok=True)
    return path


def save_figure(fig, output_dir, notebook: str, name: str) -> list[Path]:
    """Save ``fig`` as PNG and SVG under ``<output_dir>/figures/<notebook>/``; return the paths."""
    folder = _dir(output_dir, "figures", notebook)
    png, svg = folder / f"{name}.png", folder / f"{name}.svg"
    fig.savefig(png, metadata={"Software": None})
    fig.savefig(svg, metadata={"Date": None, "Creator": None})
    return [png, svg]


def save_table(df, output_dir, notebook: str, name: str) -> Path:
    """Write a DataFrame as CSV under ``<output_dir>/tables/<notebook>/`` (6 significant digits)."""
    path = _dir(output_dir, "tables", notebook) / f"{name}.csv"
    df.to_csv(path, index=False, float_format="%.6g", lineterminator="\n")
    return path


def log_ticks(lo: float, hi: float) -> np.ndarray:
    """Decade ticks covering [lo, hi] (for log-scaled axes)."""
    return 10.0 ** np.arange(np.floor(np.log10(lo)), np.ceil(np.log10(hi)) + 1)


# --- ROBO study figures (001_36d9adf7ffa34fcf.txt) -------------------------------------------


def robo_transfer_time_figure(payload_bytes, times_s: dict, labels: dict, paper_point=None, highlight=None):
    """Transfer time vs payload for each network type (log-log), the paper's point in black.

    Parameters
    ----------
    payload_bytes : array_like
        Payload sizes (bytes), the x axis.
    times_s : dict
        Network id -> transfer times (s) for ``payload_bytes``.
    labels : dict
        Network id -> legend label.
    paper_point : tuple (payload_bytes, time_s, label), optional
        A stated paper number to draw as a marker.
    highlight : str, optional
        Network id to draw thick (the what-if link).
    """
    import matplotlib.pyplot as plt

    use_style()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    x = np.asarray(payload_bytes, dtype=float) / 1e6
    for net, t in times_s.items():
        thick = net == highlight
        ax.loglog(x, t, lw=2.6 if thick else 1.2, alpha=1.0 if thick or highlight is None else 0.55,
                  label=labels.get(net, net))
    if paper_point is not None:
        size, t, label = paper_point
        ax.loglog([size / 1e6], [t], label=label, **PAPER_STYLE)
    ax.set_xlabel("payload (MB)")
    ax.set_ylabel("transfer time (s)")
    ax.legend(fontsize=7, ncol=2, frameon=False)
    fig.tight_layout()
    return fig
