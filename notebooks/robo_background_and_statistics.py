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
# # ROBO study — background (host-sync) and statistics traffic (Figures 2-7)
#
# The paper (vCenter 6.7 in remote and branch offices: 128 hosts, 24 powered-on
# VMs per host, eight network types of Table 1). Two of the study's three traffic sources are modelled
# here as mechanisms in `vcperf.robo`:
#
# * **Host sync** — every powered-on VM's quick statistics change once per 20 s real-time interval and
#   each change is one small TCP message host → vCenter; vpxa adds a heartbeat every 10 s. The reverse
#   direction is only the TCP ACKs of those messages. One parameter (bytes per change) is fitted to the
#   one printed number, 3.75 Kbps at 24 VMs.
# * **Statistics** — one upload per host every 30 min carries six 5-minute samples of every counter
#   series; series = counters per entity × device instances, by level (Table 2: Level-2 adds a few
#   aggregate counters, Level-3 adds every counter group and per-device series, Level-4 adds min/max
#   rollups). One parameter (bytes per sample) is fitted to the ~3.5 MB Level-4 upload. The counter
#   counts are modelling assumptions, not paper numbers. Bursts of many hosts behind one link share it
#   with the other traffic as TCP flows (processor sharing, `vcperf.robo.branch`): one link for host
#   sync, statistics and operations.
#
# The paper prints almost no numbers for these figures (they are charts); the curves are the model's and
# the few stated facts are drawn as black markers or lines.

# %% tags=["parameters"]
interactive = True  # -: show the what-if panel (regeneration runs with False)
output_dir = "../build"  # path: folder that receives figures/ and tables/
planner_network = "dsl_512k"  # -, one of ["satellite", "nz_to_uk", "singapore_to_us", "dsl_512k", "t1", "cellular_4g", "cellular_5g", "lan"]: link of the capacity planner
planner_bandwidth_mbps = 0.0  # Mbit/s, range [0, 100000]: bandwidth of a custom planner link (0: use planner_network)
planner_rtt_ms = 0.0  # ms, range [0, 5000]: round-trip time of the custom link (with planner_bandwidth_mbps > 0)
planner_loss_percent = 0.0  # %, range [0, 50]: packet loss of the custom link (with planner_bandwidth_mbps > 0)
planner_hosts = 10  # hosts, range [1, 500]: hosts sharing the branch link
planner_level = 4  # -, one of [1, 2, 3, 4]: statistics level of the capacity planner
planner_vms_per_host = 24.0  # VMs, range [0, 200]: powered-on VMs per host
planner_operation = "clone_vm"  # -, one of ["add_port_group", "remove_port_group", "clone_vm", "create_folder", "delete_folder", "create_snapshot", "delete_snapshot", "group_power_on", "vmotion_vm", "power_on_vm", "power_off_vm", "reconfigure_vm", "register_vm", "unregister_vm", "relocate_vm", "remove_vm", "reset_vm", "suspend_vm", "resume_vm", "create_vm"]: operation started during a statistics burst
planner_target_s = 10.0  # s, range [1, 1000]: latency target of the reverse question

# %%
import vcperf.params; vcperf.params.check_notebook_parameters(globals(), "robo_background_and_statistics")  # noqa: E702, I001 - checks the parameters above, however the notebook is run
# %matplotlib inline
import dataclasses

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

from vcperf import data, fidelity, plotting, robo
from vcperf.views import robo as robo_views

NOTEBOOK = "robo_background_and_statistics"
plotting.use_style()
fid = fidelity.table(["robo2019"])
vms_testbed = robo.testbed_powered_on_vms()

# %% [markdown]
# ## Calibrated parameters
#
# Two of the study's six fitted parameters belong to this notebook: `hostsync.bytes_per_change` and
# `stats.bytes_per_sample`, each fitted to one printed number; everything else below is predicted, derived
# or a bound. The statistics number cannot be held out (its loo row is "not estimable"). The host-sync one
# now can: the host-sync message also sets the size of a VM's state in the operation and add-host models
# (`robo.vm_state_bytes()`), so without it the three VCbench latencies determine it (its loo row in the
# ledger below says how well; see robo_operations).

# %%
calib = robo.parameter_table()
plotting.save_table(calib, output_dir, NOTEBOOK, "calibrated_parameters")
display(calib)
from IPython.display import Markdown  # noqa: E402

from vcperf import prose  # noqa: E402

hostsync_loo = fid[(fid["key"] == "hostsync_traffic_24vms") & (fid["kind"] == "loo")].iloc[0]
display(Markdown(f"Host-sync traffic at 24 VMs predicted without its own number: "
                 f"{hostsync_loo['model_value'] / 1e3:.1f} Kbps against the printed {hostsync_loo['paper_value'] / 1e3:.2f} "
                 f"Kbps ({prose.pct(hostsync_loo['rel_error'], signed=True)})."))

# %% [markdown]
# ## Figures 2-3 — host-sync traffic of one host vs powered-on VMs
#
# Host → vCenter grows linearly with powered-on VMs above the heartbeat; vCenter → host is only ACKs
# (one 40-byte ACK per single-segment change message) and stays well below the other direction, as the
# paper says ("mainly consists of TCP acknowledgement packets").

# %%
stated_bg = fid[(fid["key"] == "hostsync_traffic_24vms") & (fid["kind"] == "fitted")].iloc[0]
fig = robo_views.hostsync_figure(stated=(vms_testbed, stated_bg["paper_value"] / 1e3))
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure02_03_hostsync")
plt.show()
grid = np.array([0, 8, 16, 24, 32, 48], dtype=float)
sync = robo.host_sync_traffic(grid)
hs_table = pd.DataFrame({"powered_on_vms": grid, "host_to_vc_Kbps": sync.host_to_vc_bps / 1e3,
                         "vc_to_host_Kbps": sync.vc_to_host_bps / 1e3})
plotting.save_table(hs_table, output_dir, NOTEBOOK, "hostsync_traffic")
hs_table.round(3)

# %% [markdown]
# ### Tens of hosts sharing one branch link
#
# The paper: all networks "can easily support" host sync, "even if tens of ESXi hosts were deployed at a
# single site, all sharing a network link". The model's host-sync utilization of each link type:

# %%
fig = robo_views.hostsync_sharing_figure()
plotting.save_figure(fig, output_dir, NOTEBOOK, "hostsync_shared_link_utilization")
plt.show()
share = pd.DataFrame([{"network": robo.preset(n).name, "hosts": h,
                       "utilization_percent": 100 * float(robo.host_sync_link_utilization(h, robo.preset(n)).host_to_vc_bps)}
                      for n in robo.preset_names() for h in (10, 50)])
plotting.save_table(share, output_dir, NOTEBOOK, "hostsync_shared_link_utilization")
share.pivot(index="network", columns="hosts", values="utilization_percent").round(3)

# %% [markdown]
# ## Figures 4-5 — statistics traffic (host → vCenter, host sync included)
#
# The upload is averaged over its 30-minute period, as the paper's averages are. Level-1 and Level-2 stay
# close together; Level-3 and Level-4 jump because of per-device series.

# %%
fig = robo_views.stats_traffic_figure()
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure04_05_stats_traffic")
plt.show()

# %% [markdown]
# ## Figure 6 — statistics data per upload
#
# The ~3.5 MB Level-4 point is the calibration point (the paper does not say for how many VMs; the model
# takes the testbed's 24). The level ratios are derived: they depend only on the counter counts (stated assumptions no parameter moves);
# the paper only says "close" (L2 vs L1, L4 vs L3) and "considerable increase" (L3 vs L2, a bound).

# %%
stated_size = fid[(fid["key"] == "stats_size_level4") & (fid["kind"] == "fitted")].iloc[0]
fig = robo_views.stats_size_figure(stated=(vms_testbed, stated_size["paper_value"]))
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure06_stats_data_size")
plt.show()
levels = np.array(robo.LEVELS)
size_table = pd.DataFrame({f"{int(v)} VMs (KB)": robo.statistics_payload_bytes(levels, v) / 1e3 for v in (8, 16, 24, 32)},
                          index=[f"Level-{lvl}" for lvl in levels])
plotting.save_table(size_table.reset_index(names="level"), output_dir, NOTEBOOK, "stats_data_size")
size_table.round(0)

# %% [markdown]
# ## Figure 7 — vCenter → host during statistics (ACKs only), with the paper's bound

# %%
fig7 = data.load("robo2019/figure07_stats_traffic_vc_to_host")
bound = fig7[fig7["quantity"] == "stats_traffic"].iloc[0]
fig = robo_views.stats_reverse_figure(bound_kbps=float(bound["value"]))
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure07_stats_traffic_vc_to_host")
plt.show()

# %% [markdown]
# ## Bursts — how long one upload saturates each link type
#
# The paper: about 3.5 MB at Level-4 "would take about 1 minute" on 512 Kbps DSL and "fully saturate
# the network bandwidth". The model moves the upload with TCP over each Table 1 link
# (`vcperf.network.transfer_time_s`). The minute is the paper's own arithmetic (3.5 MB × 8 / 512 Kbps),
# so the ledger shows it as *derived*, not as a prediction.

# %%
stated_t = fid[fid["key"] == "stats_upload_time_level4_dsl"].iloc[0]
fig = robo_views.burst_figure(stated=("dsl_512k", stated_t["paper_value"]))
plotting.save_figure(fig, output_dir, NOTEBOOK, "statistics_burst_duration")
plt.show()
burst = pd.DataFrame([{"network": robo.preset(n).name, "level": lvl,
                       "burst_s": float(robo.statistics_upload_time_s(robo.statistics_payload_bytes(lvl, vms_testbed), robo.preset(n)))}
                      for n in robo.preset_names() for lvl in robo.LEVELS])
plotting.save_table(burst, output_dir, NOTEBOOK, "statistics_burst_duration")
burst.pivot(index="network", columns="level", values="burst_s").round(2)

# %% [markdown]
# ## Capacity planner — H hosts behind one shared link
#
# Host sync, statistics uploads and VM operations share the branch link as TCP flows. The host sync of all
# hosts is a steady rate reserved off the top. vCenter's 5-minute stagger starts `H / 6` uploads together
# (more overlap when one group's burst outlasts its slot); while they run, every flow on the uplink gets an
# equal share of what the host sync leaves (processor sharing). A message of other traffic is therefore
# slowed, not queued behind whole uploads: its mean added delay is `x ρ / (1 − ρ)` for a message that
# alone takes `x` (M/G/1-PS, insensitive to the spread of upload sizes), never more than the time to send
# everything in flight, so it stays finite at overload. The FCFS M/G/1 view of a previous version made a
# 4 KB message wait behind whole uploads, orders of magnitude more than TCP flows sharing a link see (the
# model's delays on DSL are printed below the table). The table gives, per network and level, the statistics
# load, the added delay of a 4 KB message, one upload's time during its burst, and the latency of the
# planner's operation started during a burst (and without one).

# %%
from vcperf import network  # noqa: E402

link = (network.Link(planner_bandwidth_mbps * 1e6, planner_rtt_ms / 1e3, loss=planner_loss_percent / 100,
                     name=f"custom: {planner_bandwidth_mbps:g} Mbit/s, {planner_rtt_ms:g} ms, {planner_loss_percent:g} % loss")
        if planner_bandwidth_mbps > 0 else robo.preset(planner_network))
fig = robo_views.capacity_figure(link, planner_hosts, planner_level, planner_vms_per_host,
                                 operation=planner_operation)
plotting.save_figure(fig, output_dir, NOTEBOOK, "capacity_planner")
plt.show()
rows = []
for n in robo.preset_names():
    for lvl in (1, 4):
        load = robo.statistics_link_load(planner_hosts, robo.preset(n), lvl, planner_vms_per_host)
        shared = robo.plan(n, planner_hosts, lvl, planner_operation, planner_vms_per_host)
        rows.append({"network": robo.preset(n).name, "level": lvl, "statistics_load_percent": 100 * float(load.busy_fraction),
                     "delay_added_to_4KB_ms": 1e3 * float(load.added_delay_s),
                     "upload_during_burst_s": float(shared.statistics_delay_s),
                     f"{planner_operation}_during_burst_s": float(shared.operation_latency_s),
                     f"{planner_operation}_no_burst_s": float(shared.operation_latency_idle_s),
                     "group_overruns_5min_slot": bool(load.group_overruns_slot)})
planner = pd.DataFrame(rows)
plotting.save_table(planner, output_dir, NOTEBOOK, "capacity_planner")
print(f"{planner_hosts} hosts, {planner_vms_per_host:g} VMs per host")
display(planner.round(3))
_ps = {h: float(robo.statistics_link_load(h, link, 4).added_delay_s) for h in (10, 30)}
display(Markdown(f"Under processor sharing a 4 KB message on the planner's link ({link.name}) waits "
                 f"{prose.sig(_ps[10])} s more during the Level-4 uploads of 10 hosts and {prose.sig(_ps[30])} s more "
                 "with 30 hosts (testbed VMs per host)."))

# %% [markdown]
# ### The reverse question — the smallest link for a target
#
# For a given RTT and loss, the smallest link rate that keeps the operation's latency during a burst (or
# one host's statistics upload) under a target, for H hosts: one call each,
# `robo.required_bandwidth_bps(target_s, n_hosts, rtt_s, loss, level=..., quantity=...)`, by bisection on
# the monotone model. `inf` means no bandwidth is enough: the RTT-bound critical path alone exceeds the
# target. The readout with its 90 % interval comes from the calibration's covariance.

# %%
from vcperf import protocol  # noqa: E402

iv = protocol.with_interval(robo.plan, link, planner_hosts, planner_level, planner_operation,
                            planner_vms_per_host, output="operation_latency_s")
print(f"{planner_operation} during a Level-{planner_level} burst of {planner_hosts} hosts on {link.name}: {iv} s")
need = []
for n in robo.preset_names():
    lk = robo.preset(n)
    need.append({"network (RTT, loss)": f"{lk.name} ({lk.rtt_s * 1e3:g} ms, {lk.loss * 100:g} %)",
                 f"{planner_operation} <= {planner_target_s:g} s (Mbps)": robo.required_bandwidth_bps(
                     planner_target_s, planner_hosts, lk.rtt_s, lk.loss, planner_level, operation=planner_operation,
                     powered_on_vms=planner_vms_per_host) / 1e6,
                 "upload <= 60 s (Mbps)": robo.required_bandwidth_bps(
                     60.0, planner_hosts, lk.rtt_s, lk.loss, planner_level, quantity="statistics_delay",
                     powered_on_vms=planner_vms_per_host) / 1e6})
need = pd.DataFrame(need)
plotting.save_table(need, output_dir, NOTEBOOK, "smallest_link")
need.round(3)

# %% [markdown]
# ## Fidelity — paper vs model, and the paper's bounds
#
# Kinds: *fitted* rows were used for calibration; the statistics-size *loo* row is "not estimable" (one
# parameter, one number), the host-sync one is the refit from the VCbench latencies (see above);
# the level ratios are *derived* (functions of the stated counter counts alone); the one-minute upload is *derived*; "less
# than 1 Kbps" (Figure 7) and "considerable increase" (L3 vs L2) are *bound* rows, pass or fail. The
# paper's "much lower than 512 Kbps" for the background traffic is not in the ledger: the model's 24-VM
# background traffic is the fitted 3.75 Kbps, so that bound cannot fail (the table below still shows it).
#
# **The Level-2/Level-1 ratio is an honest miss (below the table: a derived row against "close to" 1).**
# In this mechanism the upload size is proportional to the number of
# counter series, so the ratio is the ratio of series counts, and nothing in the paper fixes it: Table 2
# defines the levels by *which* counters they include, not how many. Read literally, Table 2 makes Level-2
# far larger than Level-1 — Level-1 is "Average Usage for CPU, Memory, Disk, and Network; System Uptime,
# System Heartbeat, and DRS metrics" (about eight counters per entity), Level-2 "all metrics for CPU,
# Memory, Disk, and Network counters" (several times more) — which would contradict the observation that
# the two sizes are close. Both levels exclude device instances and min/max rollups, so the mechanism
# does reproduce the structure the paper reports (Level-3 jumps because of per-device series, Level-4 adds
# a few min/max rollups). The counts in `robo.CounterModel` (aggregate counters of a host and a VM at
# Levels 1 and 2, below) are assumptions approximated from VMware's per-level counter lists, in which
# Level-1 already holds most aggregate CPU and memory counters, not only the four "Average Usage" ones;
# they are not fitted, and a count chosen to make the ratio 1.00 would be a knob, not a mechanism. The ~3.5 MB Level-4 calibration point is unaffected.

# %%
sources = ["robo2019/figure02_hostsync_host_to_vc", "robo2019/figure06_stats_data_size",
           "robo2019/figure07_stats_traffic_vc_to_host"]
rows = fid[fid["source"].isin(sources)]
plotting.save_table(rows, output_dir, NOTEBOOK, "fidelity")
display(rows[["kind", "locator", "quantity", "conditions", "paper_value", "model_value", "rel_error", "relation",
              "passed", "note"]])
bounds = fidelity.paper_vs_model("robo2019", kinds=["bound"])
dsl_bps = data.value("robo2019/figure02_hostsync_host_to_vc", "background_traffic", "si", network="dsl_512k")
background_bps = float(robo.host_sync_traffic(vms_testbed).host_to_vc_bps)
bounds.loc[len(bounds)] = {"locator": "Background Traffic", "quantity": "background_traffic",
                           "conditions": "24 VMs vs DSL (not in the ledger: fitted value)", "kind": "display",
                           "paper": dsl_bps / 1e3, "model": background_bps / 1e3, "unit": "Kbps",
                           "error_percent": float("nan"), "passed": background_bps < dsl_bps,
                           "note": "constant by construction: the fitted 3.75 Kbps"}
plotting.save_table(bounds, output_dir, NOTEBOOK, "bound_checks")
display(bounds)
_r21 = fid[fid["key"] == "stats_size_ratio_l2_l1"].iloc[0]
_r43 = fid[fid["key"] == "stats_size_ratio_l4_l3"].iloc[0]
_counts = {f.name: f.default for f in dataclasses.fields(robo.CounterModel)}
display(Markdown(
    f"Level-2/Level-1: model {_r21['model_value']:.2f} against \"close to\" {_r21['paper_value']:g} "
    f"({prose.pct(_r21['rel_error'], signed=True)} on a predicted row); L4/L3 = {_r43['model_value']:.2f}. Assumed "
    f"aggregate counters at Levels 1 → 2: host {_counts['host_aggregate'][0]} → {_counts['host_aggregate'][1]}, "
    f"VM {_counts['vm_aggregate'][0]} → {_counts['vm_aggregate'][1]}."))

# %% [markdown]
# ## What if? — statistics capacity planner
#
# Pick a network (or set your own link), the number of hosts behind it, the statistics level, the VMs per
# host (up to 200), the operation and a latency target: the readout gives the statistics load, the delay
# added to other traffic, the operation's latency during a burst and the smallest link that meets the
# target at your RTT and loss. The panel starts on the preset.

# %%
if interactive:
    display(robo_views.capacity_planner(planner_network, planner_hosts, planner_level, planner_vms_per_host,
                                        planner_operation, planner_target_s))
