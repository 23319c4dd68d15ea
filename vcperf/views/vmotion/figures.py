"""The paper's vMotion figures as a model (``004_ea13268657e6b3b0.txt``): Figures 1-11 and the pre-copy grid.

Every figure draws the model (lines) and the paper's stated numbers (black markers) from
:mod:`vcperf.vmotion`.
"""

from __future__ import annotations

import numpy as np

from vcperf import _validate as v
from vcperf import plotting
from vcperf import vmotion as vm
from vcperf.plotting import PAPER_STYLE
from vcperf.views.vmotion.common import GIB, RELEASE_COLOR, RELEASE_LABEL, model_kw, paper_value, until_recovered_s


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
        tp = vm.trace_phase(w["typical"].memory_bytes, cpus, r, **model_kw())  # the loss does not depend on memory
        a.plot(cpus, 100 * tp.throughput_loss, color=RELEASE_COLOR[r], label=RELEASE_LABEL[r])
    a.plot([w["large_1tb"].vcpus], [100 * paper_value("trace_drop_large_67")], label="paper: ~65 % (6.7, 72 vCPUs)",
           **PAPER_STYLE)
    a.set_xlabel("vCPUs")
    a.set_ylabel("guest throughput loss in trace phase (%)")
    a.set_ylim(0, 105)  # a loss can reach 100 %: room above it so the curve is not cut at the frame
    a.legend(fontsize=7, frameon=False)
    mem = np.geomspace(4 * GIB, 6 * 2**40, 60)
    for r in vm.RELEASES:
        for cpus_, ls in ((w["typical"].vcpus, "-"), (w["large_1tb"].vcpus, "--")):
            tp = vm.trace_phase(mem, cpus_, r, **model_kw())
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
                       **model_kw())
        a.loglog(mem / GIB, m.precopy.metadata_bytes, color=RELEASE_COLOR[r], label=RELEASE_LABEL[r])
        b.loglog(mem / GIB, m.switchover_time_s, color=RELEASE_COLOR[r], label=RELEASE_LABEL[r])
    a.set_xlabel("VM memory (GiB)")
    a.set_ylabel("switch-over metadata (bytes)")
    a.legend(fontsize=7, frameon=False)
    b.loglog([vm.workloads()["large_1tb"].memory_bytes / GIB], [paper_value("switchover_stall_large_67")],
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
        each migration, the 7.0 U1 migration ending at half the 6.7 time, the stall an order of magnitude
        shorter (3.16-31.6x).
    """
    plt = plotting.pyplot()
    fig, ax = plt.subplots(figsize=(7.2, 4.4))
    migs = {r: vm.migrate_workload(name, r) for r in releases}
    end = lead_s + max(until_recovered_s(m) for m in migs.values()) * 1.1 + lead_s
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
        ax.plot([t_tr], [x0 * (1 - paper_value("trace_drop_large_67"))], label="paper: trace phase ~65 % drop",
                **PAPER_STYLE)
        ax.plot([t_pc], [x0 * (1 - paper_value("precopy_drop_large_67"))], label="paper: pre-copy ~30 % drop",
                **{**PAPER_STYLE, "marker": "s"})
        t_so = lead_s + float(m.trace_time_s + m.precopy_time_s)
        ax.errorbar([t_so + paper_value("switchover_stall_large_67") / 2], [0.05 * x0],
                    xerr=[paper_value("switchover_stall_large_67") / 2], fmt="none", ecolor="black", capsize=3,
                    label="paper: 6 s switch-over stall")
    if paper_figure8 and {"6.7", "7.0u1"} <= set(migs):
        t67 = float(migs["6.7"].migration_time_s)
        ax.hlines(x0 * (1 - paper_value("avg_loss_large_67")), lead_s, lead_s + t67, colors="black", linestyles="--",
                  label="paper: 6.7 average loss 50 %")
        t70 = paper_value("migration_time_ratio_large") * t67
        ax.hlines(x0 * (1 - paper_value("avg_loss_large_70u1")), lead_s, lead_s + t70, colors="black", linestyles=":",
                  label="paper: 7.0 U1 average loss < 5 % (bound)")
        ax.plot([lead_s + t70], [x0 * 1.1], label="paper: 7.0 U1 ends at half the 6.7 time",
                **{**PAPER_STYLE, "marker": "v"})
        s67 = float(migs["6.7"].switchover_time_s)
        ax.errorbar([lead_s + t67 - s67 / 2], [0.05 * x0], xerr=[s67 / 2], fmt="none", ecolor="black", capsize=3,
                    label=f"model 6.7 stall {s67:.2g} s; paper: 7.0 U1 stall an order of magnitude shorter "
                          f"({s67 / paper_value('switchover_improvement_large_high'):.2g}-"
                          f"{s67 / paper_value('switchover_improvement_large_low'):.2g} s)")
    if paper_averages:
        for r, key, ls in (("6.7", "typical_tps_67", "--"), ("7.0u1", "typical_tps_70u1", ":")):
            if r in migs:
                m = migs[r]
                ax.hlines(paper_value(key), lead_s, lead_s + float(m.migration_time_s), colors="black",
                          linestyles=ls, label=f"paper: {RELEASE_LABEL[r]} average {paper_value(key):.0f} tps")
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
    b.plot([x[-1]], [paper_value("monster_improvement")], label="paper: up to 19x", **PAPER_STYLE)
    b.set_ylabel("improvement (x)")
    b.set_ylim(0, 1.15 * max(paper_value("monster_improvement"), t1["throughput_improvement"].max()))
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
    with_sdps = vm.precopy(mem, dirty, link, mem, release="7.0u1", n_vmknics=nics, **model_kw())
    without = vm.precopy(mem, dirty, link, mem, release="7.0u1", sdps=False, n_vmknics=nics, **model_kw())
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
    a.set_xlabel("dirty rate (GB/s), working set = memory")
    a.set_ylabel("pre-copy + switch-over (s)")
    a.legend(fontsize=7, frameon=False, title="stun during page send (SDPS):\nsolid with, dashed without",
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
        res = vm.tpcx_monte_carlo(r, peak, setup, replications=replications, **model_kw())
        counts = np.bincount(res.failed_checks.astype(int)) / res.failed_checks.size
        a.bar(np.arange(counts.size) + (k - 0.5) * 0.4, 100 * counts, 0.4, color=RELEASE_COLOR[r],
              label=f"{RELEASE_LABEL[r]}: model, mean {res.failed_checks.mean():.2f} per run")
    for key, ls in (("failed_checks_67u3", "--"), ("failed_checks_70u1", ":")):
        a.axvline(paper_value(key) / runs, color="black", ls=ls, lw=1.0,
                  label=f"paper: mean of {paper_value(key):.0f} over {runs} runs")
    a.set_xlim(-1, 30)
    a.set_xlabel("failed checks in one run")
    a.set_ylabel("share of simulated runs (%)")
    a.legend(fontsize=6.5, frameon=False)
    peaks = np.linspace(0.1, 0.99, 45)  # from well below the onset of failures to a saturated VM
    for r in vm.RELEASES:
        inv = [vm.tpcx_expected(r, u, setup, **model_kw()).expected_invalid_runs(runs) for u in peaks]
        b.plot(peaks, inv, color=RELEASE_COLOR[r], label=RELEASE_LABEL[r])
    b.plot([peak], [paper_value("invalid_runs_67u3")], label="paper: 14 of 18 (6.7 U3)", **PAPER_STYLE)
    b.plot([peak], [paper_value("invalid_runs_70u1")], label="paper: 2 of 18 (7.0 U1)",
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
