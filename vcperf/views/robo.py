"""ROBO study views: figures and the what-if panel (``001_36d9adf7ffa34fcf.txt``).

Each what-if panel has a pure *update* function (model + redraw -> readout text, PNG bytes) that the
widget calls on every change and that ``make bench`` times headless.
"""

from __future__ import annotations

import numpy as np

from vcperf import network, robo
from vcperf.plotting import PAPER_STYLE, use_style
from vcperf.widgets import png_bytes, style_sliders

#: Payload axis of the ROBO transfer-time figure: 1 KB .. 10 GB.
PAYLOAD_GRID_BYTES = np.logspace(3, 10, 60)


def network_whatif_update(bandwidth_bps: float, rtt_s: float, loss: float, payload_bytes: float):
    """Model + redraw for the ROBO network what-if: returns ``(readout, png_bytes)``.

    The figure shows every Table 1 network and the what-if link (thick), the readout the transfer
    time and TCP throughput of ``payload_bytes`` over the what-if link.
    """
    link = network.Link(bandwidth_bps, rtt_s, loss, name="what-if")
    t = float(robo.statistics_upload_time_s(payload_bytes, link))
    rate = link.tcp_throughput_bps()
    links = {n: network.preset(n) for n in network.preset_names()}
    times = robo.transfer_time_grid_s(PAYLOAD_GRID_BYTES, links)
    times["what-if"] = link.transfer_time_s(PAYLOAD_GRID_BYTES)
    labels = {n: lk.name for n, lk in links.items()}
    fig = transfer_time_figure(
        PAYLOAD_GRID_BYTES, times, labels, paper_point=(payload_bytes, t, "what-if payload"), highlight="what-if"
    )
    readout = (
        f"{payload_bytes / 1e6:.3g} MB over {bandwidth_bps / 1e6:.3g} Mbps, RTT {rtt_s * 1e3:.3g} ms, "
        f"loss {loss * 100:.3g} %: {t:.3g} s (TCP throughput {rate / 1e6:.3g} Mbps)"
    )
    return readout, png_bytes(fig)


def network_whatif(preset: str = "dsl_512k", payload_bytes: float = 3.5e6):
    """The ROBO network what-if panel: pick a Table 1 preset or set bandwidth, RTT, loss, payload."""
    import ipywidgets as w

    start = network.preset(preset)
    choose = w.Dropdown(options=[("custom", "custom")] + [(network.preset(n).name, n) for n in network.preset_names()],
                        value=preset, description="network")
    bw = w.FloatLogSlider(value=start.bandwidth_bps / 1e6, base=10, min=-1, max=4, step=0.01,
                          description="bandwidth Mbps", readout_format=".3g")
    rtt = w.FloatSlider(value=start.rtt_s * 1e3, min=0, max=1000, step=1, description="RTT ms")
    loss = w.FloatSlider(value=start.loss * 100, min=0, max=5, step=0.01, description="loss %",
                         readout_format=".2f")
    size = w.FloatLogSlider(value=payload_bytes / 1e6, base=10, min=-3, max=4, step=0.01,
                            description="payload MB", readout_format=".3g")
    style_sliders(bw, rtt, loss, size)
    readout = w.Label()
    image = w.Image(format="png")
    busy = {"preset": False}

    def redraw(*_):
        text, png = network_whatif_update(bw.value * 1e6, rtt.value / 1e3, loss.value / 100, size.value * 1e6)
        readout.value = text
        image.value = png

    def on_preset(change):
        if change["new"] == "custom":
            return
        link = network.preset(change["new"])
        busy["preset"] = True
        bw.value, rtt.value, loss.value = link.bandwidth_bps / 1e6, link.rtt_s * 1e3, link.loss * 100
        busy["preset"] = False
        redraw()

    def on_slider(_):
        if not busy["preset"]:
            choose.value = "custom"
            redraw()

    choose.observe(on_preset, names="value")
    for s in (bw, rtt, loss):
        s.observe(on_slider, names="value")
    size.observe(lambda _: redraw(), names="value")
    redraw()
    return w.VBox([choose, bw, rtt, loss, size, readout, image])

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
