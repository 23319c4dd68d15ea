"""The FT checkpoint cycle: stun, run fraction, output commit and FT logging traffic.

Seed ``002_1123405df89c1006.txt`` ("vSphere FT Architecture", "Runtime State", "Transparent
Failover"): the primary runs for one *epoch* (the checkpoint timer ``E``); then all its vCPUs are
**stunned** while the pages it dirtied during the epoch plus every vCPU's register/device state are
shipped over the FT logging link to the secondary, and it resumes when the secondary acknowledges.
Network output produced during the epoch is **held** until that acknowledgement (output commit).
Per epoch of run time ``E``::

    dirty bytes       B = min(d E, working_set) + n_vcpu s_vcpu       d: bytes dirtied per run second
    FT link rate      R = TCP goodput of what the other FT VMs leave of the link over (rtt, loss)
                          (vcperf.network.tcp_throughput_bps: window- and loss-bounded)
    stun              S = stun_fixed + 8 B / R + rtt                   ship, then the ack round trip
    checkpoint cycle  C = E + S                                        grows with rtt and 1 / bandwidth
    run fraction      phi = E / C                                      CPU-bound work slows by 1 / phi
    output delay      Delta = E / 2 + S                                a packet waits for the rest of
                                                                       its epoch and for the commit
    FT logging rate   8 B / eff / C  <=  R / eff                       (bits on the wire)

``eff`` is the TCP payload share of an Ethernet line rate (:func:`vcperf.network.payload_rate_bps`, the one
definition of payload on a wire).
Network I/O dirties guest memory in **both directions**: a received byte is logged to the secondary and
written into the vNIC receive ring and the socket buffer (:data:`DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE`);
a transmitted segment is read by the vNIC by DMA (zero copy), but the guest writes its headers, the TX
descriptor and the device writes the completion descriptor
(:data:`DEFAULT_DIRTY_BYTES_PER_TRANSMITTED_BYTE`): receive-heavy loads load the FT link, transmit-heavy
loads barely do (Figures 3-4).

The FT link is a :class:`vcperf.network.Link`-like triple (``ft_link_bps``, ``ft_ack_rtt_s``,
``ft_link_loss``): a metro-distance FT link (:func:`metro_rtt_s`) lengthens the acknowledgement and,
through the TCP window, slows the transfer. Several FT VMs on one logging NIC share it
work-conservingly: each VM's demand is the logging rate it would have alone on the link, the link is
divided by max-min water filling of those demands (:func:`max_min_shares_bps`), and a VM's
checkpoints ship at what the others' shares leave (``L - sum of the others' shares``, never less than
its own share): a VM gets the capacity the others leave idle, and when every VM wants
more than ``L / n`` each gets ``L / n``. :func:`share_ft_link` takes VMs of different demands;
``n_ft_vms`` of the single-VM functions means that many identical VMs. Pure functions of physical
inputs: the checkpoint timer is always an argument (the
study's calibrated value is ``vcperf.ft.calibrate().checkpoint_interval_s``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import network
from vcperf.ft.limits import (  # noqa: F401  (re-exported: the FT limits lived here)
    DEFAULT_RELEASE,
    FT_HOST_MAX_VCPUS,
    FT_HOST_MAX_VMS,
    FT_LOGGING_LINK_BPS,
    FT_MAX_VCPUS,
    check_ft_vcpus,
    check_vcpus,
    limit_flags,
)
from vcperf.network import DEFAULT_MSS_BYTES, payload_rate_bps, wire_rate_bps

#: FT logging link rate: VMware requires/recommends a dedicated 10 GbE FT logging network for
#: multi-vCPU FT in vSphere 6 (Performance Best Practices for vSphere 6.0, reference [1] of the seed).
DEFAULT_FT_LINK_BPS = 10e9
#: Round trip of the secondary's acknowledgement over the dedicated 10 GbE FT link through one switch
#: (assumed: the seed does not print it; tens of microseconds host to host).
DEFAULT_FT_ACK_RTT_S = 50e-6
#: Fixed part of the per-epoch stun besides shipping and the acknowledgement (vCPU rendezvous). Not
#: identifiable from the seed's numbers, so 0 by default; a what-if knob.
DEFAULT_STUN_FIXED_S = 0.0
#: Bytes put on the FT link per received byte: the received packet is logged to the secondary,
#: DMA'd into the guest's vNIC receive ring, and copied into the socket/application buffer; the two
#: guest writes dirty memory that the next checkpoint ships.
DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE = 3.0
#: Bytes of guest memory a transmitted MSS-sized segment dirties: the Ethernet/IP/TCP headers the guest
#: stack writes (54 B), a 16 B VMXNET3 TX descriptor and a 16 B TX completion descriptor; the payload
#: is read by DMA and dirties nothing (zero-copy transmit, TSO). Per transmitted payload byte.
DEFAULT_DIRTY_BYTES_PER_TRANSMITTED_BYTE = (54.0 + 16.0 + 16.0) / DEFAULT_MSS_BYTES
#: vCPU register, FPU/XSAVE, LAPIC and device state shipped per vCPU at every checkpoint (assumed, a
#: few KiB), so each added vCPU lengthens every stun.
VCPU_STATE_BYTES = 8192.0
#: Socket buffer of the FT logging connection (assumed 4 MiB, as the seed's netperf sockets): bounds
#: the transfer rate to window / RTT on a metro-distance FT link.
FT_SOCKET_BYTES = 4.0 * 2**20
#: One-way propagation speed in optical fibre (about 2/3 c), m/s.
FIBRE_SPEED_M_PER_S = 2.0e8
#: Longest checkpoint interval the model takes (s). FT checkpoints continuously (the timer runs at
#: milliseconds); ten seconds between checkpoints is no longer continuous protection, and far longer
#: intervals make the epoch's dirty bytes overflow. A validation range, not a model parameter.
MAX_CHECKPOINT_INTERVAL_S = 10.0


def check_interval(checkpoint_interval_s):
    """``checkpoint_interval_s`` as a float array if in ``(0, MAX_CHECKPOINT_INTERVAL_S]``, else ValueError."""
    return v.check_range("checkpoint_interval_s", checkpoint_interval_s, 0.0, MAX_CHECKPOINT_INTERVAL_S,
                         lo_open=True)


def metro_rtt_s(distance_m, base_rtt_s=DEFAULT_FT_ACK_RTT_S):
    """FT-link round trip over ``distance_m`` of fibre between the hosts: ``base + 2 d / (2e8 m/s)``.

    Parameters
    ----------
    distance_m : float or array_like
        One-way fibre distance, >= 0 (a metro FT link: 1-100 km).
    base_rtt_s : float
        Round trip through the switches and host stacks at zero distance (default 50 us).

    Examples
    --------
    >>> from vcperf import ft
    >>> round(float(ft.metro_rtt_s(100e3)) * 1e3, 2)  # 100 km: ms
    1.05
    """
    d = v.nonneg("distance_m", distance_m)
    base = v.nonneg("base_rtt_s", base_rtt_s)
    v.broadcast(distance_m=d, base_rtt_s=base)
    return base + 2.0 * d / FIBRE_SPEED_M_PER_S


def ft_link_goodput_bps(ft_link_bps=DEFAULT_FT_LINK_BPS, ft_ack_rtt_s=DEFAULT_FT_ACK_RTT_S, ft_link_loss=0.0,
                        n_ft_vms=1):
    """TCP goodput (payload bit/s) one FT VM gets on its logging link.

    The link's fair share ``ft_link_bps / n_ft_vms`` at the TCP payload share (what each VM gets while
    all ``n_ft_vms`` ship at once: the floor of the work-conserving share that :func:`checkpoint_cycle`
    and :func:`share_ft_link` give a VM), bounded by the FT connection's window over the round trip and
    by loss (:func:`vcperf.network.tcp_throughput_bps`).

    Parameters
    ----------
    ft_link_bps : float or array_like
        FT logging link rate, bit/s, > 0 (default 10 GbE).
    ft_ack_rtt_s : float or array_like
        FT-link round trip, s, >= 0 (default 50 us).
    ft_link_loss : float or array_like
        Packet loss on the FT link, in [0, 1).
    n_ft_vms : float or array_like
        FT VMs sharing the link fairly, >= 1.

    Returns
    -------
    ndarray
        Payload bit/s.

    References
    ----------
    .. [1] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A Simple Model and its
       Empirical Validation", ACM SIGCOMM 1998 (PFTK).

    Examples
    --------
    >>> from vcperf import ft
    >>> round(float(ft.ft_link_goodput_bps(10e9)) / 1e9, 2)  # Gbps of payload on 10 GbE
    9.49
    """
    link = v.rate_bps("ft_link_bps", ft_link_bps)
    rtt = v.nonneg("ft_ack_rtt_s", ft_ack_rtt_s)
    loss = v.check_range("ft_link_loss", ft_link_loss, 0.0, 1.0, hi_open=True)
    n = v.check_range("n_ft_vms", n_ft_vms, 1.0, math.inf, hi_open=True)
    v.broadcast(ft_link_bps=link, ft_ack_rtt_s=rtt, ft_link_loss=loss, n_ft_vms=n)
    return checked_link_goodput_bps(link, rtt, loss, n)


def checked_link_goodput_bps(link, rtt, loss, n):
    """TCP goodput (bit/s) of one of ``n`` equal payload shares of a logging link, on checked values."""
    return checked_share_goodput_bps(np.asarray(payload_rate_bps(link) / n, dtype=float), rtt, loss)


def checked_share_goodput_bps(share, rtt, loss):
    """TCP goodput (bit/s) of a payload ``share`` of the link over ``rtt`` and ``loss`` (window-bounded)."""
    share = np.asarray(share, dtype=float)
    if np.all(np.asarray(loss) == 0) and np.all(np.asarray(rtt) * share <= 8.0 * FT_SOCKET_BYTES):
        return share * np.ones(np.broadcast(share, rtt, loss).shape)  # window covers the BDP: the share rules
    return network.tcp_throughput_bps(share, rtt, loss, rwnd_bytes=FT_SOCKET_BYTES)


@dataclass(frozen=True, eq=False)
class CheckpointCycle:
    """One FT epoch (all fields broadcast arrays).

    Attributes
    ----------
    dirty_bytes_per_epoch : ndarray
        Bytes shipped per checkpoint (dirty pages + vCPU state).
    transfer_s : ndarray
        Time to ship them over the FT link (its goodput, :func:`ft_link_goodput_bps`).
    stun_s : ndarray
        Time the primary is paused per epoch (fixed part + transfer + acknowledgement round trip).
    epoch_wall_s : ndarray
        The checkpoint cycle: run time plus stun, seconds.
    run_fraction : ndarray
        ``E / (E + S)``: share of wall time the primary's vCPUs run.
    output_commit_delay_s : ndarray
        Mean time a network packet is held: ``E / 2 + S``.
    logging_bandwidth_bps : ndarray
        Mean bit rate on the FT logging link (wire bits, headers included), <= the VM's link share.
    link_goodput_bps : ndarray
        Payload rate the FT link gives this VM (share, window and loss bounded).
    flags : tuple of str
        Inputs beyond VMware's documented FT requirements and defaults (:func:`limit_flags`).
    """

    dirty_bytes_per_epoch: np.ndarray
    transfer_s: np.ndarray
    stun_s: np.ndarray
    epoch_wall_s: np.ndarray
    run_fraction: np.ndarray
    output_commit_delay_s: np.ndarray
    logging_bandwidth_bps: np.ndarray
    link_goodput_bps: np.ndarray
    flags: tuple = ()

    @property
    def cycle_s(self) -> np.ndarray:
        """Time between successive checkpoints (``epoch_wall_s``): responds to the FT link's RTT and rate."""
        return self.epoch_wall_s


def checked_link_constants(ft_link_bps, ft_ack_rtt_s, stun_fixed_s, ft_link_loss, n_ft_vms, vcpus,
                           release=DEFAULT_RELEASE, demand=None):
    """Validated (goodput bit/s, stun without the dirty pages: fixed + rtt + vCPU state transfer).

    ``demand(rate, fixed)``: this VM's logging payload rate (bit/s) alone on a link of goodput
    ``rate``; with it, ``n_ft_vms - 1`` identical peers take their max-min shares of the link and this
    VM ships at what they leave (module docstring). Without it: the fair share ``L / n_ft_vms`` (every
    VM shipping at once)."""
    rate = ft_link_goodput_bps(ft_link_bps, ft_ack_rtt_s, ft_link_loss, n_ft_vms)
    c = check_vcpus(vcpus, release)
    base = v.nonneg("stun_fixed_s", stun_fixed_s) + np.asarray(ft_ack_rtt_s, dtype=float)
    n = np.asarray(n_ft_vms, dtype=float)
    if demand is not None and np.any(n > 1.0):
        alone = checked_link_goodput_bps(ft_link_bps, ft_ack_rtt_s, ft_link_loss, 1.0)
        lam = np.asarray(demand(alone, base + 8.0 * c * VCPU_STATE_BYTES / alone), dtype=float)
        cap = payload_rate_bps(ft_link_bps)
        peers = (n - 1.0) * np.minimum(lam, cap / n)  # identical peers' max-min shares
        # >= the fair share
        rate = checked_share_goodput_bps(np.maximum(cap - peers, cap / n), ft_ack_rtt_s, ft_link_loss)
    return rate, base + 8.0 * c * VCPU_STATE_BYTES / rate


def checked_cycle_demand(d, e, wss, state):
    """``demand(rate, fixed)`` of a VM dirtying ``d`` B/s of run time: its logging payload bit/s."""
    def demand(rate, fixed):
        b = np.minimum(d * e, wss) + state
        return 8.0 * b / (e + fixed + 8.0 * (b - state) / rate)
    return demand


def checkpoint_cycle(
    dirty_rate_bytes_per_s,
    checkpoint_interval_s,
    ft_link_bps=DEFAULT_FT_LINK_BPS,
    *,
    ft_ack_rtt_s=DEFAULT_FT_ACK_RTT_S,
    stun_fixed_s=DEFAULT_STUN_FIXED_S,
    working_set_bytes=math.inf,
    ft_link_loss=0.0,
    n_ft_vms=1,
    vcpus=1,
    release=DEFAULT_RELEASE,
) -> CheckpointCycle:
    """Epoch, stun, run fraction, output-commit delay and FT traffic of a checkpointed VM.

    Seed ``002_1123405df89c1006.txt``, "Runtime State" and "Transparent Failover": memory and
    execution state are shipped continuously and network output is held until the secondary
    acknowledges. See the module docstring for the equations.

    Parameters
    ----------
    dirty_rate_bytes_per_s : float or array_like
        Bytes the guest dirties per second of run time (network I/O counts with
        :data:`DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE` / :data:`DEFAULT_DIRTY_BYTES_PER_TRANSMITTED_BYTE`), >= 0.
    checkpoint_interval_s : float or array_like
        Run time between checkpoints ``E`` (the checkpoint timer, > 0). The study's value is
        calibrated (``vcperf.ft.calibrate()``).
    ft_link_bps : float or array_like
        FT logging link rate (default 10 GbE, the vSphere 6 recommendation), > 0.
    ft_ack_rtt_s : float or array_like
        FT-link round trip (default 50 us, assumed; :func:`metro_rtt_s` for a metro distance), >= 0.
    stun_fixed_s : float or array_like
        Fixed stun per epoch besides shipping (default 0), >= 0.
    working_set_bytes : float or array_like
        Pages rewritten within one epoch ship once: the dirty bytes per epoch are capped here
        (default: no cap), > 0.
    ft_link_loss : float or array_like
        Packet loss on the FT link, in [0, 1).
    n_ft_vms : float
        FT VMs on the logging link, this one and ``n_ft_vms - 1`` identical ones (>= 1), sharing it
        work-conservingly (module docstring; :func:`share_ft_link` for VMs of different loads).
    vcpus : int or array_like of int
        vCPUs of the VM (1..the release's SMP-FT limit, :data:`FT_MAX_VCPUS`): each adds its state to
        every checkpoint.
    release : str
        vSphere release for the vCPU limit and the logging-link requirement (default "6.0").

    Returns
    -------
    CheckpointCycle
        With :attr:`CheckpointCycle.flags` naming inputs beyond VMware's documented limits.

    References
    ----------
    .. [1] B. Cully, G. Lefebvre, D. Meyer, M. Feeley, N. Hutchinson, A. Warfield, "Remus: High
       Availability via Asynchronous Virtual Machine Replication", NSDI 2008 (checkpoint replication
       with output commit).
    .. [2] VMware, Inc., "VMware vSphere 6 Fault Tolerance: Architecture and Performance", technical
       white paper, 2016, https://communities.vmware.com/docs/DOC-30054.

    Examples
    --------
    >>> from vcperf import ft
    >>> c = ft.checkpoint_cycle(1e8, 5e-3)  # 100 MB/s dirtied, a 5 ms epoch
    >>> round(float(c.run_fraction), 3), round(float(c.output_commit_delay_s) * 1e3, 2)
    (0.913, 2.98)
    """
    d = v.nonneg("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s)
    e = check_interval(checkpoint_interval_s)
    wss = v.check_range("working_set_bytes", working_set_bytes, 0.0, math.inf, lo_open=True)
    v.broadcast(dirty_rate_bytes_per_s=d, checkpoint_interval_s=e, ft_link_bps=ft_link_bps, ft_ack_rtt_s=ft_ack_rtt_s,
                stun_fixed_s=stun_fixed_s, working_set_bytes=wss, ft_link_loss=ft_link_loss, n_ft_vms=n_ft_vms,
                vcpus=vcpus)
    state = check_vcpus(vcpus, release) * VCPU_STATE_BYTES
    rate, fixed = checked_link_constants(ft_link_bps, ft_ack_rtt_s, stun_fixed_s, ft_link_loss, n_ft_vms, vcpus,
                                         release, demand=checked_cycle_demand(d, e, wss, state))
    return checked_cycle(d, e, wss, rate, fixed, state, limit_flags(ft_link_bps, vcpus, n_ft_vms, release))


def checked_cycle(d, e, wss, rate, fixed, state, flags):
    """:func:`checkpoint_cycle` of validated inputs on a link of goodput ``rate``."""
    b = np.minimum(d * e, wss)
    transfer = 8.0 * b / rate
    stun = fixed + transfer
    wall = e + stun
    return CheckpointCycle(
        dirty_bytes_per_epoch=b + state,
        transfer_s=transfer + 8.0 * state / rate,
        stun_s=stun,
        epoch_wall_s=wall,
        run_fraction=e / wall,
        output_commit_delay_s=e / 2.0 + stun,
        logging_bandwidth_bps=wire_rate_bps(8.0 * (b + state) / wall),
        link_goodput_bps=rate * np.ones_like(wall),
        flags=flags,
    )


def ft_logging_bandwidth_bps(
    receive_rate_bps,
    dirty_rate_bytes_per_s,
    checkpoint_interval_s,
    ft_link_bps=DEFAULT_FT_LINK_BPS,
    *,
    transmit_rate_bps=0.0,
    logged_bytes_per_received_byte=DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE,
    dirty_bytes_per_transmitted_byte=DEFAULT_DIRTY_BYTES_PER_TRANSMITTED_BYTE,
    **cycle_kw,
):
    """Mean FT logging traffic (bit/s on the wire) of a VM that receives, transmits and dirties memory.

    Figures 3-4 of ``002_1123405df89c1006.txt``: received data must reach the secondary (logged
    packet + dirtied receive buffers), so receive-heavy loads load the FT link; transmitted data is
    read by DMA and dirties only headers and descriptors, so transmit-heavy loads barely do.

    Parameters
    ----------
    receive_rate_bps : float or array_like
        Network data the guest receives per second of run time (bit/s), >= 0.
    dirty_rate_bytes_per_s : float or array_like
        Other memory dirtied per second of run time (bytes/s), >= 0.
    checkpoint_interval_s, ft_link_bps, **cycle_kw
        As in :func:`checkpoint_cycle`.
    transmit_rate_bps : float or array_like
        Network data the guest transmits per second of run time (bit/s), >= 0.
    logged_bytes_per_received_byte, dirty_bytes_per_transmitted_byte : float
        FT-link bytes per received byte (default 3) and dirtied bytes per transmitted byte (default
        headers + descriptors per MSS), >= 0.

    Returns
    -------
    ndarray
        Bit rate on the FT link; never above the VM's share of ``ft_link_bps`` (the primary is stunned
        while it ships).

    Examples
    --------
    >>> from vcperf import ft
    >>> round(float(ft.ft_logging_bandwidth_bps(1e9, 0.0, 5e-3)) / 1e9, 2)  # 1 Gbps received -> Gbps on the FT link
    2.39
    """
    r = v.check_range("receive_rate_bps", receive_rate_bps, 0.0, v.MAX_RATE_BPS)
    t = v.nonneg("transmit_rate_bps", transmit_rate_bps)
    d = v.nonneg("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s)
    c = v.check_range("logged_bytes_per_received_byte", logged_bytes_per_received_byte, 0.0, v.MAX_RATIO)
    ct = v.nonneg("dirty_bytes_per_transmitted_byte", dirty_bytes_per_transmitted_byte)
    v.broadcast(receive_rate_bps=r, transmit_rate_bps=t, dirty_rate_bytes_per_s=d, logged_bytes_per_received_byte=c,
                dirty_bytes_per_transmitted_byte=ct, checkpoint_interval_s=checkpoint_interval_s,
                ft_link_bps=ft_link_bps, **cycle_kw)
    cyc = checkpoint_cycle(d + (c * r + ct * t) / 8.0, checkpoint_interval_s, ft_link_bps, **cycle_kw)
    return cyc.logging_bandwidth_bps


def output_commit_delay_s(dirty_rate_bytes_per_s, checkpoint_interval_s, ft_link_bps=DEFAULT_FT_LINK_BPS,
                          **cycle_kw):
    """Mean extra latency of one outbound packet under FT: ``E / 2 + stun`` (Figure 5).

    The packet waits for the rest of its epoch (``E / 2`` on average), the checkpoint transfer and
    the secondary's acknowledgement. Parameters as in :func:`checkpoint_cycle`.

    Parameters
    ----------
    dirty_rate_bytes_per_s : float or array_like
        Memory the guest dirties per second of run time, B/s, >= 0.
    checkpoint_interval_s : float or array_like
        Run time between checkpoints ``E``, s, > 0.
    ft_link_bps : float or array_like
        FT logging link rate, bit/s, > 0.
    **cycle_kw
        Other inputs of :func:`checkpoint_cycle` (``ft_ack_rtt_s``, ``vcpus``, ...).

    Returns
    -------
    ndarray
        Seconds.

    References
    ----------
    .. [1] B. Cully, G. Lefebvre, D. Meyer, M. Feeley, N. Hutchinson, A. Warfield, "Remus: High
       Availability via Asynchronous Virtual Machine Replication", NSDI 2008 (checkpoint replication
       with output commit).
    .. [2] VMware, Inc., "VMware vSphere 6 Fault Tolerance: Architecture and Performance", technical
       white paper, 2016, https://communities.vmware.com/docs/DOC-30054.

    Examples
    --------
    >>> from vcperf import ft
    >>> round(float(ft.output_commit_delay_s(0.0, 5e-3)) * 1e3, 2)  # idle guest, 5 ms epoch: ms
    2.56
    """
    return checkpoint_cycle(dirty_rate_bytes_per_s, checkpoint_interval_s, ft_link_bps,
                            **cycle_kw).output_commit_delay_s


def run_fraction_at(throughput_per_s, dirty_bytes_per_op, background_dirty_rate_bytes_per_s,
                    checkpoint_interval_s, ft_link_bps=DEFAULT_FT_LINK_BPS, *,
                    working_set_bytes=math.inf, ft_ack_rtt_s=DEFAULT_FT_ACK_RTT_S,
                    stun_fixed_s=DEFAULT_STUN_FIXED_S, ft_link_loss=0.0, n_ft_vms=1, vcpus=1, release=DEFAULT_RELEASE):
    """Run fraction of a VM completing ``throughput_per_s`` operations per wall second.

    The memory dirtied per second of *run* time is ``bg + X m / phi``; solving
    ``phi = E / (E + S)`` with :func:`checkpoint_cycle`'s stun gives, without a working-set cap,
    ``phi = E (1 - 8 X m / R) / (E + S0 + 8 bg E / R)`` (``R`` the FT-link goodput, ``S0`` the stun
    without dirty pages): the VM is stunned exactly while the link ships the operations' memory.
    With the cap, the stun is fixed. Clipped at 1e-6 when the link cannot keep up (the primary is
    throttled). Other parameters as in :func:`checkpoint_cycle`.

    Parameters
    ----------
    throughput_per_s : float or array_like
        Operations completed per wall second, >= 0.
    dirty_bytes_per_op : float or array_like
        Memory each operation dirties, B, >= 0.
    background_dirty_rate_bytes_per_s : float or array_like
        Memory dirtied per second of run time besides the operations, B/s, >= 0.
    checkpoint_interval_s : float or array_like
        Run time between checkpoints ``E``, s, > 0.
    ft_link_bps, working_set_bytes, ft_ack_rtt_s, stun_fixed_s, ft_link_loss, n_ft_vms, vcpus, release
        As in :func:`checkpoint_cycle`.

    Returns
    -------
    ndarray
        Share of wall time the vCPUs run, in [1e-6, 1].

    Examples
    --------
    >>> from vcperf import ft
    >>> round(float(ft.run_fraction_at(100.0, 1e6, 0.0, 5e-3)), 3)  # 100 ops/s dirtying 1 MB each
    0.905
    """
    x = v.nonneg("throughput_per_s", throughput_per_s)
    m = v.nonneg("dirty_bytes_per_op", dirty_bytes_per_op)
    bg = v.nonneg("background_dirty_rate_bytes_per_s", background_dirty_rate_bytes_per_s)
    e = check_interval(checkpoint_interval_s)
    wss = v.check_range("working_set_bytes", working_set_bytes, 0.0, math.inf, lo_open=True)
    v.broadcast(throughput_per_s=x, dirty_bytes_per_op=m, background_dirty_rate_bytes_per_s=bg,
                checkpoint_interval_s=e, ft_link_bps=ft_link_bps, ft_ack_rtt_s=ft_ack_rtt_s, stun_fixed_s=stun_fixed_s,
                working_set_bytes=wss, ft_link_loss=ft_link_loss, n_ft_vms=n_ft_vms, vcpus=vcpus)
    state = check_vcpus(vcpus, release) * VCPU_STATE_BYTES

    def demand(rate, fixed):  # the VM's logging payload rate alone on the link
        phi = checked_run_fraction(x, m, bg, e, rate, fixed, wss)
        return 8.0 * (np.minimum(bg * e + x * m * e / phi, wss) + state) * phi / e

    rate, fixed = checked_link_constants(ft_link_bps, ft_ack_rtt_s, stun_fixed_s, ft_link_loss, n_ft_vms, vcpus,
                                         release, demand=demand)
    return checked_run_fraction(x, m, bg, e, rate, fixed, wss)


def checked_run_fraction(x, m, bg, e, rate, fixed, wss):
    """:func:`run_fraction_at` without input checks (``rate`` goodput, ``fixed`` stun without dirty pages)."""
    a = 8.0 / rate
    phi_free = e * (1.0 - x * m * a) / (e + fixed + bg * e * a)
    phi_cap = e / (e + fixed + wss * a)
    with np.errstate(divide="ignore", invalid="ignore"):
        capped = np.isfinite(wss) & ((bg + x * m / phi_cap) * e >= wss)
    return np.maximum(np.where(capped, phi_cap, phi_free), 1e-6)


def checked_commit_delay_s(d, e, rate, fixed, wss):
    """Output-commit delay of :func:`checkpoint_cycle` without input checks."""
    b = np.minimum(d * e, wss)
    return e / 2.0 + fixed + 8.0 * b / rate


def activity_time_s(duration_off_s, dirty_rate_bytes_per_s, exchanges, checkpoint_interval_s,
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

    Returns
    -------
    ndarray
        Seconds under FT.

    Examples
    --------
    >>> from vcperf import ft
    >>> round(float(ft.activity_time_s(1.0, 1e8, 10, 5e-3)), 3)  # 1 s of work, 10 exchanges
    1.125
    """
    t0 = v.nonneg("duration_off_s", duration_off_s)
    k = v.nonneg("exchanges", exchanges)
    cyc = checkpoint_cycle(dirty_rate_bytes_per_s, checkpoint_interval_s, ft_link_bps, **cycle_kw)
    v.broadcast(duration_off_s=t0, exchanges=k, dirty_rate_bytes_per_s=dirty_rate_bytes_per_s,
                checkpoint_interval_s=checkpoint_interval_s, ft_link_bps=ft_link_bps, **cycle_kw)
    return t0 / cyc.run_fraction + k * cyc.output_commit_delay_s
