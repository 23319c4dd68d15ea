"""ROBO background-traffic views (notebook robo_background_and_statistics): host sync (Figures 2-3), statistics
traffic, size and reverse traffic (Figures 4-7) and the statistics burst per network type."""

from __future__ import annotations

import numpy as np

from vcperf import plotting, robo
from vcperf.plotting import PAPER_STYLE
from vcperf.views.robo.common import LEVEL_LABELS, ordered_presets, preset_label

#: Powered-on VMs per host on the x axis of the host-sync and statistics figures.
VM_GRID = np.arange(0, 49, 1.0)
#: VM counts drawn as separate series (the testbed has 24 per host).
VM_SERIES = (8, 16, 24, 32)


def hostsync_figure(vms=VM_GRID, stated=None):
    """Figures 2-3: host-sync traffic of one host vs powered-on VMs, both directions.

    ``stated`` = (vms, kbit/s) draws the paper's point on the host -> vCenter panel.
    """
    plt = plotting.pyplot()
    t = robo.host_sync_traffic(vms)
    fig, axes = plt.subplots(1, 2, figsize=(8.6, 3.4))
    axes[0].plot(vms, t.host_to_vc_bps / 1e3, label="model: heartbeat + VM changes")
    if stated is not None:
        axes[0].plot([stated[0]], [stated[1]], label="paper: 3.75 kbit/s at 24 VMs", **PAPER_STYLE)
    axes[0].set_title("Figure 2 - host -> vCenter", fontsize=9)
    axes[1].plot(vms, t.vc_to_host_bps / 1e3, color="C1", label="model: TCP ACKs of the changes")
    axes[1].set_title("Figure 3 - vCenter -> host (ACKs only)", fontsize=9)
    for ax in axes:
        ax.set_xlabel("powered-on VMs per host")
        ax.set_ylabel("average traffic (kbit/s)")
        ax.legend(fontsize=7, frameon=False)
        ax.set_ylim(bottom=0)
    plotting.finish(fig)
    return fig


def hostsync_sharing_figure(hosts=None, powered_on_vms=None):
    """Host-sync utilization of one shared branch link vs hosts behind it (1-200), per network type."""
    plt = plotting.pyplot()
    hosts = np.arange(1, 201) if hosts is None else hosts
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for net in ordered_presets():
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
    plt = plotting.pyplot()
    levels = np.array(robo.LEVELS)
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.5))
    width = 0.8 / len(vm_series)
    for i, vms in enumerate(vm_series):
        t = robo.statistics_traffic(levels, float(vms)).host_to_vc_bps / 1e3
        axes[0].bar(levels + (i - (len(vm_series) - 1) / 2) * width, t, width, label=f"{vms} PonVMs")
    axes[0].set_xticks(levels, [LEVEL_LABELS[lvl] for lvl in levels])
    axes[0].set_title("Figure 4 - by statistics level", fontsize=9)
    for lvl in levels:
        axes[1].plot(VM_GRID, robo.statistics_traffic(lvl, VM_GRID).host_to_vc_bps / 1e3, label=LEVEL_LABELS[lvl])
    axes[1].set_xlabel("powered-on VMs per host")
    axes[1].set_title("Figure 5 - by powered-on VMs", fontsize=9)
    for ax in axes:
        ax.set_ylabel("host -> vCenter (kbit/s)")
        ax.legend(fontsize=7, frameon=False)
    plotting.finish(fig)
    return fig


def stats_size_figure(stated=None):
    """Figure 6: statistics data per upload vs powered-on VMs for each level (log y).

    ``stated`` = (vms, bytes) draws the paper's ~3.5 MB Level-4 point (at the assumed 24 VMs).
    """
    plt = plotting.pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for lvl in robo.LEVELS:
        ax.semilogy(VM_GRID[1:], robo.statistics_payload_bytes(lvl, VM_GRID[1:]) / 1e3, label=LEVEL_LABELS[lvl])
    if stated is not None:
        ax.semilogy([stated[0]], [stated[1] / 1e3], label="paper: ~3.5 MB at Level-4", **PAPER_STYLE)
    s = robo.statistics_payload_bytes(np.array(robo.LEVELS), robo.testbed_powered_on_vms())
    ax.annotate(f"L2/L1 = {s[1] / s[0]:.2f}  (paper: close)\nL3/L2 = {s[2] / s[1]:.1f}  (paper: considerable)\n"
                f"L4/L3 = {s[3] / s[2]:.2f}  (paper: close)", xy=(0.02, 0.97), xycoords="axes fraction",
                va="top", fontsize=7)
    ax.set_xlabel("powered-on VMs per host")
    ax.set_ylabel("statistics data per upload (kB)")
    ax.legend(fontsize=7, frameon=False, loc="lower right")
    plotting.finish(fig)
    return fig


def stats_reverse_figure(vm_series=VM_SERIES, bound_kbps=None):
    """Figure 7: vCenter -> host traffic (ACKs of statistics and host sync) by level, with the bound."""
    plt = plotting.pyplot()
    levels = np.array(robo.LEVELS)
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    width = 0.8 / len(vm_series)
    for i, vms in enumerate(vm_series):
        t = robo.statistics_traffic(levels, float(vms)).vc_to_host_bps / 1e3
        ax.bar(levels + (i - (len(vm_series) - 1) / 2) * width, t, width, label=f"{vms} PonVMs")
    if bound_kbps is not None:
        ax.axhline(bound_kbps, color="k", ls="--", lw=1, label=f"paper: all < {bound_kbps:g} kbit/s")
    ax.set_xticks(levels, [LEVEL_LABELS[lvl] for lvl in levels])
    ax.set_ylabel("vCenter -> host (kbit/s)")
    if bound_kbps is not None:
        ax.set_ylim(0, 1.35 * bound_kbps)
    ax.legend(fontsize=7, frameon=False, ncol=3, loc="upper left")
    plotting.finish(fig)
    return fig


def burst_figure(powered_on_vms=None, stated=None):
    """Time one statistics upload saturates each network type, per level (log y).

    ``stated`` = (network id, seconds) marks the paper's "about 1 minute on 512 Kbps DSL".
    """
    plt = plotting.pyplot()
    powered_on_vms = robo.testbed_powered_on_vms() if powered_on_vms is None else powered_on_vms
    nets = ordered_presets()
    x = np.arange(len(nets))
    fig, ax = plt.subplots(figsize=(7.2, 3.6))
    width = 0.2
    for i, lvl in enumerate(robo.LEVELS):
        size = float(robo.statistics_payload_bytes(lvl, powered_on_vms))
        t = [float(robo.statistics_upload_time_s(size, robo.preset(n))) for n in nets]
        ax.bar(x + (i - 1.5) * width, t, width, label=LEVEL_LABELS[lvl])
    if stated is not None:
        ax.plot([nets.index(stated[0]) + 1.5 * width], [stated[1]], label="paper: ~1 min (Level-4, DSL)",
                **PAPER_STYLE)
    ax.set_yscale("log")
    ax.set_xticks(x, [preset_label(n) for n in nets], rotation=20, fontsize=8)
    ax.set_ylabel("burst duration (s)")
    ax.set_title(f"one host's statistics upload, {powered_on_vms:g} powered-on VMs", fontsize=9)
    ax.legend(fontsize=7, frameon=False, ncol=3)
    plotting.finish(fig)
    return fig
