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
# # ROBO study — VM and host operations over branch links (Figures 8-15)
#
# Seed: `001_36d9adf7ffa34fcf.txt` (vCenter 6.7 in remote and branch offices). VCbench runs the 19
# operations of Table 3 with 8 closed-loop SDK clients over each Table 1 network. In `vcperf.robo` an
# operation is vCenter-local work plus a list of host calls (Figure 8 shows CreateVM's: ReserveName,
# Provision VM, Get-Changes), each call one exchange carrying its request and response as whole messages
# plus a few empty round trips (task creation, progress, completion), costed as short messages on an idle
# connection (`robo.message_exchange_time_s`: RTT, link rate, slow start, and loss recovered by a
# retransmission timeout). The closing Get-Changes host sync returns "the final state" (Figure 8) of the
# VM(s) the operation created or changed — the same per-VM state the add-host inventory sync carries
# (`robo.BYTES_PER_VM_CONFIG`, an assumption shared by both workloads, not a fitted knob). The clients are the
# customers of a closed queueing network — vCenter's 8 vCPUs (Seidmann's multi-server approximation) and
# the network as a delay — solved by exact MVA (`vcperf.queueing.mva`). Two parameters (vCenter demand
# per operation, round trips per host call) are fitted to the three stated mean latencies (0.9 s LAN,
# 2.7 s DSL, 8.3 s satellite); adding a host is local work plus a long inventory sync (two parameters
# fitted to 15 s, 2 min 10 s, 2 min 10 s and 9 min). The leave-one-out (*loo*) rows give the held-out
# error: each refit drops every number stated for a network of the same RTT (LAN 1 ms; DSL and T1 100 ms;
# satellite 500 ms), so the DSL add-host time is never predicted from the T1 one printed in the same
# sentence.
#
# Most figures are charts without printed numbers: they are shown as model curves, with the stated
# facts as black markers.

# %% tags=["parameters"]
interactive = True  # -: show the what-if panel (regeneration runs with False)
output_dir = "../build"  # path: folder that receives figures/ and tables/
whatif_network = "dsl_512k"  # -, one of ["satellite", "nz_to_uk", "singapore_to_us", "dsl_512k", "t1", "cellular_4g", "cellular_5g", "lan"]: preset the what-if panel starts from
whatif_clients = 8  # clients, range [1, 64]: concurrent VCbench clients
whatif_operation = "clone_vm"  # -, one of ["add_port_group", "remove_port_group", "clone_vm", "create_folder", "delete_folder", "create_snapshot", "delete_snapshot", "group_power_on", "vmotion_vm", "power_on_vm", "power_off_vm", "reconfigure_vm", "register_vm", "unregister_vm", "relocate_vm", "remove_vm", "reset_vm", "suspend_vm", "resume_vm", "create_vm"]: operation shown in the what-if panel
sequence_network = "dsl_512k"  # -, one of ["satellite", "nz_to_uk", "singapore_to_us", "dsl_512k", "t1", "cellular_4g", "cellular_5g", "lan"]: link whose times label the Figure 8 diagram

# %%
# %matplotlib inline
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display

from vcperf import fidelity, network, plotting, robo
from vcperf.views import robo as robo_views

NOTEBOOK = "robo_operations"
plotting.use_style()
fid = fidelity.table(["robo2019"])
fit_targets = [t for t in robo.targets() if t.role == "fit"]
stated_latency = {dict(t.conditions)["network"]: t.paper_value() for t in fit_targets if t.key.startswith("op_latency_")}
stated_add_host = {dict(t.conditions)["network"]: t.paper_value() for t in fit_targets if t.key.startswith("add_host_")}

# %% [markdown]
# ## Calibrated parameters (vCenter demand and round trips: 3 points; add host: 4 points)

# %%
calib = robo.parameter_table()
plotting.save_table(calib, output_dir, NOTEBOOK, "calibrated_parameters")
calib

# %% [markdown]
# ## Figure 8 — CreateVM as the model's exchange list
#
# The three vCenter → host calls come from the paper's step list (`figure08_createvm_sequence.csv`); each
# is labelled with its modelled time over the chosen link. Request and response sizes are assumptions; the
# Get-Changes response is the new VM's state (20 KB, the same per-VM state as in the add-host sync).

# %%
fig = robo_views.sequence_figure("create_vm", network.preset(sequence_network))
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure08_createvm_sequence")
plt.show()

# %% [markdown]
# ## Figures 9-10 — VCbench throughput and mean latency per network (8 clients)
#
# The paper prints only three latencies; the throughput markers are those latencies turned into
# throughput by Little's law (`X = 8 / R`, zero think time) — derived, not printed. Open red circles:
# the loo predictions, each stated latency predicted by a fit to the other two (the three networks have
# three different RTTs).

# %%
fig = robo_views.vcbench_figure(stated=stated_latency, loo=robo.loo_by_network("op_latency_"))
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure09_10_vcbench")
plt.show()
bench = pd.DataFrame([{"network": network.preset(n).name, "rtt_ms": network.preset(n).rtt_s * 1e3,
                       "throughput_ops_per_min": 60 * r.throughput_per_s, "mean_latency_s": r.mean_latency_s,
                       "network_time_s": r.network_delay_s, "vcenter_vcpu_busy_percent": 100 * r.vcenter_utilization}
                      for n in network.preset_names() for r in [robo.vcbench(network.preset(n))]])
plotting.save_table(bench, output_dir, NOTEBOOK, "vcbench")
bench.round(3)

# %% [markdown]
# ### Latency grows far slower than RTT
#
# From LAN to DSL the RTT grows 100×, the stated latency 3×; from DSL to satellite 5× and 3×. In the
# model, vCenter-local work (~0.73 s per operation) dominates on fast links, and only the RTT-bound part
# of an operation (a few host calls × ~6 round trips) scales with the RTT. On the 0.5 Mbps DSL link,
# serializing the calls' bytes (mostly the VM state the Get-Changes syncs return) takes about 0.44 s of the
# 1.9 s of network time per operation; on satellite (10 Mbps) 0.02 s. So from DSL to satellite the network
# time grows ×4 for a ×5 RTT, and the latency ×3.2 (paper ×3.1) because the vCenter part does not grow.

# %%
fig = robo_views.latency_vs_rtt_figure(stated=stated_latency)
plotting.save_figure(fig, output_dir, NOTEBOOK, "latency_vs_rtt")
plt.show()

# %% [markdown]
# ## Figure 11 — latency of each operation
#
# Folder create/delete never talk to a host: their network time is zero on every link. With 8 clients
# their latency still drifts slightly (about −17 % from LAN to satellite) because vCenter is less loaded
# when the other operations wait on the network; the paper says they "do not change". With one client the
# model's folder latency is exactly flat.

# %%
fig = robo_views.per_operation_figure()
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure11_per_operation_latency")
plt.show()
per_op = pd.DataFrame({network.preset(n).name: robo.vcbench(network.preset(n)).per_operation_latency_s
                       for n in network.preset_names()})
plotting.save_table(per_op.reset_index(names="operation"), output_dir, NOTEBOOK, "per_operation_latency")
per_op.round(2)

# %% [markdown]
# ## Figures 12-13 — traffic between vCenter and one host during VCbench
#
# Operation bytes × throughput spread over the 128 hosts, plus host sync and Level-1 statistics (the
# paper's figures include both). Traffic falls with RTT because throughput does, as the paper says; no
# link comes near saturation.

# %%
fig = robo_views.vcbench_traffic_figure()
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure12_13_vcbench_traffic")
plt.show()

# %% [markdown]
# ## Figures 14-15 — add host
#
# Add host = vCenter-local work + a full inventory sync of ~1000 round trips. DSL and T1 (same RTT,
# 3× different bandwidth) take the same stated time, so the inventory's bytes barely matter; they are
# fixed by assumption (30 registered VMs × 20 KB + 200 KB of host configuration). Remove host and
# maintenance mode are not modelled (the paper prints no number for them). Open red circles: the loo
# predictions; DSL and T1 (both 100 ms) are held out together and predicted from LAN and satellite.

# %%
fig = robo_views.add_host_figure(stated=stated_add_host, loo=robo.loo_by_network("add_host_"))
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure14_15_add_host")
plt.show()

# %% [markdown]
# ## Fidelity — paper vs model
#
# *fitted* rows were used for calibration; *loo* rows are the same numbers predicted by a refit without
# every number of the same network RTT. Two parameters (vCenter demand, round trips per call) are fitted
# to three latencies; the fit is within 2 % and each loo latency is predicted within 10 % (LAN from DSL
# and satellite: +10 %). The two "3 times" ratios of the text are *derived* (2.7 / 0.9 and 8.3 / 2.7, both
# sides fitted): shown within 6 %, not counted. Add host: two parameters fitted to four times (within
# 6 %); loo within 10 % (LAN +9 %; DSL and T1, held out together, +5 % and −5 %).
#
# The LAN leave-one-out is the sensitive one: predicting LAN from DSL and satellite means telling apart,
# from two points, the part of an operation that scales with RTT and the part that scales with the bytes
# on a 0.5 Mbps link — and the bytes rest on the assumed size of one VM's state. With the 20 KB assumed for
# the add-host inventory (before this use of it, unchanged) the LAN extrapolation is +10 %; it would be
# +19 % at 10 KB, 0 % at 25 KB and −9 % at 30 KB. The model keeps the shared 20 KB rather than choosing the
# value that fits best. With every response a plain 4 KB (no VM state) the DSL point has too little
# bandwidth-bound time and the same extrapolation misses by about +30 %.

# %%
rows = fid[fid["source"].isin(["robo2019/figure10_vcbench_latency", "robo2019/figure14_host_op_latency"])]
plotting.save_table(rows, output_dir, NOTEBOOK, "fidelity")
rows[["kind", "locator", "quantity", "conditions", "paper_value", "model_value", "rel_error", "relation", "note"]]

# %% [markdown]
# ## What if? — network, clients, operation
#
# Choose a preset or move the sliders (custom link), the number of clients and an operation: the left
# panel is throughput and latency vs clients on your link, the right one the operation's latency split
# into vCenter and network time on every network type and on yours.

# %%
if interactive:
    display(robo_views.operations_whatif(whatif_network, whatif_clients, whatif_operation))
