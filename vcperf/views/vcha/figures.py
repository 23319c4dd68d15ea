"""VCHA study figures (``000_bf7f1144753162c9.txt``): paper vs model bars, throughput over a run, clients,
replication latency and statistics level (Tables 5-7, 12, 13; Figures 5, 6, 10, 11), enabling VCHA
(Figure 4) and failover (Figures 2-3). Paper values are black markers
(:data:`vcperf.plotting.PAPER_STYLE`), model values lines or hatched bars."""

from __future__ import annotations

import numpy as np

from vcperf import plotting, protocol, vcha
from vcperf.plotting import PAPER_STYLE
from vcperf.views.format import fmt_bps
from vcperf.views.vcha.common import (
    COLORS,
    LABEL,
    clients_limits,
    enable_bars,
    label_axes,
    paper_si,
    scenario,
    study_enable_times,
    study_failover_times,
    study_vcbench,
    study_vcbench_curve,
    three_panel_margins,
)


def paper_model_bars(df, group_col: str, title: str, ylabel: str):
    """Grouped bars: for each row of ``df`` (a :func:`vcperf.fidelity.paper_vs_model` frame) the paper
    value (solid) beside the model value (hatched), labelled by ``df[group_col]``."""
    plt = plotting.pyplot()
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
    plt = plotting.pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    t = np.linspace(0, minutes, 61)
    lo_all, hi_all = [], []
    for vc in (False, True):
        key = "enabled" if vc else "disabled"
        iv = protocol.with_interval(vcha.run_vcbench, clients, vc, output="throughput_per_s",
                                    **vcha.testbed().appliance())
        model, lo, hi = (float(np.asarray(a).flat[0]) * 60 for a in (iv.value, iv.low, iv.high))
        paper = paper_si("table05_throughput", "throughput", clients=clients, vcha=key) * 60
        ax.fill_between(t, lo, hi, color=COLORS[key], alpha=0.15, lw=0)
        ax.plot(t, np.full_like(t, model), color=COLORS[key], lw=2, label=f"model, {LABEL[key]}: {model:,.0f}")
        ax.axhline(paper, color=COLORS[key], ls="--", lw=1, label=f"paper average, {LABEL[key]}: {paper:,.0f}")
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
    plt = plotting.pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(9.6, 3.3))
    n = np.arange(1, max_clients + 1)
    scn = scenario(**whatif)
    vcpus = scn["vcpus"]
    for vc in (False, True):
        key = "enabled" if vc else "disabled"
        s = study_vcbench_curve(max_clients, vc, replication_rtt_s if vc else 0.0, stats_level, **scn)
        axes[0].plot(n, s.throughput_per_s * 60, color=COLORS[key], label=f"model, {LABEL[key]}")
        axes[1].plot(n, s.response_time_s, color=COLORS[key])
        axes[2].plot(n, s.cpu_cores, color=COLORS[key])
        for c in (64, 256):
            node = {"node": "active"} if vc else {"node": ""}
            axes[0].plot([c], [paper_si("table05_throughput", "throughput", clients=c, vcha=key) * 60],
                         **{**PAPER_STYLE, "color": COLORS[key], "markeredgecolor": "black"})
            axes[1].plot([c], [paper_si("table06_operation_latency", "avg_operation_latency", clients=c,
                                           vcha=key)], **{**PAPER_STYLE, "color": COLORS[key],
                                                          "markeredgecolor": "black"})
            axes[2].plot([c], [paper_si("table07_vpxd_cpu", "vpxd_cpu_utilization", clients=c, vcha=key,
                                                **node)], **{**PAPER_STYLE, "color": COLORS[key],
                                                             "markeredgecolor": "black"})
    axes[0].axhline(60 * study_vcbench(1, False, 0.0, stats_level, **scn).db_pool_bound_per_s, color="0.5", ls=":",
                    lw=1, label="DB pool bound, no VCHA")
    axes[2].axhline(vcpus, color="0.5", ls=":", lw=1)
    if highlight is not None:
        for ax in axes:
            ax.axvline(highlight, color="0.3", lw=0.8)
    label_axes(axes)
    clients_limits(axes, max_clients)
    axes[0].legend(frameon=False, fontsize=7, loc="lower right")
    fig.suptitle("Closed network: one parameter set; dots are the paper (Tables 5-7)", fontsize=9)
    plotting.finish(fig)
    three_panel_margins(fig)
    return fig


def rtt_figure(max_rtt_s: float = 0.015, highlight_rtt_s: float | None = None):
    """Figure 11: throughput against the latency added on the VCHA network, 64 and 256 clients."""
    plt = plotting.pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    rtt = np.linspace(0, max_rtt_s, 61)
    for c in (64, 256):
        s = study_vcbench(c, True, rtt)
        ax.plot(rtt * 1e3, s.throughput_per_s * 60, color=COLORS[c], label=f"model, {c} clients")
        pts = [(ms, paper_si("table13_private_network_latency", "throughput", clients=c,
                                network_latency_ms=ms, vcha="enabled") * 60) for ms in (0, 5, 10)]
        ax.plot(*zip(*pts, strict=True), **{**PAPER_STYLE, "color": COLORS[c], "markeredgecolor": "black"},
                label=f"paper, {c} clients")
    ax.axvline(paper_si("text_best_practices", "max_supported_vcha_network_latency") * 1e3, color="0.5",
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
    plt = plotting.pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    levels = np.arange(1, 5)
    for k, vc in enumerate((False, True)):
        key = "enabled" if vc else "disabled"
        paper = [paper_si("table12_stats_level", "throughput", clients=256, stats_level=lvl, vcha=key) * 60
                 for lvl in levels]
        model = [float(study_vcbench(256, vc, stats_level=int(lvl)).throughput_per_s) * 60 for lvl in levels]
        ax.bar(levels + (k - 0.5) * 0.38, paper, 0.38, color=COLORS[key], alpha=0.55, label=f"paper, {LABEL[key]}")
        ax.plot(levels + (k - 0.5) * 0.38, model, "D", color=COLORS[key], markeredgecolor="black",
                label=f"model, {LABEL[key]}")
    ax.set_xticks(levels, [f"Level {lvl}" for lvl in levels])
    ax.set_ylabel("throughput (ops/min)")
    ax.legend(frameon=False, fontsize=7, loc="lower left")
    plotting.finish(fig)
    return fig



def enable_figure(bandwidth_bps: float | None = None, whatif_vms: float | None = None, vcpus: float | None = None,
                  psc_mode: str = "external"):
    """Figure 4: time to enable VCHA by inventory; paper stacked bars, model stacked hatched bars,
    and the model's total against registered VMs (optionally on another clone bandwidth). With
    ``vcpus``, also the vpxd ready time after a failover against registered VMs on that appliance
    and PSC mode (dotted; Table 2's points for reference)."""
    plt = plotting.pyplot()
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9.6, 3.6))
    paper_vms, totals = enable_bars(ax)
    vms = np.linspace(0, 40000, 81)
    for bw, style in ((None, "-"), (bandwidth_bps, "--")):
        if style == "--" and bw is None:
            continue
        t = study_enable_times(vms, bw)
        label = f"model, {fmt_bps(vcha.testbed().clone_bandwidth_bps if bw is None else bw)}"
        ax2.plot(vms, t.total_s / 60, style, color="tab:orange", label=label)
    ax2.plot(paper_vms, totals, **PAPER_STYLE, label="paper total")
    if vcpus is not None:
        ax2.plot(vms, study_failover_times(vcpus, vms, psc_mode).vpxd_ready_s / 60, ":", color="tab:red",
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
    plt = plotting.pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    inv = vcha.inventory_sizes()
    sizes = list(vcha.INVENTORIES)
    x = np.arange(len(sizes))
    t = [study_failover_times(inv[s]["vcpus"], inv[s]["registered_vms"], psc_mode) for s in sizes]
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
            ax.plot(x, [paper_si(table, q, inventory=s) / 60 for s in sizes], **dot)
        elif table == "table02_vpxd_ready_time":  # Embedded PSC: X-Large only (Tables 16-17)
            ax.plot([x[-1]], [paper_si("table16_psc_vpxd_ready_time", q, psc_mode="embedded",
                                               inventory="x-large") / 60], **dot)
        elif q != "vc_summary_time":
            ax.plot([x[-1]], [paper_si("table17_psc_vsphere_client_usability", q,
                                               psc_mode="embedded") / 60], **dot)
    ax.axhline(paper_si("text_executive_summary", "rto_target") / 60, color="0.5", ls=":", lw=1,
               label="RTO target")
    ax.set_xticks(x, [f"{s}\n{int(inv[s]['vcpus'])} vCPU, {int(inv[s]['registered_vms']):,} VMs" for s in sizes],
                  fontsize=7)
    ax.set_ylabel("time after the failure (min)")
    ax.set_ylim(0, None)
    tables = "Tables 2-3" if psc_mode == "external" else "Tables 16-17, X-Large only"
    ax.set_title(f"Failover, {psc_mode} Platform Services Controller: model lines, paper dots ({tables})", fontsize=9)
    ax.legend(frameon=False, fontsize=7, ncol=2, loc="lower right")
    plotting.finish(fig)
    return fig
