"""Closed-loop workloads under FT (seed ``002_1123405df89c1006.txt``, Figures 6-11).

A closed queueing network (:func:`vcperf.queueing.mva`) with FT off and on: each client exchange
waits the output-commit delay (a delay station) and the VM-side service is slowed by
``1 / run_fraction``; since the stun pauses *all* vCPUs while the shared link ships every
concurrent operation's memory, the stun is a serial resource, which is why heavier load loses
more. Pure functions of physical inputs: users, think times, vCPUs, disks and the checkpoint
interval are arguments (``vcperf.ft.testbed()`` holds the seed's Appendix A/B values).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import queueing
from vcperf.ft.checkpoint import (
    DEFAULT_FT_ACK_RTT_S,
    DEFAULT_FT_LINK_BPS,
    DEFAULT_RELEASE,
    DEFAULT_STUN_FIXED_S,
    FT_MAX_VCPUS,
    MAX_CHECKPOINT_INTERVAL_S,
    VCPU_STATE_BYTES,
    check_ft_vcpus,
    checked_commit_delay_s,
    checked_link_constants,
    checked_run_fraction,
    checkpoint_cycle,
)

#: Largest client population of one FT VM's closed loop. The FT-on fixed point solves a batch of 33
#: networks over every population up to it, and a utilization target repeats that in a root search
#: (memory and time grow linearly): 10,000 clients are about 20 MB and under a second; the seed's
#: workloads run at most a few hundred.
MAX_CLIENTS = 10_000

#: Headroom of the times per operation: the queue's response times reach ``n_clients`` times the
#: summed demands (and a little more under FT), which must stay a finite float.
_TIME_HEADROOM = 64.0


def _check_times(n_clients: int, **times: float) -> None:
    """ValueError naming the first time per operation whose ``n_clients``-fold queue overflows a float."""
    limit = np.finfo(float).max / (_TIME_HEADROOM * n_clients * max(len(times), 1))
    for name, value in times.items():
        if value > limit:
            raise ValueError(f"{name} must be in [0, {limit:.3g}] s with n_clients={n_clients} (beyond it the "
                             f"queue's response times overflow a float); got {value!r}")

#: Swingbench order entry runs each transaction as one PL/SQL stored-procedure call: one client
#: exchange per transaction (assumed from Swingbench's SOE PL/SQL design; not printed).
SWINGBENCH_EXCHANGES_PER_TRANSACTION = 1.0
#: A DVD Store 2 order is a login, ``n_searches`` browse queries (Appendix B) and a purchase,
#: one stored-procedure call each: the two calls besides the searches.
DVDSTORE_FIXED_EXCHANGES_PER_ORDER = 2.0
#: IOMeter outstanding I/Os per worker: the tool's default of 1 (the seed does not print it). With one
#: outstanding I/O every FT cost on the I/O path (mirrored-write round trip and transfer, completions
#: waiting for a running vCPU) shows in the throughput; with deep queues the disks hide it.
IOMETER_OUTSTANDING_IOS = 1
#: Random-I/O service time of one spindle (seek + rotation of a 10k/15k rpm disk, assumed), before
#: dividing by the LUN's disks.
DISK_RANDOM_IO_S = 6e-3
#: 6 Gb/s SAS back end of the array's disks (assumed interface rate).
DISK_INTERFACE_BPS = 6e9
#: Guest vCPU time to issue and complete one I/O (assumed, order of tens of microseconds).
IO_CPU_S = 20e-6
#: Brokerage (TPC-E-derived) transaction: client exchanges per transaction (a TPC-E transaction is a
#: few frames, one stored-procedure call each; assumed 3).
BROKERAGE_EXCHANGES_PER_TRANSACTION = 3.0
#: Brokerage transaction: memory dirtied per transaction (assumed: ~20 8-KiB buffer-pool pages read from
#: disk or modified; the seed calls the working set large, so pages do not repeat within an epoch).
BROKERAGE_DIRTY_BYTES_PER_TRANSACTION = 20 * 8192.0
#: Brokerage transaction: disk time per transaction outside the vCPUs (assumed 5 ms of buffer-pool misses).
BROKERAGE_IO_S = 5e-3


@dataclass(frozen=True)
class ClosedLoopResult:
    """A closed-loop workload with FT off and on (scalars; per second / seconds).

    ``n_clients = throughput * (response + think)`` holds for both (Little's law). ``flags`` names
    inputs beyond VMware's documented FT requirements and defaults (:func:`vcperf.ft.limit_flags`).
    """

    n_clients: int
    think_time_s: float
    throughput_off_per_s: float
    throughput_on_per_s: float
    response_off_s: float
    response_on_s: float
    run_fraction: float
    output_commit_delay_s: float
    cpu_utilization_off: float
    flags: tuple = ()

    @property
    def throughput_ratio(self) -> float:
        """FT-on over FT-off throughput (<= 1)."""
        return self.throughput_on_per_s / self.throughput_off_per_s

    @property
    def response_ratio(self) -> float:
        """FT-on over FT-off response time (>= 1)."""
        return self.response_on_s / self.response_off_s


def _demands(cpu_s, vcpus, host_s, exchanges, delta, phi, io_s):
    """Stations: vCPU queue (Seidmann), vCPU delay, external delay, output commits, I/O queue."""
    return np.stack(np.broadcast_arrays(
        cpu_s / vcpus / phi, cpu_s * (vcpus - 1) / vcpus / phi, host_s, exchanges * delta, io_s), axis=-1)


_DELAY = np.array([False, True, True, True, False])


def ft_off_throughput_per_s(n_clients, cpu_demand_s, vcpus, external_delay_s, think_time_s=0.0, io_demand_s=0.0):
    """FT-off throughput (1/s) of populations ``1..n_clients`` of :func:`closed_loop`'s network (an array)."""
    n_clients = v.integer("n_clients", n_clients, 1, MAX_CLIENTS)
    cpu_demand_s = v.scalar("cpu_demand_s", cpu_demand_s, 0.0, math.inf, hi_open=True)
    vcpus = v.integer("vcpus", vcpus, 1, max(FT_MAX_VCPUS.values()))
    external_delay_s = v.scalar("external_delay_s", external_delay_s, 0.0, math.inf, hi_open=True)
    think_time_s = v.scalar("think_time_s", think_time_s, 0.0, math.inf, hi_open=True)
    io_demand_s = v.scalar("io_demand_s", io_demand_s, 0.0, math.inf, hi_open=True)
    if cpu_demand_s + external_delay_s + think_time_s + io_demand_s <= 0:
        raise ValueError("cpu_demand_s + external_delay_s + think_time_s + io_demand_s must be in (0, inf); got 0")
    _check_times(n_clients, cpu_demand_s=cpu_demand_s, external_delay_s=external_delay_s, think_time_s=think_time_s,
                 io_demand_s=io_demand_s)
    res = queueing.mva(_demands(cpu_demand_s, vcpus, external_delay_s, 0.0, 0.0, 1.0, io_demand_s), n_clients,
                       think_time_s, delay_stations=_DELAY)
    return res.throughput_per_s


def closed_loop(
    n_clients,
    think_time_s,
    cpu_demand_s,
    *,
    checkpoint_interval_s,
    vcpus=1,
    external_delay_s=0.0,
    exchanges_per_op=0.0,
    io_demand_s=0.0,
    dirty_bytes_per_op=0.0,
    background_dirty_rate_bytes_per_s=0.0,
    ft_link_bps=DEFAULT_FT_LINK_BPS,
    working_set_bytes=math.inf,
    ft_ack_rtt_s=DEFAULT_FT_ACK_RTT_S,
    stun_fixed_s=DEFAULT_STUN_FIXED_S,
    ft_link_loss=0.0,
    n_ft_vms=1,
    mirrored_write_bytes_per_op=0.0,
    release=DEFAULT_RELEASE,
) -> ClosedLoopResult:
    """A closed-loop client/server workload on one VM, FT off and on (exact MVA).

    ``n_clients`` clients each issue an operation, wait for its reply and think ``think_time_s``.
    An operation needs ``cpu_demand_s`` of guest vCPU time (``vcpus`` servers, Seidmann's
    multi-server approximation), ``io_demand_s`` at the disk (a queueing station: storage is not
    held by FT), ``external_delay_s`` elsewhere (hosts, network), and makes ``exchanges_per_op``
    client-visible network exchanges. Under FT each exchange waits the output-commit delay (a
    delay station), and guest service is slowed by ``1 / run_fraction``, where the stun grows with
    the memory the operations dirty per second -- ``throughput * dirty_bytes_per_op`` -- shipped
    over the one FT link: with more operations per second they share the checkpoint bandwidth and
    the stun that pauses every vCPU, so the loss grows with load. The FT-on throughput is the fixed
    point ``X = MVA(stations(X))`` (the right side decreases in ``X``): bracketed on a grid, then
    solved to machine precision (Brent), so the result is smooth in every input.

    Parameters
    ----------
    n_clients : int
        Closed population, >= 1.
    think_time_s : float
        Client think time, >= 0.
    cpu_demand_s : float
        Guest vCPU seconds per operation, >= 0.
    checkpoint_interval_s : float
        As in :func:`vcperf.ft.checkpoint_cycle`, > 0.
    vcpus : int
        vCPUs of the VM (1..the release's SMP-FT limit, :func:`vcperf.ft.check_ft_vcpus`: 4 in 6.0).
    external_delay_s, exchanges_per_op, io_demand_s, dirty_bytes_per_op : float
        As above, each >= 0.
    background_dirty_rate_bytes_per_s : float
        Memory dirtied per second of run time independent of the operations, >= 0.
    ft_link_bps, working_set_bytes, ft_ack_rtt_s, stun_fixed_s, ft_link_loss, n_ft_vms
        As in :func:`vcperf.ft.checkpoint_cycle`.
    mirrored_write_bytes_per_op : float
        Disk-write bytes per operation mirrored to the secondary over the FT link (seed "Storage"):
        they ship with the checkpoint and each write completes only after the FT-link round trip and
        its own transfer (a delay per operation), >= 0.
    release : str
        vSphere release for the vCPU limit (default "6.0").

    Returns
    -------
    ClosedLoopResult

    References
    ----------
    .. [1] M. Reiser, S. S. Lavenberg, "Mean-Value Analysis of Closed Multichain Queuing Networks",
       J. ACM 27(2), 1980 (exact MVA, :func:`vcperf.queueing.mva`).
    .. [2] A. Seidmann, P. J. Schweitzer, S. Shalev-Oren, "Computerized Closed Queueing Network Models of
       Flexible Manufacturing Systems", Large Scale Systems 12, 1987 (the multi-server approximation).
    .. [3] B. Cully et al., "Remus: High Availability via Asynchronous Virtual Machine Replication",
       NSDI 2008 (checkpoint replication with output commit).

    Examples
    --------
    >>> from vcperf import ft
    >>> r = ft.closed_loop(64, 0.4, 0.02, checkpoint_interval_s=5e-3, vcpus=4, exchanges_per_op=7)
    >>> round(r.throughput_ratio, 3), round(r.response_ratio, 2)
    (0.961, 1.55)
    """
    from scipy.optimize import brentq

    n = v.integer("n_clients", n_clients, 1, MAX_CLIENTS)
    z = v.scalar("think_time_s", think_time_s, 0.0, math.inf, hi_open=True)
    v.single(ft_link_bps=ft_link_bps, working_set_bytes=working_set_bytes, ft_ack_rtt_s=ft_ack_rtt_s,
             stun_fixed_s=stun_fixed_s, ft_link_loss=ft_link_loss, n_ft_vms=n_ft_vms)
    cpu = v.scalar("cpu_demand_s", cpu_demand_s, 0.0, math.inf, hi_open=True)
    c = check_ft_vcpus(vcpus, release)
    ext = v.scalar("external_delay_s", external_delay_s, 0.0, math.inf, hi_open=True)
    k = v.scalar("exchanges_per_op", exchanges_per_op, 0.0, math.inf, hi_open=True)
    io = v.scalar("io_demand_s", io_demand_s, 0.0, math.inf, hi_open=True)
    wr = v.scalar("mirrored_write_bytes_per_op", mirrored_write_bytes_per_op, 0.0, v.MAX_BYTES)
    m = v.scalar("dirty_bytes_per_op", dirty_bytes_per_op, 0.0, math.inf, hi_open=True) + wr
    bg = v.scalar("background_dirty_rate_bytes_per_s", background_dirty_rate_bytes_per_s, 0.0, math.inf, hi_open=True)
    e = v.scalar("checkpoint_interval_s", checkpoint_interval_s, 0.0, MAX_CHECKPOINT_INTERVAL_S, lo_open=True)
    cyc_kw = dict(ft_link_bps=ft_link_bps, working_set_bytes=working_set_bytes, ft_ack_rtt_s=ft_ack_rtt_s,
                  stun_fixed_s=stun_fixed_s, ft_link_loss=ft_link_loss, n_ft_vms=n_ft_vms, vcpus=c)
    flags = checkpoint_cycle(0.0, e, release=release, **cyc_kw).flags  # validates the link inputs before any work
    if cpu + ext + io + z <= 0:
        raise ValueError("cpu_demand_s + external_delay_s + io_demand_s + think_time_s must be in "
                         "(0, inf); got 0")
    _check_times(n, cpu_demand_s=cpu, external_delay_s=ext, io_demand_s=io, think_time_s=z)

    off = queueing.mva(_demands(cpu, c, ext, 0.0, 0.0, 1.0, io), n, z, delay_stations=_DELAY)
    x_off = float(off.throughput_per_s[-1])

    wss = np.float64(working_set_bytes)
    state = c * VCPU_STATE_BYTES

    def demand(rate, fixed):  # the VM's logging payload rate alone on the link (its FT-on fixed point there)
        x_alone, _, phi_alone, _ = _fixed_point(float(rate), float(fixed))
        return 8.0 * (min(bg * e + x_alone * m * e / phi_alone, wss) + state) * phi_alone / e

    def _fixed_point(rate, fixed):
        write_wait = (float(ft_ack_rtt_s) + 8.0 * wr / rate) if wr > 0 else 0.0

        def solve(x):
            phi = checked_run_fraction(x, m, bg, e, rate, fixed, wss)
            delta = checked_commit_delay_s(bg + x * m / phi, e, rate, fixed, wss)
            res = queueing.mva(_demands(cpu, c, ext + write_wait, k, delta, phi, io), n, z, delay_stations=_DELAY)
            return res.throughput_per_s[..., -1], res.response_time_s[..., -1], phi, delta

        # FT-on throughput: the fixed point X = MVA(stations(X)); MVA(stations(X)) decreases in X, so
        # bracket it on a grid of candidates (one batched MVA per round), then Brent in the bracket.
        grid = np.linspace(0.0, x_off, 33)
        try:
            ok = solve(grid)[0] >= grid
            i = int(np.flatnonzero(ok)[-1]) if ok.any() else 0
            lo, hi = grid[i], grid[min(i + 1, 32)]
            if lo < hi:
                try:
                    x_on = brentq(lambda x: float(solve(x)[0]) - x, lo, hi, xtol=1e-15 * max(x_off, 1e-300),
                                  rtol=1e-15)
                except RuntimeError:  # a throughput near the float minimum: solve for x / x_off instead
                    x_on = x_off * brentq(lambda u: float(solve(u * x_off)[0]) / x_off - u, lo / x_off, hi / x_off,
                                          xtol=1e-15, rtol=1e-15)
            else:
                x_on = lo
            _, r_on, phi, delta = (float(a) for a in solve(x_on))
        except (RuntimeError, ValueError) as err:  # the fixed point left the floats: name the caller's inputs
            raise ValueError(
                f"closed_loop has no finite FT-on solution for n_clients={n}, think_time_s={z!r}, cpu_demand_s="
                f"{cpu!r}, external_delay_s={ext!r}, exchanges_per_op={k!r}, io_demand_s={io!r}, dirty_bytes_per_op="
                f"{dirty_bytes_per_op!r}, checkpoint_interval_s={e!r}: an input is too large for the model's floats "
                f"({err})") from None
        return float(x_on), r_on, phi, delta

    rate, fixed = checked_link_constants(ft_link_bps, ft_ack_rtt_s, stun_fixed_s, ft_link_loss, n_ft_vms, c, release,
                               demand=demand)
    x_on, r_on, phi, delta = _fixed_point(float(rate), float(fixed))
    if not all(math.isfinite(a) and a >= 0 for a in (x_on, r_on, phi, delta)):
        raise ValueError(f"closed_loop: exchanges_per_op={k!r} or dirty_bytes_per_op={dirty_bytes_per_op!r} is too "
                         f"large: the FT-on response time is not a finite float ({r_on!r} s)")
    return ClosedLoopResult(
        n_clients=n,
        think_time_s=z,
        throughput_off_per_s=x_off,
        throughput_on_per_s=float(x_on),
        response_off_s=float(off.response_time_s[-1]),
        response_on_s=r_on,
        run_fraction=phi,
        output_commit_delay_s=delta,
        cpu_utilization_off=x_off * cpu / c,
        flags=flags,
    )


def cpu_for_utilization(cpu_utilization, n_clients, think_time_s, vcpus, external_delay_s=0.0, io_demand_s=0.0):
    """Guest vCPU demand per operation that puts the FT-off vCPU utilization at ``cpu_utilization``.

    Parameters as in :func:`closed_loop` (scalars; cached). Exchanges do not matter without FT.

    Parameters
    ----------
    cpu_utilization : float
        FT-off vCPU utilization, in (0, 1), below ``n_clients / vcpus``.
    n_clients : int
        Closed population, >= 1.
    think_time_s : float
        Client think time, s, >= 0.
    vcpus : int
        vCPUs of the VM.
    external_delay_s, io_demand_s : float
        Seconds per operation outside the vCPUs (delay) and at the disk, >= 0; with the think time at
        least one > 0.

    Returns
    -------
    float
        vCPU seconds per operation.

    References
    ----------
    .. [1] M. Reiser, S. S. Lavenberg, "Mean-Value Analysis of Closed Multichain Queuing Networks",
       J. ACM 27(2), 1980 (exact MVA, :func:`vcperf.queueing.mva`).

    Examples
    --------
    >>> from vcperf import ft
    >>> round(ft.cpu_for_utilization(0.6, 64, 0.4, 4) * 1e3, 2)  # ms of vCPU per operation
    15.8
    """
    u = v.scalar("cpu_utilization", cpu_utilization, 0.0, 1.0, lo_open=True, hi_open=True)
    n = v.integer("n_clients", n_clients, 1, MAX_CLIENTS)
    z = v.scalar("think_time_s", think_time_s, 0.0, math.inf, hi_open=True)
    c = v.integer("vcpus", vcpus, 1, max(FT_MAX_VCPUS.values()))
    ext = v.scalar("external_delay_s", external_delay_s, 0.0, math.inf, hi_open=True)
    io = v.scalar("io_demand_s", io_demand_s, 0.0, math.inf, hi_open=True)
    if z + ext + io <= 0:
        raise ValueError("think_time_s + external_delay_s + io_demand_s must be in (0, inf) (otherwise the vCPUs "
                         "saturate whatever the demand); got 0")
    if u >= n / c:  # Little's law: at most one busy vCPU per client
        raise ValueError(f"cpu_utilization must be below n_clients / vcpus = {n}/{c} (at most one busy vCPU per "
                         f"client); got {u:g}")
    return _cpu_for_utilization(u, n, z, c, ext, io)


@functools.lru_cache(maxsize=64)
def _cpu_for_utilization(cpu_utilization, n_clients, think_time_s, vcpus, external_delay_s, io_demand_s):
    from scipy.optimize import brentq

    def util(cpu):
        x = ft_off_throughput_per_s(n_clients, cpu, vcpus, external_delay_s, think_time_s, io_demand_s)[-1]
        return float(x) * cpu / vcpus - cpu_utilization

    hi = vcpus * (think_time_s + external_delay_s + io_demand_s + 1e-3) / n_clients * 10.0 + 1.0
    lo = 1e-9 if util(1e-9) < 0 else 1e-300  # a utilization target below what 1 ns of vCPU gives
    reach = (f"cpu_utilization={cpu_utilization:g} is out of reach of n_clients={n_clients} on vcpus={vcpus} with "
             f"think_time_s={think_time_s:g}, external_delay_s={external_delay_s:g} and io_demand_s={io_demand_s:g}")
    if util(hi) <= 0:
        raise ValueError(reach)
    if util(lo) >= 0:  # even the smallest float demand loads the vCPUs more than the target
        raise ValueError(f"{reach}: even {lo:g} s of vCPU per operation gives more")
    try:
        return brentq(util, lo, hi, xtol=1e-15, rtol=1e-15)
    except (RuntimeError, ValueError) as err:  # not expected after the checks above: say whose inputs
        raise ValueError(f"{reach} ({err})") from None


def closed_loop_at_utilization(n_clients, think_time_s, exchanges_per_op, cpu_utilization, *,
                               checkpoint_interval_s, vcpus=1, external_delay_s=0.0, **kw) -> ClosedLoopResult:
    """:func:`closed_loop` with the vCPU demand set so the FT-off vCPU utilization is ``cpu_utilization``.

    The seed's real-life workloads run at 60 % vCPU without FT (``testbed().cpu_utilization``); this
    sweeps latency sensitivity (``exchanges_per_op``) at that operating point.

    Parameters
    ----------
    n_clients : int
        >= 1.
    think_time_s, external_delay_s : float
        >= 0; at least one > 0 (otherwise the vCPUs saturate whatever the demand).
    exchanges_per_op : float
        >= 0.
    cpu_utilization : float
        FT-off vCPU utilization, in (0, 1).
    checkpoint_interval_s : float
        > 0.
    vcpus : int
        1..the release's SMP-FT limit.
    **kw
        Passed to :func:`closed_loop`.

    Returns
    -------
    ClosedLoopResult

    Examples
    --------
    >>> from vcperf import ft
    >>> r = ft.closed_loop_at_utilization(64, 0.4, 7, 0.6, checkpoint_interval_s=5e-3, vcpus=4)
    >>> round(r.cpu_utilization_off, 3), round(r.throughput_ratio, 3)
    (0.6, 0.959)
    """
    n = v.integer("n_clients", n_clients, 1, MAX_CLIENTS)
    z = v.scalar("think_time_s", think_time_s, 0.0, math.inf, hi_open=True)
    k = v.scalar("exchanges_per_op", exchanges_per_op, 0.0, math.inf, hi_open=True)
    u = v.scalar("cpu_utilization", cpu_utilization, 0.0, 1.0, lo_open=True, hi_open=True)
    c = check_ft_vcpus(vcpus, kw.get("release", DEFAULT_RELEASE))
    ext = v.scalar("external_delay_s", external_delay_s, 0.0, math.inf, hi_open=True)
    if z + ext <= 0:
        raise ValueError("think_time_s + external_delay_s must be in (0, inf); got 0")
    cpu = cpu_for_utilization(u, n, z, c, ext)
    return closed_loop(n, z, cpu, checkpoint_interval_s=checkpoint_interval_s, vcpus=c, exchanges_per_op=k,
                       external_delay_s=ext, **kw)


def iometer(message_bytes, write_fraction=0.0, *, lun_disks, vcpus, checkpoint_interval_s,
            outstanding_ios=IOMETER_OUTSTANDING_IOS, ft_link_bps=DEFAULT_FT_LINK_BPS, **link_kw) -> ClosedLoopResult:
    """IOMeter random I/O (Figure 6) as a closed loop of ``outstanding_ios``, FT off and on.

    Each I/O needs :data:`IO_CPU_S` of guest vCPU (run only while not stunned), the disk (random-I/O
    time over the LUN's disks plus the transfer at :data:`DISK_INTERFACE_BPS`), and no client network
    exchange. Under FT a read dirties its buffer (DMA from disk; the buffers are reused, so reads ship
    at most ``outstanding_ios x message_bytes`` per epoch); a write is mirrored to the secondary's disk
    over the FT link (seed "Storage"): its data ships on the link and it completes only after the
    FT-link round trip and its own transfer. So large writes and write mixes lose most, reads least.

    Parameters
    ----------
    message_bytes : float
        I/O size (Figure 6: 2 KB and 64 KB), > 0.
    write_fraction : float
        Share of writes, in [0, 1].
    lun_disks : float
        Disks of the LUN (Appendix A: 6), >= 1.
    vcpus : int
        vCPUs of the VM (Appendix B: 4).
    checkpoint_interval_s, ft_link_bps, **link_kw
        As in :func:`vcperf.ft.checkpoint_cycle` (``ft_ack_rtt_s``, ``ft_link_loss``, ``n_ft_vms``).
    outstanding_ios : int
        Queue depth, >= 1.

    Returns
    -------
    ClosedLoopResult

    Examples
    --------
    >>> from vcperf import ft
    >>> reads = ft.iometer(64e3, 0.0, lun_disks=6, vcpus=4, checkpoint_interval_s=5e-3)
    >>> writes = ft.iometer(64e3, 1.0, lun_disks=6, vcpus=4, checkpoint_interval_s=5e-3)
    >>> round(reads.throughput_ratio, 3), round(writes.throughput_ratio, 3)
    (1.0, 0.913)
    """
    size = v.scalar("message_bytes", message_bytes, 0.0, v.MAX_BYTES, lo_open=True)
    w = v.scalar("write_fraction", write_fraction, 0.0, 1.0)
    disks = v.scalar("lun_disks", lun_disks, 1.0, math.inf, hi_open=True)
    n = v.integer("outstanding_ios", outstanding_ios, 1, 4096)
    io_s = DISK_RANDOM_IO_S / disks + 8.0 * size / DISK_INTERFACE_BPS
    # Reads reuse the outstanding buffers (capped per epoch); mirrored writes all cross the link.
    wss = n * size if w == 0 else math.inf
    return closed_loop(n, 0.0, IO_CPU_S, vcpus=vcpus, io_demand_s=io_s, dirty_bytes_per_op=(1.0 - w) * size,
                       mirrored_write_bytes_per_op=w * size, working_set_bytes=wss,
                       checkpoint_interval_s=checkpoint_interval_s, ft_link_bps=ft_link_bps, **link_kw)
