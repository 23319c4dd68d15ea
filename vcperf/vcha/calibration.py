"""Calibration of the VCHA study: :func:`calibrate` fits :class:`~vcperf.vcha.params.Params` to the
``fit`` targets of :mod:`vcperf.vcha.targets` (fitting only).

Each sub-model is fitted to the fit targets that concern it (their ``stage`` tag,
:func:`~vcperf.vcha.targets.fit_info`), in deterministic stages:

1. **VCbench network** (:class:`~vcperf.vcha.params.VcbenchParams`): six demands to the absolute
   numbers of Tables 5, 6, 7 (throughput, latency, vpxd CPU; 64/256 clients; VCHA off/on; log
   residuals), then ``sync_commits_per_op`` to Table 13's rows with added latency, then
   ``stats_db_connections_per_vm`` to Table 12's level 3/4 rows, then ``psc_cpu_s_per_op`` to Table
   14's 64-client Difference. The commit record's size comes from the WAL fit (stage 2 is run
   first: it does not depend on the network).
2. **WAL and management traffic** (:class:`~vcperf.vcha.params.WalParams`): each Table 11 rate =
   background + bytes/op x the run's measured throughput (Table 5 of the same run, an input like
   the sdg writes/s of Tables 9-10), linear least squares; the WAL background is divided over the
   test bed's managed objects (hosts + powered-on VMs, level 1).
3. **Enabling VCHA** (:class:`~vcperf.vcha.params.EnableParams`): clone time = transfer of (base
   bytes + bytes/VM x registered VMs) over the 10 Gbps clone network; configuration = mean.
4. **Failover** (:class:`~vcperf.vcha.params.FailoverParams`): linear least squares on Tables 2,
   17 (External InProgress), 16 (Embedded) and 3.
5. **Disks** (:class:`~vcperf.vcha.params.DiskParams`): sdf bytes = checkpoint background +
   eviction coefficient x the measured throughput squared, sdh bytes = line in the measured
   throughput, writes = bytes / I/O size (sdf: plus a floor of small writes); sdg writes = flush
   line (Tables 9-10, baseline and Active). Every coefficient is held >= 0 (bounded linear least
   squares), so no refit leaves the physical domain. Then the Passive's walreceiver cycle to its
   sdg writes/s (its flush counts: the bulk-service coalescing of that flush line's Active flushes,
   :func:`~vcperf.vcha.disk.standby_flushes_per_s`; log residuals, one bounded scalar).
6. **Memory** (:class:`~vcperf.vcha.params.MemoryParams`): Table 8, linear least squares.

The model is evaluated with explicit parameters only (the VCbench network through
:func:`~vcperf.vcha.vcbench.run_vcbench` with the candidate ``params``), never through the default
calibration.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from vcperf import network, protocol
from vcperf.vcha.disk import standby_flushes_per_s
from vcperf.vcha.params import (
    STUDY,
    DiskParams,
    EnableParams,
    FailoverParams,
    MemoryParams,
    Params,
    VcbenchParams,
    WalParams,
)
from vcperf.vcha.targets import STATES, fit_info, targets
from vcperf.vcha.testbed import inventory_sizes, testbed
from vcperf.vcha.vcbench import LAN_RTT_S, run_vcbench


@functools.cache
def _target_map() -> dict:
    return {t.key: t for t in targets()}


@functools.cache
def _paper(key: str) -> float:
    return _target_map()[key].paper_value()


def _info(key: str):
    """The sub-fit tags of target ``key`` (:func:`~vcperf.vcha.targets.fit_info`)."""
    return fit_info()[key]


def calibrate(fit_on=None) -> Params:
    """Fit :class:`~vcperf.vcha.params.Params` to the ``fit`` targets (default) or to the target keys
    ``fit_on``.

    Each sub-model is fitted to the keys of ``fit_on`` that concern it (see the module docstring);
    keys no sub-fit uses (derived, predicted rows) are accepted and ignored. Deterministic and cached
    (in the process and on disk, :func:`vcperf.protocol.cached_calibration`).

    Parameters
    ----------
    fit_on : iterable of str, optional
        Target keys (:func:`~vcperf.vcha.targets.targets`) to fit to; default every ``fit`` target.
        ``bound`` targets cannot be named.

    Returns
    -------
    Params
        The calibrated parameters (SI units, :data:`~vcperf.vcha.params.PARAM_DOCS`).

    Raises
    ------
    ValueError
        When ``fit_on`` names a key that is not a target of the study.

    Examples
    --------
    >>> from vcperf import vcha
    >>> p = vcha.calibrate()
    >>> bool(p.vcbench.sync_commits_per_op >= 1)
    True
    """
    keys = protocol.resolve_fit_on(STUDY, _target_map().values(), fit_on)
    return protocol.cached_calibration(STUDY, fit_on, _calibrate, keys, Params)


@functools.lru_cache(maxsize=256)
def _calibrate(keys: tuple) -> Params:
    by_stage: dict = {}
    for k in keys:
        stage = _info(k).get("stage")
        if stage is not None:
            by_stage.setdefault(stage, []).append(k)
    wal = _fit_wal(by_stage)
    vb_keys = tuple((st, tuple(sorted(by_stage.get(st, [])))) for st in ("vcbench", "rtt", "stats", "psc_vb"))
    return Params(vcbench=_fit_vcbench_cached(vb_keys, wal), wal=wal, enable=_fit_enable(by_stage),
                  failover=_fit_failover(by_stage), disk=_fit_disk(by_stage), memory=_fit_memory(by_stage))


#: Starting point of the six stage-1 demands (cpu, bg per host, hold, host, think, commit).
_Q0 = np.array([0.1, 1e-3, 0.4, 0.8, 0.05, 0.03])
_NC0, _STATS0, _PSC0 = 20.0, 2.5e-4, 0.02


@functools.lru_cache(maxsize=256)
def _fit_vcbench_cached(stage_keys: tuple, wal: WalParams) -> VcbenchParams:
    """:func:`_fit_vcbench` memoised on the keys of its own stages (a refit that holds out, say, an
    enabling run reuses the VCbench fit)."""
    return _fit_vcbench(dict(stage_keys), wal)


def _fit_vcbench(by_stage: dict, wal: WalParams) -> VcbenchParams:
    """Stage 1 (Tables 5-7), then Table 13 (commits per op), then Table 12 (statistics connections).
    The WAL bytes per operation (the commit record's size) come from the already fitted ``wal``."""
    from scipy.optimize import least_squares

    tb = testbed()
    app = tb.appliance()
    lo = [1e-4, 0.0, 1e-4, 0.0, 0.0, 0.0]
    hi = [5.0, (tb.vcpus - 2.0) / tb.hosts, 10.0, 10.0, 5.0, 1.0]
    rest = (EnableParams(0.0, 0.0, 0.0), FailoverParams(*([0.0] * 9)), DiskParams(*([1.0] * 10)),
            MemoryParams(*([0.0] * 5)))

    def make(q, nc=_NC0, stats=_STATS0, psc=_PSC0):
        vb = VcbenchParams(*(float(x) for x in q), sync_commits_per_op=float(nc),
                           stats_db_connections_per_vm=float(stats), psc_cpu_s_per_op=float(psc))
        return Params(vb, wal, *rest)

    def x_of(P, n, vc, rtt_s=0.0, level=1, psc="external"):
        return run_vcbench(n, vc, rtt_s, level, params=P, bandwidth_bps=tb.replication_bandwidth_bps, psc_mode=psc,
                       **app)

    stage1 = sorted(by_stage.get("vcbench", []))
    q = _Q0
    if stage1:
        rows = [(_info(k)["run"], _info(k)["metric"], _paper(k)) for k in stage1]
        pops = np.array(sorted({n for (n, _), _, _ in rows}))

        def resid(qq):
            P = make(qq)
            sol = {vc: x_of(P, pops, vc) for vc in sorted({vc for (_, vc), _, _ in rows})}
            out = []
            for (n, vc), metric, paper in rows:
                s, i = sol[vc], int(np.searchsorted(pops, n))
                m = {"x": s.throughput_per_s, "r": s.response_time_s, "u": s.cpu_cores}[metric][i]
                out.append(math.log(float(m) / paper))
            return np.array(out)

        q = least_squares(resid, _Q0, bounds=(lo, hi), x_scale="jac").x

    rtt_keys = sorted(by_stage.get("rtt", []))
    nc = _NC0
    if rtt_keys:
        def resid2(v):
            P = make(q, v[0])
            return np.array([math.log(float(x_of(P, _info(k)["n"], True, _info(k)["rtt_s"]).throughput_per_s)
                                      / _paper(k)) for k in rtt_keys])

        nc = float(least_squares(resid2, [_NC0], bounds=([1.0], [1e4])).x[0])

    stats_keys = sorted(by_stage.get("stats", []))
    stats = _STATS0
    if stats_keys:
        def resid3(v):
            P = make(q, nc, v[0])
            return np.array([math.log(float(x_of(P, 256, _info(k)["vc"], 0.0, _info(k)["level"]).throughput_per_s)
                                      / _paper(k)) for k in stats_keys])

        stats = float(least_squares(resid3, [_STATS0], x_scale=[_STATS0],
                                    bounds=([0.0], [(tb.db_connections - 2.0) / tb.powered_on_vms])).x[0])
    psc_keys = sorted(by_stage.get("psc_vb", []))
    psc = _PSC0
    if psc_keys:
        def resid4(v):
            P = make(q, nc, stats, v[0])
            out = []
            for k in psc_keys:
                emb, ext = (float(x_of(P, _info(k)["n"], True, psc=m).throughput_per_s) for m in ("embedded",
                                                                                                   "external"))
                out.append(math.log((emb / ext) / (1.0 + _paper(k))))
            return np.array(out)

        psc = float(least_squares(resid4, [_PSC0], x_scale=[_PSC0], bounds=([0.0], [10.0])).x[0])
    return make(q, nc, stats, psc).vcbench


def _lstsq(a, b, prior) -> np.ndarray:
    """Least squares ``a x = b``; directions the rows do not determine stay at ``prior``.

    With enough independent rows this is the ordinary solution; with too few (a leave-one-out
    refit) the undetermined part keeps its prior value instead of collapsing to zero, so the
    estimability test of :mod:`vcperf.protocol` sees it as undetermined.
    """
    prior = np.asarray(prior, dtype=float)
    if len(b) == 0:
        return prior.copy()
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    delta, *_ = np.linalg.lstsq(a, b - a @ prior, rcond=None)
    return prior + delta


def _nonneg_lstsq(a, b, prior) -> np.ndarray:
    """:func:`_lstsq` with every coefficient held >= 0: the unconstrained solution when it is
    physical, else the bounded least squares (columns scaled to unit size for conditioning)."""
    x = _lstsq(a, b, prior)
    if np.all(x >= 0.0):
        return x
    from scipy.optimize import lsq_linear

    a = np.asarray(a, dtype=float)
    scale = np.maximum(np.abs(a).max(axis=0), 1e-300)
    return lsq_linear(a / scale, np.asarray(b, dtype=float), bounds=(0.0, np.inf)).x / scale


#: Prior values of the linear sub-fits' parameters, kept where a refit has too few points to
#: determine them (orders of magnitude only; they never reach a ledger row: such rows are "not
#: estimable").
_PRIOR = {
    "line": (1e6, 1e5),  # background B/s, B/op
    "clone": (1e11, 1e6),  # B, B/VM
    "configure": 60.0,  # s
    "ready": (60.0, 100.0, 1e-3),  # takeover s, core-s, s/VM
    "psc": 30.0,  # s
    "screens": (400.0, 2e-3, 15.0, 30.0, 60.0),  # core-s, s/VM, offsets s
    "disk_line": (1e6, 1e5),  # background B/s, B/op
    "sdf_line": (1e6, 1e3),  # background B/s, eviction B s/op^2
    "flush_line": (1000.0, 5.0),  # background 1/s, 1/op
    "cycle": 5e-4,  # s, the Passive's walreceiver cycle
    "inv_write": 1.0 / 2e4,  # 1/B
    "small_writes": (20.0, 1.0 / 2e4),  # sdf small writes 1/s, 1/B
    "vpxd": (5e6, 2e7),  # B/host, B/client
    "postgres": 3e9,  # B, the instance without client backends
    "pg_conn": 2e7,  # B
    "vcha": 5e7,  # B
}


def _measured_x(k) -> float:
    """The measured VCbench throughput (Table 5, ops/s) of the run target ``k`` belongs to."""
    n, vc = _info(k)["run"]
    return protocol.paper_value(f"{STUDY}/table05_throughput", "throughput", clients=n, vcha=STATES[vc])


def _fit_disk(by_stage: dict) -> DiskParams:
    """sdf: bytes = background + eviction coefficient x (measured throughput)^2; sdh: bytes =
    background + per-op x measured throughput (the run's Table 5); sdh writes = bytes / I/O size;
    sdf writes = small writes/s + bytes / I/O size; sdg: flushes = background + per-op x
    throughput. Linear least squares each, every coefficient >= 0."""
    out = {}
    for disk, power, prior in (("sdf", 2, _PRIOR["sdf_line"]), ("sdh", 1, _PRIOR["disk_line"])):
        bw_keys = sorted(by_stage.get(f"{disk}_bw", []))
        bg, load = _nonneg_lstsq([[1.0, _measured_x(k) ** power] for k in bw_keys], [_paper(k) for k in bw_keys],
                                 prior)
        tps_keys = sorted(by_stage.get(f"{disk}_tps", []))
        rows = [[1.0, bg + load * _measured_x(k) ** power] for k in tps_keys]
        tps = [_paper(k) for k in tps_keys]
        small, inv = (0.0, None) if disk == "sdh" else _lstsq(rows, tps, _PRIOR["small_writes"])
        if inv is None or small < 0.0 or inv <= 0.0:  # no floor (sdh), or a refit that wants a negative one
            small, inv = 0.0, _lstsq([r[1:] for r in rows], tps, [_PRIOR["inv_write"]])[0]
        out[disk] = (float(load), float(bg), float(1.0 / inv), float(small))
    keys = sorted(by_stage.get("sdg_tps", []))
    fbg, fop = _nonneg_lstsq([[1.0, _measured_x(k)] for k in keys], [_paper(k) for k in keys], _PRIOR["flush_line"])
    cycle = _fit_cycle(sorted(by_stage.get("sdg_passive", [])), float(fbg), float(fop))
    return DiskParams(*out["sdf"][:3], *out["sdh"][:3], float(fop), float(fbg), out["sdf"][3], cycle)


def _fit_cycle(keys, fbg: float, fop: float) -> float:
    """The Passive's walreceiver cycle (s) whose coalescing of the fitted flush line's Active flushes
    (at the run's measured throughput) best matches the Passive's sdg writes/s (log residuals); the
    prior without rows."""
    if not keys:
        return _PRIOR["cycle"]
    from scipy.optimize import minimize_scalar

    lam = np.array([fbg + fop * _measured_x(k) for k in keys])
    ln_paper = np.log([_paper(k) for k in keys])

    def sse(log_s):
        return float(((np.log(standby_flushes_per_s(lam, math.exp(log_s))) - ln_paper) ** 2).sum())

    sol = minimize_scalar(sse, bounds=(math.log(1e-6), math.log(1.0)), method="bounded",
                          options={"xatol": 1e-10})
    return float(math.exp(sol.x))


def _fit_memory(by_stage: dict) -> MemoryParams:
    """vpxd = per host x hosts + per client x clients; Passive postgres = the instance alone (no client
    backends); baseline/Active postgres = the instance + the pool's backends (the test bed's pool);
    vcha = constant. Linear least squares each, every coefficient >= 0."""
    tb = testbed()
    keys = sorted(by_stage.get("mem_vpxd", []))
    per_host, per_client = _nonneg_lstsq([[tb.hosts, _info(k)["run"][0]] for k in keys],
                                         [_paper(k) for k in keys], _PRIOR["vpxd"])
    keys = sorted(by_stage.get("mem_pg_passive", []))
    pg = max(0.0, _lstsq([[1.0]] * len(keys), [_paper(k) for k in keys], [_PRIOR["postgres"]])[0])
    keys = sorted(by_stage.get("mem_pg", []))
    conn = max(0.0, _lstsq([[tb.db_connections]] * len(keys), [_paper(k) - pg for k in keys], [_PRIOR["pg_conn"]])[0])
    keys = sorted(by_stage.get("mem_vcha", []))
    vcha_b = max(0.0, _lstsq([[1.0]] * len(keys), [_paper(k) for k in keys], [_PRIOR["vcha"]])[0])
    return MemoryParams(float(per_host), float(per_client), float(pg), float(conn), float(vcha_b))


def _line(pairs) -> tuple:
    """Least-squares ``rate = background + per_op x X`` on ``(X, rate)`` pairs."""
    background, per_op = _lstsq([[1.0, x] for x, _ in pairs], [rate for _, rate in pairs], _PRIOR["line"])
    return float(background), float(per_op)


def _fit_wal(by_stage: dict) -> WalParams:
    def pairs(stage):
        out = []
        for k in sorted(by_stage.get(stage, [])):
            n, vc = _info(k)["run"]
            out.append((protocol.paper_value(f"{STUDY}/table05_throughput", "throughput", clients=n,
                                             vcha=STATES[vc]), _paper(k)))
        return out

    wal_bg, wal_op = _line(pairs("eth1"))
    rx_bg, rx_op = _line(pairs("eth0_rx"))
    tx_bg, tx_op = _line(pairs("eth0_tx"))
    tb = testbed()  # Table 11's runs: the test bed's inventory at statistics level 1
    return WalParams(wal_op, wal_bg / (tb.hosts + tb.powered_on_vms), rx_op, tx_op, rx_bg, tx_bg)


def _fit_enable(by_stage: dict) -> EnableParams:
    """Clone time = transfer of (base + per-VM x VMs) bytes at the TCP payload rate of the clone
    link: linear in the two byte counts (the slow-start term is negligible for hundreds of GB)."""
    inv = inventory_sizes()
    rate = testbed().clone_bandwidth_bps * network.TCP_PAYLOAD_FRACTION / 8.0  # B/s
    a, b = [], []
    for k in sorted(by_stage.get("clone", [])):
        a.append([1.0 / rate, inv[_info(k)["size"]]["registered_vms"] / rate])
        b.append(_paper(k) - LAN_RTT_S / 2.0)
    base, per_vm = _lstsq(a, b, _PRIOR["clone"])
    conf = [_paper(k) for k in sorted(by_stage.get("configure", []))]
    return EnableParams(float(base), float(per_vm), float(np.mean(conf)) if conf else _PRIOR["configure"])


def _fit_failover(by_stage: dict) -> FailoverParams:
    inv = inventory_sizes()
    a, b = [], []
    for k in sorted(by_stage.get("ready", [])):
        size = _info(k).get("size")
        if size is None:  # Table 17 External InProgress: the take-over alone
            a.append([1.0, 0.0, 0.0])
        else:
            a.append([1.0, 1.0 / inv[size]["vcpus"], inv[size]["registered_vms"]])
        b.append(_paper(k))
    takeover, cpu, per_vm = _lstsq(a, b, _PRIOR["ready"])
    xl = inv["x-large"]
    ext = takeover + cpu / xl["vcpus"] + per_vm * xl["registered_vms"]
    psc_keys = by_stage.get("psc", [])
    psc = float(np.mean([_paper(k) for k in psc_keys]) - ext) if psc_keys else _PRIOR["psc"]
    # Web Client: blank screen, then constant offsets. All screens of all sizes in one system.
    a, b = [], []
    for k in sorted(by_stage.get("screens", [])):
        size, screen = _info(k)["size"], _info(k)["screen"]
        row = [1.0 / inv[size]["vcpus"], inv[size]["registered_vms"], 0.0, 0.0, 0.0]
        if screen:
            row[1 + screen] = 1.0
        a.append(row)
        b.append(_paper(k) - takeover)
    sol = _lstsq(a, b, _PRIOR["screens"])
    return FailoverParams(float(takeover), float(cpu), float(per_vm), psc, *(float(s) for s in sol))
