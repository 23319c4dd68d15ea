"""What the VCHA views share: the what-if scenario (link, appliance, PSC mode), the study's models at its
calibration, colours and labels, and the axes helpers of the clients figure and its panel."""

from __future__ import annotations

import numpy as np

from vcperf import _validate as v
from vcperf import protocol, vcha

COLORS = {"disabled": "tab:blue", "enabled": "tab:orange", 64: "tab:blue", 256: "tab:red"}
LABEL = {"disabled": "Baseline (no VCHA)", "enabled": "VCHA enabled"}


def paper_si(table: str, quantity: str, **conditions) -> float:
    """A VCHA paper number in SI: :func:`vcperf.protocol.paper_value` of ``vcha2016/<table>``."""
    return protocol.paper_value(f"{vcha.STUDY}/{table}", quantity, **conditions)


#: Appliance choices of the what-if: the study's test bed (X-Large, 2,000 hosts) or a Table 1 size.
APPLIANCES = ("testbed",) + vcha.INVENTORIES


def scenario(bandwidth_gbps: float = 10.0, loss_percent: float = 0.0, appliance: str = "testbed",
             psc_mode: str = "external", db_connections: float | None = None,
             passive_flush_ms: float | None = None) -> dict:
    """Keyword arguments of :func:`vcperf.vcha.run_vcbench` for a what-if: replication link (Gbit/s, loss
    %), appliance (``"testbed"`` or a Table 1 size: its vCPUs and inventory), PSC mode, vpxd's
    database connection pool (None: the appliance's, vCenter's default 50) and the Passive's storage
    sync-write latency (ms, > 0; None: the fitted walreceiver cycle)."""
    v.choice("appliance", appliance, APPLIANCES)
    app = vcha.testbed().appliance() if appliance == "testbed" else vcha.appliance(appliance)
    out = {"bandwidth_bps": float(v.check_range("bandwidth_gbps", bandwidth_gbps, 1e-3, 1e3)) * 1e9,
           "loss": float(v.check_range("loss_percent", loss_percent, 0.0, 20.0)) / 100.0,
           "psc_mode": psc_mode, **app}
    if db_connections is not None:
        out["db_connections"] = float(v.check_range("db_connections", db_connections, 2, 10000))
    if passive_flush_ms is not None:
        out["passive_flush_s"] = float(v.check_range("passive_flush_ms", passive_flush_ms, 0.0, 1000.0,
                                                     lo_open=True)) / 1e3
    return out


def appliance_memory_bytes(appliance: str = "testbed") -> float:
    """The appliance's memory (B, Table 1; the test bed runs X-Large)."""
    v.choice("appliance", appliance, APPLIANCES)
    return vcha.inventory_sizes()["x-large" if appliance == "testbed" else appliance]["memory_bytes"]


def study_vcbench(clients, vcha_enabled=False, replication_rtt_s=0.0, stats_level=1, **scn):
    """:func:`vcperf.vcha.run_vcbench` with the study's calibrated parameters and test bed (or ``scn``)."""
    kw = {**vcha.testbed().appliance(), **scn}
    return vcha.run_vcbench(clients, vcha_enabled, replication_rtt_s, stats_level, params=vcha.calibrate(), **kw)


def study_vcbench_curve(max_clients, vcha_enabled=False, replication_rtt_s=0.0, stats_level=1, **scn):
    """:func:`vcperf.vcha.vcbench_curve` with the study's calibrated parameters and test bed (or ``scn``)."""
    kw = {**vcha.testbed().appliance(), **scn}
    return vcha.vcbench_curve(max_clients, vcha_enabled, replication_rtt_s, stats_level, params=vcha.calibrate(),
                              **kw)


def study_enable_times(registered_vms, bandwidth_bps=None):
    """:func:`vcperf.vcha.enable_vcha_times` with the study's parameters (default: its clone network)."""
    bw = vcha.testbed().clone_bandwidth_bps if bandwidth_bps is None else bandwidth_bps
    return vcha.enable_vcha_times(registered_vms, bw, vcha.calibrate().enable)


def study_failover_times(vcpus, registered_vms, psc_mode="external"):
    """:func:`vcperf.vcha.failover_times` with the study's calibrated parameters."""
    return vcha.failover_times(vcpus, registered_vms, psc_mode, params=vcha.calibrate().failover)




def enable_bars(ax):
    """Table 4 as stacked bars per inventory: the paper's steps solid, the model's hatched.

    Returns the inventories' registered VMs and the printed totals (min), for the right panel."""
    inv = vcha.inventory_sizes()
    sizes = list(vcha.INVENTORIES)
    steps = (("clone_secondary_time", "clone_secondary_s", "tab:blue"),
             ("clone_witness_time", "clone_witness_s", "tab:green"),
             ("configure_vcha_time", "configure_s", "tab:purple"))
    x = np.arange(len(sizes))
    bottom_p = np.zeros(len(sizes))
    bottom_m = np.zeros(len(sizes))
    for q, attr, color in steps:
        paper = np.array([paper_si("table04_enable_vcha", q, inventory=s) for s in sizes])
        model = np.array([float(getattr(study_enable_times(inv[s]["registered_vms"]), attr)) for s in sizes])
        ax.bar(x - 0.2, paper / 60, 0.38, bottom=bottom_p / 60, color=color, label=q.replace("_time", ""))
        ax.bar(x + 0.2, model / 60, 0.38, bottom=bottom_m / 60, color="white", edgecolor=color, hatch="//")
        bottom_p += paper
        bottom_m += model
    totals = [paper_si("table04_enable_vcha", "enable_vcha_total_time", inventory=s) / 60 for s in sizes]
    ax.plot(x - 0.2, totals, "_", color="black", markersize=14, label="printed total")
    ax.set_xticks(x, [f"{s}\npaper | model" for s in sizes], fontsize=7)
    ax.set_ylabel("time (min)")
    ax.legend(frameon=False, fontsize=7)
    return [inv[s]["registered_vms"] for s in sizes], totals



def panel_max_clients(clients: int) -> int:
    """Client axis of the VCbench what-if: 512, or the next power-of-two multiple of 512 that holds
    ``clients`` (so moving the clients slider keeps the axis, and its drawn ticks, unchanged)."""
    return int(512 * 2 ** max(0, int(np.ceil(np.log2(max(int(clients), 1) / 512.0)))))


def _nice_top(value: float) -> float:
    """The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k at least 5 % above ``value`` (> 0)."""
    v = max(float(value), 1e-12) * 1.05
    k = 10.0 ** np.floor(np.log10(v))
    for m in (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0):
        if m * k >= v * (1 - 1e-12):
            return float(m * k)
    return float(10 * k)


def label_axes(axes) -> None:
    """Labels and thousands separators of the three clients panels (throughput, latency, CPU)."""
    from matplotlib.ticker import StrMethodFormatter

    axes[0].set_ylabel("throughput (ops/min)")
    axes[1].set_ylabel("avg operation latency (s)")
    axes[2].set_ylabel("vpxd CPU (cores busy)")
    for ax in axes:
        ax.set_xlabel("VCbench clients")
        ax.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    axes[0].yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))


def clients_limits(axes, max_clients: int) -> None:
    """Fixed x range and "nice" y tops (:func:`_nice_top` of every line's data): in the what-if panel
    the limits, and so the kept background of tick labels, change only when a curve crosses a step,
    not on every slider move."""
    for ax, cap in zip(axes, (np.inf, _LATENCY_AXIS_CAP_S, np.inf), strict=True):
        ax.set_xlim(0, max_clients * 1.02)
        top = max(float(np.nanmax(np.asarray(a.get_ydata(), float), initial=0.0)) for a in ax.get_lines())
        ax.set_ylim(0, min(_nice_top(top), cap))


#: Top of the latency axis at most (s): beyond it (a replication link that cannot carry the WAL) a
#: curve leaves the plot instead of squashing the paper's points.
_LATENCY_AXIS_CAP_S = 60.0


def three_panel_margins(fig) -> None:
    """Room for the suptitle above and for each panel's y tick labels and label between panels."""
    fig.subplots_adjust(left=0.075, right=0.99, bottom=0.15, top=0.86, wspace=0.32)


def rescale_from_zero(ax) -> None:
    """Autoscale ``ax`` to its current artists, then pin the y axis to start at 0 (``set_ylim(0, None)``)."""
    ax.set_autoscale_on(True)
    ax.relim()
    ax.autoscale_view()
    ax.set_ylim(0, None)
