# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # vMotion in vSphere 7.0 U1 — pre-copy, page tracing, switch-over and guest impact
#
# The paper (vMotion Innovations in VMware vSphere 7.0 U1, 2020). vMotion copies a
# running VM's memory iteratively: a *trace phase* write-protects guest pages, *pre-copy* rounds send all
# memory and then the pages dirtied meanwhile until the rest fits the 0.5-s switch-over goal, and a
# *switch-over* stalls the guest to send the last pages, the device checkpoint and metadata. vcperf models
# each mechanism (`vcperf.vmotion`): the transfer (one TCP stream and one CPU-bound worker per vmknic,
# capped by the NICs' line rate, the TCP window at an RTT, encryption CPU, sharing among concurrent
# migrations), the pre-copy rounds of a guest whose dirty pages saturate at its hot working set, with
# SDPS throttling on the re-send rounds and a stop rule that budgets the switch-over, 6.7's stop-based
# 4 KB tracing against 7.0 U1's loose 1 GB tracing, zero pages a freshly booted guest does not send, full bitmaps against
# compacted page lists, the Oracle guest's throughput through all phases, and the TPCx-HCI response-time
# checks with per-VM dirty rates (a seeded Monte Carlo and its expectation). The ledger follows the study
# protocol (`vcperf.protocol`): nine parameters are *fitted* to eleven printed numbers (seven to nine
# numbers of Figures 7, 8 and 10, Figure 8's "order of magnitude" as a range; the TPCx-HCI peak VM load and
# dirty scale to the 148 and 4 failed checks), each with a *loo* (leave-one-out) row; two numbers are
# *predicted* (never fitted: Figure 9's 19x, VMware's three streams on one NIC), seven are *derived* (restatements and ratios of other printed numbers, and the TPCx-HCI invalid
# runs, Poisson arithmetic on the fitted failed checks: shown but not counted)
# and ten *bounds* ("less than", "several", the two ends of "an order of magnitude") are pass/fail. One
# number is not from the paper: a vMotion
# stream's worker saturates its core at 18 Gb/s (VMware KB 323379, `data/vmotion2020/external_*`), a
# documented fixed input.

# %% tags=["parameters"]
interactive = True  # -: show the what-if panel (regeneration runs with False)
output_dir = "../build"  # path: folder that receives figures/ and tables/
whatif_memory_gib = 64.0  # GiB, range [2, 6144]: guest memory of the what-if VM
whatif_vcpus = 12  # count, range [1, 1024]: vCPUs of the what-if VM (past 7.0 U1's 768: flagged)
whatif_dirty_rate_mb_per_s = 1000.0  # MB/s, range [0, 5000]: rate at which the guest dirties distinct memory
whatif_working_set_gib = 25.0  # GiB, range [0.25, whatif_memory_gib]: writable working set (Oracle: the SGA)
whatif_link_speed_gbps = 40.0  # Gbps, one of [1.0, 10.0, 25.0, 40.0, 100.0]: speed of one vMotion NIC
whatif_link_count = 4  # count, range [1, 8]: vMotion vmknics, one NIC each
whatif_release = "7.0u1"  # -, one of ["6.7", "7.0u1"]: release drawn thick in the what-if panel
whatif_streams_per_vmknic = 1  # count, range [1, 8]: vMotion streams per vmknic (1 in 6.7 and 7.0 U1)
whatif_rtt_ms = 0.0  # ms, range [0, 300]: round-trip time between the hosts (past the supported 150: flagged)
whatif_encryption_gb_per_core_s = 0.0  # GB/s, range [0, 10]: AES rate of one core for encrypted vMotion (0: off)
whatif_concurrent = 1  # count, range [1, 8]: migrations sharing the vMotion NICs at once
whatif_downtime_target_s = 1.0  # s, range [0.1, 5]: switch-over stall target ("what link do I need?")
whatif_evacuate_vms = 8  # count, range [1, 64]: VMs like this one to move off the host (evacuation time)

# %%
import vcperf.params; vcperf.params.check_notebook_parameters(globals(), "vmotion_precopy")  # noqa: E702, I001 - checks the parameters above, however the notebook is run
# %matplotlib inline
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from vcperf import data, fidelity, network, plotting, prose, protocol
from vcperf import vmotion as vm
from vcperf.views import vmotion as views
from vcperf.views.format import fmt_duration
from vcperf.vmotion.calibration import calibrate_touched
from vcperf.vmotion.targets import touched_memory, touched_range_bytes

NOTEBOOK = "vmotion_precopy"
plotting.use_style()

# %% [markdown]
# ## Calibrated parameters and leave-one-out
#
# Fitted by `vm.calibrate()` (least squares on relative errors, log-scaled, then the TPCx-HCI peak VM load
# and dirty scale as the roots of the expected 6.7 U3 and 7.0 U1 failed checks); the guest slice between
# 6.7 install phases, the 0.5-s page goal, the 1-s switch-over goal and the external stream ceiling are
# settings (`vm.settings()`), not parameters. Nine parameters, eleven fitted numbers from six runs,
# Jacobian rank 9: every parameter is determined by the fit (the relative standard deviations are printed
# below the tables). The bytes dirtied per
# transaction have local minima in several regimes (one pre-copy round or several); every fit, full or
# leave-one-out, starts from nine values (100 B to 1 MB, half-decade steps) and keeps the best
# (deterministic). 6.7's destination zeroing is not a parameter (see below).
#
# "By an order of magnitude" (Figure 8's switch-over gain) is a range, not the number 10: a factor that
# rounds to 10 on a decade scale, 3.16-31.6 (two bound rows). Fitted as exactly 10 it set the checkpoint
# time, and through it every downtime, by a number the paper does not print; it is fitted as the range
# (its miss counted in half-decades: at either end it weighs as a printed number missed by the relative
# error `vcperf.vmotion.calibration.RANGE_EDGE_RESIDUAL`) and judged against the range.
#
# Leave-one-out holds out one number at a time. Held out a whole run at a time (the large VM's 6.7 run, its
# 7.0 U1 run, the typical VM's 7.0 U1 run: the study's holdouts, `vm.HOLDOUTS`, scored as the ledger's
# second test) the large VM's numbers are *not estimable*, which hid that its two switch-over numbers are
# not predicted by the rest: held out alone, each comes out as the other and the typical VM's runs set
# it (the checkpoint time is set by these numbers together). The other large-VM and typical-VM numbers
# are predicted much closer. Each failed-check count alone
# sets its TPCx-HCI parameter, so its row is *not estimable* (NaN, counted below). The errors and the
# refits' values are printed below the tables.
#
# Where the halved migration time comes from. The paper credits the destination's memory allocation path
# (6.7 zeroes every large page it allocates) for the large VM, and tracing plus allocation for the typical
# one. In the model the 6.7 trace phase does the halving. The paper's own numbers force this: with the large
# VM's phase losses (65 % trace, 30 % pre-copy), its 6 s stall, its 50 % average loss and a pre-copy of at
# least 1 TiB at the streams' rate, the average fixes the trace phase relative to the pre-copy (below).
# 7.0 U1 has almost no trace phase, so it already takes about half the time; zeroing that slowed 6.7's
# pre-copy would need a still longer trace phase to keep the 50 % average, and would break the halving. A
# fit that includes a zeroing cost drives it to 0, so it is a what-if input of `vm.precopy`
# (`zeroing_cpu_s_per_byte`, default 0), not a parameter. The typical VM of Figures 5 and 10 is Test 1's
# freshly booted one (`"typical_fresh"`): the paper contrasts it with the large VMs, whose memory "had been
# touched and modified before vMotion", unlike "a freshly booted VM that is assigned zero pages", which
# vMotion does not send. The model sends its Oracle SGA (25 GB) and treats the rest as zero pages (the paper
# prints no touched size: a modelling assumption); Table 1's VMs were pre-touched and send all memory. The
# assumption is a range, from the SGA to all 64 GB; the fit at its other end (`calibrate_touched`, below)
# shows how much it moves: Figure 10's throughputs and halved time constrain it (the all-touched fit
# misses them more), and Figure 8's range and "< 5 %" bound rule out that end. The what-if readout's
# bands cover both fits.

# %%
params = vm.parameter_table()
plotting.save_table(params, output_dir, NOTEBOOK, "parameters")
display(params)
loo = vm.leave_one_out()
plotting.save_table(loo, output_dir, NOTEBOOK, "leave_one_out")
display(loo[["key", "group", "n_held_out", "paper_value", "model_value", "rel_error", "note"]])

# %%
import dataclasses  # noqa: E402

P, S = vm.calibrate(), vm.settings()
_sd = params.set_index("name")["sd_relative"]
_le = loo.set_index("key")
_held = {"large_70u1": ("migration_time_ratio_large", "switchover_improvement_large"),
         "typical_70u1": ("typical_tps_70u1", "typical_migration_time_reduction")}
_refit = {g: vm.calibrate(fit_on=[k for k in vm.FIT_KEYS if k not in keys]) for g, keys in _held.items()}
_targets = {t.key: t for t in vm.targets()}
_gain = _targets["switchover_improvement_large"].model(P)
_lo_hi = (_targets["switchover_improvement_large_low"].paper_value(),
          _targets["switchover_improvement_large_high"].paper_value())
_alt = calibrate_touched()
with touched_memory(touched_range_bytes()[1]):
    _alt_gain = _targets["switchover_improvement_large"].model(_alt)
_large = vm.migrate_workload("large_1tb", "6.7")
_rate = float(_large.precopy.transfer_rate_bytes_per_s)
_paper = {k: fidelity_row["paper_value"] for k, fidelity_row in _le.iterrows()}
_min_precopy = vm.workloads()["large_1tb"].memory_bytes / _rate
# the paper's average loss L over trace (T), pre-copy (Pc) and stall (St, a full loss) fixes T / Pc:
# L (T + Pc + St) = lt T + lp Pc + St
_L, _lt, _lp, _st = (_paper["avg_loss_large_67"], _paper["trace_drop_large_67"], _paper["precopy_drop_large_67"],
                     _paper["switchover_stall_large_67"])
_trace_needed = (_L * (_min_precopy + _st) - _lp * _min_precopy - _st) / (_lt - _L)
_fid_avg = fidelity.table(["vmotion2020"]).set_index(["key", "kind"]).loc[("avg_loss_large_67", "fitted")]
display(Markdown(
    f"Relative standard deviations of the parameters: {prose.pct(_sd.min())}-{prose.pct(_sd.max())} "
    f"(`{_sd.idxmax()}` the loosest). The estimable leave-one-out rows have a median error of "
    f"{prose.pct(_le['rel_error'].abs().median(), 1)} ({int(_le['estimable'].sum())} of {len(_le)} estimable). "
    f"Held out, the large VM's 7.0 U1 run leaves a refitted checkpoint time of "
    f"{_refit['large_70u1'].checkpoint_time_s:.2g} s (calibrated: {P.checkpoint_time_s:.2f} s). Without the typical "
    f"VM's 7.0 U1 run the refit settles at {_refit['typical_70u1'].dirty_bytes_per_transaction / 1e3:.0f} kB per "
    f"transaction (calibrated: {P.dirty_bytes_per_transaction / 1e3:.0f} kB): its 7.0 U1 throughput comes out "
    f"{prose.pct(_le.loc['typical_tps_70u1', 'rel_error'], signed=True)} and its time reduction "
    f"{prose.pct(_le.loc['typical_migration_time_reduction', 'rel_error'], signed=True)}. Held out alone, the "
    f"large VM's 6.7 switch-over comes out {_le.loc['switchover_stall_large_67', 'model_value']:.1f} s (paper "
    f"{_paper['switchover_stall_large_67']:g} s, "
    f"{prose.pct(_le.loc['switchover_stall_large_67', 'rel_error'], signed=True)}) and its 7.0 U1 switch-over gain "
    f"{prose.times(_le.loc['switchover_improvement_large', 'model_value'])} (paper: an order of magnitude, "
    f"{prose.times(_lo_hi[0])}-{prose.times(_lo_hi[1])}). Fitted as that range, the gain is {prose.times(_gain)} "
    f"and the checkpoint time {P.checkpoint_time_s:.2g} s. With the freshly booted "
    f"typical VM touching all its memory instead of its SGA the fit gives a checkpoint of "
    f"{_alt.checkpoint_time_s:.2g} s, {_alt.dirty_bytes_per_transaction / 1e3:.0f} kB per transaction and a gain of "
    f"{prose.times(_alt_gain)}: the assumption, not the data, sets the checkpoint within that span.\n\n"
    f"The large VM's 6.7 round 0 takes {float(_large.precopy.round0_time_s):.0f} s, its trace phase "
    f"{_large.trace_time_s:.0f} s. "
    f"A pre-copy of at least 1 TiB / {_rate / 1e9:.0f} GB/s = {_min_precopy:.0f} s makes the paper's average fix the "
    f"trace phase at {_trace_needed / _min_precopy:.1f} times the pre-copy; the model, "
    f"{prose.pct(abs(_fid_avg.rel_error))} under the {prose.pct(_L)}, has "
    f"{_large.trace_time_s / float(_large.precopy_time_s):.1f}."))

# %% [markdown]
# ## Figures 1-2 — page tracing: 6.7 stop-based 4 KB traces vs 7.0 U1 loose 1 GB traces
#
# 6.7 installs traces in phases that stop all vCPUs: each phase costs a stop that grows with the vCPU
# count plus the install of its `P` traces, followed by a guest slice. The write-protect stores are shared
# among the stopped vCPUs, but every vCPU must drop each new trace from its own TLB before it resumes, so
# the install part does not shrink with more vCPUs: the stall, the loss and the phase's duration grow with
# every vCPU from one on. A small VM traces in seconds (paper: it "worked fine for small-to-medium-sized
# VMs"), a large one loses most of its throughput (paper: ~65 % for the 72-vCPU VM). 7.0 U1 takes one vCPU and one
# trace per GB, so its trace phase is short and costs at most 1/V of the VM; that vCPU hands its slices
# back to the guest between batches, so even a 1-vCPU VM keeps running.
#
# During the pre-copy a fired page stays untraced until vMotion sends it (the paper's invariant: "a page
# is either traced or selected for transmission"), and a sent dirty page is traced again: 6.7 with one
# stop-based phase per transmitted chunk of `P` pages that holds a dirty page (the install phase's
# batch), 7.0 U1 loosely on one vCPU. Over 6.7's long round 0 nearly every chunk of the 1 TB VM holds a
# dirty page (the dirty share and the fitted `P` are printed below the figure), so its stops -- and the
# paper's 30 % pre-copy drop -- persist; 7.0 U1's cost follows the fires, which the invariant bounds by the
# working set.
#
# After the switch-over, 6.7 rebuilds the large pages that its remote pages broke (the paper's "Remote
# Pages": "remapping these pages can lead to longer pauses"); remapping a live guest's pages needs the same
# stop-and-flush of all vCPUs, so the model runs it in the same stop-based phases as the trace install: a
# degraded phase after resume (visible after the switch-over dip in Figures 5-8 and 10), outside the
# paper's "during vMotion" averages. 7.0 U1 copies remote pages into their original backing: no phase.
#
# The stop cost is `c_stop x V` per phase: the text says stopping "a few vCPUs" costs "a few hundred
# microseconds" and that the cost "is not constant: the more vCPUs ... the longer it takes to stop and
# resume them" -- one stop and resume per vCPU, each waited for. Linear is the simplest form with both
# properties; it was not chosen to fit the monster VM (held out, see Figure 9).

# %%
fig = views.trace_figure()
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure01_02_page_tracing")
plt.show()
_w1tb = vm.workloads()["large_1tb"]
display(Markdown(f"The 1 TB VM's dirty share is {prose.pct(_w1tb.working_set_bytes / _w1tb.memory_bytes, 1)} of its "
                 f"memory; `P` (traces per 6.7 install phase) is fitted at {P.trace_pages_per_install_phase:,.0f} pages."))

# %% [markdown]
# ## Figures 3-4 — switch-over: full bitmaps (6.7) vs compacted page list (7.0 U1)
#
# Two bitmaps of 1 bit per 4 KB page grow with memory and are sent at the metadata rate; 7.0 U1 sends a
# page number per remaining page (sizes below). Paper: 6 s to resume Oracle on 6.7 (1 TB VM).

# %%
fig = views.switchover_figure()
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure03_04_switchover")
plt.show()
display(Markdown(f"One bitmap of a 1 TB VM: {_w1tb.memory_bytes / vm.PAGE_BYTES / 8 / 2**20:.0f} MiB; a page number: "
                 f"{vm.PAGE_NUMBER_BYTES:g} B."))

# %% [markdown]
# ## Iterative pre-copy over a grid (one vectorized call)
#
# Memory x dirty rate at the testbed's 4 vmknics (4 streams of 18 Gb/s on 4 x 40 GbE), working set =
# memory. Without SDPS the pre-copy stops converging once the guest dirties memory near the transfer rate;
# SDPS slows the vCPUs to half the transfer rate on the re-send rounds so the rounds shrink again. The stop
# rule switches over at the first moment the dirty bytes left fit the budget (0.5 s of sending; in 7.0 U1
# also the page list, within the 1-s switch-over goal after the checkpoint), so the stall never grows
# when the link gets faster.

# %%
fig = views.precopy_grid_figure()
plotting.save_figure(fig, output_dir, NOTEBOOK, "precopy_grid")
plt.show()

# %% [markdown]
# ## Figure 5 — typical VM (12 vCPU / 64 GB) on 6.7, 1-s samples
#
# Test 1's freshly booted VM (its zero pages are not sent). Two dips: the trace phase and the switch-over; throughput never reaches zero at 1-s granularity.

# %%
fig = views.series_figure("typical_fresh", ("6.7",), sample_s=1.0, lead_s=5.0)
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure05_typical_67")
plt.show()

# %% [markdown]
# ## Figures 6-7 — large VM (72 vCPU / 1 TB) on 6.7: trace, pre-copy and switch-over
#
# Markers: the paper's ~65 % trace-phase drop, ~30 % pre-copy drop and six-second switch-over stall.

# %%
fig = views.series_figure("large_1tb", ("6.7",), sample_s=1.0, paper_marks=True)
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure06_07_large_67")
plt.show()

# %% [markdown]
# ## Figure 8 — large VM, 6.7 vs 7.0 U1
#
# Paper (black markers): migration time cut by half, average loss 50 % -> under 5 %, switch-over resume an
# order of magnitude faster. The paper credits the halved time to the destination's memory allocation path
# (6.7 zeroes every large page it allocates; 7.0 U1 skips it when the source 2 MB range is backed large);
# in the model 6.7's trace phase does the halving (zeroing is a what-if input, see the parameters above).

# %%
fig = views.series_figure("large_1tb", ("6.7", "7.0u1"), sample_s=1.0, paper_figure8=True)
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure08_large_67_vs_70u1")
plt.show()

# %% [markdown]
# ## Table 1 and Figure 9 — five Oracle VM sizes
#
# The paper's Table 1 beside the model's migration under both releases. The improvement grows with size as
# in the paper, but the model's monster VM falls far short of 19x (*predicted*; numbers below the figure).
# Missing mechanism: 19x needs a 6.7 loss close to a full stall for a 192-vCPU VM; with a stop cost linear in
# vCPUs the phase stall that fits 65 % (trace) and 30 % (pre-copy) at 72 vCPUs gives much less at 192
# vCPUs, and the monster's long 6.7 pre-copy at that lower loss dilutes the average. Whatever
# makes 192 vCPUs stop far more slowly than 72 (NUMA-wide rendezvous, TLB shootdowns across four
# sockets) is not in the text and not in the model; a steeper stop cost chosen to hit 19x would be
# tuned to the held-out number. The Conclusion's "19x factor" is the same number restated: one
# *derived* row.

# %%
paper_t1 = data.load("vmotion2020/table01_vm_sizes")
display(paper_t1.pivot(index="config", columns="quantity", values="printed"))
t1 = vm.table1_model()
plotting.save_table(t1, output_dir, NOTEBOOK, "table01_vm_sizes_model")
display(t1.round(3))
fig = views.sizes_figure()
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure09_sizes")
plt.show()
_mon = vm.migrate_workload("monster", "6.7")
_t1 = t1.set_index("config")
_loss70 = _t1.loc["monster", "avg_loss_70u1"]
_need67 = 1 - (1 - _loss70) / 19  # the 6.7 loss that a 19x gain needs, at the model's 7.0 U1 loss
display(Markdown(
    "Throughput improvement from the typical to the monster VM: "
    + ", ".join(prose.times(x) for x in _t1["throughput_improvement"].iloc[:5]) + ". "
    f"The monster VM reaches {prose.times(_t1.loc['monster', 'throughput_improvement'])}, not 19x "
    f"({prose.pct(1 - _t1.loc['monster', 'throughput_improvement'] / 19)} short). With 7.0 U1 at a "
    f"{prose.pct(_loss70)} loss, 19x needs a 6.7 loss of {prose.pct(_need67)}; the model's stop cost gives "
    f"{prose.pct(_mon.trace_loss)} (trace) and {prose.pct(_mon.precopy_loss)} (pre-copy) at 192 vCPUs, and the "
    f"monster's {float(_mon.precopy_time_s) / 60:.0f}-minute 6.7 pre-copy dilutes the average to "
    f"{prose.pct(_mon.average_loss)}."))

# %% [markdown]
# ## Figure 10 — typical VM, 6.7 vs 7.0 U1, half-second samples
#
# Dashed/dotted: the paper's averages during vMotion (2403 and 3480 transactions/s, both fitted). The
# model's baseline is Table 1's 270,000 TPM (4500 tps). The paper's "nearly 45 %" gain is 3480 / 2403 - 1,
# a ratio of the two fitted numbers: *derived*, not a test of the model.

# %%
fig = views.series_figure("typical_fresh", ("6.7", "7.0u1"), sample_s=0.5, lead_s=3.0, paper_averages=True)
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure10_typical_halfsecond")
plt.show()
fid = fidelity.table(["vmotion2020"])
row = fid.set_index(["key", "kind"])
display(Markdown(f"The model's gain: {prose.pct(row.loc[('typical_improvement', 'derived')].model_value, 1)}."))

# %% [markdown]
# ## Fidelity — paper vs model
#
# Every paper number the model speaks to, with its kind: *fitted* (and its *loo* row above), *predicted*
# (never fitted, not computed from fitted numbers), *derived* (a restatement or ratio of other printed
# numbers: the Conclusion's 19x and "range of 50 %", Figure 10's 45 %, the TPCx-HCI 86 % and 97 %
# reductions, and the invalid runs, which follow from the fitted failed checks) and *bound* (judged on the
# model's value, its 90 % band shown). Misses, all visible: the monster VM's 19x and the TPCx-HCI invalid
# runs (see below and the TPCx-HCI section). Figure 11 is redrawn below as a modelled profile beside the text's
# counts.
#
# What the transfer and pre-copy mechanisms change. Each vMotion stream is one CPU-bound
# worker (18 Gb/s, an *external* number from VMware KB 323379, the only value not from the paper), so the
# testbed's four vmknics move less than their line rate; the fit finds the Oracle dirty rate per
# transaction that makes every Oracle migration need several pre-copy rounds, and the round logic moves the
# fitted rows (tests prove it by capping the rounds). Every bound's model value holds (the ledger counts a
# bound as passed only when its whole 90 % interval does: the summary says how many).
#
# The 7.0 U1 "less than 5 percent" bound, and why it now passes. Before, the model let trace fires run
# at the guest's dirty rate through the large VM's whole round 0 (hundreds of GB of first writes into a
# 25 GB SGA), and the 7.0 U1 loss failed the bound. The paper states an invariant
# that forbids this: "at any given time, a page is either traced or selected for transmission" -- a
# fired page stays untraced until vMotion sends it, so round 0 can see at most the working set fire.
# Applied alone (to both releases, as the invariant demands), it passed the bound but took most of the
# 6.7 pre-copy drop away: the old model's drop rested on the forbidden fire rate. The second
# mechanism explains the drop under bounded fires: 6.7 re-traces sent dirty pages with its stop-based
# phases, one per transmitted chunk that holds a dirty page, and at the large VM's small dirty share nearly
# every chunk of `P` pages holds one, so 6.7 keeps stopping all 72 vCPUs through round 0 while 7.0 U1's
# one-vCPU re-traces cost only what fires. With both (and 7.0 U1 charged for the fire and its loose
# re-trace, as 6.7 is), the large VM's 7.0 U1 loss passes the bound for that reason, not by tuning: no
# 7.0 U1-only change was made. The numbers are below the table.

# %%
plotting.save_table(fid, output_dir, NOTEBOOK, "fidelity")
display(Markdown(fidelity.format_summary(fidelity.summary(fid))))
display(fidelity.paper_vs_model("vmotion2020"))
_fit = fid[fid["kind"] == "fitted"]["rel_error"].abs()
_typ = vm.workloads()["typical"]
_rounds = [int(vm.migrate_workload(w, r).precopy.rounds) for w in vm.workloads() for r in vm.RELEASES]
_line = vm.testbed_link_bps() * network.TCP_PAYLOAD_FRACTION / 8


def _m(key, kind):
    return row.loc[(key, kind)]


display(Markdown(
    f"Misses: the monster VM's 19x comes out {prose.times(_m('monster_improvement', 'predicted').model_value)}; the "
    f"TPCx-HCI invalid runs {_m('invalid_runs_67u3', 'derived').model_value:.1f} of 18 on 6.7 U3 (paper "
    f"{_m('invalid_runs_67u3', 'derived').paper_value:g}) and {_m('invalid_runs_70u1', 'derived').model_value:.1f} "
    f"on 7.0 U1 (paper {_m('invalid_runs_70u1', 'derived').paper_value:g}). The testbed's four vmknics move "
    f"{_rate / 1e9:.0f} GB/s, not the {_line / 1e9:.0f} GB/s of their line rate; the fitted Oracle dirty rate is "
    f"{P.dirty_bytes_per_transaction / 1e3:.0f} kB per transaction ({_typ.baseline_tps * P.dirty_bytes_per_transaction / 1e9:.1f} "
    f"GB/s for the typical VM, saturating at its {_typ.working_set_bytes / 2**30:.0f} GB SGA), so the Oracle "
    f"migrations need {min(_rounds)}-{max(_rounds)} pre-copy rounds. The fitted rows stay within "
    f"{prose.pct(_fit.max(), 1)} (median {prose.pct(_fit.median(), 1)}). The large VM's 7.0 U1 loss is "
    f"{prose.pct(_m('avg_loss_large_70u1', 'bound').model_value, 1)} (bound: under "
    f"{prose.pct(_m('avg_loss_large_70u1', 'bound').paper_value)}); its 1 TB VM's dirty share is "
    f"{prose.pct(_w1tb.working_set_bytes / _w1tb.memory_bytes, 1)}. The large VM's halving holds at "
    f"{_m('migration_time_ratio_large', 'fitted').model_value:.2f} with the typical VM's gain at "
    f"{prose.times(1 + _m('typical_improvement', 'derived').model_value, 2)} (paper "
    f"{prose.times(1 + _m('typical_improvement', 'derived').paper_value, 2)})."))

# %% [markdown]
# ## TPCx-HCI — long-tail response times (18 runs per release)
#
# Each run has 158 migrations of random VMs (2-28 vCPUs, 2-98 GB) in random 12-minute phases, the VM's load
# drawn over the printed 16x range. A migration adds a fluid-queue backlog: 6.7's trace phase leaves a
# loaded VM too little capacity, and every switch-over stalls it. A check fails when the mean response
# time rises above the 90th percentile (exponential response times around the paper's 10 ms). Two
# parameters, the peak VM load and the TPCx-HCI dirty scale, are fitted to the two failed-check counts
# (148 on 6.7 U3, 4 on 7.0 U1), using the expectation of the same mechanism over the loads
# (`vm.tpcx_expected`, smooth in the parameters; the Monte Carlo on the left agrees with it within its
# noise). Every VM dirties memory at its own rate: its busy vCPUs times the Oracle VM's transactions per
# busy vCPU times the calibrated bytes per transaction times the dirty scale, with a writable working set
# of the SGA's share of memory: the dirty rates of the 60 VMs spread over the VM sizes (2-28 vCPUs) and,
# through the 16x load, over time. During the re-send rounds SDPS slows the vCPUs just enough that the
# guest dirties at most half its one 18 Gb/s stream (`sdps_fraction x B`): a VM that dirties `d / u`
# bytes per unit of work can then do at most `sdps_fraction x B x u / d` of work, a share of its vCPUs
# that does not depend on its load (a continuous `min()`, no switch). A VM whose load is above that
# builds a backlog, released at switch-over. The delay area keeps round 0 and the re-send rounds as two
# phases (their time-weighted average would hide the throttled period behind the unthrottled round 0).
#
# Why the dirty scale is fitted. The paper prints no TPCx-HCI dirty rate. Before it was fitted,
# the TPCx-HCI VMs were assumed to dirty memory like the Oracle VM per busy vCPU, which for the largest VMs
# is more than one stream can carry. Under that assumption the largest VMs were SDPS-throttled in both
# releases, 7.0 U1 missed its failed checks and invalid runs many times over and the 6.7 U3 failures came
# from SDPS, not from what the paper names as their cause: "occasional vMotion downtimes of several
# seconds". The 7.0 U1 count bounds how often SDPS may throttle the largest VMs, so it is now *fitted* with
# the peak load (the row moved from predicted to fitted; its loo row is not estimable, since nothing else
# constrains the dirty scale). Then, as the paper says, 6.7 U3 fails mostly through its stop-based trace
# phase and multi-second switch-over, and the 4 7.0 U1 failures come from the largest VMs at their peak
# load exceeding what SDPS lets through. The count is steep there (a threshold of the largest VM type),
# which the fit's interval shows. The fitted values and these checks are printed below the figure.
#
# The ledger's bands of these counts include the scatter 18 runs alone give them ("due to the elastic,
# non-deterministic nature of the benchmark, we took 18 runs"): invalid runs are binomial (about one run
# of standard deviation at either release), the failed checks a sum over independent VM-phase cells
# (`vm.sampling_variances`, equal to the Monte Carlo's scatter in the tests).
#
# *Derived*: the invalid runs of both releases follow from the fitted failed checks per VM-phase cell by
# Poisson arithmetic (how the failures fall on runs), so they restate the fit rather than predict; within
# what 18 runs of the model would scatter (below).
# Which mechanism is missing: the model fails all checked transaction types of a VM in a phase together,
# so 4 failed checks fall in fewer runs than the paper's 2 (about 2 checks per failed run): transaction
# types with different response times would fail separately, and the model gives them all the paper's one
# 10-ms example. On 6.7 U3 the opposite holds: the paper's 148 failed checks cluster in 14 runs, the model
# spreads them over independent cells. The 86 % and 97 % reductions are *derived* from these counts
# (1 - 2/14, 1 - 4/148), the latter a ratio of two fitted counts.

# %%
fig = views.tpcx_figure()
plotting.save_figure(fig, output_dir, NOTEBOOK, "tpcx_hci_long_tail")
plt.show()
_setup = vm.tpcx_setup()
_lo, _hi = params.set_index("name").loc["tpcx.dirty_scale", ["low_90", "high_90"]]


def _checks(release, scale):
    p = dataclasses.replace(P, tpcx=dataclasses.replace(P.tpcx, dirty_scale=scale))
    return _setup.runs * vm.tpcx_expected(release, P.tpcx.peak_vm_utilization, _setup, params=p,
                                          settings=S).failed_checks_per_run


_idle = {r: _checks(r, 1e-9 * P.tpcx.dirty_scale) for r in vm.RELEASES}  # VMs that dirty (almost) nothing
_inv = {r: _m(f"invalid_runs_{r.replace('.', '')}", "derived") for r in ("6.7u3", "7.0u1")}


def _pred(r):
    return (f"{r.model_value:.1f} (paper {r.paper_value:g}, {prose.pct(r.rel_error, signed=True)}; 90 %: "
            f"{r.model_low:.1f}-{r.model_high:.1f})")


display(Markdown(
    f"The TPCx-HCI VMs dirty {prose.times(P.tpcx.dirty_scale, 2)} the Oracle VM's rate per busy vCPU (90 %: "
    f"{_lo:.2f}-{prose.times(_hi, 2)}) at a peak load of {P.tpcx.peak_vm_utilization:.2f} of their vCPUs; one stream "
    f"carries {S.stream_bytes_per_cpu_s / 1e9:.2f} GB/s. Idle VMs that dirty nothing still fail "
    f"{_idle['6.7']:.0f} checks on 6.7 and {_idle['7.0u1']:.0f} on 7.0 U1; the longest extra delay on 6.7 is "
    f"{_m('tpcx_downtime_67u3', 'bound').model_value:.1f} s (the \"several seconds\" bound); with "
    f"{prose.pct(0.2)} less dirtying 7.0 U1 fails {_checks('7.0u1', 0.8 * P.tpcx.dirty_scale):.1f} checks.\n\n"
    f"*Derived* invalid runs of {_setup.runs}: {_pred(_inv['6.7u3'])} on 6.7 U3, {_pred(_inv['7.0u1'])} on 7.0 U1. "
    f"The model fails {_setup.checks_per_vm_phase.min():.0f}-{_setup.checks_per_vm_phase.max():.0f} checks per failed "
    f"VM-phase. The derived reductions: the model gives "
    f"{prose.pct(_m('invalid_run_reduction', 'derived').model_value)} and "
    f"{prose.pct(_m('failed_check_reduction', 'derived').model_value)}."))

# %% [markdown]
# ## Figure 11 — a TPCx-HCI run, modelled beside the text's counts
#
# The paper prints no data points of Figure 11, only its bullets: about 20 migrations fill the idle node
# during warm-up, the load changes every 12 minutes and 158 migrations happen during the two-hour run. The
# model places those migrations (DRS one per source node at a time, each lasting the mean modelled
# migration of the VM types; warm-up length assumed one phase) and draws the cluster throughput they
# cost under each release. The throughput curve is a model output, not a reading of the chart.

# %%
fig = views.tpcx_profile_figure()
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure11_tpcx_hci_profile")
plt.show()

# %% [markdown]
# ## Bounds the paper states ("less than", "several", "a few") — checked, not fitted
#
# Eight are *bound* rows of the ledger. The two bitmap sizes of Figure 3 ("a few KBs", "several MBs")
# follow from 1 bit per 4 KB page alone, whatever the parameters: constant by construction, shown here
# but kept out of the ledger (`in_ledger` False).

# %%
bounds = vm.bound_checks()
plotting.save_table(bounds, output_dir, NOTEBOOK, "bound_checks")
bounds[["statement", "relation", "paper_bound", "model_value", "unit", "holds", "in_ledger"]]

# %% [markdown]
# ## How far to trust it — intervals and where the model extrapolates
#
# Every model number carries a 90 % interval: the calibration's parameter uncertainty (Gauss-Newton
# covariance of the fit) plus the model's own misfit for the row's data table, estimated from the fit's
# residuals and pooled across tables (never below the run-to-run noise), with Student-t quantiles;
# `docs/ARCHITECTURE.md` gives the method. The table says what makes each fitted row's interval wide (shares
# of its variance): with eleven numbers for nine parameters the model-form misfit is the largest share of
# most rows (below the figure); among the parameters the 6.7 stop cost per vCPU drives the trace
# drop, the checkpoint time the switch-over stalls, the trace-install cost and the bytes per
# transaction the typical VM's throughputs, and the two TPCx-HCI parameters the two failed-check counts.
#
# Where the model extrapolates: the fit saw Oracle VMs of 64 GB and 1 TB on four 40 GbE vmknics at LAN
# round-trip times, dirtying what the typical VM's 4,500 tps times the fitted bytes per transaction give
# (dotted in the figure), and TPCx-HCI VMs of 2-98 GB on one 40 GbE port. Larger memories (the 4 TB
# monster VM is *predicted*), other link rates, RTTs above LAN, encryption and concurrent migrations are
# mechanisms the paper describes but never measures: there the band says how well the parameters are
# known, not whether the mechanism holds. The figure sweeps the dirty rate of the typical VM on the testbed
# (7.0 U1): the switch-over stall grows with what is left dirty until the stop rule holds it at its budget
# (inside the 1-s goal), while the migration time keeps growing as the re-send rounds lengthen. The band bends where the model has kinks (the stop rule's
# budget, the hot working set saturating, SDPS engaging): there the delta-method band is only a local guide.

# %%
drivers = protocol.width_drivers(vm)
plotting.save_table(drivers, output_dir, NOTEBOOK, "interval_width_drivers")
display(drivers[drivers["role"] == "fit"].round(2))
_p, _s, _typ = vm.calibrate(), vm.settings(), vm.workloads()["typical"]
_dirty = np.geomspace(1e7, 5e9, 25)  # B/s
_r = protocol.with_interval(vm.times_s, _typ.memory_bytes, _typ.vcpus, _typ.working_set_bytes,
                            _dirty / _p.dirty_bytes_per_transaction, "7.0u1", vm.testbed_link_bps(), settings=_s,
                            n_vmknics=vm.testbed_vmknics())
band = pd.DataFrame({"dirty_rate_bytes_per_s": _dirty,
                     **{f"{q}_{k}": getattr(_r, k)[i] for i, q in enumerate(("migration_time_s", "switchover_time_s"))
                        for k in ("value", "low", "high")}})
plotting.save_table(band, output_dir, NOTEBOOK, "typical_times_vs_dirty_rate_interval")
fig, axes = plt.subplots(1, 2, figsize=(9.6, 3.2))
for ax, q, label in zip(axes, ("migration_time_s", "switchover_time_s"), ("migration time (s)", "switch-over stall (s)"),
                        strict=True):
    plotting.interval_sweep(ax, _dirty / 1e9, [("model: typical VM, 7.0 U1, testbed link", band[f"{q}_value"],
                                                band[f"{q}_low"], band[f"{q}_high"])],
                            measured_x=(_typ.baseline_tps * _p.dirty_bytes_per_transaction / 1e9,),
                            xlabel="dirty rate (GB/s); dotted: the fitted Oracle VM's", ylabel=label,
                            legend_loc="upper left")
plotting.finish(fig)
plotting.save_figure(fig, output_dir, NOTEBOOK, "typical_times_vs_dirty_rate_interval")
plt.show()
_dfit = drivers[drivers["role"] == "fit"].set_index("key")
_shares = _dfit.drop(columns=["role", "width_relative"])
_top = _shares.idxmax(axis=1)
_mf = _dfit.loc[_top == "model_form", "model_form"]
_other = ", ".join(f"`{k}` ({_top[k]}, {prose.pct(_shares.loc[k].max())})" for k in _top.index if _top[k] != "model_form")
_stall = band["switchover_time_s_value"].to_numpy()
_flat = int(np.argmax(_stall >= 0.99 * _stall.max()))
display(Markdown(
    f"Run-to-run noise floor: {prose.pct(protocol.noise_floor(), 1)} per number. The model-form misfit is the largest "
    f"share of {len(_mf)} of the {len(_dfit)} fitted rows ({prose.pct(_mf.min())}-{prose.pct(_mf.max())} of their "
    f"variance); the others: {_other or 'none'}. The fitted typical VM dirties "
    f"{_typ.baseline_tps * P.dirty_bytes_per_transaction / 1e9:.1f} GB/s; the switch-over stall reaches its budget "
    f"({_stall.max():.1f} s) from about {_dirty[_flat] / 1e9:.1f} GB/s."))

# %% [markdown]
# ## What if? — memory, vCPUs, dirty rate, working set, links and streams, RTT, encryption, sharing
#
# The thick curve is the chosen release. The readout gives migration time and downtime with their 90 %
# intervals (`protocol.with_interval` over the calibration), rounds, convergence, SDPS and how hard and
# how long it throttles the guest (the share of its pace stunned away), the average loss, and the link
# that keeps the stall under the target (`vm.link_for_downtime`: the model is monotone in the link rate,
# so a log grid of link rates in one vectorised call, refined once, finds the boundary closely; never
# below VMware's 250 Mbit/s per concurrent migration without its "limit" flag, and with the migration
# time and the SDPS throttle at that link), and the time to evacuate a host of such VMs with `concurrent`
# migrations sharing its NICs (`vm.evacuation_time_s`). Each vmknic is one stream, one CPU-bound worker
# (18 Gb/s, external): beyond 18 Gb/s per vmknic only more vmknics or streams help, and streams sharing
# one NIC contend for it (VMware KB 323379). The stall includes the checkpoint of every vCPU and the
# switch-over protocol's round trips (1.5 RTT).
# Durations read in the unit a person would use (examples printed below), each interval in its value's unit.

# %%
whatif_args = (whatif_memory_gib, whatif_vcpus, whatif_dirty_rate_mb_per_s, whatif_working_set_gib,
               whatif_link_speed_gbps, whatif_link_count, whatif_release, whatif_streams_per_vmknic, whatif_rtt_ms,
               whatif_encryption_gb_per_core_s, whatif_concurrent, whatif_downtime_target_s, whatif_evacuate_vms)
print(views.migration_whatif_update(*whatif_args)[0])
_ex = (vm.migrate_workload("typical", "7.0u1").trace_time_s, float(_t1.loc["typical", "switchover_70u1_s"]),
       float(_t1.loc["monster", "migration_time_67_s"]))
display(Markdown(f"For example the typical VM's 7.0 U1 trace phase of {_ex[0]:.5f} s reads \"{fmt_duration(_ex[0])}\", "
                 f"its {_ex[1]:.3f}-s stall \"{fmt_duration(_ex[1])}\", the monster VM's 6.7 migration of "
                 f"{_ex[2]:.0f} s \"{fmt_duration(_ex[2])}\"."))
if interactive:
    display(views.migration_whatif(*whatif_args))
