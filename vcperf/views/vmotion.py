"""vMotion study views: figures and the what-if panel (``004_ea13268657e6b3b0.txt``).

Every figure draws the model (lines) and the paper's stated numbers (black markers) from
:mod:`vcperf.vmotion`; the what-if panel is built on the pure :func:`migration_whatif_update`.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from vcperf import _validate as v
from vcperf import plotting, protocol
from vcperf import vmotion as vm
from vcperf.plotting import PAPER_STYLE
from vcperf.views.format import fmt_band, fmt_bps, fmt_bytes_per_s, fmt_duration, fmt_percent
from vcperf.widgets import TYPED_FORMAT, PanelFigure, fast_redraw, style_sliders, typed_step, whatif_panel

GIB = 2.0**30
RELEASE_LABEL = {"6.7": "vSphere 6.7", "7.0u1": "vSphere 7.0 U1"}
RELEASE_COLOR = {"6.7": "tab:red", "7.0u1": "tab:blue"}
AMBER = "#b8860b"  # flags: inputs beyond VMware's documented limits or the calibrated ranges


def _paper(key):
    """The paper's value (SI) of a ledger target of :mod:`vcperf.vmotion`."""
    return {t.key: t for t in vm.targets()}[key].paper_value()


def _ps():
    return {"params": vm.calibrate(), "settings": vm.settings()}



def trace_figure():
    """Figures 1-2 as a model: 6.7 stop-based vs 7.0 U1 loose 1 GB tracing.

    Left: guest throughput loss during the trace phase vs vCPUs (paper: ~65 % at 72 vCPUs on 6.7).
    Right: trace-install duration vs memory for 12 and 72 vCPUs (paper: "< 10 s" to "hundreds of s").
    """
    plt = plotting.pyplot()
    w = vm.workloads()
    fig, (a, b) = plt.subplots(1, 2, figsize=(9.6, 3.6))
    cpus = np.arange(1, 257)
    for r in vm.RELEASES:
        tp = vm.trace_phase(w["typical"].memory_bytes, cpus, r, **_ps())  # the loss does not depend on memory
        a.plot(cpus, 100 * tp.throughput_loss, color=RELEASE_COLOR[r], label=RELEASE_LABEL[r])
    a.plot([w["large_1tb"].vcpus], [100 * _paper("trace_drop_large_67")], label="paper: ~65 % (6.7, 72 vCPUs)",
           **PAPER_STYLE)
    a.set_xlabel("vCPUs")
    a.set_ylabel("guest throughput loss in trace phase (%)")
    a.set_ylim(0, 105)  # a loss can reach 100 %: room above it so the curve is not cut at the frame
    a.legend(fontsize=7, frameon=False)
    mem = np.geomspace(4 * GIB, 6 * 2**40, 60)
    for r in vm.RELEASES:
        for cpus_, ls in ((w["typical"].vcpus, "-"), (w["large_1tb"].vcpus, "--")):
            tp = vm.trace_phase(mem, cpus_, r, **_ps())
            b.loglog(mem / GIB, np.maximum(tp.duration_s, 1e-6), ls, color=RELEASE_COLOR[r],
                     label=f"{RELEASE_LABEL[r]}, {cpus_} vCPUs")
    bc = vm.bound_checks().set_index("quantity")
    b.axhline(bc.loc["trace_install_duration_low", "paper_bound"], color="k", lw=0.8, ls=":")
    b.axhline(bc.loc["trace_install_duration_high", "paper_bound"], color="k", lw=0.8, ls=":")
    b.text(5, bc.loc["trace_install_duration_low", "paper_bound"] * 1.15, "paper: < 10 s (small VMs)", fontsize=7)
    b.text(5, bc.loc["trace_install_duration_high", "paper_bound"] * 1.15, "paper: hundreds of s (up to 6 TB)",
           fontsize=7)
    b.set_xlabel("VM memory (GiB)")
    b.set_ylabel("trace install duration (s)")
    b.set_ylim(1e-6, 1e4)
    b.legend(fontsize=6.5, frameon=False, loc="lower right")
    plotting.finish(fig)
    return fig


def switchover_figure():
    """Figures 3-4 as a model: switch-over metadata and stall vs memory, 6.7 bitmaps vs 7.0 U1 list.

    The Oracle typical workload (25 GB SGA, 270,000 TPM) runs in VMs of every size; the paper's
    six-second 6.7 switch-over of the 1 TB VM is the marker.
    """
    plt = plotting.pyplot()
    w = vm.workloads()["typical"]
    mem = np.geomspace(8 * GIB, 6 * 2**40, 60)
    ws = np.minimum(w.working_set_bytes, mem)
    fig, (a, b) = plt.subplots(1, 2, figsize=(9.6, 3.6))
    for r in vm.RELEASES:
        m = vm.migrate(mem, w.vcpus, ws, w.baseline_tps, r, vm.testbed_link_bps(), n_vmknics=vm.testbed_vmknics(),
                       **_ps())
        a.loglog(mem / GIB, m.precopy.metadata_bytes, color=RELEASE_COLOR[r], label=RELEASE_LABEL[r])
        b.loglog(mem / GIB, m.switchover_time_s, color=RELEASE_COLOR[r], label=RELEASE_LABEL[r])
    a.set_xlabel("VM memory (GiB)")
    a.set_ylabel("switch-over metadata (bytes)")
    a.legend(fontsize=7, frameon=False)
    b.loglog([vm.workloads()["large_1tb"].memory_bytes / GIB], [_paper("switchover_stall_large_67")],
             label="paper: 6 s (6.7, 1 TB)", **PAPER_STYLE)
    b.set_xlabel("VM memory (GiB)")
    b.set_ylabel("switch-over stall (s)")
    b.legend(fontsize=7, frameon=False)
    plotting.finish(fig)
    return fig


def series_figure(name: str, releases=("6.7",), sample_s: float = 1.0, lead_s: float = 10.0,
                  paper_marks: bool = False, paper_averages: bool = False, paper_figure8: bool = False):
    """Guest throughput before, during and after vMotion (Figures 5-8 and 10) for one VM.

    Parameters
    ----------
    name : str
        A VM of :func:`vcperf.vmotion.workloads` (``"typical"``, ``"large_1tb"``, ...).
    releases : tuple of str
        Releases to draw.
    sample_s : float
        Sampling interval of the probe (s): 1 s in Figures 5-8, 0.5 s in Figure 10.
    lead_s : float
        Undisturbed time before the migration starts (s).
    paper_marks : bool
        Mark the paper's Figure 7 statements (trace ~65 %, pre-copy ~30 %, 6 s switch-over).
    paper_averages : bool
        Draw the paper's Figure 10 averages during vMotion (6.7 and 7.0 U1, from data/vmotion2020).
    paper_figure8 : bool
        Mark the paper's Figure 8 statements: average loss 50 % (6.7) and under 5 % (7.0 U1) over
        each migration, the 7.0 U1 migration ending at half the 6.7 time, the 10x shorter stall.
    """
    plt = plotting.pyplot()
    fig, ax = plt.subplots(figsize=(7.2, 4.4))
    migs = {r: vm.migrate_workload(name, r) for r in releases}
    end = lead_s + max(_until_recovered_s(m) for m in migs.values()) * 1.1 + lead_s
    for r, m in migs.items():
        t, tps = vm.throughput_series(m, sample_s, lead_s, end)
        ax.step(t, tps, where="post", color=RELEASE_COLOR[r], lw=1.2,
                label=f"{RELEASE_LABEL[r]}: model (avg during vMotion {float(m.average_throughput_tps):.0f} tps)")
    m0 = next(iter(migs.values()))
    x0 = float(m0.baseline_tps)
    if paper_marks:
        m = migs["6.7"]
        t_tr = lead_s + float(m.trace_time_s) / 2
        t_pc = lead_s + float(m.trace_time_s + m.precopy_time_s / 2)
        ax.plot([t_tr], [x0 * (1 - _paper("trace_drop_large_67"))], label="paper: trace phase ~65 % drop",
                **PAPER_STYLE)
        ax.plot([t_pc], [x0 * (1 - _paper("precopy_drop_large_67"))], label="paper: pre-copy ~30 % drop",
                **{**PAPER_STYLE, "marker": "s"})
        t_so = lead_s + float(m.trace_time_s + m.precopy_time_s)
        ax.errorbar([t_so + _paper("switchover_stall_large_67") / 2], [0.05 * x0],
                    xerr=[_paper("switchover_stall_large_67") / 2], fmt="none", ecolor="black", capsize=3,
                    label="paper: 6 s switch-over stall")
    if paper_figure8 and {"6.7", "7.0u1"} <= set(migs):
        t67 = float(migs["6.7"].migration_time_s)
        ax.hlines(x0 * (1 - _paper("avg_loss_large_67")), lead_s, lead_s + t67, colors="black", linestyles="--",
                  label="paper: 6.7 average loss 50 %")
        t70 = _paper("migration_time_ratio_large") * t67
        ax.hlines(x0 * (1 - _paper("avg_loss_large_70u1")), lead_s, lead_s + t70, colors="black", linestyles=":",
                  label="paper: 7.0 U1 average loss < 5 % (bound)")
        ax.plot([lead_s + t70], [x0 * 1.1], label="paper: 7.0 U1 ends at half the 6.7 time",
                **{**PAPER_STYLE, "marker": "v"})
        s67 = float(migs["6.7"].switchover_time_s)
        ax.errorbar([lead_s + t67 - s67 / 2], [0.05 * x0], xerr=[s67 / 2], fmt="none", ecolor="black", capsize=3,
                    label=f"model 6.7 stall {s67:.2g} s; paper: 7.0 U1 stall 10x shorter "
                          f"({s67 / _paper('switchover_improvement_large'):.2g} s)")
    if paper_averages:
        for r, key, ls in (("6.7", "typical_tps_67", "--"), ("7.0u1", "typical_tps_70u1", ":")):
            if r in migs:
                m = migs[r]
                ax.hlines(_paper(key), lead_s, lead_s + float(m.migration_time_s), colors="black",
                          linestyles=ls, label=f"paper: {RELEASE_LABEL[r]} average {_paper(key):.0f} tps")
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"Oracle throughput (transactions/s, {sample_s:g}-s samples)")
    ax.set_ylim(0, x0 * 1.25)
    # below the axes: inside, it covered the 7.0 U1 line (Figure 8) at the undisturbed throughput
    ax.legend(fontsize=6.5, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    plotting.finish(fig)
    return fig


def sizes_figure():
    """Figure 9 as a model: throughput during vMotion for Table 1's VMs, 6.7 vs 7.0 U1.

    Bars: average throughput during vMotion as % of the pre-vMotion throughput; line: the 7.0 U1 /
    6.7 ratio, with the paper's "as much as 19x" (monster VM) as the marker.
    """
    plt = plotting.pyplot()
    t1 = vm.table1_model()
    fig, a = plt.subplots(figsize=(7.2, 3.6))
    x = np.arange(len(t1))
    a.bar(x - 0.2, 100 * (1 - t1["avg_loss_67"]), 0.4, color=RELEASE_COLOR["6.7"], label=RELEASE_LABEL["6.7"])
    a.bar(x + 0.2, 100 * (1 - t1["avg_loss_70u1"]), 0.4, color=RELEASE_COLOR["7.0u1"],
          label=RELEASE_LABEL["7.0u1"])
    labels = [f"{c}\n{v} vCPU / {m:.0f} GiB"
              for c, v, m in zip(t1["config"], t1["vcpus"], t1["memory_GiB"], strict=True)]
    a.set_xticks(x, labels, fontsize=7)
    a.set_ylabel("throughput during vMotion (% of before)")
    a.set_ylim(0, 110)
    b = a.twinx()
    b.plot(x, t1["throughput_improvement"], "k-", lw=1.2, label="model: 7.0 U1 / 6.7")
    b.plot([x[-1]], [_paper("monster_improvement")], label="paper: up to 19x", **PAPER_STYLE)
    b.set_ylabel("improvement (x)")
    b.set_ylim(0, 1.15 * max(_paper("monster_improvement"), t1["throughput_improvement"].max()))
    b.grid(False)
    h1, l1 = a.get_legend_handles_labels()
    h2, l2 = b.get_legend_handles_labels()
    a.legend(h1 + h2, l1 + l2, fontsize=7, frameon=False, loc="upper left")
    plotting.finish(fig)
    return fig


def precopy_grid_figure(n_memory: int = 200, n_dirty: int = 200):
    """Pre-copy over a memory x dirty-rate grid at the testbed's 4 vmknics (one vectorized call).

    Left: migration time (pre-copy + switch-over) vs dirty rate for several memory sizes, with SDPS
    (solid) and without (dashed, cut where pre-copy no longer converges within the round cap).
    Right: map of the outcome: converged alone, converged thanks to SDPS, not converged even with SDPS
    (the legend lists the outcomes the grid holds; an empty one is named in the title).
    """
    v.integer("n_memory", n_memory, 4, 2000)
    v.integer("n_dirty", n_dirty, 2, 2000)
    plt = plotting.pyplot()
    mem = np.geomspace(16 * GIB, 4 * 2**40, n_memory)[:, None]
    dirty = np.geomspace(1e7, 4e10, n_dirty)[None, :]
    link = vm.testbed_link_bps()
    nics = vm.testbed_vmknics()
    with_sdps = vm.precopy(mem, dirty, link, mem, release="7.0u1", n_vmknics=nics, **_ps())
    without = vm.precopy(mem, dirty, link, mem, release="7.0u1", sdps=False, n_vmknics=nics, **_ps())
    fig, (a, b) = plt.subplots(1, 2, figsize=(9.6, 3.6))
    for i, c in zip(np.linspace(0, n_memory - 1, 4).astype(int), ("C0", "C1", "C2", "C3"), strict=True):
        a.loglog(dirty[0] / 1e9, with_sdps.migration_time_s[i], color=c, label=f"{mem[i, 0] / GIB:.0f} GiB")
        t = np.where(without.converged[i], without.migration_time_s[i], np.nan)
        a.loglog(dirty[0] / 1e9, t, "--", color=c)
    rate = float(with_sdps.transfer_rate_bytes_per_s.flat[0])
    a.axvline(rate / 1e9, color="k", lw=0.8, ls=":")
    # at the top, left of the line: the legend sits in the upper left, the curves rise at the right
    a.text(rate / 1e9 / 1.08, 0.97, "transfer rate", fontsize=7, ha="right", va="top",
           transform=a.get_xaxis_transform())
    a.set(xlabel="dirty rate (GB/s), working set = memory", ylabel="pre-copy + switch-over (s)")
    a.legend(fontsize=7, frameon=False, title="solid: with stun during page send (SDPS), dashed: without",
             title_fontsize=7, loc="upper left")
    state = np.where(without.converged, 0, np.where(with_sdps.converged, 1, 2))
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    colors = ("#1a9850", "#fee08b", "#d73027")
    names = ("converges", "needs SDPS", "not even with SDPS")
    b.pcolormesh(dirty[0] / 1e9, mem[:, 0] / GIB, state, shading="auto", cmap=ListedColormap(colors), vmin=-0.5,
                 vmax=2.5, rasterized=True)  # 40,000 cells: one image in the SVG, not 40,000 paths
    b.set_xscale("log")
    b.set_yscale("log")
    b.set_xlabel("dirty rate (GB/s)")
    b.set_ylabel("VM memory (GiB)")
    # a legend of the outcomes the grid holds; an empty one is said, not drawn as an unused colour
    held = [k for k in range(3) if np.any(state == k)]
    b.legend([Patch(color=colors[k]) for k in held], [names[k] for k in held], fontsize=7, loc="lower left",
             framealpha=0.9)
    empty = [names[k] for k in range(3) if k not in held]
    b.set_title("outcome of the pre-copy" + (f" (none here: {', '.join(empty)})" if empty else ""), fontsize=7)
    plotting.finish(fig)
    return fig


def tpcx_figure(replications: int = 200):
    """TPCx-HCI long tail (section "Impact of vMotion Performance on TPCx-HCI"), Monte Carlo.

    Left: failed "average < 90th percentile" checks per run, both releases, at the calibrated peak
    VM load; markers: the paper's means (148 and 4 over 18 runs). Right: invalid runs of 18 vs the
    peak VM load (the expectation, :func:`vcperf.vmotion.tpcx_expected`), with the paper's 14 (6.7 U3)
    and 2 (7.0 U1) at the calibrated load: both *predicted* (the peak load and the TPCx-HCI dirty
    scale are fitted to the failed-check counts, not to the invalid runs).
    """
    plt = plotting.pyplot()
    peak = vm.calibrate().tpcx.peak_vm_utilization
    setup = vm.tpcx_setup()
    runs = setup.runs
    fig, (a, b) = plt.subplots(1, 2, figsize=(9.6, 3.6))
    for k, r in enumerate(vm.RELEASES):
        res = vm.tpcx_monte_carlo(r, peak, setup, replications=replications, **_ps())
        counts = np.bincount(res.failed_checks.astype(int)) / res.failed_checks.size
        a.bar(np.arange(counts.size) + (k - 0.5) * 0.4, 100 * counts, 0.4, color=RELEASE_COLOR[r],
              label=f"{RELEASE_LABEL[r]}: model, mean {res.failed_checks.mean():.2f} per run")
    for key, ls in (("failed_checks_67u3", "--"), ("failed_checks_70u1", ":")):
        a.axvline(_paper(key) / runs, color="black", ls=ls, lw=1.0,
                  label=f"paper: mean of {_paper(key):.0f} over {runs} runs")
    a.set_xlim(-1, 30)
    a.set_xlabel("failed checks in one run")
    a.set_ylabel("share of simulated runs (%)")
    a.legend(fontsize=6.5, frameon=False)
    peaks = np.linspace(0.1, 0.99, 45)  # from well below the onset of failures to a saturated VM
    for r in vm.RELEASES:
        inv = [vm.tpcx_expected(r, u, setup, **_ps()).expected_invalid_runs(runs) for u in peaks]
        b.plot(peaks, inv, color=RELEASE_COLOR[r], label=RELEASE_LABEL[r])
    b.plot([peak], [_paper("invalid_runs_67u3")], label="paper: 14 of 18 (6.7 U3)", **PAPER_STYLE)
    b.plot([peak], [_paper("invalid_runs_70u1")], label="paper: 2 of 18 (7.0 U1)",
           **{**PAPER_STYLE, "marker": "s"})
    b.axvline(peak, color="k", lw=0.8, ls=":")
    b.set_xlabel("peak VM load (fraction of its vCPUs; calibrated: dotted)")
    b.set_ylabel(f"invalid runs of {runs}")
    b.legend(fontsize=6.5, frameon=False, loc="upper left")
    plotting.finish(fig)
    return fig


def tpcx_profile_figure():
    """Figure 11 as a model: migrations per minute and cluster throughput over a TPCx-HCI run.

    Bars: the modelled migrations per minute; the text's counts (about 20 in warm-up, 158 over ten load
    changes) are totals, compared with the model's in the title (not marked on the per-minute axis);
    lines: the cluster throughput each release leaves, as a share of the undisturbed load
    (:func:`vcperf.vmotion.tpcx_profile`).
    """
    plt = plotting.pyplot()
    p, setup = vm.calibrate(), vm.tpcx_setup()
    profs = {r: vm.tpcx_profile(r, p.tpcx.peak_vm_utilization, setup, params=p, settings=vm.settings())
             for r in vm.RELEASES}
    fig, a = plt.subplots(figsize=(9.6, 4.2))
    pr = profs["7.0u1"]
    a.bar(pr.minute + 0.5, pr.migrations, 1.0, color="tab:green", alpha=0.6, label="model: migrations per minute")
    a.axvline(pr.warmup_min, color="k", lw=0.8, ls=":")
    a.text(pr.warmup_min - 0.5, 0.4, "end of warm-up (assumed: one phase)", fontsize=7, rotation=90, va="center",
           ha="right",
           transform=a.get_xaxis_transform())
    warm = float(pr.migrations[pr.minute < pr.warmup_min].sum())
    run = float(pr.migrations[pr.minute >= pr.warmup_min].sum())
    # the paper's counts are totals, not per minute: stated in the title, not marked on the per-minute axis
    a.set_title(f"migrations in warm-up: model {warm:.0f}, paper about {setup.warmup_migrations:.0f}; "
                f"in the run: model {run:.0f}, paper {setup.migrations_per_run:.0f} over {setup.phases} load changes",
                fontsize=8)
    a.set_xlabel("time (min)")
    a.set_ylabel("migrations per minute")
    b = a.twinx()
    for r, prof in profs.items():
        b.plot(prof.minute + 0.5, 100 * prof.throughput_share, color=RELEASE_COLOR[r], lw=1.2,
               label=f"{RELEASE_LABEL[r]}: model throughput")
    b.set_ylabel("cluster throughput (% of undisturbed)")
    b.set_ylim(90, 101)  # the undisturbed 100 % clear of the frame
    a.set_ylim(0, 1.6 * float(pr.migrations.max()))  # the bars end below the throughput dips at 97-100 %
    b.grid(False)
    h1, l1 = a.get_legend_handles_labels()
    h2, l2 = b.get_legend_handles_labels()
    # below the axes: inside it covered the 6.7 dips and the run marker
    a.legend(h1 + h2, l1 + l2, fontsize=6.5, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.16),
             ncol=3)
    plotting.finish(fig)
    return fig


# --------------------------------------------------------------------------------------------------
# what-if panel
# --------------------------------------------------------------------------------------------------


def _whatif_inputs(memory_gib, vcpus, dirty_rate_mb_per_s, working_set_gib, link_speed_gbps, link_count,
                   streams_per_vmknic, rtt_ms, encryption_gb_per_core_s, concurrent):
    v.nonneg("dirty_rate_mb_per_s", dirty_rate_mb_per_s)
    v.nonneg("encryption_gb_per_core_s", encryption_gb_per_core_s)
    p = vm.calibrate()
    mem = memory_gib * GIB
    kw = {"n_vmknics": link_count, "streams_per_vmknic": streams_per_vmknic, "rtt_s": rtt_ms / 1e3,
          "encryption_cpu_s_per_byte": 1.0 / (encryption_gb_per_core_s * 1e9) if encryption_gb_per_core_s > 0 else 0.0,
          "concurrent": concurrent}
    return (mem, vcpus, min(working_set_gib * GIB, mem), dirty_rate_mb_per_s * 1e6 / p.dirty_bytes_per_transaction,
            link_speed_gbps * 1e9 * link_count, kw)


def migration_whatif_readout(memory_gib: float = 64.0, vcpus: int = 12, dirty_rate_mb_per_s: float = 1000.0,
                             working_set_gib: float = 25.0, link_speed_gbps: float = 40.0, link_count: int = 4,
                             release: str = "7.0u1", streams_per_vmknic: int = 1, rtt_ms: float = 0.0,
                             encryption_gb_per_core_s: float = 0.0, concurrent: int = 1,
                             downtime_target_s: float = 1.0, evacuate_vms: int = 8) -> dict:
    """The what-if numbers: migration time and downtime with 90 % intervals, and the link a target needs.

    Intervals: :func:`vcperf.protocol.with_interval` on :func:`vcperf.vmotion.times_s` (both readouts
    in one delta-method pass over the calibration's covariance). ``link_for_target_gbps``: smallest
    aggregate line rate (same vmknics and streams) with a switch-over stall within
    ``downtime_target_s`` (NaN: no link rate reaches it; ``link_for_target``, the
    :class:`vcperf.vmotion.LinkAnswer` of :func:`vcperf.vmotion.link_for_downtime`, names why).
    ``evacuation_s``: ``evacuate_vms`` such VMs moved off the host ``concurrent`` at a time
    (:func:`vcperf.vmotion.evacuation_time_s`; the two wave sizes in one vectorised call).
    ``sdps_throttle_fraction``, ``throttled_s``: the guest's SDPS throttle (share of its pace stunned
    away, and for how long) on this link; the link answer reports its own at its rate, never below
    VMware's 250 Mbit/s per concurrent migration without its ``"limit"`` flag.
    """
    mem, cpus, ws, tps, link_bps, kw = _whatif_inputs(memory_gib, vcpus, dirty_rate_mb_per_s, working_set_gib,
                                                       link_speed_gbps, link_count, streams_per_vmknic, rtt_ms,
                                                       encryption_gb_per_core_s, concurrent)
    args = (mem, cpus, ws, tps, release, link_bps)
    p, s = vm.calibrate(), vm.settings()
    r = protocol.with_interval(vm.times_s, *args, settings=s, **kw)
    out = {name: (float(r.value[i]), float(r.low[i]), float(r.high[i]))
           for i, name in enumerate(("migration_time_s", "switchover_time_s"))}
    out["migration"] = vm.migrate(*args, params=p, settings=s, **kw)
    out["sdps_throttle_fraction"] = float(out["migration"].sdps_throttle_fraction)
    out["throttled_s"] = float(out["migration"].throttled_s)
    out["link_for_target"] = vm.link_for_downtime(downtime_target_s, mem, cpus, ws, tps, release, params=p,
                                                  settings=s, **kw)
    out["link_for_target_gbps"] = out["link_for_target"].link_bps / 1e9
    n = int(evacuate_vms)
    k = min(int(concurrent), n)
    waves = np.array(sorted({k, n % k} - {0}), dtype=float)
    t_waves = np.atleast_1d(vm.migrate(*args, params=p, settings=s, **{**kw, "concurrent": waves}).migration_time_s)
    by_size = dict(zip(waves.astype(int).tolist(), t_waves.tolist(), strict=True))
    out["evacuation_s"] = vm.evacuation_time_s(n, k, by_size.__getitem__)
    return out


def _until_recovered_s(m) -> float:
    """Seconds from the start of a migration until the guest is back to full speed: the migration and
    its post-switch-over phase (a figure's time axis must show both)."""
    return float(m.migration_time_s) + float(m.post_switchover_time_s)


class _WhatifPanel(PanelFigure):
    """The what-if figure (guest throughput of both releases), built once; :meth:`draw` moves the lines."""

    def __init__(self):
        super().__init__((6.4, 3.4))
        fig, ax = self.fig, self.ax = self.fig, self.axes
        self.lines = {r: ax.step([0.0, 1.0], [100.0, 100.0], where="post", color=RELEASE_COLOR[r],
                                 label=RELEASE_LABEL[r])[0] for r in vm.RELEASES}
        ax.set_xlabel("time (s)")
        ax.set_ylabel("guest throughput (% of before)")
        ax.set_ylim(0, 110)
        # above the axes, in one row: inside them it covered the switch-over dips of one release or the other
        ax.legend(fontsize=7, frameon=False, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2)
        # the result's flags (inputs beyond VMware's limits or the calibrated ranges), in amber
        self.flags = ax.text(0.01, 0.03, "", transform=ax.transAxes, fontsize=7, color=AMBER, ha="left",
                             va="bottom", zorder=5, bbox={"facecolor": "white", "alpha": 0.85, "edgecolor": AMBER})
        plotting.fast_layout(fig, top=0.91)
        self.keep_background([*self.lines.values(), self.flags])

    def draw(self, migs, tps, release, flags=()) -> bytes:
        self.flags.set_text("\n".join(f"\u26a0 {f}" for f in flags))
        shown = max(_until_recovered_s(m) for m in migs.values())
        lead = 0.1 * shown + 1.0
        end = 2 * lead + shown
        for r, m in migs.items():
            # as a share of the baseline (the series is linear in it): an idle VM (0 tps) has a share too
            t, x = vm.throughput_series(dataclasses.replace(m, baseline_tps=np.float64(1.0)), 0.5, lead, end)
            line = self.lines[r]
            line.set_data(np.concatenate([[0.0], t]), np.concatenate([[100.0], 100 * x]))
            line.set_linewidth(2.4 if r == release else 1.0)
            line.set_alpha(1.0 if r == release else 0.6)
        self.ax.set_xlim(0.0, end)
        return self.png(key=release)


def _release_order_note(migs) -> str:
    """The mechanism when 7.0 U1 reads worse than 6.7 (:func:`vcperf.vmotion.migrate`, "Release order")."""
    old, new = migs["6.7"], migs["7.0u1"]
    notes = []
    if float(new.average_loss) > float(old.average_loss) * (1 + 1e-9):
        notes.append("7.0 U1's average loss is higher here because its migration is shorter (no stop-based "
                     "trace phase, no destination zeroing), so the same switch-over stall weighs more in the "
                     "average; the work it loses is not larger")
    if float(new.switchover_time_s) > float(old.switchover_time_s) * (1 + 1e-9):
        notes.append("7.0 U1's downtime is longer here because its guest, slowed less by tracing, dirties "
                     "memory faster, so more is left at the last round boundary")
    return "".join(f"; {n}" for n in notes)


def _rounds(rounds) -> str:
    """The pre-copy's round count (-1: open-ended, no convergence)."""
    n = int(np.ravel(rounds)[0])
    return "open-ended rounds" if n < 0 else f"{n} round{'' if n == 1 else 's'}"


def _flags_note(flags) -> str:
    """The result's flags (``"unsupported: ..."``, ``"extrapolated: ..."``), one after another."""
    return "".join(f"; \u26a0 {f}" for f in flags)


def _throttle_note(m) -> str:
    """The guest's SDPS throttle of a scalar migration (``""`` when SDPS is not engaged)."""
    frac, secs = float(np.ravel(m.sdps_throttle_fraction)[0]), float(np.ravel(m.throttled_s)[0])
    return "" if frac <= 0.0 else (f", stun during page send (SDPS) engaged: it throttles the guest (vCPUs stunned "
                                   f"{fmt_percent(frac)} of the time) for {fmt_duration(secs)}")


def _link_note(ans, target: str, vcpus, p) -> str:
    """What link a downtime target needs (:class:`vcperf.vmotion.LinkAnswer`) and what it costs there."""
    if not ans.feasible:
        if ans.bottleneck == "checkpoint":
            ckpt = float(vm.switchover_checkpoint_s(vcpus, params=p))
            return (f"no link meets a stall under {target}: below the switch-over checkpoint "
                    f"({fmt_duration(ckpt)}: device state and {vcpus:g} vCPUs stopped and resumed, whatever the "
                    f"link)")
        return f"no link rate brings the stall under {target}: {ans.reason.removeprefix('infeasible: ')}"
    limit = [f for f in ans.flags if f.kind == "limit"]
    if limit:
        head = (f"a stall under {target} needs {fmt_bps(ans.link_bps)} in all: VMware's minimum "
                f"({fmt_bps(limit[0].limit)}), the model alone would meet it with "
                f"{'at most ' if ans.target_only_bps <= 1e8 * (1 + 1e-9) else ''}{fmt_bps(ans.target_only_bps)}")
    else:
        head = f"a stall under {target} needs {fmt_bps(ans.link_bps)} in all"
    cost = f"migration {fmt_duration(ans.migration_time_s)} there"
    if ans.sdps_throttle_fraction > 0:
        cost += (f", guest throttled by SDPS {fmt_percent(ans.sdps_throttle_fraction)} for "
                 f"{fmt_duration(ans.throttled_s)}")
    return f"{head} ({cost})"


@fast_redraw
def migration_whatif_update(memory_gib: float = 64.0, vcpus: int = 12, dirty_rate_mb_per_s: float = 1000.0,
                            working_set_gib: float = 25.0, link_speed_gbps: float = 40.0, link_count: int = 4,
                            release: str = "7.0u1", streams_per_vmknic: int = 1, rtt_ms: float = 0.0,
                            encryption_gb_per_core_s: float = 0.0, concurrent: int = 1,
                            downtime_target_s: float = 1.0, evacuate_vms: int = 8):
    """Model + redraw for the migration what-if: returns ``(readout, png_bytes)``.

    Link rate and dirty rate are set separately (the dirty rate sets the guest's transactions/s
    through the calibrated bytes per transaction); vmknics (one NIC each), streams per vmknic, RTT,
    encryption (AES rate of one core, 0 = off), concurrent migrations sharing the NICs, and a
    downtime target. The guest's throughput is drawn as % of the undisturbed throughput for both
    releases (the chosen one thick), sampled every 0.5 s; the figure is kept between calls and only
    the two lines and the time axis move. Durations read in the unit people use (µs, ms, s, min, h)
    with their 90 % intervals.
    """
    mem, cpus, ws, tps, link_bps, kw = _whatif_inputs(memory_gib, vcpus, dirty_rate_mb_per_s, working_set_gib,
                                                       link_speed_gbps, link_count, streams_per_vmknic, rtt_ms,
                                                       encryption_gb_per_core_s, concurrent)
    p, s = vm.calibrate(), vm.settings()
    ro = migration_whatif_readout(memory_gib, vcpus, dirty_rate_mb_per_s, working_set_gib, link_speed_gbps,
                                  link_count, release, streams_per_vmknic, rtt_ms, encryption_gb_per_core_s,
                                  concurrent, downtime_target_s, evacuate_vms)
    other = [r for r in vm.RELEASES if r != release][0]
    migs = {release: ro["migration"],
            other: vm.migrate(mem, cpus, ws, tps, other, link_bps, params=p, settings=s, **kw)}
    migs = {r: migs[r] for r in vm.RELEASES}
    m = migs[release]
    png = _WhatifPanel.shared().draw(migs, tps, release, m.flags)
    pc = m.precopy
    conv = "converged" if bool(np.all(pc.converged)) else str(np.ravel(pc.reason)[0])
    sdps = _throttle_note(m)
    target = fmt_duration(downtime_target_s)
    need_txt = _link_note(ro["link_for_target"], target, cpus, p)
    rtt_txt = (f"RTT {fmt_duration(rtt_ms / 1e3)}: vMotion's socket buffers follow the bandwidth-delay product, "
               f"so it lengthens the stall (the switch-over's 1.5 round trips), not the rate" if rtt_ms > 0
               else "RTT 0 ms")
    aes_txt = ("no encryption" if encryption_gb_per_core_s <= 0 else
               f"AES {fmt_bytes_per_s(encryption_gb_per_core_s * 1e9)} per core")
    readout = (
        f"{RELEASE_LABEL[release]}: {memory_gib:.4g} GiB, {vcpus} vCPUs, "
        f"{link_count} x {fmt_bps(link_speed_gbps * 1e9)} "
        f"({link_count * streams_per_vmknic:g} stream{'' if link_count * streams_per_vmknic == 1 else 's'}"
        f"{', those on one NIC contend for it' if streams_per_vmknic > 1 else ''}, {rtt_txt}, {aes_txt}"
        f"; {fmt_bytes_per_s(float(pc.transfer_rate_bytes_per_s))}"
        f"): "
        f"migration {fmt_band(*ro['migration_time_s'], interval=protocol.INTERVAL)} "
        f"(trace {fmt_duration(float(m.trace_time_s))}, "
        f"pre-copy {fmt_duration(float(m.precopy_time_s))} in {_rounds(pc.rounds)}), "
        f"downtime {fmt_band(*ro['switchover_time_s'], interval=protocol.INTERVAL)}, {conv}{sdps}; "
        f"average throughput loss {fmt_percent(float(m.average_loss))}; {need_txt}; evacuating {evacuate_vms} such "
        f"VMs {concurrent} at a time takes {fmt_duration(ro['evacuation_s'])}"
        f"{_release_order_note(migs)}{_flags_note(m.flags)}"
    )
    return readout, png


def migration_whatif(memory_gib: float = 64.0, vcpus: int = 12, dirty_rate_mb_per_s: float = 1000.0,
                     working_set_gib: float = 25.0, link_speed_gbps: float = 40.0, link_count: int = 4,
                     release: str = "7.0u1", streams_per_vmknic: int = 1, rtt_ms: float = 0.0,
                     encryption_gb_per_core_s: float = 0.0, concurrent: int = 1, downtime_target_s: float = 1.0,
                     evacuate_vms: int = 8):
    """The vMotion what-if panel: VM, dirty rate, links and streams, RTT, encryption, sharing, target."""
    import ipywidgets as w

    # the ranges of the notebook's parameters cell (notebooks/vmotion_precopy.py): 2 GiB - 6 TiB, 0 (idle) - 5 GB/s
    mem = w.FloatLogSlider(value=memory_gib, base=2, min=1, max=math.log2(6144), step=typed_step(2),
                           description="memory GiB", readout_format=TYPED_FORMAT)
    cpus = w.IntSlider(value=vcpus, min=1, max=1024, description="vCPUs")  # past 7.0 U1's 768: flagged
    dirty = w.FloatLogSlider(value=max(dirty_rate_mb_per_s, 0.1), base=10, min=-1, max=math.log10(5000),
                             step=typed_step(),
                             description="dirty MB/s", readout_format=TYPED_FORMAT)
    idle = w.Checkbox(value=dirty_rate_mb_per_s == 0, description="idle VM (dirty rate 0)")
    wset = w.FloatLogSlider(value=working_set_gib, base=2, min=-2, max=math.log2(6144), step=typed_step(2),
                            description="working set GiB", readout_format=TYPED_FORMAT)
    speed = w.Dropdown(options=[1.0, 10.0, 25.0, 40.0, 100.0], value=link_speed_gbps, description="link Gbit/s")
    count = w.IntSlider(value=link_count, min=1, max=8, description="vmknics")
    rel = w.Dropdown(options=[(RELEASE_LABEL[r], r) for r in vm.RELEASES], value=release, description="release")
    streams = w.IntSlider(value=streams_per_vmknic, min=1, max=8, description="streams/vmknic")
    rtt = w.FloatSlider(value=rtt_ms, min=0.0, max=2 * vm.MAX_SUPPORTED_RTT_S * 1e3, step=1.0, description="RTT ms",
                        readout_format=TYPED_FORMAT)
    enc = w.FloatSlider(value=encryption_gb_per_core_s, min=0.0, max=10.0, step=0.25,
                        description="AES GB/s/core (0 off)", readout_format=TYPED_FORMAT)
    conc = w.IntSlider(value=concurrent, min=1, max=8, description="concurrent")
    target = w.FloatSlider(value=downtime_target_s, min=0.1, max=5.0, step=0.05, description="downtime target s",
                           readout_format=TYPED_FORMAT)
    evac = w.IntSlider(value=evacuate_vms, min=1, max=64, description="VMs to evacuate")
    # wider labels: "AES GB/s/core (0 off)" and "downtime target s" were cut at the default 110 px
    style_sliders(mem, cpus, dirty, wset, count, streams, rtt, enc, conc, target, evac, description_width="150px",
                  width="470px")  # the app's control column (widgets.CONTROLS_WIDTH_PX)
    for d in (speed, rel):
        d.style.description_width = "150px"

    def update(m, c, d, is_idle, *rest):  # the checkbox sets the dirty rate to 0 (a log slider cannot)
        return migration_whatif_update(m, c, 0.0 if is_idle else d, *rest)

    return whatif_panel([mem, cpus, dirty, idle, wset, speed, count, rel, streams, rtt, enc, conc, target, evac],
                        update)


#: The what-if panels of the study, by tab title (the app's tabs: :func:`vcperf.views.panels`).
PANELS = {"vMotion": migration_whatif}
