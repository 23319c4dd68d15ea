"""The VCHA overhead what-if panel: VCbench clients, replication latency, bandwidth and loss, statistics
level, VCHA on/off, appliance and PSC mode -> throughput and latency with their 90 % intervals (the pure
:func:`vcbench_whatif_update`; :func:`vcbench_whatif_table` gives the same as a table)."""

from __future__ import annotations

import functools

import numpy as np

from vcperf import network, plotting, protocol, vcha
from vcperf.plotting import PAPER_STYLE
from vcperf.vcha import limits as vlimits
from vcperf.vcha.extrapolation import off_testbed_spread, widen_band
from vcperf.vcha.vcbench import LAN_RTT_S, VCBENCH_PARAM_FIELDS, throughput_many
from vcperf.views.format import fmt_band, fmt_bps, fmt_duration, fmt_num, fmt_percent
from vcperf.views.vcha.common import (
    APPLIANCES,
    COLORS,
    LABEL,
    appliance_memory_bytes,
    clients_limits,
    label_axes,
    panel_max_clients,
    paper_si,
    scenario,
    study_vcbench,
    study_vcbench_curve,
    three_panel_margins,
)
from vcperf.widgets import TYPED_FORMAT, PanelFigure, style_sliders, typed_step, whatif_panel


@functools.lru_cache(maxsize=64)
def _vcbench_curve(max_clients: int, vcha_enabled: bool, replication_rtt_s: float, stats_level: int, scn: tuple):
    """:func:`vcperf.vcha.vcbench_curve`, cached for the panel (the VCHA-off curve rarely changes)."""
    return study_vcbench_curve(max_clients, vcha_enabled, replication_rtt_s, stats_level, **dict(scn))


class _VcbenchPanel(PanelFigure):
    """:func:`~vcperf.views.vcha.figures.clients_figure` built once; :meth:`draw` moves the curves, the DB
    bound and the marker."""

    def __init__(self):
        super().__init__((9.6, 3.3), 3)
        fig, axes = self.fig, self.axes
        self.lines = {}
        for vc in (False, True):
            key = "enabled" if vc else "disabled"
            self.lines[vc] = (axes[0].plot([], [], color=COLORS[key], label=f"model, {LABEL[key]}")[0],
                              axes[1].plot([], [], color=COLORS[key])[0],
                              axes[2].plot([], [], color=COLORS[key])[0])
            dot = {**PAPER_STYLE, "color": COLORS[key], "markeredgecolor": "black"}
            for c in (64, 256):
                node = {"node": "active"} if vc else {"node": ""}
                axes[0].plot([c], [paper_si("table05_throughput", "throughput", clients=c, vcha=key) * 60],
                             **dot)
                axes[1].plot([c], [paper_si("table06_operation_latency", "avg_operation_latency", clients=c,
                                                    vcha=key)], **dot)
                axes[2].plot([c], [paper_si("table07_vpxd_cpu", "vpxd_cpu_utilization", clients=c,
                                                    vcha=key, **node)], **dot)
        self.db_bound = axes[0].axhline(0.0, color="0.5", ls=":", lw=1, label="DB pool bound, no VCHA")
        self.cpu_cap = axes[2].axhline(vcha.testbed().vcpus, color="0.5", ls=":", lw=1)
        self.marks = [ax.axvline(0.0, color="0.3", lw=0.8) for ax in axes]
        label_axes(axes)
        axes[0].legend(frameon=False, fontsize=7, loc="lower right")
        fig.suptitle("Closed network: one parameter set; dots are the paper (Tables 5-7)", fontsize=9)
        plotting.fast_layout(fig)
        three_panel_margins(fig)
        self.keep_background([line for lines in self.lines.values() for line in lines]
                             + [self.db_bound, self.cpu_cap] + self.marks)

    def draw(self, max_clients: int, replication_rtt_s: float, stats_level: int, highlight: int, **whatif) -> bytes:
        n = np.arange(1, max_clients + 1)
        scn = scenario(**whatif)
        key = tuple(sorted(scn.items()))
        for vc, (thr, lat, cpu) in self.lines.items():
            s = _vcbench_curve(max_clients, vc, replication_rtt_s if vc else 0.0, stats_level, key)
            thr.set_data(n, s.throughput_per_s * 60)
            lat.set_data(n, s.response_time_s)
            cpu.set_data(n, s.cpu_cores)
        bound = 60 * study_vcbench(1, False, 0.0, stats_level, **scn).db_pool_bound_per_s
        self.db_bound.set_ydata([bound, bound])
        self.cpu_cap.set_ydata([scn["vcpus"]] * 2)
        for m in self.marks:
            m.set_xdata([highlight, highlight])
        clients_limits(self.axes, max_clients)
        return self.png()


#: The data table whose model-form misfit the what-if throughput band carries (the ledger's
#: throughput rows).
THROUGHPUT_TABLE = f"{vcha.STUDY}/table05_throughput"


#: The parameters :func:`vcperf.vcha.run_vcbench` reads (the others have zero derivative).
_VCBENCH_READS = tuple(f"{s}.{f}" for s, f in VCBENCH_PARAM_FIELDS)


@functools.lru_cache(maxsize=256)
def _vcbench_intervals(args: tuple, scn: tuple) -> tuple:
    """90 % intervals ``(value, low, high)`` of throughput (1/s) and latency (s) of a what-if.

    :meth:`vcperf.protocol.Calibration.interval` (calibration covariance + the throughput table's
    model-form misfit, Student-t bounds), its perturbed parameter sets solved in one batched MVA
    (:func:`vcperf.vcha.vcbench.throughput_many`, ~10 ms) instead of two solves per study parameter;
    the same as ``with_interval(..., data_table=THROUGHPUT_TABLE)`` (tests/test_vcha.py checks it) on
    the fitted appliance, inventory and pool; off them the band is widened
    by :func:`vcperf.vcha.extrapolation.widen_band`. The latency's follows by Little's law at the scenario's population
    (``R = N / X - Z``), so the two stay consistent. Cached: a redraw with unchanged inputs costs nothing."""
    kw = dict(scn)
    iv = protocol.calibration(vcha.STUDY).interval(
        lambda q: vcha.run_vcbench(*args, params=q, **kw).throughput_per_s, reads=_VCBENCH_READS,
        many=lambda qs: list(throughput_many(qs, *args, **kw)), data_table=THROUGHPUT_TABLE)
    x = float(iv.value)
    # off the fitted appliance, inventory or pool the band widens (vcperf.vcha.extrapolation); 0 on it
    spread = off_testbed_spread(*args, params=vcha.calibrate(), **dict(scn))
    lo, hi = widen_band(x, float(iv.low), float(iv.high), spread, iv.interval)
    z_think = vcha.calibrate().vcbench.think_time_s
    n = args[0]
    r = (n / x - z_think, n / hi - z_think if np.isfinite(hi) else np.nan,
         n / lo - z_think if np.isfinite(lo) else np.nan)
    return (x, lo, hi), r, iv.interval


def _link_rates_bps(added_rtt_s: float, bandwidth_bps: float, loss: float, hosts: float, powered_on_vms: float,
                    stats_level: int) -> tuple:
    """``(TCP rate of the replication link, background WAL stream)`` in bit/s (the link cannot carry
    VCbench's WAL at all when the second reaches the first); the background is the inventory's at the
    statistics level (:func:`vcperf.vcha.background_wal_bytes_per_s`)."""
    rate = float(network.tcp_throughput_bps(bandwidth_bps, LAN_RTT_S + added_rtt_s, loss))
    return rate, 8.0 * float(vcha.background_wal_bytes_per_s(hosts, powered_on_vms, vcha.calibrate(), stats_level))


def _ops_per_min(x: float) -> str:
    return f"{fmt_num(x, 4)} ops/min"


def vcbench_whatif_table(clients: int = 256, replication_rtt_ms: float = 5.0, stats_level: int = 1,
                         vcha_enabled: bool = True, bandwidth_gbps: float = 10.0, loss_percent: float = 0.0,
                         appliance: str = "testbed", psc_mode: str = "external", db_connections: float = 50.0,
                         passive_flush_ms: float | None = None):
    """The what-if scenario as a table: throughput and latency with their 90 % intervals
    (:func:`vcperf.protocol.with_interval`), VCHA overhead, CPU, pool, link and sync wait (inputs as
    :func:`vcbench_whatif_update`)."""
    import pandas as pd

    scn = scenario(bandwidth_gbps, loss_percent, appliance, psc_mode, db_connections, passive_flush_ms)
    args = (int(clients), bool(vcha_enabled), replication_rtt_ms / 1e3, int(stats_level))
    s = study_vcbench(*args, **scn)
    base = study_vcbench(int(clients), False, 0.0, int(stats_level), **scn)
    x, r, _ = _vcbench_intervals(args, tuple(sorted(scn.items())))
    rows = [("throughput", x[0] * 60, x[1] * 60, x[2] * 60, "ops/min"),
            ("avg operation latency", r[0] * 1e3, r[1] * 1e3, r[2] * 1e3, "ms"),
            ("throughput vs no VCHA", 100 * _change(float(s.throughput_per_s), float(base.throughput_per_s)),
             np.nan, np.nan, "%"),
            ("vpxd CPU", float(s.cpu_cores), np.nan, np.nan, "cores busy"),
            ("vCPU busy (vpxd + embedded Platform Services Controller)", 100 * float(s.cpu_utilization_per_core),
             np.nan, np.nan, "%"),
            ("DB pool busy", 100 * float(s.db_pool_utilization), np.nan, np.nan, "%"),
            ("statistics connections", float(s.stats_db_connections), np.nan, np.nan, "connections"),
            ("replication link busy", 100 * float(s.link_utilization), np.nan, np.nan, "%"),
            ("sync wait", 1e3 * float(s.sync_wait_s), np.nan, np.nan, "ms/op")]
    return pd.DataFrame(rows, columns=["quantity", "model", "low_90", "high_90", "unit"])


def vcbench_whatif_update(clients: int = 256, replication_rtt_ms: float = 5.0, stats_level: int = 1,
                          vcha_enabled: bool = True, bandwidth_gbps: float = 10.0, loss_percent: float = 0.0,
                          appliance: str = "testbed", psc_mode: str = "external", db_connections: float = 50.0,
                          passive_flush_ms: float | None = None, memory_gb: float = 0.0):
    """Model + redraw for the VCbench what-if: returns ``(readout, png_bytes)``.

    ``db_connections``: vpxd's database pool (vCenter's default 50); ``passive_flush_ms``: the
    Passive's storage sync-write latency (None: the fitted walreceiver cycle; the replication wake-up
    stays, :func:`vcperf.vcha.replication_wakeup_s`); ``memory_gb``: the appliance's memory (GB;
    0: its Table 1 size), checked against the modelled peak (a "memory pressure" flag). The readout
    lists the result's flags and names the station that sets the throughput and where it comes from
    (:data:`vcperf.vcha.BOTTLENECK_SOURCES`): the knobs of the other stations have little effect there.

    The image is :func:`clients_figure` (``highlight=clients``, the same link, appliance and PSC
    mode) with the widget layout, drawn on one figure kept between calls: only the curves, the DB
    pool bound, the vCPU line and the marker move. Throughput and latency carry their 90 % interval.
    """
    whatif = {"bandwidth_gbps": bandwidth_gbps, "loss_percent": loss_percent, "appliance": appliance,
              "psc_mode": psc_mode, "db_connections": db_connections, "passive_flush_ms": passive_flush_ms}
    scn = scenario(**whatif)
    args = (int(clients), bool(vcha_enabled), replication_rtt_ms / 1e3, int(stats_level))
    mem = float(memory_gb) * 1e9 if memory_gb else appliance_memory_bytes(appliance)
    s = study_vcbench(*args, **scn, memory_bytes=mem)
    base = study_vcbench(int(clients), False, 0.0, int(stats_level), **scn)
    png = _VcbenchPanel.shared().draw(panel_max_clients(clients), replication_rtt_ms / 1e3, int(stats_level),
                                      int(clients), **whatif)
    x = float(s.throughput_per_s)
    xi, ri, level = _vcbench_intervals(args, tuple(sorted(scn.items())))
    head = (f"{int(clients)} clients, {appliance} ({scn['vcpus']:g} vCPUs, {mem / 1e9:.0f} GB, "
            f"{scn['hosts']:,.0f} hosts), {psc_mode} Platform Services Controller (PSC), "
            f"stats level {int(stats_level)}, VCHA {'on' if vcha_enabled else 'off'}"
            + (f" (+{fmt_duration(replication_rtt_ms / 1e3)}, {fmt_bps(scn['bandwidth_bps'])}, "
               f"{fmt_percent(scn['loss'])} loss, Passive storage flush "
               + ("fitted" if passive_flush_ms is None else fmt_duration(passive_flush_ms / 1e3)) + ")"
               if vcha_enabled else "")
            + f", DB pool of {db_connections:.0f}")
    rate_bps, wal_bps = _link_rates_bps(replication_rtt_ms / 1e3, scn["bandwidth_bps"], scn["loss"], scn["hosts"],
                                        scn["powered_on_vms"], int(stats_level))
    if vcha_enabled and wal_bps >= rate_bps:
        return (head + f": the replication link's TCP rate at this round trip and loss ({fmt_bps(rate_bps)}) is below "
                f"the database's background write-ahead log (WAL) stream alone ({fmt_bps(wal_bps)}): the Passive "
                f"cannot keep up and VCbench "
                "stalls (model throughput ~0). Lower the loss or the latency, or raise the bandwidth."
                + _flags_note(s.flags)), png
    change = _change(x, float(base.throughput_per_s))
    readout = (
        head + f": {fmt_band(*(60 * np.asarray(xi)), fmt=_ops_per_min, interval=level)}, "
        f"{'+' if change >= 0 else ''}{fmt_percent(change)} vs no VCHA; "
        f"latency {fmt_band(*ri, interval=level)}, "
        f"vpxd CPU {float(s.cpu_cores):.1f} of {scn['vcpus']:g} cores, "
        f"DB pool {fmt_percent(float(s.db_pool_utilization))} busy, "
        f"link {fmt_percent(float(s.link_utilization))} busy, sync wait {fmt_duration(float(s.sync_wait_s))} per "
        f"operation; {_bottleneck_note(s, scn)}. (Lines show VCHA at the chosen "
        f"latency.){_flags_note(s.flags)}"
    )
    return readout, png


def _change(x: float, base: float) -> float:
    """``x / base - 1``, with a difference below the solver's rounding (1e-12) shown as 0 (a Small
    appliance at 256 clients printed "-0.0000000000000222 %": both runs CPU-bound at the same rate)."""
    c = x / base - 1.0
    return 0.0 if abs(c) < 1e-12 else c


def _bottleneck_note(s, scn: dict) -> str:
    """Which station sets the throughput, where its capacity comes from, and which knobs have slack
    (their stations are far from saturation, so moving them changes the throughput little)."""
    neck = str(np.ravel(s.bottleneck)[0])
    if neck == "none":
        return vcha.BOTTLENECK_SOURCES["none"]
    busy = {"vpxd CPU": (float(np.ravel(s.cpu_utilization_per_core)[0]), "vCPUs"),
            "database connection pool": (float(np.ravel(s.db_pool_utilization)[0]), "connections"),
            "replication link": (float(np.ravel(s.link_utilization)[0]), "bandwidth")}
    pool = float(scn.get("db_connections", vcha.DEFAULT_DB_CONNECTIONS))
    if neck == "database connection pool":  # the answer rests on the pool: say where its size comes from
        what = vlimits.pool_provenance(pool)
    else:
        size = {"vpxd CPU": f"{scn['vcpus']:g} vCPUs", "replication link": fmt_bps(scn["bandwidth_bps"])}[neck]
        what = f"{size}; {vcha.BOTTLENECK_SOURCES[neck]}"
    slack = ", ".join(f"{knob} ({name} {fmt_percent(u)} busy)" for name, (u, knob) in busy.items()
                      if name != neck and u < 0.8)
    via = ("; commit waits hold its connections, so the replication RTT and the Passive's flush act through it"
           if neck == "database connection pool" else "")
    return (f"throughput set by the {neck} ({what}){via}"
            + (f"; {slack} change it little here" if slack else ""))


def _flags_note(flags) -> str:
    """The result's flags (unsupported inputs, overload, memory pressure), one after another."""
    return "".join(f" \u26a0 {f}." for f in flags)


def vcbench_whatif(clients: int = 256, replication_rtt_ms: float = 5.0, stats_level: int = 1,
                   vcha_enabled: bool = True, bandwidth_gbps: float = 10.0, loss_percent: float = 0.0,
                   appliance: str = "testbed", psc_mode: str = "external", db_connections: float = 50.0,
                   passive_flush_ms: float | None = None, memory_gb: float = 0.0):
    """The VCbench what-if panel: clients, replication latency/bandwidth/loss, statistics level, VCHA
    on/off, appliance size, PSC mode, database pool, the Passive's flush and the appliance's memory."""
    import ipywidgets as w

    n = w.IntSlider(value=clients, min=1, max=1024, step=1, description="clients")
    rtt = w.FloatSlider(value=replication_rtt_ms, min=0, max=30, step=0.5, description="added RTT ms",
                        readout_format=TYPED_FORMAT)
    lvl = w.IntSlider(value=stats_level, min=1, max=4, step=1, description="stats level")
    on = w.Checkbox(value=vcha_enabled, description="VCHA enabled")
    bw = w.FloatLogSlider(value=bandwidth_gbps, base=10, min=-2, max=2, step=typed_step(), description="link Gbit/s",
                          readout_format=TYPED_FORMAT)
    loss = w.FloatSlider(value=loss_percent, min=0, max=5, step=0.01, description="loss %", readout_format=TYPED_FORMAT)
    app = w.Dropdown(options=list(APPLIANCES), value=appliance, description="appliance")
    psc = w.Dropdown(options=["external", "embedded"], value=psc_mode, description="Platform Services Controller (PSC)")
    pool = w.IntSlider(value=int(db_connections), min=2, max=400, step=1, description="DB connections")
    fitted_flush_ms = 1e3 * vcha.calibrate().disk.walreceiver_cycle_s  # the Passive's storage (the wake-up stays)
    flush = w.FloatLogSlider(value=fitted_flush_ms if passive_flush_ms is None else passive_flush_ms, base=10,
                             min=-2, max=2, step=typed_step(), description="Passive storage ms",
                             readout_format=TYPED_FORMAT)
    mem = w.FloatSlider(value=memory_gb, min=0, max=128, step=1, description="memory GB (0 = size default)",
                        readout_format=".0f")
    # 230 px: "Platform Services Controller (PSC)" and "memory GB (0 = size default)" whole
    style_sliders(n, rtt, lvl, bw, loss, pool, flush, mem, description_width="230px")

    def link_live(*_):  # the replication link only matters with VCHA on: say so by greying it out
        for c in (rtt, bw, loss):
            c.disabled = not on.value

    on.observe(link_live, names="value")
    link_live()
    for c in (app, psc):
        c.style.description_width = "230px"
        c.layout.width = "460px"  # as the sliders: the label and the choice both whole
    return whatif_panel([n, rtt, lvl, on, bw, loss, app, psc, pool, flush, mem], vcbench_whatif_update)
