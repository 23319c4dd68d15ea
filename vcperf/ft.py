"""vSphere 6 Fault Tolerance (fast checkpointing): ``002_1123405df89c1006.txt``.

The mechanism (seed, "vSphere FT Architecture" and "Transparent Failover"; VMware KB 406486 on FT
network latency): the primary runs for one *epoch* (the checkpoint interval ``E``); then it is
**stunned** while the pages it dirtied during the epoch (plus vCPU and device state) are shipped
over the FT logging link to the secondary, and resumes when the secondary acknowledges. Network
output produced during the epoch is **held** until that acknowledgement (output commit). Hence,
per epoch of run time ``E``::

    dirty bytes       B = min(d E, working_set)          d: bytes dirtied per second of run time
    stun              S = stun_fixed + 8 B / (L eff) + ack_rtt
    run fraction      phi = E / (E + S)                  CPU-bound work slows by 1 / phi
    output delay      Delta = E / 2 + S                  a packet waits for the rest of its epoch
                                                          and for the checkpoint + acknowledgement
    FT logging rate   8 B / eff / (E + S)  <=  L           (bits on the wire, never above the link)

``L`` is the FT logging link rate and ``eff`` the TCP/Ethernet payload efficiency of that link.
Received network data dirties guest memory several times (the packet is logged, DMA'd into the
vNIC receive ring and copied into the socket/application buffer), so receive-heavy loads load the
FT link and transmit-heavy loads do not (Figures 3-4). Every workload of the study follows from
these few lines plus a closed queueing network (:func:`vcperf.queueing.mva`) for the closed-loop
benchmarks: each client exchange waits ``Delta`` (a delay station) and the VM-side service is
slowed by ``1 / phi``; since the stun pauses *all* vCPUs while the shared link ships every
concurrent operation's memory, the stun is a serial resource, which is why heavier load loses more.

Calibrated parameters (:func:`calibrate`, cached): the checkpoint interval (Figure 5), and for the
vCenter appliance its dirty rate, exchange rate and per-operation vCPU demand (Figures 12-14, four
numbers; leave-one-out error in :func:`loo_errors`). Assumed physical defaults (not printed in the
seed) are module constants with their reasoning: FT link 10 GbE, its acknowledgement round trip,
the unprotected TCP_RR round trip, bytes logged per received byte. Paper numbers are
read from ``data/ft2016`` only to calibrate and to compare (:func:`fidelity_rows`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import network, queueing

STUDY = "ft2016"
SEED = "002_1123405df89c1006.txt"

#: FT logging link rate: VMware requires/recommends a dedicated 10 GbE FT logging network for
#: multi-vCPU FT in vSphere 6 (Performance Best Practices for vSphere 6.0, reference [1] of the seed).
DEFAULT_FT_LINK_BPS = 10e9
#: Payload share of the FT link's wire rate for bulk TCP: 1448 B of payload (1500 B MTU minus
#: 20 B IPv4, 20 B TCP and 12 B timestamp option) per 1538 B on the wire (+ 14 B Ethernet header,
#: 4 B FCS, 8 B preamble, 12 B inter-frame gap).
ETHERNET_TCP_EFFICIENCY = 1448.0 / 1538.0
#: Round trip of the secondary's acknowledgement over the dedicated 10 GbE FT link (assumed: the
#: seed does not print it; tens of microseconds host-to-host through one switch).
DEFAULT_FT_ACK_RTT_S = 50e-6
#: Fixed part of the per-epoch stun besides shipping and the acknowledgement (vCPU/device state
#: capture). Not identifiable from the seed's numbers, so 0 by default; a what-if knob.
DEFAULT_STUN_FIXED_S = 0.0
#: Netperf TCP_RR round trip of the unprotected VM (1-byte request and response) over the 10 GbE
#: VM network through the ESXi virtual switch (assumed: the seed does not print Figure 5's bars; a
#: few tens of microseconds is typical). Figure 5's stated ratio is relative to it.
DEFAULT_VM_ROUND_TRIP_S = 50e-6
#: Bytes put on the FT link per received byte: the received packet is logged to the secondary,
#: DMA'd into the guest's vNIC receive ring, and copied into the socket/application buffer; the two
#: guest writes dirty memory that the next checkpoint ships.
DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE = 3.0
#: Swingbench order entry runs each transaction as one PL/SQL stored-procedure call: one client
#: exchange per transaction (assumed from Swingbench's SOE PL/SQL design; not printed).
SWINGBENCH_EXCHANGES_PER_TRANSACTION = 1.0
#: A DVD Store 2 order is a login, ``n_searches`` browse queries (read from data) and a purchase,
#: one stored-procedure call each: the two calls besides the searches.
DVDSTORE_FIXED_EXCHANGES_PER_ORDER = 2.0
#: IOMeter outstanding I/Os (assumed: the seed does not print the queue depth; the FT ratio hardly
#: depends on it because the disks, not the stunned vCPUs, are the bottleneck).
IOMETER_OUTSTANDING_IOS = 16
#: Random-I/O service time of one spindle (seek + rotation of a 10k/15k rpm disk, assumed), before
#: dividing by the LUN's disks read from ``testbed.csv``.
DISK_RANDOM_IO_S = 6e-3
#: Guest vCPU time to issue and complete one I/O (assumed, order of tens of microseconds).
IO_CPU_S = 20e-6


# --------------------------------------------------------------------------------------------
# Data access (paper numbers are read here, only to calibrate and to compare)
# --------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _value(table: str, quantity: str, **conditions) -> float:
    """One paper number in SI units."""
    from vcperf import data

    df = data.load(f"{STUDY}/{table}")
    mask = (df["quantity"] == quantity) & (df["unit"] != "text")
    for col, want in conditions.items():
        mask &= df[col] == str(want)
    hits = df[mask]
    if len(hits) != 1:
        raise ValueError(f"{STUDY}/{table}: {len(hits)} numeric rows match {quantity!r}, {conditions}")
    return float(data.to_si(hits.iloc[0]["value"], hits.iloc[0]["unit"]))


@functools.lru_cache(maxsize=1)
def netperf_setup() -> dict:
    """Netperf configuration of Appendix B: ``{"streams", "socket_bytes", "message_bytes"}``."""
    return {
        "streams": _value("text_workload_details", "parallel_clients", workload="netperf"),
        "socket_bytes": _value("text_workload_details", "socket_size", workload="netperf"),
        "message_bytes": _value("text_workload_details", "message_size", workload="netperf"),
    }


@functools.lru_cache(maxsize=1)
def netperf_uplinks_gbps() -> tuple:
    """VM network uplinks of the netperf experiments in Gbps (``testbed.csv``: Figures 3 and 4)."""
    from vcperf import data

    df = data.load(f"{STUDY}/testbed")
    rows = df[(df["quantity"] == "uplink_speed") & (df["component"] == "vm_network")]
    return tuple(sorted(float(data.to_si(r["value"], r["unit"])) / 1e9 for _, r in rows.iterrows()))


# --------------------------------------------------------------------------------------------
# The checkpoint cycle
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CheckpointCycle:
    """One FT epoch (all fields broadcast arrays).

    Attributes
    ----------
    dirty_bytes_per_epoch : ndarray
        Bytes shipped per checkpoint.
    transfer_s : ndarray
        Time to ship them over the FT link.
    stun_s : ndarray
        Time the primary is paused per epoch (fixed part + transfer + acknowledgement).
    epoch_wall_s : ndarray
        Run time plus stun, seconds.
    run_fraction : ndarray
        ``E / (E + S)``: share of wall time the primary's vCPUs run.
    output_commit_delay_s : ndarray
        Mean time a network packet is held: ``E / 2 + S``.
    logging_bandwidth_bps : ndarray
        Mean bit rate on the FT logging link (wire bits, headers included), <= link rate.
    """

    dirty_bytes_per_epoch: np.ndarray
    transfer_s: np.ndarray
    stun_s: np.ndarray
    epoch_wall_s: np.ndarray
    run_fraction: np.ndarray
    output_commit_delay_s: np.ndarray
    logging_bandwidth_bps: np.ndarray


def _interval(checkpoint_interval_s):
    if checkpoint_interval_s is None:
        return calibrate().checkpoint_interval_s
    return v.positive("checkpoint_interval_s", checkpoint_interval_s)


def checkpoint_cycle(
    dirty_rate_bytes_per_s,
    checkpoint_interval_s=None,
    ft_link_bps=DEFAULT_FT_LINK_BPS,
    *,
    ft_ack_rtt_s=DEFAULT_FT_ACK_RTT_S,
    stun_fixed_s=DEFAULT_STUN_FIXED_S,
    working_set_bytes=math.inf,
) -> CheckpointCycle:
    """Epoch, stun, run fraction, output-commit delay and FT traffic of a checkpointed VM.

    Seed ``002_1123405df89c1006.txt``, "Runtime State" and "Transparent Failover": memory and
    execution state are shipped continuously and network output is held until the secondary
    acknowledges. See the module docstring for the equations.

    Parameters
    ----------
    dirty_rate_bytes_per_s : float or array_like
        Bytes the guest dirties per second of run time (received network data counts with
        :data:`DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE`), >= 0.
    checkpoint_interval_s : float or array_like, optional
        Run time between checkpoints ``E`` (> 0). Default: the value calibrated to Figure 5
        (:func:`calibrate`); vSphere adapts it dynamically (``ftcpt.cptIntervalUS``, KB 406486).
    ft_link_bps : float or array_like
        FT logging link rate (default 10 GbE, the vSphere 6 recommendation).
    ft_ack_rtt_s : float or array_like
        Acknowledgement round trip over the FT link (default 50 us, assumed).
    stun_fixed_s : float or array_like
        Fixed stun per epoch besides shipping (default 0).
    working_set_bytes : float or array_like
        Pages rewritten within one epoch ship once: the dirty bytes per epoch are capped here
        (default: no cap). Rounding to whole 4 KiB pages is ignored (sub-percent at these rates).

    Returns
    -------
    CheckpointCycle
    """
    d = v.nonneg("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s)
    e = _interval(checkpoint_interval_s)
    link = v.positive("ft_link_bps", ft_link_bps)
    rtt = v.nonneg("ft_ack_rtt_s", ft_ack_rtt_s)
    fixed = v.nonneg("stun_fixed_s", stun_fixed_s)
    wss = v.check_range("working_set_bytes", working_set_bytes, 0.0, math.inf, lo_open=True)
    b = np.minimum(d * e, wss)
    transfer = 8.0 * b / (link * ETHERNET_TCP_EFFICIENCY)
    stun = fixed + transfer + rtt
    wall = e + stun
    return CheckpointCycle(
        dirty_bytes_per_epoch=b,
        transfer_s=transfer,
        stun_s=stun,
        epoch_wall_s=wall,
        run_fraction=e / wall,
        output_commit_delay_s=e / 2.0 + stun,
        logging_bandwidth_bps=8.0 * b / ETHERNET_TCP_EFFICIENCY / wall,
    )


def ft_logging_bandwidth_bps(
    receive_rate_bps,
    dirty_rate_bytes_per_s=0.0,
    checkpoint_interval_s=None,
    ft_link_bps=DEFAULT_FT_LINK_BPS,
    *,
    logged_bytes_per_received_byte=DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE,
    **cycle_kw,
):
    """Mean FT logging traffic (bit/s on the wire) of a VM that receives and dirties memory.

    Figures 3-4 of ``002_1123405df89c1006.txt``: received data must reach the secondary (logged
    packet + dirtied receive buffers), so receive-heavy loads load the FT link; transmitted data is
    read from guest memory and dirties nothing, so transmit-heavy loads do not.

    Parameters
    ----------
    receive_rate_bps : float or array_like
        Network data the guest receives per second of run time (bit/s), >= 0.
    dirty_rate_bytes_per_s : float or array_like
        Other memory dirtied per second of run time (bytes/s), >= 0.
    checkpoint_interval_s, ft_link_bps, **cycle_kw
        As in :func:`checkpoint_cycle`.
    logged_bytes_per_received_byte : float
        FT link bytes per received byte (default 3: logged packet, receive ring, socket buffer).

    Returns
    -------
    ndarray
        Bit rate on the FT link; always below ``ft_link_bps`` (the primary is stunned while it ships).
    """
    r = v.nonneg("receive_rate_bps", receive_rate_bps)
    d = v.nonneg("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s)
    c = v.nonneg("logged_bytes_per_received_byte", logged_bytes_per_received_byte)
    cyc = checkpoint_cycle(d + c * r / 8.0, checkpoint_interval_s, ft_link_bps, **cycle_kw)
    return cyc.logging_bandwidth_bps


def output_commit_delay_s(dirty_rate_bytes_per_s=0.0, checkpoint_interval_s=None,
                          ft_link_bps=DEFAULT_FT_LINK_BPS, **cycle_kw):
    """Mean extra latency of one outbound packet under FT: ``E / 2 + stun`` (Figure 5).

    The packet waits for the rest of its epoch (``E / 2`` on average), the checkpoint transfer and
    the secondary's acknowledgement. Parameters as in :func:`checkpoint_cycle`.
    """
    return checkpoint_cycle(dirty_rate_bytes_per_s, checkpoint_interval_s, ft_link_bps,
                            **cycle_kw).output_commit_delay_s


# --------------------------------------------------------------------------------------------
# Netperf (Figures 3-5)
# --------------------------------------------------------------------------------------------


def netperf_throughput_bps(
    uplink_bps,
    direction: str,
    ft_enabled: bool = True,
    checkpoint_interval_s=None,
    ft_link_bps=DEFAULT_FT_LINK_BPS,
    *,
    guest_dirty_rate_bytes_per_s=0.0,
    logged_bytes_per_received_byte=DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE,
    vm_round_trip_s=DEFAULT_VM_ROUND_TRIP_S,
    streams=None,
    socket_bytes=None,
    **cycle_kw,
):
    """Unidirectional netperf TCP throughput (bit/s) of the VM, FT on or off (Figures 3-4).

    While running, the VM moves data at the TCP rate of its uplink
    (:func:`vcperf.network.tcp_throughput_bps` with ``streams x socket_bytes`` of window over the
    round trip plus the output-commit delay); it is paused for the stun, so the wall-clock rate is
    that times the run fraction. Receiving dirties ``logged_bytes_per_received_byte`` bytes of
    checkpoint per byte, which lengthens the stun: the receive rate under FT is bounded by about
    ``L eff / logged_bytes_per_received_byte``. Transmitting dirties nothing.

    Parameters
    ----------
    uplink_bps : float or array_like
        VM network uplink rate (Figure 3: 1 Gbps, Figure 4: 10 Gbps), > 0.
    direction : {"receive", "transmit"}
        Traffic direction seen from the VM.
    ft_enabled : bool
        FT protection on or off.
    checkpoint_interval_s, ft_link_bps, **cycle_kw
        As in :func:`checkpoint_cycle`.
    guest_dirty_rate_bytes_per_s : float
        Memory the guest dirties besides received data (default 0).
    logged_bytes_per_received_byte : float
        See :func:`ft_logging_bandwidth_bps`.
    vm_round_trip_s : float
        Base round trip VM <-> client (default 50 us, assumed).
    streams, socket_bytes : float, optional
        Parallel streams and socket buffer; default: Appendix B's values (:func:`netperf_setup`).
    """
    u = v.positive("uplink_bps", uplink_bps)
    setup = netperf_setup() if streams is None or socket_bytes is None else {}
    streams = setup["streams"] if streams is None else streams
    socket_bytes = setup["socket_bytes"] if socket_bytes is None else socket_bytes
    v.choice("direction", direction, ("receive", "transmit"))
    rt = v.nonneg("vm_round_trip_s", vm_round_trip_s)
    window = v.positive("streams", streams) * v.positive("socket_bytes", socket_bytes)
    g = v.nonneg("guest_dirty_rate_bytes_per_s", guest_dirty_rate_bytes_per_s)
    c = v.nonneg("logged_bytes_per_received_byte", logged_bytes_per_received_byte)
    if not ft_enabled:
        return network.tcp_throughput_bps(u, rt, 0.0, rwnd_bytes=window)
    rx = u if direction == "receive" else 0.0
    cyc = checkpoint_cycle(g + c * rx / 8.0, checkpoint_interval_s, ft_link_bps, **cycle_kw)
    running = network.tcp_throughput_bps(u, rt + cyc.output_commit_delay_s, 0.0, rwnd_bytes=window)
    return running * cyc.run_fraction


@dataclass(frozen=True)
class TcpRrResult:
    """Netperf TCP_RR (Figure 5): round-trip latency and transaction rate, FT off and on."""

    latency_off_s: float
    latency_on_s: float
    rate_off_per_s: float
    rate_on_per_s: float

    @property
    def latency_ratio(self) -> float:
        """FT-on latency over FT-off latency."""
        return self.latency_on_s / self.latency_off_s

    @property
    def rate_ratio(self) -> float:
        """FT-off transaction rate over FT-on rate."""
        return self.rate_off_per_s / self.rate_on_per_s


def tcp_rr(checkpoint_interval_s=None, vm_round_trip_s=DEFAULT_VM_ROUND_TRIP_S,
           ft_link_bps=DEFAULT_FT_LINK_BPS, *, guest_dirty_rate_bytes_per_s=0.0, **cycle_kw) -> TcpRrResult:
    """Netperf TCP_RR under FT: one client, one outstanding 1-byte request, no think time.

    A closed network of one customer (:func:`vcperf.queueing.mva`): the base round trip is a delay
    station; FT adds the output-commit delay of the response as a second delay station. The
    transaction rate is the inverse of the latency, so it falls by the same factor (Figure 5).

    Parameters
    ----------
    checkpoint_interval_s, ft_link_bps, **cycle_kw
        As in :func:`checkpoint_cycle`.
    vm_round_trip_s : float
        Unprotected TCP_RR round trip (default 50 us, assumed), > 0.
    guest_dirty_rate_bytes_per_s : float
        Memory the (almost idle) guest dirties per second of run time (default 0).
    """
    rt = float(v.positive("vm_round_trip_s", vm_round_trip_s))
    delta = float(output_commit_delay_s(guest_dirty_rate_bytes_per_s, checkpoint_interval_s, ft_link_bps,
                                        **cycle_kw))
    demands = np.array([[rt, 0.0], [rt, delta]])
    res = queueing.mva(demands, 1, 0.0, delay_stations=[True, True])
    x_off, x_on = res.throughput_per_s[:, 0]
    return TcpRrResult(float(res.response_time_s[0, 0]), float(res.response_time_s[1, 0]),
                       float(x_off), float(x_on))


# --------------------------------------------------------------------------------------------
# Closed-loop workloads (IOMeter, Swingbench, DVD Store, brokerage, vCenter)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClosedLoopResult:
    """A closed-loop workload with FT off and on (scalars; per second / seconds).

    ``n_clients = throughput * (response + think)`` holds for both (Little's law).
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

    @property
    def throughput_ratio(self) -> float:
        """FT-on over FT-off throughput (<= 1)."""
        return self.throughput_on_per_s / self.throughput_off_per_s

    @property
    def response_ratio(self) -> float:
        """FT-on over FT-off response time (>= 1)."""
        return self.response_on_s / self.response_off_s


def run_fraction_at(throughput_per_s, dirty_bytes_per_op, background_dirty_rate_bytes_per_s=0.0,
                    checkpoint_interval_s=None, ft_link_bps=DEFAULT_FT_LINK_BPS, *,
                    working_set_bytes=math.inf, ft_ack_rtt_s=DEFAULT_FT_ACK_RTT_S,
                    stun_fixed_s=DEFAULT_STUN_FIXED_S):
    """Run fraction of a VM completing ``throughput_per_s`` operations per wall second.

    The memory dirtied per second of *run* time is ``bg + X m / phi``; solving
    ``phi = E / (E + S)`` with :func:`checkpoint_cycle`'s stun gives, without a working-set cap,
    ``phi = E (1 - 8 X m / (L eff)) / (E + stun_fixed + ack_rtt + 8 bg E / (L eff))``: the VM is
    stunned exactly while the link ships the operations' memory. With the cap, the stun is fixed.
    Clipped at 1e-6 when the link cannot keep up (the primary is throttled).
    """
    x = v.nonneg("throughput_per_s", throughput_per_s)
    m = v.nonneg("dirty_bytes_per_op", dirty_bytes_per_op)
    bg = v.nonneg("background_dirty_rate_bytes_per_s", background_dirty_rate_bytes_per_s)
    e = _interval(checkpoint_interval_s)
    a = 8.0 / (v.positive("ft_link_bps", ft_link_bps) * ETHERNET_TCP_EFFICIENCY)
    fixed = v.nonneg("stun_fixed_s", stun_fixed_s) + v.nonneg("ft_ack_rtt_s", ft_ack_rtt_s)
    wss = v.check_range("working_set_bytes", working_set_bytes, 0.0, math.inf, lo_open=True)
    phi_free = e * (1.0 - x * m * a) / (e + fixed + bg * e * a)
    phi_cap = e / (e + fixed + wss * a)
    with np.errstate(divide="ignore", invalid="ignore"):
        capped = np.isfinite(wss) & ((bg + x * m / phi_cap) * e >= wss)
    return np.maximum(np.where(capped, phi_cap, phi_free), 1e-6)


def _demands(cpu_s, vcpus, host_s, exchanges, delta, phi, io_s):
    """Stations: vCPU queue (Seidmann), vCPU delay, external delay, output commits, I/O queue."""
    return np.stack(np.broadcast_arrays(
        cpu_s / vcpus / phi, cpu_s * (vcpus - 1) / vcpus / phi, host_s, exchanges * delta, io_s), axis=-1)


_DELAY = np.array([False, True, True, True, False])


def closed_loop(
    n_clients,
    think_time_s,
    cpu_demand_s,
    *,
    vcpus=1,
    external_delay_s=0.0,
    exchanges_per_op=0.0,
    io_demand_s=0.0,
    dirty_bytes_per_op=0.0,
    background_dirty_rate_bytes_per_s=0.0,
    checkpoint_interval_s=None,
    ft_link_bps=DEFAULT_FT_LINK_BPS,
    working_set_bytes=math.inf,
    ft_ack_rtt_s=DEFAULT_FT_ACK_RTT_S,
    stun_fixed_s=DEFAULT_STUN_FIXED_S,
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
    point ``X = MVA(stations(X))``, found by bisection (the right side decreases in ``X``).

    Parameters
    ----------
    n_clients : int
        Closed population, >= 1.
    think_time_s : float
        Client think time, >= 0.
    cpu_demand_s : float
        Guest vCPU seconds per operation, >= 0.
    vcpus : int
        vCPUs of the VM (1..128).
    external_delay_s, exchanges_per_op, io_demand_s, dirty_bytes_per_op : float
        As above, each >= 0.
    background_dirty_rate_bytes_per_s : float
        Memory dirtied per second of run time independent of the operations, >= 0.
    checkpoint_interval_s, ft_link_bps, working_set_bytes, ft_ack_rtt_s, stun_fixed_s
        As in :func:`checkpoint_cycle`.

    Returns
    -------
    ClosedLoopResult
    """
    n = v.integer("n_clients", n_clients, 1, queueing.MAX_CUSTOMERS)
    z = float(v.nonneg("think_time_s", think_time_s))
    cpu = float(v.nonneg("cpu_demand_s", cpu_demand_s))
    c = v.integer("vcpus", vcpus, 1, 128)
    ext = float(v.nonneg("external_delay_s", external_delay_s))
    k = float(v.nonneg("exchanges_per_op", exchanges_per_op))
    io = float(v.nonneg("io_demand_s", io_demand_s))
    m = float(v.nonneg("dirty_bytes_per_op", dirty_bytes_per_op))
    bg = float(v.nonneg("background_dirty_rate_bytes_per_s", background_dirty_rate_bytes_per_s))
    e = float(_interval(checkpoint_interval_s))
    cyc_kw = dict(ft_link_bps=ft_link_bps, working_set_bytes=working_set_bytes, ft_ack_rtt_s=ft_ack_rtt_s,
                  stun_fixed_s=stun_fixed_s)
    checkpoint_cycle(0.0, e, **cyc_kw)  # validates the link parameters before any work
    if cpu + ext + io + z <= 0:
        raise ValueError("cpu_demand_s + external_delay_s + io_demand_s + think_time_s must be in "
                         "(0, inf); got 0")

    off = queueing.mva(_demands(cpu, c, ext, 0.0, 0.0, 1.0, io), n, z, delay_stations=_DELAY)
    x_off = float(off.throughput_per_s[-1])

    def solve(x):
        phi = run_fraction_at(x, m, bg, e, **cyc_kw)
        delta = checkpoint_cycle(bg + x * m / phi, e, **cyc_kw).output_commit_delay_s
        res = queueing.mva(_demands(cpu, c, ext, k, delta, phi, io), n, z, delay_stations=_DELAY)
        return res.throughput_per_s[..., -1], res.response_time_s[..., -1], phi, delta

    # FT-on throughput: the fixed point X = MVA(stations(X)); MVA(stations(X)) decreases in X, so
    # bracket it on a grid of candidates (one batched MVA per round) and refine the bracket.
    lo, hi = 0.0, x_off
    for _ in range(4):
        grid = np.linspace(lo, hi, 33)
        ok = solve(grid)[0] >= grid
        i = int(np.flatnonzero(ok)[-1]) if ok.any() else 0
        lo, hi = grid[i], grid[min(i + 1, 32)]
    x_on, r_on, phi, delta = (float(a) for a in solve(lo))
    return ClosedLoopResult(
        n_clients=n,
        think_time_s=z,
        throughput_off_per_s=x_off,
        throughput_on_per_s=x_on,
        response_off_s=float(off.response_time_s[-1]),
        response_on_s=r_on,
        run_fraction=phi,
        output_commit_delay_s=delta,
        cpu_utilization_off=x_off * cpu / c,
    )


def activity_time_s(duration_off_s, dirty_rate_bytes_per_s, exchanges=0.0, checkpoint_interval_s=None,
                    ft_link_bps=DEFAULT_FT_LINK_BPS, **cycle_kw):
    """Duration under FT of one activity that takes ``duration_off_s`` without FT.

    The activity runs only while the VM is not stunned (``/ run_fraction``) and each of its
    ``exchanges`` client-visible network exchanges waits one output commit. Used for the kernel
    compile (Figure 2, no network), Web Client browsing (Figure 13) and vCenter restart (Figure 14).

    Parameters
    ----------
    duration_off_s : float or array_like
        Duration without FT, >= 0.
    dirty_rate_bytes_per_s : float or array_like
        Memory dirtied per second of run time, >= 0.
    exchanges : float or array_like
        Serial network exchanges, >= 0.
    checkpoint_interval_s, ft_link_bps, **cycle_kw
        As in :func:`checkpoint_cycle`.
    """
    t0 = v.nonneg("duration_off_s", duration_off_s)
    k = v.nonneg("exchanges", exchanges)
    cyc = checkpoint_cycle(dirty_rate_bytes_per_s, checkpoint_interval_s, ft_link_bps, **cycle_kw)
    return t0 / cyc.run_fraction + k * cyc.output_commit_delay_s


# --------------------------------------------------------------------------------------------
# Calibration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FtParams:
    """Calibrated parameters (each: unit, meaning, source table).

    Attributes
    ----------
    checkpoint_interval_s : float
        s; mean run time between checkpoints. Closed form from the TCP_RR latency ratio
        (``data/ft2016/figure05_netperf_latency``: ``latency_ft_on_over_off``).
    vcenter_dirty_rate_bytes_per_s : float
        bytes/s; memory the vCenter appliance dirties per second of activity (FT off). Fitted to
        ``figure12_vcenter_management_ops`` (Load A and B ratios), ``figure13_web_client_browsing``
        (FT-on latency) and ``figure14_vcenter_restart`` (restart ratio).
    vcenter_exchange_rate_per_s : float
        1/s; client-visible network exchanges (host calls, task polling, Web Client requests) per
        second of vCenter activity (FT off); each waits one output commit. Same fit.
    vcenter_cpu_demand_per_op_s : float
        vCPU-s per management operation. Same fit.
    """

    checkpoint_interval_s: float
    vcenter_dirty_rate_bytes_per_s: float
    vcenter_exchange_rate_per_s: float
    vcenter_cpu_demand_per_op_s: float


def _interval_from_latency_ratio(ratio, vm_round_trip_s=DEFAULT_VM_ROUND_TRIP_S):
    # Idle TCP_RR guest: ratio = 1 + (E/2 + stun_fixed + ack_rtt) / t0, solved for E.
    e = 2.0 * ((ratio - 1.0) * vm_round_trip_s - DEFAULT_STUN_FIXED_S - DEFAULT_FT_ACK_RTT_S)
    if e <= 0:
        raise ValueError(f"latency ratio {ratio:g} is too small for a positive checkpoint interval")
    return e


@functools.lru_cache(maxsize=1)
def vcenter_setup() -> dict:
    """vCenter facts read from data: vCPUs, the two loads' op rates (1/s), browse latency off (s)."""
    return {
        "vcpus": int(_value("text_vcenter_setup", "vcpus", source="body")),
        "load_a_per_s": _value("figure12_vcenter_management_ops", "load_operation_rate", load="A"),
        "load_b_per_s": _value("figure12_vcenter_management_ops", "load_operation_rate", load="B"),
        "browse_off_s": _value("figure13_web_client_browsing", "browse_latency_mean", ft="off"),
    }


def _vcenter_targets() -> dict:
    return {
        "ratio_a": _value("figure12_vcenter_management_ops", "throughput_ft_on_over_off", load="A"),
        "ratio_b": _value("figure12_vcenter_management_ops", "throughput_ft_on_over_off", load="B"),
        "browse_on_s": _value("figure13_web_client_browsing", "browse_latency_mean", ft="on"),
        "restart_ratio": _value("figure14_vcenter_restart", "restart_time_ft_on_over_off"),
    }


def _load_clients(rate_per_s, cpu_s, host_s, vcpus) -> int:
    """Smallest population whose FT-off throughput reaches ``rate_per_s`` (at most 1024)."""
    res = queueing.mva(_demands(cpu_s, vcpus, host_s, 0.0, 0.0, 1.0, 0.0), 1024, 0.0, delay_stations=_DELAY)
    hit = np.flatnonzero(res.throughput_per_s >= rate_per_s * (1 - 1e-9))
    if hit.size == 0:
        raise ValueError(f"rate_per_s must be below the FT-off capacity {res.throughput_per_s[-1]:g}/s; "
                         f"got {rate_per_s:g}")
    return int(hit[0]) + 1


def vcenter_predictions(dirty_rate_bytes_per_s, exchange_rate_per_s, cpu_demand_per_op_s,
                        checkpoint_interval_s=None, ft_link_bps=DEFAULT_FT_LINK_BPS) -> dict:
    """The four vCenter numbers of Figures 12-14 from the vCenter parameters.

    vCenter activity (FT off) dirties ``dirty_rate_bytes_per_s`` of memory and makes
    ``exchange_rate_per_s`` client-visible exchanges per second. Management operations (Figure 12):
    Load A is one client issuing operations back to back (the light load), so its FT-off rate
    fixes the operation time ``1 / rate_A``: ``cpu_demand_per_op_s`` on the appliance's vCPUs, the
    rest at the hosts (a delay). Load B is the smallest client count whose FT-off throughput reaches
    the heavy rate. Each operation dirties ``dirty_rate / rate_A`` bytes and makes
    ``exchange_rate / rate_A`` exchanges (:func:`closed_loop`). Browsing (Figure 13) and restart
    (Figure 14) are single activities of the same appliance (:func:`activity_time_s`) with the same
    dirty rate; browsing makes ``exchange_rate`` serial exchanges per second with the browser, while
    the restart's host traffic is bulk data *received* (its cost is in the dirty rate), so only the
    stun applies to it.

    Parameters
    ----------
    dirty_rate_bytes_per_s : float
        >= 0.
    exchange_rate_per_s : float
        >= 0.
    cpu_demand_per_op_s : float
        In (0, 1 / rate_A]; Load B must stay below the FT-off capacity ``vcpus / cpu``.
    checkpoint_interval_s, ft_link_bps
        As in :func:`checkpoint_cycle`.

    Returns
    -------
    dict
        ``ratio_a``, ``ratio_b`` (FT-on/off throughput), ``browse_on_s``, ``restart_ratio``, the
        workload details ``clients_a``, ``clients_b``, ``host_delay_s``, ``dirty_bytes_per_op``,
        ``exchanges_per_op`` and the two :class:`ClosedLoopResult` (``result_a``, ``result_b``).
    """
    mu = float(v.nonneg("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s))
    kappa = float(v.nonneg("exchange_rate_per_s", exchange_rate_per_s))
    cpu = float(v.positive("cpu_demand_per_op_s", cpu_demand_per_op_s))
    s = vcenter_setup()
    t_op = 1.0 / s["load_a_per_s"]
    if cpu > t_op:
        raise ValueError(f"cpu_demand_per_op_s must be in (0, {t_op:g}]; got {cpu:g}")
    common = dict(vcpus=s["vcpus"], external_delay_s=t_op - cpu, exchanges_per_op=kappa * t_op,
                  dirty_bytes_per_op=mu * t_op, checkpoint_interval_s=checkpoint_interval_s,
                  ft_link_bps=ft_link_bps)
    n_b = _load_clients(s["load_b_per_s"], cpu, t_op - cpu, s["vcpus"])
    a = closed_loop(1, 0.0, cpu, **common)
    b = closed_loop(n_b, 0.0, cpu, **common)
    browse = activity_time_s(s["browse_off_s"], mu, kappa * s["browse_off_s"], checkpoint_interval_s, ft_link_bps)
    restart = activity_time_s(1.0, mu, 0.0, checkpoint_interval_s, ft_link_bps)
    return {
        "ratio_a": a.throughput_ratio, "ratio_b": b.throughput_ratio,
        "browse_on_s": float(browse), "restart_ratio": float(restart),
        "clients_a": 1, "clients_b": n_b, "host_delay_s": t_op - cpu, "dirty_bytes_per_op": mu * t_op,
        "exchanges_per_op": kappa * t_op, "result_a": a, "result_b": b,
    }


def _fit_vcenter(interval_s, keys) -> tuple[float, float, float]:
    from scipy.optimize import least_squares

    t = _vcenter_targets()
    s = vcenter_setup()
    cpu_hi = min(1.0 / s["load_a_per_s"], s["vcpus"] / s["load_b_per_s"]) * 0.999

    def resid(p):
        pred = vcenter_predictions(p[0] * 1e6, p[1], p[2] * cpu_hi, interval_s)
        return [math.log(pred[k] / t[k]) for k in keys]

    best = None
    for frac0 in (0.3, 0.7):
        fit = least_squares(resid, [100.0, 20.0, frac0], bounds=([0.0, 0.0, 1e-3], [1e4, 1e4, 1.0]),
                            diff_step=1e-3)
        if best is None or fit.cost < best.cost:
            best = fit
    return float(best.x[0] * 1e6), float(best.x[1]), float(best.x[2] * cpu_hi)


VCENTER_KEYS = ("ratio_a", "ratio_b", "browse_on_s", "restart_ratio")


@functools.lru_cache(maxsize=1)
def calibrate() -> FtParams:
    """Fit the three parameters of :class:`FtParams` (deterministic; cached).

    1. ``checkpoint_interval_s`` in closed form from Figure 5's latency ratio (idle guest).
    2. ``vcenter_dirty_rate_bytes_per_s``, ``vcenter_exchange_rate_per_s`` and
       ``vcenter_cpu_demand_per_op_s`` by least squares on
       the log errors of the four vCenter numbers (:func:`vcenter_predictions`).
    """
    e = _interval_from_latency_ratio(_value("figure05_netperf_latency", "latency_ft_on_over_off"))
    mu, kappa, cpu = _fit_vcenter(e, VCENTER_KEYS)
    return FtParams(checkpoint_interval_s=e, vcenter_dirty_rate_bytes_per_s=mu, vcenter_exchange_rate_per_s=kappa,
                    vcenter_cpu_demand_per_op_s=cpu)


@functools.lru_cache(maxsize=1)
def loo_errors() -> dict:
    """Leave-one-out relative error of each vCenter number: refit the three vCenter parameters on
    the other three and predict the one left out. ``{key: rel_error}``."""
    p = calibrate()
    t = _vcenter_targets()
    out = {}
    for key in VCENTER_KEYS:
        mu, kappa, cpu = _fit_vcenter(p.checkpoint_interval_s, tuple(k for k in VCENTER_KEYS if k != key))
        pred = vcenter_predictions(mu, kappa, cpu, p.checkpoint_interval_s)[key]
        out[key] = (pred - t[key]) / abs(t[key])
    return out


# --------------------------------------------------------------------------------------------
# The real-life workloads (Figures 6-11)
# --------------------------------------------------------------------------------------------


def _cpu_for_utilization(target, n, z, vcpus, exchanges, ext=0.0, io=0.0):
    """Guest vCPU demand per operation that puts the FT-off vCPU utilization at ``target``."""
    from scipy.optimize import brentq

    def util(cpu):
        res = queueing.mva(_demands(cpu, vcpus, ext, exchanges, 0.0, 1.0, io), n, z, delay_stations=_DELAY)
        return float(res.throughput_per_s[-1]) * cpu / vcpus - target

    hi = vcpus * (z + ext + io + 1e-3) / n * 10.0 + 1.0
    return brentq(util, 1e-9, hi, xtol=1e-12)


def database_workload(name: str, dirty_bytes_per_op=0.0, checkpoint_interval_s=None,
                      ft_link_bps=DEFAULT_FT_LINK_BPS, *,
                      background_dirty_rate_bytes_per_s=0.0) -> ClosedLoopResult:
    """Swingbench (Figures 7-8) or DVD Store (Figures 9-10) as a closed loop, FT off and on.

    Users and think time come from Appendix B (``text_workload_details``: Swingbench users and the
    mean of its minimum and maximum transaction delay; DVD Store threads and think time), the largest
    vCPU configuration listed, and the vCPU demand per transaction is set so that the FT-off vCPU utilization is
    the 60 % the seed states for its real-life workloads (``text_general``). Each stored-procedure
    call is one client exchange that waits one output commit under FT. The databases' memory churn
    is not printed: ``dirty_bytes_per_op`` defaults to 0 (a what-if knob).

    Parameters
    ----------
    name : {"swingbench", "dvdstore"}
    dirty_bytes_per_op : float
        Memory dirtied per transaction, >= 0.
    checkpoint_interval_s, ft_link_bps
        As in :func:`checkpoint_cycle`.
    background_dirty_rate_bytes_per_s : float
        Memory dirtied per second of run time besides the transactions, >= 0.
    """
    v.choice("name", name, ("swingbench", "dvdstore"))
    v.nonneg("dirty_bytes_per_op", dirty_bytes_per_op)
    v.nonneg("background_dirty_rate_bytes_per_s", background_dirty_rate_bytes_per_s)
    if checkpoint_interval_s is not None:
        v.positive("checkpoint_interval_s", checkpoint_interval_s)
    v.positive("ft_link_bps", ft_link_bps)
    target = _value("text_general", "real_life_workload_cpu_utilization")
    if name == "swingbench":
        w = "swingbench_oracle11g"
        n = int(_value("text_workload_details", "users", workload=w))
        z = 0.5 * (_value("text_workload_details", "transaction_min_delay", workload=w)
                   + _value("text_workload_details", "transaction_max_delay", workload=w))
        k = SWINGBENCH_EXCHANGES_PER_TRANSACTION
    else:
        w = "dvdstore_sqlserver2012"
        n = int(_value("text_workload_details", "n_threads", workload=w))
        z = _value("text_workload_details", "think_time", workload=w)
        k = DVDSTORE_FIXED_EXCHANGES_PER_ORDER + _value("text_workload_details", "n_searches", workload=w)
    vcpus = workload_vcpus(w)
    cpu = _database_cpu(name, target, n, z, vcpus, k)
    return closed_loop(n, z, cpu, vcpus=vcpus, exchanges_per_op=k, dirty_bytes_per_op=dirty_bytes_per_op,
                       background_dirty_rate_bytes_per_s=background_dirty_rate_bytes_per_s,
                       checkpoint_interval_s=checkpoint_interval_s, ft_link_bps=ft_link_bps)


@functools.lru_cache(maxsize=8)
def _database_cpu(name, target, n, z, vcpus, k):
    return _cpu_for_utilization(target, n, z, vcpus, k)


@functools.lru_cache(maxsize=16)
def workload_vcpus(workload: str) -> int:
    """Largest vCPU count Appendix B lists for ``workload`` (``text_workload_details``)."""
    from vcperf import data

    df = data.load(f"{STUDY}/text_workload_details")
    vals = df[(df["quantity"] == "vm_vcpus") & (df["workload"] == workload)]["value"]
    if vals.empty:
        raise ValueError(f"workload must be one of {sorted(set(df['workload']) - {''})}; got {workload!r}")
    return int(vals.max())


def iometer(message_bytes, write_fraction=0.0, *, outstanding_ios=IOMETER_OUTSTANDING_IOS,
            checkpoint_interval_s=None, ft_link_bps=DEFAULT_FT_LINK_BPS) -> ClosedLoopResult:
    """IOMeter random I/O (Figure 6) as a closed loop of ``outstanding_ios``, FT off and on.

    Each I/O needs :data:`IO_CPU_S` of guest vCPU, the disk (random-I/O time over the LUN's disks,
    read from ``testbed.csv``, plus the transfer at 6 Gb/s SAS), and no client network exchange.
    Under FT a read dirties its buffer (DMA from disk), a write is mirrored to the secondary's disk
    over the FT link ("Storage" section of the seed); the buffers are reused, so the memory shipped
    per epoch is capped at ``outstanding_ios x message_bytes``. The stun pauses the vCPUs but not
    the disks, which is why the throughput hardly changes.

    Parameters
    ----------
    message_bytes : float
        I/O size (Figure 6: 2 KB and 64 KB), > 0.
    write_fraction : float
        Share of writes, in [0, 1].
    outstanding_ios : int
        Queue depth, >= 1.
    """
    size = float(v.positive("message_bytes", message_bytes))
    w = float(v.fraction("write_fraction", write_fraction, hi_open=False))
    n = v.integer("outstanding_ios", outstanding_ios, 1, 4096)
    disks = _value("testbed", "lun_disks", component="storage_array", raid="RAID 5")
    sas_bps = 6e9  # 6 Gb/s SAS back end of the array's disks (assumed interface rate)
    io_s = DISK_RANDOM_IO_S / disks + 8.0 * size / sas_bps
    # Reads reuse the outstanding buffers (capped per epoch); mirrored writes all cross the link.
    wss = n * size if w == 0 else math.inf
    return closed_loop(n, 0.0, IO_CPU_S, vcpus=workload_vcpus("iometer"), io_demand_s=io_s, dirty_bytes_per_op=size,
                       working_set_bytes=wss, checkpoint_interval_s=checkpoint_interval_s,
                       ft_link_bps=ft_link_bps)


def kernel_compile_overhead_fraction(dirty_rate_bytes_per_s=0.0, checkpoint_interval_s=None,
                                     ft_link_bps=DEFAULT_FT_LINK_BPS, **cycle_kw):
    """Relative increase of a CPU-bound job's run time under FT: ``1 / run_fraction - 1`` (Figure 2).

    The kernel compile generates no network traffic, so only the stun counts. The seed gives the
    increase in seconds (about 7 s) but not the FT-off compile time, so the model's fraction and
    that number together imply a baseline (:func:`implied_kernel_compile_baseline_s`).
    """
    cyc = checkpoint_cycle(dirty_rate_bytes_per_s, checkpoint_interval_s, ft_link_bps, **cycle_kw)
    return 1.0 / cyc.run_fraction - 1.0


def implied_kernel_compile_baseline_s(dirty_rate_bytes_per_s=0.0, **kw):
    """FT-off compile time for which the model's overhead equals the seed's stated increase."""
    return _value("figure02_kernel_compile", "compile_time_increase_ft") / kernel_compile_overhead_fraction(
        dirty_rate_bytes_per_s, **kw)


# --------------------------------------------------------------------------------------------
# Paper vs model
# --------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def model_values() -> dict:
    """Model value of every number of the seed this module predicts (SI), keyed by a short name."""
    p = calibrate()
    rr = tcp_rr()
    setup = netperf_setup()
    net = dict(streams=setup["streams"], socket_bytes=setup["socket_bytes"])
    vc = vcenter_predictions(p.vcenter_dirty_rate_bytes_per_s, p.vcenter_exchange_rate_per_s,
                             p.vcenter_cpu_demand_per_op_s)
    ups = netperf_uplinks_gbps()
    thr = {(g, d): float(netperf_throughput_bps(g * 1e9, d, True, **net))
           for g in ups for d in ("receive", "transmit")}
    return {
        "tcp_rr_latency_ratio": rr.latency_ratio,
        "tcp_rr_rate_ratio": rr.rate_ratio,
        "netperf_ft": thr,
        "netperf_off": {(g, d): float(netperf_throughput_bps(g * 1e9, d, False, **net))
                        for g in ups for d in ("receive", "transmit")},
        "iometer_2KB": iometer(2e3, 0.5).throughput_ratio,
        "iometer_64KB": iometer(64e3, 0.5).throughput_ratio,
        "swingbench": database_workload("swingbench"),
        "dvdstore": database_workload("dvdstore"),
        "vcenter": vc,
    }


def fidelity_rows() -> list:
    """Paper-vs-model rows (see :mod:`vcperf.fidelity`), one per number this module predicts."""
    from vcperf import data
    from vcperf.fidelity import FidelityRow

    m = model_values()
    vc = m["vcenter"]
    slow, fast = min(netperf_uplinks_gbps()), max(netperf_uplinks_gbps())

    def row(table, quantity, model, fitted, conditions="", unit="1", **select):
        df = data.load(f"{STUDY}/{table}")
        mask = (df["quantity"] == quantity) & (df["unit"] != "text")
        for col, want in select.items():
            mask &= df[col] == want
        r = df[mask].iloc[0]
        return FidelityRow(
            study=STUDY, source=f"{STUDY}/{table}", locator=df.attrs["provenance"]["locator"],
            quantity=quantity, conditions=conditions, unit=unit,
            paper_value=float(data.to_si(r["value"], r["unit"])), model_value=float(model), fitted=fitted,
            relation=r["relation"],
        )

    return [
        row("figure05_netperf_latency", "latency_ft_on_over_off", m["tcp_rr_latency_ratio"], True,
            "netperf TCP_RR, 1-byte request/response"),
        row("figure05_netperf_latency", "transaction_rate_ft_off_over_on", m["tcp_rr_rate_ratio"], True,
            "netperf TCP_RR (derived: 'throughput drops identically')"),
        row("figure04_netperf_throughput_10gbps", "throughput", m["netperf_ft"][(fast, "receive")], False,
            f"FT on, receive, {fast:g} Gbps VM network", "bit/s", direction="receive"),
        row("figure03_netperf_throughput_1gbps", "throughput",
            max(m["netperf_ft"][(slow, "receive")], m["netperf_ft"][(slow, "transmit")]), False,
            f"FT on, {slow:g} Gbps VM network, best direction", "bit/s", network_gbps=f"{slow:g}"),
        row("figure06_iometer_throughput", "throughput_ft_on_over_off", m["iometer_2KB"], False,
            "IOMeter 2KB, 50/50 read-write", message_size="2KB"),
        row("figure06_iometer_throughput", "throughput_ft_on_over_off", m["iometer_64KB"], False,
            "IOMeter 64KB, 50/50 read-write", message_size="64KB"),
        row("figure07_swingbench_throughput", "throughput_ft_on_over_off", m["swingbench"].throughput_ratio,
            False, f"Swingbench, {m['swingbench'].n_clients} users, "
                   f"{m['swingbench'].cpu_utilization_off:.0%} vCPU without FT"),
        row("figure12_vcenter_management_ops", "throughput_ft_on_over_off", vc["ratio_a"], True,
            f"Load A ({60 * vcenter_setup()['load_a_per_s']:.0f} ops/min), {vc['clients_a']} client", load="A"),
        row("figure12_vcenter_management_ops", "throughput_ft_on_over_off", vc["ratio_b"], True,
            f"Load B ({60 * vcenter_setup()['load_b_per_s']:.0f} ops/min), {vc['clients_b']} clients", load="B"),
        row("figure13_web_client_browsing", "browse_latency_mean", vc["browse_on_s"], True,
            f"FT on (FT off {vcenter_setup()['browse_off_s']:g} s is the input)", "s", ft="on"),
        row("figure14_vcenter_restart", "restart_time_ft_on_over_off", vc["restart_ratio"], True,
            "vCenter restart"),
    ]


def qualitative_checks():
    """The seed's statements without a usable number, each with the model's value and whether it holds.

    Returns a pandas DataFrame: ``locator, statement, model, holds``.
    """
    import pandas as pd

    m = model_values()
    thr = m["netperf_ft"]
    slow, fast = min(netperf_uplinks_gbps()), max(netperf_uplinks_gbps())
    log_rx = float(netperf_ft_logging_bps(fast * 1e9, "receive"))
    log_tx = float(netperf_ft_logging_bps(fast * 1e9, "transmit"))
    sb, ds = m["swingbench"], m["dvdstore"]
    base = implied_kernel_compile_baseline_s()
    added = _value("figure02_kernel_compile", "compile_time_increase_ft")
    reach = _value("figure04_netperf_throughput_10gbps", "throughput", direction="")
    records = [
        ("Figure 2", f"kernel compile: FT adds about {added:g} s (FT-off time not printed)",
         f"overhead {kernel_compile_overhead_fraction():.2%} -> implied FT-off compile time {base:.0f} s", True),
        ("Figures 3-4", "FT traffic high for receive, minimal for transmit",
         f"FT link {log_rx / 1e9:.2f} Gbps (receive) vs {log_tx / 1e9:.3f} Gbps (transmit)", log_rx > 10 * log_tx),
        ("Figure 4", f"FT-on throughput >= {reach / 1e9:g} Gbps on the {fast:g} Gbps network",
         f"receive {thr[(fast, 'receive')] / 1e9:.2f}, transmit {thr[(fast, 'transmit')] / 1e9:.2f} Gbps",
         min(thr[(fast, "receive")], thr[(fast, "transmit")]) >= reach),
        ("Figure 3", f"(if meant for both directions) >= {reach / 1e9:g} Gbps on the {slow:g} Gbps network",
         f"receive {thr[(slow, 'receive')] / 1e9:.2f}, transmit {thr[(slow, 'transmit')] / 1e9:.2f} Gbps",
         min(thr[(slow, "receive")], thr[(slow, "transmit")]) >= reach * 0.99),
        ("Figure 8", "Swingbench response time increases under FT",
         f"response ratio {sb.response_ratio:.3f}", sb.response_ratio > 1),
        ("Figure 9", "DVD Store throughput overhead under FT",
         f"throughput ratio {ds.throughput_ratio:.3f}", ds.throughput_ratio < 1),
        ("Figure 10", "DVD Store response time increases under FT",
         f"response ratio {ds.response_ratio:.3f}", ds.response_ratio > 1),
        ("Figure 12", "heavier vCenter load loses more throughput",
         f"Load A {m['vcenter']['ratio_a']:.2f} vs Load B {m['vcenter']['ratio_b']:.2f}",
         m["vcenter"]["ratio_b"] < m["vcenter"]["ratio_a"]),
    ]
    return pd.DataFrame(records, columns=["locator", "statement", "model", "holds"])


def netperf_ft_logging_bps(uplink_bps, direction: str, **kw):
    """FT logging traffic (bit/s) while netperf runs under FT (the reference traffic of Figures 3-4).

    The guest receives (or sends) at the uplink's TCP rate while running
    (:func:`netperf_throughput_bps`); received data is logged, sent data is not.

    Parameters
    ----------
    uplink_bps : float or array_like
        VM network uplink rate, > 0.
    direction : {"receive", "transmit"}
    **kw
        ``checkpoint_interval_s``, ``ft_link_bps``, ``logged_bytes_per_received_byte``.
    """
    u = v.positive("uplink_bps", uplink_bps)
    v.choice("direction", direction, ("receive", "transmit"))
    link = kw.get("ft_link_bps", DEFAULT_FT_LINK_BPS)
    e = kw.get("checkpoint_interval_s")
    c = kw.get("logged_bytes_per_received_byte", DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE)
    if direction == "transmit":
        return ft_logging_bandwidth_bps(np.zeros_like(u), 0.0, e, link, logged_bytes_per_received_byte=c)
    wall = netperf_throughput_bps(u, "receive", True, e, link, logged_bytes_per_received_byte=c)
    running = wall / checkpoint_cycle(c * u / 8.0, e, link).run_fraction
    return ft_logging_bandwidth_bps(running, 0.0, e, link, logged_bytes_per_received_byte=c)


def closed_loop_at_utilization(n_clients, think_time_s, exchanges_per_op, cpu_utilization=None, *,
                               vcpus=1, external_delay_s=0.0, **kw) -> ClosedLoopResult:
    """:func:`closed_loop` with the vCPU demand set so the FT-off vCPU utilization is ``cpu_utilization``.

    The seed's real-life workloads run at 60 % vCPU without FT (``text_general``); this sweeps
    latency sensitivity (``exchanges_per_op``) at that operating point.

    Parameters
    ----------
    n_clients : int
        >= 1.
    think_time_s, external_delay_s : float
        >= 0; at least one > 0 (otherwise the vCPUs saturate whatever the demand).
    exchanges_per_op : float
        >= 0.
    cpu_utilization : float, optional
        In (0, 1); default: the seed's 60 % (``text_general``).
    vcpus : int
        1..128.
    **kw
        Passed to :func:`closed_loop`.
    """
    n = v.integer("n_clients", n_clients, 1, queueing.MAX_CUSTOMERS)
    z = float(v.nonneg("think_time_s", think_time_s))
    k = float(v.nonneg("exchanges_per_op", exchanges_per_op))
    if cpu_utilization is None:
        cpu_utilization = _value("text_general", "real_life_workload_cpu_utilization")
    u = float(v.check_range("cpu_utilization", cpu_utilization, 0.0, 1.0, lo_open=True, hi_open=True))
    c = v.integer("vcpus", vcpus, 1, 128)
    ext = float(v.nonneg("external_delay_s", external_delay_s))
    if z + ext <= 0:
        raise ValueError("think_time_s + external_delay_s must be in (0, inf); got 0")
    cpu = _cpu_for_utilization(u, n, z, c, k, ext=ext)
    return closed_loop(n, z, cpu, vcpus=c, exchanges_per_op=k, external_delay_s=ext, **kw)
