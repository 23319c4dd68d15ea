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
# # VCHA study — overhead, statistics level, replication latency (Tables 5-15, Figures 5-11)
#
# The paper (vCenter Server 6.5 High Availability performance). VCbench clients
# issue vSphere management operations back to back against vCenter; the study measures throughput,
# operation latency and vpxd CPU with VCHA off and on (64 and 256 clients), with statistics levels 1-4
# and with 0/5/10 ms added on the private VCHA network. In vcperf vCenter is a **closed queueing
# network** solved by exact MVA: vpxd CPU (the appliance's vCPUs minus background work that grows
# with the managed hosts, as a multi-server station), vpxd's pool of 50 PostgreSQL connections held
# while an operation's transactions run and commit (multi-server station), the replication link,
# host RPCs (delay) and client think time. With VCHA on, every synchronous commit waits for the
# Passive: one exchange over the private network (round trip + transfer of the commit record at the
# link's TCP rate, with loss; `vcperf.network`) plus the Passive's WAL flush. Statistics writes of
# levels 3-4 hold connections too and **share the commit path**: with VCHA their commits wait as
# well, so they hold more connections and the VCHA overhead at 256 clients grows with the level. At
# 256 clients the connection pool saturates, so the longer hold time costs throughput directly; at
# 64 clients it only adds latency. With an Embedded PSC the PSC services' per-operation CPU work runs
# on the appliance's vCPUs. **One parameter set** gives all of Tables 5, 6 and 7 (throughput, latency,
# CPU agree through the utilization law and Little's law).
#
# Every paper number is a ledger row of one kind (`vcperf.vcha.targets()`): **fitted** (used by the
# calibration), **loo** (the same number predicted by a refit without it *and without every number of
# the same run* -- e.g. Tables 5, 6, 7, 9, 10, 11 of the 256-client VCHA run go out together),
# **predicted** (never fitted: Table 12 with VCHA and level 2, Table 13 at 256 clients, the WAL disk
# bandwidth of Tables 9-10 and every Passive-node disk number, the eth1 receive rate, the Embedded
# numbers of Tables 14-15 except the 64-client throughput, and the changes of Table 12 levels 2-4 and
# Tables 14-15 except the fitted one; a predicted row whose model value *is* a fitted number -- the
# model's "no effect" -- names it in `restates`, and the summary gives predicted skill without those),
# **derived** (a copy, total, ratio or difference of other printed numbers: Table 12 level 1 and
# Table 13 at 0 ms repeat Table 5, the Difference rows of Tables 5-6 (both sides fitted; still scored
# as changes by the summary), Figure 5's "almost the same", Table 8's vpxd rows with VCHA (printed
# identical to the baseline); shown, not counted as predicted skill) or **bound**.
# Difference rows are scored on the difference itself (-0.9 %), not on a ratio.

# %% tags=["parameters"]
interactive = True  # -: show the what-if panel (regeneration runs with False)
output_dir = "../build"  # path: folder that receives figures/ and tables/
whatif_clients = 256  # clients, range [1, 1024]: VCbench clients of the what-if panel
whatif_replication_rtt_ms = 5.0  # ms, range [0, 30]: latency added on the VCHA private network
whatif_stats_level = 1  # -, range [1, 4]: vCenter statistics level
whatif_vcha_enabled = True  # -: VCHA on in the what-if panel
whatif_bandwidth_gbps = 10.0  # Gbps, range [0.01, 100]: bandwidth of the VCHA private network
whatif_loss_percent = 0.0  # %, range [0, 5]: packet loss on the VCHA private network
whatif_appliance = "testbed"  # -, one of ["testbed", "small", "medium", "large", "x-large"]: appliance and inventory
whatif_psc_mode = "external"  # -, one of ["external", "embedded"]: PSC deployment of the what-if

# %%
import vcperf.params; vcperf.params.check_notebook_parameters(globals(), "vcha_overhead")  # noqa: E702, I001 - checks the parameters above, however the notebook is run
# %matplotlib inline
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display

from vcperf import fidelity, plotting, prose, protocol, vcha
from vcperf.vcha import disk as vdisk
from vcperf.vcha.disk import standby_flushes_per_s
from vcperf.views import vcha as vcha_views

NOTEBOOK = "vcha_overhead"
plotting.use_style()
COLS = ["conditions", "kind", "unit", "paper", "model", "error_percent", "note"]
ledger = fidelity.table(["vcha2016"])
ledger = ledger[ledger["kind"] != "loo"].set_index("key")  # the prose below quotes these rows


def diff_miss(key, decimals=0):
    """'model (printed paper, a miss of e %)' for a Difference row, in percent."""
    r = ledger.loc[key]
    return (f"{prose.pct(r.model_value, 1, signed=True)} against the printed {prose.pct(r.paper_value, 1, signed=True)} "
            f"(missing the difference by {prose.pct(abs(r.rel_error), decimals)})")

# %% [markdown]
# ## The calibrated parameters
#
# Six demands are fitted to the 12 numbers of Tables 5-7 (the background CPU per managed host, so a
# smaller appliance with a smaller inventory has less background work); the number of synchronous
# commits per operation to the two 64-client rows of Table 13; the statistics connections per
# powered-on VM of levels 3-4 to the two VCHA-off rows of Table 12; the Embedded PSC's CPU per
# operation to Table 14's 64-client Difference. The vCPUs and inventory (2,000 hosts, 25,000
# powered-on VMs), the 10 GbE private network and the pool of 50 DB connections (vCenter's default)
# are test-bed inputs (`vcha.testbed()`), not fitted; the LAN round trip (`vcha.LAN_RTT_S`, printed
# below) is an assumed constant. The Passive's WAL flush per commit is what the fitted LAN commit wait leaves after the
# exchange (`vcha.standby_flush_s`). `fitted_from` lists the fit targets that move each parameter.

# %%
P, TESTBED = vcha.calibrate(), vcha.testbed()
params = vcha.parameter_table()
plotting.save_table(params, output_dir, NOTEBOOK, "parameters")
print(f"Passive WAL flush per commit: {vcha.standby_flush_s(P.vcbench, P.wal.wal_bytes_per_op) * 1e3:.2f} ms")
print(f"LAN round trip (assumed): {vcha.LAN_RTT_S * 1e3:.1f} ms")
params[params["name"].str.startswith(("vcbench.", "wal.", "disk.", "memory."))]

# %% [markdown]
# ## Figures 5-6 — periodic throughput during the one-hour runs
#
# The paper plots the periodic series but prints only their averages (Table 5), so the periodic shape
# cannot be compared. The model is a steady state: each run is its average with the 90 % predictive
# band of the calibration (shaded), on an axis zoomed to the runs; the paper's averages are dashed. At
# 64 clients the bands of VCHA off and on overlap ("almost the same"); at 256 clients they separate
# ("a noticeable but small impact").

# %%
for clients, fig_name in ((64, "figure05_periodic_throughput_64clients"),
                          (256, "figure06_periodic_throughput_256clients")):
    fig = vcha_views.periodic_throughput_figure(clients)
    plotting.save_figure(fig, output_dir, NOTEBOOK, fig_name)
    plt.show()
t = fidelity.paper_vs_model("vcha2016", "vcha2016/figure")
t[["locator", "quantity"] + COLS].round(3)

# %% [markdown]
# ## Tables 5, 6, 7 / Figures 7, 8, 9 — throughput, latency, vpxd CPU from one solution
#
# The curves are the same MVA solution for every client count; the dots are the paper. The dotted
# line is the throughput bound of the connection pool (50 connections / hold time) without VCHA.
#
# The twelve absolute numbers are fitted. The Difference rows are *derived* (both sides fitted) and
# shown scored on the difference itself (below the figures). The model's small-load overhead is a fixed
# commit wait per operation, which the 64-client run barely shows.

# %%
fig = vcha_views.clients_figure()
plotting.save_figure(fig, output_dir, NOTEBOOK, "throughput_latency_cpu_vs_clients")
plt.show()
for prefix, name, fig_name, ylabel in (
        ("Table 5", "table05_throughput", "figure07_throughput", "ops/min"),
        ("Table 6", "table06_operation_latency", "figure08_operation_latency", "ms"),
        ("Table 7", "table07_vpxd_cpu", "figure09_vpxd_cpu", "% (100 % = 1 core)")):
    t = fidelity.paper_vs_model("vcha2016", f"vcha2016/{name}")
    plotting.save_table(t, output_dir, NOTEBOOK, name)
    display(t[["locator", "quantity"] + COLS].round(3))
    bars = t[~t["quantity"].str.endswith("_change")]  # the Difference rows are in the table above
    fig = vcha_views.paper_model_bars(bars, "conditions", f"{prefix}: paper vs model", ylabel)
    plotting.save_figure(fig, output_dir, NOTEBOOK, fig_name)
    plt.show()

# %%
_t05_64 = [abs(ledger.loc[f"t05_throughput_64_{s}"].rel_error) for s in ("disabled", "enabled")]
display(Markdown(
    f"At 64 clients the model's VCHA cost is {diff_miss('t05_change_64')}, although both throughputs are within "
    f"{prose.pct(max(_t05_64), 1)}; at 256 clients {diff_miss('t05_change_256')}."))

# %% [markdown]
# ### The model's own consistency: Little's law and the utilization law
#
# `N = X (R + Z)` and `U = U_background + X D_cpu` hold exactly in the model, so throughput, latency
# and CPU cannot be tuned apart. The paper's own numbers nearly obey the same laws with a small
# client-side think time. The text's "about 1 core less" vpxd CPU with VCHA at 256 clients is compared
# below the table: the CPU follows the throughput. (That row is *derived*: the difference of two fitted
# Table 7 numbers.)

# %%
rows = []
for n in (64, 256):
    for on in (False, True):
        s = vcha.vcbench(n, on, params=P, **TESTBED.appliance())
        rows.append({"clients": n, "vcha": on, "X_ops_per_s": float(s.throughput_per_s),
                     "R_s": float(s.response_time_s), "X*(R+Z)": float(s.throughput_per_s * (s.response_time_s + s.think_time_s)),
                     "vpxd_cores": float(s.cpu_cores), "per_core_utilization": float(s.cpu_utilization_per_core),
                     "db_pool_utilization": float(s.db_pool_utilization), "sync_wait_ms": float(s.sync_wait_s) * 1e3})
laws = __import__("pandas").DataFrame(rows)
plotting.save_table(laws, output_dir, NOTEBOOK, "model_laws")
display(laws.round(3))
_cpu = {f: ledger.loc["t07_cpu_256_disabled"][f] - ledger.loc["t07_cpu_256_enabled"][f]
        for f in ("paper_value", "model_value")}
_drop = {f: 1 - ledger.loc["t05_throughput_256_enabled"][f] / ledger.loc["t05_throughput_256_disabled"][f]
         for f in ("paper_value", "model_value")}
display(Markdown(
    f"vpxd CPU with VCHA at 256 clients: {_cpu['paper_value']:.2f} core less in Table 7, {_cpu['model_value']:.2f} core "
    f"in the model, whose throughput drop ({prose.pct(_drop['model_value'], 1)}) is "
    f"{'smaller' if _drop['model_value'] < _drop['paper_value'] else 'larger'} than measured "
    f"({prose.pct(_drop['paper_value'], 1)})."))

# %% [markdown]
# ## Table 8 — peak resident memory
#
# vpxd = inventory cache (per managed host) + session state per client; postgres on the baseline and
# Active node = a constant (shared buffers, server processes and the 50 pooled backends); the Passive
# has no client backends, so its postgres is that minus 50 backends; the vcha service is the same
# small process on both nodes. Five parameters for 12 fitted numbers; the vpxd rows with VCHA are
# printed identical to the baseline ("Enabling VCHA does not change the memory utilization") and
# the model's vpxd has no VCHA term, so they are *derived*. With only two distinct vpxd numbers
# (64 and 256 clients) its two parameters are "not estimable" in leave-one-out.

# %%
t = fidelity.paper_vs_model("vcha2016", "vcha2016/table08")
plotting.save_table(t, output_dir, NOTEBOOK, "table08_memory")
t[["locator", "quantity"] + COLS].round(3)

# %% [markdown]
# ## Tables 9-11 — replication traffic, disk writes, standby replies
#
# The WAL streamed to the Passive (eth1 transmit) is a background rate plus WAL bytes per operation
# times throughput (two parameters, Table 11 eth1); the management traffic on eth0 likewise (host
# sync of 2,000 hosts in the background, SDK and host RPC bytes per operation). The Active's WAL
# disk sdg writes once per WAL flush (group commit: a background flush rate plus flushes per
# operation, fitted to the sdg writes/s) and each flush rewrites the current 8 KiB WAL page plus the
# new WAL bytes (*predicted* bandwidth, flush rate input = the run's measured writes/s, as before).
# sdh is a line in throughput (bytes) and an average write size (writes/s). sdf's bytes per operation
# grow with load in every column, so sdf has two writers, both non-negative: the checkpointer writing
# the hot core-table pages once per checkpoint whatever the load (a background rate), and dirty-buffer
# evictions, whose count grows with the operation rate (buffer replacements) times the share of
# victims that are dirty (pages are dirtied at the operation rate): bytes growing as rate squared
# (values below the table). sdf's average write grows with load in every column, so its
# writes/s carry a floor of small writes that have no data volume of their own (journal commits, file
# metadata, single-page background-writer rounds); sdh shows the opposite and has no floor: one average
# write size does not hold at both loads, and sdh's writes/s at low load are the largest fitted miss. The
# Passive replays the Active's WAL, so its sdf/sdh writes are the Active's. Its walreceiver loops:
# read every WAL message that has arrived, write it, `fdatasync` once, reply. The walsender sends
# after each Active flush, so messages that arrive while a cycle is in progress are flushed together
# by the next one (a bulk-service queue): the Passive flushes `lam / (lam s + exp(-lam s))` times per
# second for `lam` Active flushes and a cycle of `s`, never more than the Active nor than `1/s`. The
# cycle `s` (the Passive's own write + `fdatasync`) is fitted to the Passive's printed flush counts (its
# sdg writes/s, *fitted* rows). A message waits for the cycle in progress and then its own,
# `s (1 + rho / 2)`: that part of the fitted commit acknowledgement's flush wait is the Passive's
# storage, the rest is walsender and wake-up delay (below the table). Each flush rewrites a 4 KiB
# filesystem block plus the WAL bytes (sdg bandwidth: *predicted*). One cycle time cannot give both loads (the model
# has no disk contention on the Passive, whose replay writes much more sdf data at 256 clients on the same
# datastore). The model writes the Passive's sdf pages with the Active's floor, while the printed Passive
# writes smaller I/Os for a reason the paper does not give. The eth1 receive rate is, per walreceiver
# cycle, a TCP ACK for the WAL train the cycle reads (the receive offload merges a back-to-back train
# into one large segment for TCP, acknowledged once) plus two status replies (PostgreSQL reports the write position
# after reading and the flush position after the `fdatasync`), every frame with TCP timestamps, with no
# parameter of its own; the 256-client row is *predicted* and counted: its printed value equals a
# difference of two fitted eth0 rates only by a rounding coincidence. The printed receive rate *falls*
# with load, as the Passive's flushes (its cycles) do, while the WAL it acknowledges grows: one ACK per
# two WAL segments could not fall. The rows inherit the model's Passive cycle count. The numbers are
# below the table.

# %%
t = __import__("pandas").concat([fidelity.paper_vs_model("vcha2016", f"vcha2016/{name}") for name in
                                 ("table09_io_64clients", "table10_io_256clients", "table11_network")])
plotting.save_table(t, output_dir, NOTEBOOK, "tables09_11_traffic")
display(t[["locator", "quantity"] + COLS].round(3))


def io(disk, clients, node, field="paper_value"):
    """(writes/s, bytes/s) of a Tables 9-10 row from the ledger."""
    tab = "t09" if clients == 64 else "t10"
    return ledger.loc[f"{tab}_{disk}_tps_{clients}_{node}"][field], ledger.loc[f"{tab}_{disk}_bw_{clients}_{node}"][field]


def avg_kb(disk, clients, node):
    tps, bw = io(disk, clients, node)
    return f"{bw / tps / 1e3:.0f}"


_nodes = (("baseline", "disabled"), ("Active", "enabled"), ("Passive", "enabled_passive"))
_growth = ", ".join(f"{name} {avg_kb('sdf', 64, node)} -> {avg_kb('sdf', 256, node)} KB" for name, node in _nodes)
_io_fit = ledger[ledger.index.str.match(r"t(09|10|11)_") & (ledger["kind"] == "fitted")]
_sdh_low = _io_fit[_io_fit.index.str.startswith("t09_sdh_tps_64")]["rel_error"]
_flush_wait = vcha.standby_flush_s(P.vcbench, P.wal.wal_bytes_per_op)
_lam = np.array([io("sdg", n, "enabled", "model_value")[0] for n in (64, 256)])
_cycle = P.disk.walreceiver_cycle_s
_busy = standby_flushes_per_s(_lam, _cycle) * _cycle
_other = _flush_wait - vdisk.cycle_wait_s(_cycle, _lam)  # walsender and wake-up part of the flush wait
_pas = [ledger.loc[f"{tab}_sdg_tps_{n}_enabled_passive"] for tab, n in (("t09", 64), ("t10", 256))]
_pas_bw = [ledger.loc[f"{tab}_sdg_bw_{n}_enabled_passive"].rel_error for tab, n in (("t09", 64), ("t10", 256))]
_ratio = [io("sdg", n, "enabled_passive")[0] / io("sdg", n, "enabled")[0] for n in (64, 256)]
_lam_paper = [io("sdg", n, "enabled")[0] for n in (64, 256)]
_s_grid = np.geomspace(1e-5, 1e-1, 4001)
_needed = [_s_grid[np.argmin(np.abs(standby_flushes_per_s(lam, _s_grid) / lam - r))]
           for lam, r in zip(_lam_paper, _ratio, strict=True)]
_sdf_bytes = io("sdf", 256, "enabled_passive")[1] / io("sdf", 64, "enabled_passive")[1]
_sdf_p = ledger.loc["t09_sdf_tps_64_enabled_passive"]
_eth1 = [ledger.loc[f"t11_eth1_rx_{n}_enabled"] for n in (64, 256)]
_cycles_printed = np.array([io("sdg", n, "enabled_passive")[0] for n in (64, 256)])
_train = np.array([ledger.loc[f"t11_eth1_tx_{n}_enabled"].paper_value for n in (64, 256)]) / _cycles_printed
_per_cycle = vdisk.reply_bytes_per_cycle(_train)
_eth1_printed_cycles = _cycles_printed * _per_cycle
_sdf_x = np.array([ledger.loc[f"t05_throughput_{n}_disabled"].paper_value for n in (64, 256)])
_sdf_per_op = vdisk.sdf_bytes_per_s(_sdf_x, P.disk) / _sdf_x
display(Markdown(
    f"sdf's average write from 64 to 256 clients: {_growth}; sdh's (baseline) {avg_kb('sdh', 64, 'disabled')} -> "
    f"{avg_kb('sdh', 256, 'disabled')} KB. The fitted floor is {P.disk.sdf_small_writes_per_s:.0f} small writes/s "
    f"beside a {P.disk.sdf_write_bytes / 1e3:.0f} KB data write. sdf's checkpoint background is "
    f"{P.disk.sdf_background_bytes_per_s / 1e6:.2f} MB/s and its evictions "
    f"{P.disk.sdf_eviction_bytes_s_per_op2:,.0f} B s/op² x rate², so the model writes "
    f"{_sdf_per_op[0] / 1e3:.0f} -> {_sdf_per_op[1] / 1e3:.0f} KB per operation from 64 to 256 clients (baseline). "
    f"Fitted rows land within "
    f"{prose.pct(_io_fit.drop(_sdh_low.index)['rel_error'].abs().max())} except sdh's writes/s at low load "
    f"({prose.pct(_sdh_low.max(), signed=True)}).\n\n"
    f"The walreceiver cycle `s` (fitted to the Passive's flush counts) is {_cycle * 1e3:.2f} ms: of the commit's "
    f"{_flush_wait * 1e3:.2f} ms flush wait, the cycle's own wait takes {(_flush_wait - _other[0]) * 1e3:.2f} and "
    f"{(_flush_wait - _other[1]) * 1e3:.2f} ms at the 64- and 256-client flush rates, the rest "
    f"({_other[0] * 1e3:.2f}-{_other[1] * 1e3:.2f} ms) is walsender and wake-up delay; the walreceiver is busy "
    f"{prose.pct(_busy[0])} and {prose.pct(_busy[1])} of the time. The Passive's sdg writes/s (fitted) are {_pas[0].model_value:,.0f} and "
    f"{_pas[1].model_value:,.0f} against {_pas[0].paper_value:,.0f} and {_pas[1].paper_value:,.0f} printed "
    f"({prose.pct(_pas[0].rel_error, signed=True)} and {prose.pct(_pas[1].rel_error, signed=True)}), its sdg bandwidth "
    f"{prose.pct(_pas_bw[0], signed=True)} and {prose.pct(_pas_bw[1], signed=True)}. The printed Passive/Active flush "
    f"ratio falls from {_ratio[0]:.2f} to {_ratio[1]:.2f} between 64 and 256 clients, which needs a cycle "
    f"{prose.times(_needed[1] / _needed[0])} longer at 256 clients (the Passive's replay then writes "
    f"{prose.times(_sdf_bytes)} the sdf bytes). The 64-client Passive sdf writes/s ({_sdf_p.paper_value:.0f}, more "
    f"than the Active's {io('sdf', 64, 'enabled')[0]:.0f}) come out {prose.pct(abs(_sdf_p.rel_error))} "
    f"{'low' if _sdf_p.rel_error < 0 else 'high'}; the printed Passive's average write is "
    f"{avg_kb('sdf', 64, 'enabled_passive')} KB against the Active's {avg_kb('sdf', 64, 'enabled')} KB. The eth1 receive "
    f"rate: {prose.pct(_eth1[0].rel_error, signed=True)} and {prose.pct(_eth1[1].rel_error, signed=True)} against the "
    f"printed {_eth1[0].paper_value / 1e6:.1f} and {_eth1[1].paper_value / 1e6:.1f} MB/s; at the printed Passive "
    f"flush counts ({_per_cycle[0]:.0f} B per cycle) the same mechanism gives {_eth1_printed_cycles[0] / 1e6:.2f} and "
    f"{_eth1_printed_cycles[1] / 1e6:.2f} MB/s: with one cycle time for both runs, the rows inherit the cycle "
    f"count's misses."))

# %% [markdown]
# ## Table 12 / Figure 10 — statistics level
#
# Levels 3 and 4 keep extra database connections busy with statistics writes (one parameter per
# powered-on VM, fitted to the two VCHA-off rows); level 2 is taken equal to level 1 and level 4 equal
# to level 3, as the ROBO study's statistics sizes say. The statistics writes share the commit path:
# with VCHA their commits wait for the Passive too, so they hold their connections longer (by the
# same factor as a VCbench operation's hold time) and fewer connections are left for VCbench. The
# VCHA overhead at 256 clients therefore depends on the level (below the tables), as the paper's
# explanation ("VCHA needs to replicate more data") says.
#
# **The misses of the overhead rows are within the paper's own run-to-run spread, not a mechanism
# to tune.** The printed overhead of a level is the ratio of the level's two printed throughputs, and
# those are rows of the ledger themselves (the VCHA-on ones and level 2's VCHA-off one *predicted*;
# the level 3/4 VCHA-off ones fitted). The overhead rows are the paper's headline, so they are *predicted
# changes*: scored apart from the levels, in points of the VCHA-off run, with a band that never includes a
# gain (VCHA only adds a wait); level 2's restates the Table 5 change (the model's level 2 is level 1).
# The paper's footnote to this table says 256-client throughput "can vary quite a bit" (each number is an average of several runs),
# and its own baselines show how much: it states that throughput falls as the level rises, yet its
# VCHA-off throughput *rises* from level 1 to 2 and from level 3 to 4 (the paper's own spread, table
# below), and the VCHA-on throughputs of levels 3 and 4 are nearly equal while their overheads differ by
# several points. One side of a difference moving by that much moves the overhead by as many points; the
# model's misses (table below, in points) are compared with it below. No parameter is fitted to these
# rows, and none is added: a mechanism that reproduced the printed overheads of levels 3 and 4 would have
# to make more statistics cost *less* replication.

# %%
fig = vcha_views.stats_level_figure()
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure10_stats_level")
plt.show()
t = fidelity.paper_vs_model("vcha2016", "vcha2016/table12")
plotting.save_table(t, output_dir, NOTEBOOK, "table12_stats_level")
display(t[["locator", "quantity"] + COLS].round(3))


def _t12(level, state):
    return protocol.paper_value(f"{vcha.STUDY}/table12_stats_level", "throughput", clients=256, stats_level=level,
                                vcha=state)


spread = __import__("pandas").DataFrame(
    [("VCHA off, level 2 vs 1 (should fall)", 100 * (_t12(2, "disabled") / _t12(1, "disabled") - 1)),
     ("VCHA off, level 4 vs 3 (should fall)", 100 * (_t12(4, "disabled") / _t12(3, "disabled") - 1)),
     ("VCHA on, level 4 vs 3", 100 * (_t12(4, "enabled") / _t12(3, "enabled") - 1))],
    columns=["paper's own spread", "percent"])
over = t[t["quantity"] == "throughput_change"]
miss = over.assign(miss_points=over["model"] - over["paper"])[["conditions", "kind", "unit", "paper", "model",
                                                                "miss_points"]]
display(spread.round(1))
display(miss.round(3))
_l = {lvl: ledger.loc[f"t12_change_l{lvl}"] for lvl in (1, 2, 3, 4)}
_pred = [ledger.loc[k].rel_error for k in ("t12_throughput_l2_disabled", "t12_throughput_l2_enabled",
                                            "t12_throughput_l3_enabled", "t12_throughput_l4_enabled")]
_spread_max = spread["percent"].abs().max()
display(Markdown(
    f"The model's VCHA overhead at 256 clients is {prose.pct(_l[1].model_value, 1, signed=True)} at levels 1-2 and "
    f"{prose.pct(_l[3].model_value, 1, signed=True)} at levels 3-4; its predicted throughputs are within "
    f"{prose.pct(max(abs(e) for e in _pred), 1)}. On the difference itself: level 3 {diff_miss('t12_change_l3')}, level 2 "
    f"{diff_miss('t12_change_l2')}. The paper's own spread: VCHA off, level 2 vs 1 "
    f"{spread['percent'].iloc[0]:+.1f} %, level 4 vs 3 {spread['percent'].iloc[1]:+.1f} %; the VCHA-on throughputs of "
    f"levels 3 and 4 are {_t12(3, 'enabled') * 60:,.0f} and {_t12(4, 'enabled') * 60:,.0f} ops/min while their "
    f"printed overheads differ by {abs(_l[4].paper_value - _l[3].paper_value) * 100:.0f} points. The model's largest "
    f"miss is {miss['miss_points'].abs().max():.1f} points "
    f"({'smaller' if miss['miss_points'].abs().max() < _spread_max else 'not smaller'} than the paper's "
    f"{_spread_max:.1f}-point spread)."))

# %% [markdown]
# ## Table 13 / Figure 11 — latency on the private VCHA network
#
# Each synchronous commit waits one more round trip (a little more: the 6 MiB TCP window caps the
# commit record's transfer rate at long round trips). Only the 64-client rows calibrate the number of
# such commits per operation; the 256-client rows are *predicted*: the pool saturates and the drop is
# much larger than at 64 clients, as measured. The 5 ms point at 256 clients is the larger miss: the
# measured drop is front-loaded, which a per-commit round trip cannot produce (numbers below the table).

# %%
fig = vcha_views.rtt_figure()
plotting.save_figure(fig, output_dir, NOTEBOOK, "figure11_private_network_latency")
plt.show()
t = fidelity.paper_vs_model("vcha2016", "vcha2016/table13")
plotting.save_table(t, output_dir, NOTEBOOK, "table13_private_network_latency")
display(t[["locator", "quantity"] + COLS].round(3))
_x0 = ledger.loc["t13_throughput_256_0ms"].paper_value
_r = {ms: ledger.loc[f"t13_throughput_256_{ms}ms"] for ms in (5, 10)}
display(Markdown(
    f"At 256 clients the model misses the 5 ms point by {prose.pct(_r[5].rel_error, signed=True)} and the 10 ms point "
    f"by {prose.pct(_r[10].rel_error, signed=True)}; the measured drop is {prose.pct(_r[5].paper_value / _x0 - 1, signed=True)} "
    f"at 5 ms and only {prose.pct(_r[10].paper_value / _x0 - 1, signed=True)} at 10 ms."))

# %% [markdown]
# ## Tables 14-15 — External vs Embedded PSC
#
# With an Embedded PSC the PSC services (token validation, lookup service, certificate store) run on
# the appliance's vCPUs: each operation adds CPU work there (one parameter, fitted on Table 14's
# 64-client Difference). The External rows repeat Tables 5-6 (*derived*). The other three
# Embedded numbers (latency at 64 clients, throughput and latency at 256) are *predicted*; their
# Difference rows are *predicted changes*, scored in points of the External run (an Embedded PSC only
# adds work: the band never includes a gain). At 256 clients the database pool, not the vCPUs, binds:
# the model's Embedded run *is* the fitted External one (marked `restates`, a change of 0). The
# 64-client Embedded throughput is External x (1 + fitted Difference), *derived*.
# At 64 clients the added CPU work lengthens every operation, so latency rises (at a fixed 64 clients
# Little's law ties the two changes: a throughput drop means the same relative rise of latency plus think
# time, and the paper's pair does not satisfy it). At 256 clients the connection pool, not the vCPUs,
# limits throughput, so the extra CPU work changes nothing and the model predicts 0 where the paper prints
# small differences. **These four differences are, in the paper's words, "well within the error margin
# of the experiment methodology"**: they are the evidence for the ledger's run-to-run noise floor
# (`vcperf.protocol.noise_floor`). The model's 0 is not tuned away. The numbers are below the table.

# %%
t = __import__("pandas").concat([fidelity.paper_vs_model("vcha2016", "vcha2016/table14"),
                                 fidelity.paper_vs_model("vcha2016", "vcha2016/table15")])
plotting.save_table(t, output_dir, NOTEBOOK, "tables14_15_psc")
display(t[["locator", "quantity"] + COLS].round(3))
_floor = protocol.noise_floor()
_c256 = [ledger.loc[k] for k in ("t14_change_256", "t15_change_256")]
_e256 = [ledger.loc[k].rel_error for k in ("t14_embedded_256", "t15_embedded_256")]
display(Markdown(
    f"The Embedded PSC's CPU is fitted on Table 14's 64-client Difference "
    f"({prose.pct(ledger.loc['t14_change_64'].paper_value, 1, signed=True)}). At 64 clients latency rises by "
    f"{diff_miss('t15_change_64')}; the Embedded latency itself is within "
    f"{prose.pct(abs(ledger.loc['t15_embedded_64'].rel_error), 1)}. Both 64-client latency rows are "
    f"**{ledger.loc['t15_embedded_64'].kind}**, not predicted: the model's latency is the fitted Table 14 "
    f"Difference through Little's law (R = N / X - Z), so they restate the fit and are shown, not scored. "
    f"At 256 clients ({TESTBED.appliance()['vcpus']:g} "
    f"vCPUs) the model predicts {prose.pct(_c256[0].model_value, 1)} where the paper prints "
    f"{prose.pct(_c256[0].paper_value, 1, signed=True)} and {prose.pct(_c256[1].paper_value, 1, signed=True)} "
    f"({prose.pct(abs(_c256[0].rel_error))} misses on the difference; the Embedded numbers themselves are "
    f"{prose.pct(abs(_e256[0]), 1)} and {prose.pct(abs(_e256[1]), 1)} off, most of it the External run's own fit "
    f"error). The run-to-run noise floor is {prose.pct(_floor, 1)} per number, so a difference of two runs has a "
    f"standard deviation of about {prose.pct(np.sqrt(2) * _floor, 1)}."))

# %% [markdown]
# ## Fidelity — the study's ledger summary, this notebook's rows, and leave-one-out
#
# `rel_error` is (model − paper)/|paper| in SI units; for Difference rows paper and model are the
# differences themselves. The summary is the whole study's (both VCHA notebooks). Leave-one-out refits
# without every number of the held-out run; "not estimable" (NaN) means the other fit targets do not
# determine the held-out number.

# %%
fid = fidelity.table(["vcha2016"])
print(fidelity.format_summary(fidelity.summary(fid)))
mine = ("table05", "table06", "table07", "table08", "table09", "table10", "table11", "table12", "table13",
        "table14", "table15", "figure05", "text_vcha_overhead")
rows = fid[fid["source"].str.replace("vcha2016/", "").str.startswith(mine)]
plotting.save_table(rows, output_dir, NOTEBOOK, "fidelity")
loo = vcha.leave_one_out()
loo = loo[loo["key"].str.startswith(("t05", "t06", "t07", "t08", "t09", "t10", "t11", "t12", "t13", "t14"))]
plotting.save_table(loo, output_dir, NOTEBOOK, "leave_one_out")
loo.round(3)

# %% [markdown]
# ## What if? — clients, replication link, statistics level, appliance, PSC
#
# Move the sliders: the curves are the model with VCHA at the chosen added latency, bandwidth and
# loss of the private network, statistics level, appliance (the test bed or a Table 1 size: vCPUs
# and inventory) and PSC mode; the readout gives the chosen client count with 90 % intervals of the
# calibration. Headless (`vcperf regenerate -p whatif_...`) the same scenario is saved as the panel's
# image and as a table.

# %%
# The scenario of the parameters cell, also when run headless (e.g. vcperf regenerate -p ...).
WHATIF = dict(bandwidth_gbps=whatif_bandwidth_gbps, loss_percent=whatif_loss_percent, appliance=whatif_appliance,
              psc_mode=whatif_psc_mode)
readout, png = vcha_views.vcbench_whatif_update(whatif_clients, whatif_replication_rtt_ms, whatif_stats_level,
                                                whatif_vcha_enabled, **WHATIF)
print(readout)
plotting.save_png(png, output_dir, NOTEBOOK, "whatif_panel")
scenario_table = vcha_views.vcbench_whatif_table(whatif_clients, whatif_replication_rtt_ms, whatif_stats_level,
                                                 whatif_vcha_enabled, **WHATIF)
plotting.save_table(scenario_table, output_dir, NOTEBOOK, "whatif_scenario")
fig = vcha_views.clients_figure(vcha_views.panel_max_clients(whatif_clients), whatif_replication_rtt_ms / 1e3,
                                whatif_stats_level,
                                highlight=whatif_clients, **WHATIF)
plotting.save_figure(fig, output_dir, NOTEBOOK, "whatif_scenario")
plt.show()
scenario_table.round(2)

# %%
if interactive:
    display(vcha_views.vcbench_whatif(whatif_clients, whatif_replication_rtt_ms, whatif_stats_level,
                                      whatif_vcha_enabled, **WHATIF))
