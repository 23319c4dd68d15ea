"""vCenter 6.5 High Availability (VCHA): ``000_bf7f1144753162c9.txt``.

Four model families, each with one calibrated parameter set that serves all of its tables:

1. **vCenter under VCbench** (Tables 5, 6, 7, 12, 13, 14, 15; Figures 5-11) -- a closed queueing
   network solved by exact MVA (:func:`vcperf.queueing.mva`). One class of customers: the VCbench
   clients. Per operation a client visits

   * the **vpxd CPU**: ``c`` vCPUs of the appliance, minus the cores vpxd burns on background work
     (host sync, statistics) independent of VCbench. A ``c``-server station is replaced by the
     Seidmann-Schweitzer-Shalev-Oren approximation [1]_: a queueing station of demand ``D/c`` in
     series with a delay of ``D (c - 1) / c``;
   * the **PostgreSQL connection pool**: vpxd holds one of its ``M`` database connections (vCenter
     default: 50) while the operation's transactions run *and commit*. Same multi-server
     approximation. With VCHA enabled each commit waits for the Passive node's acknowledgement
     (synchronous replication, RPO = 0), so the holding time grows with the replication round trip;
     at high load this is where the contention appears;
   * the **ESXi hosts** (host RPCs and everything else that does not queue): a delay station;
   * the client **think time** between operations.

   Throughput, latency and vpxd CPU come out of the same solution: ``U = U_bg + X D_cpu``
   (utilization law) and ``N = X (R + Z)`` (Little's law) hold by construction.

2. **Replication traffic and WAL writes** (Tables 9, 10, 11): WAL bytes per operation times
   throughput plus background WAL (statistics, events, tasks) go over eth1 to the Passive; the
   Active's WAL disk (sdg) writes every flushed WAL page again plus the new WAL bytes.

3. **Enabling VCHA** (Table 4): two clones of the appliance disks over the clone network (data grows
   with the inventory) plus a fixed configuration time.

4. **Failover / RTO** (Tables 2, 3, 16, 17): failure detection and promotion (the "in progress"
   page), PSC services (Embedded PSC only), then vpxd start-up whose CPU work is spread over the
   vCPUs and whose inventory load grows with the registered VMs; the Web Client screens follow.

No paper number is typed here: every calibrated parameter is fitted by a function of this module
from ``data/vcha2016`` (named in each dataclass field's comment) and cached.

References
----------
.. [1] A. Seidmann, P. J. Schweitzer, S. Shalev-Oren, "Computerized Closed Queueing Network Models
   of Flexible Manufacturing Systems", Large Scale Systems 12, 91-107, 1987 (a multi-server
   station as a single fast server plus a delay).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import network, queueing

STUDY = "vcha2016"
SEED = "000_bf7f1144753162c9.txt"

#: vCenter's default maximum number of simultaneous database connections (vCenter Server Upgrade
#: Guide, "Set the Maximum Number of Database Connections": "By default, a vCenter Server creates a
#: maximum of 50 simultaneous database connections").
DEFAULT_DB_CONNECTIONS = 50

#: PostgreSQL WAL page (``XLOG_BLCKSZ``, default 8 KiB): every WAL flush rewrites the current page.
WAL_PAGE_BYTES = 8192

#: Round-trip time of an idle 10 GbE LAN between two servers of the test bed (assumed: the study
#: does not print it; a few hundred microseconds is typical and the clone time hardly depends on it).
LAN_RTT_S = 2e-4

#: Statistics levels 1-4 grouped by the amount of statistics data they produce. The ROBO study
#: (``001_36d9adf7ffa34fcf.txt``, Statistics Data Size; ``data/robo2019/figure06_stats_data_size``)
#: states Level 2 is close to Level 1, Level 4 close to Level 3, with a considerable jump from 2 to 3.
#: Level 1/2 statistics are part of the baseline; levels 3/4 add the ``stats_db_connections`` load.
STATS_LEVEL_HIGH = {1: 0.0, 2: 0.0, 3: 1.0, 4: 1.0}

INVENTORIES = ("small", "medium", "large", "x-large")
SCREENS = ("blank_screen_time", "blue_screen_time", "inventory_screen_time", "vc_summary_time")


# --------------------------------------------------------------------------------------------
# Data access (paper numbers are read here, only to calibrate and to compare)
# --------------------------------------------------------------------------------------------


def _value(table: str, quantity: str, **conditions) -> float:
    """One paper number in SI (``data.value(..., unit="si")``)."""
    from vcperf import data

    return data.value(f"{STUDY}/{table}", quantity, unit="si", **conditions)


def paper_value(table: str, quantity: str, **conditions) -> float:
    """A paper number of this study in SI, e.g. ``paper_value("table05_throughput", "throughput",
    clients=64, vcha="enabled")`` (ops/s). For figures that draw the paper beside the model."""
    return _value(table, quantity, **conditions)


def _load(table: str):
    from vcperf import data

    return data.load(f"{STUDY}/{table}")


def _vcha(enabled: bool) -> str:
    return "enabled" if enabled else "disabled"


@functools.lru_cache(maxsize=1)
def inventory_sizes() -> dict:
    """Table 1 configurations: ``{size: {"vcpus", "memory_bytes", "hosts", "registered_vms", ...}}``."""
    out = {}
    for size in INVENTORIES:
        out[size] = {
            "vcpus": _value("table01_sizing", "vcpus", inventory=size),
            "memory_bytes": _value("table01_sizing", "memory", inventory=size),
            "clusters": _value("table01_sizing", "clusters", inventory=size),
            "hosts": _value("table01_sizing", "hosts", inventory=size),
            "registered_vms": _value("table01_sizing", "registered_vms", inventory=size),
            "powered_on_vms": _value("table01_sizing", "powered_on_vms", inventory=size),
        }
    return out


def default_vcpus() -> int:
    """vCPUs of the appliance in the overhead experiments: the extra-large configuration.

    The study runs them with the largest supported inventory (``testbed.csv``), which needs the
    X-Large appliance of Table 1; its PSC section states the same 32 vCPUs (``text_psc.csv``).
    """
    return int(_value("text_psc", "test_appliance_vcpus"))


# --------------------------------------------------------------------------------------------
# 1. vCenter under VCbench: closed queueing network
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class VcbenchParams:
    """Parameters of the VCbench closed network (one set for Tables 5-7, 12-15).

    Attributes
    ----------
    cpu_demand_s : float
        vpxd CPU time per VCbench operation (core-seconds). Fitted: Tables 5, 6, 7.
    background_cpu_cores : float
        vpxd CPU busy on work that does not depend on VCbench (host sync, statistics), in cores.
        Fitted: Tables 5, 6, 7.
    db_hold_s : float
        Time one operation holds a database connection, commits excluded (s). Fitted: Tables 5, 6, 7.
    host_delay_s : float
        Non-queueing time per operation: host RPCs, agents on ESXi, network (s). Fitted: Tables 5, 6, 7.
    think_time_s : float
        Client-side time between the end of one operation and the next (s). Fitted: Tables 5, 6, 7.
    commit_wait_s : float
        Extra time per operation that synchronous commits wait with VCHA on and no added latency
        (``sync_commits_per_op`` x (LAN round trip + Passive's WAL flush)), s. Fitted: Tables 5, 6, 7.
    sync_commits_per_op : float
        Commits per operation that each wait one replication round trip (count). Fitted: Table 13,
        64-client rows only (the 256-client rows are held out).
    stats_db_connections : float
        Database connections kept busy by statistics levels 3 and 4 beyond levels 1 and 2 (count).
        Fitted: Table 12, VCHA-disabled levels 3 and 4.
    vcpus : int
        Appliance vCPUs (X-Large: 32, Table 1 / PSC section).
    db_connections : int
        vpxd's database connection pool (vCenter default 50).
    """

    cpu_demand_s: float
    background_cpu_cores: float
    db_hold_s: float
    host_delay_s: float
    think_time_s: float
    commit_wait_s: float
    sync_commits_per_op: float
    stats_db_connections: float
    vcpus: int = 32
    db_connections: int = DEFAULT_DB_CONNECTIONS

    @property
    def commit_ack_s(self) -> float:
        """Acknowledgement time of one synchronous commit without added latency (s)."""
        return self.commit_wait_s / self.sync_commits_per_op


@dataclass(frozen=True, eq=False)
class VcbenchResult:
    """Solution of the VCbench network; arrays of shape ``rtt.shape + clients.shape``.

    Attributes
    ----------
    clients : ndarray of int
        Number of VCbench clients.
    throughput_per_s : ndarray
        Operations per second (Table 5 prints ops/min).
    response_time_s : ndarray
        Average operation latency (Table 6), think time excluded.
    cpu_cores : ndarray
        vpxd CPU utilization in cores (Table 7 prints percent, 100 % = one core).
    cpu_utilization_per_core : ndarray
        ``cpu_cores / vcpus``: busy fraction of each vCPU, <= 1.
    db_pool_utilization : ndarray
        Busy fraction of the usable database connections.
    sync_wait_s : ndarray
        Time per operation spent waiting for the Passive's acknowledgements (0 without VCHA).
    think_time_s : float
        Client think time used (for Little's law ``N = X (R + Z)``).
    """

    clients: np.ndarray
    throughput_per_s: np.ndarray
    response_time_s: np.ndarray
    cpu_cores: np.ndarray
    cpu_utilization_per_core: np.ndarray
    db_pool_utilization: np.ndarray
    sync_wait_s: np.ndarray
    think_time_s: float


_DELAY_MASK = np.array([False, True, False, True, True])  # cpu queue, cpu delay, db queue, db delay, host


def _station_demands(p: VcbenchParams, vcha_enabled: bool, rtt_s: np.ndarray, stats_level: int):
    """Demands (..., 5) of the five stations and the per-op sync wait (...)."""
    cores = p.vcpus - p.background_cpu_cores
    pool = p.db_connections - p.stats_db_connections * STATS_LEVEL_HIGH[stats_level]
    sync = (p.commit_wait_s + p.sync_commits_per_op * rtt_s) if vcha_enabled else np.zeros_like(rtt_s)
    hold = p.db_hold_s + sync
    d = np.stack(
        [
            np.full_like(rtt_s, p.cpu_demand_s / cores),
            np.full_like(rtt_s, p.cpu_demand_s * (cores - 1.0) / cores),
            hold / pool,
            hold * (pool - 1.0) / pool,
            np.full_like(rtt_s, p.host_delay_s),
        ],
        axis=-1,
    )
    return d, hold, pool, sync


def vcbench(clients, vcha_enabled: bool = False, replication_rtt_s=0.0, stats_level: int = 1,
            params: VcbenchParams | None = None) -> VcbenchResult:
    """Throughput, latency and vpxd CPU of vCenter under VCbench (Tables 5-7, 12, 13).

    Parameters
    ----------
    clients : int or array_like of int
        Concurrent VCbench clients, in [1, 4096] (the study: 64 common case, 256 worst case).
    vcha_enabled : bool
        VCHA three-node cluster (commits wait for the Passive) or the single appliance.
    replication_rtt_s : float or array_like
        Latency added to the private VCHA network, seconds, in [0, 1] (Table 13: 0, 5, 10 ms; the
        product supports up to 10 ms). Ignored when ``vcha_enabled`` is False.
    stats_level : int
        vCenter statistics level 1-4 (Table 12; default 1, the study's default).
    params : VcbenchParams, optional
        Default: :func:`calibrate_vcbench`.

    Returns
    -------
    VcbenchResult
        Arrays of shape ``np.shape(replication_rtt_s) + np.shape(clients)``.
    """
    n = np.asarray(v.check_range("clients", clients, 1, 4096))
    if np.any(n != np.round(n)):
        raise ValueError(f"clients must be integers in [1, 4096]; got {n[n != np.round(n)].flat[0]:g}")
    n = n.astype(int)
    rtt = v.check_range("replication_rtt_s", replication_rtt_s, 0.0, 1.0)
    if not isinstance(vcha_enabled, bool | np.bool_):
        raise ValueError(f"vcha_enabled must be True or False; got {vcha_enabled!r}")
    v.choice("stats_level", stats_level, (1, 2, 3, 4))
    p = params or calibrate_vcbench()
    d, hold, pool, sync = _station_demands(p, bool(vcha_enabled), rtt, stats_level)
    sol = queueing.mva(d, int(n.max()), p.think_time_s, _DELAY_MASK)
    idx = n - 1
    x = sol.throughput_per_s[..., idx]
    r = sol.response_time_s[..., idx]
    grow = (Ellipsis,) + (None,) * n.ndim
    cpu = p.background_cpu_cores + x * p.cpu_demand_s
    return VcbenchResult(
        clients=n,
        throughput_per_s=x,
        response_time_s=r,
        cpu_cores=cpu,
        cpu_utilization_per_core=cpu / p.vcpus,
        db_pool_utilization=x * np.asarray(hold)[grow] / pool,
        sync_wait_s=np.broadcast_to(np.asarray(sync)[grow], x.shape).copy(),
        think_time_s=p.think_time_s,
    )


def _vcbench_targets():
    """The 12 numbers of Tables 5, 6, 7: ``[(clients, vcha, X, R, U_cores), ...]``."""
    rows = []
    for clients in (64, 256):
        for vcha in (False, True):
            node = {"node": "active"} if vcha else {"node": ""}
            rows.append((
                clients, vcha,
                _value("table05_throughput", "throughput", clients=clients, vcha=_vcha(vcha)),
                _value("table06_operation_latency", "avg_operation_latency", clients=clients, vcha=_vcha(vcha)),
                _value("table07_vpxd_cpu", "vpxd_cpu_utilization", clients=clients, vcha=_vcha(vcha), **node),
            ))
    return rows


@functools.lru_cache(maxsize=1)
def calibrate_vcbench() -> VcbenchParams:
    """Fit :class:`VcbenchParams` to the paper, in three deterministic least-squares stages.

    1. Six demands (CPU, background CPU, DB hold, host delay, think time, commit wait) to the 12
       numbers of Tables 5, 6 and 7 (throughput, latency, vpxd CPU; 64/256 clients; VCHA off/on),
       log residuals.
    2. ``sync_commits_per_op`` to the two 64-client rows of Table 13 (5 and 10 ms).
    3. ``stats_db_connections`` to the two VCHA-disabled level-3/4 rows of Table 12.

    Held out: Table 13 at 256 clients, Table 12 levels 2-4 with VCHA and level 2 without, Tables
    14 and 15.
    """
    from scipy.optimize import least_squares

    vcpus = default_vcpus()
    targets = _vcbench_targets()

    def make(q, nc=1.0, stats=0.0):
        return VcbenchParams(*q, sync_commits_per_op=nc, stats_db_connections=stats, vcpus=vcpus)

    def stage1(q):
        p = make(q)
        out = []
        for clients, vcha, x, r, u in targets:
            s = vcbench(clients, vcha, params=p)
            out += [np.log(s.throughput_per_s / x), np.log(s.response_time_s / r), np.log(s.cpu_cores / u)]
        return np.array(out)

    #       cpu    bg    hold  host  think  commit
    q0 = np.array([0.1, 2.0, 0.4, 0.8, 0.05, 0.03])
    lo = [1e-4, 0.0, 1e-4, 0.0, 0.0, 0.0]
    hi = [5.0, vcpus - 2.0, 10.0, 10.0, 5.0, 1.0]
    q = least_squares(stage1, q0, bounds=(lo, hi), x_scale="jac").x

    rows13 = [(ms, _value("table13_private_network_latency", "throughput", clients=64,
                          network_latency_ms=ms, vcha="enabled")) for ms in (5, 10)]

    def stage2(nc):
        p = make(q, nc[0])
        return np.array([np.log(vcbench(64, True, ms / 1e3, params=p).throughput_per_s / x) for ms, x in rows13])

    nc = float(least_squares(stage2, [20.0], bounds=([1.0], [1e4])).x[0])

    rows12 = [(lvl, _value("table12_stats_level", "throughput", clients=256, stats_level=lvl, vcha="disabled"))
              for lvl in (3, 4)]

    def stage3(s):
        p = make(q, nc, s[0])
        return np.array([np.log(vcbench(256, False, stats_level=lvl, params=p).throughput_per_s / x)
                         for lvl, x in rows12])

    stats = float(least_squares(stage3, [5.0], bounds=([0.0], [DEFAULT_DB_CONNECTIONS - 2.0])).x[0])
    return make(q, nc, stats)


def vcbench_curve(max_clients: int, vcha_enabled: bool = False, replication_rtt_s: float = 0.0,
                  stats_level: int = 1, params: VcbenchParams | None = None) -> VcbenchResult:
    """:func:`vcbench` for every population ``1..max_clients`` (for throughput-vs-clients plots)."""
    m = v.integer("max_clients", max_clients, 1, 4096)
    v.check_range("replication_rtt_s", replication_rtt_s, 0.0, 1.0)
    return vcbench(np.arange(1, m + 1), vcha_enabled, float(replication_rtt_s), stats_level, params)


# --------------------------------------------------------------------------------------------
# 2. Replication traffic and WAL writes
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WalParams:
    """WAL volume and management traffic (Table 11).

    Attributes
    ----------
    wal_bytes_per_op : float
        WAL bytes one VCbench operation generates (bytes). Fitted: Table 11, eth1 transmit.
    background_wal_bytes_per_s : float
        WAL from work independent of VCbench (statistics, events, tasks), bytes/s. Fitted: Table 11,
        eth1 transmit.
    eth0_receive_bytes_per_op, eth0_transmit_bytes_per_op : float
        Management-network bytes per operation (host RPCs and client SDK traffic). Fitted: Table 11
        eth0 rows (VCHA off and on, 4 points each).
    eth0_receive_background_bytes_per_s, eth0_transmit_background_bytes_per_s : float
        Management traffic without VCbench (host sync and heartbeats of the 2,000 hosts), bytes/s.
        Fitted: Table 11 eth0 rows.
    """

    wal_bytes_per_op: float
    background_wal_bytes_per_s: float
    eth0_receive_bytes_per_op: float
    eth0_transmit_bytes_per_op: float
    eth0_receive_background_bytes_per_s: float
    eth0_transmit_background_bytes_per_s: float


@functools.lru_cache(maxsize=1)
def calibrate_wal() -> WalParams:
    """Fit :class:`WalParams`: each rate = background + bytes/op x X, linear least squares on the
    runs of Table 11 (eth1 transmit: the two VCHA runs, exact; eth0: all four runs), with X the
    paper's throughput of the same run (Table 5)."""

    def fit(pairs):
        a = np.array([[1.0, x] for x, _ in pairs])
        b = np.array([rate for _, rate in pairs])
        (background, per_op), *_ = np.linalg.lstsq(a, b, rcond=None)
        return float(background), float(per_op)

    def pairs(quantity, interface, runs):
        out = []
        for clients, vc in runs:
            x = _value("table05_throughput", "throughput", clients=clients, vcha=_vcha(vc))
            rate = _value("table11_network", quantity, clients=clients, vcha=_vcha(vc),
                          node="active" if vc else "", interface=interface)
            out.append((x, rate))
        return out

    both = [(n, vc) for n in (64, 256) for vc in (False, True)]
    wal_bg, wal_op = fit(pairs("network_transmit_rate", "eth1", [(64, True), (256, True)]))
    rx_bg, rx_op = fit(pairs("network_receive_rate", "eth0", both))
    tx_bg, tx_op = fit(pairs("network_transmit_rate", "eth0", both))
    return WalParams(wal_op, wal_bg, rx_op, tx_op, rx_bg, tx_bg)


def management_traffic_bytes_per_s(throughput_per_s, params: WalParams | None = None):
    """eth0 receive and transmit rates (bytes/s) at a VCbench throughput: ``(receive, transmit)``."""
    x = v.nonneg("throughput_per_s", throughput_per_s)
    p = params or calibrate_wal()
    return (p.eth0_receive_background_bytes_per_s + p.eth0_receive_bytes_per_op * x,
            p.eth0_transmit_background_bytes_per_s + p.eth0_transmit_bytes_per_op * x)


def replication_traffic_bytes_per_s(throughput_per_s, params: WalParams | None = None):
    """WAL streamed Active -> Passive over eth1 (bytes/s), Table 11 eth1 transmit.

    ``background_wal_bytes_per_s + wal_bytes_per_op * throughput_per_s``.
    """
    x = v.nonneg("throughput_per_s", throughput_per_s)
    p = params or calibrate_wal()
    return p.background_wal_bytes_per_s + p.wal_bytes_per_op * x


def wal_disk_write_bytes_per_s(throughput_per_s, wal_flushes_per_s, params: WalParams | None = None):
    """Write bandwidth of the Active's WAL disk sdg (bytes/s), Tables 9-10.

    Every flush rewrites the current, partly filled WAL page (:data:`WAL_PAGE_BYTES`), and the new
    WAL bytes are written once: ``flushes x page + WAL rate``. The flush rate is the measured sdg
    write rate (TPS) of the same table.
    """
    f = v.nonneg("wal_flushes_per_s", wal_flushes_per_s)
    return f * WAL_PAGE_BYTES + replication_traffic_bytes_per_s(throughput_per_s, params)


# --------------------------------------------------------------------------------------------
# 3. Enabling VCHA
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EnableParams:
    """Enabling VCHA (Table 4).

    Attributes
    ----------
    clone_overhead_s : float
        Per clone: everything but moving inventory-dependent data (base appliance disks, VM
        creation, power-on), s. Fitted: Table 4 clone rows.
    clone_bytes_per_registered_vm : float
        Appliance disk data that grows with the inventory, per registered VM (bytes). Fitted: Table
        4 clone rows.
    configure_s : float
        Fixed time to configure PostgreSQL and file replication. Fitted: Table 4 configure rows.
    """

    clone_overhead_s: float
    clone_bytes_per_registered_vm: float
    configure_s: float


@dataclass(frozen=True, eq=False)
class EnableTimes:
    """Time of each step of enabling VCHA (s); arrays of the input shape."""

    clone_secondary_s: np.ndarray
    clone_witness_s: np.ndarray
    configure_s: np.ndarray
    total_s: np.ndarray


def clone_bandwidth_bps() -> float:
    """Clone network of the study: 10 Gbps (``text_enable_vcha.csv``)."""
    return _value("text_enable_vcha", "clone_network_bandwidth")


@functools.lru_cache(maxsize=1)
def calibrate_enable() -> EnableParams:
    """Fit :class:`EnableParams` by least squares on Table 4.

    Clone time ``= clone_overhead_s + transfer(bytes_per_vm x registered VMs)`` over the 10 Gbps
    clone network, linear in the two parameters. The Large witness row is flagged ambiguous in the
    data (it repeats the Medium cell) and is left out of the fit.
    """
    from vcperf import data

    df = data.load(f"{STUDY}/table04_enable_vcha")
    inv = inventory_sizes()
    bw = clone_bandwidth_bps()
    a, b = [], []
    for _, row in df[df["quantity"].isin(["clone_secondary_time", "clone_witness_time"])].iterrows():
        if row["flag"] == "ambiguous":
            continue
        vms = inv[row["inventory"]]["registered_vms"]
        a.append([1.0, vms * 8.0 / bw])
        b.append(data.to_si(row["value"], row["unit"]))
    (overhead, per_vm), *_ = np.linalg.lstsq(np.array(a), np.array(b), rcond=None)
    conf = df[df["quantity"] == "configure_vcha_time"]
    configure = float(np.mean([data.to_si(r["value"], r["unit"]) for _, r in conf.iterrows()]))
    return EnableParams(float(overhead), float(per_vm), configure)


def enable_vcha_times(registered_vms, bandwidth_bps=None, params: EnableParams | None = None) -> EnableTimes:
    """Time to enable VCHA: clone Secondary, clone Witness, configure (Table 4, Figure 4).

    Parameters
    ----------
    registered_vms : float or array_like
        Registered VMs of the inventory, >= 0 (Table 1: 1,440 .. 36,864).
    bandwidth_bps : float, optional
        Clone network rate, bit/s, > 0 (default: the study's 10 Gbps).
    params : EnableParams, optional
        Default: :func:`calibrate_enable`.

    Notes
    -----
    Both clones copy the same appliance back to back (the text: "the same clone operation performed
    twice"), so the model gives them the same time; the data is moved with
    :func:`vcperf.network.transfer_time_s` over the clone link (LAN round trip :data:`LAN_RTT_S`).
    """
    vms = v.nonneg("registered_vms", registered_vms)
    bw = v.positive("bandwidth_bps", clone_bandwidth_bps() if bandwidth_bps is None else bandwidth_bps)
    p = params or calibrate_enable()
    clone = p.clone_overhead_s + network.transfer_time_s(vms * p.clone_bytes_per_registered_vm, bw, LAN_RTT_S)
    conf = np.full_like(clone, p.configure_s)
    return EnableTimes(clone, clone.copy(), conf, 2.0 * clone + conf)


# --------------------------------------------------------------------------------------------
# 4. Failover / RTO
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FailoverParams:
    """Failover phases (Tables 2, 3, 16, 17).

    Attributes
    ----------
    takeover_s : float
        Failure detection, promotion of the Passive and take-over of the public IP, until the
        "failover in progress" page is served (s). Fitted: Table 2 and Table 17 External InProgress.
    vpxd_start_cpu_s : float
        vpxd start-up work that is spread over the vCPUs (core-seconds). Fitted: Table 2.
    vpxd_start_s_per_vm : float
        vpxd start-up time per registered VM (inventory load; does not shrink with vCPUs), s. Fitted:
        Table 2.
    psc_start_s : float
        Embedded PSC only: PSC services started before the management services (s). Fitted: Table 16.
    client_start_cpu_s : float
        vsphere-client start-up work spread over the vCPUs (core-seconds). Fitted: Table 3.
    client_start_s_per_vm : float
        vsphere-client start-up time per registered VM, s. Fitted: Table 3.
    screen_offsets_s : tuple of float
        Blue screen, inventory and VC-summary page after the blank screen (s). Fitted: Table 3.
    """

    takeover_s: float
    vpxd_start_cpu_s: float
    vpxd_start_s_per_vm: float
    psc_start_s: float
    client_start_cpu_s: float
    client_start_s_per_vm: float
    screen_offsets_s: tuple


@dataclass(frozen=True, eq=False)
class FailoverTimes:
    """Times after the Active fails (s); arrays of the broadcast input shape."""

    in_progress_s: np.ndarray
    vpxd_ready_s: np.ndarray
    blank_screen_s: np.ndarray
    blue_screen_s: np.ndarray
    inventory_screen_s: np.ndarray
    vc_summary_s: np.ndarray


@functools.lru_cache(maxsize=1)
def calibrate_failover() -> FailoverParams:
    """Fit :class:`FailoverParams` (linear least squares, each group separately).

    vpxd ready ``= takeover + vpxd_start_cpu_s / vcpus + vpxd_start_s_per_vm x VMs`` on Table 2 plus
    ``in progress = takeover`` on Table 17 (External); ``psc_start_s`` = Table 16 Embedded minus the
    model's External; blank screen ``= takeover + client_start_cpu_s / vcpus + client_start_s_per_vm
    x VMs`` and constant offsets of the later screens on Table 3.
    """
    inv = inventory_sizes()
    a, b = [], []
    for size in INVENTORIES:
        a.append([1.0, 1.0 / inv[size]["vcpus"], inv[size]["registered_vms"]])
        b.append(_value("table02_vpxd_ready_time", "vpxd_ready_time", inventory=size))
    a.append([1.0, 0.0, 0.0])
    b.append(_value("table17_psc_vsphere_client_usability", "in_progress_screen_time", psc_mode="external"))
    (takeover, cpu, per_vm), *_ = np.linalg.lstsq(np.array(a), np.array(b), rcond=None)
    xl = inv["x-large"]
    ext = takeover + cpu / xl["vcpus"] + per_vm * xl["registered_vms"]
    psc = _value("table16_psc_vpxd_ready_time", "vpxd_ready_time", psc_mode="embedded", inventory="x-large") - ext
    # Web Client: blank screen, then constant offsets. All four screens of all sizes in one system.
    a, b = [], []
    for size in INVENTORIES:
        for k, screen in enumerate(SCREENS):
            row = [1.0 / inv[size]["vcpus"], inv[size]["registered_vms"], 0.0, 0.0, 0.0]
            if k:
                row[1 + k] = 1.0
            a.append(row)
            b.append(_value("table03_vsphere_client_usability", screen, inventory=size) - takeover)
    sol, *_ = np.linalg.lstsq(np.array(a), np.array(b), rcond=None)
    return FailoverParams(float(takeover), float(cpu), float(per_vm), float(psc), float(sol[0]), float(sol[1]),
                          tuple(float(s) for s in sol[2:]))


def failover_times(vcpus, registered_vms, psc_mode: str = "external",
                   params: FailoverParams | None = None) -> FailoverTimes:
    """Failover/RTO: times until vpxd accepts connections and the Web Client screens appear.

    Parameters
    ----------
    vcpus : float or array_like
        Appliance vCPUs, in [1, 256] (Table 1: 4 .. 32).
    registered_vms : float or array_like
        Registered VMs, >= 0 (Table 1: 1,440 .. 36,864).
    psc_mode : {"external", "embedded"}
        Embedded PSC starts the PSC services before vpxd and vsphere-client (Tables 16-17).
    params : FailoverParams, optional
        Default: :func:`calibrate_failover`.
    """
    c = v.check_range("vcpus", vcpus, 1.0, 256.0)
    vms = v.nonneg("registered_vms", registered_vms)
    v.choice("psc_mode", psc_mode, ("external", "embedded"))
    p = params or calibrate_failover()
    c, vms = np.broadcast_arrays(c, vms)
    psc = p.psc_start_s if psc_mode == "embedded" else 0.0
    in_progress = np.full(c.shape, p.takeover_s + psc)
    base = p.takeover_s + psc
    ready = base + p.vpxd_start_cpu_s / c + p.vpxd_start_s_per_vm * vms
    blank = base + p.client_start_cpu_s / c + p.client_start_s_per_vm * vms
    blue, inventory, summary = (blank + off for off in p.screen_offsets_s)
    return FailoverTimes(in_progress, ready, blank, blue, inventory, summary)


# --------------------------------------------------------------------------------------------
# Fidelity
# --------------------------------------------------------------------------------------------


def _row(source, locator, quantity, conditions, unit, paper, model, fitted, relation="="):
    from vcperf.fidelity import FidelityRow

    return FidelityRow(study=STUDY, source=f"{STUDY}/{source}", locator=locator, quantity=quantity,
                       conditions=conditions, unit=unit, paper_value=float(paper), model_value=float(model),
                       fitted=bool(fitted), relation=relation)


def _vcbench_rows(p: VcbenchParams) -> list:
    rows = []
    sol = {(n, vc): vcbench(n, vc, params=p) for n in (64, 256) for vc in (False, True)}
    for n in (64, 256):
        for vc in (False, True):
            s = sol[n, vc]
            cond = f"{n} clients; VCHA {_vcha(vc)}"
            rows.append(_row("table05_throughput", "Table 5 / Figure 7", "throughput", cond, "1/s",
                             _value("table05_throughput", "throughput", clients=n, vcha=_vcha(vc)),
                             s.throughput_per_s, True))
            rows.append(_row("table06_operation_latency", "Table 6 / Figure 8", "avg_operation_latency", cond, "s",
                             _value("table06_operation_latency", "avg_operation_latency", clients=n, vcha=_vcha(vc)),
                             s.response_time_s, True))
            node = {"node": "active"} if vc else {"node": ""}
            rows.append(_row("table07_vpxd_cpu", "Table 7 / Figure 9", "vpxd_cpu_utilization", cond, "cores",
                             _value("table07_vpxd_cpu", "vpxd_cpu_utilization", clients=n, vcha=_vcha(vc), **node),
                             s.cpu_cores, True))
        on, off = sol[n, True], sol[n, False]
        rows.append(_row("table05_throughput", "Table 5 (Difference row)", "throughput_ratio_enabled_vs_disabled",
                         f"{n} clients; printed as a % change", "ratio",
                         1 + _value("table05_throughput", "throughput_change", clients=n, vcha=""),
                         on.throughput_per_s / off.throughput_per_s, True))
        rows.append(_row("table06_operation_latency", "Table 6 (Difference row)",
                         "latency_ratio_enabled_vs_disabled", f"{n} clients; printed as a % change", "ratio",
                         1 + _value("table06_operation_latency", "avg_operation_latency_change", clients=n, vcha=""),
                         on.response_time_s / off.response_time_s, True))
    # Figures 5-6: what the text says about the two periodic series, and the CPU observation.
    for n, fig in ((64, "figure05_periodic_throughput_64clients"), (256, "figure06_periodic_throughput_256clients")):
        df = _load(fig)
        row = df[df["quantity"] == "throughput_ratio_vcha_vs_baseline"].iloc[0]
        rows.append(_row(fig, f"Figure {5 if n == 64 else 6} (text)", "throughput_ratio_vcha_vs_baseline",
                         f"{n} clients; VCHA-enabled series over baseline series", "ratio", row["value"],
                         sol[n, True].throughput_per_s / sol[n, False].throughput_per_s, False, row["relation"]))
    rows.append(_row("text_vcha_overhead", "CPU Utilization / Observations", "vpxd_cpu_reduction_cores",
                     "256 clients; baseline minus VCHA Active node", "cores",
                     _value("text_vcha_overhead", "vpxd_cpu_reduction_cores", clients=256),
                     sol[256, False].cpu_cores - sol[256, True].cpu_cores, False, "~"))
    # Table 12: statistics level (256 clients).
    for lvl in (1, 2, 3, 4):
        x = {}
        for vc in (False, True):
            x[vc] = float(vcbench(256, vc, stats_level=lvl, params=p).throughput_per_s)
            fitted = lvl == 1 or (lvl in (3, 4) and not vc)
            rows.append(_row("table12_stats_level", "Table 12 / Figure 10", "throughput",
                             f"256 clients; stats level {lvl}; VCHA {_vcha(vc)}", "1/s",
                             _value("table12_stats_level", "throughput", clients=256, stats_level=lvl, vcha=_vcha(vc)),
                             x[vc], fitted))
        rows.append(_row("table12_stats_level", "Table 12 (Enabled VCHA Overhead row)",
                         "throughput_ratio_enabled_vs_disabled",
                         f"256 clients; stats level {lvl}; printed as a % change",
                         "ratio", 1 + _value("table12_stats_level", "throughput_change", clients=256,
                                             stats_level=lvl, vcha=""),
                         x[True] / x[False], lvl == 1))
    # Table 13: private-network latency.
    for ms in (0, 5, 10):
        for n in (64, 256):
            s = vcbench(n, True, ms / 1e3, params=p)
            rows.append(_row("table13_private_network_latency", "Table 13 / Figure 11", "throughput",
                             f"{n} clients; VCHA enabled; +{ms} ms on the VCHA network", "1/s",
                             _value("table13_private_network_latency", "throughput", clients=n,
                                    network_latency_ms=ms, vcha="enabled"),
                             s.throughput_per_s, ms == 0 or n == 64))
    # Tables 14-15: Embedded PSC. The PSC services are off the VCbench operation path, so the model
    # predicts the External numbers for Embedded.
    for n in (64, 256):
        s = sol[n, True]
        rows.append(_row("table14_psc_throughput", "Table 14", "throughput", f"{n} clients; VCHA; Embedded PSC",
                         "1/s", _value("table14_psc_throughput", "throughput", clients=n, psc_mode="embedded",
                                       vcha="enabled"), s.throughput_per_s, False))
        rows.append(_row("table15_psc_latency", "Table 15", "avg_operation_latency", f"{n} clients; VCHA; Embedded PSC",
                         "s", _value("table15_psc_latency", "avg_operation_latency", clients=n, psc_mode="embedded",
                                     vcha="enabled"), s.response_time_s, False))
    return rows


def _traffic_rows(p: VcbenchParams) -> list:
    w = calibrate_wal()
    rows = []
    for n, table in ((64, "table09_io_64clients"), (256, "table10_io_256clients")):
        for vc in (False, True):
            s = vcbench(n, vc, params=p)
            x = s.throughput_per_s
            node = "active" if vc else ""
            cond = f"{n} clients; VCHA {_vcha(vc)}" + ("; Active node" if vc else "")
            for q, rate in zip(("network_receive_rate", "network_transmit_rate"),
                               management_traffic_bytes_per_s(x, w), strict=True):
                rows.append(_row("table11_network", "Table 11", f"eth0_{q}", cond, "B/s",
                                 _value("table11_network", q, clients=n, vcha=_vcha(vc), node=node, interface="eth0"),
                                 rate, True))
            if vc:
                rows.append(_row("table11_network", "Table 11", "eth1_network_transmit_rate", cond, "B/s",
                                 _value("table11_network", "network_transmit_rate", clients=n, vcha="enabled",
                                        node="active", interface="eth1"),
                                 replication_traffic_bytes_per_s(x, w), True))
            flushes = _value(table, "disk_write_tps", clients=n, vcha=_vcha(vc), node=node, disk="sdg")
            rows.append(_row(table, f"Table {9 if n == 64 else 10}", "sdg_wal_disk_write_bandwidth",
                             cond + "; flush rate = the table's sdg w/s", "B/s",
                             _value(table, "disk_write_bandwidth", clients=n, vcha=_vcha(vc), node=node, disk="sdg"),
                             wal_disk_write_bytes_per_s(x, flushes, w), False))
    return rows


def _enable_rows() -> list:
    from vcperf import data

    inv = inventory_sizes()
    df = data.load(f"{STUDY}/table04_enable_vcha")
    rows = []
    for size in INVENTORIES:
        t = enable_vcha_times(inv[size]["registered_vms"])
        for q, m in (("clone_secondary_time", t.clone_secondary_s), ("clone_witness_time", t.clone_witness_s),
                     ("configure_vcha_time", t.configure_s), ("enable_vcha_total_time", t.total_s)):
            row = df[(df["quantity"] == q) & (df["inventory"] == size)].iloc[0]
            fitted = q != "enable_vcha_total_time" and row["flag"] != "ambiguous"
            rows.append(_row("table04_enable_vcha", "Table 4 / Figure 4", q, f"{size} inventory", "s",
                             data.to_si(row["value"], row["unit"]), m, fitted))
    return rows


def _failover_rows() -> list:
    inv = inventory_sizes()
    rows = []
    for size in INVENTORIES:
        t = failover_times(inv[size]["vcpus"], inv[size]["registered_vms"])
        rows.append(_row("table02_vpxd_ready_time", "Table 2 / Figure 2", "vpxd_ready_time", f"{size} inventory",
                         "s", _value("table02_vpxd_ready_time", "vpxd_ready_time", inventory=size), t.vpxd_ready_s,
                         True))
        for q, m in zip(SCREENS, (t.blank_screen_s, t.blue_screen_s, t.inventory_screen_s, t.vc_summary_s),
                        strict=True):
            rows.append(_row("table03_vsphere_client_usability", "Table 3 / Figure 3", q, f"{size} inventory", "s",
                             _value("table03_vsphere_client_usability", q, inventory=size), m, True))
    xl = inv["x-large"]
    emb = failover_times(xl["vcpus"], xl["registered_vms"], "embedded")
    ext = failover_times(xl["vcpus"], xl["registered_vms"], "external")
    rows.append(_row("table16_psc_vpxd_ready_time", "Table 16", "vpxd_ready_time", "x-large; Embedded PSC", "s",
                     _value("table16_psc_vpxd_ready_time", "vpxd_ready_time", psc_mode="embedded",
                            inventory="x-large"), emb.vpxd_ready_s, True))
    pairs = (("in_progress_screen_time", "in_progress_s"), ("blank_screen_time", "blank_screen_s"),
             ("blue_screen_time", "blue_screen_s"), ("inventory_screen_time", "inventory_screen_s"))
    for mode, t in (("external", ext), ("embedded", emb)):
        for q, attr in pairs:
            fitted = mode == "external" and q == "in_progress_screen_time"
            if mode == "external" and not fitted:
                continue  # the same printed numbers as Table 3 X-Large
            rows.append(_row("table17_psc_vsphere_client_usability", "Table 17", q, f"x-large; {mode} PSC", "s",
                             _value("table17_psc_vsphere_client_usability", q, psc_mode=mode), getattr(t, attr),
                             fitted))
    worst = max(float(failover_times(inv[s]["vcpus"], inv[s]["registered_vms"]).vpxd_ready_s) for s in INVENTORIES)
    # UI users can work again once the inventory is shown (the summary page of X-Large takes longer).
    worst_ui = max(float(failover_times(inv[s]["vcpus"], inv[s]["registered_vms"]).inventory_screen_s)
                   for s in INVENTORIES)
    rows.append(_row("text_executive_summary", "Executive Summary", "rto_api_clients", "worst of Table 1 sizes", "s",
                     _value("text_executive_summary", "rto_api_clients"), worst, False, "<"))
    rows.append(_row("text_executive_summary", "Executive Summary", "rto_ui_clients",
                     "worst of Table 1 sizes; inventory screen shown", "s",
                     _value("text_executive_summary", "rto_ui_clients"), worst_ui, False, "<"))
    return rows


def fidelity_rows() -> list:
    """Paper-vs-model rows for every number the VCHA models predict (see :mod:`vcperf.fidelity`)."""
    p = calibrate_vcbench()
    return _vcbench_rows(p) + _traffic_rows(p) + _enable_rows() + _failover_rows()


#: Printed unit of each fidelity unit, and the factor from SI, for :func:`paper_vs_model`.
DISPLAY_UNITS = {"1/s": ("ops/min", 60.0), "s": ("s", 1.0), "cores": ("% (100 % = 1 core)", 100.0),
                 "ratio": ("% change", None), "B/s": ("MB/s", 1e-6)}


def paper_vs_model(locator_prefix: str | None = None):
    """Fidelity rows in the paper's printed units, optionally only those whose locator starts so.

    Columns: locator, quantity, conditions, unit, paper, model, rel_error, fitted. Ratios are shown as
    percent changes (``(ratio - 1) x 100``), as the paper prints its Difference rows.
    """
    import pandas as pd

    from vcperf import fidelity

    df = fidelity.table([STUDY])
    if locator_prefix is not None:
        df = df[df["locator"].str.startswith(locator_prefix)]
    out = []
    for _, r in df.iterrows():
        unit, factor = DISPLAY_UNITS.get(r["unit"], (r["unit"], 1.0))
        if factor is None:
            paper, model = (r["paper_value"] - 1) * 100, (r["model_value"] - 1) * 100
        else:
            paper, model = r["paper_value"] * factor, r["model_value"] * factor
        out.append({"locator": r["locator"], "quantity": r["quantity"], "conditions": r["conditions"],
                    "unit": unit, "paper": paper, "model": model, "rel_error": r["rel_error"],
                    "fitted": r["fitted"]})
    return pd.DataFrame(out)


def parameter_table():
    """Every calibrated parameter: family, name, value, unit, fitted from."""
    import pandas as pd

    p, w, e, f = calibrate_vcbench(), calibrate_wal(), calibrate_enable(), calibrate_failover()
    recs = [
        ("VCbench network", "cpu_demand_s", p.cpu_demand_s, "core-s/op", "Tables 5, 6, 7"),
        ("VCbench network", "background_cpu_cores", p.background_cpu_cores, "cores", "Tables 5, 6, 7"),
        ("VCbench network", "db_hold_s", p.db_hold_s, "s/op", "Tables 5, 6, 7"),
        ("VCbench network", "host_delay_s", p.host_delay_s, "s/op", "Tables 5, 6, 7"),
        ("VCbench network", "think_time_s", p.think_time_s, "s", "Tables 5, 6, 7"),
        ("VCbench network", "commit_wait_s", p.commit_wait_s, "s/op", "Tables 5, 6, 7 (VCHA on)"),
        ("VCbench network", "sync_commits_per_op", p.sync_commits_per_op, "commits/op", "Table 13, 64 clients"),
        ("VCbench network", "commit_ack_s (derived)", p.commit_ack_s, "s/commit", "commit_wait_s / sync_commits"),
        ("VCbench network", "stats_db_connections", p.stats_db_connections, "connections",
         "Table 12, VCHA off, levels 3-4"),
        ("VCbench network", "vcpus (input)", p.vcpus, "vCPUs", "Table 1 X-Large / PSC section"),
        ("VCbench network", "db_connections (input)", p.db_connections, "connections", "vCenter default"),
        ("WAL and traffic", "wal_bytes_per_op", w.wal_bytes_per_op, "B/op", "Table 11 eth1"),
        ("WAL and traffic", "background_wal_bytes_per_s", w.background_wal_bytes_per_s, "B/s", "Table 11 eth1"),
        ("WAL and traffic", "eth0_receive_bytes_per_op", w.eth0_receive_bytes_per_op, "B/op", "Table 11 eth0"),
        ("WAL and traffic", "eth0_transmit_bytes_per_op", w.eth0_transmit_bytes_per_op, "B/op", "Table 11 eth0"),
        ("WAL and traffic", "eth0_receive_background_bytes_per_s", w.eth0_receive_background_bytes_per_s, "B/s",
         "Table 11 eth0"),
        ("WAL and traffic", "eth0_transmit_background_bytes_per_s", w.eth0_transmit_background_bytes_per_s, "B/s",
         "Table 11 eth0"),
        ("Enabling VCHA", "clone_overhead_s", e.clone_overhead_s, "s", "Table 4 clones"),
        ("Enabling VCHA", "clone_bytes_per_registered_vm", e.clone_bytes_per_registered_vm, "B/VM", "Table 4 clones"),
        ("Enabling VCHA", "configure_s", e.configure_s, "s", "Table 4 configure"),
        ("Failover", "takeover_s", f.takeover_s, "s", "Table 2, Table 17 InProgress"),
        ("Failover", "vpxd_start_cpu_s", f.vpxd_start_cpu_s, "core-s", "Table 2"),
        ("Failover", "vpxd_start_s_per_vm", f.vpxd_start_s_per_vm, "s/VM", "Table 2"),
        ("Failover", "psc_start_s", f.psc_start_s, "s", "Table 16"),
        ("Failover", "client_start_cpu_s", f.client_start_cpu_s, "core-s", "Table 3"),
        ("Failover", "client_start_s_per_vm", f.client_start_s_per_vm, "s/VM", "Table 3"),
    ]
    for name, off in zip(("blue_screen_offset_s", "inventory_screen_offset_s", "vc_summary_offset_s"),
                         f.screen_offsets_s, strict=True):
        recs.append(("Failover", name, off, "s", "Table 3"))
    return pd.DataFrame(recs, columns=["family", "parameter", "value", "unit", "fitted_from"])


def leave_one_out_vcbench():
    """Held-out error of the 12-number stage-1 fit: refit without each number, predict it.

    Returns a DataFrame (clients, vcha, quantity, paper, loo_model, rel_error). Slow (12 refits).
    """
    import pandas as pd
    from scipy.optimize import least_squares

    base = calibrate_vcbench()
    targets = _vcbench_targets()
    flat = [(i, k) for i in range(len(targets)) for k in range(3)]
    q0 = np.array([base.cpu_demand_s, base.background_cpu_cores, base.db_hold_s, base.host_delay_s,
                   base.think_time_s, base.commit_wait_s])
    lo = [1e-4, 0.0, 1e-4, 0.0, 0.0, 0.0]
    hi = [5.0, base.vcpus - 2.0, 10.0, 10.0, 5.0, 1.0]

    def predict(q, i, k):
        p = VcbenchParams(*q, sync_commits_per_op=base.sync_commits_per_op, stats_db_connections=0.0,
                          vcpus=base.vcpus)
        n, vc = targets[i][:2]
        s = vcbench(n, vc, params=p)
        return (float(s.throughput_per_s), float(s.response_time_s), float(s.cpu_cores))[k]

    recs = []
    for leave in flat:
        def resid(q, leave=leave):
            return np.array([math.log(predict(q, i, k) / targets[i][2 + k]) for i, k in flat if (i, k) != leave])

        q = least_squares(resid, q0, bounds=(lo, hi), x_scale="jac").x
        i, k = leave
        paper = targets[i][2 + k]
        model = predict(q, i, k)
        recs.append({"clients": targets[i][0], "vcha": _vcha(targets[i][1]),
                     "quantity": ("throughput", "latency", "vpxd_cpu")[k], "paper": paper, "loo_model": model,
                     "rel_error": (model - paper) / paper})
    return pd.DataFrame(recs)
