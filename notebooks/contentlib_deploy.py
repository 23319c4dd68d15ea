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
# # Content Library — deploying a VM from a library template (Figure 4)
#
# The paper (Guan and Bergamasco, *How to Efficiently Deploy Virtual Machines from
# VMware vSphere Content Library*, VROOM! blog, July 2015). One 39 GB OVF template is deployed under four
# storage layouts: both datastores on one VAAI array (Exp 1), one ESXi host on both datastores over 8 Gb FC
# (Exp 2), datastores on two hosts so the copy crosses Ethernet (Exp 3, 1 and 10 GbE), and a compressed
# template on an NFS share mounted on vCenter, streamed and decompressed by the Transfer Service (Exp 4).
# The paper prints few numbers: Exp 2 ~20% slower than Exp 1, Exp 3 ~3x, Exp 4 ~7x, Exp 3 on 10 GbE ~ Exp 2,
# and Exp 4 1380 s on 1 GbE vs 1260 s on 10 GbE. `vcperf.contentlib` models each deployment as bytes
# moving through the stages of its data path: pipelined stages (array copy, host data mover = array
# service + FC wire per I/O by Little's law, NFC over Ethernet) run at the slowest stage's rate, while the
# Transfer Service's read -> decompress -> send loop is serial, so its stage times add.

# %% tags=["parameters"]
interactive = True  # -: show the what-if panel (regeneration runs with False)
output_dir = "../build"  # path: folder that receives figures/ and tables/
whatif_template_size_bytes = 39000000000.0  # bytes, range [1e8, 1e13]: template size of the what-if
whatif_layout = "different_hosts"  # -, one of ["same_vaai_array", "shared_fc_host", "different_hosts", "nfs_on_vcenter", "different_vcenters"]: storage layout of the what-if
whatif_network_bps = 1000000000.0  # bit/s, range [1e8, 1e11]: data network (host to host, NFS to vCenter)
whatif_mgmt_network_bps = 1000000000.0  # bit/s, range [1e8, 1e11]: management network vCenter to hosts
whatif_vcenter_vcpus = 16  # vCPU, range [1, 64]: vCPUs of the vCenter appliance
whatif_decompression_streams = 1  # disks, range [1, 16]: VMDK streams the Transfer Service decompresses at once
whatif_concurrent_deployments = 16  # deployments, range [1, 200]: largest number of simultaneous deployments

# %%
import vcperf.params; vcperf.params.check_notebook_parameters(globals(), "contentlib_deploy")  # noqa: E702, I001 - checks the parameters above, however the notebook is run
# %matplotlib inline
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

from vcperf import contentlib, data, fidelity, plotting, robo
from vcperf.views import contentlib as cl_views

NOTEBOOK = "contentlib_deploy"
plotting.use_style()

# %% [markdown]
# ## The testbed and the calibrated parameters
#
# Physical inputs come from the testbed table (8 Gb FC HBAs, 1 Gbps NICs, a 16-vCPU vCenter appliance)
# and from standards (8b/10b FC coding, Ethernet/TCP framing). Four rates are not physical constants and are
# calibrated (`contentlib.calibrate()`) by least squares to the six independent statements of Figure 4
# (Exp 2 ~20 % slower, Exp 3 ~3x on 1 GbE and ~ Exp 2 on 10 GbE, Exp 4 ~7x, 1380 s and 1260 s): six
# statements, four parameters. `fitted_from` lists the statements that move each parameter (computed from
# the calibration's Jacobian); `identifiable` says whether the six statements determine it.

# %%
display(data.load("contentlib2015/testbed")[["component", "quantity", "printed"]])
params = contentlib.parameter_table()
plotting.save_table(params, output_dir, NOTEBOOK, "calibrated_parameters")
params

# %% [markdown]
# ## Figure 4 — deployment time of the four experiments
#
# Model bars (solid: 1 GbE; hatched: the 10 GbE re-runs) beside the paper's statements (black dots). The
# paper prints only ratios and Exp 4's absolute times, so the right panel has paper points for Exp 4 only.

# %%
fig = cl_views.figure4_figure()
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure04_deploy_time")
plt.show()

# %% [markdown]
# ## Experiments table — the paper's layouts beside the model's path, time and bottleneck stage

# %%
setups = data.load("contentlib2015/experiments")
display(setups[setups["quantity"] == "setup"][["experiment", "printed"]])
experiments = contentlib.experiments_table()
plotting.save_table(experiments, output_dir, NOTEBOOK, "experiments_model")
experiments.round(3)

# %% [markdown]
# ## 10 GbE vs 1 GbE
#
# Exp 3 on 10 GbE equals Exp 2 by construction (the host data mover is the bottleneck of both): the row
# `exp3_10g_vs_exp2` is derived, neither a fit point nor a prediction.

# %%
fig = cl_views.network_figure()
plotting.save_figure(fig, output_dir, NOTEBOOK, "time_vs_network_speed")
plt.show()
from IPython.display import Markdown  # noqa: E402

from vcperf import prose  # noqa: E402

tb = contentlib.testbed()
exp3_1g = contentlib.path_stages("host_to_host", network_bps=tb.nic_bandwidth_bps)
nfc_share = 8 / float(exp3_1g.time_per_byte_s()) / tb.nic_bandwidth_bps  # NFC rate / line rate
exp4 = {bps: float(contentlib.deploy_time_s("streaming", tb.template_size_bytes, network_bps=bps))
        for bps in (tb.nic_bandwidth_bps, tb.alt_network_bps, 10 * tb.alt_network_bps)}
exp4_gain_s = exp4[tb.nic_bandwidth_bps] - exp4[tb.alt_network_bps]
exp4_beyond = 1 - exp4[10 * tb.alt_network_bps] / exp4[tb.alt_network_bps]
display(Markdown(
    f"Exp 3 is bound by NFC over 1 GbE ({prose.pct(nfc_share)} of the line rate); on 10 GbE the host data "
    "mover becomes the bottleneck, so Exp 3 equals Exp 2 — the paper's observation, predicted without fitting "
    f"it. Exp 4 gains only the compressed network read (about {prose.sig(exp4_gain_s)} s) because decompression "
    "on one Transfer Service thread and the 1 GbE management hop to the host stay; a network ten times faster "
    f"than 10 GbE changes it by {prose.pct(exp4_beyond, 1)}."))

# %% [markdown]
# ## Fidelity — the ledger of this study
#
# Every row has a kind: **fitted** (used by the calibration), **loo** (the same number predicted by a refit
# without it and without the other numbers of the same run), **derived** (a restatement of other numbers:
# shown, not counted). With four parameters and five runs the refits are thin: without Exp 3 on 1 GbE
# nothing else separates the NFC efficiency from decompression, and without either Exp 4 run compression and
# decompression are confounded, so those loo rows are *not estimable* (NaN) rather than a made-up number.
# The one estimable loo row (Exp 2) is the only real out-of-sample prediction; Exp 3 on 10 GbE ~ Exp 2 holds
# by construction and is derived, not counted.

# %%
fid = fidelity.table(["contentlib2015"])
plotting.save_table(fid, output_dir, NOTEBOOK, "fidelity")
display(fidelity.paper_vs_model("contentlib2015", kinds=fidelity.KINDS))
print(fidelity.format_summary(fidelity.summary(fid)))
row = fid.set_index(["key", "kind"])
slow, ratio = row.loc[("exp2_slowdown", "fitted")], row.loc[("exp2_ratio", "derived")]
fc_payload_Bps = tb.fc_bandwidth_bps * contentlib.FC_ENCODING_EFFICIENCY / 8
display(Markdown(
    f"**Honest miss:** the model's Exp 2 is {prose.pct(slow.model_value)} slower, against the printed "
    f"\"about {prose.pct(slow.paper_value)} slower\" (row `exp2_slowdown`, scored on the difference "
    f"{slow.paper_value:.2f}, not on the ratio {ratio.paper_value:.1f}: a {prose.pct(slow.rel_error, signed=True)} "
    "miss), because the host data mover's rate is the array rate and the 8GFC payload rate "
    f"({prose.sig(fc_payload_Bps / 1e6)} MB/s after 8b/10b coding) in series (Little's law), and the array rate "
    f"is also pulled by Exp 4's ~{row.loc[('exp4_1g_ratio', 'fitted')].paper_value:.0f}x. The same "
    "statement as a time ratio (`exp2_ratio`, derived) "
    f"is off by only {prose.pct(ratio.rel_error, 1, signed=True)}: a relative error on a small difference is large."))

# %% [markdown]
# ### Leave-one-out, run by run

# %%
loo = contentlib.leave_one_out()
plotting.save_table(loo, output_dir, NOTEBOOK, "leave_one_out")
loo

# %% [markdown]
# ## How far to trust it — intervals and where the model extrapolates
#
# Each model number has a 90 % interval (calibration covariance plus one measurement's noise, or the fit's
# residual spread when larger: here the 20 % slowdown the four rates cannot match makes the spread large,
# so the intervals are wide). The table says which rate makes each interval wide. The figure sweeps the
# data network for Exp 3 (host to host): the paper ran 1 and 10 GbE (dotted); past 10 GbE the host data
# mover bounds the copy and the model extrapolates from the FC series term alone.

# %%
from vcperf import protocol

drivers = protocol.width_drivers(contentlib)
plotting.save_table(drivers, output_dir, NOTEBOOK, "interval_width_drivers")
display(drivers.round(2))
tb = contentlib.testbed()
nets = [1e8, 3e8, 1e9, 3e9, 1e10, 3e10, 1e11]
r = protocol.with_interval(contentlib.deploy_time_s, "host_to_host", tb.template_size_bytes, network_bps=np.array(nets),
                           mgmt_network_bps=tb.nic_bandwidth_bps, fc_bandwidth_bps=tb.fc_bandwidth_bps,
                           vcenter_vcpus=tb.vcenter_vcpus)
band = pd.DataFrame({"network_bps": nets, "value": r.value, "low": r.low, "high": r.high})
plotting.save_table(band, output_dir, NOTEBOOK, "exp3_time_vs_network_interval")
fig, ax = plt.subplots(figsize=(6.4, 3.2))
plotting.interval_sweep(ax, np.array(nets) / 1e9, [("model: Exp 3, host to host", r.value, r.low, r.high)],
                        measured_x=(1, 10), logy=True, xlabel="data network (Gbps); dotted: the paper's runs",
                        ylabel="deployment time (s)")
plotting.finish(fig)
plotting.save_figure(fig, output_dir, NOTEBOOK, "exp3_time_vs_network_interval")
plt.show()

# %% [markdown]
# ## What if? — your template, storage layout, networks and vCenter size
#
# Pick a layout and move the sliders: the bars are the predicted time of every path the layout allows, the
# readout the recommended (fastest) one and its slowest stage. More vCenter vCPUs speed up streaming only
# when several disks are decompressed in parallel (one stream is decompressed by one thread).

# %%
readout, png = cl_views.deploy_whatif_update(whatif_template_size_bytes, whatif_layout, whatif_network_bps,
                                             whatif_mgmt_network_bps, whatif_vcenter_vcpus,
                                             whatif_decompression_streams)
print(readout)
rec = contentlib.recommend_path(whatif_layout, whatif_template_size_bytes, network_bps=whatif_network_bps,
                                mgmt_network_bps=whatif_mgmt_network_bps, vcenter_vcpus=whatif_vcenter_vcpus,
                                decompression_streams=whatif_decompression_streams)
whatif = pd.DataFrame({"path": list(rec.times_s), "time_s": list(rec.times_s.values()),
                       "available": [p in rec.available for p in rec.times_s], "recommended": [p == rec.path for p in rec.times_s]})
plotting.save_table(whatif, output_dir, NOTEBOOK, "whatif_paths")
plotting.save_png(png, output_dir, NOTEBOOK, "whatif_paths")
if interactive:
    display(cl_views.deploy_whatif(whatif_template_size_bytes, whatif_layout, whatif_network_bps,
                                   whatif_mgmt_network_bps, whatif_vcenter_vcpus, whatif_decompression_streams))

# %% [markdown]
# ## What if several deployments run at once?
#
# `contentlib.concurrent_deploy_time_s`: pipelined paths share their slowest stage (fair share), so `n`
# deployments take `n` times as long and the aggregate rate stays flat; the streaming path runs one Transfer
# Service thread per deployment (read -> decompress -> send), a closed queueing network solved by exact MVA,
# so threads overlap until the shared NFS read or management hop saturates. The paper ran one deployment at a
# time: these curves are what-ifs, not fitted.

# %%
conc = pd.concat([pd.DataFrame({"path": path, "deployments": r.n, "time_s": r.time_s,
                                "aggregate_MB_per_s": r.aggregate_bytes_per_s / 1e6})
                  for path in contentlib.PATHS
                  for r in [contentlib.concurrent_deploy_time_s(path, whatif_template_size_bytes, whatif_concurrent_deployments,
                                                               network_bps=whatif_network_bps,
                                                               mgmt_network_bps=whatif_mgmt_network_bps,
                                                               vcenter_vcpus=whatif_vcenter_vcpus)]])
plotting.save_table(conc, output_dir, NOTEBOOK, "whatif_concurrent_deployments")
fig, ax = plt.subplots(figsize=(6.4, 3.2))
for path, g in conc.groupby("path", sort=False):
    ax.plot(g["deployments"], g["aggregate_MB_per_s"], marker=".", label=contentlib.PATH_LABELS[path])
ax.set_xlabel("deployments at once")
ax.set_ylabel("aggregate rate (MB/s)")
ax.legend(fontsize=7, loc="best")
fig.tight_layout()
plotting.save_figure(fig, output_dir, NOTEBOOK, "whatif_concurrent_deployments")
plt.show()

# %% [markdown]
# ## What if the library is subscribed from a branch office?
#
# A subscribed library pulls each item from the publisher over the branch link: TCP over each of the ROBO
# study's Table 1 networks (`vcperf.robo.preset`), with slow start, RTT and loss. Time to sync one
# template of the what-if size:

# %%
sync = pd.DataFrame([{"network": name, "sync_time_s": float(contentlib.subscription_sync_time_s(
    whatif_template_size_bytes, robo.preset(name)))} for name in robo.preset_names()])
sync["sync_time_h"] = sync["sync_time_s"] / 3600
plotting.save_table(sync, output_dir, NOTEBOOK, "whatif_subscription_sync")
sync.round({"sync_time_s": 0, "sync_time_h": 2})
