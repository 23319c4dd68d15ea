"""FT study views: figures and the what-if panel (``002_1123405df89c1006.txt``).

Every figure draws the model (lines/bars) beside what the seed states (black markers, dashed bound
lines, or the quoted statement as an annotation). The what-if panel is built on the pure
:func:`whatif_update` (model + redraw -> readout text, PNG bytes).
"""

from __future__ import annotations

import functools

import numpy as np

from vcperf import _validate as v
from vcperf import ft, plotting
from vcperf.plotting import PAPER_STYLE, use_style
from vcperf.widgets import PanelCanvas, panel_figure, style_sliders, whatif_panel

#: Checkpoint-interval axis of the latency figures: 0.5 ms .. 50 ms.
INTERVAL_GRID_S = np.logspace(np.log10(5e-4), np.log10(5e-2), 60)
#: Receive-rate axis of the FT logging figure: 0 .. 10 Gbps.
RECEIVE_GRID_BPS = np.linspace(0.0, 10e9, 81)
#: FT link speeds drawn in the latency figure.
LINK_SPEEDS_BPS = (1e9, 10e9, 25e9)


def _paper(fid, key):
    """The ledger row of target ``key`` under the default calibration (not its loo row)."""
    rows = fid[(fid["key"] == key) & (fid["kind"] != "loo")]
    return rows.iloc[0]


def netperf_figure(fid):
    """Figures 3-4: netperf throughput FT off/on, receive/transmit, 1 and 10 Gbps, and FT traffic.

    Parameters
    ----------
    fid : pandas.DataFrame
        The study's fidelity table (``fidelity.table(["ft2016"])``) for the stated bounds.
    """
    import matplotlib.pyplot as plt

    use_style()
    m = ft.model_values()
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9.0, 3.6), gridspec_kw={"width_ratios": [2, 1]})
    labels, off, on, traffic = [], [], [], []
    for g in ft.netperf_uplinks_gbps():
        for d in ("receive", "transmit"):
            labels.append(f"{g:g} Gbps\n{d}")
            off.append(m["netperf_off"][(g, d)] / 1e9)
            on.append(m["netperf_ft"][(g, d)] / 1e9)
            traffic.append(m["netperf_ft_logging"][(g, d)] / 1e9)
    x = np.arange(4)
    ax.bar(x - 0.2, off, 0.4, label="model, FT off", color="#9ab")
    ax.bar(x + 0.2, on, 0.4, label="model, FT on", color="#357")
    rx10 = _paper(fid, "netperf_10g_receive")
    ax.plot([2.2], [rx10["paper_value"] / 1e9], marker="v", color="black", linestyle="none",
            label=f"paper: FT-on receive < {rx10['paper_value'] / 1e9:g} Gbps")
    ax.hlines(rx10["paper_value"] / 1e9, 1.6, 2.8, colors="black", linestyles="dashed", lw=1)
    reach = _paper(fid, "netperf_1g_reach")["paper_value"] / 1e9
    ax.hlines(reach, -0.5, 3.5, colors="grey", linestyles="dotted", lw=1,
              label=f"paper: FT on can reach >= {reach:g} Gbps")
    for xi, val in zip(x, on, strict=True):
        ax.text(xi + 0.2, val, f"{val:.2f}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(x, labels)
    ax.set_ylabel("netperf throughput (Gbps)")
    ax.set_title("Figures 3-4: throughput", fontsize=9)
    ax.legend(fontsize=7, frameon=False, loc="upper left")
    ax2.bar(x, traffic, 0.6, color="#c63")
    ax2.axhline(ft.DEFAULT_FT_LINK_BPS / 1e9, color="grey", lw=1, ls="--")
    ax2.text(0, ft.DEFAULT_FT_LINK_BPS / 1e9 * 0.93, "FT link 10 GbE", fontsize=7)
    ax2.set_xticks(x, labels, fontsize=7)
    ax2.set_ylabel("FT logging traffic (Gbps)")
    ax2.set_title("paper: high for receive,\nminimal for transmit", fontsize=8)
    plotting.finish(fig)
    return fig


def latency_figure(fid):
    """Figure 5: TCP_RR latency FT off/on (paper ratio 57x) and added latency vs checkpoint interval."""
    import matplotlib.pyplot as plt

    use_style()
    e_cal = ft.calibrate().checkpoint_interval_s
    rr = ft.tcp_rr(e_cal)
    paper = _paper(fid, "tcp_rr_latency_ratio")["paper_value"]
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9.0, 3.6))
    ax.bar([0, 1], [rr.latency_off_s * 1e3, rr.latency_on_s * 1e3], color=["#9ab", "#357"])
    ax.plot([1], [rr.latency_off_s * 1e3 * paper], label=f"paper: {paper:g}x the FT-off latency", **PAPER_STYLE)
    ax.set_yscale("log")
    ax.set_xticks([0, 1], ["FT off", "FT on"])
    ax.set_ylabel("TCP_RR round-trip latency (ms)")
    ax.set_title(f"Figure 5: model ratio {rr.latency_ratio:.1f}x (fitted)", fontsize=9)
    ax.legend(fontsize=7, frameon=False)
    for link in LINK_SPEEDS_BPS:
        delta = ft.output_commit_delay_s(50e6, INTERVAL_GRID_S, link)
        ax2.loglog(INTERVAL_GRID_S * 1e3, delta * 1e3, label=f"FT link {link / 1e9:g} Gbps, 50 MB/s dirty")
    ax2.loglog(INTERVAL_GRID_S * 1e3, ft.output_commit_delay_s(0.0, INTERVAL_GRID_S) * 1e3, "k:", lw=1,
               label="idle guest (TCP_RR)")
    ax2.axvline(e_cal * 1e3, color="grey", lw=1, ls="--")
    ax2.text(e_cal * 1e3 * 1.08, 0.3, f"calibrated\n{e_cal * 1e3:.1f} ms", fontsize=7)
    ax2.set_xlabel("checkpoint interval (ms)")
    ax2.set_ylabel("added latency per packet (ms)")
    ax2.set_title("output commit: E/2 + stun", fontsize=9)
    ax2.legend(fontsize=7, frameon=False)
    plotting.finish(fig)
    return fig


def workloads_figure(fid):
    """Figures 6-10: FT-on/off throughput and response ratios of IOMeter, Swingbench, DVD Store."""
    import matplotlib.pyplot as plt

    use_style()
    m = ft.model_values()
    names = ["IOMeter 2KB", "IOMeter 64KB", "Swingbench", "DVD Store"]
    thr = [m["iometer_2KB"], m["iometer_64KB"], m["swingbench"].throughput_ratio, m["dvdstore"].throughput_ratio]
    resp = [None, None, m["swingbench"].response_ratio, m["dvdstore"].response_ratio]
    stated = ["Fig 6: nearly as much", "Fig 6: nearly as much", "Fig 7: nearly as much", "Fig 9: overhead (<1)"]
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9.0, 3.6))
    x = np.arange(len(names))
    ax.bar(x, thr, 0.6, color="#357", label="model")
    io_paper = ft.iometer_paper_ratios()
    ax.plot(x[:3], [io_paper["2KB"], io_paper["64KB"], _paper(fid, "swingbench_throughput_ratio")["paper_value"]],
            label="paper: ~1 ('nearly as much')", **PAPER_STYLE)
    for xi, val, txt in zip(x, thr, stated, strict=True):
        ax.text(xi, 0.42, f"{val:.3f}\n{txt}", ha="center", fontsize=6.5, rotation=90, color="white")
    ax.set_ylim(0.0, 1.1)
    ax.set_xticks(x, names, fontsize=8)
    ax.set_ylabel("throughput FT on / FT off")
    ax.set_title("Figures 6, 7, 9", fontsize=9)
    ax.legend(fontsize=7, frameon=False, loc="lower left")
    ax2.bar([0, 1], resp[2:], 0.5, color="#c63")
    ax2.axhline(1.0, color="black", lw=1, ls="--")
    ax2.text(-0.25, 1.03, "paper (Fig 8, 10): response time increases (> 1)", fontsize=7)
    for xi, val in enumerate(resp[2:]):
        ax2.text(xi, val, f"{val:.2f}", ha="center", va="bottom", fontsize=7)
    ax2.set_xticks([0, 1], ["Swingbench\n(Fig 8)", "DVD Store\n(Fig 10)"])
    ax2.set_ylabel("response time FT on / FT off")
    ax2.set_title("per-transaction response (ms-scale waits)", fontsize=9)
    plotting.finish(fig)
    return fig


def sensitivity_figure():
    """FT throughput ratio of closed loops vs latency sensitivity (exchanges per operation).

    Figure 11 (brokerage, "reduction in user transaction throughput") and the seed's point that
    pure latency benchmarks lose in proportion while client/server loads barely do: each curve is a
    closed loop at 60 % vCPU with a different think time.
    """
    import matplotlib.pyplot as plt

    use_style()
    ks = np.array([0, 1, 2, 5, 10, 20, 50, 100])
    tb = ft.testbed()
    n, vcpus, e = tb.dvdstore_threads, tb.dvdstore_vcpus, ft.calibrate().checkpoint_interval_s
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for z in (0.0, 0.05, 0.4, 2.0):
        ratios = []
        for k in ks:
            # with no think time some other delay (20 ms of I/O or network) keeps the vCPUs below saturation
            r = ft.closed_loop_at_utilization(n, z, float(k), tb.cpu_utilization, checkpoint_interval_s=e, vcpus=vcpus,
                                              external_delay_s=0.02 if z == 0 else 0.0)
            ratios.append(r.throughput_ratio)
        ax.semilogx(np.maximum(ks, 0.5), ratios, marker="o", ms=3, label=f"think time {z:g} s")
    ax.set_xlabel("client exchanges per operation (0 drawn at 0.5)")
    ax.set_ylabel("throughput FT on / FT off")
    ax.set_title(f"{n} clients, {vcpus} vCPUs at the seed's real-life vCPU load without FT", fontsize=8)
    ax.text(0.6, 0.12, "Fig 11 (brokerage): 'reduction in throughput' (< 1),\nattributed to its intensive nature",
            fontsize=7)
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=7, frameon=False)
    plotting.finish(fig)
    return fig


def vcenter_figure(fid, max_clients: int = 32):
    """Figures 12-14: vCenter throughput ratio vs load, Web Client browsing, restart."""
    import matplotlib.pyplot as plt

    use_style()
    p = ft.calibrate()
    vc = ft.model_values()["vcenter"]
    s = ft.vcenter_setup()
    t_op = 1.0 / s["load_a_per_s"]
    common = dict(vcpus=s["vcpus"], external_delay_s=t_op - p.vcenter_cpu_demand_per_op_s,
                  exchanges_per_op=p.vcenter_exchange_rate_per_s * t_op,
                  dirty_bytes_per_op=p.vcenter_dirty_rate_bytes_per_s * t_op,
                  checkpoint_interval_s=p.checkpoint_interval_s)
    clients = np.unique(np.round(np.geomspace(1, max_clients, 12)).astype(int))
    res = [ft.closed_loop(int(n), 0.0, p.vcenter_cpu_demand_per_op_s, **common) for n in clients]
    x_off = np.array([r.throughput_off_per_s for r in res]) * 60
    ratio = np.array([r.throughput_ratio for r in res])
    fig, axes = plt.subplots(1, 3, figsize=(10.0, 3.5), gridspec_kw={"width_ratios": [2, 1, 1]})
    ax = axes[0]
    ax.plot(x_off, ratio, marker="o", ms=3, color="#357", label="model (1..32 clients)")
    for load in ("A", "B"):
        row = _paper(fid, f"vcenter_load_{load.lower()}_ratio")
        rate = s[f"load_{load.lower()}_per_s"] * 60
        ax.plot([rate], [row["paper_value"]], **PAPER_STYLE)
        ax.annotate(f"paper Load {load}: {row['paper_value']:.0%}\nmodel {row['model_value']:.0%}",
                    (rate, row["paper_value"]), textcoords="offset points", xytext=(6, 6), fontsize=7)
    ax.set_xlabel("operations per minute without FT")
    ax.set_ylabel("throughput FT on / FT off")
    ax.set_ylim(0, 1.05)
    ax.set_title("Figure 12: management operations", fontsize=9)
    ax.legend(fontsize=7, frameon=False, loc="lower left")
    b = _paper(fid, "web_client_browse_on")
    axes[1].bar([0, 1], [s["browse_off_s"], b["model_value"]], color=["#9ab", "#357"])
    axes[1].plot([1], [b["paper_value"]], label="paper", **PAPER_STYLE)
    axes[1].set_xticks([0, 1], ["FT off\n(input)", "FT on"])
    axes[1].set_ylabel("browse latency (s)")
    axes[1].set_title("Figure 13", fontsize=9)
    axes[1].legend(fontsize=7, frameon=False)
    r = _paper(fid, "vcenter_restart_ratio")
    axes[2].bar([0, 1], [1.0, r["model_value"]], color=["#9ab", "#357"])
    axes[2].plot([1], [r["paper_value"]], label="paper", **PAPER_STYLE)
    axes[2].set_xticks([0, 1], ["FT off", "FT on"])
    axes[2].set_ylabel("restart time (relative)")
    axes[2].set_title("Figure 14", fontsize=9)
    axes[2].legend(fontsize=7, frameon=False)
    fig.suptitle(f"clients for Load B: {vc['clients_b']}; {vc['dirty_bytes_per_op'] / 1e6:.0f} MB dirtied and "
                 f"{vc['exchanges_per_op']:.0f} exchanges per operation", fontsize=8)
    plotting.finish(fig)
    return fig


def logging_bandwidth_figure():
    """FT logging traffic vs received data (Figures 3-4 mechanism) and kernel-compile overhead (Figure 2)."""
    import matplotlib.pyplot as plt

    use_style()
    e = ft.calibrate().checkpoint_interval_s
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9.0, 3.5))
    for dirty in (0.0, 200e6, 1e9):
        ax.plot(RECEIVE_GRID_BPS / 1e9, ft.ft_logging_bandwidth_bps(RECEIVE_GRID_BPS, dirty, e) / 1e9,
                label=f"+ {dirty / 1e6:g} MB/s other dirty memory")
    ax.axhline(ft.DEFAULT_FT_LINK_BPS / 1e9, color="grey", ls="--", lw=1)
    ax.text(0.2, ft.DEFAULT_FT_LINK_BPS / 1e9 * 0.95, "FT link rate (never exceeded)", fontsize=7, va="top")
    ax.set_xlabel("data received by the guest while running (Gbps)")
    ax.set_ylabel("FT logging traffic (Gbps)")
    ax.set_title("receive-heavy loads fill the FT link", fontsize=9)
    ax.legend(fontsize=7, frameon=False, loc="center right")
    dirty = np.linspace(0, 500e6, 51)
    frac = ft.kernel_compile_overhead_fraction(dirty, e)
    ax2.plot(dirty / 1e6, ft.implied_kernel_compile_baseline_s(dirty) / 60, color="#357")
    ax2.set_xlabel("compile's dirty rate (MB/s)")
    ax2.set_ylabel("implied FT-off compile time (min)")
    ax2.set_title(f"Figure 2: paper +{ft.kernel_compile_increase_s():g} s; model overhead "
                  f"{frac[0]:.1%}..{frac[-1]:.1%}", fontsize=9)
    plotting.finish(fig)
    return fig


class _WhatifPanel:
    """The what-if figure, built once; :meth:`draw` moves its curves, points and the link-rate line."""

    def __init__(self):
        fig, (ax, ax2) = self.fig, self.axes = panel_figure((9.0, 3.2), 2)
        (self.delay,) = ax.loglog(INTERVAL_GRID_S * 1e3, np.ones_like(INTERVAL_GRID_S), color="#357")
        (self.delay_here,) = ax.plot([1.0], [1.0], "o", color="#c63")
        ax.set_xlabel("checkpoint interval (ms)")
        ax.set_ylabel("added latency (ms)")
        ax.set_title("output-commit delay", fontsize=9)
        (self.traffic,) = ax2.plot(RECEIVE_GRID_BPS / 1e9, np.zeros_like(RECEIVE_GRID_BPS), color="#357")
        (self.traffic_here,) = ax2.plot([0.0], [0.0], "o", color="#c63")
        self.link = ax2.axhline(0.0, color="grey", ls="--", lw=1)
        ax2.set_xlabel("received data while running (Gbps)")
        ax2.set_ylabel("FT logging traffic (Gbps)")
        ax2.set_title("FT link load", fontsize=9)
        plotting.fast_layout(fig)
        self.canvas = PanelCanvas(fig, [self.delay, self.delay_here, self.traffic, self.traffic_here, self.link])

    def draw(self, total, e, link, rx, d, cyc) -> bytes:
        self.delay.set_ydata(ft.output_commit_delay_s(total, INTERVAL_GRID_S, link) * 1e3)
        self.delay_here.set_data([e * 1e3], [float(cyc.output_commit_delay_s) * 1e3])
        self.traffic.set_ydata(ft.ft_logging_bandwidth_bps(RECEIVE_GRID_BPS, d, e, link) / 1e9)
        self.traffic_here.set_data([rx / 1e9], [float(cyc.logging_bandwidth_bps) / 1e9])
        self.link.set_ydata([link / 1e9, link / 1e9])
        for ax in self.axes:
            ax.relim()
            ax.autoscale_view()
        return self.canvas.png()


@functools.lru_cache(maxsize=1)
def _whatif_panel() -> _WhatifPanel:
    return _WhatifPanel()


def whatif_update(ft_link_bps: float = 10e9, checkpoint_interval_s: float | None = None, receive_rate_bps: float = 1e9,
                  dirty_rate_bytes_per_s: float = 100e6):
    """Model + redraw for the FT what-if: returns ``(readout, png_bytes)``.

    Readout: FT logging bandwidth, added latency per packet, and the FT-on/off throughput ratio of
    the TCP_RR benchmark, the receiving VM and the DVD Store closed loop (with this memory load).
    The figure (added latency vs checkpoint interval, FT logging traffic vs received data) is kept
    between calls; only its curves, points and the link-rate line move.
    """
    if checkpoint_interval_s is None:  # the calibrated interval (Figure 5)
        checkpoint_interval_s = ft.calibrate().checkpoint_interval_s
    link = float(v.positive("ft_link_bps", ft_link_bps))
    e = float(v.positive("checkpoint_interval_s", checkpoint_interval_s))
    rx = float(v.nonneg("receive_rate_bps", receive_rate_bps))
    d = float(v.nonneg("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s))
    total = d + ft.DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE * rx / 8.0
    cyc = ft.checkpoint_cycle(total, e, link)
    rr = ft.tcp_rr(e, ft_link_bps=link, guest_dirty_rate_bytes_per_s=total)
    ds = ft.database_workload("dvdstore", checkpoint_interval_s=e, ft_link_bps=link,
                              background_dirty_rate_bytes_per_s=total)
    readout = (
        f"FT logging {float(cyc.logging_bandwidth_bps) / 1e9:.2f} Gbps of {link / 1e9:g}; added latency "
        f"{float(cyc.output_commit_delay_s) * 1e3:.2f} ms; throughput FT on/off: TCP_RR {1 / rr.rate_ratio:.3f}, "
        f"CPU-bound {float(cyc.run_fraction):.3f}, DVD Store {ds.throughput_ratio:.3f}"
    )
    return readout, _whatif_panel().draw(total, e, link, rx, d, cyc)


def whatif(ft_link_bps: float = 10e9, checkpoint_interval_s: float | None = None,
           receive_rate_bps: float = 1e9, dirty_rate_bytes_per_s: float = 100e6):
    """The FT what-if panel: FT link speed, checkpoint interval, receive rate, dirty rate."""
    import ipywidgets as w

    e = ft.calibrate().checkpoint_interval_s if checkpoint_interval_s is None else checkpoint_interval_s
    link = w.FloatLogSlider(value=ft_link_bps / 1e9, base=10, min=0, max=2, step=0.01, description="FT link Gbps",
                            readout_format=".3g")
    interval = w.FloatLogSlider(value=e * 1e3, base=10, min=-0.5, max=2, step=0.01, description="interval ms",
                                readout_format=".3g")
    rx = w.FloatSlider(value=receive_rate_bps / 1e9, min=0, max=10, step=0.05, description="receive Gbps")
    dirty = w.FloatSlider(value=dirty_rate_bytes_per_s / 1e6, min=0, max=2000, step=10, description="dirty MB/s")
    style_sliders(link, interval, rx, dirty)
    return whatif_panel(
        [link, interval, rx, dirty],
        lambda link_gbps, interval_ms, rx_gbps, dirty_mb_s: whatif_update(
            link_gbps * 1e9, interval_ms / 1e3, rx_gbps * 1e9, dirty_mb_s * 1e6),
    )
