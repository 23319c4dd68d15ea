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
# # ROBO study — network types and transfer time (Table 1)
#
# The paper (vCenter 6.7 in remote and branch offices). The study emulates eight
# branch links with Linux `tc` (Table 1: bandwidth, round-trip time, packet error rate). In vcperf a link
# is a `vcperf.network.Link`; TCP over it moves bytes at the smallest of the link rate, the receive
# window per RTT and the loss-limited rate of Padhye et al. (1998), after slow start. Loss is charged once
# and the same way for every message of the study (`vcperf.network.message_time_s`): a short message pays
# the expected recovery of its lost segments (fast retransmit, or retransmission timeouts that can repeat
# with exponential backoff), a long one the loss-limited rate beyond its first window — the larger, never
# the sum. A `Link` may be asymmetric (`up_bandwidth_bps`, host → vCenter; the presets are symmetric as
# Table 1 sets them). The paper's one
# stated transfer — *about 3.5 MB of Level-4 statistics take about a minute on 512 Kbps DSL* — is a
# check of the link model, though not an independent one: the paper's minute is its own arithmetic
# (3.5 MB × 8 / 512 Kbps = 55 s), so the ledger lists it as *derived*. The table below is the paper's
# testbed column beside what the model derives from it.

# %% tags=["parameters"]
interactive = True  # -: show the what-if panel (regeneration runs with False)
output_dir = "../build"  # path: folder that receives figures/ and tables/
whatif_network = "dsl_512k"  # -, one of ["satellite", "nz_to_uk", "singapore_to_us", "dsl_512k", "t1", "cellular_4g", "cellular_5g", "lan"]: preset the what-if panel starts from
whatif_payload_bytes = 3500000.0  # bytes, range [1000, 1e10]: payload of the what-if transfer
whatif_bandwidth_mbps = 0.0  # Mbit/s, range [0, 100000]: bandwidth of a custom what-if link (0: use whatif_network)
whatif_rtt_ms = 0.0  # ms, range [0, 5000]: round-trip time of the custom link (with whatif_bandwidth_mbps > 0)
whatif_loss_percent = 0.0  # %, range [0, 50]: packet loss of the custom link (with whatif_bandwidth_mbps > 0)

# %%
import vcperf.params; vcperf.params.check_notebook_parameters(globals(), "robo_networks")  # noqa: E702, I001 - checks the parameters above, however the notebook is run
# %matplotlib inline
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display

from vcperf import data, fidelity, network, plotting, robo
from vcperf.views import robo as robo_views

NOTEBOOK = "robo_networks"
plotting.use_style()

# %% [markdown]
# ## Table 1 — the eight network types (testbed settings) and what the model derives

# %%
paper = data.load("robo2019/table01_networks")
display(paper[["network_label", "quantity", "printed"]].pivot(index="network_label", columns="quantity", values="printed"))
model = robo.network_table(whatif_payload_bytes)
plotting.save_table(model, output_dir, NOTEBOOK, "table01_networks_model")
model.round(3)

# %% [markdown]
# ## Transfer time vs payload for all eight networks, with the paper's stated point

# %%
payload = robo_views.PAYLOAD_GRID_BYTES
links = {n: robo.preset(n) for n in robo.preset_names()}
times = robo.transfer_time_grid_s(payload, links)
fid = fidelity.table(["robo2019"])
stated = fid[(fid["key"] == "stats_upload_time_level4_dsl")].iloc[0]
stated_size_bytes = data.value("robo2019/figure06_stats_data_size", "stats_data_size_per_sync", "si", stats_level=4)
fig = robo_views.transfer_time_figure(
    payload, times, {n: lk.name for n, lk in links.items()},
    paper_point=(stated_size_bytes, stated["paper_value"], "paper: ~3.5 MB in ~1 min on DSL"))
plotting.save_figure(fig, output_dir, NOTEBOOK, "transfer_time_vs_payload")
plt.show()

# %% [markdown]
# ## Fidelity — paper vs model (the study's whole ledger)
#
# Each row has a kind: *fitted* (used by the calibration), *loo* (the same number predicted by a refit
# without it and without every other number stated for a network of the same RTT), *predicted* (never
# fitted), *derived* (computed from other paper numbers: shown, not counted) and *bound* (an inequality
# the paper states: pass or fail). The statistics-size parameter is fitted to one number, so its loo row is
# honestly "not estimable"; the host-sync number's loo row is predicted from the VCbench latencies, which
# share the host-sync message through the size of a VM's state.

# %%
rows = fid[fid["source"].str.startswith("robo2019/")]
plotting.save_table(rows, output_dir, NOTEBOOK, "fidelity")
rows[["kind", "locator", "quantity", "conditions", "paper_value", "model_value", "rel_error", "relation", "passed"]]

# %%
from IPython.display import Markdown  # noqa: E402

from vcperf import prose  # noqa: E402

hostsync_loo = fid[(fid["key"] == "hostsync_traffic_24vms") & (fid["kind"] == "loo")].iloc[0]
upload = stated  # the paper's "about a minute" for Level-4 statistics on DSL, a derived row
display(Markdown(
    f"The host-sync loo row misses by {prose.pct(hostsync_loo['rel_error'], signed=True)} (an honest miss: "
    f"{hostsync_loo['model_value'] / 1e3:.1f} Kbps against the printed {hostsync_loo['paper_value'] / 1e3:.2f} Kbps). "
    f"The model moves the Level-4 statistics over DSL in {upload['model_value']:.0f} s "
    f"(the paper's \"about a minute\": {prose.pct(upload['rel_error'], signed=True)})."))

# %% [markdown]
# ## What if? — pick a network or set your own link
#
# Choose a preset or move the sliders; the thick curve and the readout are your link.

# %%
whatif_link = (network.Link(whatif_bandwidth_mbps * 1e6, whatif_rtt_ms / 1e3, loss=whatif_loss_percent / 100,
                            name=f"custom: {whatif_bandwidth_mbps:g} Mbit/s, {whatif_rtt_ms:g} ms, {whatif_loss_percent:g} % loss")
               if whatif_bandwidth_mbps > 0 else robo.preset(whatif_network))
if interactive:
    display(robo_views.network_whatif(whatif_network, whatif_payload_bytes))
else:  # a regeneration (a scenario: -p whatif_bandwidth_mbps=10 -p whatif_rtt_ms=80) saves the what-if link's answer
    scenario_links = {**links, "whatif": whatif_link}
    scenario_times = robo.transfer_time_grid_s(payload, scenario_links)
    labels = {**{n: lk.name for n, lk in links.items()}, "whatif": f"what-if: {whatif_link.name}"}
    fig = robo_views.transfer_time_figure(payload, scenario_times, labels, highlight="whatif")
    plotting.save_figure(fig, output_dir, NOTEBOOK, "whatif_transfer_time")
    plt.show()
    whatif_table = pd.DataFrame([{
        "link": whatif_link.name, "bandwidth_mbps": whatif_link.bandwidth_bps / 1e6, "rtt_ms": whatif_link.rtt_s * 1e3,
        "loss_percent": 100 * whatif_link.loss, "payload_bytes": whatif_payload_bytes,
        "transfer_time_s": float(robo.transfer_time_grid_s([whatif_payload_bytes], {"w": whatif_link})["w"][0])}])
    plotting.save_table(whatif_table, output_dir, NOTEBOOK, "whatif_link")
    display(whatif_table)
