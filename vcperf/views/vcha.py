"""VCHA study views: figures and what-if panels (``000_bf7f1144753162c9.txt``).

Paper values are black markers (:data:`vcperf.plotting.PAPER_STYLE`), model values lines or
hatched bars. Each what-if panel has a pure *update* function (model + redraw -> readout text, PNG
bytes) that the widget calls on every change.
"""

from __future__ import annotations

import functools

import numpy as np

from vcperf import plotting, vcha
from vcperf.plotting import PAPER_STYLE, use_style
from vcperf.widgets import PanelCanvas, panel_figure, style_sliders, whatif_panel

_COLORS = {"disabled": "tab:blue", "enabled": "tab:orange", 64: "tab:blue", 256: "tab:red"}
_LABEL = {"disabled": "Baseline (no VCHA)", "enabled": "VCHA enabled"}


#: Appliance choices of the what-if: the study's test bed (X-Large, 2,000 hosts) or a Table 1 size.
APPLIANCES = ("testbed",) + vcha.INVENTORIES


def scenario(bandwidth_gbps: float = 10.0, loss_percent: float = 0.0, appliance: str = "testbed",
             psc_mode: str = "external") -> dict:
    """Keyword arguments of :func:`vcperf.vcha.vcbench` for a what-if: replication link (Gbps, loss
    %), appliance (``"testbed"`` or a Table 1 size: its vCPUs and inventory) and PSC mode."""
    from vcperf import _validate as v

    v.choice("appliance", appliance, APPLIANCES)
    app = vcha.testbed().appliance() if appliance == "testbed" else vcha.appliance(appliance)
    return {"bandwidth_bps": float(v.check_range("bandwidth_gbps", bandwidth_gbps, 1e-3, 1e3)) * 1e9,
            "loss": float(v.check_range("loss_percent", loss_percent, 0.0, 20.0)) / 100.0,
            "psc_mode": psc_mode, **app}


def _vcbench(clients, vcha_enabled=False, replication_rtt_s=0.0, stats_level=1, **scn):
    """:func:`vcperf.vcha.vcbench` with the study's calibrated parameters and test bed (or ``scn``)."""
    kw = {**vcha.testbed().appliance(), **scn}
    return vcha.vcbench(clients, vcha_enabled, replication_rtt_s, stats_level, params=vcha.calibrate(), **kw)


def _vcbench_curve_study(max_clients, vcha_enabled=False, replication_rtt_s=0.0, stats_level=1, **scn):
    """:func:`vcperf.vcha.vcbench_curve` with the study's calibrated parameters and test bed (or ``scn``)."""
    kw = {**vcha.testbed().appliance(), **scn}
    return vcha.vcbench_curve(max_clients, vcha_enabled, replication_rtt_s, stats_level, params=vcha.calibrate(),
                              **kw)


def _enable_times(registered_vms, bandwidth_bps=None):
    """:func:`vcperf.vcha.enable_vcha_times` with the study's parameters (default: its clone network)."""
    bw = vcha.testbed().clone_bandwidth_bps if bandwidth_bps is None else bandwidth_bps
    return vcha.enable_vcha_times(registered_vms, bw, vcha.calibrate().enable)


def _failover_times(vcpus, registered_vms, psc_mode="external"):
    """:func:`vcperf.vcha.failover_times` with the study's calibrated parameters."""
    return vcha.failover_times(vcpus, registered_vms, psc_mode, params=vcha.calibrate().failover)


def _plt():
    import matplotlib.pyplot as plt

    use_style()
    return plt


def paper_model_bars(df, group_col: str, title: str, ylabel: str):
    """Grouped bars: for each row of ``df`` (a :func:`vcperf.fidelity.paper_vs_model` frame) the paper
    value (solid) beside the model value (hatched), labelled by ``df[group_col]``."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    x = np.arange(len(df))
    paper = df["paper"].to_numpy(dtype=float)
    model = df["model"].to_numpy(dtype=float)
    ax.bar(x - 0.2, paper, 0.4, color="0.35", label="paper")
    ax.bar(x + 0.2, model, 0.4, color="white", edgecolor="tab:orange", hatch="//", label="model")

    def fmt(val):
        return f"{val:,.0f}" if abs(val) >= 100 else f"{val:.3g}"

    for xi, (p, m) in enumerate(zip(paper, model, strict=True)):
        ax.annotate(fmt(p), (xi - 0.2, p), ha="center", va="bottom", fontsize=7)
        ax.annotate(fmt(m), (xi + 0.2, m), ha="center", va="bottom", fontsize=7, color="tab:orange")
    ax.set_xticks(x, [str(g).replace("; ", "\n") for g in df[group_col]], fontsize=7)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(frameon=False, fontsize=8)
    plotting.finish(fig)
    return fig


def periodic_throughput_figure(clients: int, minutes: float = 60.0):
    """Figures 5/6: throughput over the one-hour run, VCHA off and on.

    The paper does not print the periodic values, only their averages (Table 5). The model is a
    steady state: each run is its average (solid) with the 90 % predictive band of the calibration
    (:func:`vcperf.protocol.with_interval`: parameter uncertainty + run-to-run noise), on an axis
    zoomed to the runs so the VCHA gap is visible; the paper's averages are dashed.
    """
    from vcperf import protocol

    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    t = np.linspace(0, minutes, 61)
    lo_all, hi_all = [], []
    for vc in (False, True):
        key = "enabled" if vc else "disabled"
        iv = protocol.with_interval(vcha.vcbench, clients, vc, output="throughput_per_s",
                                    **vcha.testbed().appliance())
        model, lo, hi = (float(np.asarray(a).flat[0]) * 60 for a in (iv.value, iv.low, iv.high))
        paper = vcha.paper_value("table05_throughput", "throughput", clients=clients, vcha=key) * 60
        ax.fill_between(t, lo, hi, color=_COLORS[key], alpha=0.15, lw=0)
        ax.plot(t, np.full_like(t, model), color=_COLORS[key], lw=2, label=f"model, {_LABEL[key]}: {model:,.0f}")
        ax.axhline(paper, color=_COLORS[key], ls="--", lw=1, label=f"paper average, {_LABEL[key]}: {paper:,.0f}")
        lo_all += [lo, paper]
        hi_all += [hi, paper]
    span = max(hi_all) - min(lo_all)
    ax.set_ylim(min(lo_all) - 0.05 * span, max(hi_all) + 0.35 * span)
    ax.set_xlabel("time in run (min)")
    ax.set_ylabel("throughput (ops/min)")
    ax.set_title(f"{clients}-client VCbench: steady state with 90 % band (paper's averages dashed)", fontsize=9)
    ax.legend(frameon=False, fontsize=7, loc="upper right", ncol=2)
    plotting.finish(fig)
    return fig


def clients_figure(max_clients: int = 512, replication_rtt_s: float = 0.0, stats_level: int = 1,
                   highlight: int | None = None, **whatif):
    """Throughput, latency and vpxd CPU against clients, VCHA off and on, with the paper's points
    (Tables 5, 6, 7). Optionally marks a what-if client count; ``whatif`` takes the arguments of
    :func:`scenario` (link, appliance, PSC mode) for the model curves."""
    plt = _plt()
    fig, axes = plt.subplots(1, 3, figsize=(9.6, 3.3))
    n = np.arange(1, max_clients + 1)
    scn = scenario(**whatif)
    vcpus = scn["vcpus"]
    for vc in (False, True):
        key = "enabled" if vc else "disabled"
        s = _vcbench_curve_study(max_clients, vc, replication_rtt_s if vc else 0.0, stats_level, **scn)
        axes[0].plot(n, s.throughput_per_s * 60, color=_COLORS[key], label=f"model, {_LABEL[key]}")
        axes[1].plot(n, s.response_time_s, color=_COLORS[key])
        axes[2].plot(n, s.cpu_cores, color=_COLORS[key])
        for c in (64, 256):
            node = {"node": "active"} if vc else {"node": ""}
            axes[0].plot([c], [vcha.paper_value("table05_throughput", "throughput", clients=c, vcha=key) * 60],
                         **{**PAPER_STYLE, "color": _COLORS[key], "markeredgecolor": "black"})
            axes[1].plot([c], [vcha.paper_value("table06_operation_latency", "avg_operation_latency", clients=c,
                                           vcha=key)], **{**PAPER_STYLE, "color": _COLORS[key],
                                                          "markeredgecolor": "black"})
            axes[2].plot([c], [vcha.paper_value("table07_vpxd_cpu", "vpxd_cpu_utilization", clients=c, vcha=key,
                                                **node)], **{**PAPER_STYLE, "color": _COLORS[key],
                                                             "markeredgecolor": "black"})
    axes[0].axhline(60 * _vcbench(1, False, 0.0, stats_level, **scn).db_pool_bound_per_s, color="0.5", ls=":",
                    lw=1, label="DB pool bound, no VCHA")
    axes[2].axhline(vcpus, color="0.5", ls=":", lw=1)
    if highlight is not None:
        for ax in axes:
            ax.axvline(highlight, color="0.3", lw=0.8)
    _label_axes(axes)
    _clients_limits(axes, max_clients)
    axes[0].legend(frameon=False, fontsize=7, loc="lower right")
    fig.suptitle("Closed network: one parameter set; dots are the paper (Tables 5-7)", fontsize=9)
    plotting.finish(fig)
    _three_panel_margins(fig)
    return fig


def rtt_figure(max_rtt_s: float = 0.015, highlight_rtt_s: float | None = None):
    """Figure 11: throughput against the latency added on the VCHA network, 64 and 256 clients."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    rtt = np.linspace(0, max_rtt_s, 61)
    for c in (64, 256):
        s = _vcbench(c, True, rtt)
        ax.plot(rtt * 1e3, s.throughput_per_s * 60, color=_COLORS[c], label=f"model, {c} clients")
        pts = [(ms, vcha.paper_value("table13_private_network_latency", "throughput", clients=c,
                                network_latency_ms=ms, vcha="enabled") * 60) for ms in (0, 5, 10)]
        ax.plot(*zip(*pts, strict=True), **{**PAPER_STYLE, "color": _COLORS[c], "markeredgecolor": "black"},
                label=f"paper, {c} clients")
    ax.axvline(vcha.paper_value("text_best_practices", "max_supported_vcha_network_latency") * 1e3, color="0.5",
               ls=":", lw=1, label="supported limit")
    if highlight_rtt_s is not None:
        ax.axvline(highlight_rtt_s * 1e3, color="0.3", lw=0.8)
    ax.set_xlabel("latency added on the VCHA private network (ms)")
    ax.set_ylabel("throughput (ops/min)")
    ax.set_ylim(0, None)
    ax.legend(frameon=False, fontsize=7, ncol=2, loc="lower left")
    plotting.finish(fig)
    return fig


def stats_level_figure():
    """Figure 10: 256-client throughput by statistics level, VCHA off and on; paper bars, model dots."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    levels = np.arange(1, 5)
    for k, vc in enumerate((False, True)):
        key = "enabled" if vc else "disabled"
        paper = [vcha.paper_value("table12_stats_level", "throughput", clients=256, stats_level=lvl, vcha=key) * 60
                 for lvl in levels]
        model = [float(_vcbench(256, vc, stats_level=int(lvl)).throughput_per_s) * 60 for lvl in levels]
        ax.bar(levels + (k - 0.5) * 0.38, paper, 0.38, color=_COLORS[key], alpha=0.55, label=f"paper, {_LABEL[key]}")
        ax.plot(levels + (k - 0.5) * 0.38, model, "D", color=_COLORS[key], markeredgecolor="black",
                label=f"model, {_LABEL[key]}")
    ax.set_xticks(levels, [f"Level {lvl}" for lvl in levels])
    ax.set_ylabel("throughput (ops/min)")
    ax.legend(frameon=False, fontsize=7, loc="lower left")
    plotting.finish(fig)
    return fig


def _enable_bars(ax):
    """Table 4 as stacked bars per inventory: the paper's steps solid, the model's hatched.

    Returns the inventories' registered VMs and the printed totals (min), for the right panel."""
    inv = vcha.inventory_sizes()
    sizes = list(vcha.INVENTORIES)
    steps = (("clone_secondary_time", "clone_secondary_s", "tab:blue"),
             ("clone_witness_time", "clone_witness_s", "tab:green"),
             ("configure_vcha_time", "configure_s", "tab:purple"))
    x = np.arange(len(sizes))
    bottom_p = np.zeros(len(sizes))
    bottom_m = np.zeros(len(sizes))
    for q, attr, color in steps:
        paper = np.array([vcha.paper_value("table04_enable_vcha", q, inventory=s) for s in sizes])
        model = np.array([float(getattr(_enable_times(inv[s]["registered_vms"]), attr)) for s in sizes])
        ax.bar(x - 0.2, paper / 60, 0.38, bottom=bottom_p / 60, color=color, label=q.replace("_time", ""))
        ax.bar(x + 0.2, model / 60, 0.38, bottom=bottom_m / 60, color="white", edgecolor=color, hatch="//")
        bottom_p += paper
        bottom_m += model
    totals = [vcha.paper_value("table04_enable_vcha", "enable_vcha_total_time", inventory=s) / 60 for s in sizes]
    ax.plot(x - 0.2, totals, "_", color="black", markersize=14, label="printed total")
    ax.set_xticks(x, [f"{s}\npaper | model" for s in sizes], fontsize=7)
    ax.set_ylabel("time (min)")
    ax.legend(frameon=False, fontsize=7)
    return [inv[s]["registered_vms"] for s in sizes], totals


def enable_figure(bandwidth_bps: float | None = None, whatif_vms: float | None = None, vcpus: float | None = None,
                  psc_mode: str = "external"):
    """Figure 4: time to enable VCHA by inventory; paper stacked bars, model stacked hatched bars,
    and the model's total against registered VMs (optionally on another clone bandwidth). With
    ``vcpus``, also the vpxd ready time after a failover against registered VMs on that appliance
    and PSC mode (dotted; Table 2's points for reference)."""
    plt = _plt()
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9.6, 3.6))
    paper_vms, totals = _enable_bars(ax)
    vms = np.linspace(0, 40000, 81)
    for bw, style in ((None, "-"), (bandwidth_bps, "--")):
        if style == "--" and bw is None:
            continue
        t = _enable_times(vms, bw)
        label = "model, 10 Gbps" if bw is None else f"model, {bw / 1e9:.3g} Gbps"
        ax2.plot(vms, t.total_s / 60, style, color="tab:orange", label=label)
    ax2.plot(paper_vms, totals, **PAPER_STYLE, label="paper total")
    if vcpus is not None:
        ax2.plot(vms, _failover_times(vcpus, vms, psc_mode).vpxd_ready_s / 60, ":", color="tab:red",
                 label=f"model, vpxd ready after failover, {vcpus:g} vCPUs, {psc_mode} PSC")
    if whatif_vms is not None:
        ax2.axvline(whatif_vms, color="0.3", lw=0.8)
    ax2.set_xlabel("registered VMs")
    ax2.set_ylabel("enable VCHA, total (min)")
    ax2.set_ylim(0, None)
    ax2.legend(frameon=False, fontsize=7)
    plotting.finish(fig)
    return fig


def failover_figure(psc_mode: str = "external"):
    """Figures 2/3 (and Tables 16/17): vpxd ready time and Web Client screens by inventory size."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    inv = vcha.inventory_sizes()
    sizes = list(vcha.INVENTORIES)
    x = np.arange(len(sizes))
    t = [_failover_times(inv[s]["vcpus"], inv[s]["registered_vms"], psc_mode) for s in sizes]
    series = (("vpxd ready", "vpxd_ready_s", "table02_vpxd_ready_time", "vpxd_ready_time", "tab:red"),
              ("blank screen", "blank_screen_s", "table03_vsphere_client_usability", "blank_screen_time", "tab:blue"),
              ("blue screen", "blue_screen_s", "table03_vsphere_client_usability", "blue_screen_time", "tab:cyan"),
              ("inventory", "inventory_screen_s", "table03_vsphere_client_usability", "inventory_screen_time",
               "tab:green"),
              ("VC summary", "vc_summary_s", "table03_vsphere_client_usability", "vc_summary_time", "tab:purple"))
    for label, attr, table, q, color in series:
        ax.plot(x, [float(getattr(ti, attr)) / 60 for ti in t], color=color, label=f"model {label}")
        dot = {**PAPER_STYLE, "color": color, "markeredgecolor": "black"}
        if psc_mode == "external":
            ax.plot(x, [vcha.paper_value(table, q, inventory=s) / 60 for s in sizes], **dot)
        elif table == "table02_vpxd_ready_time":  # Embedded PSC: X-Large only (Tables 16-17)
            ax.plot([x[-1]], [vcha.paper_value("table16_psc_vpxd_ready_time", q, psc_mode="embedded",
                                               inventory="x-large") / 60], **dot)
        elif q != "vc_summary_time":
            ax.plot([x[-1]], [vcha.paper_value("table17_psc_vsphere_client_usability", q,
                                               psc_mode="embedded") / 60], **dot)
    ax.axhline(vcha.paper_value("text_executive_summary", "rto_target") / 60, color="0.5", ls=":", lw=1,
               label="RTO target")
    ax.set_xticks(x, [f"{s}\n{int(inv[s]['vcpus'])} vCPU, {int(inv[s]['registered_vms']):,} VMs" for s in sizes],
                  fontsize=7)
    ax.set_ylabel("time after the failure (min)")
    ax.set_ylim(0, None)
    tables = "Tables 2-3" if psc_mode == "external" else "Tables 16-17, X-Large only"
    ax.set_title(f"Failover, {psc_mode} PSC: model lines, paper dots ({tables})", fontsize=9)
    ax.legend(frameon=False, fontsize=7, ncol=2, loc="lower right")
    plotting.finish(fig)
    return fig


# --------------------------------------------------------------------------------------------
# What-if panels
# --------------------------------------------------------------------------------------------


def panel_max_clients(clients: int) -> int:
    """Client axis of the VCbench what-if: 512, or the next power-of-two multiple of 512 that holds
    ``clients`` (so moving the clients slider keeps the axis, and its drawn ticks, unchanged)."""
    return int(512 * 2 ** max(0, int(np.ceil(np.log2(max(int(clients), 1) / 512.0)))))


def _nice_top(value: float) -> float:
    """The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k at least 5 % above ``value`` (> 0)."""
    v = max(float(value), 1e-12) * 1.05
    k = 10.0 ** np.floor(np.log10(v))
    for m in (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0):
        if m * k >= v * (1 - 1e-12):
            return float(m * k)
    return float(10 * k)


def _label_axes(axes) -> None:
    """Labels and thousands separators of the three clients panels (throughput, latency, CPU)."""
    from matplotlib.ticker import StrMethodFormatter

    axes[0].set_ylabel("throughput (ops/min)")
    axes[1].set_ylabel("avg operation latency (s)")
    axes[2].set_ylabel("vpxd CPU (cores busy)")
    for ax in axes:
        ax.set_xlabel("VCbench clients")
        ax.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    axes[0].yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))


def _clients_limits(axes, max_clients: int) -> None:
    """Fixed x range and "nice" y tops (:func:`_nice_top` of every line's data): in the what-if panel
    the limits, and so the kept background of tick labels, change only when a curve crosses a step,
    not on every slider move."""
    for ax, cap in zip(axes, (np.inf, _LATENCY_AXIS_CAP_S, np.inf), strict=True):
        ax.set_xlim(0, max_clients * 1.02)
        top = max(float(np.nanmax(np.asarray(a.get_ydata(), float), initial=0.0)) for a in ax.get_lines())
        ax.set_ylim(0, min(_nice_top(top), cap))


#: Top of the latency axis at most (s): beyond it (a replication link that cannot carry the WAL) a
#: curve leaves the plot instead of squashing the paper's points.
_LATENCY_AXIS_CAP_S = 60.0


def _three_panel_margins(fig) -> None:
    """Room for the suptitle above and for each panel's y tick labels and label between panels."""
    fig.subplots_adjust(left=0.075, right=0.99, bottom=0.15, top=0.86, wspace=0.32)


def _rescale_from_zero(ax) -> None:
    """Autoscale ``ax`` to its current artists, then pin the y axis to start at 0 (``set_ylim(0, None)``)."""
    ax.set_autoscale_on(True)
    ax.relim()
    ax.autoscale_view()
    ax.set_ylim(0, None)


@functools.lru_cache(maxsize=64)
def _vcbench_curve(max_clients: int, vcha_enabled: bool, replication_rtt_s: float, stats_level: int, scn: tuple):
    """:func:`vcperf.vcha.vcbench_curve`, cached for the panel (the VCHA-off curve rarely changes)."""
    return _vcbench_curve_study(max_clients, vcha_enabled, replication_rtt_s, stats_level, **dict(scn))


class _VcbenchPanel:
    """:func:`clients_figure` built once; :meth:`draw` moves the curves, the DB bound and the marker."""

    def __init__(self):
        fig, axes = self.fig, self.axes = panel_figure((9.6, 3.3), 3)
        self.lines = {}
        for vc in (False, True):
            key = "enabled" if vc else "disabled"
            self.lines[vc] = (axes[0].plot([], [], color=_COLORS[key], label=f"model, {_LABEL[key]}")[0],
                              axes[1].plot([], [], color=_COLORS[key])[0],
                              axes[2].plot([], [], color=_COLORS[key])[0])
            dot = {**PAPER_STYLE, "color": _COLORS[key], "markeredgecolor": "black"}
            for c in (64, 256):
                node = {"node": "active"} if vc else {"node": ""}
                axes[0].plot([c], [vcha.paper_value("table05_throughput", "throughput", clients=c, vcha=key) * 60],
                             **dot)
                axes[1].plot([c], [vcha.paper_value("table06_operation_latency", "avg_operation_latency", clients=c,
                                                    vcha=key)], **dot)
                axes[2].plot([c], [vcha.paper_value("table07_vpxd_cpu", "vpxd_cpu_utilization", clients=c,
                                                    vcha=key, **node)], **dot)
        self.db_bound = axes[0].axhline(0.0, color="0.5", ls=":", lw=1, label="DB pool bound, no VCHA")
        self.cpu_cap = axes[2].axhline(vcha.testbed().vcpus, color="0.5", ls=":", lw=1)
        self.marks = [ax.axvline(0.0, color="0.3", lw=0.8) for ax in axes]
        _label_axes(axes)
        axes[0].legend(frameon=False, fontsize=7, loc="lower right")
        fig.suptitle("Closed network: one parameter set; dots are the paper (Tables 5-7)", fontsize=9)
        plotting.fast_layout(fig)
        _three_panel_margins(fig)
        self.canvas = PanelCanvas(fig, [line for lines in self.lines.values() for line in lines]
                                   + [self.db_bound, self.cpu_cap] + self.marks)

    def draw(self, max_clients: int, replication_rtt_s: float, stats_level: int, highlight: int, **whatif) -> bytes:
        n = np.arange(1, max_clients + 1)
        scn = scenario(**whatif)
        key = tuple(sorted(scn.items()))
        for vc, (thr, lat, cpu) in self.lines.items():
            s = _vcbench_curve(max_clients, vc, replication_rtt_s if vc else 0.0, stats_level, key)
            thr.set_data(n, s.throughput_per_s * 60)
            lat.set_data(n, s.response_time_s)
            cpu.set_data(n, s.cpu_cores)
        bound = 60 * _vcbench(1, False, 0.0, stats_level, **scn).db_pool_bound_per_s
        self.db_bound.set_ydata([bound, bound])
        self.cpu_cap.set_ydata([scn["vcpus"]] * 2)
        for m in self.marks:
            m.set_xdata([highlight, highlight])
        _clients_limits(self.axes, max_clients)
        return self.canvas.png()


@functools.lru_cache(maxsize=1)
def _vcbench_panel() -> _VcbenchPanel:
    return _VcbenchPanel()


def _band(iv, scale: float = 1.0, fmt: str = ",.0f") -> str:
    """``"lo–hi, 90%"`` of a :class:`vcperf.protocol.Interval` (scaled), or a not-estimable note."""
    lo, hi = float(np.asarray(iv.low).flat[0]), float(np.asarray(iv.high).flat[0])
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "no interval: not estimable"
    return f"{lo * scale:{fmt}}–{hi * scale:{fmt}}, {iv.interval:.0%}"


#: The data table whose model-form misfit the what-if throughput band carries (the ledger's
#: throughput rows).
THROUGHPUT_TABLE = "vcha2016/table05_throughput"


@functools.lru_cache(maxsize=1)
def _vcbench_param_index() -> tuple:
    """``(idx, n_params)``: where the parameters :func:`vcperf.vcha.vcbench` reads sit among the
    study's parameters (:func:`vcperf.protocol.param_names`); the others have zero derivative."""
    import importlib

    from vcperf import protocol

    vb = importlib.import_module("vcperf.vcha.vcbench")
    names = protocol.param_names(protocol.calibrated(vcha.STUDY))
    return [names.index(f"{s}.{f}") for s, f in vb.VCBENCH_PARAM_FIELDS], len(names)


@functools.lru_cache(maxsize=256)
def _vcbench_intervals(args: tuple, scn: tuple) -> tuple:
    """90 % intervals ``(value, low, high)`` of throughput (1/s) and latency (s) of a what-if.

    :func:`vcperf.protocol.interval_from_gradient` (the last step of
    :func:`vcperf.protocol.with_interval`: calibration covariance + the throughput table's model-form
    misfit, Student-t bounds), with the throughput's parameter sensitivities from one batched MVA
    (:func:`vcperf.vcha.vcbench.throughput_sensitivities`, ~10 ms) instead of two solves per study
    parameter; identical to ``with_interval(..., data_table=THROUGHPUT_TABLE)`` to rounding
    (tests/test_vcha.py checks it). The latency's follows by Little's law at the scenario's population
    (``R = N / X - Z``), so the two stay consistent. Cached: a redraw with unchanged inputs costs nothing."""
    import importlib

    from vcperf import protocol

    vb = importlib.import_module("vcperf.vcha.vcbench")
    idx, n_params = _vcbench_param_index()
    x, _, g = vb.throughput_sensitivities(*args, params=vcha.calibrate(), **dict(scn))
    gn = np.zeros(n_params)
    gn[idx] = g
    iv = protocol.interval_from_gradient(vcha.STUDY, x, gn, data_table=THROUGHPUT_TABLE)
    lo, hi = float(iv.low), float(iv.high)
    z_think = vcha.calibrate().vcbench.think_time_s
    n = args[0]
    r = (n / x - z_think, n / hi - z_think if np.isfinite(hi) else np.nan,
         n / lo - z_think if np.isfinite(lo) else np.nan)
    return (x, lo, hi), r, iv.interval


def _seconds(t: float) -> str:
    """A time for people: ``"2.96 s"``, ``"4.2 min"``, ``"3.1 h"``."""
    if t < 120.0:
        return f"{t:.2f} s"
    return f"{t / 60:,.1f} min" if t < 7200.0 else f"{t / 3600:,.1f} h"


def _bits(rate_bps: float) -> str:
    """A bit rate for people: ``"22.7 Mbit/s"``, ``"9.4 Gbit/s"``."""
    for unit, f in (("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)):
        if rate_bps >= f:
            return f"{rate_bps / f:.3g} {unit}"
    return f"{rate_bps:.3g} bit/s"


def _link_rates_bps(added_rtt_s: float, bandwidth_bps: float, loss: float) -> tuple:
    """``(TCP rate of the replication link, background WAL stream)`` in bit/s (the link cannot carry
    VCbench's WAL at all when the second reaches the first)."""
    import importlib

    from vcperf import network

    vb = importlib.import_module("vcperf.vcha.vcbench")
    rate = float(network.tcp_throughput_bps(bandwidth_bps, vb.LAN_RTT_S + added_rtt_s, loss))
    return rate, 8.0 * vcha.calibrate().wal.background_wal_bytes_per_s


def _band3(v3, interval: float, scale: float = 1.0, fmt: str = ",.0f", unit: str = "") -> str:
    lo, hi = v3[1], v3[2]
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "no interval: not estimable"
    if unit == " s" and hi * scale >= 120.0:
        return f"{_seconds(lo * scale)}–{_seconds(hi * scale)}, {interval:.0%}"
    return f"{lo * scale:{fmt}}–{hi * scale:{fmt}}{unit}, {interval:.0%}"


def vcbench_whatif_table(clients: int = 256, replication_rtt_ms: float = 5.0, stats_level: int = 1,
                         vcha_enabled: bool = True, bandwidth_gbps: float = 10.0, loss_percent: float = 0.0,
                         appliance: str = "testbed", psc_mode: str = "external"):
    """The what-if scenario as a table: throughput and latency with their 90 % intervals
    (:func:`vcperf.protocol.with_interval`), VCHA overhead, CPU, pool, link and sync wait."""
    import pandas as pd

    scn = scenario(bandwidth_gbps, loss_percent, appliance, psc_mode)
    args = (int(clients), bool(vcha_enabled), replication_rtt_ms / 1e3, int(stats_level))
    s = _vcbench(*args, **scn)
    base = _vcbench(int(clients), False, 0.0, int(stats_level), **scn)
    x, r, _ = _vcbench_intervals(args, tuple(sorted(scn.items())))
    rows = [("throughput", x[0] * 60, x[1] * 60, x[2] * 60, "ops/min"),
            ("avg operation latency", r[0] * 1e3, r[1] * 1e3, r[2] * 1e3, "ms"),
            ("throughput vs no VCHA", 100 * (float(s.throughput_per_s) / float(base.throughput_per_s) - 1),
             np.nan, np.nan, "%"),
            ("vpxd CPU", float(s.cpu_cores), np.nan, np.nan, "cores busy"),
            ("vCPU busy (vpxd + embedded PSC)", 100 * float(s.cpu_utilization_per_core), np.nan, np.nan, "%"),
            ("DB pool busy", 100 * float(s.db_pool_utilization), np.nan, np.nan, "%"),
            ("statistics connections", float(s.stats_db_connections), np.nan, np.nan, "connections"),
            ("replication link busy", 100 * float(s.link_utilization), np.nan, np.nan, "%"),
            ("sync wait", 1e3 * float(s.sync_wait_s), np.nan, np.nan, "ms/op")]
    return pd.DataFrame(rows, columns=["quantity", "model", "low_90", "high_90", "unit"])


def vcbench_whatif_update(clients: int = 256, replication_rtt_ms: float = 5.0, stats_level: int = 1,
                          vcha_enabled: bool = True, bandwidth_gbps: float = 10.0, loss_percent: float = 0.0,
                          appliance: str = "testbed", psc_mode: str = "external"):
    """Model + redraw for the VCbench what-if: returns ``(readout, png_bytes)``.

    The image is :func:`clients_figure` (``highlight=clients``, the same link, appliance and PSC
    mode) with the widget layout, drawn on one figure kept between calls: only the curves, the DB
    pool bound, the vCPU line and the marker move. Throughput and latency carry their 90 % interval.
    """
    whatif = {"bandwidth_gbps": bandwidth_gbps, "loss_percent": loss_percent, "appliance": appliance,
              "psc_mode": psc_mode}
    scn = scenario(**whatif)
    args = (int(clients), bool(vcha_enabled), replication_rtt_ms / 1e3, int(stats_level))
    s = _vcbench(*args, **scn)
    base = _vcbench(int(clients), False, 0.0, int(stats_level), **scn)
    png = _vcbench_panel().draw(panel_max_clients(clients), replication_rtt_ms / 1e3, int(stats_level), int(clients),
                                **whatif)
    x = float(s.throughput_per_s)
    xi, ri, level = _vcbench_intervals(args, tuple(sorted(scn.items())))
    head = (f"{int(clients)} clients, {appliance} ({scn['vcpus']:g} vCPUs, {scn['hosts']:,.0f} hosts), {psc_mode} PSC, "
            f"stats level {int(stats_level)}, VCHA {'on' if vcha_enabled else 'off'}"
            + (f" (+{replication_rtt_ms:.3g} ms, {bandwidth_gbps:.3g} Gbps, {loss_percent:.3g} % loss)"
               if vcha_enabled else ""))
    rate_bps, wal_bps = _link_rates_bps(replication_rtt_ms / 1e3, scn["bandwidth_bps"], scn["loss"])
    if vcha_enabled and wal_bps >= rate_bps:
        return (head + f": the replication link's TCP rate at this round trip and loss ({_bits(rate_bps)}) is below "
                f"the background WAL stream alone ({_bits(wal_bps)}): the Passive cannot keep up and VCbench "
                "stalls (model throughput ~0). Lower the loss or the latency, or raise the bandwidth."), png
    readout = (
        head + f": {x * 60:,.0f} ops/min ({_band3(xi, level, 60, ',.0f', ' ops/min')}; "
        f"{x / float(base.throughput_per_s) - 1:+.1%} vs no "
        f"VCHA), latency {_seconds(float(s.response_time_s))} ({_band3(ri, level, 1.0, '.2f', ' s')}), "
        f"vpxd CPU {float(s.cpu_cores):.1f} of {scn['vcpus']:g} cores, "
        f"DB pool {float(s.db_pool_utilization):.0%} busy, "
        f"link {float(s.link_utilization):.1%} busy, sync wait {float(s.sync_wait_s) * 1e3:,.0f} ms/op. "
        "(Lines show VCHA at the chosen latency.)"
    )
    return readout, png


def vcbench_whatif(clients: int = 256, replication_rtt_ms: float = 5.0, stats_level: int = 1,
                   vcha_enabled: bool = True, bandwidth_gbps: float = 10.0, loss_percent: float = 0.0,
                   appliance: str = "testbed", psc_mode: str = "external"):
    """The VCbench what-if panel: clients, replication latency/bandwidth/loss, statistics level, VCHA
    on/off, appliance size and PSC mode."""
    import ipywidgets as w

    n = w.IntSlider(value=clients, min=1, max=1024, step=1, description="clients")
    rtt = w.FloatSlider(value=replication_rtt_ms, min=0, max=30, step=0.5, description="added RTT ms")
    lvl = w.IntSlider(value=stats_level, min=1, max=4, step=1, description="stats level")
    on = w.Checkbox(value=vcha_enabled, description="VCHA enabled")
    bw = w.FloatLogSlider(value=bandwidth_gbps, base=10, min=-2, max=2, step=0.01, description="link Gbps",
                          readout_format=".3g")
    loss = w.FloatSlider(value=loss_percent, min=0, max=5, step=0.01, description="loss %")
    app = w.Dropdown(options=list(APPLIANCES), value=appliance, description="appliance")
    psc = w.Dropdown(options=["external", "embedded"], value=psc_mode, description="PSC")
    style_sliders(n, rtt, lvl, bw, loss)

    def link_live(*_):  # the replication link only matters with VCHA on: say so by greying it out
        for c in (rtt, bw, loss):
            c.disabled = not on.value

    on.observe(link_live, names="value")
    link_live()
    return whatif_panel([n, rtt, lvl, on, bw, loss, app, psc], vcbench_whatif_update)


class _LifecyclePanel:
    """:func:`enable_figure` built once; :meth:`draw` moves the what-if bandwidth curve and the VM marker.

    The left panel (stacked bars at the study's inventories) does not depend on the inputs.
    """

    def __init__(self):
        fig, (ax, ax2) = self.fig, self.axes = panel_figure((9.6, 3.6), 2)
        paper_vms, totals = _enable_bars(ax)
        self.vms = np.linspace(0, 40000, 81)
        ax2.plot(self.vms, _enable_times(self.vms, None).total_s / 60, "-", color="tab:orange",
                 label="model, 10 Gbps")
        (self.whatif,) = ax2.plot(self.vms, np.zeros_like(self.vms), "--", color="tab:orange", label="model, what-if")
        ax2.plot(paper_vms, totals, **PAPER_STYLE, label="paper total")
        (self.ready,) = ax2.plot(self.vms, np.zeros_like(self.vms), ":", color="tab:red", label="vpxd ready")
        self.mark = ax2.axvline(0.0, color="0.3", lw=0.8)
        ax2.set_xlabel("registered VMs")
        ax2.set_ylabel("enable VCHA, total (min)")
        texts = ax2.legend(frameon=False, fontsize=7).get_texts()
        self.legend_text, self.ready_text = texts[1], texts[3]
        plotting.fast_layout(fig)
        self.canvas = PanelCanvas(fig, [self.whatif, self.ready, self.mark])

    def draw(self, bandwidth_bps: float, whatif_vms: float, vcpus: float, psc_mode: str) -> bytes:
        self.whatif.set_ydata(_enable_times(self.vms, bandwidth_bps).total_s / 60)
        self.legend_text.set_text(f"model, {bandwidth_bps / 1e9:.3g} Gbps")
        self.ready.set_ydata(_failover_times(vcpus, self.vms, psc_mode).vpxd_ready_s / 60)
        self.ready_text.set_text(f"model, vpxd ready after failover, {vcpus:g} vCPUs, {psc_mode} PSC")
        self.mark.set_xdata([whatif_vms, whatif_vms])
        _rescale_from_zero(self.axes[1])
        return self.canvas.png()


@functools.lru_cache(maxsize=1)
def _lifecycle_panel() -> _LifecyclePanel:
    return _LifecyclePanel()


def lifecycle_whatif_update(registered_vms: float = 36864.0, vcpus: float = 32.0, clone_bandwidth_gbps: float = 10.0,
                            psc_mode: str = "external"):
    """Model + redraw for the enabling/failover what-if: returns ``(readout, png_bytes)``.

    The image is :func:`enable_figure` with the widget layout, drawn on one figure kept between
    calls: only the what-if bandwidth curve, its legend entry and the VM marker move.
    """
    from vcperf import protocol

    bw = clone_bandwidth_gbps * 1e9
    e = _enable_times(registered_vms, bw)
    f = _failover_times(vcpus, registered_vms, psc_mode)
    png = _lifecycle_panel().draw(bw, registered_vms, vcpus, psc_mode)
    ei = protocol.with_interval(vcha.enable_vcha_times, registered_vms, bw, output="total_s")
    fi = protocol.with_interval(vcha.failover_times, vcpus, registered_vms, psc_mode, output="vpxd_ready_s")
    gb = float(vcha.clone_bytes(registered_vms, vcha.calibrate().enable)) / 1e9
    readout = (
        f"{registered_vms:,.0f} VMs on {vcpus:g} vCPUs, clone network {clone_bandwidth_gbps:.3g} Gbps, {psc_mode} "
        f"PSC: enable VCHA {float(e.total_s) / 60:.1f} min ({_band(ei, 1 / 60, '.1f')} min; each clone "
        f"{float(e.clone_secondary_s) / 60:.1f} min, {gb:,.0f} GB); "
        f"failover: vpxd ready {float(f.vpxd_ready_s) / 60:.1f} min ({_band(fi, 1 / 60, '.1f')} min), Web Client "
        f"inventory {float(f.inventory_screen_s) / 60:.1f} min"
    )
    return readout, png


def lifecycle_whatif_table(registered_vms: float = 36864.0, vcpus: float = 32.0, clone_bandwidth_gbps: float = 10.0,
                           psc_mode: str = "external"):
    """The enabling/failover what-if as a table, with 90 % intervals (:func:`vcperf.protocol.with_interval`)."""
    import pandas as pd

    from vcperf import protocol

    bw = clone_bandwidth_gbps * 1e9
    rows = []
    for name, fn, args, out in (
            ("clone (each)", vcha.enable_vcha_times, (registered_vms, bw), "clone_secondary_s"),
            ("configure VCHA", vcha.enable_vcha_times, (registered_vms, bw), "configure_s"),
            ("enable VCHA, total", vcha.enable_vcha_times, (registered_vms, bw), "total_s"),
            ("failover: in progress page", vcha.failover_times, (vcpus, registered_vms, psc_mode), "in_progress_s"),
            ("failover: vpxd ready", vcha.failover_times, (vcpus, registered_vms, psc_mode), "vpxd_ready_s"),
            ("failover: Web Client inventory", vcha.failover_times, (vcpus, registered_vms, psc_mode),
             "inventory_screen_s")):
        iv = protocol.with_interval(fn, *args, output=out)
        rows.append((name, float(iv.value), float(iv.low), float(iv.high), "s"))
    return pd.DataFrame(rows, columns=["quantity", "model", "low_90", "high_90", "unit"])


def lifecycle_whatif(registered_vms: float = 36864.0, vcpus: float = 32.0, clone_bandwidth_gbps: float = 10.0,
                     psc_mode: str = "external"):
    """The enabling/failover what-if panel: inventory, vCPUs, clone bandwidth, PSC mode."""
    import ipywidgets as w

    vms = w.FloatSlider(value=registered_vms, min=0, max=40000, step=100, description="registered VMs",
                        readout_format=",.0f")
    cpu = w.FloatSlider(value=vcpus, min=2, max=64, step=1, description="vCPUs", readout_format=".0f")
    bw = w.FloatLogSlider(value=clone_bandwidth_gbps, base=10, min=-1, max=1.6, step=0.01,
                          description="clone Gbps", readout_format=".3g")
    psc = w.Dropdown(options=["external", "embedded"], value=psc_mode, description="PSC")
    style_sliders(vms, cpu, bw)
    return whatif_panel([vms, cpu, bw, psc], lifecycle_whatif_update)
