"""ROBO operations views (notebook robo_operations): Figure 8's exchange list, VCbench throughput and latency
(Figures 9-11), its traffic (Figures 12-13), adding a host (Figures 14-15) and the operations what-if
panel."""

from __future__ import annotations

import functools

import numpy as np

from vcperf import network, plotting, robo
from vcperf.plotting import PAPER_STYLE
from vcperf.robo import readouts
from vcperf.views.format import fmt_band, fmt_bps, fmt_bytes, fmt_duration, fmt_num, fmt_percent
from vcperf.views.robo.common import (
    START_PRESET,
    band,
    lean_axes,
    link_controls,
    ordered_presets,
    preset_label,
    start_link,
)
from vcperf.widgets import PanelFigure, fast_redraw, readout_label, readout_style, style_sliders


def sequence_figure(operation="create_vm", link=None):
    """Figure 8: the model's exchange list of one operation as a sequence diagram.

    Lanes: client, vCenter, ESXi host, database. Each host call is a request and a response arrow,
    labelled with the model's time for the call over ``link`` (default DSL) and its round trips.
    """
    plt = plotting.pyplot()
    link = link or robo.preset("dsl_512k")
    p = robo.calibrate().ops
    per_vm = robo.vm_state_bytes()
    calls = robo.operations.flatten(robo.operation_calls(operation))
    lanes = {"client": 0.0, "vCenter": 1.0, "ESXi host": 2.0, "database": 3.0}
    n_rows = 2 * len(calls) + 3
    fig, ax = plt.subplots(figsize=(7.2, 0.45 * n_rows + 1.2))
    for name, x in lanes.items():
        ax.plot([x, x], [0.5, n_rows + 0.5], color="0.6", lw=1)
        ax.text(x, 0.2, name, ha="center", va="bottom", fontsize=8, weight="bold")

    def arrow(y, a, b, text, color="C0"):
        ax.annotate("", xy=(lanes[b], y), xytext=(lanes[a], y),
                    arrowprops={"arrowstyle": "->", "color": color, "lw": 1.3})
        ax.text((lanes[a] + lanes[b]) / 2, y - 0.12, text, ha="center", va="bottom", fontsize=7)

    y = 1
    arrow(y, "client", "vCenter", f"initiate {operation}")
    for call in calls:
        t = float(robo.call_time_s(call, link, p.round_trips_per_call, per_vm))
        resp = float(call.response_payload_bytes(per_vm))
        y += 1
        arrow(y, "vCenter", "ESXi host", f"{call.name} ({fmt_bytes(call.request_bytes)})", "C0")
        y += 1
        arrow(y, "ESXi host", "vCenter",
              f"response ({fmt_bytes(resp)}): {p.round_trips_per_call:.1f} RTTs, {fmt_duration(t)}", "C1")
    y += 1
    arrow(y, "vCenter", "database", "persist state", "C2")
    y += 1
    arrow(y, "vCenter", "client", "reply", "C2")
    ax.set_ylim(n_rows + 0.6, -0.1)
    ax.set_xlim(-0.5, 3.5)
    ax.axis("off")
    ax.set_title(f"{operation} over {link.name} (model exchange list)", fontsize=9)
    plotting.finish(fig)
    return fig


def vcbench_figure(stated=None, loo=None):
    """Figures 9 and 10: VCbench throughput and mean latency per network type (8 clients).

    ``stated`` maps network id -> paper latency (s); the throughput panel marks ``8 / latency``
    (Little's law with zero think time) for those networks. ``loo`` maps network id ->
    leave-one-out latency.
    """
    plt = plotting.pyplot()
    nets = ordered_presets()
    res = [robo.vcbench(robo.preset(n)) for n in nets]
    x = np.arange(len(nets))
    fig, axes = plt.subplots(1, 2, figsize=(9.4, 3.6))
    axes[0].plot(x, [r.throughput_per_s * 60 for r in res], "-s", label="model (MVA, 8 clients)")
    axes[1].plot(x, [r.mean_latency_s for r in res], "-s", label="model (MVA, 8 clients)")
    if stated:
        xs = [nets.index(n) for n in stated]
        clients = res[0].clients
        axes[0].plot(xs, [60 * clients / t for t in stated.values()],
                     label="paper latency via Little's law", **{**PAPER_STYLE, "marker": "D"})
        axes[1].plot(xs, list(stated.values()), label="paper: 0.9 / 2.7 / 8.3 s", **PAPER_STYLE)
    if loo:
        axes[1].plot([nets.index(n) for n in loo], list(loo.values()), "o", mfc="none", color="C3",
                     label="loo: refit without the same-RTT numbers")
    axes[0].set_ylabel("VCbench throughput (ops/min)")
    axes[0].set_title("Figure 9", fontsize=9)
    axes[1].set_ylabel("mean operation latency (s)")
    axes[1].set_title("Figure 10", fontsize=9)
    for ax in axes:
        ax.set_xticks(x, [preset_label(n) for n in nets], rotation=25, fontsize=7)
        ax.legend(fontsize=7, frameon=False)
    plotting.finish(fig)
    return fig


def latency_vs_rtt_figure(stated=None):
    """Mean VCbench latency vs RTT on a 10 Mbit/s, 0.05 % loss link, against latency proportional to RTT."""
    plt = plotting.pyplot()
    rtts = np.logspace(-3, 0, 40)
    lat = np.array([robo.vcbench(network.Link(10e6, r, 5e-4)).mean_latency_s for r in rtts])
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.loglog(rtts * 1e3, lat, label="model: mean latency (10 Mbit/s, 0.05 % loss)")
    ax.loglog(rtts * 1e3, lat[0] * rtts / rtts[0], ls=":", color="0.5", label="if latency grew like RTT")
    if stated:
        ax.loglog([robo.preset(n).rtt_s * 1e3 for n in stated], list(stated.values()),
                  label="paper (LAN, DSL, satellite)", **PAPER_STYLE)
        ax.annotate("RTT x100 -> latency x3\nRTT x5 -> latency x3", xy=(0.03, 0.95), xycoords="axes fraction",
                    va="top", fontsize=8)
    ax.set_ylim(top=lat.max() * 3)
    ax.set_xlabel("RTT (ms)")
    ax.set_ylabel("mean operation latency (s)")
    ax.legend(fontsize=7, frameon=False, loc="lower right")
    plotting.finish(fig)
    return fig


def distinct_curves(curves: dict, rel_tol: float = 1e-6) -> list:
    """Group curves that coincide (within ``rel_tol``): ``[(names, values), ...]`` in first-seen order.

    Operations with the same structure (one command and a Get-Changes) have the same latency on
    every network; Figure 11's legend lists each distinct curve once, with every operation it holds.
    """
    groups: list = []
    for name, values in curves.items():
        arr = np.asarray(values, dtype=float)
        for names, ref in groups:
            if np.allclose(arr, ref, rtol=rel_tol, atol=0.0):
                names.append(name)
                break
        else:
            groups.append(([name], arr))
    return [(tuple(n), ref) for n, ref in groups]


def per_operation_figure():
    """Figure 11: latency of each VCbench operation per network type (log y); folders flat."""
    plt = plotting.pyplot()
    nets = ordered_presets()
    res = [robo.vcbench(robo.preset(n)) for n in nets]
    ops = robo.operation_names()
    x = np.arange(len(nets))
    fig, ax = plt.subplots(figsize=(8.0, 4.4))
    cmap = plt.get_cmap("tab10")
    for i, (names, curve) in enumerate(distinct_curves({op: [r.per_operation_latency_s[op] for r in res]
                                                        for op in ops})):
        folder = all("folder" in op for op in names)
        ax.semilogy(x, curve, "-o" if folder else "-", ms=3, lw=2.4 if folder else 1.0,
                    color="k" if folder else cmap(i % 10),
                    label="\n".join(", ".join(names[j:j + 3]) for j in range(0, len(names), 3)))
    ax.set_xticks(x, [preset_label(n) for n in nets], rotation=20, fontsize=8)
    ax.set_ylabel("operation latency (s)")
    ax.legend(fontsize=6, ncol=1, frameon=False, bbox_to_anchor=(1.01, 1), loc="upper left")
    ax.set_title("Figure 11 - folder operations (black) never talk to the host", fontsize=9)
    plotting.finish(fig)
    return fig


def vcbench_traffic_figure():
    """Figures 12 and 13: traffic between vCenter and one host during VCbench, per network type."""
    plt = plotting.pyplot()
    nets = ordered_presets()
    t = [robo.vcbench_host_traffic(robo.preset(n)) for n in nets]
    x = np.arange(len(nets))
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.4))
    axes[0].bar(x, [float(a.host_to_vc_bps) / 1e3 for a in t], color="C0")
    axes[0].set_title("Figure 12 - host -> vCenter", fontsize=9)
    axes[1].bar(x, [float(a.vc_to_host_bps) / 1e3 for a in t], color="C1")
    axes[1].set_title("Figure 13 - vCenter -> host", fontsize=9)
    for ax in axes:
        ax.set_xticks(x, [preset_label(n) for n in nets], rotation=25, fontsize=7)
        ax.set_ylabel("average traffic (kbit/s)")
    plotting.finish(fig)
    return fig


def add_host_figure(stated=None, loo=None):
    """Figures 14-15: add-host time per network type (model, paper, leave-one-out) and its traffic."""
    plt = plotting.pyplot()
    nets = ordered_presets()
    x = np.arange(len(nets))
    fig, axes = plt.subplots(1, 2, figsize=(9.4, 3.6))
    axes[0].semilogy(x, [float(robo.add_host_time_s(robo.preset(n))) for n in nets], "-s", label="model")
    if stated:
        axes[0].semilogy([nets.index(n) for n in stated], list(stated.values()),
                         label="paper: 15 s, 2:10, 2:10, 9 min", **PAPER_STYLE)
    if loo:
        axes[0].semilogy([nets.index(n) for n in loo], list(loo.values()), "o", mfc="none", color="C3",
                         label="loo: refit without the same-RTT numbers")
    axes[0].set_ylabel("add host (s)")
    axes[0].set_title("Figure 14 - add host", fontsize=9)
    axes[0].legend(fontsize=7, frameon=False)
    axes[1].bar(x, [robo.add_host_traffic_bps(robo.preset(n)) / 1e3 for n in nets], color="C0")
    axes[1].set_yscale("log")
    axes[1].set_ylabel("host -> vCenter during add host (kbit/s)")
    axes[1].set_title("Figure 15 - add host traffic", fontsize=9)
    for ax in axes:
        ax.set_xticks(x, [preset_label(n) for n in nets], rotation=25, fontsize=7)
    plotting.finish(fig)
    return fig


@functools.lru_cache(maxsize=256)
def operation_split(link: network.Link, clients: int, operation: str):
    """``(vCenter time, network time, VcbenchResult)`` of ``operation`` on ``link`` with ``clients``
    (:func:`vcperf.robo.readouts.operation_split` at the study's calibration and test bed).

    Cached on its hashable inputs (a frozen :class:`vcperf.network.Link`, an int, a str), so the eight
    Table 1 networks of the operations panel are solved once per (clients, operation).
    """
    tb = robo.testbed()
    return readouts.operation_split(link, clients, operation, tb.calls(operation), tb.mix, tb.vcenter_vcpus,
                                    params=robo.calibrate())


@functools.lru_cache(maxsize=256)
def operation_intervals(link: network.Link, clients: int, operation: str):
    """90 % intervals ``(value, low, high)`` of ``operation``'s latency and of the mean VCbench latency on
    ``link`` with ``clients`` (:func:`vcperf.robo.readouts.operation_intervals`, misfit of the fitted
    Figure 10 latencies), cached like :func:`operation_split`."""
    tb = robo.testbed()
    return readouts.operation_intervals(link, clients, operation, tb.calls(operation), tb.mix, tb.vcenter_vcpus,
                                        params=robo.calibrate())


@fast_redraw
def operations_update(bandwidth_bps=None, rtt_s=None, loss=None, clients=8, operation="clone_vm", name="what-if"):
    """Model + redraw for the operations what-if: returns ``(readout, png_bytes)``.

    Left: VCbench throughput and mean latency vs clients on the what-if link (chosen clients
    marked). Right: the chosen operation's latency on every network type and the what-if link,
    split into vCenter time and network time. Defaults are the panel's starting values (the
    :data:`START_PRESET` link, 8 clients, ``clone_vm``). The operation's latency and the mean latency
    carry their 90 % intervals (:func:`operation_intervals`), the throughput the mean latency's through
    Little's law (VCbench has no think time: ``X = clients / latency``).
    """
    bandwidth_bps, rtt_s, loss = start_link(bandwidth_bps, rtt_s, loss)
    link = network.Link(bandwidth_bps, rtt_s, loss, name=name)
    vc_t, net_t, res = operation_split(link, clients, operation)
    lat_iv, mean_iv = operation_intervals(link, clients, operation)
    # Closed loop without think time: X = clients / mean latency (Little's law), so its band is the latency's.
    x_iv = (res.throughput_per_s, clients / mean_iv[2], clients / mean_iv[1])
    n, x, r = robo.vcbench_vs_clients(link, max(32, clients))
    links = [robo.preset(k) for k in ordered_presets()] + [link]
    split = np.array([operation_split(lk, clients, operation)[:2] for lk in links])
    panel = _OperationsPanel.shared()
    panel.draw(n, x * 60, r, clients, res.throughput_per_s * 60, split[:, 0], split[:, 1],
               [lk.name for lk in links], f"{operation} latency (s)")
    readout = (
        f"{clients} clients on {fmt_bps(bandwidth_bps)}, RTT {fmt_num(rtt_s * 1e3)} ms, loss {fmt_percent(loss)}: "
        f"{operation} {band(lat_iv)} (network {fmt_duration(net_t)}); mean latency "
        f"{band(mean_iv)}, throughput {fmt_band(*x_iv, fmt=lambda x: f'{fmt_num(x * 60, 4)} ops/min')}, "
        f"vCenter vCPU busy {fmt_percent(res.vcenter_utilization)}"
        + _clients_note(link, clients, operation)
    )
    return readout, panel.png()


def _clients_note(link, clients, operation) -> str:
    """Why the latencies do not move with ``clients`` when they equal one client's (the clients knob
    then moves only throughput and vCPU busy); empty otherwise."""
    vc_t, net_t, res = operation_split(link, clients, operation)
    vc_1, net_1, one = operation_split(link, 1, operation)
    same = res.mean_latency_s == one.mean_latency_s and vc_t + net_t == vc_1 + net_1
    vcpus = robo.testbed().vcenter_vcpus
    if clients == 1 or clients > vcpus or not same:
        return ""
    return (f"; note: latencies as with 1 client: {clients} clients <= vCenter's {vcpus} vCPUs "
            f"each have a vCPU (no queueing) and the link is not the bottleneck, so clients move only the "
            f"throughput and vCPU busy")


class _OperationsPanel(PanelFigure):
    """The operations what-if figure. Left: throughput (and, on a twin axis, mean latency) vs clients
    with the chosen clients marked; right: one operation's latency on every network type and the
    what-if link, split into vCenter and network time.
    """

    def __init__(self):
        super().__init__((9.4, 3.6), ncols=2)
        n_links = len(robo.preset_names()) + 1
        ax, self.bars_ax = self.axes
        self.ax = ax
        (self.throughput,) = ax.plot([], [], color="C0", label="throughput")
        (self.marker,) = ax.plot([], [], "o", color="C3")
        ax.set_xlabel("clients")
        ax.set_ylabel("throughput (ops/min)", color="C0")
        self.twin = ax.twinx()
        (self.latency,) = self.twin.plot([], [], color="C1")
        self.twin.set_ylabel("mean latency (s)", color="C1")
        self.twin.grid(False)
        xs = np.arange(n_links)
        zeros = np.zeros(n_links)
        self.vc_bars = self.bars_ax.bar(xs, zeros, color="C2", label="vCenter (CPU + queue)")
        self.net_bars = self.bars_ax.bar(xs, zeros, bottom=zeros, color="C0", label="vCenter <-> host exchanges")
        self.bars_ax.set_xticks(xs, [""] * n_links, rotation=30, fontsize=7)
        self.bars_ax.legend(fontsize=7, frameon=False, loc="upper left")
        self.names = None
        # Fixed margins (the widget layout): room for the twin axis and the rotated network names.
        self.fig.subplots_adjust(left=0.07, right=0.98, bottom=0.22, top=0.96, wspace=0.42)
        lean_axes(self.fig)

    def draw(self, clients, throughput_per_min, latency_s, chosen_clients, chosen_throughput_per_min,
             vcenter_s, network_s, names, ylabel):
        self.throughput.set_data(clients, throughput_per_min)
        self.marker.set_data([chosen_clients], [chosen_throughput_per_min])
        self.latency.set_data(clients, latency_s)
        for bar, h in zip(self.vc_bars, vcenter_s, strict=True):
            bar.set_height(h)
        for bar, h, b in zip(self.net_bars, network_s, vcenter_s, strict=True):
            bar.set_height(h)
            bar.set_y(b)
        if names != self.names:
            self.bars_ax.set_xticks(self.bars_ax.get_xticks(), names, rotation=30, fontsize=7)
            self.names = list(names)
        self.bars_ax.set_ylabel(ylabel)
        self.rescale(self.ax, self.twin, self.bars_ax)


def operations_whatif(preset=START_PRESET, clients=8, operation="clone_vm"):
    """Operations what-if panel: network type or custom link, clients, operation."""
    import ipywidgets as w

    n = w.IntSlider(value=clients, min=1, max=64, description="clients")
    op = w.Dropdown(options=[*robo.operation_names(), "create_vm"], value=operation, description="operation")
    readout = readout_label()
    image = w.Image(format="png")

    def redraw(*_):
        s = exact.state
        readout.value, image.value = operations_update(s["bw"] * 1e6, s["rtt"] / 1e3, s["loss"] / 100, n.value,
                                                       op.value)

    (choose, bw, rtt, loss), exact = link_controls(preset, redraw)
    style_sliders(bw, rtt, loss, n, description_width="130px")
    for c in (n, op):
        c.observe(lambda _: redraw(), names="value")
    redraw()
    return w.VBox([choose, bw, rtt, loss, n, op, readout, image, readout_style()])
