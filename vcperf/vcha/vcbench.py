"""vCenter under VCbench: a closed queueing network (``000_bf7f1144753162c9.txt``, Tables 5-7, 12-15,
Figures 5-11).

The network is solved by exact MVA (:func:`vcperf.queueing.mva`). One class of customers: the
VCbench clients. Per operation a client visits

* the **vpxd CPU**: ``vcpus`` of the appliance, minus the cores vpxd burns on background work (host
  sync, statistics) independent of VCbench. A ``c``-server station is replaced by the
  Seidmann-Schweitzer-Shalev-Oren approximation [1]_: a queueing station of demand ``D/c`` in series
  with a delay of ``D (c - 1) / c``;
* the **PostgreSQL connection pool**: vpxd holds one of its ``db_connections`` (vCenter default: 50)
  while the operation's transactions run *and commit*. Same multi-server approximation. With VCHA
  enabled each commit waits for the Passive node's acknowledgement (synchronous replication, RPO =
  0), so the holding time grows with the replication round trip; at high load this is where the
  contention appears;
* the **ESXi hosts** (host RPCs and everything else that does not queue): a delay station;
* the client **think time** between operations.

Throughput, latency and vpxd CPU come out of the same solution: ``U = U_bg + X D_cpu`` (utilization
law) and ``N = X (R + Z)`` (Little's law) hold by construction.

This module is a pure model: parameters and the appliance's vCPUs are arguments (the study's values
come from :mod:`vcperf.vcha.calibration`).

References
----------
.. [1] A. Seidmann, P. J. Schweitzer, S. Shalev-Oren, "Computerized Closed Queueing Network Models
   of Flexible Manufacturing Systems", Large Scale Systems 12, 91-107, 1987 (a multi-server
   station as a single fast server plus a delay).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import queueing

#: vCenter's default maximum number of simultaneous database connections (vCenter Server Upgrade
#: Guide, "Set the Maximum Number of Database Connections": "By default, a vCenter Server creates a
#: maximum of 50 simultaneous database connections").
DEFAULT_DB_CONNECTIONS = 50.0

#: Statistics levels 1-4 grouped by the amount of statistics data they produce. The ROBO study
#: (``001_36d9adf7ffa34fcf.txt``, Statistics Data Size; ``data/robo2019/figure06_stats_data_size``)
#: states Level 2 is close to Level 1, Level 4 close to Level 3, with a considerable jump from 2 to 3.
#: Level 1/2 statistics are part of the baseline; levels 3/4 add the ``stats_db_connections`` load.
STATS_LEVEL_HIGH = {1: 0.0, 2: 0.0, 3: 1.0, 4: 1.0}


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
        64-client rows.
    stats_db_connections : float
        Database connections kept busy by statistics levels 3 and 4 beyond levels 1 and 2 (count).
        Fitted: Table 12, VCHA-disabled levels 3 and 4.
    """

    cpu_demand_s: float
    background_cpu_cores: float
    db_hold_s: float
    host_delay_s: float
    think_time_s: float
    commit_wait_s: float
    sync_commits_per_op: float
    stats_db_connections: float

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
    db_pool_bound_per_s : float
        Throughput bound of the connection pool without VCHA (usable connections / hold time), 1/s.
    """

    clients: np.ndarray
    throughput_per_s: np.ndarray
    response_time_s: np.ndarray
    cpu_cores: np.ndarray
    cpu_utilization_per_core: np.ndarray
    db_pool_utilization: np.ndarray
    sync_wait_s: np.ndarray
    think_time_s: float
    db_pool_bound_per_s: float


_DELAY_MASK = np.array([False, True, False, True, True])  # cpu queue, cpu delay, db queue, db delay, host


def _station_demands(p: VcbenchParams, vcha_enabled: bool, rtt_s: np.ndarray, stats_level: int, vcpus: float,
                     db_connections: float):
    """Demands (..., 5) of the five stations and the per-op sync wait (...)."""
    cores = vcpus - p.background_cpu_cores
    pool = db_connections - p.stats_db_connections * STATS_LEVEL_HIGH[stats_level]
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


def vcbench(clients, vcha_enabled: bool = False, replication_rtt_s=0.0, stats_level: int = 1, *,
            params: VcbenchParams, vcpus: float, db_connections: float = DEFAULT_DB_CONNECTIONS) -> VcbenchResult:
    """Throughput, latency and vpxd CPU of vCenter under VCbench (seed Tables 5-7, 12, 13).

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
        vCenter statistics level 1-4 (Table 12; the study's default is 1).
    params : VcbenchParams
        Demands of the network (the study's: ``vcperf.vcha.calibrate().vcbench``).
    vcpus : float
        Appliance vCPUs, in [1, 256] (the study's X-Large appliance: ``vcperf.vcha.testbed().vcpus``).
    db_connections : float
        vpxd's database connection pool, in [2, 10000] (default: vCenter's 50).

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
    c = float(v.check_range("vcpus", vcpus, 1.0, 256.0))
    pool_size = float(v.check_range("db_connections", db_connections, 2.0, 10000.0))
    p = params
    d, hold, pool, sync = _station_demands(p, bool(vcha_enabled), rtt, stats_level, c, pool_size)
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
        cpu_utilization_per_core=cpu / c,
        db_pool_utilization=x * np.asarray(hold)[grow] / pool,
        sync_wait_s=np.broadcast_to(np.asarray(sync)[grow], x.shape).copy(),
        think_time_s=p.think_time_s,
        db_pool_bound_per_s=float(pool / p.db_hold_s),
    )


def vcbench_curve(max_clients: int, vcha_enabled: bool = False, replication_rtt_s: float = 0.0,
                  stats_level: int = 1, *, params: VcbenchParams, vcpus: float,
                  db_connections: float = DEFAULT_DB_CONNECTIONS) -> VcbenchResult:
    """:func:`vcbench` for every population ``1..max_clients`` (for throughput-vs-clients plots)."""
    m = v.integer("max_clients", max_clients, 1, 4096)
    v.check_range("replication_rtt_s", replication_rtt_s, 0.0, 1.0)
    return vcbench(np.arange(1, m + 1), vcha_enabled, float(replication_rtt_s), stats_level, params=params,
                   vcpus=vcpus, db_connections=db_connections)
