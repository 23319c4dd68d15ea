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
# # FT study — fast checkpointing: FT traffic, output commit, and what they cost (Figures 2-14)
#
# The paper (VMware vSphere 6 Fault Tolerance: Architecture and Performance).
# vSphere 6 FT keeps a secondary VM in sync by *fast checkpointing*: the primary runs for one epoch (the
# checkpoint interval), is stunned while the memory it dirtied ships over the FT logging link, and holds
# its network output until the secondary acknowledges. In `vcperf.ft` this is a few lines — stun = ship
# time + acknowledgement, run fraction = interval / (interval + stun), added packet latency = interval/2 +
# stun — plus closed queueing networks (exact MVA) for the closed-loop benchmarks, where every client
# exchange waits one output commit and the stun, which pauses all vCPUs while the one FT link ships all
# concurrent operations' memory, acts as a serial resource. The stun is physical: the FT link's round trip
# (metro distances lengthen it), its TCP goodput (bandwidth, window, loss, shared fairly by several FT VMs)
# and every vCPU's state; both directions of network I/O dirty memory (received data three times, transmitted
# segments their headers and descriptors). Four parameters are calibrated to six numbers from six independent
# runs: the checkpoint timer (Figure 5's 57x), the kernel compile's dirtied memory (Figure 2's about 7 s: its
# only number, so its loo row is "not estimable") and, for the vCenter appliance, its dirty rate and exchange
# rate (two parameters for the four numbers of Figures 12-14). The appliance's vCPU time per management
# operation is not fitted: Load B, the heavy load of "nearly 200" operations per minute, runs its 4 vCPUs at
# capacity, so by the utilization law it is utilization x vCPUs / throughput (its value is printed below the
# parameter table). Every figure 2-14 has a ledger row:
# Figure 6 (mean over the access patterns per I/O size; mirrored writes wait the FT-link round trip) and
# Figure 7 are predicted, the direction-only statements of Figures 3-4 and 8-11 are bounds.
# The ledger says of every paper number what it is: **fitted** (one of those six), **loo** (the same number
# predicted by a refit without it), **predicted** (never fitted: Swingbench's "nearly as much"), **derived**
# (a function of other paper numbers: Figure 5's transaction-rate ratio is the 57x carried over) or **bound**
# (an inequality, pass/fail: the netperf throughput statements and the directions of Figures 8-11, which hold
# for any parameters because FT only adds delay). The paper prints almost no bar values: where it
# states only a direction ("increases", "overhead") the model value is shown with the statement as a
# qualitative check, not counted.

# %% tags=["parameters"]
interactive = True  # -: show the what-if panel (regeneration runs with False)
output_dir = "../build"  # path: folder that receives figures/ and tables/
whatif_ft_link_gbps = 10.0  # Gbps, range [1, 100]: FT logging link speed of the what-if panel
whatif_receive_gbps = 1.0  # Gbps, range [0, 10]: data the VM receives while running
whatif_dirty_mb_per_s = 100.0  # MB/s, range [0, 2000]: other memory the VM dirties per second of run time

# %%
import vcperf.params; vcperf.params.check_notebook_parameters(globals(), "ft_checkpointing")  # noqa: E702, I001 - checks the parameters above, however the notebook is run
# %matplotlib inline
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from vcperf import fidelity, ft, plotting, prose, protocol
from vcperf.views import ft as ft_views

NOTEBOOK = "ft_checkpointing"
plotting.use_style()
fid = fidelity.table([ft.STUDY])
params = ft.calibrate()
ft.parameter_table()

# %%
row = fid[fid["study"] == ft.STUDY].set_index(["key", "kind"])  # the prose below quotes these rows
vc = ft.vcenter_values()
vc_setup = ft.vcenter_setup()
display(Markdown(
    f"The vCPU time per management operation that Load B's saturation implies: "
    f"{prose.sig(vc['cpu_demand_per_op_s'], 3)} s ({vc_setup['vcpus']} vCPUs "
    f"{prose.pct(vc['cpu_demand_per_op_s'] * vc_setup['load_b_per_s'] / vc_setup['vcpus'])} busy at "
    f"{vc_setup['load_b_per_s'] * 60:.0f} operations per minute). The calibrated checkpoint interval is "
    f"{params.checkpoint_interval_s * 1e3:.2f} ms."))

# %% [markdown]
# ## Calibrated parameters and leave-one-out error
#
# `checkpoint_interval_s` is solved in closed form from Figure 5 (an idle TCP_RR guest: added latency =
# interval/2 + acknowledgement, relative to the unprotected round trip `ft.testbed().vm_round_trip_s`, a stated
# input: VMware's "a few tens of microseconds", `data/ft2016/external_vm_round_trip.csv` — the paper does not print
# the bars). The two vCenter parameters are least squares on the four vCenter numbers (the vCPU time per
# operation follows from Load B's saturation). Leave-one-out (`ft.leave_one_out()`, the **loo** rows of the
# ledger) refits without each fitted number and predicts it (the errors are printed below the table):
#
# * a vCenter number left out: the interval still comes from Figure 5 and the two vCenter parameters are
#   refitted on the other three numbers: Load B is the worst of the four (it is the one link-bound number: its
#   FT throughput is the FT link's rate over each operation's dirtied memory, and without it the dirty rate
#   comes from the restart, which asks for a little more dirtying than Load B does);
# * Figure 5 left out: the interval must come from the four vCenter numbers, fitted jointly with the vCenter
#   parameters. They hardly determine it: the run fraction barely depends on the interval (the stun grows in
#   proportion to it) and the output-commit delay is proportional to it, so the vCenter numbers fix only the
#   product of exchanges per second and interval, not each. The refit lands on a shorter interval and
#   predicts a far smaller TCP_RR ratio than 57: the miss that stays. Only the pure latency benchmark pins the
#   checkpoint interval; Figure 5's bars, not printed in the paper, would be the way to ground it further.

# %%
loo = ft.leave_one_out()
plotting.save_table(loo, output_dir, NOTEBOOK, "leave_one_out")
loo[["key", "group", "n_fit", "paper_value", "model_value", "rel_error", "estimable"]]

# %%
loo_err = loo.set_index("key")["rel_error"].abs()
vc_keys = ["vcenter_load_a_ratio", "web_client_browse_on", "vcenter_restart_ratio"]
without_fig5 = ft.calibrate(fit_on=[k for k in protocol.fit_keys(ft) if k != "tcp_rr_latency_ratio"])
rr = row.loc[("tcp_rr_latency_ratio", "loo")]
display(Markdown(
    f"Median leave-one-out error {prose.pct(loo_err.median())} (over the estimable rows). With a vCenter number "
    f"left out, Load A, browsing and restart are predicted within {prose.pct(loo_err[vc_keys].min())}-"
    f"{prose.pct(loo_err[vc_keys].max())}, Load B within {prose.pct(loo_err['vcenter_load_b_ratio'])}. "
    f"Without Figure 5 the refit's checkpoint interval is {without_fig5.checkpoint_interval_s * 1e3:.1f} ms "
    f"(calibrated: {params.checkpoint_interval_s * 1e3:.1f} ms) with "
    f"{prose.sig(without_fig5.vcenter_exchange_rate_per_s / params.vcenter_exchange_rate_per_s)} times the "
    f"exchanges, and it predicts a TCP_RR ratio of {rr.model_value:.0f} instead of {rr.paper_value:.0f} "
    f"({prose.pct(rr.rel_error, signed=True)})."))

# %% [markdown]
# ## The paper's figures, paper beside model
#
# Each figure below is one figure of the paper in its own structure — the kernel compile's 1/2/4-vCPU
# configurations, netperf's uplinks and directions, IOMeter's access patterns, the databases' vCPU counts,
# Swingbench's three actions, vCenter's two loads — saved under the paper's figure name. The model is drawn as
# bars (light: FT off, dark: FT on); what the paper states as black markers (`o` a number, `v` "below", `^`
# "above"); where the ledger has a row, its 90 % predictive interval is the error bar on the bar it belongs to.
# The paper prints almost no bar values: most markers stand for a sentence of the text, drawn where the model's
# FT-off bar puts it (for example "nearly as much throughput" at the FT-off height), and each caption says so.

# %%
def show(name, fig):
    plotting.save_figure(fig, output_dir, NOTEBOOK, name)
    plt.show()


# %% [markdown]
# ### Figure 2 — kernel compile
#
# The compile sends nothing, so only the stun costs it: every checkpoint ships the memory the compile dirtied
# and every vCPU's state. The paper prints one number for the figure (FT adds "about 7 seconds"); the ledger fits
# the compile's dirtied memory to it as the mean over the three configurations (its loo row is "not
# estimable": nothing else speaks to it). The FT-off bars rest on an assumed amount of vCPU work (below): the
# paper prints no bar heights. The per-configuration increases (right) are the model's, with their 90 % intervals.

# %%
show("figure02_kernel_compile", ft_views.figure02_kernel_compile(fid))
display(Markdown(f"Assumed FT-off work: {ft.KERNEL_COMPILE_CPU_S:g} vCPU seconds; fitted dirtied memory: "
                 f"{params.kernel_compile_dirty_bytes / 1e9:.1f} GB per compile."))

# %% [markdown]
# ### Figures 3 and 4 — netperf throughput, 1 and 10 Gbps VM network
#
# Receiving dirties guest memory (logged packet, receive ring, socket buffer): about three bytes on the FT
# link per byte received, so on the 10 Gbps network the receiving VM is stunned much of the time and stays
# under the paper's 3 Gbps. Transmitting dirties only headers and descriptors, so the FT logging NIC (orange)
# stays nearly idle. The paper's "can meet or exceed 1 Gbps for both uplinks" names no direction: the model
# meets it for transmit on both uplinks only up to the TCP payload a line carries (`network.payload_rate_bps`):
# on the 1 Gbps uplink the bound fails by the Ethernet/TCP framing alone, and receive on the 1 Gbps uplink stays
# further below it (see the checks table below). The guest's rate and the checkpoint it dirties are solved
# together, so FT-on throughput never falls when the uplink or the FT link gets faster.

# %%
show("figure03_netperf_throughput_1gbps", ft_views.figure03_netperf_throughput_1gbps(fid))

# %%
show("figure04_netperf_throughput_10gbps", ft_views.figure04_netperf_throughput_10gbps(fid))
_tb = ft.testbed()
_rx = {bps: float(ft.netperf_throughput_bps(bps, "receive", True, params.checkpoint_interval_s, ft.DEFAULT_FT_LINK_BPS,
                                            vcpus=_tb.netperf_vcpus, **_tb.netperf_kw())) / 1e9
       for bps in _tb.netperf_uplinks_bps}
display(Markdown(f"Receiving with FT on: {_rx[1e9]:.2f} Gbps on the 1 Gbps uplink, {_rx[1e10]:.2f} Gbps on the "
                 "10 Gbps uplink."))

# %% [markdown]
# ### Figure 5 — TCP_RR latency (fitted), and how it moves with the interval and the FT link

# %%
show("figure05_netperf_latency", ft_views.figure05_netperf_latency(fid))

# %% [markdown]
# ### Figure 6 — IOMeter per access pattern
#
# Appendix B's five patterns: 2 KB read, write and 50/50, 64 KB read and write, one outstanding I/O on the
# RAID 5 LUN. Reads go on while the VM is stunned (the disks, not the vCPUs, are the bottleneck); writes are
# mirrored to the secondary and wait the FT link's round trip and transfer, more so for 64 KB. The ledger's
# two **predicted** rows are the mean ratio per I/O size against the paper's "nearly as much throughput" (~1).
# That "~1" is read from prose, not measured: the rows are marked **direction-only** (`Target.direction_only`),
# so the summary keeps them (and Swingbench's "nearly as much", Figure 7) out of the predicted skill and counts
# them apart: a closeness to "about 1" is a direction check, not skill.

# %%
show("figure06_iometer_throughput", ft_views.figure06_iometer_throughput(fid))

# %% [markdown]
# ### Figures 7-10 — Swingbench (Oracle 11g) and DVD Store (SQL Server 2012) per vCPU count
#
# Closed loops at the 60 % vCPU the paper states, for each Appendix B configuration (1, 2, 4 vCPUs), with its
# users and think times. Every client exchange waits one output commit. Swingbench (one stored-procedure call
# per transaction, 150 ms think time) loses a little at 4 vCPUs — a **predicted** number (paper "nearly as
# much"); DVD Store (seven calls per order) loses more (both printed below the figures). Figures 8-10 state only a direction; they are
# **bounds**. The paper compares configurations without printing them, so the ledger compares the largest one.
# Figure 8 shows three actions the paper does not name: the model is one closed loop with no per-action
# decomposition, so each action shows the model's mean response time, as its caption says.

# %%
show("figure07_swingbench_throughput", ft_views.figure07_swingbench_throughput(fid))

# %%
show("figure08_swingbench_response_time", ft_views.figure08_swingbench_response_time(fid))

# %%
show("figure09_dvdstore_throughput", ft_views.figure09_dvdstore_throughput(fid))

# %%
show("figure10_dvdstore_response_time", ft_views.figure10_dvdstore_response_time(fid))
display(Markdown(
    f"At 4 vCPUs Swingbench loses {prose.pct(1 - row.loc[('swingbench_throughput_ratio', 'predicted')].model_value, 1)} "
    f"of its throughput with FT, DVD Store "
    f"{prose.pct(1 - row.loc[('dvdstore_throughput_down', 'bound')].model_value, 1)}."))

# %% [markdown]
# ### Figure 11 — the brokerage workload
#
# Appendix B's 80 connections on 4 vCPUs with no think time; its large working set means every transaction's
# buffer-pool pages ship at the checkpoint (an assumed 160 KiB and three exchanges per transaction: the paper
# prints neither). The paper states "a reduction in user transaction throughput" (a bound); the model's
# reduction is large, because the serial checkpoint of 80 busy connections dominates. The paper's summary counts
# complex database workloads among those that work well under FT: the ledger reads from it a floor (the
# largest loss the paper prints, vCenter Load B; flagged derived), and the model's brokerage fails it.

# %%
show("figure11_brokerage_throughput", ft_views.figure11_brokerage_throughput(fid))

# %% [markdown]
# ### Figures 12-14 — vCenter Server under FT
#
# Load A is one client issuing operations back to back; Load B the client count that reaches ~200 ops/min
# without FT. At light load an operation loses the time the VM is stunned while its own memory ships, plus its
# output commits. At heavy load the appliance's four vCPUs were nearly busy; the stun pauses all of them while
# the one FT link ships every concurrent operation's memory, so the serial checkpoint becomes the bottleneck
# and the heavier load loses far more. The fitted dirty volume (hundreds of MB per operation) is large: it
# stands for all memory churn of vCenter's services and is the least physical number of this model. Browsing
# and restart are single activities with the same dirty rate; browsing also waits for its exchanges with the
# browser, the restart's host traffic is bulk data received, so only the stun slows it.
#
# Leave-one-out errors (table near the top) are larger than the fitted ones (both printed below the figures);
# the fitted errors are what four numbers for two parameters leave. Taking the vCPU time per operation from
# Load B's saturation instead of fitting it removed a parameter that only Load A and Load B could separate,
# which lowered the loo median.

# %%
show("figure12_vcenter_management_ops", ft_views.figure12_vcenter_management_ops(fid))

# %%
show("figure13_web_client_browsing", ft_views.figure13_web_client_browsing(fid))

# %%
show("figure14_vcenter_restart", ft_views.figure14_vcenter_restart(fid))
_vc_all = vc_keys + ["vcenter_load_b_ratio"]
_fit_err = {k: abs(row.loc[(k, "fitted")].rel_error) for k in _vc_all}
_worst = max(_fit_err, key=_fit_err.get)
display(Markdown(
    f"The fitted dirty volume is {vc['dirty_bytes_per_op'] / 1e6:.0f} MB per operation. Fitted errors of the four "
    f"vCenter numbers: up to {prose.pct(_fit_err[_worst], 1)} (`{_worst}`); leave-one-out: "
    f"{prose.pct(loo_err[vc_keys].min())}-{prose.pct(loo_err[vc_keys].max())} for Load A, browsing and restart, "
    f"{prose.pct(loo_err['vcenter_load_b_ratio'])} for Load B."))

# %% [markdown]
# ## Mechanisms behind the figures
#
# Left: FT logging traffic grows with the data the guest receives and saturates below the FT link's rate
# (Figures 3-4); right: the FT-off compile time that Figure 2's 7 s implies for a given dirty rate. Below: a
# closed loop's FT throughput falls with the client exchanges per operation, faster with less think time —
# why the pure latency benchmark loses 57x while client/server loads barely do.

# %%
for name, fn in ft_views.MECHANISM_FIGURES.items():
    show(name, fn())

# %% [markdown]
# ## Fidelity — paper vs model
#
# Every row has its kind. Bounds are pass/fail: the 10 Gbps receive row is "< 3 Gbps" and the model satisfies
# it (its error is the distance to the bound, not a miss). The 1 Gbps "meet or exceed 1 Gbps" bound fails by
# the framing alone: transmitting, the VM keeps its 1 Gbps uplink at its TCP payload capacity (the line rate
# less Ethernet/IP/TCP headers, `network.payload_rate_bps`) because the NIC drains the held output during the
# stun and the 8 x 4 MB of windows cover the added delay, but 1 Gbps of payload does not fit on a 1 Gbps line.
# The transaction-rate ratio of Figure 5 is **derived** (the paper carries the 57x over: "throughput drops
# identically"), so it is shown, not counted. The IOMeter ratios of Figure 6 are **predicted** rows (mean over
# each size's access patterns; writes wait the mirrored write's round trip); the per-pattern values are in
# Figure 6 and the qualitative checks below.

# %%
rows = fid[fid["study"] == ft.STUDY]
plotting.save_table(rows, output_dir, NOTEBOOK, "fidelity")
display(fidelity.summary(rows))
rows[["key", "kind", "locator", "quantity", "conditions", "paper_value", "model_value", "rel_error", "relation",
      "passed"]]

# %%
checks = ft.qualitative_checks()
plotting.save_table(checks, output_dir, NOTEBOOK, "qualitative_checks")
checks

# %% [markdown]
# ## How far to trust it — intervals and where the model extrapolates
#
# Every model number carries a 90 % interval: the calibration's parameter uncertainty (Gauss-Newton
# covariance of the fit) plus the model's own misfit for the row's data table, estimated from the fit's
# residuals and pooled across tables (never below the run-to-run noise), with Student-t quantiles;
# `docs/ARCHITECTURE.md` gives the method. The table says what makes each interval wide (shares of its
# variance). Each of the four parameters rests on its own figure: the checkpoint interval on Figure 5's 57x
# latency ratio alone (its share of that row's variance is printed below; its leave-one-out row is the study's
# worst), the
# kernel compile's dirty bytes on Figure 2's 7 s, the vCenter dirty rate on Load B, the vCenter client
# exchanges on Load A and browsing; the rest of every width is the model-form misfit the fit's residuals
# show. The predicted rows (IOMeter, Swingbench) take no parameter of their own, so their width is misfit.
#
# Where the model extrapolates: every FT run of the paper used one FT logging link on the same LAN (10 Gbps
# and a round trip of tens of microseconds, not printed: assumed, below), one FT VM per host pair and 1-4
# vCPUs. The FT link rate, its round trip (metro distances), its loss, several FT VMs sharing it and the
# per-release SMP-FT vCPU limit are mechanisms of the model the paper never measured: there the band says
# how well the parameters are known, not whether the mechanism holds. The figure sweeps the FT link rate
# for Figure 2's kernel compile: above the paper's 10 Gbps (dotted) the shipping time per epoch shrinks and
# the stun tends to its fixed part; below it the stun grows as the link becomes the bottleneck.

# %%
drivers = protocol.width_drivers(ft)
plotting.save_table(drivers, output_dir, NOTEBOOK, "interval_width_drivers")
display(drivers[drivers["role"].isin(["fit", "predicted"])].round(2))
_links = np.geomspace(1e9, 1e11, 13)
_kc = protocol.with_interval(ft.kernel_compile_values, ft_link_bps=_links[:, None], output="increase_s")
_vcpus = ft.testbed().kernel_compile_vcpus
band = pd.DataFrame([{"ft_link_bps": b, "vcpus": int(n), "increase_s": _kc.value[i, j], "low_s": _kc.low[i, j],
                      "high_s": _kc.high[i, j]} for i, b in enumerate(_links) for j, n in enumerate(_vcpus)])
plotting.save_table(band, output_dir, NOTEBOOK, "kernel_compile_vs_ft_link_interval")
_kc_paper = fid[(fid["study"] == ft.STUDY) & (fid["key"] == "kernel_compile_increase") & (fid["kind"] == "fitted")]
fig, ax = plt.subplots(figsize=(6.4, 3.2))
plotting.interval_sweep(ax, _links / 1e9, [(f"model: {int(n)} vCPU", _kc.value[:, j], _kc.low[:, j], _kc.high[:, j])
                                          for j, n in enumerate(_vcpus)],
                        measured_x=(10,), paper=[(10, float(_kc_paper["paper_value"].iloc[0]),
                                                  "paper: about 7 s (Figure 2)")],
                        logy=True, xlabel="FT logging link (Gbps); dotted: the paper's 10 Gbps",
                        ylabel="kernel compile: FT-on increase (s)")
plotting.finish(fig)
plotting.save_figure(fig, output_dir, NOTEBOOK, "kernel_compile_vs_ft_link_interval")
plt.show()

# %%
_rr_share = drivers.set_index("key").loc["tcp_rr_latency_ratio", "checkpoint_interval_s"]
display(Markdown(
    f"Run-to-run noise floor: {prose.pct(protocol.noise_floor(), 1)} per number. The checkpoint interval makes "
    f"{prose.pct(_rr_share)} of the variance of Figure 5's latency ratio. Assumed FT-link round trip: "
    f"{ft.DEFAULT_FT_ACK_RTT_S * 1e6:.0f} us."))

# %% [markdown]
# ## What if? — FT link speed, checkpoint interval, receive rate, dirty rate
#
# The readout gives the FT logging bandwidth and its share of the link, the added latency per packet, and the
# throughput with FT as a share of FT off for a pure latency benchmark (TCP_RR), a CPU-bound job and the DVD
# Store closed loop, each as "value (low–high, 90 %)": with the calibrated checkpoint interval (the slider at
# its start) the interval's calibration uncertainty propagates through each readout (delta method); an interval
# set by hand is an input, so only the noise of one measured run remains. Headless
# (`vcperf regenerate -p whatif_ft_link_gbps=25 --scenario x`) the same panel image and a table are saved.

# %%
if interactive:
    display(ft_views.whatif(whatif_ft_link_gbps * 1e9, None, whatif_receive_gbps * 1e9, whatif_dirty_mb_per_s * 1e6))
else:
    # Headless what-if (``vcperf regenerate -p whatif_ft_link_gbps=25 --scenario x``): the panel's image and a
    # table of the same model at the chosen FT link, with 90 % intervals from the calibration where cheap.
    link_bps = whatif_ft_link_gbps * 1e9
    readout, png = ft_views.whatif_update(link_bps, None, whatif_receive_gbps * 1e9, whatif_dirty_mb_per_s * 1e6)
    plotting.save_png(png, output_dir, NOTEBOOK, "whatif")
    kc = protocol.with_interval(ft.kernel_compile_values, ft_link_bps=link_bps, output="increase_s")
    wi_val, wi_lo, wi_hi, _ = ft_views.whatif_intervals(link_bps, None, whatif_receive_gbps * 1e9,
                                                        whatif_dirty_mb_per_s * 1e6)
    tb = ft.testbed()
    e = params.checkpoint_interval_s
    whatif_table = pd.DataFrame({
        "quantity": ["ft_link_gbps", "kernel_compile_increase_4vcpu_s", "kernel_compile_increase_low_s",
                     "kernel_compile_increase_high_s", "netperf_10g_receive_gbps", "tcp_rr_latency_ratio",
                     "iometer_64KB_write_ratio", "dvdstore_throughput_ratio", "turn_on_time_s (8 GB VM, 40 GB disk)"],
        "value": [whatif_ft_link_gbps, float(kc.value[-1]), float(kc.low[-1]), float(kc.high[-1]),
                  float(ft.netperf_throughput_bps(10e9, "receive", True, e, link_bps, vcpus=4, **tb.netperf_kw())) / 1e9,
                  ft.tcp_rr(e, ft_link_bps=link_bps, vcpus=4).latency_ratio,
                  ft.testbed_iometer(64e3, 1.0, ft_link_bps=link_bps).throughput_ratio,
                  ft.database_workload("dvdstore", ft_link_bps=link_bps).throughput_ratio,
                  float(ft.turn_on_time_s(40e9, 8e9, 1e8, link_bps))],
    })
    whatif_table = pd.concat([whatif_table, pd.DataFrame({
        "quantity": ["added_latency_per_packet_ms", "added_latency_per_packet_low_ms",
                     "added_latency_per_packet_high_ms", "ft_logging_gbps", "ft_logging_low_gbps",
                     "ft_logging_high_gbps"],
        "value": [wi_val[1] * 1e3, wi_lo[1] * 1e3, wi_hi[1] * 1e3, wi_val[0] / 1e9, wi_lo[0] / 1e9, wi_hi[0] / 1e9],
    })], ignore_index=True)
    plotting.save_table(whatif_table, output_dir, NOTEBOOK, "whatif")
    print(readout)
    print(f"kernel compile increase (4 vCPUs): {kc}")
    whatif_table
