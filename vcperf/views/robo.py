"""ROBO study views: figures and the what-if panel (``001_36d9adf7ffa34fcf.txt``).

Each what-if panel has a pure *update* function (model + redraw -> readout text, PNG bytes) that the
widget calls on every change and that ``make bench`` times headless.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from vcperf import network, plotting, protocol, robo
from vcperf.plotting import PAPER_STYLE, use_style
from vcperf.widgets import (
    fast_redraw,
    fmt_band,
    fmt_bps,
    fmt_bytes,
    fmt_duration,
    fmt_num,
    png_bytes,
    readout_label,
    readout_style,
    style_sliders,
)

#: Payload axis of the ROBO transfer-time figure: 1 KB .. 10 GB.
PAYLOAD_GRID_BYTES = np.logspace(3, 10, 60)
#: Table 1 network every what-if panel starts from (its link settings are the panels' defaults).
START_PRESET = "dsl_512k"
#: Payload the network what-if starts with: the study's ~3.5 MB Level-4 statistics upload.
START_PAYLOAD_BYTES = 3.5e6


def _start_link(bandwidth_bps, rtt_s, loss):
    """Fill unset link settings from :data:`START_PRESET` (the panels' starting values)."""
    start = robo.preset(START_PRESET)
    return (start.bandwidth_bps if bandwidth_bps is None else bandwidth_bps,
            start.rtt_s if rtt_s is None else rtt_s,
            start.loss if loss is None else loss)


#: Relative step of the forward differences behind the readouts' intervals (each parameter times 1 + step).
INTERVAL_STEP = 1e-6
#: Data tables whose model-form misfit the readouts' bands carry: operation latencies (Figure 10, the
#: fitted VCbench latencies) for every operation time; the study's pooled misfit (``None``) for a plain
#: TCP transfer of a payload the user sets, which no fitted table measures.
LATENCY_TABLE = f"{robo.STUDY}/figure10_vcbench_latency"
#: ... and for a statistics upload's time, the table of the statistics size and its "about 1 minute" on DSL.
UPLOAD_TABLE = f"{robo.STUDY}/figure06_stats_data_size"


@functools.lru_cache(maxsize=1)
def _param_index() -> dict:
    """Parameter name -> its place among the study's parameters (:func:`vcperf.protocol.param_names`)."""
    return {n: i for i, n in enumerate(protocol.param_names(robo.calibrate()))}


def _interval(value, sensitivities: dict, data_table=LATENCY_TABLE):
    """``(value, low, high)`` of a readout quantity from its log-parameter sensitivities.

    ``sensitivities`` maps a parameter name to ``d value / d ln parameter`` (parameters it does not read
    have none): :func:`vcperf.protocol.interval_from_gradient`, the last step of
    :func:`vcperf.protocol.with_interval` (calibration covariance + one measurement's misfit of
    ``data_table``, Student-t bounds). Deterministic.
    """
    idx = _param_index()
    g = np.zeros(len(idx))
    for name, d in sensitivities.items():
        g[idx[name]] = d
    iv = protocol.interval_from_gradient(robo.STUDY, float(value), g, data_table=data_table)
    return float(value), float(iv.low), float(iv.high)


def _band(v3) -> str:
    """"x s (lo–hi s, 90 %)" of a ``(value, low, high)`` time."""
    return fmt_band(*v3, interval=protocol.INTERVAL)


def _lean_axes(fig, nbins: int = 4) -> None:
    """Fewer, plain-text ticks for a widget redraw.

    On this kind of figure most of a redraw is tick-label text: every label is laid out by
    FreeType and a log axis's ``10^k`` labels go through the mathtext parser. A widget image keeps
    ``nbins`` major ticks per linear axis and decade ticks labelled as plain numbers on log axes.
    """
    from matplotlib.ticker import AutoLocator, FuncFormatter, LogLocator, MaxNLocator, NullLocator

    plain = FuncFormatter(lambda x, _pos: f"{x:g}")
    for ax in fig.axes:
        for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
            if scale == "log":
                axis.set_major_locator(LogLocator(base=10.0, numticks=nbins + 2))
                axis.set_major_formatter(plain)
                axis.set_minor_locator(NullLocator())
            elif type(axis.get_major_locator()) is AutoLocator:  # keep explicit (fixed) ticks
                axis.set_major_locator(MaxNLocator(nbins=nbins))


@functools.lru_cache(maxsize=1)
def _preset_transfer_times():
    """Transfer time over every Table 1 network for :data:`PAYLOAD_GRID_BYTES` (input-independent)."""
    links = {n: robo.preset(n) for n in robo.preset_names()}
    times = robo.transfer_time_grid_s(PAYLOAD_GRID_BYTES, links)
    for t in times.values():
        t.setflags(write=False)
    return times, {n: lk.name for n, lk in links.items()}


@fast_redraw
def network_whatif_update(bandwidth_bps: float | None = None, rtt_s: float | None = None, loss: float | None = None,
                          payload_bytes: float = START_PAYLOAD_BYTES):
    """Model + redraw for the ROBO network what-if: returns ``(readout, png_bytes)``.

    The figure shows every Table 1 network and the what-if link (thick), the readout the transfer
    time (with its 90 % interval: no calibrated parameter enters a TCP transfer, so the band is the
    study's misfit of one measurement) and TCP throughput of ``payload_bytes`` over the what-if link.
    Unset link settings are
    those of :data:`START_PRESET` (the panel's starting values); the Table 1 curves, which do not
    depend on the inputs, are computed once.
    """
    bandwidth_bps, rtt_s, loss = _start_link(bandwidth_bps, rtt_s, loss)
    link = network.Link(bandwidth_bps, rtt_s, loss, name="what-if")
    t = float(robo.statistics_upload_time_s(payload_bytes, link))
    rate = link.tcp_throughput_bps()
    panel = _network_panel()
    panel.draw(link.message_time_s(PAYLOAD_GRID_BYTES, "up"), payload_bytes, t)
    # A TCP transfer of a given payload reads no calibrated parameter: its band is one measurement's
    # misfit of the study's models (model-form error + run-to-run noise, the study's pooled estimate).
    readout = (
        f"{fmt_bytes(payload_bytes)} over {fmt_bps(bandwidth_bps)}, RTT {fmt_num(rtt_s * 1e3)} ms, "
        f"loss {fmt_num(loss * 100)} %: {_band(_interval(t, {}, data_table=None))} "
        f"(TCP throughput {fmt_bps(rate)})"
    )
    return readout, panel.png()


class _PanelFigure:
    """A what-if figure built once and updated in place on every redraw.

    Building a figure (axes, ticks, legend) and laying out its text is most of a redraw; keeping one
    figure and its Agg canvas lets a redraw move only the data and reuse the canvas's cached text
    metrics. Subclasses build the artists in ``__init__`` and move them in ``draw``.
    """

    def _new_figure(self, figsize):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        use_style()
        fig = Figure(figsize=figsize)
        FigureCanvasAgg(fig)
        return fig

    def _rescale(self, *axes):
        for a in axes:
            a.relim()
            a.autoscale_view()

    def png(self) -> bytes:
        return png_bytes(self.fig)


class _NetworkPanelFigure(_PanelFigure):
    """Transfer time vs payload for every Table 1 network (fixed) and the what-if link (thick),
    as :func:`transfer_time_figure` draws it."""

    def __init__(self):
        self.fig = self._new_figure((6.4, 3.8))
        ax = self.ax = self.fig.add_subplot()
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
        _lean_axes(self.fig)

    def draw(self, whatif_times_s, payload_bytes, time_s):
        self.line.set_ydata(whatif_times_s)
        self.point.set_data([payload_bytes / 1e6], [time_s])
        self._rescale(self.ax)


@functools.lru_cache(maxsize=1)
def _network_panel() -> _NetworkPanelFigure:
    return _NetworkPanelFigure()


def network_whatif(preset: str = START_PRESET, payload_bytes: float = START_PAYLOAD_BYTES):
    """The ROBO network what-if panel: pick a Table 1 preset or set bandwidth, RTT, loss, payload."""
    import ipywidgets as w

    start = robo.preset(preset)
    choose = w.Dropdown(options=[("custom", "custom")] + [(robo.preset(n).name, n) for n in robo.preset_names()],
                        value=preset, description="network")
    bw = w.FloatLogSlider(value=start.bandwidth_bps / 1e6, base=10, min=-1, max=4, step=0.01,
                          description="bandwidth Mbps", readout_format=".3g")
    rtt = w.FloatSlider(value=start.rtt_s * 1e3, min=0, max=1000, step=1, description="RTT ms")
    loss = w.FloatSlider(value=start.loss * 100, min=0, max=5, step=0.01, description="loss %",
                         readout_format=".2f")
    size = w.FloatLogSlider(value=payload_bytes / 1e6, base=10, min=-3, max=4, step=0.01,
                            description="payload MB", readout_format=".3g")
    style_sliders(bw, rtt, loss, size)
    readout = readout_label()
    image = w.Image(format="png")
    # The exact inputs. Log sliders round to their step (0.5 Mbps shows as 0.501), and the browser
    # echoes the rounded value back: a slider change within one step of the state is that echo, not
    # the user, and must neither switch to "custom" nor move the model off the preset.
    state = {"bw": start.bandwidth_bps / 1e6, "rtt": start.rtt_s * 1e3, "loss": start.loss * 100,
             "size": payload_bytes / 1e6}
    sliders = {"bw": bw, "rtt": rtt, "loss": loss, "size": size}
    setting = {"preset": False}

    def redraw():
        text, png = network_whatif_update(state["bw"] * 1e6, state["rtt"] / 1e3, state["loss"] / 100,
                                          state["size"] * 1e6)
        readout.value = text
        image.value = png

    def is_echo(key, new):
        old = state[key]
        if isinstance(sliders[key], w.FloatLogSlider):
            return old > 0 and abs(np.log10(new / old)) <= sliders[key].step
        return abs(new - old) <= sliders[key].step / 2

    def on_preset(change):
        if change["new"] == "custom":
            return
        link = robo.preset(change["new"])
        state.update(bw=link.bandwidth_bps / 1e6, rtt=link.rtt_s * 1e3, loss=link.loss * 100)
        setting["preset"] = True
        bw.value, rtt.value, loss.value = state["bw"], state["rtt"], state["loss"]
        setting["preset"] = False
        redraw()

    def on_slider(change, key):
        if setting["preset"] or is_echo(key, change["new"]):
            return
        state[key] = change["new"]
        if key != "size":
            choose.value = "custom"
        redraw()

    choose.observe(on_preset, names="value")
    for key, slider in sliders.items():
        slider.observe(lambda change, key=key: on_slider(change, key), names="value")
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
    plotting.fast_layout(fig)
    return fig


# ================================================================================================
# Background traffic and statistics (notebook robo_background_and_statistics)
# ================================================================================================

#: Powered-on VMs per host on the x axis of the host-sync and statistics figures.
VM_GRID = np.arange(0, 49, 1.0)
#: VM counts drawn as separate series (the testbed has 24 per host).
VM_SERIES = (8, 16, 24, 32)
_LEVEL_LABELS = {lvl: f"Level-{lvl}" for lvl in robo.LEVELS}


def _ordered_presets():
    """Preset ids ordered by RTT, then bandwidth (LAN first, satellite last)."""
    names = robo.preset_names()
    return sorted(names, key=lambda n: (robo.preset(n).rtt_s, -robo.preset(n).bandwidth_bps))


def hostsync_figure(vms=VM_GRID, stated=None):
    """Figures 2-3: host-sync traffic of one host vs powered-on VMs, both directions.

    ``stated`` = (vms, kbps) draws the paper's point on the host -> vCenter panel.
    """
    import matplotlib.pyplot as plt

    use_style()
    t = robo.host_sync_traffic(vms)
    fig, axes = plt.subplots(1, 2, figsize=(8.6, 3.4))
    axes[0].plot(vms, t.host_to_vc_bps / 1e3, label="model: heartbeat + VM changes")
    if stated is not None:
        axes[0].plot([stated[0]], [stated[1]], label="paper: 3.75 Kbps at 24 VMs", **PAPER_STYLE)
    axes[0].set_title("Figure 2 - host -> vCenter", fontsize=9)
    axes[1].plot(vms, t.vc_to_host_bps / 1e3, color="C1", label="model: TCP ACKs of the changes")
    axes[1].set_title("Figure 3 - vCenter -> host (ACKs only)", fontsize=9)
    for ax in axes:
        ax.set_xlabel("powered-on VMs per host")
        ax.set_ylabel("average traffic (Kbps)")
        ax.legend(fontsize=7, frameon=False)
        ax.set_ylim(bottom=0)
    plotting.finish(fig)
    return fig


def hostsync_sharing_figure(hosts=None, powered_on_vms=None):
    """Host-sync utilization of one shared branch link vs hosts behind it (1-200), per network type."""
    import matplotlib.pyplot as plt

    use_style()
    hosts = np.arange(1, 201) if hosts is None else hosts
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for net in _ordered_presets():
        link = robo.preset(net)
        u = robo.host_sync_link_utilization(hosts, link, powered_on_vms).host_to_vc_bps
        ax.loglog(hosts, 100 * u, label=link.name)
    ax.axhline(100, color="k", lw=0.8, ls=":")
    ax.axvspan(10, 90, color="0.9", zorder=0, label="'tens of hosts'")
    ax.set_xlabel("hosts sharing the branch link")
    ax.set_ylabel("host-sync utilization (%)")
    ax.legend(fontsize=7, ncol=2, frameon=False)
    plotting.finish(fig)
    return fig


def stats_traffic_figure(vm_series=VM_SERIES):
    """Figures 4 and 5: average host -> vCenter traffic (statistics + host sync) by level and by VMs."""
    import matplotlib.pyplot as plt

    use_style()
    levels = np.array(robo.LEVELS)
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.5))
    width = 0.8 / len(vm_series)
    for i, vms in enumerate(vm_series):
        t = robo.statistics_traffic(levels, float(vms)).host_to_vc_bps / 1e3
        axes[0].bar(levels + (i - (len(vm_series) - 1) / 2) * width, t, width, label=f"{vms} PonVMs")
    axes[0].set_xticks(levels, [_LEVEL_LABELS[lvl] for lvl in levels])
    axes[0].set_title("Figure 4 - by statistics level", fontsize=9)
    for lvl in levels:
        axes[1].plot(VM_GRID, robo.statistics_traffic(lvl, VM_GRID).host_to_vc_bps / 1e3, label=_LEVEL_LABELS[lvl])
    axes[1].set_xlabel("powered-on VMs per host")
    axes[1].set_title("Figure 5 - by powered-on VMs", fontsize=9)
    for ax in axes:
        ax.set_ylabel("host -> vCenter (Kbps)")
        ax.legend(fontsize=7, frameon=False)
    plotting.finish(fig)
    return fig


def stats_size_figure(stated=None):
    """Figure 6: statistics data per upload vs powered-on VMs for each level (log y).

    ``stated`` = (vms, bytes) draws the paper's ~3.5 MB Level-4 point (at the assumed 24 VMs).
    """
    import matplotlib.pyplot as plt

    use_style()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for lvl in robo.LEVELS:
        ax.semilogy(VM_GRID[1:], robo.statistics_payload_bytes(lvl, VM_GRID[1:]) / 1e3, label=_LEVEL_LABELS[lvl])
    if stated is not None:
        ax.semilogy([stated[0]], [stated[1] / 1e3], label="paper: ~3.5 MB at Level-4", **PAPER_STYLE)
    s = robo.statistics_payload_bytes(np.array(robo.LEVELS), robo.testbed_powered_on_vms())
    ax.annotate(f"L2/L1 = {s[1] / s[0]:.2f}  (paper: close)\nL3/L2 = {s[2] / s[1]:.1f}  (paper: considerable)\n"
                f"L4/L3 = {s[3] / s[2]:.2f}  (paper: close)", xy=(0.02, 0.97), xycoords="axes fraction",
                va="top", fontsize=7)
    ax.set_xlabel("powered-on VMs per host")
    ax.set_ylabel("statistics data per upload (KB)")
    ax.legend(fontsize=7, frameon=False, loc="lower right")
    plotting.finish(fig)
    return fig


def stats_reverse_figure(vm_series=VM_SERIES, bound_kbps=None):
    """Figure 7: vCenter -> host traffic (ACKs of statistics and host sync) by level, with the bound."""
    import matplotlib.pyplot as plt

    use_style()
    levels = np.array(robo.LEVELS)
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    width = 0.8 / len(vm_series)
    for i, vms in enumerate(vm_series):
        t = robo.statistics_traffic(levels, float(vms)).vc_to_host_bps / 1e3
        ax.bar(levels + (i - (len(vm_series) - 1) / 2) * width, t, width, label=f"{vms} PonVMs")
    if bound_kbps is not None:
        ax.axhline(bound_kbps, color="k", ls="--", lw=1, label=f"paper: all < {bound_kbps:g} Kbps")
    ax.set_xticks(levels, [_LEVEL_LABELS[lvl] for lvl in levels])
    ax.set_ylabel("vCenter -> host (Kbps)")
    if bound_kbps is not None:
        ax.set_ylim(0, 1.35 * bound_kbps)
    ax.legend(fontsize=7, frameon=False, ncol=3, loc="upper left")
    plotting.finish(fig)
    return fig


def burst_figure(powered_on_vms=None, stated=None):
    """Time one statistics upload saturates each network type, per level (log y).

    ``stated`` = (network id, seconds) marks the paper's "about 1 minute on 512 Kbps DSL".
    """
    import matplotlib.pyplot as plt

    use_style()
    powered_on_vms = robo.testbed_powered_on_vms() if powered_on_vms is None else powered_on_vms
    nets = _ordered_presets()
    x = np.arange(len(nets))
    fig, ax = plt.subplots(figsize=(7.2, 3.6))
    width = 0.2
    for i, lvl in enumerate(robo.LEVELS):
        size = float(robo.statistics_payload_bytes(lvl, powered_on_vms))
        t = [float(robo.statistics_upload_time_s(size, robo.preset(n))) for n in nets]
        ax.bar(x + (i - 1.5) * width, t, width, label=_LEVEL_LABELS[lvl])
    if stated is not None:
        ax.plot([nets.index(stated[0]) + 1.5 * width], [stated[1]], label="paper: ~1 min (Level-4, DSL)",
                **PAPER_STYLE)
    ax.set_yscale("log")
    ax.set_xticks(x, [robo.preset(n).name for n in nets], rotation=20, fontsize=8)
    ax.set_ylabel("burst duration (s)")
    ax.set_title(f"one host's statistics upload, {powered_on_vms:g} powered-on VMs", fontsize=9)
    ax.legend(fontsize=7, frameon=False, ncol=3)
    plotting.finish(fig)
    return fig


#: Largest VMs per host of the planner (the slider's max and the notebook parameter's range).
PLANNER_MAX_VMS = 200


def _planner_curves(link, level, powered_on_vms, max_hosts, operation="clone_vm"):
    hosts = np.unique(np.round(np.logspace(0, np.log10(max_hosts), 60)))
    load = robo.statistics_link_load(hosts, link, level, powered_on_vms)
    shared = robo.plan(link, hosts, level, operation, powered_on_vms)
    return hosts, load, shared


@functools.lru_cache(maxsize=64)
def _required_bps(target_s, n_hosts, rtt_s, loss, level, powered_on_vms, operation):
    """:func:`vcperf.robo.required_bandwidth_bps` (a bisection over the model, ~40 ms), cached: it does not
    depend on the link's bandwidth, so moving the bandwidth slider reuses it."""
    return float(robo.required_bandwidth_bps(target_s, n_hosts, rtt_s, loss, level, "operation_latency", operation,
                                             powered_on_vms))


@functools.lru_cache(maxsize=64)
def _latency_floor_s(n_hosts, rtt_s, loss, level, powered_on_vms, operation):
    return float(robo.plan(network.Link(1e12, rtt_s, loss), n_hosts, level, operation,
                           powered_on_vms).operation_latency_s)


def _required_text(target_s, link, n_hosts, level, powered_on_vms, operation):
    key = (float(n_hosts), float(link.rtt_s), float(link.loss), int(level), float(powered_on_vms), operation)
    need = _required_bps(float(target_s), *key)
    if need <= robo.branch.SEARCH_RANGE_BPS[0]:
        return f"{operation} stays under {fmt_duration(target_s)} on any link (from {fmt_bps(need)})"
    if not np.isfinite(need):
        return (f"no bandwidth keeps {operation} under {fmt_duration(target_s)} at this RTT/loss "
                f"(at least {fmt_duration(_latency_floor_s(*key))})")
    return f"smallest link for {operation} <= {fmt_duration(target_s)}: {fmt_bps(need)}"


def capacity_figure(link, n_hosts, level, powered_on_vms, powered_on_vms_sd=0.0, max_hosts=500,
                    operation="clone_vm"):
    """Branch planner: statistics load, the PS delay they add to a 4 KB message, and an operation's
    latency during a statistics burst, vs hosts behind ``link`` (one shared link, TCP flows)."""
    import matplotlib.pyplot as plt

    use_style()
    hosts, load, shared = _planner_curves(link, level, powered_on_vms, max_hosts, operation)
    here = robo.plan(link, n_hosts, level, operation, powered_on_vms)
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.4))
    axes[0].loglog(hosts, 100 * load.busy_fraction, label="statistics offered load")
    axes[0].axhline(100, color="k", ls=":", lw=0.8)
    axes[0].plot([n_hosts], [100 * float(here.offered_load)], "o", color="C3", label=f"{n_hosts:g} hosts (all traffic)")
    axes[0].set_ylabel("uplink load (%)")
    axes[1].loglog(hosts, np.maximum(load.added_delay_s, 1e-6), label="delay added to a 4 KB message (PS)")
    axes[1].loglog(hosts, shared.operation_latency_s, label=f"{operation} during a burst")
    axes[1].loglog(hosts, shared.operation_latency_idle_s, ls="--", color="C1", lw=0.8, label=f"{operation}, no burst")
    axes[1].plot([n_hosts], [float(here.operation_latency_s)], "o", color="C3")
    axes[1].set_ylabel("time (s)")
    for ax in axes:
        ax.set_xlabel("hosts behind the link")
        ax.legend(fontsize=7, frameon=False)
    fig.suptitle(f"{link.name}: Level-{level}, {powered_on_vms:g} VMs/host (one shared link, processor sharing)",
                 fontsize=9)
    plotting.finish(fig)
    return fig


@fast_redraw
def capacity_update(bandwidth_bps=None, rtt_s=None, loss=None, n_hosts=10, level=1, powered_on_vms=None,
                    powered_on_vms_sd=0.0, name="what-if", operation="clone_vm", target_s=10.0):
    """Model + redraw for the branch-link planner: returns ``(readout, png_bytes)``.

    Defaults are the panel's starting values: the :data:`START_PRESET` link, 10 hosts, Level-1,
    the testbed's powered-on VMs per host (:func:`vcperf.robo.testbed_powered_on_vms`), ``clone_vm``
    and a 10 s target. ``powered_on_vms_sd`` is accepted for compatibility (processor sharing is
    insensitive to it). The operation's latency during the burst and one upload's time carry their
    90 % intervals (:func:`plan_intervals`).
    """
    bandwidth_bps, rtt_s, loss = _start_link(bandwidth_bps, rtt_s, loss)
    powered_on_vms = _testbed_vms() if powered_on_vms is None else powered_on_vms
    link = network.Link(bandwidth_bps, rtt_s, loss, name=name)
    load = robo.statistics_link_load(n_hosts, link, level, powered_on_vms, powered_on_vms_sd)
    # one vectorised model call: the figure's host axis and the chosen hosts (last), with the parameters
    # stacked for the readout's intervals (:func:`plan_intervals`)
    grid = np.append(_PLANNER_HOSTS, float(n_hosts))
    both, lat_iv, delay_iv = plan_intervals(link, grid, level, operation, powered_on_vms)
    lat = np.broadcast_to(both.operation_latency_s, grid.shape)  # folder operations: no host call, a scalar
    idle = np.broadcast_to(both.operation_latency_idle_s, grid.shape)
    k = np.broadcast_to(both.concurrent_uploads, grid.shape)[-1]
    rho = float(load.busy_fraction)
    verdict = "SATURATED (busy >= 100 %)" if rho >= 1 else ("heavily loaded" if rho > 0.5 else "fits")
    readout = (
        f"{fmt_num(n_hosts)} hosts, Level-{level}, {fmt_num(powered_on_vms)} VMs/host on {fmt_bps(bandwidth_bps)} / "
        f"{fmt_num(rtt_s * 1e3)} ms: upload {fmt_bytes(float(load.payload_bytes))}; statistics load "
        f"{fmt_num(100 * rho)} % -> {verdict}; delay added to a 4 KB message "
        f"{fmt_duration(float(load.added_delay_s))} (PS); {int(float(k))} uploads in a burst, each "
        f"{_band(delay_iv)}; {operation} during the burst {_band(lat_iv)} "
        f"(no burst {fmt_duration(float(idle[-1]))}); "
        + _required_text(target_s, link, n_hosts, level, powered_on_vms, operation)
    )
    curves = robo.statistics_link_load(_PLANNER_HOSTS, link, level, powered_on_vms)
    panel = _capacity_panel()
    panel.draw(_PLANNER_HOSTS, curves, lat[:-1], idle[:-1], n_hosts, load, float(lat[-1]), target_s,
               f"{link.name}: Level-{level}, {fmt_num(powered_on_vms)} VMs/host, {operation} (processor sharing)")
    return readout, panel.png()


def plan_intervals(link, hosts, level=1, operation="clone_vm", powered_on_vms=None):
    """:func:`vcperf.robo.plan` over ``hosts`` and the 90 % intervals of the last host count's operation
    latency during the burst (misfit of :data:`LATENCY_TABLE`) and statistics upload time (of
    :data:`UPLOAD_TABLE`): ``(BranchLoad, (value, low, high), (value, low, high))``.

    The delta method of :func:`vcperf.protocol.with_interval` without its two model calls per parameter:
    the branch model (:func:`vcperf.robo.branch.branch_load`) broadcasts its parameters, so one call
    evaluates the calibration and each parameter it reads times ``1 + INTERVAL_STEP`` stacked on a new
    leading axis (forward differences). The VM-state size is a scalar argument proportional to
    ``hostsync.bytes_per_change``; its part of that parameter's sensitivity is one more call at the last
    host count. About 7 ms over the plain :func:`vcperf.robo.plan` of the grid (vs ~30 ms for
    ``with_interval``'s two calls per parameter). The ``addhost`` parameters are not read (zero sensitivity).
    Agrees with ``with_interval(robo.plan, ..., output="operation_latency_s",
    data_table=LATENCY_TABLE)`` to the finite differences' rounding (tests/test_intervals.py).
    """
    from vcperf.robo import branch

    tb, p = robo.testbed(), robo.calibrate()
    link = robo.branch_link(link)
    vms = tb.powered_on_vms_per_host if powered_on_vms is None else powered_on_vms
    hosts = np.atleast_1d(np.asarray(hosts, dtype=float))
    up = 1.0 + INTERVAL_STEP
    bpc, bps = p.hostsync.bytes_per_change, p.stats.bytes_per_sample
    d, k = p.ops.vcenter_demand_per_step_s, p.ops.round_trips_per_call
    rows = ("hostsync.bytes_per_change", "stats.bytes_per_sample", "ops.vcenter_demand_per_step_s",
            "ops.round_trips_per_call")
    eye = np.vstack([np.zeros(len(rows)), np.eye(len(rows)) * INTERVAL_STEP])[:, :, None] + 1.0  # (1 + n, n, 1)
    common = {"schedule": tb.schedule, "counters": tb.counters, "change_period_s": tb.change_period_s,
              "stages": tb.calls(operation)}
    vm_state = robo.vm_state_bytes(p)
    stacked = branch.branch_load(
        link, hosts, level, vms, hostsync=robo.HostSyncParams(bpc * eye[:, 0]), stats=robo.StatsParams(bps * eye[:, 1]),
        ops=robo.OpsParams(d * eye[:, 2], k * eye[:, 3]), vm_state_bytes_=vm_state, **common)
    state = branch.branch_load(link, hosts[-1:], level, vms, hostsync=p.hostsync, stats=p.stats, ops=p.ops,
                               vm_state_bytes_=vm_state * up, **common)
    shape = (len(rows) + 1, len(hosts))
    fields = {}
    for f in dataclasses.fields(stacked):
        fields[f.name] = np.broadcast_to(getattr(stacked, f.name), shape)[0]
    base = branch.BranchLoad(**fields)
    out = []
    for name, table in (("operation_latency_s", LATENCY_TABLE), ("statistics_delay_s", UPLOAD_TABLE)):
        arr = np.broadcast_to(getattr(stacked, name), shape)[:, -1]
        sens = dict(zip(rows, (arr[1:] - arr[0]) / INTERVAL_STEP, strict=True))
        extra = float(np.broadcast_to(getattr(state, name), (1,))[0]) - arr[0]
        sens["hostsync.bytes_per_change"] += extra / INTERVAL_STEP
        out.append(_interval(arr[0], sens, data_table=table))
    return base, out[0], out[1]


#: Host axis of the planner figure (1 .. 500, log spaced, whole hosts).
_PLANNER_HOSTS = np.unique(np.round(np.logspace(0, np.log10(500), 60)))


def _decade_limits(values, floor=1e-6):
    """Log-axis limits snapped to whole decades around the finite positive ``values``: the limits (and
    so the cached background of the panel) change only when the data cross a decade."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    if v.size == 0:
        return 0.1, 10.0
    lo = max(float(v.min()), floor)
    return 10.0 ** np.floor(np.log10(lo) - 0.05), 10.0 ** np.ceil(np.log10(float(v.max())) + 0.05)


class _CapacityPanelFigure:
    """The branch planner as :func:`capacity_figure` draws it, updated in place: a persistent figure
    (:func:`vcperf.widgets.panel_figure`) whose axes snap to decades, rendered by
    :class:`vcperf.widgets.PanelCanvas` (the background is redrawn only when a limit or the title moves)."""

    def __init__(self):
        from vcperf.widgets import PanelCanvas, panel_figure

        self.fig, self.axes = panel_figure((9.0, 3.6), ncols=2)
        busy_ax, wait_ax = self.axes
        for ax in self.axes:
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(1, 500)
            ax.set_ylim(0.1, 100)  # set by every draw (decades); never autoscaled
            ax.set_autoscale_on(False)
            ax.set_xlabel("hosts behind the link")
        (self.busy,) = busy_ax.plot([], [], label="statistics offered load")
        busy_ax.axhline(100, color="k", ls=":", lw=0.8)
        (self.busy_here,) = busy_ax.plot([], [], "o", color="C3", label="chosen hosts")
        busy_ax.set_ylabel("statistics load (%)")
        (self.wait,) = wait_ax.plot([], [], label="delay added to 4 KB (PS)")
        (self.op,) = wait_ax.plot([], [], label="operation during a burst")
        (self.op_idle,) = wait_ax.plot([], [], ls="--", lw=0.8, color="C1", label="operation, no burst")
        self.target = wait_ax.axhline(1.0, color="C2", ls="-.", lw=1.0, label="target")
        (self.wait_here,) = wait_ax.plot([], [], "o", color="C3")
        wait_ax.set_ylabel("time (s)")
        for ax in self.axes:  # static legends: below the lines, so they stay in the cached background
            ax.legend(fontsize=7, frameon=False, loc="upper left").set_zorder(1.9)
        self.title = self.fig.suptitle("", fontsize=9)
        self.fig.subplots_adjust(left=0.08, right=0.98, bottom=0.13, top=0.9, wspace=0.25)
        _lean_axes(self.fig)
        self.canvas = PanelCanvas(self.fig, [self.busy, self.busy_here, self.wait, self.op, self.op_idle,
                                             self.target, self.wait_here])

    def draw(self, hosts, load, latency_s, idle_s, n_hosts, here_load, here_latency_s, target_s, title):
        busy = 100 * np.asarray(load.busy_fraction, dtype=float)
        wait = np.maximum(np.asarray(load.added_delay_s, dtype=float), 1e-6)
        self.busy.set_data(hosts, busy)
        here_busy = 100 * float(here_load.busy_fraction)
        self.busy_here.set_data([n_hosts], [here_busy])
        self.wait.set_data(hosts, wait)
        self.op.set_data(hosts, latency_s)
        self.op_idle.set_data(hosts, idle_s)
        self.target.set_ydata([target_s, target_s])
        self.wait_here.set_data([n_hosts], [here_latency_s])
        self.title.set_text(title)
        self.axes[0].set_ylim(*_decade_limits(np.append(busy, [here_busy, 100.0]), floor=1e-4))
        lo, hi = _decade_limits(np.concatenate([wait, latency_s, idle_s, [target_s]]))
        self.axes[1].set_ylim(lo, hi * 100)  # two empty decades on top hold the legend clear of the curves
        return self

    def png(self) -> bytes:
        return self.canvas.png(key=self.title.get_text())


@functools.lru_cache(maxsize=1)
def _capacity_panel() -> _CapacityPanelFigure:
    return _CapacityPanelFigure()


@functools.lru_cache(maxsize=1)
def _testbed_vms() -> float:
    return robo.testbed_powered_on_vms()


def _link_controls(preset):
    import ipywidgets as w

    start = robo.preset(preset)
    choose = w.Dropdown(options=[("custom", "custom")] + [(robo.preset(n).name, n) for n in robo.preset_names()],
                        value=preset, description="network")
    bw = w.FloatLogSlider(value=start.bandwidth_bps / 1e6, base=10, min=-1, max=4, step=0.01,
                          description="bandwidth Mbps", readout_format=".3g")
    rtt = w.FloatSlider(value=start.rtt_s * 1e3, min=0, max=1000, step=1, description="RTT ms")
    loss = w.FloatSlider(value=start.loss * 100, min=0, max=5, step=0.01, description="loss %", readout_format=".2f")
    return choose, bw, rtt, loss


def _wire_link_controls(choose, bw, rtt, loss, redraw) -> dict:
    """Wire a preset dropdown and three link sliders; returns the exact link state the model uses.

    As in :func:`network_whatif`: log sliders round to their step and the browser echoes the rounded
    value back, so a slider change within one step of the state is that echo -- it neither switches
    the dropdown to "custom" nor moves the model off the preset. ``state`` holds the exact values
    (Mbps, ms, %); ``redraw`` should read them.
    """
    import ipywidgets as w

    start = robo.preset(choose.value) if choose.value != "custom" else None
    state = ({"bw": start.bandwidth_bps / 1e6, "rtt": start.rtt_s * 1e3, "loss": start.loss * 100} if start
             else {"bw": bw.value, "rtt": rtt.value, "loss": loss.value})
    sliders = {"bw": bw, "rtt": rtt, "loss": loss}
    busy = {"preset": False}

    def is_echo(key, new):
        old = state[key]
        if isinstance(sliders[key], w.FloatLogSlider):
            return old > 0 and abs(np.log10(new / old)) <= sliders[key].step
        return abs(new - old) <= sliders[key].step / 2

    def on_preset(change):
        if change["new"] == "custom":
            return
        link = robo.preset(change["new"])
        state.update(bw=link.bandwidth_bps / 1e6, rtt=link.rtt_s * 1e3, loss=link.loss * 100)
        busy["preset"] = True
        bw.value, rtt.value, loss.value = state["bw"], state["rtt"], state["loss"]
        busy["preset"] = False
        redraw()

    def on_slider(change, key):
        if busy["preset"] or is_echo(key, change["new"]):
            return
        state[key] = change["new"]
        choose.value = "custom"
        redraw()

    choose.observe(on_preset, names="value")
    for key, slider in sliders.items():
        slider.observe(lambda change, key=key: on_slider(change, key), names="value")
    return state


def capacity_planner(preset=START_PRESET, n_hosts=10, level=1, powered_on_vms=None, operation="clone_vm",
                     target_s=10.0):
    """Branch-link planner: H hosts on a chosen link -- statistics load, an operation's latency during
    the burst, and the smallest link that keeps it under a target."""
    import ipywidgets as w

    choose, bw, rtt, loss = _link_controls(preset)
    powered_on_vms = robo.testbed_powered_on_vms() if powered_on_vms is None else powered_on_vms
    hosts = w.IntSlider(value=n_hosts, min=1, max=500, description="hosts")
    lvl = w.Dropdown(options=[(_LEVEL_LABELS[x], x) for x in robo.LEVELS], value=level, description="stats level")
    vms = w.FloatSlider(value=powered_on_vms, min=0, max=PLANNER_MAX_VMS, step=1, description="VMs per host")
    op = w.Dropdown(options=[*robo.operation_names(), "create_vm"], value=operation, description="operation")
    target = w.FloatLogSlider(value=target_s, base=10, min=0, max=3, step=0.01, description="target s",
                              readout_format=".3g")
    style_sliders(bw, rtt, loss, hosts, vms, target)
    readout = readout_label()
    image = w.Image(format="png")

    def redraw(*_):
        text, png = capacity_update(state["bw"] * 1e6, state["rtt"] / 1e3, state["loss"] / 100, hosts.value,
                                    lvl.value, vms.value, 0.0, operation=op.value, target_s=target.value)
        readout.value = text
        image.value = png

    state = _wire_link_controls(choose, bw, rtt, loss, redraw)
    for c in (hosts, lvl, vms, op, target):
        c.observe(lambda _: redraw(), names="value")
    redraw()
    return w.VBox([choose, bw, rtt, loss, hosts, lvl, vms, op, target, readout, image, readout_style()])


# ================================================================================================
# Operations (notebook robo_operations)
# ================================================================================================


def sequence_figure(operation="create_vm", link=None):
    """Figure 8: the model's exchange list of one operation as a sequence diagram.

    Lanes: client, vCenter, ESXi host, database. Each host call is a request and a response arrow,
    labelled with the model's time for the call over ``link`` (default DSL) and its round trips.
    """
    import matplotlib.pyplot as plt

    use_style()
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
        arrow(y, "vCenter", "ESXi host", f"{call.name} ({call.request_bytes / 1e3:g} KB)", "C0")
        y += 1
        arrow(y, "ESXi host", "vCenter",
              f"response ({resp / 1e3:.3g} KB): {p.round_trips_per_call:.1f} RTTs, {t:.2f} s", "C1")
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
    import matplotlib.pyplot as plt

    use_style()
    nets = _ordered_presets()
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
        ax.set_xticks(x, [robo.preset(n).name for n in nets], rotation=25, fontsize=7)
        ax.legend(fontsize=7, frameon=False)
    plotting.finish(fig)
    return fig


def latency_vs_rtt_figure(stated=None):
    """Mean VCbench latency vs RTT on a 10 Mbps, 0.05 % loss link, against latency proportional to RTT."""
    import matplotlib.pyplot as plt

    use_style()
    rtts = np.logspace(-3, 0, 40)
    lat = np.array([robo.vcbench(network.Link(10e6, r, 5e-4)).mean_latency_s for r in rtts])
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.loglog(rtts * 1e3, lat, label="model: mean latency (10 Mbps, 0.05 % loss)")
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
    import matplotlib.pyplot as plt

    use_style()
    nets = _ordered_presets()
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
    ax.set_xticks(x, [robo.preset(n).name for n in nets], rotation=20, fontsize=8)
    ax.set_ylabel("operation latency (s)")
    ax.legend(fontsize=6, ncol=1, frameon=False, bbox_to_anchor=(1.01, 1), loc="upper left")
    ax.set_title("Figure 11 - folder operations (black) never talk to the host", fontsize=9)
    plotting.finish(fig)
    return fig


def vcbench_traffic_figure():
    """Figures 12 and 13: traffic between vCenter and one host during VCbench, per network type."""
    import matplotlib.pyplot as plt

    use_style()
    nets = _ordered_presets()
    t = [robo.vcbench_host_traffic(robo.preset(n)) for n in nets]
    x = np.arange(len(nets))
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.4))
    axes[0].bar(x, [float(a.host_to_vc_bps) / 1e3 for a in t], color="C0")
    axes[0].set_title("Figure 12 - host -> vCenter", fontsize=9)
    axes[1].bar(x, [float(a.vc_to_host_bps) / 1e3 for a in t], color="C1")
    axes[1].set_title("Figure 13 - vCenter -> host", fontsize=9)
    for ax in axes:
        ax.set_xticks(x, [robo.preset(n).name for n in nets], rotation=25, fontsize=7)
        ax.set_ylabel("average traffic (Kbps)")
    plotting.finish(fig)
    return fig


def add_host_figure(stated=None, loo=None):
    """Figures 14-15: add-host time per network type (model, paper, leave-one-out) and its traffic."""
    import matplotlib.pyplot as plt

    use_style()
    nets = _ordered_presets()
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
    axes[1].set_ylabel("host -> vCenter during add host (Kbps)")
    axes[1].set_title("Figure 15 - add host traffic", fontsize=9)
    for ax in axes:
        ax.set_xticks(x, [robo.preset(n).name for n in nets], rotation=25, fontsize=7)
    plotting.finish(fig)
    return fig


def _split(link: network.Link, clients: int, operation: str, ops, vm_state_bytes_: float):
    """``(vCenter time, network time, VcbenchResult)`` of ``operation`` under explicit parameters."""
    from vcperf.robo import operations

    tb = robo.testbed()
    res = operations.vcbench(link, ops, tb.mix, clients, tb.vcenter_vcpus, vm_state_bytes_=vm_state_bytes_)
    stages = robo.operation_calls(operation)
    t_net = float(operations.operation_network_time_s(stages, link, ops.round_trips_per_call, vm_state_bytes_))
    steps = operations.vcenter_steps(stages)
    total = res.per_operation_latency_s.get(operation, res.per_operation_latency_s["create_folder"] * steps + t_net)
    return total - t_net, t_net, res


@functools.lru_cache(maxsize=256)
def _operation_split(link: network.Link, clients: int, operation: str):
    """``(vCenter time, network time, VcbenchResult)`` of ``operation`` on ``link`` with ``clients``.

    Pure in its hashable inputs (a frozen :class:`vcperf.network.Link`, an int, a str), so the eight
    Table 1 networks of the operations panel are solved once per (clients, operation). ``create_vm``
    is not in the VCbench mix: its vCenter time is the folder operations' (one step, no network time)
    times its own steps (:func:`vcperf.robo.operations.vcenter_steps`).
    """
    return _split(link, clients, operation, robo.calibrate().ops, robo.vm_state_bytes())


@functools.lru_cache(maxsize=256)
def operation_intervals(link: network.Link, clients: int, operation: str):
    """90 % intervals ``(value, low, high)`` of ``operation``'s latency and of the mean VCbench latency on
    ``link`` with ``clients`` (misfit of :data:`LATENCY_TABLE`, the fitted Figure 10 latencies).

    The delta method of :func:`vcperf.protocol.with_interval` on the three parameters VCbench reads
    (``ops.vcenter_demand_per_step_s``, ``ops.round_trips_per_call`` and, through the VM-state size,
    ``hostsync.bytes_per_change``), one forward difference each (three VCbench solves, ~5 ms; the other
    parameters have zero sensitivity), then :func:`vcperf.protocol.interval_from_gradient`. Cached like
    :func:`_operation_split`.
    """
    from vcperf.robo import operations

    tb, p = robo.testbed(), robo.calibrate()
    vs = robo.vm_state_bytes()
    up = 1.0 + INTERVAL_STEP
    vc_t, net_t, res = _operation_split(link, clients, operation)
    base = np.array([vc_t + net_t, res.mean_latency_s])
    k = p.ops.round_trips_per_call
    variants = {  # parameter -> (OpsParams, VM-state size) with that parameter times 1 + INTERVAL_STEP
        "ops.vcenter_demand_per_step_s": (dataclasses.replace(
            p.ops, vcenter_demand_per_step_s=p.ops.vcenter_demand_per_step_s * up), vs),
        "ops.round_trips_per_call": (dataclasses.replace(p.ops, round_trips_per_call=k * up), vs),
        "hostsync.bytes_per_change": (p.ops, vs * up),  # the VM state is proportional to it
    }
    stages = robo.operation_calls(operation)
    steps = operations.vcenter_steps(stages)
    t_net = np.zeros(len(variants))
    if operation not in tb.mix:  # create_vm: its own network time under the three variants, one broadcast call
        t_net = np.broadcast_to(operations.operation_network_time_s(
            stages, link, np.array([ops.round_trips_per_call for ops, _ in variants.values()]),
            np.array([state for _, state in variants.values()])), (len(variants),))
    sens = {}
    for i, (name, (ops, state)) in enumerate(variants.items()):
        r = operations.vcbench(link, ops, tb.mix, clients, tb.vcenter_vcpus, vm_state_bytes_=state)
        total = r.per_operation_latency_s.get(operation, r.per_operation_latency_s["create_folder"] * steps + t_net[i])
        sens[name] = (np.array([total, r.mean_latency_s]) - base) / INTERVAL_STEP
    return tuple(_interval(base[i], {n: g[i] for n, g in sens.items()}) for i in range(2))


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
    bandwidth_bps, rtt_s, loss = _start_link(bandwidth_bps, rtt_s, loss)
    link = network.Link(bandwidth_bps, rtt_s, loss, name=name)
    vc_t, net_t, res = _operation_split(link, clients, operation)
    lat_iv, mean_iv = operation_intervals(link, clients, operation)
    # Closed loop without think time: X = clients / mean latency (Little's law), so its band is the latency's.
    x_iv = (res.throughput_per_s, clients / mean_iv[2], clients / mean_iv[1])
    n, x, r = robo.vcbench_vs_clients(link, max(32, clients))
    links = [robo.preset(k) for k in _ordered_presets()] + [link]
    split = np.array([_operation_split(lk, clients, operation)[:2] for lk in links])
    panel = _operations_panel()
    panel.draw(n, x * 60, r, clients, res.throughput_per_s * 60, split[:, 0], split[:, 1],
               [lk.name for lk in links], f"{operation} latency (s)")
    readout = (
        f"{clients} clients on {fmt_bps(bandwidth_bps)}, RTT {fmt_num(rtt_s * 1e3)} ms, loss {fmt_num(loss * 100)} %: "
        f"{operation} {_band(lat_iv)} (network {fmt_duration(net_t)}); mean latency "
        f"{_band(mean_iv)}, throughput {fmt_band(*x_iv, fmt=lambda x: f'{fmt_num(x * 60, 4)} ops/min')}, "
        f"vCenter vCPU busy {fmt_num(100 * res.vcenter_utilization)} %"
    )
    return readout, panel.png()


class _OperationsPanelFigure(_PanelFigure):
    """The operations what-if figure (:class:`_PanelFigure`). Left: throughput (and, on a twin
    axis, mean latency) vs clients with the chosen clients marked; right: one operation's latency
    on every network type and the what-if link, split into vCenter and network time.
    """

    def __init__(self, n_links: int):
        self.fig = self._new_figure((9.4, 3.6))
        ax, self.bars_ax = self.fig.subplots(1, 2)
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
        _lean_axes(self.fig)

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
        self._rescale(self.ax, self.twin, self.bars_ax)


@functools.lru_cache(maxsize=1)
def _operations_panel() -> _OperationsPanelFigure:
    return _OperationsPanelFigure(len(robo.preset_names()) + 1)


def operations_whatif(preset=START_PRESET, clients=8, operation="clone_vm"):
    """Operations what-if panel: network type or custom link, clients, operation."""
    import ipywidgets as w

    choose, bw, rtt, loss = _link_controls(preset)
    n = w.IntSlider(value=clients, min=1, max=64, description="clients")
    op = w.Dropdown(options=[*robo.operation_names(), "create_vm"], value=operation, description="operation")
    style_sliders(bw, rtt, loss, n)
    readout = readout_label()
    image = w.Image(format="png")

    def redraw(*_):
        text, png = operations_update(state["bw"] * 1e6, state["rtt"] / 1e3, state["loss"] / 100, n.value, op.value)
        readout.value = text
        image.value = png

    state = _wire_link_controls(choose, bw, rtt, loss, redraw)
    for c in (n, op):
        c.observe(lambda _: redraw(), names="value")
    redraw()
    return w.VBox([choose, bw, rtt, loss, n, op, readout, image, readout_style()])
