"""vCenter under VCbench: a closed queueing network (``000_bf7f1144753162c9.txt``, Tables 5-7, 12-15,
Figures 5-11).

The network is solved by exact MVA (:func:`vcperf.queueing.mva`). One class of customers: the
VCbench clients. Per operation a client visits

* the **vpxd CPU**: ``vcpus`` of the appliance, minus the cores vpxd burns on background work (host
  sync, statistics collection), which grows with the managed hosts (Table 1 inventories). A
  ``c``-server station is replaced by the Seidmann-Schweitzer-Shalev-Oren approximation [1]_: a
  queueing station of demand ``D/c`` in series with a delay of ``D (c - 1) / c``;
* the **PostgreSQL connection pool**: vpxd holds one of its ``db_connections`` (vCenter's documented
  default maximum, 50: an external source, ``data/vcha2016/external_vcenter_limits``; the seed prints
  no pool size, and at 256 clients this pool is the bottleneck the result names) while the
  operation's transactions run *and commit*. Same multi-server approximation. With VCHA
  enabled each of the operation's ``sync_commits_per_op`` commits waits for the Passive (synchronous
  replication, RPO = 0): one exchange over the replication link (round trip + transfer of the
  commit record, :func:`vcperf.network.exchange_time_s`, so bandwidth and loss count) plus the
  Passive's wait: the replication wake-up plus its storage's group-commit flush
  (:func:`vcperf.vcha.disk.passive_commit_flush_s`; ``passive_flush_s``, the storage, an input).
  Statistics levels 3 and 4 keep more connections busy with statistics writes (more with more
  powered-on VMs; never more than the pool: the result flags it); those writes **share the commit
  path**, so with VCHA on their commits wait for the Passive too and they hold their connections
  longer: the VCHA overhead at a saturated pool grows with the statistics level;
* the **replication link** (VCHA on): the WAL stream (bytes per operation, plus the background WAL
  of the inventory and the statistics level, :func:`vcperf.vcha.wal.background_wal_bytes_per_s`)
  queues on the private network's TCP rate (so throughput never exceeds the link's capacity);
* with an **Embedded PSC**, the PSC services (single sign-on token validation, lookup service,
  certificate store) run on the same vCPUs as vpxd: each operation adds ``psc_cpu_s_per_op`` of CPU
  work to the appliance (with an External PSC that work runs on the PSC's own VM);
* the **ESXi hosts** (host RPCs and everything else that does not queue): a delay station;
* the client **think time** between operations.

Throughput, latency and vpxd CPU come out of the same solution: ``U = U_bg + X D_cpu`` (utilization
law) and ``N = X (R + Z)`` (Little's law) hold by construction.

A pure model: parameters and the appliance are arguments (``params=None``: the calibrated ones).

References
----------
.. [1] A. Seidmann, P. J. Schweitzer, S. Shalev-Oren, Large Scale Systems 12, 91-107, 1987.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import network, protocol, queueing
from vcperf.vcha import limits
from vcperf.vcha.disk import passive_commit_flush_s
from vcperf.vcha.memory import peak_memory_bytes
from vcperf.vcha.params import STUDY, Params, VcbenchParams
from vcperf.vcha.wal import STATS_LEVEL_HIGH, checked_background_wal_bytes_per_s

#: vCenter's default maximum number of simultaneous database connections (vCenter Server Upgrade
#: Guide, "Set the Maximum Number of Database Connections": "By default, a vCenter Server creates a
#: maximum of 50 simultaneous database connections"; :data:`vcperf.vcha.limits.DEFAULT_DB_CONNECTIONS`).
DEFAULT_DB_CONNECTIONS = limits.DEFAULT_DB_CONNECTIONS

#: Round-trip time of an idle 10 GbE LAN between two servers of the test bed (assumed: the study
#: does not print it; a few hundred microseconds is typical). The replication link's base RTT; the
#: ``replication_rtt_s`` of Table 13 is added to it.
LAN_RTT_S = 2e-4

#: The VCHA private network of the test bed: "One 10 Gigabit Ethernet was dedicated to the VCHA
#: private network" (seed, Test Bed Architecture), bit/s.
DEFAULT_REPLICATION_BANDWIDTH_BPS = 10e9



@dataclass(frozen=True, eq=False)
class VcbenchResult:
    """Solution of the VCbench network; arrays of shape ``link.shape + clients.shape``.

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
        ``(cpu_cores + psc_cpu_cores) / vcpus``: busy fraction of each vCPU, <= 1.
    psc_cpu_cores : ndarray
        Cores busy with the Embedded PSC's per-operation work (0 with an External PSC).
    db_pool_utilization : ndarray
        Busy fraction of the connections VCbench can use (those statistics writes do not hold).
    link_utilization : ndarray
        Busy fraction of the replication link's TCP rate (WAL stream; 0 without VCHA).
    sync_wait_s : ndarray
        Time per operation spent waiting for the Passive's acknowledgements (0 without VCHA).
    stats_db_connections : ndarray
        Connections held by statistics writes (longer with VCHA: their commits wait too).
    background_cpu_cores : float
        vpxd cores busy on background work of the inventory.
    think_time_s : float
        Client think time used (Little's law ``N = X (R + Z)``).
    db_pool_bound_per_s : float
        Throughput bound of the connection pool without VCHA at this statistics level (connections
        statistics writes leave / hold time), 1/s.
    db_connections_held : ndarray
        Connections held on average: statistics writes plus VCbench's (Little's law, ``X x hold``);
        never above ``db_connections``.
    overloaded : ndarray of bool
        The replication link cannot carry the background WAL alone (VCHA on): the Passive falls behind
        and replication falls back to asynchronous (``replication``), said in ``flags``. The appliance
        then runs without the synchronous wait (a closed loop never stops), and the WAL the link cannot
        carry accumulates (``rpo_growth_bytes_per_s``).
    replication : ndarray of str
        ``"synchronous"`` (RPO = 0), ``"asynchronous"`` (the fallback: RPO > 0) or ``"off"`` (no VCHA).
    rpo_growth_bytes_per_s : ndarray
        How fast the Passive falls behind in the fallback (WAL produced minus what the link's TCP rate
        carries, B/s); 0 while replication is synchronous.
    bottleneck : ndarray of str
        The station nearest saturation (a key of :data:`vcperf.vcha.limits.BOTTLENECK_SOURCES`, which
        names its source), ``"none"`` below 80 % busy.
    flags : tuple of vcperf._validate.Flag
        Inputs beyond VMware's documented limits or off the fitted point, overload, a saturated pool.
    """

    clients: np.ndarray
    throughput_per_s: np.ndarray
    response_time_s: np.ndarray
    cpu_cores: np.ndarray
    cpu_utilization_per_core: np.ndarray
    psc_cpu_cores: np.ndarray
    db_pool_utilization: np.ndarray
    link_utilization: np.ndarray
    sync_wait_s: np.ndarray
    stats_db_connections: np.ndarray
    background_cpu_cores: float
    think_time_s: float
    db_pool_bound_per_s: float
    db_connections_held: np.ndarray
    overloaded: np.ndarray
    replication: np.ndarray
    rpo_growth_bytes_per_s: np.ndarray
    bottleneck: np.ndarray
    flags: tuple = ()


# cpu queue, cpu delay, db queue, db delay, host, replication link queue
_DELAY_MASK = np.array([False, True, False, True, True, False])


def study_params(params):
    """``(VcbenchParams, WalParams)`` of a study :class:`~vcperf.vcha.Params` (``None``: the default
    calibration, :func:`vcperf.protocol.calibrated`)."""
    p = protocol.calibrated(STUDY) if params is None else params
    v.instance("params", p, Params, "the study's Params (vcperf.vcha.calibrate()) or None")
    return p.vcbench, p.wal


def commit_exchange_s(commit_bytes, bandwidth_bps, rtt_s, loss=0.0):
    """One synchronous commit's trip over the replication link (s): the commit record to the Passive
    and its acknowledgement back (:func:`vcperf.network.exchange_time_s`: round trip + transfer of
    the record at the TCP rate + expected retransmission delay under loss; PFTK, SIGCOMM 1998). Passive
    flush excluded.

    Parameters
    ----------
    commit_bytes : float or array_like
        Size of the commit record (WAL bytes of one commit), B, >= 0.
    bandwidth_bps : float or array_like
        Line rate of the replication link, bit/s, > 0.
    rtt_s : float or array_like
        Round-trip time of the link, s, >= 0 (the test bed's LAN: :data:`LAN_RTT_S`).
    loss : float or array_like
        Packet loss on the link, in [0, 1).

    Returns
    -------
    float or ndarray
        Seconds (a float for scalar inputs).

    Examples
    --------
    >>> from vcperf import vcha
    >>> round(vcha.commit_exchange_s(1000.0, 10e9, vcha.LAN_RTT_S) * 1e3, 3)  # ms: the round trip dominates
    0.201
    """
    v.nonneg("commit_bytes", commit_bytes), v.positive("bandwidth_bps", bandwidth_bps), v.nonneg("rtt_s", rtt_s)
    v.fraction("loss", loss)
    v.broadcast(commit_bytes=commit_bytes, bandwidth_bps=bandwidth_bps, rtt_s=rtt_s, loss=loss)
    return _exchange_s(commit_bytes, bandwidth_bps, rtt_s, loss)


def _exchange_s(commit_bytes, bandwidth_bps, rtt_s, loss):
    """:func:`commit_exchange_s` of validated inputs (memoised for scalars)."""
    if all(np.ndim(a) == 0 for a in (commit_bytes, bandwidth_bps, rtt_s, loss)):
        return _commit_exchange_scalar(float(commit_bytes), float(bandwidth_bps), float(rtt_s), float(loss))
    return network.exchange_time_s(1.0, commit_bytes, 0.0, bandwidth_bps, rtt_s, loss)


@functools.lru_cache(maxsize=1024)
def _commit_exchange_scalar(commit_bytes: float, bandwidth_bps: float, rtt_s: float, loss: float) -> float:
    """:func:`commit_exchange_s` of scalars, memoised (what-if sensitivities repeat the same link)."""
    return float(network.exchange_time_s(1.0, commit_bytes, 0.0, bandwidth_bps, rtt_s, loss))


@functools.lru_cache(maxsize=256)
def _tcp_rate_scalar(bandwidth_bps: float, rtt_s: float, loss: float) -> float:
    return float(network.tcp_throughput_bps(bandwidth_bps, rtt_s, loss))


def _tcp_rate_bps(bandwidth_bps, rtt_s, loss):
    """:func:`vcperf.network.tcp_throughput_bps` (memoised for scalars)."""
    if all(np.ndim(a) == 0 for a in (bandwidth_bps, rtt_s, loss)):
        return _tcp_rate_scalar(float(bandwidth_bps), float(rtt_s), float(loss))
    return network.tcp_throughput_bps(bandwidth_bps, rtt_s, loss)


def replication_sync_wait_s(p: VcbenchParams, wal_bytes_per_op: float, replication_rtt_s=0.0,
                            bandwidth_bps=DEFAULT_REPLICATION_BANDWIDTH_BPS, loss=0.0):
    """Synchronous-commit wait per operation (s) over a replication link.

    ``sync_commits_per_op x (exchange(link) + standby flush)``, where the standby flush is what the
    fitted wait on the test bed's LAN leaves after its exchange: ``commit_wait_s`` on the LAN, more
    with added round-trip time, less bandwidth or loss.

    Parameters
    ----------
    p : VcbenchParams
        The study's (``vcperf.vcha.calibrate().vcbench``).
    wal_bytes_per_op : float
        WAL bytes per VCbench operation, B, >= 0 (``vcperf.vcha.calibrate().wal.wal_bytes_per_op``):
        the commit records, ``wal_bytes_per_op / sync_commits_per_op`` each.
    replication_rtt_s : float or array_like
        Round-trip time added to the test bed's LAN (:data:`LAN_RTT_S`), s, >= 0 (Table 13: 5, 10 ms).
    bandwidth_bps : float or array_like
        Replication link rate, bit/s, > 0 (test bed: 10 Gbps).
    loss : float or array_like
        Packet loss on the replication link, in [0, 1).

    Returns
    -------
    float or ndarray
        Seconds per operation.

    Examples
    --------
    >>> from vcperf import vcha
    >>> p = vcha.calibrate()
    >>> w = p.wal.wal_bytes_per_op
    >>> bool(vcha.replication_sync_wait_s(p.vcbench, w) == p.vcbench.commit_wait_s)  # the test bed's LAN
    True
    >>> bool(vcha.replication_sync_wait_s(p.vcbench, w, 0.01) > 5 * p.vcbench.commit_wait_s)  # +10 ms
    True
    """
    v.instance("p", p, VcbenchParams, "the study's VcbenchParams (vcperf.vcha.calibrate().vcbench)")
    wal_bytes_per_op = v.nonneg("wal_bytes_per_op", wal_bytes_per_op)
    v.nonneg("replication_rtt_s", replication_rtt_s), v.positive("bandwidth_bps", bandwidth_bps)
    v.fraction("loss", loss)
    v.broadcast(wal_bytes_per_op=wal_bytes_per_op, replication_rtt_s=replication_rtt_s, bandwidth_bps=bandwidth_bps,
                loss=loss)
    return _sync_wait_s(p, wal_bytes_per_op, replication_rtt_s, bandwidth_bps, loss)


def _sync_wait_s(p: VcbenchParams, wal_bytes_per_op, replication_rtt_s, bandwidth_bps, loss):
    """:func:`replication_sync_wait_s` of validated inputs."""
    nc = p.sync_commits_per_op
    rec = wal_bytes_per_op / nc
    lan = _exchange_s(rec, DEFAULT_REPLICATION_BANDWIDTH_BPS, LAN_RTT_S, 0.0)
    link = _exchange_s(rec, bandwidth_bps, LAN_RTT_S + np.asarray(replication_rtt_s, dtype=float), loss)
    return p.commit_wait_s + nc * (link - lan)


def standby_flush_s(p: VcbenchParams, wal_bytes_per_op: float) -> float:
    """The Passive's WAL flush per commit (s) implied by the fitted LAN commit wait: the commit
    acknowledgement (:attr:`VcbenchParams.commit_ack_s`) minus the commit record's LAN exchange
    (:func:`commit_exchange_s`).

    Parameters
    ----------
    p : VcbenchParams
        The study's (``vcperf.vcha.calibrate().vcbench``).
    wal_bytes_per_op : float
        WAL bytes per VCbench operation, B, >= 0 (``vcperf.vcha.calibrate().wal.wal_bytes_per_op``).

    Examples
    --------
    >>> from vcperf import vcha
    >>> p = vcha.calibrate()
    >>> bool(0 < vcha.standby_flush_s(p.vcbench, p.wal.wal_bytes_per_op) < p.vcbench.commit_ack_s)
    True
    """
    v.instance("p", p, VcbenchParams, "the study's VcbenchParams (vcperf.vcha.calibrate().vcbench)")
    wal_bytes_per_op = v.scalar("wal_bytes_per_op", wal_bytes_per_op, 0.0, np.inf, hi_open=True)
    rec = wal_bytes_per_op / p.sync_commits_per_op
    return float(p.commit_ack_s - _exchange_s(rec, DEFAULT_REPLICATION_BANDWIDTH_BPS, LAN_RTT_S, 0.0))


def _commit_flush_s(params, storage_s, n: int, demand_args: tuple):
    """The Passive's wait per commit for storage of latency ``storage_s``: the fitted wake-up plus the
    storage's group-commit wait at the fitted network's throughput of ``n`` clients (one step of the fixed
    point; :func:`vcperf.vcha.disk.passive_commit_flush_s`)."""
    p, wal = demand_args[0], demand_args[1]
    x0 = queueing.mva(_station_demands(*demand_args)[0], n, p.think_time_s, _DELAY_MASK).throughput_per_s[..., -1]
    disk = (protocol.calibrated(STUDY) if params is None else params).disk
    return passive_commit_flush_s(storage_s, x0, standby_flush_s(p, wal.wal_bytes_per_op), disk)


def _station_demands(p: VcbenchParams, wal, vcha_enabled: bool, rtt_s, stats_level: int, vcpus: float,
                     hosts: float, powered_on_vms: float, db_connections: float, bandwidth_bps, loss, psc_cpu_s,
                     passive_flush_s=None):
    """Demands (..., 6) of the six stations and the quantities the result reports.

    ``passive_flush_s`` (None: the fitted one, :func:`standby_flush_s`) replaces the Passive's WAL flush
    in every synchronous commit. Statistics writes hold at most ``db_connections - 1`` connections (one
    is left to VCbench); more demand than that saturates the pool (the caller flags it). A link whose
    TCP rate the background WAL fills is overloaded (the caller masks it; its demand here stays finite).
    """
    bg = p.background_cpu_cores_per_host * hosts
    cores = vcpus - bg
    stats = p.stats_db_connections_per_vm * powered_on_vms * STATS_LEVEL_HIGH[stats_level]
    shape = np.broadcast_shapes(np.shape(rtt_s), np.shape(bandwidth_bps), np.shape(loss))
    zeros = np.zeros(shape)
    if vcha_enabled:
        sync = _sync_wait_s(p, wal.wal_bytes_per_op, rtt_s, bandwidth_bps, loss) + zeros
        if passive_flush_s is not None:  # the Passive's storage: its flush replaces the fitted one per commit
            sync = sync + p.sync_commits_per_op * (passive_flush_s - standby_flush_s(p, wal.wal_bytes_per_op))
        rate_bps = _tcp_rate_bps(bandwidth_bps, LAN_RTT_S + np.asarray(rtt_s, float), loss) + zeros
        rho_bg = 8.0 * checked_background_wal_bytes_per_s(hosts, powered_on_vms, wal, p, stats_level) / rate_bps
        link = 8.0 * wal.wal_bytes_per_op / rate_bps / (1.0 - np.where(rho_bg < 1.0, rho_bg, 0.0))
        # statistics writes share the commit path: their connections are held longer by the same factor
        stats_held = stats * (1.0 + sync / p.db_hold_s)
    else:
        sync, link, rho_bg, stats_held = zeros, zeros, zeros, stats + zeros
    stats_held = np.minimum(stats_held, db_connections - 1.0)  # never more than the pool (the caller flags it)
    pool = db_connections - stats_held
    hold = p.db_hold_s + sync
    d = np.stack(
        [
            np.full(shape, (p.cpu_demand_s + psc_cpu_s) / cores),
            np.full(shape, (p.cpu_demand_s + psc_cpu_s) * max(cores - 1.0, 0.0) / cores),
            hold / pool,
            hold * (pool - 1.0) / pool,
            np.full(shape, p.host_delay_s),
            link,
        ],
        axis=-1,
    )
    return d, hold, pool, sync, link, rho_bg, stats_held, bg


def run_vcbench(clients, vcha_enabled: bool = False, replication_rtt_s=0.0, stats_level: int = 1, *,
                vcpus: float, hosts: float, powered_on_vms: float, params=None,
                db_connections: float = DEFAULT_DB_CONNECTIONS, bandwidth_bps=DEFAULT_REPLICATION_BANDWIDTH_BPS,
                loss=0.0, psc_mode: str = "external", passive_flush_s=None, memory_bytes=None) -> VcbenchResult:
    """Throughput, latency and vpxd CPU of vCenter under VCbench (seed Tables 5-7, 12, 13).

    Parameters
    ----------
    clients : int or array_like of int
        Concurrent VCbench clients, in [1, 4096] (the study: 64 common case, 256 worst case).
    vcha_enabled : bool
        VCHA three-node cluster (commits wait for the Passive) or the single appliance.
    replication_rtt_s : float or array_like
        Latency added to the private VCHA network's round trip, seconds, in [0, 1] (Table 13: 0, 5,
        10 ms; the product supports up to 10 ms). Ignored when ``vcha_enabled`` is False.
    stats_level : int
        vCenter statistics level 1-4 (Table 12; the study's default is 1).
    vcpus : float
        Appliance vCPUs, in [1, 256] (Table 1: 4 Small .. 32 X-Large; ``vcperf.vcha.appliance()``).
    hosts : float
        Managed ESXi hosts, in [0, 10000] (Table 1: 96 .. 2,048; the overhead runs: 2,000).
    powered_on_vms : float
        Powered-on VMs, in [0, 200000] (Table 1: 960 .. 26,624; the overhead runs: 25,000).
    params : vcperf.vcha.Params, optional
        The study's parameters (default: the calibrated ones).
    db_connections : float
        vpxd's database connection pool, in [2, 10000] (default: vCenter's 50).
    bandwidth_bps : float or array_like
        Replication link rate, bit/s, in [1e3, 1e12] (test bed: 10 Gbps).
    loss : float or array_like
        Packet loss on the replication link, in [0, 0.2].
    psc_mode : {"external", "embedded"}
        Platform Services Controller on its own VM (the study's default) or on the appliance
        (Tables 14-15): embedded, its per-operation work shares the vCPUs with vpxd.
    passive_flush_s : float, optional
        The Passive's storage sync-write latency (its walreceiver cycle), s, in (0, 1]; default: the
        fitted cycle (about 0.56 ms). Each commit waits the replication wake-up (kept) plus this
        storage's group-commit wait at the load (:func:`vcperf.vcha.disk.passive_commit_flush_s`).
    memory_bytes : float, optional
        The appliance's memory, B, in [1e9, 1e13] (Table 1: 16 GB Small .. 64 GB X-Large); when given,
        a peak resident memory of vpxd, postgres and vcha (:func:`vcperf.vcha.memory.peak_memory_bytes`,
        Table 8's model) above it is flagged: memory pressure, which the queueing model does not
        include (its throughput is then optimistic).

    Returns
    -------
    VcbenchResult
        Arrays of shape ``broadcast(replication_rtt_s, bandwidth_bps, loss).shape + np.shape(clients)``;
        ``flags`` (:class:`vcperf._validate.Flag`) names inputs beyond VMware's documented limits (VCHA
        network RTT above 10 ms, an appliance smaller than Small), an appliance, inventory or DB pool off
        the point the network was fitted at (``extrapolation``: :mod:`vcperf.vcha.extrapolation` widens
        the band), a replication link that cannot carry the WAL (``overloaded``: the asynchronous
        fallback, RPO > 0)
        and a statistics load that saturates the pool; ``bottleneck`` names the binding station and
        :data:`vcperf.vcha.limits.BOTTLENECK_SOURCES` its source.

    Raises
    ------
    ValueError
        On inputs out of range, or when the inventory's background work leaves vpxd less than one
        core (``vcpus`` too small for ``hosts``).

    References
    ----------
    .. [1] M. Reiser, S. S. Lavenberg, "Mean-Value Analysis of Closed Multichain Queuing Networks",
       Journal of the ACM 27(2), 313-322, 1980 (exact MVA, :func:`vcperf.queueing.mva`).
    .. [2] A. Seidmann, P. J. Schweitzer, S. Shalev-Oren, Large Scale Systems 12, 1987 (multi-server).
    .. [3] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A Simple Model and
       its Empirical Validation", ACM SIGCOMM 1998 (the replication link's TCP rate).

    Examples
    --------
    >>> from vcperf import vcha
    >>> s = vcha.run_vcbench([64, 256], True, params=vcha.calibrate(), **vcha.testbed().appliance())
    >>> [round(float(x), -2) for x in s.throughput_per_s * 60]  # ops/min, VCHA on (paper, Table 5: 2,673 and 6,085)
    [2600.0, 6200.0]
    """
    n = np.asarray(v.check_range("clients", clients, 1, 4096))
    if n.size == 0:
        raise ValueError("clients must hold at least one population in [1, 4096]; got an empty array")
    if np.any(n != np.round(n)):
        raise ValueError(f"clients must be integers in [1, 4096]; got {n[n != np.round(n)].flat[0]:g}")
    n = n.astype(int)
    rtt = v.check_range("replication_rtt_s", replication_rtt_s, 0.0, 1.0)
    bw = v.check_range("bandwidth_bps", bandwidth_bps, 1e3, 1e12)
    loss_ = v.check_range("loss", loss, 0.0, 0.2)
    if not isinstance(vcha_enabled, bool | np.bool_):
        raise ValueError(f"vcha_enabled must be True or False; got {vcha_enabled!r}")
    v.choice("stats_level", stats_level, (1, 2, 3, 4))
    c = v.scalar("vcpus", vcpus, 1.0, 256.0)
    h = v.scalar("hosts", hosts, 0.0, 10000.0)
    vms = v.scalar("powered_on_vms", powered_on_vms, 0.0, 200000.0)
    pool_size = v.scalar("db_connections", db_connections, 2.0, 10000.0)
    v.choice("psc_mode", psc_mode, ("external", "embedded"))
    flush = None if passive_flush_s is None else v.scalar("passive_flush_s", passive_flush_s, 0.0, 1.0, lo_open=True)
    mem = None if memory_bytes is None else v.scalar("memory_bytes", memory_bytes, 1e9, 1e13)
    v.broadcast(replication_rtt_s=rtt, bandwidth_bps=bw, loss=loss_)
    p, wal = study_params(params)
    psc_cpu = p.psc_cpu_s_per_op if psc_mode == "embedded" else 0.0
    bg = p.background_cpu_cores_per_host * h
    if c - bg < 1.0:
        raise ValueError(f"vcpus must leave vpxd at least one core beyond the background work of {h:g} hosts "
                         f"({bg:.2f} cores), i.e. vcpus >= {bg + 1.0:.2f}; got {c:g}")
    if flush is not None and vcha_enabled:
        flush = _commit_flush_s(params, flush, int(n.max()), (p, wal, True, rtt, stats_level, c, h, vms, pool_size,
                                                              bw, loss_, psc_cpu))
    d, hold, pool, sync, link, rho_bg, stats_held, bg = _station_demands(
        p, wal, bool(vcha_enabled), rtt, stats_level, c, h, vms, pool_size, bw, loss_, psc_cpu, flush)
    mem_flags = () if mem is None else limits.checked_memory_flags(float(peak_memory_bytes(
        int(n.max()), h, "active" if vcha_enabled else "baseline", (params or protocol.calibrated(STUDY)).memory,
        pool_size).total), mem)
    overg = np.asarray(rho_bg >= 1.0)
    if np.any(overg):
        # The Passive falls behind: PostgreSQL "falls back to asynchronous mode" (seed, Best Practices;
        # data/vcha2016/text_best_practices: replication_falls_back_to_async). Commits no longer wait for the
        # Passive nor queue on the link: the appliance runs as without the synchronous wait, and the WAL the
        # link cannot carry accumulates on the Active (RPO > 0, growing). One MVA solves both modes.
        d_async, hold_a, pool_a, _, _, _, held_a, _ = _station_demands(
            p, wal, False, rtt, stats_level, c, h, vms, pool_size, bw, loss_, psc_cpu, flush)
        d = np.where(overg[..., None], d_async, d)
        sync, link = np.where(overg, 0.0, sync), np.where(overg, 0.0, link)
        hold, pool = np.where(overg, hold_a, hold), np.where(overg, pool_a, pool)
        stats_held = np.where(overg, held_a, stats_held)
    sol = queueing.mva(d, int(n.max()), p.think_time_s, _DELAY_MASK)
    idx = n - 1
    grow = (Ellipsis,) + (None,) * n.ndim
    over = np.broadcast_to(overg[grow], sol.throughput_per_s[..., idx].shape)
    x, r = sol.throughput_per_s[..., idx], sol.response_time_s[..., idx]
    rate_bps = _tcp_rate_bps(bw, LAN_RTT_S + np.asarray(rtt, float), loss_) if vcha_enabled else np.inf
    bg_wal = float(checked_background_wal_bytes_per_s(h, vms, wal, p, stats_level))
    wal_bytes_per_s = (x * wal.wal_bytes_per_op + bg_wal) if vcha_enabled else 0.0 * x
    behind = np.where(over, np.maximum(wal_bytes_per_s - np.asarray(rate_bps / 8.0)[grow], 0.0), 0.0)
    cpu = bg + x * p.cpu_demand_s
    stats_demand = p.stats_db_connections_per_vm * vms * STATS_LEVEL_HIGH[stats_level]
    flags = (limits.checked_vcpu_flags(c) + limits.checked_extrapolation_flags(c, h, vms, pool_size)
             + (limits.checked_rtt_flags(rtt) if vcha_enabled else ())
             + limits.checked_fallback_flags(over, bg_wal, bw, behind, rate_bps)
             + limits.checked_pool_flags(stats_demand, stats_held, pool_size) + mem_flags)
    util = np.stack(np.broadcast_arrays((cpu + x * psc_cpu) / c, x * np.asarray(hold)[grow] / np.asarray(pool)[grow],
                                        np.where(over, 1.0, np.asarray(rho_bg)[grow]
                                                 + x * np.asarray(link * (1.0 - rho_bg))[grow])))
    names = np.array(["vpxd CPU", "database connection pool", "replication link"])
    neck = np.where(over, "replication link", np.where(util.max(axis=0) >= 0.8, names[util.argmax(axis=0)], "none"))
    return VcbenchResult(
        clients=n,
        throughput_per_s=x,
        response_time_s=r,
        cpu_cores=cpu,
        cpu_utilization_per_core=(cpu + x * psc_cpu) / c,
        psc_cpu_cores=x * psc_cpu,
        db_pool_utilization=x * np.asarray(hold)[grow] / np.asarray(pool)[grow],
        link_utilization=util[2],  # carried: a link the fallback leaves behind is busy all the time (1)
        sync_wait_s=np.broadcast_to(np.asarray(sync)[grow], x.shape).copy(),
        stats_db_connections=np.broadcast_to(np.asarray(stats_held)[grow], x.shape).copy(),
        background_cpu_cores=float(bg),
        think_time_s=p.think_time_s,
        db_pool_bound_per_s=float(max(pool_size - stats_demand, 1.0) / p.db_hold_s),
        db_connections_held=np.asarray(stats_held)[grow] + x * np.asarray(hold)[grow],
        overloaded=over.copy(),
        replication=np.where(over, "asynchronous", "synchronous" if vcha_enabled else "off"),
        rpo_growth_bytes_per_s=np.asarray(behind, dtype=float) + np.zeros(x.shape),
        bottleneck=neck,
        flags=flags,
    )


def vcbench_curve(max_clients: int, vcha_enabled: bool = False, replication_rtt_s: float = 0.0,
                  stats_level: int = 1, **kw) -> VcbenchResult:
    """:func:`run_vcbench` for every population ``1..max_clients`` (for throughput-vs-clients plots).

    Parameters
    ----------
    max_clients : int
        The largest population, in [1, 4096].
    vcha_enabled, replication_rtt_s, stats_level
        As :func:`run_vcbench` (``replication_rtt_s`` a scalar here).
    **kw
        Keyword arguments of :func:`run_vcbench` (``vcpus``, ``hosts``, ``powered_on_vms`` required).

    Returns
    -------
    VcbenchResult
        Arrays over the populations ``1..max_clients``.

    Examples
    --------
    >>> from vcperf import vcha
    >>> c = vcha.vcbench_curve(256, params=vcha.calibrate(), **vcha.testbed().appliance())
    >>> c.throughput_per_s.shape, bool((c.throughput_per_s[1:] >= c.throughput_per_s[:-1]).all())
    ((256,), True)
    """
    m = v.integer("max_clients", max_clients, 1, 4096)
    rtt = v.scalar("replication_rtt_s", replication_rtt_s, 0.0, 1.0)
    return run_vcbench(np.arange(1, m + 1), vcha_enabled, rtt, stats_level, **kw)


#: The parameters :func:`run_vcbench` reads, as ``(sub-model, field)``: every other parameter of the
#: study has no effect on it (its derivative is exactly zero).
VCBENCH_PARAM_FIELDS = tuple(("vcbench", f) for f in VcbenchParams.__dataclass_fields__) + (
    ("wal", "wal_bytes_per_op"), ("wal", "background_wal_bytes_per_object_s"))


def throughput_many(params_list, clients: int, vcha_enabled: bool = False, replication_rtt_s: float = 0.0,
                    stats_level: int = 1, *, vcpus: float, hosts: float, powered_on_vms: float,
                    db_connections: float = DEFAULT_DB_CONNECTIONS,
                    bandwidth_bps: float = DEFAULT_REPLICATION_BANDWIDTH_BPS, loss: float = 0.0,
                    psc_mode: str = "external", passive_flush_s=None) -> np.ndarray:
    """Throughput (1/s) of one :func:`run_vcbench` scenario under each parameter set of ``params_list``, the
    networks solved in **one** batched MVA (:func:`vcperf.queueing.mva`).

    The same numbers as ``run_vcbench(..., params=q).throughput_per_s`` one at a time (the asynchronous
    fallback included), so that a what-if's interval (:meth:`vcperf.protocol.Calibration.interval`, its
    ``many``) costs a few milliseconds instead of two solves per parameter.

    Parameters
    ----------
    params_list : sequence of Params
        The study's parameter sets (:class:`vcperf.vcha.Params`).
    clients : int
        Concurrent VCbench clients, in [1, 4096].
    vcha_enabled, replication_rtt_s, stats_level, vcpus, hosts, powered_on_vms, db_connections,
    bandwidth_bps, loss, psc_mode, passive_flush_s
        As :func:`run_vcbench` (scalars only).

    Returns
    -------
    numpy.ndarray
        One throughput (1/s) per parameter set.

    Raises
    ------
    ValueError
        As :func:`vcbench`, for the first set outside the model's domain.

    Examples
    --------
    >>> from vcperf import vcha
    >>> from vcperf.vcha.vcbench import throughput_many
    >>> p, kw = vcha.calibrate(), vcha.testbed().appliance()
    >>> x = throughput_many([p, p], 64, True, **kw)
    >>> bool(abs(x[0] - float(vcha.run_vcbench(64, True, params=p, **kw).throughput_per_s)) < 1e-9 * x[0])
    True
    """
    n = v.integer("clients", clients, 1, 4096)
    rtt = v.scalar("replication_rtt_s", replication_rtt_s, 0.0, 1.0)
    bw = v.scalar("bandwidth_bps", bandwidth_bps, 1e3, 1e12)
    loss_ = v.scalar("loss", loss, 0.0, 0.2)
    flush = None if passive_flush_s is None else v.scalar("passive_flush_s", passive_flush_s, 0.0, 1.0, lo_open=True)
    if not isinstance(vcha_enabled, bool | np.bool_):
        raise ValueError(f"vcha_enabled must be True or False; got {vcha_enabled!r}")
    v.choice("stats_level", stats_level, (1, 2, 3, 4))
    v.choice("psc_mode", psc_mode, ("external", "embedded"))
    c = v.scalar("vcpus", vcpus, 1.0, 256.0)
    h = v.scalar("hosts", hosts, 0.0, 10000.0)
    vms = v.scalar("powered_on_vms", powered_on_vms, 0.0, 200000.0)
    pool_size = v.scalar("db_connections", db_connections, 2.0, 10000.0)
    try:
        n_sets = 0 if isinstance(params_list, str | bytes) else len(params_list)
    except TypeError:  # no length (a scalar, a 0-d array)
        n_sets = 0
    if not n_sets:
        raise ValueError(f"params_list must be a non-empty sequence of vcperf.vcha.Params; got {params_list!r}")
    demands, thinks = [], []
    for q in params_list:
        p, wal = study_params(v.instance("params_list (an item)", q, Params))
        psc_cpu = p.psc_cpu_s_per_op if psc_mode == "embedded" else 0.0
        bg = p.background_cpu_cores_per_host * h
        if c - bg < 1.0:
            raise ValueError(f"vcpus must leave vpxd at least one core beyond the background work of {h:g} hosts "
                             f"({bg:.2f} cores), i.e. vcpus >= {bg + 1.0:.2f}; got {c:g}")
        args = (p, wal, bool(vcha_enabled), rtt, stats_level, c, h, vms, pool_size, bw, loss_, psc_cpu)
        f = _commit_flush_s(q, flush, n, args[:2] + (True,) + args[3:]) if flush is not None and vcha_enabled \
            else flush
        d, *_, rho_bg, _, _ = _station_demands(*args, f)
        if np.any(np.asarray(rho_bg) >= 1.0):  # the asynchronous fallback, as vcbench's
            d = _station_demands(*args[:2], False, *args[3:], f)[0]
        demands.append(d)
        thinks.append(p.think_time_s)
    sol = queueing.mva(np.stack(demands), n, np.array(thinks), _DELAY_MASK)
    return np.asarray(sol.throughput_per_s[..., n - 1], dtype=float)
