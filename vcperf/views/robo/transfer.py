"""ROBO network views (notebook robo_networks): transfer time vs payload over Table 1's networks and the
network what-if panel (a link and a payload -> transfer time and TCP throughput)."""

from __future__ import annotations

import functools

import numpy as np

from vcperf import network, plotting, robo
from vcperf.plotting import PAPER_STYLE
from vcperf.robo import readouts
from vcperf.views.format import fmt_bps, fmt_bytes, fmt_num, fmt_percent
from vcperf.views.robo.common import START_PRESET, band, lean_axes, link_controls, start_link
from vcperf.widgets import (
    TYPED_FORMAT,
    PanelFigure,
    fast_redraw,
    readout_label,
    readout_style,
    style_sliders,
    typed_step,
)

#: Payload axis of the ROBO transfer-time figure: 1 kB .. 10 GB.
PAYLOAD_GRID_BYTES = np.logspace(3, 10, 60)
#: Payload the network what-if starts with: the study's ~3.5 MB Level-4 statistics upload.
START_PAYLOAD_BYTES = 3.5e6


@functools.lru_cache(maxsize=1)
def _preset_transfer_times():
    """Transfer time over every Table 1 network for :data:`PAYLOAD_GRID_BYTES` (input-independent)."""
    links = {n: robo.preset(n) for n in robo.preset_names()}
    times = robo.transfer_time_grid_s(PAYLOAD_GRID_BYTES, links)
    for t in times.values():
        t.setflags(write=False)
    return times, {n: lk.name for n, lk in links.items()}


class _NetworkPanel(PanelFigure):
    """Transfer time vs payload for every Table 1 network (fixed) and the what-if link (thick),
    as :func:`transfer_time_figure` draws it."""

    def __init__(self):
        super().__init__((6.4, 3.8))
        ax = self.axes
        times, labels = _preset_transfer_times()
        x = PAYLOAD_GRID_BYTES / 1e6
        for net, t in times.items():
            ax.loglog(x, t, lw=1.2, alpha=0.55, label=labels[net])
        (self.line,) = ax.loglog(x, np.full_like(x, np.nan), lw=2.6, label="what-if")
        (self.point,) = ax.loglog([], [], label="what-if payload", **PAPER_STYLE)
        ax.set_xlabel("payload (MB)")
        ax.set_ylabel("transfer time (s)")
        ax.legend(fontsize=7, ncol=2, frameon=False)
        self.fig.subplots_adjust(left=0.15, right=0.98, bottom=0.13, top=0.96)  # plain tick labels are wide
        lean_axes(self.fig)

    def draw(self, whatif_times_s, payload_bytes, time_s):
        self.line.set_ydata(whatif_times_s)
        self.point.set_data([payload_bytes / 1e6], [time_s])
        self.rescale(self.axes)


@fast_redraw
def network_whatif_update(bandwidth_bps: float | None = None, rtt_s: float | None = None, loss: float | None = None,
                          payload_bytes: float = START_PAYLOAD_BYTES):
    """Model + redraw for the ROBO network what-if: returns ``(readout, png_bytes)``.

    The figure shows every Table 1 network and the what-if link (thick), the readout the transfer
    time (with its 90 % interval: no calibrated parameter enters a TCP transfer, so the band is the
    study's misfit of one measurement) and TCP throughput of ``payload_bytes`` over the what-if link.
    Unset link settings are those of :data:`~vcperf.views.robo.common.START_PRESET` (the panel's
    starting values); the Table 1 curves, which do not depend on the inputs, are computed once.
    """
    bandwidth_bps, rtt_s, loss = start_link(bandwidth_bps, rtt_s, loss)
    link = network.Link(bandwidth_bps, rtt_s, loss, name="what-if")
    t = float(robo.statistics_upload_time_s(payload_bytes, link))
    rate = link.tcp_throughput_bps()
    panel = _NetworkPanel.shared()
    panel.draw(link.message_time_s(PAYLOAD_GRID_BYTES, "up"), payload_bytes, t)
    # A TCP transfer of a given payload reads no calibrated parameter: its band is one measurement's
    # misfit of the study's models (model-form error + run-to-run noise, the study's pooled estimate).
    readout = (
        f"{fmt_bytes(payload_bytes)} over {fmt_bps(bandwidth_bps)}, RTT {fmt_num(rtt_s * 1e3)} ms, "
        f"loss {fmt_percent(loss)}: {band(readouts.interval(t, {}, data_table=None, params=robo.calibrate()))} "
        f"(TCP throughput {fmt_bps(rate)})"
    )
    return readout, panel.png()


def network_whatif(preset: str = START_PRESET, payload_bytes: float = START_PAYLOAD_BYTES):
    """The ROBO network what-if panel: pick a Table 1 preset or set bandwidth, RTT, loss, payload."""
    import ipywidgets as w

    size = w.FloatLogSlider(value=payload_bytes / 1e6, base=10, min=-3, max=4, step=typed_step(),
                            description="payload MB", readout_format=TYPED_FORMAT)
    readout = readout_label()
    image = w.Image(format="png")

    def redraw():
        s = exact.state
        readout.value, image.value = network_whatif_update(s["bw"] * 1e6, s["rtt"] / 1e3, s["loss"] / 100,
                                                           s["size"] * 1e6)

    (choose, bw, rtt, loss), exact = link_controls(preset, redraw, extra={"size": size})
    style_sliders(bw, rtt, loss, size, description_width="130px")
    redraw()
    return w.VBox([choose, bw, rtt, loss, size, readout, image, readout_style()])


def transfer_time_figure(payload_bytes, times_s: dict, labels: dict, paper_point=None, highlight=None):
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
    plt = plotting.pyplot()
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
    plotting.fast_layout(fig)
    return fig
