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
#: Largest vCPU count of an FT-protected VM per vSphere release (SMP-FT; vSphere 6.0 introduced it with
#: 4 vCPUs, 6.7 and 7.0 allow 8 with Enterprise Plus: VMware configuration maximums). Product limits,
#: not from the seed: recorded with their provenance in ``data/ft2016/external_smp_ft_limits.csv``
#: (a test checks the two agree).
FT_MAX_VCPUS = {"6.0": 4, "6.5": 4, "6.7": 8, "7.0": 8}
#: The seed's release.
DEFAULT_RELEASE = "6.0"
#: FT logging link VMware requires per release (vSphere Availability 6.0, 6.5, 6.7 and 7.0, "Fault
#: Tolerance Requirements, Limits, and Licensing": "Use a (dedicated) 10-Gbit logging network for FT"),
#: for every release of :data:`FT_MAX_VCPUS`. Product requirements, recorded with their provenance in
#: ``data/ft2016/external_ft_requirements.csv`` (read_from: external; a test checks the two agree,
#: release for release); a slower link is computed and FLAGGED (:attr:`CheckpointCycle.flags`).
FT_LOGGING_LINK_BPS = {"6.0": 10e9, "6.5": 10e9, "6.7": 10e9, "7.0": 10e9}
#: Where the FT limits are stated (the ``flags``' ``source``).
_REQUIREMENTS_SOURCE = ("VMware, 'vSphere Availability' ({rel}), Fault Tolerance Requirements, Limits, and "
                        "Licensing; data/ft2016/external_ft_requirements")
#: Default per-host FT limits of the same documents (das.maxftvmsperhost, das.maxftvcpusperhost):
#: fault-tolerant VMs (primaries and secondaries) and their vCPUs on one host. Beyond them: FLAGGED.
FT_HOST_MAX_VMS = 4
FT_HOST_MAX_VCPUS = 8
#: Longest checkpoint interval the model takes (s). FT checkpoints continuously (the timer runs at
#: milliseconds); ten seconds between checkpoints is no longer continuous protection, and far longer
#: intervals make the epoch's dirty bytes overflow. A validation range, not a model parameter.
MAX_CHECKPOINT_INTERVAL_S = 10.0


def check_interval(checkpoint_interval_s):
    """``checkpoint_interval_s`` as a float array if in ``(0, MAX_CHECKPOINT_INTERVAL_S]``, else ValueError."""
    return v.check_range("checkpoint_interval_s", checkpoint_interval_s, 0.0, MAX_CHECKPOINT_INTERVAL_S,
                         lo_open=True)


def check_ft_vcpus(vcpus, release: str = DEFAULT_RELEASE) -> int:
    """``vcpus`` as an int if an FT VM of vSphere ``release`` may have that many, else ValueError.

    Seed ``002_1123405df89c1006.txt`` (vSphere 6.0 SMP-FT; Appendix B tests 1, 2 and 4 vCPUs); the
    limits per release are :data:`FT_MAX_VCPUS`.

    Parameters
    ----------
    vcpus : int
        vCPUs of the FT VM.
    release : str
        vSphere release, a key of :data:`FT_MAX_VCPUS` (default "6.0").

    Examples
    --------
    >>> from vcperf import ft
    >>> ft.check_ft_vcpus(4), ft.check_ft_vcpus(8, release="6.7")
    (4, 8)
    """
    rel = v.choice("release", release, tuple(FT_MAX_VCPUS))
    try:
        return v.integer("vcpus", vcpus, 1, FT_MAX_VCPUS[rel])
    except ValueError as err:
        raise ValueError(f"{err} (the SMP-FT vCPU limit of vSphere {rel}: {FT_MAX_VCPUS[rel]})") from None


def check_vcpus(vcpus, release: str = DEFAULT_RELEASE) -> np.ndarray:
    """``vcpus`` (scalar or array) as a float array if every value is an integer an FT VM of ``release``
    may have, else ValueError naming the value, the valid range and the release (:data:`FT_MAX_VCPUS`)."""
    rel = v.choice("release", release, tuple(FT_MAX_VCPUS))
    try:
        return v.integers("vcpus", vcpus, 1, FT_MAX_VCPUS[rel]).astype(float)
    except ValueError as err:
        raise ValueError(f"{err} (the SMP-FT vCPU limit of vSphere {rel}: {FT_MAX_VCPUS[rel]})") from None


def limit_flags(ft_link_bps, vcpus, n_ft_vms, release: str = DEFAULT_RELEASE) -> tuple:
    """Which FT inputs lie beyond VMware's documented requirements and defaults (strings; empty if none).

    The logging link below :data:`FT_LOGGING_LINK_BPS` of ``release``; more FT VMs sharing it (one
    host's logging NIC) than :data:`FT_HOST_MAX_VMS`, or their vCPUs beyond :data:`FT_HOST_MAX_VCPUS`.
    The model still computes such inputs: a flag, never a clamp.

    Parameters
    ----------
    ft_link_bps : float or array_like
        FT logging link rate, bit/s, > 0.
    vcpus : float or array_like
        vCPUs of the FT VM, >= 1.
    n_ft_vms : float or array_like
        FT VMs sharing the logging link, >= 1.
    release : str
        vSphere release (default "6.0").

    Returns
    -------
    tuple of vcperf._validate.Flag
        Strings with structure (``kind``, ``name``, ``limit``, ``value``, ``source``); empty if none.

    Examples
    --------
    >>> from vcperf import ft
    >>> ft.limit_flags(10e9, 4, 1), [f.kind for f in ft.limit_flags(1e9, 4, 1, release="7.0")]
    ((), ['beyond_default'])
    """
    link = np.asarray(v.positive("ft_link_bps", ft_link_bps))
    c = np.asarray(v.check_range("vcpus", vcpus, 1.0, np.inf))
    n = np.asarray(v.check_range("n_ft_vms", n_ft_vms, 1.0, np.inf, hi_open=True))
    rel = v.choice("release", release, tuple(FT_MAX_VCPUS))
    out = []
    need = FT_LOGGING_LINK_BPS[rel]
    src = _REQUIREMENTS_SOURCE.format(rel=f"vSphere {rel}")
    if np.any(link < need):
        out.append(v.Flag(f"ft_link_bps below the {need / 1e9:g} Gbit/s FT logging network vSphere {rel} requires "
                          f"(min {float(link.min()):g})", kind="beyond_default", name="ft_link_bps", limit=need,
                          value=float(link.min()), source=src))
    if np.any(n > FT_HOST_MAX_VMS):
        out.append(v.Flag(f"n_ft_vms above the default {FT_HOST_MAX_VMS} FT VMs per host (das.maxftvmsperhost)",
                          kind="beyond_default", name="n_ft_vms", limit=float(FT_HOST_MAX_VMS),
                          value=float(n.max()), source=src))
    if np.any(n * c > FT_HOST_MAX_VCPUS):
        out.append(v.Flag(f"n_ft_vms x vcpus above the default {FT_HOST_MAX_VCPUS} FT vCPUs per host "
                          "(das.maxftvcpusperhost)", kind="beyond_default", name="n_ft_vms x vcpus",
                          limit=float(FT_HOST_MAX_VCPUS), value=float((n * c).max()), source=src))
    return tuple(out)


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
    link = v.positive("ft_link_bps", ft_link_bps)
    rtt = v.nonneg("ft_ack_rtt_s", ft_ack_rtt_s)
    loss = v.check_range("ft_link_loss", ft_link_loss, 0.0, 1.0, hi_open=True)
    n = v.check_range("n_ft_vms", n_ft_vms, 1.0, math.inf, hi_open=True)
    v.broadcast(ft_link_bps=link, ft_ack_rtt_s=rtt, ft_link_loss=loss, n_ft_vms=n)
    return _goodput(link, rtt, loss, n)


def _goodput(link, rtt, loss, n):
    return _goodput_of(np.asarray(payload_rate_bps(link) / n, dtype=float), rtt, loss)


def _goodput_of(share, rtt, loss):
    """TCP goodput (bit/s) of a payload ``share`` of the link over ``rtt`` and ``loss`` (window-bounded)."""
    share = np.asarray(share, dtype=float)
    if np.all(np.asarray(loss) == 0) and np.all(np.asarray(rtt) * share <= 8.0 * FT_SOCKET_BYTES):
        return share * np.ones(np.broadcast(share, rtt, loss).shape)  # window covers the BDP: the share rules
    return network.tcp_throughput_bps(share, rtt, loss, rwnd_bytes=FT_SOCKET_BYTES)


def max_min_shares_bps(demands_bps, capacity_bps):
    """Max-min fair (water-filling) division of a link among flows of given demands (bit/s).

    Every flow that wants less than the water level gets its demand; the others get the level, set so
    that the shares fill the capacity (or every demand is met). Work-conserving: capacity one flow
    leaves goes to the others; a flow's share never falls when another's demand falls.

    Parameters
    ----------
    demands_bps : array_like
        Demand of each flow, bit/s, >= 0 (last axis: the flows).
    capacity_bps : float or array_like
        Capacity of the link, bit/s, >= 0 (broadcast against the leading axes).

    Returns
    -------
    numpy.ndarray
        Each flow's share, bit/s: ``<= demand``, summing to ``min(capacity, sum of demands)``.

    References
    ----------
    .. [1] D. Bertsekas, R. Gallager, "Data Networks", 2nd ed., Prentice Hall, 1992, section 6.5.2
       (max-min fairness, the water-filling algorithm).

    Examples
    --------
    >>> from vcperf import ft
    >>> [float(x) for x in ft.max_min_shares_bps([1.0, 5.0, 8.0], 10.0)]
    [1.0, 4.5, 4.5]
    """
    d = np.asarray(v.nonneg("demands_bps", demands_bps), dtype=float)
    if d.ndim == 0 or d.shape[-1] == 0:
        raise ValueError(f"demands_bps must hold at least one flow's demand (last axis); got shape {d.shape}")
    cap = np.asarray(v.nonneg("capacity_bps", capacity_bps), dtype=float)
    return _water_fill(d, cap)


def _water_fill(d, cap):
    """:func:`max_min_shares_bps` of validated inputs."""
    d = np.asarray(d, dtype=float)
    cap = np.asarray(cap, dtype=float)[..., None]
    k = d.shape[-1]
    srt = np.sort(d, axis=-1)
    before = np.concatenate([np.zeros(srt.shape[:-1] + (1,)), np.cumsum(srt, axis=-1)[..., :-1]], axis=-1)
    # level if the i smallest demands are met and the rest share what is left equally
    levels = (cap - before) / (k - np.arange(k))
    met = srt <= levels  # the i-th smallest is met at the level the smaller ones leave
    ok = np.cumprod(met, axis=-1).astype(bool)
    n_met = ok.sum(axis=-1, keepdims=True)
    level = np.where(n_met == k, np.inf,
                     np.take_along_axis(levels, np.minimum(n_met, k - 1), axis=-1))
    return np.minimum(d, level)


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


def _link_consts(ft_link_bps, ft_ack_rtt_s, stun_fixed_s, ft_link_loss, n_ft_vms, vcpus, release=DEFAULT_RELEASE,
                 demand=None):
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
        alone = _goodput(ft_link_bps, ft_ack_rtt_s, ft_link_loss, 1.0)
        lam = np.asarray(demand(alone, base + 8.0 * c * VCPU_STATE_BYTES / alone), dtype=float)
        cap = payload_rate_bps(ft_link_bps)
        peers = (n - 1.0) * np.minimum(lam, cap / n)  # identical peers' max-min shares
        rate = _goodput_of(cap - peers, ft_ack_rtt_s, ft_link_loss)
    return rate, base + 8.0 * c * VCPU_STATE_BYTES / rate


def _cycle_demand(d, e, wss, state):
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
    rate, fixed = _link_consts(ft_link_bps, ft_ack_rtt_s, stun_fixed_s, ft_link_loss, n_ft_vms, vcpus, release,
                               demand=_cycle_demand(d, e, wss, state))
    return _cycle(d, e, wss, rate, fixed, state, limit_flags(ft_link_bps, vcpus, n_ft_vms, release))


def _cycle(d, e, wss, rate, fixed, state, flags):
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
    r = v.nonneg("receive_rate_bps", receive_rate_bps)
    t = v.nonneg("transmit_rate_bps", transmit_rate_bps)
    d = v.nonneg("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s)
    c = v.nonneg("logged_bytes_per_received_byte", logged_bytes_per_received_byte)
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
        phi = _run_fraction(x, m, bg, e, rate, fixed, wss)
        return 8.0 * (np.minimum(bg * e + x * m * e / phi, wss) + state) * phi / e

    rate, fixed = _link_consts(ft_link_bps, ft_ack_rtt_s, stun_fixed_s, ft_link_loss, n_ft_vms, vcpus, release,
                               demand=demand)
    return _run_fraction(x, m, bg, e, rate, fixed, wss)


def _run_fraction(x, m, bg, e, rate, fixed, wss):
    """:func:`run_fraction_at` without input checks (``rate`` goodput, ``fixed`` stun without dirty pages)."""
    a = 8.0 / rate
    phi_free = e * (1.0 - x * m * a) / (e + fixed + bg * e * a)
    phi_cap = e / (e + fixed + wss * a)
    with np.errstate(divide="ignore", invalid="ignore"):
        capped = np.isfinite(wss) & ((bg + x * m / phi_cap) * e >= wss)
    return np.maximum(np.where(capped, phi_cap, phi_free), 1e-6)


def _commit_delay(d, e, rate, fixed, wss):
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


@dataclass(frozen=True, eq=False)
class FtLinkShare:
    """FT VMs of different loads on one logging link (:func:`share_ft_link`); arrays over the VMs.

    Attributes
    ----------
    demand_bps : ndarray
        Each VM's logging payload rate alone on the link, bit/s (what it asks of the link).
    share_bps : ndarray
        Its max-min fair share of the link's payload capacity (:func:`max_min_shares_bps`), bit/s.
    available_bps : ndarray
        The payload rate its checkpoints ship at: the capacity minus the others' shares, bit/s.
    cycle : CheckpointCycle
        Each VM's checkpoint cycle at its available rate (run fraction, stun, logging bandwidth).
    link_utilization : float
        Mean wire bit rate of all the VMs' logging over the link rate, in [0, 1].
    flags : tuple of str
        Inputs beyond VMware's documented FT limits (:func:`limit_flags` for the VMs together).
    """

    demand_bps: np.ndarray
    share_bps: np.ndarray
    available_bps: np.ndarray
    cycle: CheckpointCycle
    link_utilization: float
    flags: tuple = ()


def share_ft_link(dirty_rates_bytes_per_s, checkpoint_interval_s, ft_link_bps=DEFAULT_FT_LINK_BPS, *, vcpus=1,
                  ft_ack_rtt_s=DEFAULT_FT_ACK_RTT_S, stun_fixed_s=DEFAULT_STUN_FIXED_S, working_set_bytes=math.inf,
                  ft_link_loss=0.0, release=DEFAULT_RELEASE) -> FtLinkShare:
    """Several FT VMs on one logging link, shared work-conservingly (module docstring).

    Each VM's demand is its logging rate alone on the link; the link's payload capacity is divided by
    max-min water filling of the demands; each VM's checkpoints ship at what the others' shares
    leave. A VM going idle never slows another; when every VM wants more than ``L / n`` each ships at
    ``L / n`` (:func:`ft_link_goodput_bps` with ``n_ft_vms = n``).

    Parameters
    ----------
    dirty_rates_bytes_per_s : array_like
        Bytes each VM dirties per second of run time (one per VM, network I/O counted as in
        :func:`checkpoint_cycle`), >= 0; at least one VM.
    checkpoint_interval_s : float
        The checkpoint timer ``E``, s, > 0 (the study's: ``vcperf.ft.calibrate().checkpoint_interval_s``).
    ft_link_bps : float
        The shared FT logging link, bit/s, > 0.
    vcpus : int or array_like of int
        vCPUs of each VM (one value for all, or one per VM).
    ft_ack_rtt_s, stun_fixed_s, working_set_bytes, ft_link_loss, release
        As in :func:`checkpoint_cycle` (scalars).

    Returns
    -------
    FtLinkShare

    Examples
    --------
    >>> from vcperf import ft
    >>> busy = ft.share_ft_link([1e8, 1e8, 1e8, 1e8], 5e-3)
    >>> idle = ft.share_ft_link([1e8, 0.0, 0.0, 0.0], 5e-3)
    >>> bool(idle.cycle.run_fraction[0] >= busy.cycle.run_fraction[0]), round(busy.link_utilization, 2)
    (True, 0.31)
    """
    d = np.asarray(v.nonneg("dirty_rates_bytes_per_s", dirty_rates_bytes_per_s), dtype=float)
    if d.ndim != 1 or d.size == 0:
        raise ValueError(f"dirty_rates_bytes_per_s must be a 1-D sequence of at least one VM's rate; got shape "
                         f"{d.shape}")
    e = float(v.scalar("checkpoint_interval_s", checkpoint_interval_s, 0.0, MAX_CHECKPOINT_INTERVAL_S, lo_open=True))
    link = v.scalar("ft_link_bps", ft_link_bps, 0.0, math.inf, lo_open=True, hi_open=True)
    rtt = v.scalar("ft_ack_rtt_s", ft_ack_rtt_s, 0.0, math.inf, hi_open=True)
    loss = v.scalar("ft_link_loss", ft_link_loss, 0.0, 1.0, hi_open=True)
    wss = v.scalar("working_set_bytes", working_set_bytes, 0.0, math.inf, lo_open=True)
    base = v.scalar("stun_fixed_s", stun_fixed_s, 0.0, math.inf, hi_open=True) + rtt
    v.broadcast(dirty_rates_bytes_per_s=d, vcpus=vcpus)
    c = check_vcpus(vcpus, release) * np.ones(d.shape)
    flags = limit_flags(link, float(c.mean()), float(d.size), release)
    state = c * VCPU_STATE_BYTES
    alone = _goodput(link, rtt, loss, 1.0)
    demand = _cycle_demand(d, e, wss, state)(alone, base + 8.0 * state / alone)
    cap = float(payload_rate_bps(link))
    share = _water_fill(demand, cap)
    available = cap - (share.sum() - share)
    rate = _goodput_of(available, rtt, loss)
    cycle = _cycle(d, e, wss, rate, base + 8.0 * state / rate, state, flags)
    return FtLinkShare(demand_bps=demand, share_bps=share, available_bps=available, cycle=cycle,
                       link_utilization=float(cycle.logging_bandwidth_bps.sum() / link), flags=flags)
